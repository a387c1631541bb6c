// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.util.concurrent.TimeUnit;

import io.mlx5j.bindings.Mlx5dvCqInitAttr;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.Completions;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link Mlx5jRawRecvBench#recv16} on a CQ created with CQE compression (CSUM format): per op the
 * {@link RawRecvCompleter} writes the 16 frames as one compressed block (a title CQE and two mini-CQE arrays: 192
 * CQE bytes, 12 per frame, against 64 per frame uncompressed), {@link CqPoller} decodes them (wr_id, length,
 * checksum-OK and the check_sum, flow tag, title's timestamp, frame address) and hands every slot of the block
 * back, and each buffer goes back to the {@link RecvQueue}, rung once per op. One op = one frame. libmlx5 v44 cannot
 * decode compressed CQEs: its counterpart is the uncompressed {@code IbvRawPollCqBench.recv16} (ibv_poll_cq of the
 * same 16 frames as 16 plain CQEs) and the C loop's row of that name.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {ForkArgs.NATIVE, ForkArgs.SFENCE, ForkArgs.VECTOR})
public class Mlx5jRawRecvCompressedBench
{
    private static final short CSUM = (short) 0x5a5a;
    private EmulatedRawQp env;
    private RecvQueue rq;
    private CqPoller cq;
    private final Completions batch = new Completions(16);
    private RawRecvCompleter completer;
    private int lkey;
    private int next;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedRawQp.openCompressed(Mlx5dvCqInitAttr.MLX5DV_CQE_RES_FORMAT_CSUM);
        rq = RecvQueue.of(env.qp);
        cq = CqPoller.of(env.recvCq).attach(rq);
        lkey = env.mr.lkey();
        env.postAllReceives(rq);
        completer = new RawRecvCompleter(env.recvCq.ring(), env.uidx, 1L << 40);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
    }

    /** 16 frames per poll call, written as one compressed block. */
    @Benchmark
    @OperationsPerInvocation(16)
    public long recv16()
    {
        int slot = next;
        completer.completeBlock(slot, 16, RawWorkload.FRAME, CSUM);
        final int got = cq.poll(batch, 16);
        if (got != 16)
        {
            throw new IllegalStateException("CqPoller.poll: expected 16 receive completions, got " + got);
        }
        long sum = 0;
        for (int i = 0; i < 16; i++)
        {
            final Completion c = batch.get(i);
            if (c.wrId() != slot || !c.isSuccess() || c.byteLen() != RawWorkload.FRAME || !c.ipCsumOk() ||
                !c.compressed() || c.checkSum() != (CSUM & 0xffff))
            {
                throw new IllegalStateException("CqPoller.poll: expected the compressed " + RawWorkload.FRAME +
                    "-byte frame of receive " + slot + ", got " + c);
            }
            sum += c.timestamp();
            if (!rq.post(c.wrId(), c.frameAddress(), lkey, RawWorkload.RECV_BUF))
            {
                throw new IllegalStateException("receive queue full: the completer and the ring are out of step");
            }
            slot = (slot + 1) & (EmulatedRawQp.MAX_WR - 1);
        }
        rq.ring();
        next = slot;
        return sum;
    }
}
