// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.validate;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.raw.NicClock;
import io.mlx5j.tool.validate.Report.Verdict;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.DeviceCapabilities;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.WcStatus;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Instant;

/**
 * Every opcode mlx5j posts on RC, once, over a QP connected to itself, each completion's opcode, length and
 * immediate and the moved bytes compared with what was posted; then a WRITE with a wrong rkey, which must complete
 * with IBV_WC_REM_ACCESS_ERR; and, where the device has a clock, a CQE timestamp converted to CLOCK_REALTIME
 * compared with the host's clock read around the post.
 */
final class TrafficCheck
{
    private static final int LEN = 256;
    private static final long SRC = 0;
    private static final long DST = 4096;
    private static final long RECV = 8192;
    private static final long WORD = 12288;
    private static final long RESULT = 12296;
    private static final long TIMEOUT_NANOS = 10_000_000_000L;
    /** How far a converted CQE timestamp may lie outside the host's CLOCK_REALTIME reads around the post. */
    static final long CLOCK_TOLERANCE_NANOS = 1_000_000L;
    private static final ValueLayout.OfLong HOST64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private final Report report;
    private final Completion wc = new Completion();
    private CqPoller poller;

    TrafficCheck(final Report report)
    {
        this.report = report;
    }

    void run(final Context ctx, final DeviceCapabilities caps, final int gidIndex)
    {
        try (ProtectionDomain pd = ctx.allocPd(); Arena arena = Arena.ofShared())
        {
            final MemorySegment buf = arena.allocate(16384, 4096);
            for (int i = 0; i < LEN; i++)
            {
                buf.set(ValueLayout.JAVA_BYTE, SRC + i, (byte) (i * 7 + 1));
            }
            final MemoryRegion mr = pd.register(arena, buf, Access.ALL_REMOTE);
            final CompletionQueue cq = ctx.createCq(64);
            final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
            final PortAttributes port = ctx.queryPort(1);
            final PeerInfo self;
            final AddressVector path;
            if (port.isEthernet())
            {
                self = PeerInfo.of(0, qp.qpn(), 0, ctx.queryGid(1, gidIndex));
                path = AddressVector.global(1, self.gid(), gidIndex, 64, 0);
            }
            else
            {
                self = PeerInfo.of(port.lid(), qp.qpn(), 0, ctx.queryGid(1, 0));
                path = AddressVector.ib(1, port.lid(), 0);
            }
            qp.connect(1, mr.access(), 0, port.activeMtu(), self, path, self.psn());
            final SendQueue sq = SendQueue.of(qp, DoorbellMode.AUTO);
            final RecvQueue rq = RecvQueue.of(qp);
            poller = CqPoller.of(cq).attach(sq).attach(rq);
            report.fact("send queue doorbell", sq.mode() + " (BlueFlame register " + qp.rings().bfSize()
                + " bytes" + (qp.rings().bfSize() == 0 ? ", none: 8-byte doorbells only" : "") + ")");
            report.fact("max inline data", sq.maxInlineData());
            final long a = mr.address();
            final int lkey = mr.lkey();
            final int rkey = mr.rkey();

            // SEND and SEND_IMM: the receive side sees the bytes, the length and the immediate
            for (int i = 0; i < 3; i++)
            {
                rq.post(100 + i, a + RECV + i * 1024L, lkey, 1024);
            }
            rq.ring();
            final long hostBefore = realtimeNanos();
            sq.send(1, a + SRC, lkey, LEN, SendFlags.SIGNALED | SendFlags.RING);
            final long[] send = await(2, 1, 100);
            final long hostAfter = realtimeNanos();
            verify("SEND", send, WcOpcode.SEND, WcOpcode.RECV, LEN, 0, false, same(buf, SRC, RECV, LEN));
            sq.sendImm(2, a + SRC, lkey, LEN, 0x1234abcd, SendFlags.SIGNALED | SendFlags.RING);
            verify("SEND_IMM", await(2, 2, 101), WcOpcode.SEND, WcOpcode.RECV, LEN, 0x1234abcd, true,
                same(buf, SRC, RECV + 1024, LEN));
            sq.rdmaWrite(3, a + SRC, lkey, LEN, a + DST, rkey, SendFlags.SIGNALED | SendFlags.RING);
            verify("WRITE", await(1, 3, -1), WcOpcode.RDMA_WRITE, -1, LEN, 0, false, same(buf, SRC, DST, LEN));
            buf.asSlice(DST, LEN).fill((byte) 0);
            sq.rdmaWriteImm(4, a + SRC, lkey, LEN, a + DST, rkey, 0x0badf00d, SendFlags.SIGNALED | SendFlags.RING);
            verify("WRITE_IMM", await(2, 4, 102), WcOpcode.RDMA_WRITE, WcOpcode.RECV_RDMA_WITH_IMM, LEN, 0x0badf00d,
                true, same(buf, SRC, DST, LEN));
            buf.asSlice(DST, LEN).fill((byte) 0);
            sq.rdmaRead(5, a + DST, lkey, LEN, a + SRC, rkey, SendFlags.SIGNALED | SendFlags.RING);
            verify("READ", await(1, 5, -1), WcOpcode.RDMA_READ, -1, LEN, 0, false, same(buf, SRC, DST, LEN));
            buf.set(HOST64, WORD, 100L);
            sq.compareSwap(6, a + RESULT, lkey, a + WORD, rkey, 100L, 200L, SendFlags.SIGNALED | SendFlags.RING);
            final long[] cs = await(1, 6, -1);
            atomic("CMP_SWAP", cs, WcOpcode.COMP_SWAP, buf, 100L, 200L);
            sq.fetchAdd(7, a + RESULT, lkey, a + WORD, rkey, 5L, SendFlags.SIGNALED | SendFlags.RING);
            atomic("FETCH_ADD", await(1, 7, -1), WcOpcode.FETCH_ADD, buf, 200L, 205L);

            // mlx5j reads the timestamp of responder CQEs (Completion.timestamp): the SEND's receive
            timestamps(ctx, caps, send[R_TS], hostBefore, hostAfter);

            errorCompletion(ctx, pd, mr, port, self, gidIndex);
        }
        catch (final IllegalStateException ex)
        {
            report.check("loopback traffic", Verdict.FAIL, ex.getMessage());
        }
    }

