package io.mlx5j.direct;

import io.mlx5j.bindings.IbvQpAttr;
import io.mlx5j.bindings.IbvQpInitAttr;
import io.mlx5j.bindings.Verbs;
import io.mlx5j.doorbell.BlueFlameRegister;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.doorbell.DoorbellRecord;
import io.mlx5j.doorbell.SendDoorbell;
import io.mlx5j.wqe.Be;
import io.mlx5j.wqe.CtrlSeg;
import io.mlx5j.wqe.DataSeg;
import io.mlx5j.wqe.DatagramSeg;
import io.mlx5j.wqe.InlineSeg;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.RaddrSeg;
import io.mlx5j.wqe.SendQueue;
import io.mlx5j.wqe.WcStatus;
import io.mlx5j.wqe.WqeWriter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_CS;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_FA;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_NOP;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_RDMA_READ;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE_IMM;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_SEND;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_SEND_IMM;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_SEND_INVAL;

/**
 * The send queue of one QP, posted from Java: WQEs are written into the ring {@code mlx5dv_init_obj} reported and
 * handed to the NIC through the QP's doorbell record and BlueFlame register, with the bytes libmlx5's
 * {@code ibv_post_send} writes for the same work request (rdma-core v44 providers/mlx5/qp.c _mlx5_post_send and
 * post_send_db; the golden parity tests in module {@code tests} compare them byte for byte).
 *
 * <h2>Posting</h2>
 * One call per WQE, primitives only: {@link #send}, {@link #sendImm}, {@link #sendInv}, {@link #rdmaWrite},
 * {@link #rdmaWriteImm}, {@link #rdmaRead}, {@link #compareSwap}, {@link #fetchAdd}, the masked atomics, {@link
 * #nop} and {@link #udSend}. Several SGEs or inline pieces: the staging form
 * <pre>{@code
 * sq.begin(wrId, Mlx5Opcode.MLX5_OPCODE_SEND, SendFlags.SIGNALED)
 *   .sge(addr0, lkey, len0).sge(addr1, lkey, len1);
 * if (!sq.post()) { ... ring full: poll, then post() again (the staged WR is kept) ... }
 * sq.ring();
 * }</pre>
 * Every post returns false, writing nothing, when the ring lacks room; slots are freed only by completions the
 * attached {@link DirectCq} has seen, so a WQE is never overwritten before its completion (or a later signaled
 * one's) was polled. Unsignaled WQEs are retired by the next signaled one: use {@link #signalEvery(int)} or signal
 * yourself, or the ring fills up and stays full.
 * <p>
 * Posts do not ring: {@link #ring()} rings once for everything posted since the last ring (libmlx5's list post:
 * BlueFlame only for a single WQE), or pass {@link SendFlags#RING} to ring right away.
 * <p>
 * Byte-level choices that differ from libmlx5 (documented per field in the parity tests): inline padding and the
 * compare operand of FETCH_ADD are written as zeros, where libmlx5 leaves whatever the ring held.
 *
 * <h2>Results: why a boolean is enough</h2>
 * A post returns {@code false} for exactly one condition: no room, because WQEs whose completions have not been
 * polled still hold the ring (nothing is written; poll the {@link DirectCq}, then retry). It is the only condition
 * a correct program meets at run time, and the only one a retry can cure, so unlike Aeron's {@code offer} there is
 * nothing else to encode. The other candidates are not post results:
 * <ul>
 * <li><b>QP in error</b> (moved there by {@link QueuePair#toError()} or by the device after an error completion):
 *     verbs lets a QP in ERR take posts and completes each of them with {@code WR_FLUSH_ERR} (the IB rule for the
 *     Error state; DirectEndToEndTest.qpToErrorFlushesSendsAndReceives), so the post returns {@code true} and the
 *     completion carries the state. Deciding at post time would need {@code ibv_query_qp} on every post, and
 *     would still lag the device.</li>
 * <li><b>Queue closed</b>: a use after close is a programming error (or a shutdown race the caller must order);
 *     the ring segments are scoped to the QP, so it throws {@link IllegalStateException} and never touches freed
 *     memory.</li>
 * <li><b>Invalid work request</b>: {@link IllegalArgumentException}, see Errors.</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * A send queue is confined to one thread, and that thread must also poll the CQ that retires its WQEs (or the two
 * must be serialised by the caller): the counters are plain fields, as in libmlx5 under its QP lock. With
 * {@code -Dmlx5j.debug=true} every call checks that the queue and the {@link DirectCq}s it is attached to are used
 * from one thread, and {@link #claim()} hands them to another (a static final flag: free when off). QPs whose
 * BlueFlame registers are shared by several threads must be created with {@link #of(QueuePair, DoorbellMode,
 * boolean)} (locked as libmlx5 does for a shared bfreg); the default assumes a dedicated register and refuses a
 * second queue on the same register.
 *
 * <h2>Errors</h2>
 * Programming errors throw {@link IllegalArgumentException} (too many SGEs, inline data larger than the QP allows,
 * an opcode the QP type cannot carry, INLINE on READ/atomics) or {@link IllegalStateException} (post without begin,
 * the QP closed: its ring segments are scoped to it).
 */
