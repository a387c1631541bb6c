// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvQp;
import io.mlx5j.bindings.IbvQpAttr;
import io.mlx5j.bindings.IbvQpInitAttr;
import io.mlx5j.bindings.IbvQpInitAttrEx;

import io.mlx5j.bindings.IbvRxHashConf;
import io.mlx5j.bindings.InlineVerbs;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Mlx5dvDcInitAttr;
import io.mlx5j.bindings.Mlx5dvObj;
import io.mlx5j.bindings.Mlx5dvQp;
import io.mlx5j.bindings.Mlx5dvQpInitAttr;
import io.mlx5j.bindings.Verbs;
import io.mlx5j.verbs.internal.Errno;
import io.mlx5j.verbs.internal.QpStateListener;
import io.mlx5j.verbs.internal.Rings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_LONG;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U16;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static io.mlx5j.bindings.CTypes.U8;
import static io.mlx5j.bindings.IbvQpAttr.*;

/**
 * A queue pair ({@code struct ibv_qp}), created and moved through its states by libibverbs; {@link #rings()} hands
 * its send/receive queues, doorbell record and BlueFlame register to the Java data path.
 * <p>
 * State transitions use the attribute masks rdma-core's examples use per transport:
 * <pre>
 *   RESET->INIT  RC/UC: STATE|PKEY_INDEX|PORT|ACCESS_FLAGS        UD: STATE|PKEY_INDEX|PORT|QKEY
 *   INIT->RTR    RC: STATE|AV|PATH_MTU|DEST_QPN|RQ_PSN|MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER
 *                UC: STATE|AV|PATH_MTU|DEST_QPN|RQ_PSN            UD: STATE
 *   RTR->RTS     RC: STATE|SQ_PSN|TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC
 *                UC, UD: STATE|SQ_PSN
 * </pre>
 * XRC (the XRC columns of the Linux kernel's ib_modify_qp_is_ok table, as rdma-core's xsrq_pingpong moves them):
 * <pre>
 *   RESET->INIT  XRC_SEND (INI), XRC_RECV (TGT): STATE|PKEY_INDEX|PORT|ACCESS_FLAGS
 *   INIT->RTR    INI: STATE|AV|PATH_MTU|DEST_QPN|RQ_PSN   TGT: as RC
 *   RTR->RTS     INI: as RC                                TGT: STATE|SQ_PSN|TIMEOUT
 * </pre>
 * Thread model: control calls are serialised on the Context; the rings are for one posting thread at a time (see
 * the data path classes).
 */
public final class QueuePair extends NativeResource
{
    private final QpType type;
    private final ProtectionDomain pd;
    /** A DCT's number is the dctn the device answers at RTR (libmlx5 mlx5_modify_qp): set again there. */
    private volatile int qpn;
    private final QpCapabilities capabilities;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final SharedReceiveQueue srq;
    /** The XRC domain of an XRC TGT QP, else null. */
    private final XrcDomain xrcd;
    private final MemorySegment qpEx;
    /** The indirection table of an RSS QP, or null. */
    private final IndirectionTable rssTable;
    private QpRing rings;
    /** The Java queues over {@link #rings()}, which follow the doorbell record through RESET and raw RTR. */
    private final List<QpStateListener> stateListeners = new CopyOnWriteArrayList<>();

    private QueuePair(final ProtectionDomain pd, final Arena arena, final MemorySegment handle, final QpConfig config,
        final QpCapabilities granted, final MemorySegment qpEx)
    {
        super(pd.owner, arena, handle, dependencies(pd, config));
        this.type = config.type();
        this.pd = pd;
        this.qpn = handle.get(U32, IbvQp.QP_NUM_OFFSET);
        this.capabilities = granted;
        this.sendCq = config.sendCq();
        this.recvCq = config.recvCq();
        this.srq = config.srq();
        this.xrcd = null;
        this.qpEx = qpEx;
        this.rssTable = null;
    }

    /** An XRC TGT QP: in a domain, no PD, queues or CQs. */
    private QueuePair(final XrcDomain xrcd, final Arena arena, final MemorySegment handle)
    {
        super(xrcd.owner, arena, handle, List.of(xrcd));
        this.type = QpType.XRC_RECV;
        this.pd = null;
        this.qpn = handle.get(U32, IbvQp.QP_NUM_OFFSET);
        this.capabilities = new QpCapabilities(0, 0, 0, 0, 0);
        this.sendCq = null;
        this.recvCq = null;
        this.srq = null;
        this.xrcd = xrcd;
        this.qpEx = MemorySegment.NULL;
        this.rssTable = null;
    }