    /**
     * A WRITE with a wrong rkey from a fresh QP to another (not to itself: a QP that is its own responder moves to the
     * error state on the NAK it sends, and its own request then completes flushed, not with the access error).
     */
    private void errorCompletion(final Context ctx, final ProtectionDomain pd, final MemoryRegion mr,
        final PortAttributes port, final PeerInfo first, final int gidIndex)
    {
        final CompletionQueue cq = ctx.createCq(16);
        final QueuePair req = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        final QueuePair resp = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        final PeerInfo reqInfo = PeerInfo.of(first.lid(), req.qpn(), 0, first.gid());
        final PeerInfo respInfo = PeerInfo.of(first.lid(), resp.qpn(), 0, first.gid());
        final AddressVector path = port.isEthernet() ? AddressVector.global(1, first.gid(), gidIndex, 64, 0)
            : AddressVector.ib(1, port.lid(), 0);
        req.connect(1, mr.access(), 0, port.activeMtu(), respInfo, path, reqInfo.psn());
        resp.connect(1, mr.access(), 0, port.activeMtu(), reqInfo, path, respInfo.psn());
        final SendQueue sq = SendQueue.of(req, DoorbellMode.AUTO);
        poller = CqPoller.of(cq).attach(sq);
        sq.rdmaWrite(8, mr.address() + SRC, mr.lkey(), LEN, mr.address() + DST, mr.rkey() ^ 0x00ffff00,
            SendFlags.SIGNALED | SendFlags.RING);
        final long[] bad = awaitAny(8);
        final boolean ok = bad[STATUS] == WcStatus.REM_ACCESS_ERR.ordinal();
        report.check("error completion (WRITE with a wrong rkey)", ok ? Verdict.PASS : Verdict.FAIL,
            "status " + WcStatus.values()[(int) bad[STATUS]] + ", syndrome 0x" + Long.toHexString(bad[SYNDROME])
            + (ok ? "" : " (expected REM_ACCESS_ERR)"));
    }

    private static long realtimeNanos()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private void timestamps(final Context ctx, final DeviceCapabilities caps, final long ticks, final long before,
        final long after)
    {
        if (!caps.hasClock())
        {
            report.check("NIC timestamp vs CLOCK_REALTIME", Verdict.WARN, "the device reports no completion clock");
            return;
        }
        try (NicClock clock = NicClock.of(ctx))
        {
            final long ns = clock.toNanos(ticks);
            final long off = ns < before ? ns - before : ns > after ? ns - after : 0;
            final boolean ok = Math.abs(off) <= CLOCK_TOLERANCE_NANOS;
            report.fact("NIC timestamp offset (ns)", off);
            report.check("NIC timestamp vs CLOCK_REALTIME", ok ? Verdict.PASS : Verdict.FAIL,
                "SEND completion at " + ns + " ns, host read " + before + ".." + after + (ok ? "" :
                " (more than " + CLOCK_TOLERANCE_NANOS + " ns outside: is the clock-info page stale?)"));
        }
    }

