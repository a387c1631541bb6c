// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.bindings.IbvQpAttr;
import io.mlx5j.bindings.IbvQpInitAttr;
import io.mlx5j.bindings.Verbs;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.doorbell.BlueFlameRegister;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.doorbell.DoorbellRecord;
import io.mlx5j.doorbell.SendDoorbell;
import io.mlx5j.verbs.QpRing;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.verbs.VerbsException;
import io.mlx5j.verbs.internal.QpStateListener;
import io.mlx5j.verbs.internal.VerbsAccess;
import io.mlx5j.wqe.CtrlSeg;
import io.mlx5j.wqe.SendRing;
import io.mlx5j.wqe.WqeWriter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import static io.mlx5j.bindings.CTypes.C_INT;

/**
 * The send ring of one QP, shared by every queue that posts WQEs into it: {@link io.mlx5j.direct.SendQueue} (RC, UC,
 * UD) and {@link io.mlx5j.raw.RawSendQueue} (raw packets, over the same SendQueue's core). It holds what a post needs
 * once its body is written: the ring memory and its one liveness check, the WQEBB slots ({@link SendRing}: producer
 * counter, wqe_counter, completion tracking), the ctrl segment with the QP's signaling and fence rules, the pending
 * doorbell and its ring ({@link SendDoorbell}: doorbell record, then BlueFlame or the 8-byte doorbell, as libmlx5's
 * post_send_db), and the thread group with the close guard of {@code -Dmlx5j.debug=true}. The queues write the
 * segments between ctrl and the commit; they own the work-request state (staging, encoders) and the public API.
 * <p>
 * Which BlueFlame register the core rings, and whether it is locked, is decided by the queue that creates it
 * ({@code SendQueue.of}, through {@link BlueFlameRegisters}); the core only rings it.
 * <p>
 * <b>Close rule</b> (the SendQueue class comment): {@link #liveRing()} checks once per post that the ring is alive,
 * and the stores that follow go by address. Confined to the queue's thread, together with the CqPoller that retires
 * its WQEs.
 */
public final class SendRingCore
{
    private static final VerbsAccess VERBS = VerbsAccess.get();

    private final QueuePair qp;
    private final Object owner;
    private final int qpn;
    private final MemorySegment ring;
    /** The ring's address for the posts' unchecked stores ({@link #liveRing()}) and its arena's scope. */
    private final long ringBase;
    private final MemorySegment.Scope ringScope;
    private final SendRing sq;
    private final WqeWriter writer;
    private final SendDoorbell doorbell;
    private final int sqSignalBits;

    /** Posted but not rung (the last of them is {@link SendRing#lastCtrlOffset()} / {@link SendRing#lastDs()}). */
    private int pending;
    private int signalEvery;
    private int unsignaled;
    private Ownership ownership;
    /**
     * A close of the QP was requested (CqPoller.closeAsync): set once, by any thread, with a release store
     * ({@link #CLOSE_REQUESTED}); read by the posts' {@link #liveRing()} with an opaque load, which costs what a plain
     * load costs and cannot be hoisted out of the caller's posting loop.
     */
    private boolean closeRequested;
    private static final VarHandle CLOSE_REQUESTED;

