// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.direct.SrqRecvQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.InitAttributes;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.RtrAttributes;
import io.mlx5j.verbs.RtsAttributes;
import io.mlx5j.verbs.SharedReceiveQueue;
import io.mlx5j.wqe.Mlx5Opcode;

/**
 * The DC part of an {@link RcEndpoint} (perftest {@code -c DC}): QP 0 is a DCI, the initiator, which names its
 * target in every WQE (the peer's DCT number, an address handle of the peer's port and the DC key); beside it a DCT,
 * the target, whose SENDs land on an SRQ. One CQ serves the DCI's sends and the DCT's receives. Buffer, areas,
 * loops and checks are the RC endpoint's; only how a message is posted and where a receive is posted again differ.
 * <p>
 * Both objects always exist, as in perftest's latency tests; in its bw tests perftest creates only the side's half
 * (the server a DCT, the client a DCI), which the peer cannot tell: the wire carries the DCT number from a target and
 * the DCI number from an initiator ({@link DcExchange}). Thread model as {@link Endpoint}: setup on one thread, then
 * one thread drives the queues.
 */
final class DcEndpoint extends RcEndpoint
{
    /** perftest_resources.c DC_KEY: the DC access key of every perftest DCT and of every WQE its DCIs post. */
    static final long DC_KEY = 0xffeeddccL;

    private final ProtectionDomain pd;
    /** The target: its number is valid once at RTR ({@link #activate}); 0 before, as libmlx5 reports it. */
    final QueuePair dct;
    private final SharedReceiveQueue srq;
    private SrqRecvQueue srqQueue;
    private AddressHandle ah;
    /** The peer's DCT number, set by {@link #target}. */
    private int remoteDctn;
    /** The run {@link #begin} readied. */
    private int opcode;
    private int size;
    private long remoteAddr;
    private int remoteKey;

    /**
     * @param recvDepth receives the SRQ holds (send tests), else 0 (one is still asked for)
     */
    DcEndpoint(final Context context, final ProtectionDomain pd, final int ibPort, final int gidIndex,
        final int sendDepth, final int recvDepth, final int inlineSize, final long areaSize)
    {
        super(context, pd, ibPort, gidIndex, sendDepth, recvDepth, inlineSize, areaSize, 1, QpType.DCI);
        this.pd = pd;
        SharedReceiveQueue createdSrq = null;
        QueuePair createdDct = null;
        try
        {
            createdSrq = pd.createSrq(Math.max(1, recvDepth), 1);
            createdDct = pd.createQp(QpConfig.builder(QpType.DCT, sendCqObject).srq(createdSrq).dcAccessKey(DC_KEY)
                .build());
        }
        catch (final RuntimeException ex)
        {
            if (createdSrq != null)
            {
                createdSrq.close();
            }
            super.close();
            throw ex;
        }
        this.srq = createdSrq;
        this.dct = createdDct;
    }

    /**
     * The SRQ's number (mlx5dv_init_obj's, what libmlx5's ibv_get_srq_num answers for any SRQ): perftest's
     * destinations carry it as srqn, and a DC target's is never 0.
     */
    int srqn()
    {
        return srq.ring().srqn();
    }

    /** The Java data path: the DCI's send queue as {@link RcEndpoint#directPath}, and the SRQ on the one CQ. */
    @Override
    DcEndpoint directPath(final DoorbellMode mode, final boolean sharedRegister)
    {
        super.directPath(mode, sharedRegister);
        srqQueue = SrqRecvQueue.of(srq);
        cq.attach(srqQueue);
        return this;
    }

    /**
     * perftest's ctx_modify_dc_qp_* through ctx_connect: the DCT to RTR (remote access, the path towards the peer,
     * which Linux takes the port and GRH from; after this its number is valid), the DCI to RTS (no remote access of
     * its own; timeout, 7 retries and RNR retries and {@code rdAtomic} outstanding READs/atomics as perftest).
     */
    void activate(final int pathMtu, final AddressVector peerPath, final int qpTimeout, final int rdAtomic)
    {
        final int p = port.port();
        dct.toInit(new InitAttributes(p, 0, Access.ALL_REMOTE, 0));
        dct.toRtr(new RtrAttributes(pathMtu, 0, 0, 0, 12, peerPath));
        qp.toInit(new InitAttributes(p, 0, 0, 0));
        qp.toRtr(new RtrAttributes(pathMtu, 0, 0, 0, 12, null));
        qp.toRts(new RtsAttributes(psn, qpTimeout, 7, 7, rdAtomic));
    }