public final class DirectSendQueue
{
    private static final long NULL_PAGE = 4096;
    private static final int NO_ATOMIC = 0;
    private static final int CAS = 1;
    private static final int FAA = 2;
    private static final int MASKED_CAS_64 = 3;
    private static final int MASKED_FAA_64 = 4;
    private static final int MASKED_CAS_32 = 5;
    private static final int MASKED_FAA_32 = 6;

    private final QueuePair qp;
    private final QpType type;
    private final int qpn;
    private final MemorySegment ring;
    private final long ringMask;
    private final SendQueue sq;
    private final WqeWriter writer;
    private final SendDoorbell doorbell;
    private final int maxSge;
    private final int maxInline;
    private final int sqSignalBits;
    private final MemorySegment inlineScratch;
    /** Bit n set: mlx5 opcode n may take {@link #postOne} with a gather entry, resp. inline (see fastOpcodes). */
    private final long fastGather;
    private final long fastInline;

    // staged work request
    private boolean staged;
    private long stWrId;
    private int stOpcode;
    private int stFlags;
    private boolean stRemote;
    private long stRaddr;
    private int stRkey;
    private int stImm;
    private int stAtomic;
    private long stA0;
    private long stA1;
    private long stA2;
    private long stA3;
    private MemorySegment stAv;
    private int stRemoteQpn;
    private int stQkey;
    /** Entries of the WR being staged. */
    private final ScatterList sgl;

    // UD: the last address handle's AV, so a post does not go through AddressHandle.av()'s lock
    private AddressHandle lastAh;
    private MemorySegment lastAv;

    // posted but not rung
    private int pending;
    private long pendingCtrl;
    private int pendingDs;

    private int signalEvery;
    private int unsignaled;
    Ownership ownership = new Ownership(this);

    private DirectSendQueue(final QueuePair qp, final DoorbellMode mode, final boolean sharedRegister)
    {
        this.qp = qp;
        this.type = qp.type();
        final QpRings rings = qp.rings();
        this.qpn = rings.qpn();
        if (rings.sqStride() != SendQueue.MLX5_SEND_WQE_BB || rings.sqWqeCnt() < 1)
        {
            throw new IllegalArgumentException(qp + " has no usable send queue (wqe_cnt " + rings.sqWqeCnt() +
                ", stride " + rings.sqStride() + ")");
        }
        this.ring = rings.sq();
        this.ringMask = ring.byteSize() - 1;
        this.sq = new SendQueue(rings.sqWqeCnt());
        this.writer = new WqeWriter(Math.min(rings.sqWqeCnt(), 16));
        final BlueFlameRegister bf = BlueFlameRegisters.acquire(qp, rings, sharedRegister);
        this.doorbell = new SendDoorbell(ring, new DoorbellRecord(rings.dbrec()), bf, mode);
        final QpCapabilities caps = qp.capabilities();
        this.maxSge = caps.maxSendSge();
        this.maxInline = caps.maxInlineData();
        this.sqSignalBits = queriedSqSigAll(qp) ? CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE : 0;
        this.sgl = new ScatterList(maxSge);
        this.inlineScratch = MemorySegment.ofArray(new byte[Math.max(1, maxInline)]);
        this.fastGather = fastOpcodes(type, false, maxSge);
        this.fastInline = fastOpcodes(type, true, maxSge);
    }

    /**
     * The opcodes {@link #postOne} may encode on a QP of this type: exactly those the staging path accepts with one
     * gather entry (or one inline piece) and no address vector or atomic operands. Everything else (UD sends, atomics,
     * several SGEs, a QP without send SGEs) goes through the staging path, which also raises every error.
     */
    private static long fastOpcodes(final QpType type, final boolean inline, final int maxSge)
    {
        long ops = 1L << MLX5_OPCODE_NOP;
        if (type == QpType.UD || type == QpType.RAW_PACKET || (!inline && maxSge < 1))
        {
            return ops;
        }
        ops |= (1L << MLX5_OPCODE_SEND) | (1L << MLX5_OPCODE_SEND_IMM) | (1L << MLX5_OPCODE_SEND_INVAL) |
            (1L << MLX5_OPCODE_RDMA_WRITE) | (1L << MLX5_OPCODE_RDMA_WRITE_IMM);
        if (type == QpType.RC && !inline)
        {
            ops |= 1L << MLX5_OPCODE_RDMA_READ;
        }
        return ops;
    }

    /** A send queue over {@code qp}'s ring with a dedicated BlueFlame register. One per QP. */
    public static DirectSendQueue of(final QueuePair qp, final DoorbellMode mode)
    {
        return new DirectSendQueue(qp, mode, false);
    }

    /**
     * @param sharedRegister true if other QPs posted from other threads may use the same BlueFlame register (libmlx5
     *                       {@code need_lock}): every ring then takes the register's lock
     */
    public static DirectSendQueue of(final QueuePair qp, final DoorbellMode mode, final boolean sharedRegister)
    {
        return new DirectSendQueue(qp, mode, sharedRegister);
    }

