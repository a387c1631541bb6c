// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.examples.rcloopback;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.WcOpcode;
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

/**
 * An RC queue pair connected to itself: one RDMA WRITE of {@value #LENGTH} bytes from the start of a registered
 * buffer to offset {@value #TARGET} of the same buffer, its completion polled from the direct path.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp ... io.mlx5j.examples.rcloopback.RcLoopback [DEVICE [GID_INDEX]]
 * java --enable-native-access=io.mlx5j.bindings,io.mlx5j.wqe,io.mlx5j.direct --module-path ... \
 *      --module io.mlx5j.examples.rcloopback/io.mlx5j.examples.rcloopback.RcLoopback [DEVICE [GID_INDEX]]
 * </pre>
 *
 * DEVICE defaults to the first RDMA device; GID_INDEX (default 1, the emulator's first RoCE v2 entry) is used on an
 * Ethernet port only. Without a ConnectX, run it under the emulator: run.sh does.
 */
public final class RcLoopback
{
    /** Bytes written. */
    public static final int LENGTH = 64;
    /** Where in the buffer they land. */
    public static final long TARGET = 4096;
    /** The work request id the completion carries. */
    public static final long WR_ID = 42;

    private static final long TIMEOUT_NANOS = 10_000_000_000L;

    private RcLoopback()
    {
    }

    /**
     * What the loopback saw.
     *
     * @param device the device it ran on
     * @param link InfiniBand or Ethernet
     * @param wrId the completion's work request id
     * @param opcode the completion's opcode ({@link WcOpcode})
     * @param status the completion's status, as text
     * @param success whether the completion reported success
     * @param bytesLanded whether the target bytes equal the source bytes after the completion
     */
    public record Result(String device, String link, long wrId, int opcode, String status, boolean success,
        boolean bytesLanded)
    {
    }

    /**
     * Runs the loopback once.
     *
     * @param device a device name, or null for the first device
     * @param gidIndex the local GID index on an Ethernet port
     * @return what the completion and the buffer said
     */
    public static Result run(final String device, final int gidIndex)
    {
        try (Context ctx = device == null ? Context.openFirst() : Context.open(device);
             ProtectionDomain pd = ctx.allocPd();
             Arena arena = Arena.ofShared())
        {
            final MemorySegment buf = arena.allocate(2 * TARGET, 4096);
            for (int i = 0; i < LENGTH; i++)
            {
                buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
            }
            // closing the arena deregisters the region before the memory is freed
            final MemoryRegion mr = pd.register(arena, buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final CompletionQueue cq = ctx.createCq(16);
            final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).build());

            // the queue pair is its own peer: its own QPN, and its own LID (InfiniBand) or GID (RoCE)
            final PortAttributes port = ctx.queryPort(1);
            final AddressVector path;
            final PeerInfo self;
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
            final CqPoller poller = CqPoller.of(cq).attach(sq);
            final Completion wc = new Completion();
            if (!sq.rdmaWrite(WR_ID, mr.address(), mr.lkey(), LENGTH, mr.address() + TARGET, mr.rkey(),
                SendFlags.SIGNALED | SendFlags.RING))
            {
                throw new IllegalStateException("the send ring is full");
            }
            final long deadline = System.nanoTime() + TIMEOUT_NANOS;
            while (poller.poll(wc) == 0)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IllegalStateException("no completion within 10 s");
                }
                Thread.onSpinWait();
            }
            final boolean landed = buf.asSlice(0, LENGTH).mismatch(buf.asSlice(TARGET, LENGTH)) == -1;
            return new Result(ctx.deviceName(), port.isEthernet() ? "Ethernet" : "InfiniBand", wc.wrId(),
                wc.opcode(), String.valueOf(wc.status()), wc.isSuccess(), landed);
        }
    }

    /**
     * Runs the loopback and prints what it saw; exits 1 unless the write completed and its bytes landed.
     *
     * @param args optional device name and GID index
     */
    public static void main(final String[] args)
    {
        final Result r = run(args.length > 0 ? args[0] : null, args.length > 1 ? Integer.parseInt(args[1]) : 1);
        // named when run from the module path (run.sh does both)
        final Module module = RcLoopback.class.getModule();
        System.out.println("rc-loopback: " + (module.isNamed() ? "module " + module.getName() : "class path") + ", "
            + r.device() + " (" + r.link() + "): RDMA WRITE of " + LENGTH
            + " bytes, completion wr_id " + r.wrId() + " opcode " + r.opcode() + " status " + r.status()
            + ", bytes " + (r.bytesLanded() ? "landed" : "DID NOT land"));
        final boolean ok = r.success() && r.wrId() == WR_ID && r.opcode() == WcOpcode.RDMA_WRITE && r.bytesLanded();
        System.exit(ok ? 0 : 1);
    }
}
