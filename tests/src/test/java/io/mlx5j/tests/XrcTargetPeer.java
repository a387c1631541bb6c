// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SrqRecvQueue;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.verbs.VerbsException;
import io.mlx5j.verbs.XrcDomain;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The XRC target of {@link XrcCrossProcessTest}, in a JVM of its own: an XRC domain (private, or the domain of a file
 * it opens itself), XRC SRQs on one CQ and TGT QPs, driven only through mlx5j, controlled line by line over
 * stdin/stdout (started with the test JVM's emulator environment, so both meet on one fabric). Commands:
 * <pre>
 *   (start)          private domain, SRQs A and B (8 WQEs posted each), TGT QPs 1 and 2; prints
 *                    "INFO TGT1_MESSAGE TGT2_MESSAGE SRQN_A SRQN_B RKEY ADDR"
 *   PEER i MESSAGE   connect TGT QP i to the test's INI QP, print "READY"
 *   RECV n           wait (10 s each) for n completions, print "GOT wr_id:status:opcode:byte_len:imm:qpn ..."
 *   EMPTY            poll 50 ms, print "EMPTY" or "NOT_EMPTY COMPLETION"
 *   HASH off len     print "HASH &lt;hex sha-256&gt;" of that part of the memory
 *   COUNT            print "COUNT A B ORPHANS UNEXPECTED": SRQ A's and B's outstanding WQEs, the poller's counts
 *   OPEN create excl open the domain of the file -Dxrcpeer.file names, through a descriptor of its own:
 *                    "OPENED" or "REFUSED MESSAGE"
 *   SHARED           in the file's domain: an XRC SRQ C (8 WQEs posted), a TGT QP 3; print
 *                    "SHARED TGT3_MESSAGE SRQN_C"
 *   CLOSE            close the file's domain (its SRQ and TGT QP first) and the descriptor, print
 *                    "CLOSED &lt;SRQ C outstanding&gt;"
 *   BYE              print "VIOLATIONS &lt;n&gt;" and exit 0
 * </pre>
 * SRQ A's WQE k has wr_id 0xa000 + k and the 4 KiB at k * 4096; SRQ B's 0xb000 + k at 0x8000 + k * 4096; SRQ C's
 * 0xc000 + k at 0x10000 + k * 4096. The memory is 1 MiB with every remote access.
 */
public final class XrcTargetPeer
{
    static final int BYTES = 1 << 20;
    static final int WQES = 8;

    /** libc open(2) (variadic: the mode after the flags) and close(2). */
    private static final MethodHandle OPEN = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("open").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
        Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("close").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private XrcTargetPeer()
    {
    }

    public static void main(final String[] args) throws Throwable
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (Rig rig = new Rig())
        {
            final XrcDomain xrcd = rig.context.openXrcDomain();
            final CompletionQueue cq = rig.cq(256);
            final SharedReceiveQueue srqA = rig.pd.createXrcSrq(xrcd, cq, 16, 1);
            final SharedReceiveQueue srqB = rig.pd.createXrcSrq(xrcd, cq, 16, 1);
            final List<QueuePair> tgts = new ArrayList<>(List.of(xrcd.createTgtQp(), xrcd.createTgtQp()));
            final MemoryRegion mr = rig.memory(BYTES);
            final SrqRecvQueue a = SrqRecvQueue.of(srqA);
            final SrqRecvQueue b = SrqRecvQueue.of(srqB);
            final CqPoller poller = CqPoller.of(cq).attach(a).attach(b);
            post(a, 0xa000, mr, 0);
            post(b, 0xb000, mr, 0x8000);
            final Completion c = new Completion();
            out.println("INFO " + rig.peer(tgts.get(0), 0x300).toPingpongMessage() + " "
                + rig.peer(tgts.get(1), 0x300).toPingpongMessage() + " " + srqA.srqNum() + " " + srqB.srqNum() + " "
                + mr.rkey() + " " + mr.address());
            int fd = -1;
            XrcDomain shared = null;
            SrqRecvQueue sharedRq = null;
            String line;
            while ((line = in.readLine()) != null)
            {
                final String[] w = line.trim().split(" ");
                switch (w[0])
                {
                    case "PEER" ->
                    {
                        final PeerInfo peer = PeerInfo.parsePingpongMessage(w[2]);
                        tgts.get(Integer.parseInt(w[1]) - 1).connect(1, Access.ALL_REMOTE, 0, rig.port.activeMtu(),
                            peer, rig.path(), 0x300);
                        out.println("READY");
                    }
                    case "RECV" ->
                    {
                        final StringBuilder sb = new StringBuilder("GOT");
                        for (int i = 0; i < Integer.parseInt(w[1]); i++)
                        {
                            Rig.await(poller, c);
                            sb.append(' ').append(describe(c));
                        }
                        out.println(sb);
                    }
                    case "EMPTY" ->
                    {
                        final long until = System.nanoTime() + 50_000_000L;
                        String got = "EMPTY";
                        while (System.nanoTime() < until && got.equals("EMPTY"))
                        {
                            if (poller.poll(c) == 1)
                            {
                                got = "NOT_EMPTY " + describe(c);
                            }
                        }
                        out.println(got);
                    }
                    case "HASH" -> out.println("HASH " + RemotePeer.sha256(mr.memory().asSlice(Long.parseLong(w[1]),
                        Integer.parseInt(w[2]))));
                    case "COUNT" -> out.println("COUNT " + a.outstanding() + " " + b.outstanding() + " "
                        + poller.orphanCqes() + " " + poller.unexpectedCqes());
                    case "OPEN" ->
                    {
                        if (fd < 0)
                        {
                            try (Arena tmp = Arena.ofConfined())
                            {
                                fd = (int) OPEN.invokeExact(tmp.allocateFrom(System.getProperty("xrcpeer.file")),
                                    0x2 /* O_RDWR */, 0);
                            }
                        }
                        try
                        {
                            shared = rig.context.openXrcDomain(fd, w[1].equals("1"), w[2].equals("1"));
                            out.println("OPENED");
                        }
                        catch (final VerbsException e)
                        {
                            out.println("REFUSED " + e.getMessage());
                        }
                    }
                    case "SHARED" ->
                    {
                        final SharedReceiveQueue srqC = rig.pd.createXrcSrq(shared, cq, 16, 1);
                        sharedRq = SrqRecvQueue.of(srqC);
                        poller.attach(sharedRq);
                        post(sharedRq, 0xc000, mr, 0x10000);
                        tgts.add(shared.createTgtQp());
                        out.println("SHARED " + rig.peer(tgts.get(2), 0x300).toPingpongMessage() + " "
                            + srqC.srqNum());
                    }
                    case "CLOSE" ->
                    {
                        shared.close();
                        if ((int) CLOSE.invokeExact(fd) != 0)
                        {
                            throw new IllegalStateException("close(" + fd + ")");
                        }
                        fd = -1;
                        out.println("CLOSED " + (sharedRq == null ? 0 : sharedRq.outstanding()));
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

    /** A completion as "wr_id:status:opcode:byte_len:imm:qpn[:imm]": the QP number the CQE carries, not a source QP. */
    static String describe(final Completion c)
    {
        return Long.toHexString(c.wrId()) + ":" + c.status() + ":" + c.opcode() + ":" + c.byteLen() + ":" +
            Integer.toHexString(c.imm()) + ":" + Integer.toHexString(c.qpn()) +
            ((c.wcFlags() & io.mlx5j.direct.WcOpcode.WC_WITH_IMM) != 0 ? ":imm" : "");
    }

    /** WQES receive WQEs of 4 KiB, wr_ids {@code base + k}, buffers from {@code offset} on. */
    private static void post(final SrqRecvQueue q, final int base, final MemoryRegion mr, final long offset)
    {
        for (int k = 0; k < WQES; k++)
        {
            if (!q.post(base + k, mr.address() + offset + k * 4096L, mr.lkey(), 4096))
            {
                throw new IllegalStateException("SRQ full");
            }
        }
        q.ring();
    }
}
