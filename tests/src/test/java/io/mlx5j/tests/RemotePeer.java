// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The other process of {@link CrossProcessTest}: an RC endpoint driven only by mlx5j's direct path, controlled line
 * by line over stdin/stdout (the test JVM started it with the same emulator environment, so both meet on one
 * fabric). Commands:
 * <pre>
 *   (start)            prints "INFO &lt;pingpong message&gt; &lt;rkey&gt; &lt;addr&gt;"
 *   PEER &lt;message&gt;     connect to the test's QP, post receives, print "READY"
 *   RECV &lt;n&gt;           wait for n receive completions, print "GOT wr_id:status:opcode:byte_len:imm:src_qp ..."
 *   HASH &lt;off&gt; &lt;len&gt;   print "HASH &lt;hex sha-256&gt;" of that part of the buffer
 *   WORD &lt;off&gt;         print "WORD &lt;big-endian 64-bit value&gt;"
 *   SEND &lt;off&gt; &lt;len&gt;   post a signaled SEND to the test's QP and print its completion as "SENT ..."
 *   BYE                exit 0 (closing everything)
 * </pre>
 * The first 32 KiB of the buffer are the receive area (one 4 KiB buffer per receive WQE), the next 32 KiB are
 * filled with a pattern for the test to READ, and a 64-bit counter sits at 0x10000 for atomics.
 */
public final class RemotePeer
{
    static final int BYTES = 0x20000;
    static final long PATTERN_OFFSET = 0x8000;
    static final long COUNTER_OFFSET = 0x10000;
    static final long WRITE_OFFSET = 0x18000;

    private RemotePeer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (Rig rig = new Rig())
        {
            final CompletionQueue cqObject = rig.cq(256);
            final QueuePair qp = rig.pd.createQp(QpConfig.builder(QpType.RC, cqObject).maxSendWr(32).maxRecvWr(16)
                .build());
            final MemoryRegion mr = rig.memory(BYTES);
            final MemorySegment buf = mr.memory();
            Rig.fill(buf, PATTERN_OFFSET, 0x8000, 77);
            buf.set(ValueLayout.JAVA_LONG_UNALIGNED, COUNTER_OFFSET, 40L); // host order, as 8-byte atomics see it
            final SendQueue sq = SendQueue.of(qp, DoorbellMode.AUTO);
            final RecvQueue rq = RecvQueue.of(qp);
            final CqPoller cq = CqPoller.of(cqObject).attach(sq).attach(rq);
            final Completion c = new Completion();
            out.println("INFO " + rig.peer(qp, 0x300).toPingpongMessage() + " " + mr.rkey() + " " + mr.address());
            String line;
            while ((line = in.readLine()) != null)
            {
                final String[] w = line.trim().split(" ");
                switch (w[0])
                {
                    case "PEER" ->
                    {
                        final PeerInfo peer = PeerInfo.parsePingpongMessage(w[1]);
                        qp.connect(1, io.mlx5j.verbs.Access.ALL_REMOTE, 0, rig.port.activeMtu(), peer, rig.path(),
                            0x300);
                        for (int i = 0; i < 8; i++)
                        {
                            if (!rq.post(0x5000 + i, mr.address() + i * 4096L, mr.lkey(), 4096))
                            {
                                throw new IllegalStateException("receive ring full");
                            }
                        }
                        rq.ring();
                        out.println("READY");
                    }
                    case "RECV" ->
                    {
                        final StringBuilder sb = new StringBuilder("GOT");
                        for (int i = 0; i < Integer.parseInt(w[1]); i++)
                        {
                            Rig.await(cq, c);
                            sb.append(' ').append(describe(c));
                        }
                        out.println(sb);
                    }
                    case "HASH" -> out.println("HASH " + sha256(buf.asSlice(Long.parseLong(w[1]),
                        Integer.parseInt(w[2]))));
                    case "WORD" ->
                        out.println("WORD " + buf.get(ValueLayout.JAVA_LONG_UNALIGNED, Long.parseLong(w[1])));
                    case "SEND" ->
                    {
                        if (!sq.send(0x6000, mr.address() + Long.parseLong(w[1]), mr.lkey(), Integer.parseInt(w[2]),
                            SendFlags.SIGNALED | SendFlags.RING))
                        {
                            throw new IllegalStateException("send ring full");
                        }
                        Rig.await(cq, c);
                        out.println("SENT " + describe(c));
                    }
                    case "BYE" ->
                    {
                        out.println("VIOLATIONS " + EmulatedDevice.strictViolations());
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown command " + line);
                }
            }
        }
    }

    static String describe(final Completion c)
    {
        return Long.toHexString(c.wrId()) + ":" + c.status() + ":" + c.opcode() + ":" + c.byteLen() + ":" +
            Integer.toHexString(c.imm()) + ":" + Integer.toHexString(c.srcQp()) +
            ((c.wcFlags() & WcOpcode.WC_WITH_IMM) != 0 ? ":imm" : "");
    }

    static String sha256(final MemorySegment s) throws Exception
    {
        final java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
        md.update(s.toArray(ValueLayout.JAVA_BYTE));
        return java.util.HexFormat.of().formatHex(md.digest());
    }
}
