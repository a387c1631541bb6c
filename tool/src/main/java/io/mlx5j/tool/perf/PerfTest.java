// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

/**
 * The perf tests, named as perftest's binaries (ib_write_lat ...) without the prefix. What one iteration is:
 * <ul>
 *   <li>write_lat: ping-pong of RDMA WRITEs; each side spins on the last byte of its own buffer (perftest
 *       write_lat); a sample is one round trip, reported halved;</li>
 *   <li>send_lat: ping-pong of SENDs into posted receives; each side polls its CQ for the receive; halved;</li>
 *   <li>read_lat / atomic_lat: one RDMA READ / one FETCH_ADD, from post to its completion (already a round trip);</li>
 *   <li>atomic_bw: a stream of FETCH_ADDs of 1 on the peer's first 8 bytes, like write_bw;</li>
 *   <li>*_bw: the client streams WRITEs / READs / SENDs with a window of {@code tx-depth} outstanding, signalling
 *       every {@code cq-mod}-th; the server only supplies the buffer (and, for send_bw, the receives);</li>
 *   <li>raw_lat / raw_bw: perftest's raw_ethernet_lat / raw_ethernet_bw, send_lat's ping-pong and send_bw's stream
 *       of Ethernet frames on a RAW_PACKET QP ({@link RawOptions}).</li>
 * </ul>
 */
public enum PerfTest
{
    WRITE_LAT("write_lat", "RDMA_Write Latency Test", true, 2),
    WRITE_BW("write_bw", "RDMA_Write BW Test", false, 0),
    SEND_LAT("send_lat", "Send Latency Test", true, 2),
    SEND_BW("send_bw", "Send BW Test", false, 0),
    READ_LAT("read_lat", "RDMA_Read Latency Test", true, 1),
    READ_BW("read_bw", "RDMA_Read BW Test", false, 0),
    ATOMIC_LAT("atomic_lat", "Atomic FETCH_AND_ADD Latency Test", true, 1),
    ATOMIC_BW("atomic_bw", "Atomic FETCH_AND_ADD BW Test", false, 0),
    RAW_LAT("raw_lat", "Raw Ethernet Send Latency Test", true, 2),
    RAW_BW("raw_bw", "Raw Ethernet Send BW Test", false, 0);

    private final String cliName;
    private final String title;
    private final boolean latency;
    private final int rttFactor;

    PerfTest(final String cliName, final String title, final boolean latency, final int rttFactor)
    {
        this.cliName = cliName;
        this.title = title;
        this.latency = latency;
        this.rttFactor = rttFactor;
    }

    public String cliName()
    {
        return cliName;
    }

    /** perftest's banner title. */
    public String title()
    {
        return title;
    }

    public boolean isLatency()
    {
        return latency;
    }

    /** 2 when a latency sample is a round trip reported halved, 1 when it is reported whole. */
    public int rttFactor()
    {
        return rttFactor;
    }

    /** A raw Ethernet test (its options: {@link RawOptions}); the others are perftest's ib_* ({@link IbOptions}). */
    public boolean isRaw()
    {
        return this == RAW_LAT || this == RAW_BW;
    }

    /** send_lat or send_bw (raw_lat and raw_bw send frames, but their receive side is the raw part's own). */
    public boolean isSend()
    {
        return this == SEND_LAT || this == SEND_BW;
    }

    public boolean isRead()
    {
        return this == READ_LAT || this == READ_BW;
    }

    public boolean isAtomic()
    {
        return this == ATOMIC_LAT || this == ATOMIC_BW;
    }

    public boolean isWrite()
    {
        return this == WRITE_LAT || this == WRITE_BW;
    }

    /** Inline applies only to what the sender copies into the WQE: WRITE and SEND payloads, and raw frames. */
    public boolean canInline()
    {
        return isWrite() || isSend() || isRaw();
    }

    public static PerfTest byName(final String name)
    {
        for (final PerfTest t : values())
        {
            if (t.cliName.equals(name))
            {
                return t;
            }
        }
        return null;
    }

    public static String names()
    {
        final StringBuilder sb = new StringBuilder();
        for (final PerfTest t : values())
        {
            sb.append(sb.isEmpty() ? "" : ", ").append(t.cliName);
        }
        return sb.toString();
    }
}
