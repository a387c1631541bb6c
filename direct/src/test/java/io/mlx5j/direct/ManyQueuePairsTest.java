// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A storage engine's shape: 1,024 RC QPs in one context, far more than the context's 16 BlueFlame registers, so
 * libmlx5 gives most registers to many QPs. The default {@link RegisterMode#AUTO} must lock exactly the registers
 * libmlx5 may share, and posts on every QP, from two threads whose QPs share registers, must all arrive.
 */
class ManyQueuePairsTest
{
    private static final int QPS = 1024;
    private static final int MSG = 64;
    /** Posts per QP in the two-thread round (the register locks are taken concurrently). */
    private static final int ROUNDS = 4;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aThousandQueuePairsInOneContextAllPostAndComplete() throws InterruptedException
    {
        try (Context ctx = Context.open("mlx5_0");
             ProtectionDomain pd = ctx.allocPd();
             Arena arena = Arena.ofShared())
        {
            // source slot i carries QP i's pattern; QP i writes it into its peer's destination slot
            final MemorySegment buf = arena.allocate(2L * QPS * MSG, 4096);
            for (int i = 0; i < QPS; i++)
            {
                for (int b = 0; b < MSG; b++)
                {
                    buf.set(ValueLayout.JAVA_BYTE, (long) i * MSG + b, (byte) (i * 31 + b * 7 + 1));
                }
            }
            final long dst = (long) QPS * MSG;
            final MemoryRegion mr = pd.register(arena, buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            // one CQ per posting thread (a CqPoller belongs to one thread): even QPs on cqs[0], odd on cqs[1]
            final CompletionQueue[] cqs = {ctx.createCq(QPS * ROUNDS), ctx.createCq(QPS * ROUNDS)};
            final QueuePair[] qps = new QueuePair[QPS];
            for (int i = 0; i < QPS; i++)
            {
                qps[i] = pd.createQp(QpConfig.builder(QpType.RC, cqs[i & 1]).maxSendWr(2 * ROUNDS).maxRecvWr(1)
                    .build());
            }
            // loopback pairs 2k <-> 2k+1 on the one port
            final PortAttributes port = ctx.queryPort(1);
            for (int i = 0; i < QPS; i++)
            {
                final QueuePair peer = qps[i ^ 1];
                qps[i].connect(1, mr.access(), 0, port.activeMtu(), PeerInfo.of(port.lid(), peer.qpn(), 0,
                    ctx.queryGid(1, 0)), AddressVector.ib(1, port.lid(), 0), 0);
            }
            final SendQueue[] sqs = new SendQueue[QPS];
            final CqPoller[] pollers = {CqPoller.of(cqs[0]), CqPoller.of(cqs[1])};
            final Map<RegisterMode, Integer> modes = new EnumMap<>(RegisterMode.class);
            final Map<Long, Set<Integer>> usersByRegister = new HashMap<>();
            final Map<Long, RegisterMode> modeByRegister = new HashMap<>();
            for (int i = 0; i < QPS; i++)
            {
                sqs[i] = SendQueue.of(qps[i], DoorbellMode.AUTO);
                pollers[i & 1].attach(sqs[i]);
                final RegisterMode m = sqs[i].registerMode();
                modes.merge(m, 1, Integer::sum);
                final long reg = qps[i].rings().bfReg().address();
                usersByRegister.computeIfAbsent(reg, k -> new HashSet<>()).add(i);
                final RegisterMode before = modeByRegister.putIfAbsent(reg, m);
                assertTrue(before == null || before == m, "one register, one mode: " + sqs[i]);
                assertTrue(sqs[i].toString().contains("register " + m), sqs[i].toString());
            }
            // libmlx5 defaults (MLX5_TOTAL_UUARS 16, MLX5_NUM_LOW_LAT_UUARS 4): registers 12..15 low latency, each
            // one QP's; registers 1..11 medium, shared by the other 1,020 QPs, all locked; register 0 unused
            assertEquals(Map.of(RegisterMode.DEDICATED, 4, RegisterMode.LOCKED, QPS - 4), modes,
                "register modes with libmlx5's default register counts");
            assertEquals(15, usersByRegister.size(), "registers in use");
            usersByRegister.forEach((reg, users) -> assertEquals(modeByRegister.get(reg) == RegisterMode.DEDICATED,
                users.size() == 1, "a register is dedicated exactly when one QP has it: 0x" + Long.toHexString(reg)));
            // a second queue on a dedicated register, or a dedicated queue on a shared one, is refused
            final QueuePair sharedQp = qps[QPS - 1];
            assertEquals(RegisterMode.LOCKED, sqs[QPS - 1].registerMode());
            final IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> SendQueue.of(sharedQp, DoorbellMode.AUTO, RegisterMode.DEDICATED));
            assertTrue(refused.getMessage().contains("cannot be DEDICATED"), refused.getMessage());

            // round 1, one thread: one signaled RDMA WRITE per QP, 1,024 completions, each exactly once
            for (int i = 0; i < QPS; i++)
            {
                assertTrue(sqs[i].rdmaWrite(i, mr.address() + (long) i * MSG, mr.lkey(), MSG,
                    mr.address() + dst + (long) (i ^ 1) * MSG, mr.rkey(), SendFlags.SIGNALED | SendFlags.RING));
            }
            final boolean[] seen = new boolean[QPS];
            for (int t = 0; t < 2; t++)
            {
                drain(pollers[t], qps, seen, QPS / 2);
            }
            for (int i = 0; i < QPS; i++)
            {
                assertTrue(seen[i], "completion of QP " + i);
                final long written = dst + (long) (i ^ 1) * MSG;
                assertEquals(-1L, buf.asSlice((long) i * MSG, MSG).mismatch(buf.asSlice(written, MSG)),
                    "the bytes QP " + i + " wrote");
            }

            // round 2, two threads at once, each with its own half of the QPs; the halves share every medium
            // register, so their rings meet in the registers' locks
            for (int t = 0; t < 2; t++)
            {
                pollers[t].claim();
            }
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread[] threads = new Thread[2];
            for (int t = 0; t < 2; t++)
            {
                final int half = t;
                threads[t] = new Thread(() ->
                {
                    try
                    {
                        pollers[half].claim();
                        final boolean[] got = new boolean[QPS * ROUNDS];
                        for (int r = 0; r < ROUNDS; r++)
                        {
                            for (int i = half; i < QPS; i += 2)
                            {
                                final long wrId = (long) r * QPS + i;
                                if (!sqs[i].rdmaWrite(wrId, mr.address() + (long) i * MSG, mr.lkey(), MSG,
                                    mr.address() + dst + (long) (i ^ 1) * MSG, mr.rkey(),
                                    SendFlags.SIGNALED | SendFlags.RING))
                                {
                                    throw new AssertionError("ring full: " + sqs[i]);
                                }
                            }
                        }
                        drainRounds(pollers[half], qps, got, QPS / 2 * ROUNDS);
                        for (int r = 0; r < ROUNDS; r++)
                        {
                            for (int i = half; i < QPS; i += 2)
                            {
                                if (!got[r * QPS + i])
                                {
                                    throw new AssertionError("no completion for QP " + i + " round " + r);
                                }
                            }
                        }
                    }
                    catch (final Throwable ex)
                    {
                        failure.compareAndSet(null, ex);
                    }
                }, "poster-" + t);
            }
            for (final Thread th : threads)
            {
                th.start();
            }
            for (final Thread th : threads)
            {
                th.join(TimeUnit.SECONDS.toMillis(120));
                assertTrue(!th.isAlive(), th.getName() + " finished");
            }
            assertNull(failure.get(), () -> "poster failed: " + failure.get());
        }
    }

    /**
     * Poll {@code expected} RDMA WRITE completions: wr_id i from QP i, each once, nothing else, nothing in error.
     */
    private static void drain(final CqPoller poller, final QueuePair[] qps, final boolean[] seen, final int expected)
    {
        final Completion wc = new Completion();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int got = 0;
        while (got < expected)
        {
            if (poller.poll(wc) == 0)
            {
                assertTrue(System.nanoTime() < deadline, "completions: " + got + " of " + expected);
                Thread.onSpinWait();
                continue;
            }
            assertTrue(wc.isSuccess(), wc.toString());
            assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(), wc.toString());
            final int i = (int) wc.wrId();
            assertEquals(qps[i].qpn(), wc.qpn(), "wr_id and QP agree: " + wc);
            assertTrue(!seen[i], "a second completion for QP " + i);
            seen[i] = true;
            got++;
        }
        assertEquals(0, poller.poll(wc), "no completion past the expected ones");
    }

    /** Poll RDMA WRITE completions (round r, QP i as wr_id r * QPS + i), each once (off the test thread). */
    private static void drainRounds(final CqPoller poller, final QueuePair[] qps, final boolean[] got,
        final int expected)
    {
        final Completion wc = new Completion();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int n = 0;
        while (n < expected)
        {
            if (poller.poll(wc) == 0)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("completions: " + n + " of " + expected);
                }
                Thread.onSpinWait();
                continue;
            }
            final int id = (int) wc.wrId();
            final int i = id % QPS;
            if (!wc.isSuccess() || wc.opcode() != WcOpcode.RDMA_WRITE || wc.qpn() != qps[i].qpn() || got[id])
            {
                throw new AssertionError("unexpected completion " + wc + " (wr_id " + id + ")");
            }
            got[id] = true;
            n++;
        }
    }
}