    static QueuePair createTgt(final XrcDomain xrcd)
    {
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment attr = arena.allocate(IbvQpInitAttrEx.LAYOUT);
            attr.set(C_INT, IbvQpInitAttr.QP_TYPE_OFFSET, QpType.XRC_RECV.value());
            attr.set(U32, IbvQpInitAttrEx.COMP_MASK_OFFSET, IbvQpInitAttrEx.IBV_QP_INIT_ATTR_XRCD);
            attr.set(C_POINTER, IbvQpInitAttrEx.XRCD_OFFSET, xrcd.handle);
            final MemorySegment raw = InlineVerbs.ibv_create_qp_ex(state, xrcd.owner.handle, attr);
            if (raw.address() == 0)
            {
                throw new VerbsException("ibv_create_qp_ex", CallState.errno(state), "XRC TGT QP in " + xrcd);
            }
            return new QueuePair(xrcd, arena, raw.reinterpret(IbvQp.LAYOUT.byteSize(), arena, null));
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /** {@return the XRC domain of an XRC TGT QP, or null} */
    public XrcDomain xrcd()
    {
        return xrcd;
    }

    /** An RSS QP: no queues of its own. */
    private QueuePair(final ProtectionDomain pd, final Arena arena, final MemorySegment handle,
        final IndirectionTable table)
    {
        super(pd.owner, arena, handle, List.of(pd, table));
        this.type = QpType.RAW_PACKET;
        this.pd = pd;
        this.qpn = handle.get(U32, IbvQp.QP_NUM_OFFSET);
        this.capabilities = new QpCapabilities(0, 0, 0, 0, 0);
        this.sendCq = null;
        this.recvCq = null;
        this.srq = null;
        this.xrcd = null;
        this.qpEx = MemorySegment.NULL;
        this.rssTable = table;
    }

    /**
     * ibv_create_qp_ex with IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH (verbs.h; Linux mlx5
     * create_rss_raw_qp_tir): a raw packet QP whose receive side is the table, hashing with Toeplitz.
     */
    static QueuePair createRss(final ProtectionDomain pd, final IndirectionTable table, final long hashFields,
        final byte[] key)
    {
        table.ensureOpen();
        if (table.owner != pd.owner)
        {
            throw new IllegalArgumentException(table + " belongs to another context than the PD");
        }
        if (key.length == 0 || key.length > 255)
        {
            throw new IllegalArgumentException("RSS key of " + key.length + " bytes (Toeplitz keys are 40 bytes)");
        }
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment attr = arena.allocate(IbvQpInitAttrEx.LAYOUT);
            final MemorySegment keyCopy = arena.allocate(key.length);
            keyCopy.copyFrom(MemorySegment.ofArray(key));
            attr.set(C_INT, IbvQpInitAttr.QP_TYPE_OFFSET, QpType.RAW_PACKET.value());
            attr.set(U32, IbvQpInitAttrEx.COMP_MASK_OFFSET, IbvQpInitAttrEx.IBV_QP_INIT_ATTR_PD |
                IbvQpInitAttrEx.IBV_QP_INIT_ATTR_IND_TABLE | IbvQpInitAttrEx.IBV_QP_INIT_ATTR_RX_HASH);
            attr.set(C_POINTER, IbvQpInitAttrEx.PD_OFFSET, pd.handle);
            attr.set(C_POINTER, IbvQpInitAttrEx.RWQ_IND_TBL_OFFSET, table.handle);
            final long h = IbvQpInitAttrEx.RX_HASH_CONF_OFFSET;
            attr.set(U8, h + IbvRxHashConf.RX_HASH_FUNCTION_OFFSET, (byte) IbvRxHashConf.IBV_RX_HASH_FUNC_TOEPLITZ);
            attr.set(U8, h + IbvRxHashConf.RX_HASH_KEY_LEN_OFFSET, (byte) key.length);
            attr.set(C_POINTER, h + IbvRxHashConf.RX_HASH_KEY_OFFSET, keyCopy);
            attr.set(U64, h + IbvRxHashConf.RX_HASH_FIELDS_MASK_OFFSET, hashFields);
            final MemorySegment raw = InlineVerbs.ibv_create_qp_ex(state, pd.owner.handle, attr);
            if (raw.address() == 0)
            {
                final int errno = CallState.errno(state);
                throw new VerbsException("ibv_create_qp_ex", errno, "RSS QP over " + table + ", hash fields 0x" +
                    Long.toHexString(hashFields) + rawPacketHint(QpType.RAW_PACKET, errno));
            }
            return new QueuePair(pd, arena, raw.reinterpret(IbvQp.LAYOUT.byteSize(), arena, null), table);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /** {@return true for an RSS QP ({@link ProtectionDomain#createRssQp}): it has no rings; its WQs receive} */
    public boolean isRss()
    {
        return rssTable != null;
    }

    /** {@return the indirection table of an RSS QP, or null} */
    public IndirectionTable rssTable()
    {
        return rssTable;
    }

    private static List<NativeResource> dependencies(final ProtectionDomain pd, final QpConfig config)
    {
        final List<NativeResource> list = new ArrayList<>(4);
        list.add(pd);
        list.add(config.sendCq());
        if (config.recvCq() != config.sendCq())
        {
            list.add(config.recvCq());
        }
        if (config.srq() != null)
        {
            list.add(config.srq());
        }
        return list;
    }

    static QueuePair create(final ProtectionDomain pd, final QpConfig config)
    {
        final Context context = pd.owner;
        sameContext(context, config.sendCq());
        sameContext(context, config.recvCq());
        if (config.srq() != null)
        {
            sameContext(context, config.srq());
        }
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment attr = arena.allocate(IbvQpInitAttrEx.LAYOUT);
            // ibv_qp_init_attr is the head of ibv_qp_init_attr_ex: one buffer serves both calls
            attr.set(C_POINTER, IbvQpInitAttr.SEND_CQ_OFFSET, config.sendCq().handle);
            attr.set(C_POINTER, IbvQpInitAttr.RECV_CQ_OFFSET, config.recvCq().handle);
            attr.set(C_POINTER, IbvQpInitAttr.SRQ_OFFSET,
                config.srq() == null ? MemorySegment.NULL : config.srq().handle);
            config.capabilities().write(attr, IbvQpInitAttr.CAP_OFFSET);
            attr.set(C_INT, IbvQpInitAttr.QP_TYPE_OFFSET, config.type().value());
            attr.set(C_INT, IbvQpInitAttr.SQ_SIG_ALL_OFFSET, config.sqSigAll() ? 1 : 0);
            final MemorySegment raw;
            final String call;
            if (config.type() == QpType.DCI || config.type() == QpType.DCT)
            {
                call = "mlx5dv_create_qp";
                raw = createDc(arena, state, context, pd, attr, config);
            }
            else if (config.sendOpsFlags() == 0)
            {
                call = "ibv_create_qp";
                raw = Verbs.ibv_create_qp(state, pd.handle, attr);
            }
            else
            {
                call = "ibv_create_qp_ex";
                attr.set(U32, IbvQpInitAttrEx.COMP_MASK_OFFSET,
                    IbvQpInitAttrEx.IBV_QP_INIT_ATTR_PD | IbvQpInitAttrEx.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
                attr.set(C_POINTER, IbvQpInitAttrEx.PD_OFFSET, pd.handle);
                attr.set(U64, IbvQpInitAttrEx.SEND_OPS_FLAGS_OFFSET, config.sendOpsFlags());
                raw = InlineVerbs.ibv_create_qp_ex(state, context.handle, attr);
            }
            if (raw.address() == 0)
            {
                final int errno = CallState.errno(state);
                throw new VerbsException(call, errno, config.type() + " " + config.capabilities() +
                    rawPacketHint(config.type(), errno));
            }
            MemorySegment qpEx = MemorySegment.NULL;
            if (config.sendOpsFlags() != 0)
            {
                final MemorySegment qpxState = CallState.allocate(arena);
                qpEx = Verbs.ibv_qp_to_qp_ex(qpxState, raw);
                if (qpEx.address() == 0)
                {
                    Verbs.ibv_destroy_qp(raw);
                    throw new VerbsException("ibv_qp_to_qp_ex", CallState.errno(qpxState));
                }
                qpEx = qpEx.reinterpret(io.mlx5j.bindings.IbvQpEx.LAYOUT.byteSize(), arena, null);
            }
            final QpCapabilities granted = QpCapabilities.read(attr, IbvQpInitAttr.CAP_OFFSET);
            return new QueuePair(pd, arena, raw.reinterpret(IbvQp.LAYOUT.byteSize(), arena, null), config, granted,
                qpEx);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /**
     * mlx5dv_create_qp with MLX5DV_QP_INIT_ATTR_MASK_DC: qp_type IBV_QPT_DRIVER, the DC type in the mlx5 attributes
     * and, for a DCT, its access key (rdma-core providers/mlx5/verbs.c create_qp, the DC branch).
     */
    private static MemorySegment createDc(final Arena arena, final MemorySegment state, final Context context,
        final ProtectionDomain pd, final MemorySegment attr, final QpConfig config)
    {
        int mask = IbvQpInitAttrEx.IBV_QP_INIT_ATTR_PD;
        if (config.sendOpsFlags() != 0)
        {
            mask |= IbvQpInitAttrEx.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
            attr.set(U64, IbvQpInitAttrEx.SEND_OPS_FLAGS_OFFSET, config.sendOpsFlags());
        }
        attr.set(U32, IbvQpInitAttrEx.COMP_MASK_OFFSET, mask);
        attr.set(C_POINTER, IbvQpInitAttrEx.PD_OFFSET, pd.handle);
        final MemorySegment dv = arena.allocate(Mlx5dvQpInitAttr.LAYOUT);
        dv.set(U64, Mlx5dvQpInitAttr.COMP_MASK_OFFSET, Mlx5dvQpInitAttr.MLX5DV_QP_INIT_ATTR_MASK_DC);
        final long dc = Mlx5dvQpInitAttr.DC_INIT_ATTR_OFFSET;
        dv.set(C_INT, dc + Mlx5dvDcInitAttr.DC_TYPE_OFFSET, config.type() == QpType.DCI
            ? Mlx5dvDcInitAttr.MLX5DV_DCTYPE_DCI : Mlx5dvDcInitAttr.MLX5DV_DCTYPE_DCT);
        dv.set(U64, dc + Mlx5dvDcInitAttr.DCT_ACCESS_KEY_OFFSET, config.dcAccessKey());
        return Mlx5dv.mlx5dv_create_qp(state, context.handle, attr, dv);
    }

    /**
     * Why a raw packet QP was refused, in words: the kernel's core create_qp requires CAP_NET_RAW (EPERM), and mlx5
     * creates raw packet QPs on Ethernet ports only (EOPNOTSUPP on an InfiniBand port).
     */
    private static String rawPacketHint(final QpType type, final int errno)
    {
        if (type != QpType.RAW_PACKET)
        {
            return "";
        }
        return switch (errno)
        {
            case Errno.EPERM -> ": raw packet QPs need the CAP_NET_RAW capability (run as root, or setcap " +
                "cap_net_raw+ep on the java binary)";
            case Errno.EOPNOTSUPP -> ": raw packet QPs need an Ethernet port; this device's port is InfiniBand";
            default -> "";
        };
    }

    private static void sameContext(final Context context, final NativeResource resource)
    {
        resource.ensureOpen();
        if (resource.owner != context)
        {
            throw new IllegalArgumentException(resource + " belongs to another context than the PD");
        }
    }

    /** {@return the QP's transport type} */
    public QpType type()
    {
        return type;
    }

    /** {@return the protection domain the QP was created in; null for an XRC TGT QP (it is in an XRC domain)} */
    public ProtectionDomain pd()
    {
        return pd;
    }

    /** {@return the QP number peers address} */
    public int qpn()
    {
        ensureOpen();
        return qpn;
    }

    /** {@return the queue sizes libibverbs granted (at least those requested)} */
    public QpCapabilities capabilities()
    {
        ensureOpen();
        return capabilities;
    }

    /** {@return the CQ of send completions} */
    public CompletionQueue sendCq()
    {
        return sendCq;
    }

    /** {@return the CQ of receive completions} */
    public CompletionQueue recvCq()
    {
        return recvCq;
    }

    /** {@return the SRQ receives come from, or null} */
    public SharedReceiveQueue srq()
    {
        return srq;
    }

    /**
     * {@return {@code struct ibv_qp_ex *} for the ibv_wr_* API (see {@link InlineVerbs}); only for QPs created with
     * {@link QpConfig#sendOpsFlags()}}
     */
    public MemorySegment qpEx()
    {
        ensureOpen();
        if (qpEx.address() == 0)
        {
            throw new IllegalStateException(this + " was created without sendOpsFlags: no ibv_qp_ex");
        }
        return qpEx;
    }

    /** {@return the current state, asked from the library ({@code ibv_query_qp})} */
    public QpState state()
    {
        ensureOpen();
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment attr = tmp.allocate(IbvQpAttr.LAYOUT);
            final MemorySegment init = tmp.allocate(IbvQpInitAttr.LAYOUT);
            final int rc = Verbs.ibv_query_qp(handle, attr, IBV_QP_STATE, init);
            if (rc != 0)
            {
                throw new VerbsException("ibv_query_qp", rc, toString());
            }
            return QpState.of(attr.get(C_INT, QP_STATE_OFFSET));
        }
    }

    /**
     * {@return the address vector the QP sends with, asked from the library ({@code ibv_query_qp} with IBV_QP_AV): what
     * the move to RTR set (GRH traffic class, SL, ...)} Only for a connected QP past RTR (a QP without a path has port
     * 0).
     */
    public AddressVector addressVector()
    {
        ensureOpen();
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment attr = tmp.allocate(IbvQpAttr.LAYOUT);
            final MemorySegment init = tmp.allocate(IbvQpInitAttr.LAYOUT);
            final int rc = Verbs.ibv_query_qp(handle, attr, IBV_QP_AV, init);
            if (rc != 0)
            {
                throw new VerbsException("ibv_query_qp", rc, toString());
            }
            return AddressVector.read(attr, AH_ATTR_OFFSET);
        }
    }

    /**
     * RESET to INIT.
     *
     * @param init the INIT attributes
     */
    public void toInit(final InitAttributes init)
    {
        synchronized (lock())
        {
            ensureOpen();
            try (Arena tmp = Arena.ofConfined())
            {
                final MemorySegment attr = tmp.allocate(IbvQpAttr.LAYOUT);
                attr.set(C_INT, QP_STATE_OFFSET, IBV_QPS_INIT);
                attr.set(U16, PKEY_INDEX_OFFSET, (short) init.pkeyIndex());
                attr.set(U8, PORT_NUM_OFFSET, (byte) init.port());
                int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
                if (type == QpType.RAW_PACKET)
                {
                    mask = IBV_QP_STATE | IBV_QP_PORT;  // the only attribute the kernel takes for raw QPs
                }
                else if (type == QpType.DCI)
                {
                    // no remote access of its own: Linux mlx5 refuses ACCESS_FLAGS on a DCI (modify_dci_qp_is_ok)
                    mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
                }
                else if (type == QpType.UD)
                {
                    attr.set(U32, QKEY_OFFSET, init.qkey());
                    mask |= IBV_QP_QKEY;
                }
                else
                {
                    attr.set(C_INT, QP_ACCESS_FLAGS_OFFSET, init.accessFlags());
                    mask |= IBV_QP_ACCESS_FLAGS;
                }
                modify(attr, mask, "RESET->INIT");
            }
        }
    }

    /**
     * INIT to RTR. For UD and RAW_PACKET {@code rtr} may be null (only the state changes).
     *
     * @param rtr the RTR attributes
     */
    public void toRtr(final RtrAttributes rtr)
    {
        synchronized (lock())
        {
            ensureOpen();
            try (Arena tmp = Arena.ofConfined())
            {
                final MemorySegment attr = tmp.allocate(IbvQpAttr.LAYOUT);
                attr.set(C_INT, QP_STATE_OFFSET, IBV_QPS_RTR);
                int mask = IBV_QP_STATE;
                if (type == QpType.DCI || type == QpType.DCT)
                {
                    mask = dcRtr(attr, rtr);
                }
                else if (type != QpType.UD && type != QpType.RAW_PACKET)
                {
                    if (rtr == null)
                    {
                        throw new IllegalArgumentException(type + " needs RTR attributes (path, peer QPN and PSN)");
                    }
                    attr.set(C_INT, PATH_MTU_OFFSET, rtr.pathMtu());
                    attr.set(U32, DEST_QP_NUM_OFFSET, rtr.destQpn());
                    attr.set(U32, RQ_PSN_OFFSET, rtr.rqPsn());
                    rtr.path().write(attr, AH_ATTR_OFFSET);
                    mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
                    if (type == QpType.RC || type == QpType.XRC_RECV)   // an INI QP has no responder side
                    {
                        attr.set(U8, MAX_DEST_RD_ATOMIC_OFFSET, (byte) rtr.maxDestRdAtomic());
                        attr.set(U8, MIN_RNR_TIMER_OFFSET, (byte) rtr.minRnrTimer());
                        mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
                    }
                }
                modify(attr, mask, "INIT->RTR");
            }
            if (type == QpType.DCT)
            {
                qpn = handle.get(U32, IbvQp.QP_NUM_OFFSET);
            }
            if (type == QpType.RAW_PACKET)
            {
                // libmlx5 has just written its own receive head (0: it never saw the Java posts) into the doorbell
                // record (mlx5_modify_qp, rdma-core providers/mlx5/verbs.c): the queues publish theirs again
                for (final QpStateListener listener : stateListeners)
                {
                    listener.afterRtr();
                }
            }
        }
    }

    /**
     * The DC RTR attributes (Linux mlx5 modify_dci_qp_is_ok / mlx5_ib_modify_dct): a DCI takes the path MTU only, its
     * targets come per WQE; a DCT takes the path MTU, the address vector of its port and the minimum RNR timer.
     */
    private int dcRtr(final MemorySegment attr, final RtrAttributes rtr)
    {
        if (rtr == null)
        {
            throw new IllegalArgumentException(type + " needs RTR attributes (path MTU" +
                (type == QpType.DCT ? ", path and minimum RNR timer)" : ")"));
        }
        attr.set(C_INT, PATH_MTU_OFFSET, rtr.pathMtu());
        if (type == QpType.DCI)
        {
            return IBV_QP_STATE | IBV_QP_PATH_MTU;
        }
        rtr.path().write(attr, AH_ATTR_OFFSET);
        attr.set(U8, MIN_RNR_TIMER_OFFSET, (byte) rtr.minRnrTimer());
        return IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_AV | IBV_QP_MIN_RNR_TIMER;
    }

    /**
     * Brings a DC QP to where it works: a DCI to RTS (INIT on {@code port}, RTR with {@code pathMtu}, RTS with the
     * retry defaults of {@link RtsAttributes#of}); a DCT to RTR (INIT with {@code accessFlags}, RTR with {@code path}
     * and {@code pathMtu}), after which {@link #qpn()} is its DCT number. Control path: any thread, serialized by the
     * context lock like the other transitions.
     *
     * @param port the port number, from 1
     * @param accessFlags the remote access a DCT grants ({@link Access}); ignored for a DCI
     * @param pathMtu enum ibv_mtu (1 = 256 ... 5 = 4096)
     * @param path the DCT's address vector (port, SL, GRH on RoCE); ignored for a DCI
     * @throws IllegalStateException if this is not a DCI or DCT
     * @throws VerbsException if a modify is refused
     */
    public void activateDc(final int port, final int accessFlags, final int pathMtu, final AddressVector path)
    {
        if (type != QpType.DCI && type != QpType.DCT)
        {
            throw new IllegalStateException("activateDc is for DCI and DCT QPs, not " + this);
        }
        toInit(new InitAttributes(port, 0, accessFlags, 0));
        toRtr(new RtrAttributes(pathMtu, 0, 0, 0, 12, path));
        if (type == QpType.DCI)
        {
            toRts(RtsAttributes.of(0));
        }
    }

    /**
     * RTR to RTS. For RAW_PACKET {@code rts} may be null (only the state changes).
     *
     * @param rts the RTS attributes
     */
    public void toRts(final RtsAttributes rts)
    {
        synchronized (lock())
        {
            ensureOpen();
            try (Arena tmp = Arena.ofConfined())
            {
                final MemorySegment attr = tmp.allocate(IbvQpAttr.LAYOUT);
                attr.set(C_INT, QP_STATE_OFFSET, IBV_QPS_RTS);
                int mask = IBV_QP_STATE;
                if (type != QpType.RAW_PACKET)
                {
                    attr.set(U32, SQ_PSN_OFFSET, rts.sqPsn());
                    mask |= IBV_QP_SQ_PSN;
                }
                if (type == QpType.DCT)
                {
                    throw new IllegalStateException(this + ": a DCT stays in RTR, it never sends");
                }
                if (type == QpType.XRC_RECV)
                {
                    // a TGT QP only responds: its RTS takes the ACK timeout, no retry or read-initiator limits
                    attr.set(U8, TIMEOUT_OFFSET, (byte) rts.timeout());
                    mask |= IBV_QP_TIMEOUT;
                }
                else if (type == QpType.RC || type == QpType.XRC_SEND || type == QpType.DCI)
                {
                    attr.set(U8, TIMEOUT_OFFSET, (byte) rts.timeout());
                    attr.set(U8, RETRY_CNT_OFFSET, (byte) rts.retryCnt());
                    attr.set(U8, RNR_RETRY_OFFSET, (byte) rts.rnrRetry());
                    attr.set(U8, MAX_RD_ATOMIC_OFFSET, (byte) rts.maxRdAtomic());
                    mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
                }
                modify(attr, mask, "RTR->RTS");
            }
        }
    }

    /**
     * Brings a RAW_PACKET QP to RTS on {@code port}: RESET->INIT (STATE|PORT, all the kernel's raw packet QPs
     * take), INIT->RTR and RTR->RTS (STATE only). It then sends, and receives what flow rules steer to it.
     *
     * @param port the port number, from 1
     */
    public void activate(final int port)
    {
        if (type != QpType.RAW_PACKET)
        {
            throw new IllegalStateException("activate(port) is for RAW_PACKET QPs; " + this + " needs connect()");
        }
        toInit(new InitAttributes(port, 0, 0, 0));
        toRtr(null);
        toRts(null);
    }

    /** Any state to ERR: outstanding WQEs complete with flush errors. */
    public void toError()
    {
        toState(IBV_QPS_ERR, "->ERR");
    }

    /**
     * Any state to RESET: the queues are emptied without completions; the QP can be connected again
     * ({@link #toInit}, {@link #toRtr}, {@link #toRts}).
     * <p>
     * The Java queues over {@link #rings()} (SendQueue, RecvQueue, RawSendQueue) restart their counters at 0, as
     * libmlx5 restarts its own and zeroes the doorbell record here (mlx5_modify_qp and mlx5_init_qp_indices, rdma-core
     * providers/mlx5/verbs.c), so the QP can be connected and posted to again. libmlx5 removes the QP's CQEs from a
     * CQ it polls itself, but not from one handed to the Java data path (mlx5dv-owned), so the queues must have
     * nothing outstanding: every WQE completed and its CQE polled. The usual way: {@link #toError()}, poll until the
     * flush completions of everything posted have arrived, then toReset(). Call it from the queues' thread or after
     * it stopped posting and polling (their thread contract).
     *
     * @throws IllegalStateException if a Java queue of this QP has WQEs outstanding: the QP stays in its state
     */
    public void toReset()
    {
        synchronized (lock())
        {
            ensureOpen();
            for (final QpStateListener listener : stateListeners)
            {
                listener.beforeReset(this);
            }
            toState(IBV_QPS_RESET, "->RESET");
            for (final QpStateListener listener : stateListeners)
            {
                listener.afterReset();
            }
        }
    }

    /** A Java queue over this QP's rings follows its RESET and raw RTR transitions (VerbsAccess). */
    void addStateListener(final QpStateListener listener)
    {
        stateListeners.add(listener);
    }

    /** The Java queues over this QP's rings refuse posts from now on (VerbsAccess; any thread, no lock). */
    void closeRequested()
    {
        for (final QpStateListener listener : stateListeners)
        {
            listener.closeRequested();
        }
    }

    private void toState(final int state, final String what)
    {
        synchronized (lock())
        {
            ensureOpen();
            try (Arena tmp = Arena.ofConfined())
            {
                final MemorySegment attr = tmp.allocate(IbvQpAttr.LAYOUT);
                attr.set(C_INT, QP_STATE_OFFSET, state);
                modify(attr, IBV_QP_STATE, what);
            }
        }
    }

    /**
     * Connects a connected or datagram QP in one go, the way rc_pingpong does: INIT with {@code accessFlags} (RC/UC)
     * or {@code qkey} (UD), RTR towards {@code remote} over {@code path} with {@code pathMtu}, RTS with
     * {@code localPsn}.
     *
     * @param port the port number, from 1
     * @param accessFlags remote access as {@link Access} flags (RC/UC)
     * @param qkey the Q_Key (UD)
     * @param pathMtu enum ibv_mtu (1 = 256 ... 5 = 4096)
     * @param remote the peer's QP number and PSN
     * @param path where packets go
     * @param localPsn the first PSN this QP sends
     */
    public void connect(final int port, final int accessFlags, final int qkey, final int pathMtu,
        final PeerInfo remote, final AddressVector path, final int localPsn)
    {
        toInit(new InitAttributes(port, 0, accessFlags, qkey));
        toRtr(type == QpType.UD ? null : RtrAttributes.of(pathMtu, remote, path));
        toRts(RtsAttributes.of(localPsn));
    }

    private void modify(final MemorySegment attr, final int mask, final String what)
    {
        final int rc = Verbs.ibv_modify_qp(handle, attr, mask);
        if (rc != 0)
        {
            throw new VerbsException("ibv_modify_qp", rc,
                this + " " + what + " (mask 0x" + Integer.toHexString(mask) + ")");
        }
    }

    /**
     * {@return the raw queues for the Java data path ({@code mlx5dv_init_obj} with MLX5DV_OBJ_QP), computed once} The
     * segments die with the QP. Requires an mlx5 device.
     */
    public QpRing rings()
    {
        synchronized (lock())
        {
            ensureOpen();
            if (rssTable != null)
            {
                throw new IllegalStateException(this + " is an RSS QP: it has no rings (its WQs receive)");
            }
            if (type == QpType.XRC_RECV)
            {
                throw new IllegalStateException(this + " is an XRC TGT QP: it has no rings (its domain's XRC SRQs " +
                    "receive; post to them through SrqRecvQueue)");
            }
            if (rings == null)
            {
                rings = initObj();
            }
            return rings;
        }
    }

    private QpRing initObj()
    {
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment obj = tmp.allocate(Mlx5dvObj.LAYOUT);
            final MemorySegment out = tmp.allocate(Mlx5dvQp.LAYOUT);
            obj.set(C_POINTER, Mlx5dvObj.QP_IN_OFFSET, handle);
            obj.set(C_POINTER, Mlx5dvObj.QP_OUT_OFFSET, out);
            // ask for the UAR page's mmap offset: it names the BlueFlame register libmlx5 gave the QP, from which
            // SendQueue decides whether the register is dedicated or shared (io.mlx5j.direct.RegisterMode)
            out.set(U64, Mlx5dvQp.COMP_MASK_OFFSET, Mlx5dvQp.MLX5DV_QP_MASK_UAR_MMAP_OFFSET);
            final int rc = Mlx5dv.mlx5dv_init_obj(obj, Mlx5dvObj.MLX5DV_OBJ_QP);
            if (rc != 0)
            {
                throw new VerbsException("mlx5dv_init_obj", rc, this + " (is it an mlx5 device?)");
            }
            final int sqCnt = out.get(U32, Mlx5dvQp.SQ_WQE_CNT_OFFSET);
            final int sqStride = out.get(U32, Mlx5dvQp.SQ_STRIDE_OFFSET);
            final int rqCnt = out.get(U32, Mlx5dvQp.RQ_WQE_CNT_OFFSET);
            final int rqStride = out.get(U32, Mlx5dvQp.RQ_STRIDE_OFFSET);
            final int bfSize = out.get(U32, Mlx5dvQp.BF_SIZE_OFFSET);
            final long uarMmapOffset = (out.get(U64, Mlx5dvQp.COMP_MASK_OFFSET) &
                Mlx5dvQp.MLX5DV_QP_MASK_UAR_MMAP_OFFSET) != 0 ? out.get(C_LONG, Mlx5dvQp.UAR_MMAP_OFFSET_OFFSET) : -1;
            return new QpRing(qpn,
                Rings.view(out.get(C_POINTER, Mlx5dvQp.SQ_BUF_OFFSET), (long) sqCnt * sqStride, arena, "sq.buf"),
                sqCnt, sqStride,
                Rings.view(out.get(C_POINTER, Mlx5dvQp.RQ_BUF_OFFSET), (long) rqCnt * rqStride, arena, "rq.buf"),
                rqCnt, rqStride,
                Rings.view(out.get(C_POINTER, Mlx5dvQp.DBREC_OFFSET), Rings.DBREC_BYTES, arena, "dbrec"),
                Rings.view(out.get(C_POINTER, Mlx5dvQp.BF_REG_OFFSET), Math.max(8L, 2L * bfSize), arena, "bf.reg"),
                bfSize, uarMmapOffset);
        }
    }

    @Override
    int destroy(final MemorySegment address)
    {
        return Verbs.ibv_destroy_qp(address);
    }

    @Override
    String destroyCall()
    {
        return "ibv_destroy_qp";
    }

    @Override
    public String toString()
    {
        return type + (rssTable != null ? " RSS" : "") + " QueuePair(qpn 0x" + Integer.toHexString(qpn) +
            (isClosed() ? ", closed)" : ")");
    }
}
