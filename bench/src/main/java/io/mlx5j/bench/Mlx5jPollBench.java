package io.mlx5j.bench;

import java.util.concurrent.TimeUnit;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.WcStatus;
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
 * mlx5j polling requester completions: the {@link SyntheticCompleter} writes 1 or 16 CQEs, one poll call consumes
 * them. One op = one CQE.
 * <p>
 * mlx5j retires the send WQE each CQE names and refuses a CQE that names no outstanding WQE (libmlx5 does not
 * check). So before each CQE the benchmark posts one signaled ctrl-only NOP WQE without a doorbell, and that post is
 * part of the measured time: the mlx5j numbers here are poll + a minimal post, an upper bound of the poll cost.
 * The libmlx5 counterpart, {@link IbvPollCqBench}, completes WQEs posted once in setup.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules=jdk.incubator.vector"})
public class Mlx5jPollBench
{
    private EmulatedQp env;
    private ComposedSendQueue sq;
    private ComposedCq cq;
    private SyntheticCompleter completer;
    private int curPost;
    private long wrId;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedQp.open();
        sq = new ComposedSendQueue(env.qp.rings(), DoorbellMode.DOORBELL);
        cq = new ComposedCq(env.cq.ring(), sq.sendQueue(), env.qp.qpn());
        completer = new SyntheticCompleter(env.cq.ring(), env.qp.qpn(), env.uidx);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        env.close();
    }

    @Benchmark
    public int poll1()
    {
        return cycle(1);
    }

    @Benchmark
    @OperationsPerInvocation(16)
    public int poll16()
    {
        return cycle(16);
    }

    private int cycle(final int n)
    {
        for (int i = 0; i < n; i++)
        {
            final long id = ++wrId;
            if (!sq.nop(id, ComposedSendQueue.SIGNALED))
            {
                throw new IllegalStateException("send queue full");
            }
            completer.complete(curPost, Mlx5Opcode.MLX5_OPCODE_NOP);
            curPost++;
        }
        final int got = cq.poll(n);
        if (got != n || cq.wrId() != wrId || cq.status() != WcStatus.SUCCESS)
        {
            throw new IllegalStateException("mlx5j poll: expected " + n + " completions ending with wr_id " + wrId
                + ", got " + got + " ending with " + cq.wrId() + " " + cq.status());
        }
        return got;
    }
}
