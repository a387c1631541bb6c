// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.util.concurrent.TimeUnit;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.raw.RawSendQueue;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.UdpHeaderTemplate;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import static io.mlx5j.bench.Workload.BATCH;

/**
 * mlx5j's raw send path ({@link RawSendQueue}, completions through {@link CqPoller}) on {@link EmulatedRawQp}: the
 * {@link RawWorkload} frame, a 42-byte UDP header and a 64-byte payload with IPv4/UDP checksum offload, the payload by
 * gather entry or inline, in either doorbell mode, and the header either as libmlx5 lays it out or wholly inline.
 * One op = one frame. Counterparts: {@link
 * IbvRawPostSendBench}, {@link IbvRawWrBench} and the C loop's {@code c.IbvRawPostSendBench} /
 * {@code c.IbvRawWrBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(BATCH)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, ForkArgs.VECTOR})
public class Mlx5jRawSendBench
{
    private static final int FLAGS = SendFlags.IP_CSUM | SendFlags.RING;

    /**
     * BLUEFLAME against libmlx5's default for the inline frame (libmlx5 copies a single WQE to BlueFlame only when
     * it is inline); DOORBELL, the 8-byte doorbell, against libmlx5's default for the SGE frame and against
     * MLX5_SHUT_UP_BF=1.
     */
    @Param({"BLUEFLAME", "DOORBELL"})
    public DoorbellMode doorbell;

    /**
     * MIN_INLINE: the device's minimum of the header inline in the Ethernet segment, the rest of the frame by gather
     * entries or inline data, the WQE libmlx5 writes for the same work request (RawSendParityTest): the like-for-like
     * row. INLINE_42: the whole 42-byte header inline ({@code inlineHeaders(42)}), what a NIC that parses the
     * headers from the WQE gets from mlx5j; libmlx5's ibv_post_send cannot write it, so its rows are the reference
     * for the same frame, not the same bytes.
     */
    @Param({"MIN_INLINE", "INLINE_42"})
    public String header;

    private EmulatedRawQp env;
    private RawSendQueue sq;
    private CqPoller cq;
    private final Completion completion = new Completion();
    private SyntheticCompleter completer;
    private UdpHeaderTemplate template;
    private int lkey;
    private long payload;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedRawQp.open(0);
        sq = RawSendQueue.of(env.qp, doorbell);
        if ("INLINE_42".equals(header))
        {
            sq.inlineHeaders(UdpHeaderTemplate.LENGTH);
        }
        cq = CqPoller.of(env.sendCq).attach(sq.queue());
        completer = new SyntheticCompleter(env.sendCq.ring(), env.qp.qpn(), env.uidx);
        template = env.header;
        lkey = env.mr.lkey();
        payload = env.payload();
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
    }

    /** Payload by one gather entry. */
    @Benchmark
    public int udpSge()
    {
        return cycle(0);
    }

    /** Payload inline. */
    @Benchmark
    public int udpInline()
    {
        return cycle(SendFlags.INLINE);
    }

    private int cycle(final int inline)
    {
        final RawSendQueue sq = this.sq;
        int last = 0;
        for (int i = 1; i <= BATCH; i++)
        {
            final boolean signaled = i == BATCH;
            last = sq.producerCounter();
            if (!sq.send(signaled ? Workload.SIGNALED_WR_ID : Workload.UNSIGNALED_WR_ID, template, lkey, payload, lkey,
                RawWorkload.PAYLOAD, RawSendQueue.NO_VLAN, FLAGS | inline | (signaled ? SendFlags.SIGNALED : 0)))
            {
                throw new IllegalStateException("send queue full: the completer and the ring are out of step");
            }
        }
        completer.complete(last, Mlx5Opcode.MLX5_OPCODE_SEND);
        final Completion c = completion;
        final int n = cq.poll(c);
        if (n != 1 || c.wrId() != Workload.SIGNALED_WR_ID || !c.isSuccess())
        {
            throw Workload.badCompletion("CqPoller.poll", n, c.wrId(), c.statusCode());
        }
        return n;
    }
}
