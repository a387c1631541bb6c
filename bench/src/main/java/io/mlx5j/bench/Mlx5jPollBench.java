package io.mlx5j.bench;

import java.util.concurrent.TimeUnit;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.Completions;
import io.mlx5j.direct.DirectCq;
import io.mlx5j.direct.DirectSendQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.wqe.Mlx5Opcode;
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
 * mlx5j polling requester completions ({@link DirectCq}): the {@link SyntheticCompleter} writes 1 or 16 CQEs, one
 * poll call ({@code poll(Completion)}, resp. {@code poll(Completions, 16)}) consumes them. One op = one CQE.
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
    private DirectSendQueue sq;
    private DirectCq cq;
    private final Completion one = new Completion();
    private final Completions batch = new Completions(16);
    private SyntheticCompleter completer;
    private int curPost;
    private long wrId;

    @Setup(Level.Trial)
    public void setup()
    {
        env = EmulatedQp.open();
        sq = DirectSendQueue.of(env.qp, DoorbellMode.DOORBELL);
        cq = DirectCq.of(env.cq).attach(sq);
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
        repost(1);
        final int got = cq.poll(one);
        check(got, 1, one);
        return got;
    }

    @Benchmark
    @OperationsPerInvocation(16)
    public int poll16()
    {
        repost(16);
        final int got = cq.poll(batch, 16);
        check(got, 16, batch.get(15));
        return got;
    }

    private void repost(final int n)
    {
        for (int i = 0; i < n; i++)
        {
            final long id = ++wrId;
            if (!sq.nop(id, SendFlags.SIGNALED))
            {
                throw new IllegalStateException("send queue full");
            }
            completer.complete(curPost, Mlx5Opcode.MLX5_OPCODE_NOP);
            curPost++;
        }
    }

    private void check(final int got, final int n, final Completion last)
    {
        if (got != n || last.wrId() != wrId || !last.isSuccess())
        {
            throw new IllegalStateException("DirectCq.poll: expected " + n + " completions ending with wr_id " + wrId
                + ", got " + got + " ending with " + last);
        }
    }
}
