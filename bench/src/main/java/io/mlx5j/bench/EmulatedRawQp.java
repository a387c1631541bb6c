// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.mlx5j.bindings.IbvQpInitAttrEx;
import io.mlx5j.direct.RecvQueue;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.UdpHeaderTemplate;

/**
 * The QP every raw Ethernet benchmark runs on: one RAW_PACKET QP on the emulated ConnectX's Ethernet port, in RTS,
 * with a send CQ and a receive CQ of its own. Every variant (mlx5j, libmlx5 through FFM, the C loop's raw part in
 * {@code src/main/c}) builds exactly this, so libmlx5 and mlx5j post into rings of the same geometry and poll CQs of
 * the same size. Creating it needs CAP_NET_RAW (root has it) and an Ethernet port ({@code mlx5emu --link eth}, as
 * bench/run.sh runs); the engine must be off, as for {@link EmulatedQp}.
 * <p>
 * The registered memory holds, at fixed offsets ({@link RawWorkload}): the frame's 42-byte Ethernet/IPv4/UDP header
 * built with a {@link UdpHeaderTemplate}, its payload, and the receive buffers.
 * <p>
 * Confinement: created and used by one benchmark thread (JMH {@code Scope.Thread} state).
 */
public final class EmulatedRawQp implements AutoCloseable
{
    /** max_send_wr and max_recv_wr: room for one batch of {@link Workload#BATCH} with margin; all receives posted. */
    public static final int MAX_WR = 256;
    /** max_inline_data: the whole 106-byte frame fits inline (libmlx5's inline form needs all of it). */
    public static final int MAX_INLINE = 128;
    /** max_send_sge: header and payload. */
    public static final int MAX_SEND_SGE = 2;
    /** CQ depth asked for; libmlx5 makes it 256 CQEs. */
    public static final int CQ_DEPTH = 255;
    /** Bytes of registered memory: header, payload and {@link #MAX_WR} receive buffers. */
    public static final int MR_BYTES = RawWorkload.RECV_OFFSET + MAX_WR * RawWorkload.RECV_BUF;

    /** The source MAC of the emulated mlx5_0 (98:03:9b:4d:45:00, emulator/src/kernel/objects.c). */
    private static final long SRC_MAC = 0x98039b4d4500L;
    private static final int SRC_IP = 0x0a000001;        // 10.0.0.1
    private static final int GROUP = 0xef010203;         // 239.1.2.3, a market-data multicast group
    private static final int PORT = 31_001;

    public final Context context;
    public final ProtectionDomain pd;
    public final MemoryRegion mr;
    public final CompletionQueue sendCq;
    public final CompletionQueue recvCq;
    public final QueuePair qp;
    /** The user index of {@link #qp} (cqe_version 1 CQEs carry it; libmlx5 finds the QP by it). */
    public final int uidx;
    /** The frame's header, prepared for a {@link RawWorkload#PAYLOAD}-byte payload, in {@link #mr}. */
    public final UdpHeaderTemplate header;
    /** libmlx5's eth_min_inline_size on this device: 0 or 18 (MLX5EMU_ETH_MIN_INLINE). */
    public final int minInline;
    private final Arena memory;

    private EmulatedRawQp(final long recvWcFlags)
    {
        this(recvWcFlags, 0);
    }

    private EmulatedRawQp(final long recvWcFlags, final int cqeCompression)
    {
        ForkArgs.requireExport();
        EmulatedQp.requireIdleEmulator();
        minInline = "l2".equals(System.getenv("MLX5EMU_ETH_MIN_INLINE")) ? 18 : 0;
        context = Context.openFirst();
        memory = Arena.ofConfined();
        try
        {
            if (!context.queryPort(1).isEthernet())
            {
                throw new IllegalStateException("the raw packet benchmarks need an Ethernet port: run under " +
                    "emulator/mlx5emu --link eth (bench/run.sh does)");
            }
            pd = context.allocPd();
            mr = pd.register(memory.allocate(MR_BYTES, 4096), Access.ALL_REMOTE);
            sendCq = context.createCq(CQ_DEPTH);
            recvCq = cqeCompression != 0 ? context.createCompressedCq(CQ_DEPTH, cqeCompression)
                : recvWcFlags == 0 ? context.createCq(CQ_DEPTH) : context.createCqEx(CQ_DEPTH, recvWcFlags);
            qp = pd.createQp(QpConfig.builder(QpType.RAW_PACKET, sendCq)
                .recvCq(recvCq)
                .maxSendWr(MAX_WR)
                .maxRecvWr(MAX_WR)
                .maxSendSge(MAX_SEND_SGE)
                .maxRecvSge(1)
                .maxInlineData(MAX_INLINE)
                .sendOpsFlags(IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND)
                .build());
            qp.activate(1);
            uidx = EmulatedQp.emulatorUidx(qp.qpn());
            final MemorySegment m = mr.memory();
            header = new UdpHeaderTemplate(m.asSlice(RawWorkload.HEADER_OFFSET, UdpHeaderTemplate.LENGTH))
                .srcMac(SRC_MAC).srcIp(SRC_IP).srcPort(PORT).multicast(GROUP, PORT)
                .prepare(RawWorkload.PAYLOAD, 1);
            for (int i = 0; i < RawWorkload.PAYLOAD; i++)
            {
                m.set(ValueLayout.JAVA_BYTE, RawWorkload.PAYLOAD_OFFSET + i, (byte) i);
            }
        }
        catch (final RuntimeException ex)
        {
            context.close();
            memory.close();
            throw ex;
        }
    }

    /** The QP with a receive CQ whose CQEs may be compressed in {@code format} (Context.createCompressedCq). */
    public static EmulatedRawQp openCompressed(final int format)
    {
        return new EmulatedRawQp(0, format);
    }

    /** The QP with a receive CQ made by ibv_create_cq (recvWcFlags 0) or by ibv_create_cq_ex with those flags. */
    public static EmulatedRawQp open(final long recvWcFlags)
    {
        return new EmulatedRawQp(recvWcFlags);
    }

    /** Address of the frame's header in registered memory. */
    public long headerAddress()
    {
        return mr.address() + RawWorkload.HEADER_OFFSET;
    }

    /** Address of the frame's payload in registered memory. */
    public long payload()
    {
        return mr.address() + RawWorkload.PAYLOAD_OFFSET;
    }

    /** Address of receive buffer {@code slot}. */
    public long recvBuffer(final int slot)
    {
        return mr.address() + RawWorkload.RECV_OFFSET + (long) slot * RawWorkload.RECV_BUF;
    }

    /** Posts every receive buffer ({@link #MAX_WR}, wr_id = slot) on {@code rq} and rings once. */
    public void postAllReceives(final RecvQueue rq)
    {
        final int lkey = mr.lkey();
        for (int slot = 0; slot < MAX_WR; slot++)
        {
            if (!rq.post(slot, recvBuffer(slot), lkey, RawWorkload.RECV_BUF))
            {
                throw new IllegalStateException("receive queue full after " + slot + " buffers");
            }
        }
        rq.ring();
    }

    @Override
    public void close()
    {
        context.close();
        memory.close();
    }
}
