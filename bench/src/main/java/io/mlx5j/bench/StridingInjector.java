// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import io.mlx5j.verbs.CompletionQueue;

/**
 * Stands in for the NIC on a striding WQ's CQ (engine off): writes raw RESP_SEND CQEs as the device writes them, the
 * body first, then op_own with the owner bit of the pass (release). The same bytes for mlx5j
 * ({@link StridingRecvBench}) and for libmlx5 ({@link IbvStridingRecvBench}, and the C loop's
 * {@code libmlx5_striding.h}): the 64 bytes zeroed, L2/L3/L4 OK, UDP over IPv4, byte_cnt, timestamp 1000 + CQE
 * number, flow tag 0x77 in sop_drop_qpn, wqe_counter = the stride index, and srqn_uidx = the WQ's user index
 * (cqe_version 1: libmlx5 finds the WQ by it; mlx5j does not read it).
 * <p>
 * Offsets: struct mlx5_cqe64 (mlx5dv.h): hds_ip_ext 0x1c, l4_hdr_type_etc 0x1d, srqn_uidx 0x20, byte_cnt 0x2c,
 * timestamp 0x30, sop_drop_qpn 0x38, wqe_counter 0x3c, op_own 0x3f.
 * <p>
 * The stores are plain ones at the ring's address ({@link CqeStores}), as in {@link SyntheticCompleter}: the C
 * loop's injector stores through a pointer, and the stand-in NIC must not charge the Java rows the checks of sixteen
 * segment accesses per CQE. The ring outlives the injector: the benchmarks close the CQ only in their tear-down.
 */
final class StridingInjector
{
    /** byte_cnt bit 31 on a striding RQ: a filler CQE (the strides left in the WQE are skipped). */
    static final int FILLER = 0x80000000;

    private static final int MLX5_CQE_RESP_SEND = 2;

    private final long base;
    private final int cnt;
    private final int uidx;
    private int produced;

    StridingInjector(final CompletionQueue cq, final int uidx)
    {
        this.base = cq.ring().buf().address();
        this.cnt = cq.ring().cqeCnt();
        this.uidx = uidx & 0xffffff;
    }

    /** @param strideIndex wqe_counter; @param byteCnt length | strides &lt;&lt; 16 | filler &lt;&lt; 31 */
    void put(final int strideIndex, final int byteCnt)
    {
        final long at = base + (long) (produced & (cnt - 1)) * 64;
        for (int i = 0; i < 64; i += 8)
        {
            CqeStores.putLongBE(at + i, 0L);
        }
        CqeStores.putByte(at + 0x1c, (byte) 7);                 // hds_ip_ext: L2, L3, L4 OK
        CqeStores.putByte(at + 0x1d, (byte) (2 << 4 | 2 << 2)); // UDP over IPv4
        CqeStores.putIntBE(at + 0x20, uidx);
        CqeStores.putIntBE(at + 0x2c, byteCnt);
        CqeStores.putLongBE(at + 0x30, 1000L + produced);                         // timestamp
        CqeStores.putIntBE(at + 0x38, 0x77);                                     // flow tag
        CqeStores.putShortBE(at + 0x3c, (short) strideIndex);
        CqeStores.putByteRelease(at + 0x3f, (byte) (MLX5_CQE_RESP_SEND << 4 | ((produced / cnt) & 1)));
        produced++;
    }
}
