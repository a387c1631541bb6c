// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

/**
 * libmlx5's static BlueFlame register scheme, read back from what {@code mlx5dv_init_obj} reports for a QP: which
 * register it is, and whether libmlx5 locks it. Facts from rdma-core v44 providers/mlx5/mlx5.c (get_total_uuars,
 * get_num_low_lat_uuars, need_uuar_lock, get_uar_mmap_offset, the {@code bfs[]} set-up in mlx5_init_context) and the
 * kernel's mlx5 qp.c alloc_bfreg (low-latency registers first, then the least used medium one, else register 0).
 *
 * <p>Register numbers here are libmlx5's "net" numbers: 2 usable registers per 4 KiB UAR, register {@code n} at
 * UAR {@code n / 2}, offset {@code 0x800 + (n % 2) * bf_reg_size} ({@code bf_reg_size} = 2 * {@code bf.size}).
 * libmlx5 maps UAR page {@code i} at mmap offset {@code ((cmd << 8) | i) * page_size} with cmd 0 (regular) or 3
 * (non-cached, {@code MLX5_SHUT_UP_BF}); dynamic UARs (thread domains: cmd 6; UAR objects: offsets from
 * {@code 9 << 16} on) are outside this scheme.
 */
public final class StaticBlueFlameRegisters
{
    /** libmlx5's {@code MLX5_DEF_TOT_UUARS}: 8 UARs of 2 registers. */
    static final int DEFAULT_TOTAL = 16;
    /** libmlx5's default for {@code MLX5_NUM_LOW_LAT_UUARS}. */
    static final int DEFAULT_LOW_LATENCY = 4;
    /** libmlx5's {@code MLX5_MED_BFREGS_TSHOLD}: at most this many medium registers, the rest are low latency. */
    static final int MEDIUM_THRESHOLD = 12;
    /** {@code MLX5_MAX_BFREGS}. */
    static final int MAX_TOTAL = 512;
    static final int ADAPTER_PAGE = 4096;
    /** {@code MLX5_BF_OFFSET}: the first register's offset in its UAR. */
    static final int BF_OFFSET = 0x800;
    static final int CMD_REGULAR = 0;
    static final int CMD_NON_CACHED = 3;

    /** Not a static register, or the numbers do not fit the scheme. */
    public static final int UNKNOWN = -1;

    private StaticBlueFlameRegisters()
    {
    }

    /**
     * The register's net number, or {@link #UNKNOWN}.
     *
     * @param uarMmapOffset {@code mlx5dv_qp.uar_mmap_offset}, or -1 when not reported
     * @param regAddress    {@code mlx5dv_qp.bf.reg}
     * @param bfSize        {@code mlx5dv_qp.bf.size}: half a register
     * @param pageSize      the system page size
     * @return the number, or {@link #UNKNOWN}
     */
    public static int registerNumber(final long uarMmapOffset, final long regAddress, final int bfSize,
        final long pageSize)
    {
        if (uarMmapOffset < 0 || pageSize < ADAPTER_PAGE || uarMmapOffset % pageSize != 0)
        {
            return UNKNOWN;
        }
        final long pgoff = uarMmapOffset / pageSize;
        final long cmd = pgoff >>> 8;
        if (cmd != CMD_REGULAR && cmd != CMD_NON_CACHED)
        {
            return UNKNOWN;
        }
        final long page = pgoff & 0xff;
        final long uarsPerPage = pageSize / ADAPTER_PAGE;
        final long uarInPage = (regAddress & (pageSize - 1)) / ADAPTER_PAGE;
        final long inUar = regAddress & (ADAPTER_PAGE - 1);
        if (bfSize == 0)
        {
            // register 0 is the only one without a buffer; libmlx5 reports its address at the first register slot
            return page == 0 && uarInPage == 0 && inUar == BF_OFFSET ? 0 : UNKNOWN;
        }
        final long regSize = 2L * bfSize;
        if (inUar < BF_OFFSET || (inUar - BF_OFFSET) % regSize != 0 || (inUar - BF_OFFSET) / regSize > 1)
        {
            return UNKNOWN;
        }
        return (int) ((page * uarsPerPage + uarInPage) * 2 + (inUar - BF_OFFSET) / regSize);
    }

    /**
     * {@code tot_uuars} as libmlx5 requests it: {@code MLX5_TOTAL_UUARS} or 16, at least one page, even.
     *
     * @param env the environment variable's value, or null
     * @param pageSize the system page size
     * @return the count
     */
    public static int total(final String env, final long pageSize)
    {
        int size = parse(env, DEFAULT_TOTAL);
        if (size < 1)
        {
            return UNKNOWN;
        }
        size = (int) Math.max(pageSize / ADAPTER_PAGE * 2, size);
        size = (size + 1) & ~1;
        return size > MAX_TOTAL ? UNKNOWN : size;
    }

    /**
     * {@code low_lat_uuars}: {@code MLX5_NUM_LOW_LAT_UUARS} or 4, and no fewer than {@code total - 12}.
     *
     * @param env the environment variable's value, or null
     * @param total {@code tot_uuars}
     * @return the count
     */
    public static int lowLatency(final String env, final int total)
    {
        final int num = parse(env, DEFAULT_LOW_LATENCY);
        return num < 0 ? UNKNOWN : Math.max(num, total - MEDIUM_THRESHOLD);
    }

    /**
     * Whether libmlx5 writes register {@code n} without a lock because only one QP ever gets it: a low-latency
     * register ({@code need_uuar_lock}: {@code n >= tot_uuars - low_lat_uuars}).
     *
     * @param n the register's number
     * @param total {@code tot_uuars}
     * @param lowLatency {@code low_lat_uuars}
     * @return whether the register is dedicated
     */
    public static boolean dedicated(final int n, final int total, final int lowLatency)
    {
        return n > 0 && n < total && lowLatency >= 0 && n >= total - lowLatency;
    }

    /** C's atoi as libmlx5 applies it: leading digits with an optional sign, 0 when there are none. */
    private static int parse(final String env, final int dflt)
    {
        if (env == null)
        {
            return dflt;
        }
        final String s = env.strip();
        int i = 0;
        boolean negative = false;
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+'))
        {
            negative = s.charAt(i) == '-';
            i++;
        }
        long v = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i)) && v < Integer.MAX_VALUE)
        {
            v = v * 10 + (s.charAt(i) - '0');
            i++;
        }
        v = Math.min(v, Integer.MAX_VALUE);
        return (int) (negative ? -v : v);
    }
}