    static
    {
        try
        {
            CLOSE_REQUESTED = MethodHandles.lookup().findVarHandle(SendRingCore.class, "closeRequested",
                boolean.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The ring core of one send queue; confined to its posting thread.
     *
     * @param owner the queue this core belongs to: the member of its thread group, named in messages
     * @param rings {@code qp}'s rings, checked by {@link #checkRings}
     * @param bf    the BlueFlame register the queue acquired for {@code qp}
     * @param qp the QP
     * @param mode how posts ring the doorbell
     */
    public SendRingCore(final QueuePair qp, final Object owner, final QpRing rings, final BlueFlameRegister bf,
        final DoorbellMode mode)
    {
        this.qp = qp;
        this.owner = owner;
        this.qpn = rings.qpn();
        this.ring = rings.sq();
        this.ringBase = ring.address();
        this.ringScope = ring.scope();
        this.sq = new SendRing(rings.sqWqeCnt());
        this.writer = new WqeWriter(Math.min(rings.sqWqeCnt(), 16));
        this.doorbell = new SendDoorbell(ring, new DoorbellRecord(rings.dbrec()), bf, mode);
        this.sqSignalBits = queriedSqSigAll(qp) ? CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE : 0;
        this.ownership = new Ownership(owner);
        VERBS.addStateListener(qp, new StateFollower());
        if (Ownership.DEBUG)
        {
            // the close rule: a close of the QP from another live thread throws and leaves it open
            VERBS.addCloseGuard(qp, resource -> ownership.checkClose(resource));
        }
    }

    /**
     * {@code qp}'s rings if its send queue can be posted from Java: 64-byte WQEBBs, at least one, and a doorbell
     * record and BlueFlame register in the ring's scope ({@link #ring()} checks the ring's scope once and then stores
     * to the record and the register by address).
     *
     * @param qp the QP
     * @return the rings
     */
    public static QpRing checkRings(final QueuePair qp)
    {
        final QpRing rings = qp.rings();
        if (rings.sqStride() != SendRing.MLX5_SEND_WQE_BB || rings.sqWqeCnt() < 1)
        {
            throw new IllegalArgumentException(qp + " has no usable send queue (wqe_cnt " + rings.sqWqeCnt() +
                ", stride " + rings.sqStride() + ")");
        }
        final MemorySegment.Scope scope = rings.sq().scope();
        if (!rings.dbrec().scope().equals(scope) || !rings.bfReg().scope().equals(scope))
        {
            throw new IllegalArgumentException(qp + ": its doorbell record and BlueFlame register must share the " +
                "send ring's scope");
        }
        return rings;
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
     * {@return the ring's address, for one post's stores by address, after the one liveness check of that post: throws
     * if the QP is closed (its arena, which scopes the ring, is closed first)} Why not the ring segment's own checks:
     * each store through it pays bounds, alignment and session checks, six to eight times per WQE, and the compiled
     * post then stays too large for C2 to inline into the caller's loop (Mlx5jPostBench.rdmaWriteBatch8 fastest fork
     * iterations 16.1-24.1 ns/WQE through the segment, 13.6-21.5 through this; rdmaWrite 22.7-31.5 and 19.8-22.7 ns).
     * What keeps it safe is the close rule: a close from another thread cannot run between this check and the stores.
     * A post after a close request (CqPoller.closeAsync) throws too: the QP is on its way to ERR and destruction.
     *
     * @throws IllegalStateException if the QP is closed or a close of it was requested
     */
    public long liveRing()
    {
        if ((boolean) CLOSE_REQUESTED.getOpaque(this) || !ringScope.isAlive())
        {
            throw closedOrClosing();
        }
        return ringBase;
    }

    /**
     * The exception of a post on a closed QP or one whose close was requested (off the posts' path).
     *
     * @return the exception, naming which of the two it is
     */
    public IllegalStateException closedOrClosing()
    {
        return new IllegalStateException(ringScope.isAlive()
            ? owner + ": the QP is closing (a close was requested: CqPoller.closeAsync), it takes no more posts"
            : owner + ": the QP is closed");
    }

    /** {@return whether a close of the QP was requested (CqPoller.closeAsync); any thread} */
    public boolean closeRequested()
    {
        return (boolean) CLOSE_REQUESTED.getVolatile(this);
    }

    /** The scope check alone, for {@link #ring()}: WQEs posted before a close request are still rung. */
    private void aliveRing()
    {
        if (!ringScope.isAlive())
        {
            throw new IllegalStateException(owner + ": the QP is closed");
        }
    }

    /**
     * A post's last steps once its body is written at {@code ctrl} ({@code ds} units): the ctrl segment (written last,
     * when ds is known, with the signaling and fence rules of {@code flags}), the slot, the pending doorbell, and a
     * ring for {@code SendFlags.RING}. {@code base} is the post's {@link #liveRing}.
     *
     * @param base the ring's address, from this post's liveness check
     * @param ctrl ring offset of the ctrl segment
     * @param ds the WQE's size in 16-byte units
     * @param opcode the MLX5 opcode
     * @param imm immediate data or invalidate rkey
     * @param wrId the caller's id
     * @param flags the post's send flags
     */
    public void commit(final long base, final long ctrl, final int ds, final int opcode, final int imm,
        final long wrId, final int flags)
    {
        // one small method (72 bytecodes, as SendQueue.finish was 116): C2 inlines it into every one-call post
        // (FreqInlineSize 325), so composing the core costs the posts no call
        CtrlSeg.put(base + ctrl, CtrlSeg.opmodIdxOpcode(0, sq.wqeIndex(), opcode), CtrlSeg.qpnDs(qpn, ds),
            fmCeSe(flags), imm);
        sq.commit(ds, wrId);
        pending++;
        if ((flags & SendFlags.RING) != 0)
        {
            ringPending();     // this post has checked liveness (base)
        }
    }

    /**
     * The staging path's commit: the WQE at the writer's ctrl offset is complete, ctrl segment included (written
     * through {@link #writer()} with {@link #fmCeSe} and {@link #wqeIndex()}); takes the slot and pends the doorbell.
     * The caller rings for {@code SendFlags.RING} ({@link #ring()}, which checks liveness).
     *
     * @param ds the WQE's size in 16-byte units
     * @param wrId the caller's id
     */
    public void committed(final int ds, final long wrId)
    {
        sq.commit(ds, wrId);
        pending++;
    }

    /**
     * The ctrl segment's fm_ce_se for a WQE posted with {@code flags}, counting selective signaling.
     *
     * @param flags the post's send flags
     * @return the fm_ce_se byte
     */
    public int fmCeSe(final int flags)
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

    /**
     * Selective signaling: every n-th WQE signaled (0: off); counting restarts.
     *
     * @param n the period; 0 turns it off
     */
    public void signalEvery(final int n)
    {
        signalEvery = n;
        unsignaled = 0;
    }

    /**
     * Hand everything posted since the last ring to the NIC with one doorbell: the doorbell record, then BlueFlame
     * (a single WQE that fits) or the 8-byte doorbell of the last WQE, as libmlx5's post_send_db.
     *
     * @return the number of WQEs rung (0: nothing was pending, nothing was written)
     */
    public int ring()
    {
        if (pending == 0)
        {
            return 0;
        }
        aliveRing();     // this ring's one liveness check (the close rule, as for the posts)
        return ringPending();
    }

    /**
     * {@link #ring()} for a caller that has checked liveness in this post: the doorbell record store, the 8-byte
     * doorbell and the BlueFlame blocks go by address ({@link SendDoorbell#ringLive}; the record and the register
     * share the ring's scope, which {@link #checkRings} checks).
     */
    private int ringPending()
    {
        final int n = pending;
        if (n == 0)
        {
            return 0;
        }
        doorbell.ringLive(n, sq.lastCtrlOffset(), sq.lastDs(), sq.producerCounter()); // the last WQE posted
        pending = 0;
        return n;
    }

    /**
     * Follows the QP through RESET ({@link QpStateListener}): libmlx5 zeroes the send doorbell word there and the
     * device restarts its wqe_counter, so the ring restarts at 0, refused while WQEs are outstanding (their CQEs could
     * still be in the CQ, which libmlx5 does not clean for the Java data path). Runs on the thread that resets the
     * QP, which the queue's thread rule orders with the posting thread.
     */
    private final class StateFollower implements QpStateListener
    {
        @Override
        public void beforeReset(final Object qp)
        {
            final int n = sq.outstanding();
            if (n != 0)
            {
                throw new IllegalStateException(qp + " cannot move to RESET: " + n + " WQEBBs of " + owner +
                    " are outstanding, and libmlx5 does not remove their CQEs from a CQ polled by the Java data " +
                    "path; move the QP to ERR (toError()), poll their flush completions, then reset");
            }
        }

        @Override
        public void afterReset()
        {
            sq.reset();
            pending = 0;
            unsignaled = 0;
        }

        @Override
        public void afterRtr()
        {
            // the send doorbell word is left alone at RTR
        }

        @Override
        public void closeRequested()
        {
            CLOSE_REQUESTED.setRelease(SendRingCore.this, true);
        }
    }

    /**
     * A send CQE with this wqe_counter arrived: retire up to that WQE and return its wr_id.
     *
     * @param wqeCounter the CQE's wqe_counter
     * @return the WQE's wr_id
     */
    public long complete(final int wqeCounter)
    {
        return sq.complete(wqeCounter);
    }

    /**
     * {@return the send ring's memory (mlx5dv_qp.sq.buf), for the checked accesses of the staging path and the CQ side}
     */
    public MemorySegment memory()
    {
        return ring;
    }

    /** {@return the ring's WQEBB slots: claim a WQE's room before writing it} */
    public SendRing slots()
    {
        return sq;
    }

    /** {@return the staging path's WQE writer over {@link #memory()}} */
    public WqeWriter writer()
    {
        return writer;
    }

    /** {@return wqe_index of the next WQE (the ctrl segment's opmod_idx_opcode)} */
    public int wqeIndex()
    {
        return sq.wqeIndex();
    }

    /** {@return the QP number} */
    public int qpn()
    {
        return qpn;
    }

    /** {@return the QP} */
    public QueuePair queuePair()
    {
        return qp;
    }

    /** {@return how posts ring the doorbell} */
    public DoorbellMode mode()
    {
        return doorbell.mode();
    }

    /**
     * WQEs posted but not rung yet.
     *
     * @return the number of WQEs
     */
    public int pending()
    {
        return pending;
    }

    /** {@return the thread group of the owning queue ({@code -Dmlx5j.debug=true} checks)} */
    public Ownership ownership()
    {
        return ownership;
    }

    /**
     * The owning queue moves to another group (a CqPoller detach).
     *
     * @param group the new group
     */
    public void ownership(final Ownership group)
    {
        this.ownership = group;
    }
}