    private void verify(final String op, final long[] sendSide, final int sendOpcode, final int recvOpcode,
        final int len, final int imm, final boolean withImm, final boolean bytes)
    {
        final StringBuilder why = new StringBuilder();
        if (sendSide[STATUS] != WcStatus.SUCCESS.ordinal() || sendSide[OPCODE] != sendOpcode)
        {
            why.append("send completion status ").append(WcStatus.values()[(int) sendSide[STATUS]])
                .append(" opcode ").append(sendSide[OPCODE]).append("; ");
        }
        if (recvOpcode >= 0)
        {
            if (sendSide[R_STATUS] != WcStatus.SUCCESS.ordinal() || sendSide[R_OPCODE] != recvOpcode
                || sendSide[R_LEN] != len || withImm && sendSide[R_IMM] != (imm & 0xffffffffL))
            {
                why.append("receive completion opcode ").append(sendSide[R_OPCODE]).append(" length ")
                    .append(sendSide[R_LEN]).append(" imm 0x").append(Long.toHexString(sendSide[R_IMM])).append("; ");
            }
        }
        if (!bytes)
        {
            why.append("the data differs from what was posted; ");
        }
        report.check(op, why.isEmpty() ? Verdict.PASS : Verdict.FAIL,
            why.isEmpty() ? len + " bytes verified" : why.toString());
    }

    private void atomic(final String op, final long[] c, final int opcode, final MemorySegment buf, final long old,
        final long now)
    {
        final long result = buf.get(HOST64, RESULT);
        final long word = buf.get(HOST64, WORD);
        final boolean ok = c[STATUS] == WcStatus.SUCCESS.ordinal() && c[OPCODE] == opcode && result == old
            && word == now;
        report.check(op, ok ? Verdict.PASS : Verdict.FAIL, "returned " + result + " (want " + old + "), word now "
            + word + " (want " + now + ")" + (ok || word != Long.reverseBytes(now) ? ""
            : ": the device treats remote words as big-endian"));
    }

    private static boolean same(final MemorySegment buf, final long from, final long to, final int len)
    {
        return buf.asSlice(from, len).mismatch(buf.asSlice(to, len)) == -1;
    }

    private static final int STATUS = 0;
    private static final int OPCODE = 1;
    private static final int TS = 2;
    private static final int SYNDROME = 3;
    private static final int R_STATUS = 4;
    private static final int R_OPCODE = 5;
    private static final int R_LEN = 6;
    private static final int R_IMM = 7;
    private static final int R_TS = 8;

    /** Polls until {@code n} completions (the send's wrId, and the receive's when recvWrId >= 0) have come. */
    private long[] await(final int n, final long wrId, final long recvWrId)
    {
        final long[] r = new long[9];
        int got = 0;
        final long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (got < n)
        {
            if (poller.poll(wc) == 0)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IllegalStateException("wr_id " + wrId + ": " + got + " of " + n
                        + " completions within 10 s");
                }
                Thread.onSpinWait();
                continue;
            }
            got++;
            if (wc.wrId() == wrId && wc.opcode() < WcOpcode.RECV)
            {
                r[STATUS] = wc.status().ordinal();
                r[OPCODE] = wc.opcode();
                r[TS] = wc.timestamp();
                r[SYNDROME] = wc.syndrome();
            }
            else if (wc.wrId() == recvWrId)
            {
                r[R_STATUS] = wc.status().ordinal();
                r[R_OPCODE] = wc.opcode();
                r[R_LEN] = wc.byteLen();
                r[R_IMM] = wc.imm() & 0xffffffffL;
                r[R_TS] = wc.timestamp();
            }
            else
            {
                throw new IllegalStateException("unexpected completion wr_id " + wc.wrId() + " status "
                    + wc.status() + " while waiting for wr_id " + wrId);
            }
        }
        return r;
    }

    /** The completion of wrId, skipping flushed receives (the error moves every posted receive to the CQ). */
    private long[] awaitAny(final long wrId)
    {
        final long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (true)
        {
            if (poller.poll(wc) == 0)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IllegalStateException("wr_id " + wrId + ": no completion within 10 s");
                }
                Thread.onSpinWait();
                continue;
            }
            if (wc.wrId() == wrId)
            {
                final long[] r = new long[9];
                r[STATUS] = wc.status().ordinal();
                r[SYNDROME] = wc.syndrome();
                return r;
            }
        }
    }
}
