// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SrqRecvQueue;
import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.verbs.XrcDomain;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The other process of {@link XrcEndToEndTest#aTgtQpDeliversIntoAnXrcSrqOfAnotherProcess}: it opens the XRC domain
 * of the file at path {@code args[0]} (without create: the test JVM made the domain), creates an XRC SRQ with its CQ
 * and posts one 4 KiB receive (wr_id 77). Controlled line by line over stdin/stdout:
 * <pre>
 *   (start)   prints "SRQN &lt;decimal srq number&gt;"
 *   RECV      waits for the receive's completion, prints "GOT wr_id status byte_len imm_hex qpn_hex sha-256"
 *   BYE       prints "VIOLATIONS &lt;strict-mode count&gt;" and exits 0 (closing everything)
 * </pre>
 * Threads: main only.
 */
public final class XrcSrqPeer
{
    private XrcSrqPeer()
    {
    }

    /**
     * Runs the peer.
     *
     * @param args the path of the domain's file
     * @throws Throwable on any failure (the test then sees the process end without its answer)
     */
    public static void main(final String[] args) throws Throwable
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        final int fd = XrcEndToEndTest.openFile(java.nio.file.Path.of(args[0]));
        try (Rig rig = new Rig())
        {
            final XrcDomain domain = rig.context.openXrcDomain(fd, false, false);
            final CompletionQueue cqObject = rig.cq(16);
            final SharedReceiveQueue srq = rig.pd.createXrcSrq(domain, cqObject, 8, 1);
            final SrqRecvQueue rq = SrqRecvQueue.of(srq);
            final CqPoller cq = CqPoller.of(cqObject).attach(rq);
            final MemoryRegion mr = rig.memory(4096);
            if (!rq.post(77, mr.address(), mr.lkey(), 4096))
            {
                throw new IllegalStateException("SRQ full");
            }
            rq.ring();
            final Completion c = new Completion();
            out.println("SRQN " + srq.srqNum());
            String line;
            while ((line = in.readLine()) != null)
            {
                switch (line.trim())
                {
                    case "RECV" ->
                    {
                        Rig.await(cq, c);
                        out.println("GOT " + c.wrId() + " " + c.status() + " " + c.byteLen() + " "
                            + Integer.toHexString(c.imm()) + " " + Integer.toHexString(c.qpn()) + " "
                            + RemotePeer.sha256(mr.memory().asSlice(0, c.byteLen())));
                    }
                    case "BYE" ->
                    {
                        out.println("VIOLATIONS " + EmulatedDevice.strictViolations());
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown command: " + line);
                }
            }
        }
    }
}