    /** The address vector towards a peer at {@code lid} / {@code gid}: GRH on RoCE or with a GID index, as RC's. */
    AddressVector pathTo(final int lid, final io.mlx5j.verbs.Gid gid)
    {
        return gid.interfaceId() != 0 || port.isEthernet()
            ? AddressVector.global(port.port(), gid, Math.max(0, gidIndex), 1, 0)
            : AddressVector.ib(port.port(), lid, 0);
    }

    /**
     * The DCI's target from now on: the peer's DCT ({@code peer.qpn()} is its number) at its port, and the buffer it
     * advertised. Control path (creates the address handle).
     */
    void target(final PeerInfo peer, final AddressVector peerPath)
    {
        if (ah != null)
        {
            ah.close();
            ah = null;
        }
        ah = pd.createAh(peerPath);
        remoteDctn = peer.qpn();
        remote = peer;
        remotes[0] = peer;
    }

    /** The banner's local address shows the DCT's number: a bw server's exchange carries only that one. */
    boolean showDct;

    /** The QP this side's destination 0 names: the DCI, or the DCT where {@link #showDct}. */
    @Override
    PeerInfo local(final int i)
    {
        return PeerInfo.of(port.lid(), showDct ? dct.qpn() : qp.qpn(), psn, gid).withBuffer(mr.rkey(), recvArea,
            areaSize);
    }

    @Override
    void begin(final PerfOptions run)
    {
        super.begin(run);
        opcode = switch (run.test())
        {
            case WRITE_LAT, WRITE_BW -> Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE;
            case READ_LAT, READ_BW -> Mlx5Opcode.MLX5_OPCODE_RDMA_READ;
            case ATOMIC_LAT, ATOMIC_BW -> Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA;
            case SEND_LAT, SEND_BW -> Mlx5Opcode.MLX5_OPCODE_SEND;
            case RAW_LAT, RAW_BW -> throw new IllegalArgumentException(run.test().cliName() + " is not a DC test");
        };
        size = run.test().isAtomic() ? 8 : run.size();
        if (remote != null)
        {
            remoteAddr = remote.addr();
            remoteKey = remote.rkey();
        }
    }

    /** The test's operation towards the peer's DCT (the staged form: the DC address is per WQE). */
    @Override
    boolean post(final long wrId, final int flags)
    {
        return postDc(wrId, opcode, size, flags);
    }

    @Override
    boolean write(final long wrId, final int length, final int flags)
    {
        return postDc(wrId, Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE, length, flags);
    }

    private boolean postDc(final long wrId, final int op, final int length, final int flags)
    {
        sq.begin(wrId, op, flags);
        if (op == Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA)
        {
            sq.remote(remoteAddr, remoteKey).fetchAddOperand(1L);
        }
        else if (op != Mlx5Opcode.MLX5_OPCODE_SEND)
        {
            sq.remote(remoteAddr, remoteKey);
        }
        return sq.dcDestination(ah, remoteDctn, DC_KEY).sge(sendArea, lkey, length).post();
    }

    /** Receives go to the SRQ: the DCT's SENDs take them, whichever DCI sent. */
    @Override
    void postReceives(final int n)
    {
        recvLength = (int) Math.min(Integer.MAX_VALUE, areaSize);
        for (int i = 0; i < n; i++)
        {
            if (!srqQueue.post(i, recvArea, lkey, recvLength))
            {
                throw new IllegalStateException("the SRQ of DCT 0x" + Integer.toHexString(dct.qpn())
                    + " holds fewer than " + n + " WQEs");
            }
        }
        srqQueue.ring();
    }

    @Override
    void repostReceive(final int qpn)
    {
        if (!srqQueue.post(received, recvArea, lkey, recvLength))
        {
            throw new IllegalStateException("SRQ full after a receive completed on DCT 0x" + Integer.toHexString(qpn));
        }
        srqQueue.ring();
    }

    @Override
    String connectionName()
    {
        return "DC";
    }

    @Override
    String errorText()
    {
        return "error completion on DCI 0x" + Integer.toHexString(qp.qpn()) + " / DCT 0x"
            + Integer.toHexString(dct.qpn()) + ": " + wc;
    }

    /** The DCT and its SRQ, the address handle, then the DCI, CQ and memory (the base's). */
    @Override
    public void close()
    {
        if (dct != null)
        {
            dct.close();
        }
        if (srq != null)
        {
            srq.close();
        }
        if (ah != null)
        {
            ah.close();
        }
        super.close();
    }
}