    /** libmlx5's sq_signal_bits: a QP created with sq_sig_all signals every WQE (queried once, setup path). */
    private static boolean queriedSqSigAll(final QueuePair qp)
    {
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment attr = tmp.allocate(IbvQpAttr.LAYOUT);
            final MemorySegment init = tmp.allocate(IbvQpInitAttr.LAYOUT);
            final int rc = Verbs.ibv_query_qp(qp.pointer(), attr, IbvQpAttr.IBV_QP_STATE, init);
            if (rc != 0)
            {
                throw new VerbsException("ibv_query_qp", rc, qp.toString());
            }
            return init.get(C_INT, IbvQpInitAttr.SQ_SIG_ALL_OFFSET) != 0;
        }
    }

    /**
     * Selective signaling: every n-th WQE is posted SIGNALED even without the flag, so unsignaled WQEs get retired.
     * 0 turns it off. Counting restarts at every signaled WQE.
     */
    public DirectSendQueue signalEvery(final int n)
    {
        if (n < 0)
        {
            throw new IllegalArgumentException("signalEvery must be >= 0: " + n);
        }
        signalEvery = n;
        unsignaled = 0;
        return this;
    }

    // ------------------------------------------------------------------------------------------------ one-call posts

    public boolean send(final long wrId, final long laddr, final int lkey, final int len, final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_SEND, 0, false, 0, 0, laddr, lkey, len, flags) ||
            begin(wrId, MLX5_OPCODE_SEND, flags).sge(laddr, lkey, len).post();
    }

    public boolean sendImm(final long wrId, final long laddr, final int lkey, final int len, final int imm,
        final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_SEND_IMM, imm, false, 0, 0, laddr, lkey, len, flags) ||
            begin(wrId, MLX5_OPCODE_SEND_IMM, flags).imm(imm).sge(laddr, lkey, len).post();
    }

    public boolean sendInv(final long wrId, final long laddr, final int lkey, final int len, final int invRkey,
        final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_SEND_INVAL, invRkey, false, 0, 0, laddr, lkey, len, flags) ||
            begin(wrId, MLX5_OPCODE_SEND_INVAL, flags).imm(invRkey).sge(laddr, lkey, len).post();
    }

    public boolean rdmaWrite(final long wrId, final long laddr, final int lkey, final int len, final long raddr,
        final int rkey, final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_RDMA_WRITE, 0, true, raddr, rkey, laddr, lkey, len, flags) ||
            begin(wrId, MLX5_OPCODE_RDMA_WRITE, flags).remote(raddr, rkey).sge(laddr, lkey, len).post();
    }

    public boolean rdmaWriteImm(final long wrId, final long laddr, final int lkey, final int len, final long raddr,
        final int rkey, final int imm, final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_RDMA_WRITE_IMM, imm, true, raddr, rkey, laddr, lkey, len, flags) ||
            begin(wrId, MLX5_OPCODE_RDMA_WRITE_IMM, flags).remote(raddr, rkey).imm(imm).sge(laddr, lkey, len).post();
    }

    public boolean rdmaRead(final long wrId, final long laddr, final int lkey, final int len, final long raddr,
        final int rkey, final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_RDMA_READ, 0, true, raddr, rkey, laddr, lkey, len, flags) ||
            begin(wrId, MLX5_OPCODE_RDMA_READ, flags).remote(raddr, rkey).sge(laddr, lkey, len).post();
    }

    /**
     * 64-bit compare and swap; the old remote value lands in the 8 bytes at laddr. The remote word and the returned
     * value are in host byte order (ConnectX-4 and later under the Linux mlx5 driver, which reports
     * IBV_ATOMIC_HCA); 4-byte masked atomics work on big-endian words.
     */
    public boolean compareSwap(final long wrId, final long laddr, final int lkey, final long raddr, final int rkey,
        final long compare, final long swap, final int flags)
    {
        return begin(wrId, MLX5_OPCODE_ATOMIC_CS, flags).remote(raddr, rkey).compareSwapOperands(compare, swap)
            .sge(laddr, lkey, 8).post();
    }

    /** 64-bit fetch and add on a host-order word; the old remote value lands in the 8 bytes at laddr, in host order. */
    public boolean fetchAdd(final long wrId, final long laddr, final int lkey, final long raddr, final int rkey,
        final long add, final int flags)
    {
        return begin(wrId, MLX5_OPCODE_ATOMIC_FA, flags).remote(raddr, rkey).fetchAddOperand(add)
            .sge(laddr, lkey, 8).post();
    }

    /** Masked compare and swap on 8 bytes: compares under compareMask, swaps the bits of swapMask. */
    public boolean maskedCompareSwap64(final long wrId, final long laddr, final int lkey, final long raddr,
        final int rkey, final long compare, final long compareMask, final long swap, final long swapMask,
        final int flags)
    {
        begin(wrId, MLX5_OPCODE_ATOMIC_MASKED_CS, flags).remote(raddr, rkey);
        stAtomic = MASKED_CAS_64;
        stA0 = swap;
        stA1 = compare;
        stA2 = swapMask;
        stA3 = compareMask;
        return sge(laddr, lkey, 8).post();
    }

    /** Masked fetch and add on 8 bytes: carries do not cross the bits set in fieldBoundary. */
    public boolean maskedFetchAdd64(final long wrId, final long laddr, final int lkey, final long raddr,
        final int rkey, final long add, final long fieldBoundary, final int flags)
    {
        begin(wrId, MLX5_OPCODE_ATOMIC_MASKED_FA, flags).remote(raddr, rkey);
        stAtomic = MASKED_FAA_64;
        stA0 = add;
        stA1 = fieldBoundary;
        return sge(laddr, lkey, 8).post();
    }

    /** Masked compare and swap on 4 bytes (old value lands in the 4 bytes at laddr). */
    public boolean maskedCompareSwap32(final long wrId, final long laddr, final int lkey, final long raddr,
        final int rkey, final int compare, final int compareMask, final int swap, final int swapMask, final int flags)
    {
        begin(wrId, MLX5_OPCODE_ATOMIC_MASKED_CS, flags).remote(raddr, rkey);
        stAtomic = MASKED_CAS_32;
        stA0 = swap;
        stA1 = compare;
        stA2 = swapMask;
        stA3 = compareMask;
        return sge(laddr, lkey, 4).post();
    }

    /** Masked fetch and add on 4 bytes. */
    public boolean maskedFetchAdd32(final long wrId, final long laddr, final int lkey, final long raddr,
        final int rkey, final int add, final int fieldBoundary, final int flags)
    {
        begin(wrId, MLX5_OPCODE_ATOMIC_MASKED_FA, flags).remote(raddr, rkey);
        stAtomic = MASKED_FAA_32;
        stA0 = add;
        stA1 = fieldBoundary;
        return sge(laddr, lkey, 4).post();
    }

    /** A WQE that does nothing but complete (ctrl segment only). */
    public boolean nop(final long wrId, final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_NOP, 0, false, 0, 0, 0, 0, 0, flags) ||
            begin(wrId, MLX5_OPCODE_NOP, flags).post();
    }

    /** UD send to {@code remoteQpn} through {@code ah}'s address vector, with {@code remoteQkey}. */
    public boolean udSend(final long wrId, final AddressHandle ah, final int remoteQpn, final int remoteQkey,
        final long laddr, final int lkey, final int len, final int flags)
    {
        return begin(wrId, MLX5_OPCODE_SEND, flags).destination(ah, remoteQpn, remoteQkey).sge(laddr, lkey, len)
            .post();
    }

    /** UD send with immediate data. */
    public boolean udSendImm(final long wrId, final AddressHandle ah, final int remoteQpn, final int remoteQkey,
        final long laddr, final int lkey, final int len, final int imm, final int flags)
    {
        return begin(wrId, MLX5_OPCODE_SEND_IMM, flags).destination(ah, remoteQpn, remoteQkey).imm(imm)
            .sge(laddr, lkey, len).post();
    }

    /**
     * The one-call posts' fast path: a WQE of ctrl, optional raddr and one data or inline segment, encoded straight
     * into the ring with no staging. It writes the same bytes as {@link #post()} (the parity tests post through
     * both) and declines, writing nothing, whenever the staging path has something to say: an opcode or flag this QP
     * cannot take, inline data too large or in the null page, a WQE over the size limit, or a full ring. The caller
     * then posts through the staging path, which throws the error, or stages the WR and returns false.
     * <p>
     * Split in three small methods so that each stays under C2's inlining limit (FreqInlineSize, 325 bytecodes): as
     * one 424-bytecode method it was "hot method too big" (-XX:+PrintInlining) and every post paid a call; now each
     * one-call method compiles as one unit with its constant arguments (opcode, remote) folded.
     *
     * @return true if the WQE was posted
     */
    private boolean postOne(final long wrId, final int opcode, final int imm, final boolean remote, final long raddr,
        final int rkey, final long laddr, final int lkey, final int len, final int flags)
    {
        if ((flags & SendFlags.INLINE) != 0)
        {
            return postInline(wrId, opcode, imm, remote, raddr, rkey, laddr, len, flags);
        }
        if (Wire.DEBUG)
        {
            ownership.check(this);
        }
        if ((flags & ~SendFlags.ALL) != 0 || ((fastGather >>> opcode) & 1) == 0)
        {
            return false;
        }
        final boolean payload = len != 0 && opcode != MLX5_OPCODE_NOP;
        final long ctrl = sq.claim(1);  // ctrl + raddr + data: at most 3 units, one WQEBB, no ring wrap inside it
        if (ctrl == SendQueue.NO_SPACE)
        {
            return false;
        }
        long at = ctrl + CtrlSeg.LENGTH;
        if (remote)
        {
            RaddrSeg.set(ring, at, raddr, rkey);
            at += RaddrSeg.LENGTH;
        }
        if (payload)
        {
            DataSeg.set(ring, at, len, lkey, laddr);
            at += DataSeg.LENGTH;
        }
        finish(ctrl, (int)(at - ctrl) >>> 4, opcode, imm, wrId, flags);
        return true;
    }

    /** {@link #postOne} with {@link SendFlags#INLINE}. */
    private boolean postInline(final long wrId, final int opcode, final int imm, final boolean remote,
        final long raddr, final int rkey, final long laddr, final int len, final int flags)
    {
        if (Wire.DEBUG)
        {
            ownership.check(this);
        }
        // INLINE reads the payload now, from this process's memory (see post()): the null page is refused there
        if ((flags & ~SendFlags.ALL) != 0 || ((fastInline >>> opcode) & 1) == 0 || len < 0 || len > maxInline ||
            (len != 0 && Long.compareUnsigned(laddr, NULL_PAGE) < 0))
        {
            return false;
        }
        final boolean payload = len != 0 && opcode != MLX5_OPCODE_NOP;
        final int ds = 1 + (remote ? 1 : 0) + (payload ? InlineSeg.ds(len) : 0);
        if (ds > writer.maxDs())
        {
            return false;
        }
        final long ctrl = sq.claim(SendQueue.numWqebb(ds));
        if (ctrl == SendQueue.NO_SPACE)
        {
            return false;
        }
        final WqeWriter w = writer.wrap(ring, ctrl);
        if (remote)
        {
            w.raddr(raddr, rkey);
        }
        if (payload)
        {
            w.inline(Wire.ALL, laddr, len);
        }
        finish(ctrl, ds, opcode, imm, wrId, flags);
        return true;
    }

    /** The fast path's last steps: the ctrl segment (written last, when ds is known), the ring slot, the doorbell. */
    private void finish(final long ctrl, final int ds, final int opcode, final int imm, final long wrId,
        final int flags)
    {
        staged = false;     // a one-call post replaces whatever was staged, as begin() does
        CtrlSeg.set(ring, ctrl, CtrlSeg.opmodIdxOpcode(0, sq.wqeIndex(), opcode), CtrlSeg.qpnDs(qpn, ds),
            fmCeSe(flags), imm);
        sq.commit(ds, wrId);
        pending++;
        pendingCtrl = ctrl;
        pendingDs = ds;
        if ((flags & SendFlags.RING) != 0)
        {
            ring();
        }
    }

    /** The ctrl segment's fm_ce_se for a WQE posted with {@code flags}, counting selective signaling. */
    private int fmCeSe(final int flags)
    {
        int fmCeSe = sqSignalBits;
        if ((flags & SendFlags.SIGNALED) != 0)
        {
            fmCeSe |= CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE;
        }
        if (signalEvery > 0 && (fmCeSe & CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE) == 0 && ++unsignaled >= signalEvery)
        {
            fmCeSe |= CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE;
        }
        if ((fmCeSe & CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE) != 0)
        {
            unsignaled = 0;
        }
        if ((flags & SendFlags.FENCE) != 0)
        {
            fmCeSe |= CtrlSeg.MLX5_WQE_CTRL_FENCE;
        }
        if ((flags & SendFlags.SOLICITED) != 0)
        {
            fmCeSe |= CtrlSeg.MLX5_WQE_CTRL_SOLICITED;
        }
        return fmCeSe;
    }

    // ------------------------------------------------------------------------------------------------ staging form

    /**
     * Start staging a work request (replacing any staged one).
     *
     * @param mlx5Opcode one of {@link Mlx5Opcode}: NOP, SEND, SEND_IMM, SEND_INVAL, RDMA_WRITE, RDMA_WRITE_IMM,
     *                   RDMA_READ, ATOMIC_CS, ATOMIC_FA (masked atomics: use their one-call methods)
     * @param flags      {@link SendFlags}
     */
    public DirectSendQueue begin(final long wrId, final int mlx5Opcode, final int flags)
    {
        if (Wire.DEBUG)
        {
            ownership.check(this);
        }
        if ((flags & ~SendFlags.ALL) != 0)
        {
            throw new IllegalArgumentException((flags & SendFlags.IP_CSUM) != 0
                ? "IP_CSUM (IBV_SEND_IP_CSUM) needs a raw packet QP; this is a " + type + " QP"
                : "unknown send flags 0x" + Integer.toHexString(flags & ~SendFlags.ALL));
        }
        staged = true;
        stWrId = wrId;
        stOpcode = mlx5Opcode;
        stFlags = flags;
        stRemote = false;
        stImm = 0;
        stAtomic = NO_ATOMIC;
        stAv = null;
        sgl.clear();
        return this;
    }

    /** Remote address and rkey (RDMA and atomics). */
    public DirectSendQueue remote(final long raddr, final int rkey)
    {
        stRemote = true;
        stRaddr = raddr;
        stRkey = rkey;
        return this;
    }

    /** Immediate data (SEND_IMM, RDMA_WRITE_IMM) or the rkey to invalidate (SEND_INVAL), as a number. */
    public DirectSendQueue imm(final int immOrRkey)
    {
        stImm = immOrRkey;
        return this;
    }

    /** Operands of ATOMIC_CS. */
    public DirectSendQueue compareSwapOperands(final long compare, final long swap)
    {
        stAtomic = CAS;
        stA0 = swap;
        stA1 = compare;
        return this;
    }

    /** Operand of ATOMIC_FA. */
    public DirectSendQueue fetchAddOperand(final long add)
    {
        stAtomic = FAA;
        stA0 = add;
        return this;
    }

    /** UD destination: the AH's address vector (as libmlx5 built it), remote QPN and Q_Key. */
    public DirectSendQueue destination(final AddressHandle ah, final int remoteQpn, final int remoteQkey)
    {
        if (ah != lastAh)
        {
            lastAv = ah.av();   // setup-like path, taken only when the AH changes
            lastAh = ah;
        }
        stAv = lastAv;
        stRemoteQpn = remoteQpn;
        stQkey = remoteQkey;
        return this;
    }

    /**
     * One gather entry (or, with {@link SendFlags#INLINE}, one piece of inline payload: lkey ignored). Zero-length
     * entries are dropped, as libmlx5 drops them.
     */
    public DirectSendQueue sge(final long addr, final int lkey, final int len)
    {
        sgl.add(addr, lkey, len, qp, " takes at most ", " SGEs per WQE");
        return this;
    }

    /**
     * Write the staged work request into the ring (it is not rung yet, unless {@link SendFlags#RING}).
     *
     * @return false if the ring has no room: nothing was written and the WR stays staged for another post()
     */
    public boolean post()
    {
        if (Wire.DEBUG)
        {
            ownership.check(this);
        }
        if (!staged)
        {
            throw new IllegalStateException("post() without begin(): nothing staged on " + this);
        }
        final int opcode = stOpcode;
        final int flags = stFlags;
        final boolean inline = (flags & SendFlags.INLINE) != 0;
        // a WR that fails validation is dropped (the next post needs a new begin); one that finds the ring full is
        // kept staged for another post()
        staged = false;
        checkOpcode(opcode, inline);

        int ds = 1;
        if (type == QpType.UD && opcode != MLX5_OPCODE_NOP)
        {
            ds += DatagramSeg.LENGTH / 16;
        }
        if (stRemote)
        {
            ds++;
        }
        final int atomic = stAtomic;
        if (atomic != NO_ATOMIC)
        {
            ds += atomic == MASKED_CAS_64 ? 2 : 1;
        }
        int inlineBytes = 0;
        if (opcode != MLX5_OPCODE_NOP)
        {
            if (inline)
            {
                for (int i = 0; i < sgl.count; i++)
                {
                    inlineBytes += sgl.len[i];
                    // INLINE reads the payload from this process's memory now (as IBV_SEND_INLINE does): addresses
                    // must be valid, mapped memory. The null page is refused, so that the common mistake (an unset
                    // address) is an exception rather than a crash.
                    if (sgl.len[i] != 0 && Long.compareUnsigned(sgl.addr[i], NULL_PAGE) < 0)
                    {
                        throw new IllegalArgumentException("inline payload address 0x" +
                            Long.toHexString(sgl.addr[i]) + " is in the null page");
                    }
                }
                if (inlineBytes > maxInline || inlineBytes < 0)
                {
                    throw new IllegalArgumentException("inline payload of " + inlineBytes + " bytes exceeds " + qp +
                        "'s max inline data " + maxInline);
                }
                if (inlineBytes > 0)
                {
                    ds += (inlineBytes + 4 + 15) >>> 4;
                }
            }
            else
            {
                for (int i = 0; i < sgl.count; i++)
                {
                    if (sgl.len[i] != 0)
                    {
                        ds++;
                    }
                }
            }
        }
        if (ds > writer.maxDs())
        {
            throw new IllegalArgumentException("WQE of " + ds + " 16-byte units exceeds the limit of " +
                writer.maxDs());
        }
        final long ctrl = sq.claim(SendQueue.numWqebb(ds));
        if (ctrl == SendQueue.NO_SPACE)
        {
            staged = true;
            return false;
        }

        final WqeWriter w = writer.wrap(ring, ctrl);
        int opmod = 0;
        if (type == QpType.UD && opcode != MLX5_OPCODE_NOP)
        {
            writeDatagram(w);
        }
        if (stRemote)
        {
            w.raddr(stRaddr, stRkey);
        }
        int atomicBytes = 8;
        switch (atomic)
        {
            case CAS -> w.atomicCas(stA0, stA1);
            case FAA -> w.atomicFa(stA0);
            case MASKED_CAS_64 ->
            {
                w.maskedCas64(stA0, stA1, stA2, stA3);
                opmod = Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_64;
            }
            case MASKED_FAA_64 ->
            {
                w.maskedFa64(stA0, stA1);
                opmod = Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_64;
            }
            case MASKED_CAS_32 ->
            {
                w.maskedCas32((int) stA0, (int) stA1, (int) stA2, (int) stA3);
                opmod = Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_32;
                atomicBytes = 4;
            }
            case MASKED_FAA_32 ->
            {
                w.maskedFa32((int) stA0, (int) stA1);
                opmod = Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_32;
                atomicBytes = 4;
            }
            default ->
            {
            }
        }
        if (opcode != MLX5_OPCODE_NOP)
        {
            if (inline)
            {
                if (inlineBytes > 0)
                {
                    writeInline(w, inlineBytes);
                }
            }
            else
            {
                for (int i = 0; i < sgl.count; i++)
                {
                    if (sgl.len[i] != 0)
                    {
                        // atomics: the response is the operand size, whatever the SGE says (as ibv_post_send)
                        w.data(atomic == NO_ATOMIC ? sgl.len[i] : atomicBytes, sgl.lkey[i], sgl.addr[i]);
                    }
                }
            }
        }

        w.ctrl(opmod, opcode, sq.wqeIndex(), qpn, fmCeSe(flags), stImm);
        sq.commit(w.ds(), stWrId);
        pending++;
        pendingCtrl = ctrl;
        pendingDs = w.ds();
        if ((flags & SendFlags.RING) != 0)
        {
            ring();
        }
        return true;
    }

    private void checkOpcode(final int opcode, final boolean inline)
    {
        final boolean ok;
        final boolean needsRemote;
        switch (opcode)
        {
            case MLX5_OPCODE_NOP ->
            {
                ok = true;
                needsRemote = false;
            }
            case MLX5_OPCODE_SEND, MLX5_OPCODE_SEND_IMM ->
            {
                ok = true;
                needsRemote = false;
            }
            case MLX5_OPCODE_SEND_INVAL ->
            {
                ok = type != QpType.UD;
                needsRemote = false;
            }
            case MLX5_OPCODE_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE_IMM ->
            {
                ok = type != QpType.UD;
                needsRemote = true;
            }
            case MLX5_OPCODE_RDMA_READ ->
            {
                ok = type == QpType.RC && !inline;
                needsRemote = true;
            }
            case MLX5_OPCODE_ATOMIC_CS, MLX5_OPCODE_ATOMIC_FA ->
            {
                ok = type == QpType.RC && !inline &&
                    stAtomic == (opcode == MLX5_OPCODE_ATOMIC_CS ? CAS : FAA);
                needsRemote = true;
            }
            case MLX5_OPCODE_ATOMIC_MASKED_CS, MLX5_OPCODE_ATOMIC_MASKED_FA ->
            {
                ok = type == QpType.RC && !inline && (stAtomic == MASKED_CAS_32 || stAtomic == MASKED_CAS_64 ||
                    stAtomic == MASKED_FAA_32 || stAtomic == MASKED_FAA_64);
                needsRemote = true;
            }
            default ->
            {
                ok = false;
                needsRemote = false;
            }
        }
        final boolean udOk = type != QpType.UD || opcode == MLX5_OPCODE_NOP || stAv != null;
        final boolean avMisuse = type != QpType.UD && stAv != null;
        if (type == QpType.RAW_PACKET && opcode != MLX5_OPCODE_NOP)
        {
            throw new IllegalArgumentException("a RAW_PACKET QP sends frames, with an Ethernet segment in every WQE: "
                + "post them through RawSendQueue.of(" + qp + ", mode)");
        }
        if (!ok || needsRemote != stRemote || !udOk || avMisuse)
        {
            throw new IllegalArgumentException("cannot post mlx5 opcode 0x" + Integer.toHexString(opcode) + " on " +
                qp + (inline ? " inline" : "") + (needsRemote && !stRemote ? " without remote(raddr, rkey)" : "") +
                (!needsRemote && stRemote ? " with a remote address" : "") +
                (!udOk ? " without destination(ah, qpn, qkey)" : "") + (avMisuse ? " with a UD destination" : "") +
                (isAtomic(opcode) && stAtomic == NO_ATOMIC ? " without atomic operands" : ""));
        }
    }

    private static boolean isAtomic(final int opcode)
    {
        return opcode == MLX5_OPCODE_ATOMIC_CS || opcode == MLX5_OPCODE_ATOMIC_FA ||
            opcode == MLX5_OPCODE_ATOMIC_MASKED_CS || opcode == MLX5_OPCODE_ATOMIC_MASKED_FA;
    }

    /**
     * The datagram segment is libmlx5's copy of the AH's mlx5_wqe_av with dqp_dct = remote QPN | MLX5_EXTENDED_UD_AV
     * and the first key word = Q_Key (qp.c _set_datagram_seg); the fields are read from the AV and re-encoded.
     */
    private void writeDatagram(final WqeWriter w)
    {
        final MemorySegment av = stAv;
        final long key = ((long) stQkey << 32) | (Be.be32(av, DatagramSeg.KEY_OFFSET + 4) & 0xffffffffL);
        final long rmac = ((Be.be32(av, DatagramSeg.RMAC_OFFSET) & 0xffffffffL) << 16) |
            Be.be16(av, DatagramSeg.RMAC_OFFSET + 4);
        w.datagram(key, stRemoteQpn & 0xffffff, true, Be.u8(av, DatagramSeg.STAT_RATE_SL_OFFSET),
            Be.u8(av, DatagramSeg.FL_MLID_OFFSET), Be.be16(av, DatagramSeg.RLID_OFFSET), rmac,
            Be.u8(av, DatagramSeg.TCLASS_OFFSET), Be.u8(av, DatagramSeg.HOP_LIMIT_OFFSET),
            Be.be32(av, DatagramSeg.GRH_GID_FL_OFFSET), Be.be64(av, DatagramSeg.RGID_OFFSET),
            Be.be64(av, DatagramSeg.RGID_OFFSET + 8));
    }

    private void writeInline(final WqeWriter w, final int total)
    {
        if (sgl.count == 1)
        {
            w.inline(Wire.ALL, sgl.addr[0], total);
            return;
        }
        // several pieces: gather them first, the inline segment carries one byte_count for all
        long at = 0;
        for (int i = 0; i < sgl.count; i++)
        {
            MemorySegment.copy(Wire.ALL, sgl.addr[i], inlineScratch, at, sgl.len[i]);
            at += sgl.len[i];
        }
        w.inline(inlineScratch, 0, total);
    }

    /**
     * Hand everything posted since the last ring to the NIC with one doorbell: the doorbell record, then BlueFlame
     * (a single WQE that fits) or the 8-byte doorbell of the last WQE, as libmlx5's post_send_db.
     *
     * @return the number of WQEs rung (0: nothing was pending, nothing was written)
     */
    public int ring()
    {
        if (Wire.DEBUG)
        {
            ownership.check(this);
        }
        final int n = pending;
        if (n == 0)
        {
            return 0;
        }
        doorbell.ring(n, pendingCtrl, pendingDs, sq.producerCounter());
        pending = 0;
        return n;
    }

    /** WQEBBs free in the ring. */
    public int freeWqebb()
    {
        return sq.freeWqebb();
    }

    /** WQEBBs posted whose completions have not been polled yet. */
    public int outstanding()
    {
        return sq.outstanding();
    }

    /** WQEs posted but not rung yet. */
    public int pending()
    {
        return pending;
    }

    /** Free-running WQEBB producer counter (its low 16 bits are in the doorbell record after a ring). */
    public int producerCounter()
    {
        return sq.producerCounter();
    }

    public QueuePair queuePair()
    {
        return qp;
    }

    public int qpn()
    {
        return qpn;
    }

    public DoorbellMode mode()
    {
        return doorbell.mode();
    }

    /** Largest inline payload per WQE, as the QP was granted. */
    public int maxInlineData()
    {
        return maxInline;
    }

    public int maxSge()
    {
        return maxSge;
    }

    // ------------------------------------------------------------------------------------------------ CQ side

    /** The QP is destroyed: its number may already belong to a new QP, so no CQE is this queue's any more. */
    boolean dead()
    {
        return qp.isClosed();
    }

    /** A send CQE with this wqe_counter arrived: retire up to that WQE and return its wr_id. */
    long complete(final int wqeCounter)
    {
        return sq.complete(wqeCounter);
    }

    /** Operand size of the (masked) atomic WQE at {@code wqeCounter}: 4 for opmod EXT_ATOMIC_32, else 8. */
    int atomicBytes(final int wqeCounter)
    {
        final long ctrl = ((long) wqeCounter << SendQueue.MLX5_SEND_WQE_SHIFT) & ringMask;
        return (Be.be32(ring, ctrl) >>> 24) == Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_32 ? 4 : 8;
    }

    /**
     * Scatter-to-CQE on the requester (RDMA READ and atomic responses in the CQE): copy {@code size} bytes from
     * {@code src} into the gather list of the WQE at {@code wqeCounter}, as libmlx5's mlx5_copy_to_send_wqe (qp.c):
     * the entries start after raddr (READ) or raddr + atomic segment, and wrap at the ring end.
     *
     * @return SUCCESS, or LOC_LEN_ERR if the gather list is shorter than the data, or REM_INV_REQ_ERR /
     *         GENERAL_ERR as libmlx5 for opcodes / QP types that cannot scatter
     */
    WcStatus copyToSendWqe(final int wqeCounter, final MemorySegment src, final long srcOffset, final int size)
    {
        if (type != QpType.RC)
        {
            return WcStatus.GENERAL_ERR;
        }
        final long ctrl = ((long) wqeCounter << SendQueue.MLX5_SEND_WQE_SHIFT) & ringMask;
        final int opcode = Be.be32(ring, ctrl + CtrlSeg.OPMOD_IDX_OPCODE_OFFSET) & 0xff;
        final int ds = Be.be32(ring, ctrl + CtrlSeg.QPN_DS_OFFSET) & CtrlSeg.MAX_DS;
        final int skip;
        switch (opcode)
        {
            case MLX5_OPCODE_RDMA_READ -> skip = 2;
            case MLX5_OPCODE_ATOMIC_CS, MLX5_OPCODE_ATOMIC_FA -> skip = 3;
            case MLX5_OPCODE_ATOMIC_MASKED_CS -> skip =
                (Be.be32(ring, ctrl) >>> 24) == Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_64 ? 4 : 3;
            case MLX5_OPCODE_ATOMIC_MASKED_FA -> skip = 3;
            default ->
            {
                return WcStatus.REM_INV_REQ_ERR;
            }
        }
        return Scatter.copy(ring, ringMask, ctrl + ((long) skip << 4), ds - skip, src, srcOffset, size);
    }

    // ------------------------------------------------------------------------------------------------ RawSendQueue

    /** The send ring, for {@link RawSendQueue}, which writes raw packet WQEs into this queue. */
    MemorySegment rawRing()
    {
        return ring;
    }

    SendQueue rawSlots()
    {
        return sq;
    }

    WqeWriter rawWriter()
    {
        return writer;
    }

    /**
     * A WQE {@link RawSendQueue} wrote at {@code ctrl} with {@code ds} units: the ctrl segment (written last, with
     * this queue's signaling and fence rules), the slot, the pending doorbell, and a ring for {@link SendFlags#RING}.
     */
    void commitRaw(final long ctrl, final int ds, final int opcode, final long wrId, final int flags)
    {
        finish(ctrl, ds, opcode, 0, wrId, flags);
    }

    /**
     * Makes the calling thread the owner of this queue's group: this queue, the DirectCqs it is attached to, and
     * every queue attached to those.
     * Use it to hand the group to another thread
     * (for example a dedicated poller) after the previous owner has stopped using it; the hand-over itself must be
     * a happens-before edge ({@link Thread#start()}, a concurrent queue, a volatile write and read), because the
     * queues' counters are plain fields. Only {@code -Dmlx5j.debug=true} checks ownership; without it this records
     * the owner and nothing reads it.
     *
     * @return this
     */
    public DirectSendQueue claim()
    {
        ownership.claim();
        return this;
    }

    @Override
    public String toString()
    {
        return "DirectSendQueue(" + type + " qpn 0x" + Integer.toHexString(qpn) + ")";
    }
}
