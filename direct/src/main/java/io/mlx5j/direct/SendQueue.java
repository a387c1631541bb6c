// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.direct.internal.BlueFlameRegisters;
import io.mlx5j.direct.internal.FastSendEncoder;
import io.mlx5j.direct.internal.Ownership;
import io.mlx5j.direct.internal.QueueBridge;
import io.mlx5j.direct.internal.SendOpcodeRules;
import io.mlx5j.direct.internal.SendScatter;
import io.mlx5j.direct.internal.SendRingCore;
import io.mlx5j.direct.internal.SendStaging;
import io.mlx5j.doorbell.BlueFlameRegister;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.doorbell.SendDoorbell;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.QpCapabilities;
import io.mlx5j.verbs.QpRing;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.SendRing;
import io.mlx5j.wqe.WcStatus;
import io.mlx5j.wqe.WqeWriter;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.direct.internal.SendOpcodeRules.CAS;
import static io.mlx5j.direct.internal.SendOpcodeRules.FAA;
import static io.mlx5j.direct.internal.SendOpcodeRules.MASKED_CAS_32;
import static io.mlx5j.direct.internal.SendOpcodeRules.MASKED_CAS_64;
import static io.mlx5j.direct.internal.SendOpcodeRules.MASKED_FAA_32;
import static io.mlx5j.direct.internal.SendOpcodeRules.MASKED_FAA_64;
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
 * #nop} and {@link #udSend}. A DCI posts through the staging form with {@link #dcDestination} per WQE. Several
 * SGEs or inline pieces: the staging form
 * <pre>{@code
 * sq.begin(wrId, Mlx5Opcode.MLX5_OPCODE_SEND, SendFlags.SIGNALED)
 *   .sge(addr0, lkey, len0).sge(addr1, lkey, len1);
 * if (!sq.post()) { ... ring full: poll, then post() again (the staged WR is kept) ... }
 * sq.ring();
 * }</pre>
 * Every post returns false, writing nothing, when the ring lacks room; slots are freed only by completions the
 * attached {@link CqPoller} has seen, so a WQE is never overwritten before its completion (or a later signaled
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
 * polled still hold the ring (nothing is written; poll the {@link CqPoller}, then retry). It is the only condition
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
 *     memory (LifetimeTest.postingOnAClosedQueueThrowsInsteadOfReturningFalse, both post paths).</li>
 * <li><b>Invalid work request</b>: {@link IllegalArgumentException}, see Errors.</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * A send queue is confined to one thread, and that thread must also poll the CQ that retires its WQEs (or the two
 * must be serialised by the caller): the counters are plain fields, as in libmlx5 under its QP lock. With
 * {@code -Dmlx5j.debug=true} every call checks that the queue and the {@link CqPoller}s it is attached to are used
 * from one thread, and {@link #claim()} hands them to another (a static final flag: free when off). Queues of
 * different QPs may be posted from different threads whatever their BlueFlame registers: by default
 * ({@link RegisterMode#AUTO}) a register libmlx5 may give to several QPs is locked for all of them, as libmlx5 locks
 * a shared bfreg; {@link #of(QueuePair, DoorbellMode, RegisterMode)} overrides the choice, and
 * {@link #registerMode()} and {@link #toString()} show it.
 * <p>
 * <b>Close rule.</b> Close the QP (or anything whose close closes it: its CQs, its PD, the Context) from the thread
 * that posts to it, or after that thread has stopped posting, with a happens-before edge between them (as for
 * {@link #claim()}). Why: a one-call post checks once that the QP is open and then writes the WQE through the
 * process-wide segment, without the ring segment's per-store checks. A close from the posting thread is
 * always safe: the next post throws {@link IllegalStateException}. A close from another thread in the middle of a
 * post would free the ring under it. With {@code -Dmlx5j.debug=true}, closing the QP from a thread other than the
 * queue's (while that thread is alive and has not handed the queue over with {@link #claim()}) throws and leaves
 * the QP open. The doorbell goes the same way: after the post's check (or {@link #ring()}'s own), the doorbell
 * record, the 8-byte doorbell and the BlueFlame blocks are stored by address ({@link SendDoorbell#ringLive}; the
 * record and the register are scoped to the QP like the ring). The staging form and the poller still access the
 * rings through their QP-scoped segments.
 * <p>
 * <b>Closing from another thread</b> (the rdma_cm thread that saw DISCONNECTED): {@link CqPoller#closeAsync}, from
 * any thread. From the request on, every post of this queue throws {@link IllegalStateException} ("the QP is
 * closing"); {@link #ring()} still rings what was posted before it. The queue's thread then moves the QP to ERR,
 * polls the flush completion of every WQE still outstanding and destroys the QP, inside its poll calls
 * ({@link QpClose}).
 *
 * <h2>Parts</h2>
 * This class holds the public API and the RC/UC/UD work-request state; the rest is one concept per class:
 * {@link SendRingCore} (the ring: slots, ctrl segment with the signaling rules, pending doorbell, liveness check,
 * thread group; composed by {@link io.mlx5j.raw.RawSendQueue} too), {@link SendStaging} (the multi-segment work
 * request being staged, its size and its segments), {@link SendOpcodeRules} (which opcodes each QP type carries,
 * one table row per opcode), {@link FastSendEncoder} (the one-call posts' encoders) and {@link SendScatter} (READ
 * and atomic responses copied into the WQE's gather list when their completion is polled).
 *
 * <h2>Errors</h2>
 * Programming errors throw {@link IllegalArgumentException} (too many SGEs, inline data larger than the QP allows,
 * an opcode the QP type cannot carry, INLINE on READ/atomics) or {@link IllegalStateException} (post without begin,
 * the QP closed: its ring segments are scoped to it).
 */
public final class SendQueue
{
    static
    {
        QueueBridge.sendCores(queue -> ((SendQueue) queue).core);
    }

    /** Posts refused because the ring was full; counted on that path only ({@link #refusedFull()}). */
    private long refusedFull;
    private final QueuePair qp;
    private final QpType type;
    private final int qpn;
    /** The ring, its slots, signaling, doorbell and thread group, shared with a RawSendQueue over this queue. */
    private final SendRingCore core;
    private final MemorySegment ring;
    private final long ringMask;
    private final SendRing sq;
    private final WqeWriter writer;
    private final RegisterMode registerMode;
    private final int maxSge;
    private final int maxInline;
    private final SendStaging staging;
    private final FastSendEncoder fast;

    private SendQueue(final QueuePair qp, final DoorbellMode mode, final RegisterMode registerMode)
    {
        this.qp = qp;
        this.type = qp.type();
        if (type == QpType.DCT)
        {
            throw new IllegalArgumentException(qp + " is a DC target: it has no send queue (post from a DCI)");
        }
        final QpRing rings = SendRingCore.checkRings(qp);
        final BlueFlameRegisters.Grant grant = BlueFlameRegisters.acquire(qp, rings, registerMode);
        this.registerMode = grant.mode();
        final BlueFlameRegister bf = grant.register();
        this.core = new SendRingCore(qp, this, rings, bf, mode);
        this.qpn = core.qpn();
        this.ring = core.memory();
        this.ringMask = ring.byteSize() - 1;
        this.sq = core.slots();
        this.writer = core.writer();
        final QpCapabilities caps = qp.capabilities();
        this.maxSge = caps.maxSendSge();
        this.maxInline = caps.maxInlineData();
        this.staging = new SendStaging(qp, maxSge, maxInline);
        this.fast = new FastSendEncoder(ring, sq, writer, type, maxSge, maxInline);
    }

    /**
     * A send queue over {@code qp}'s ring, its BlueFlame register locked or not as libmlx5 set it up
     * ({@link RegisterMode#AUTO}). One per QP.
     *
     * @param qp the QP, on an mlx5 device
     * @param mode how posts ring the doorbell
     * @return the queue
     * @throws IllegalStateException if the QP is closed or not on an mlx5 device
     */
    public static SendQueue of(final QueuePair qp, final DoorbellMode mode)
    {
        return new SendQueue(qp, mode, RegisterMode.AUTO);
    }

    /**
     * A send queue with an explicit register choice.
     *
     * @param registerMode {@link RegisterMode#AUTO} (the default of {@link #of(QueuePair, DoorbellMode)}), or
     *                     {@link RegisterMode#DEDICATED} / {@link RegisterMode#LOCKED} to override libmlx5's rules;
     *                     see {@link RegisterMode} for each one's thread-safety contract
     * @param qp the QP, on an mlx5 device
     * @param mode how posts ring the doorbell
     * @throws IllegalStateException if the register cannot be shared as asked (see {@link RegisterMode#DEDICATED})
     * @return the queue
     */
    public static SendQueue of(final QueuePair qp, final DoorbellMode mode, final RegisterMode registerMode)
    {
        return new SendQueue(qp, mode, registerMode);
    }

    /**
     * A send queue whose register is {@link RegisterMode#LOCKED} or {@link RegisterMode#AUTO}.
     *
     * @param sharedRegister true for {@link RegisterMode#LOCKED}, false for {@link RegisterMode#AUTO} (which locks
     *                       every register libmlx5 may share)
     * @param qp the QP, on an mlx5 device
     * @param mode how posts ring the doorbell
     * @return the queue
     */
    public static SendQueue of(final QueuePair qp, final DoorbellMode mode, final boolean sharedRegister)
    {
        return new SendQueue(qp, mode, sharedRegister ? RegisterMode.LOCKED : RegisterMode.AUTO);
    }

    /**
     * Selective signaling: every n-th WQE is posted SIGNALED even without the flag, so unsignaled WQEs get retired.
     * 0 turns it off. Counting restarts at every signaled WQE.
     *
     * @param n the signaling period; 0 turns it off
     * @return this queue
     */
    public SendQueue signalEvery(final int n)
    {
        if (n < 0)
        {
            throw new IllegalArgumentException("signalEvery must be >= 0: " + n);
        }
        core.signalEvery(n);
        return this;
    }

    // ------------------------------------------------------------------------------------------------ one-call posts

    /**
     * Posts a SEND of one buffer.
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param len the local buffer's length in bytes
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean send(final long wrId, final long laddr, final int lkey, final int len, final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_SEND, 0, false, 0, 0, laddr, lkey, len, flags) ||
            begin(wrId, MLX5_OPCODE_SEND, flags).sge(laddr, lkey, len).post();
    }

    /**
     * Posts a SEND with immediate data.
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param len the local buffer's length in bytes
     * @param imm the immediate data, as a number
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean sendImm(final long wrId, final long laddr, final int lkey, final int len, final int imm,
        final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_SEND_IMM, imm, false, 0, 0, laddr, lkey, len, flags) ||
            begin(wrId, MLX5_OPCODE_SEND_IMM, flags).imm(imm).sge(laddr, lkey, len).post();
    }

    /**
     * Posts a SEND with invalidate: the responder invalidates {@code invRkey}.
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param len the local buffer's length in bytes
     * @param invRkey the rkey the responder invalidates
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean sendInv(final long wrId, final long laddr, final int lkey, final int len, final int invRkey,
        final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_SEND_INVAL, invRkey, false, 0, 0, laddr, lkey, len, flags) ||
            begin(wrId, MLX5_OPCODE_SEND_INVAL, flags).imm(invRkey).sge(laddr, lkey, len).post();
    }

    /**
     * Posts an RDMA WRITE of one local buffer to {@code raddr}.
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param len the local buffer's length in bytes
     * @param raddr the remote address
     * @param rkey the remote buffer's rkey
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean rdmaWrite(final long wrId, final long laddr, final int lkey, final int len, final long raddr,
        final int rkey, final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_RDMA_WRITE, 0, true, raddr, rkey, laddr, lkey, len, flags) ||
            begin(wrId, MLX5_OPCODE_RDMA_WRITE, flags).remote(raddr, rkey).sge(laddr, lkey, len).post();
    }

    /**
     * Posts an RDMA WRITE with immediate data, which consumes a receive WQE at the responder.
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param len the local buffer's length in bytes
     * @param raddr the remote address
     * @param rkey the remote buffer's rkey
     * @param imm the immediate data, as a number
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean rdmaWriteImm(final long wrId, final long laddr, final int lkey, final int len, final long raddr,
        final int rkey, final int imm, final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_RDMA_WRITE_IMM, imm, true, raddr, rkey, laddr, lkey, len, flags) ||
            begin(wrId, MLX5_OPCODE_RDMA_WRITE_IMM, flags).remote(raddr, rkey).imm(imm).sge(laddr, lkey, len).post();
    }

    /**
     * Posts an RDMA READ of {@code len} bytes from {@code raddr} into the local buffer.
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param len the local buffer's length in bytes
     * @param raddr the remote address
     * @param rkey the remote buffer's rkey
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
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
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param raddr the remote address
     * @param rkey the remote buffer's rkey
     * @param compare the compare value
     * @param swap the swap value
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean compareSwap(final long wrId, final long laddr, final int lkey, final long raddr, final int rkey,
        final long compare, final long swap, final int flags)
    {
        return begin(wrId, MLX5_OPCODE_ATOMIC_CS, flags).remote(raddr, rkey).compareSwapOperands(compare, swap)
            .sge(laddr, lkey, 8).post();
    }

    /**
     * 64-bit fetch and add on a host-order word; the old remote value lands in the 8 bytes at laddr, in host order.
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param raddr the remote address
     * @param rkey the remote buffer's rkey
     * @param add the value to add
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean fetchAdd(final long wrId, final long laddr, final int lkey, final long raddr, final int rkey,
        final long add, final int flags)
    {
        return begin(wrId, MLX5_OPCODE_ATOMIC_FA, flags).remote(raddr, rkey).fetchAddOperand(add)
            .sge(laddr, lkey, 8).post();
    }

    /**
     * Masked compare and swap on 8 bytes: compares under compareMask, swaps the bits of swapMask.
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param raddr the remote address
     * @param rkey the remote buffer's rkey
     * @param compare the compare value
     * @param compareMask the bits that take part in the comparison
     * @param swap the swap value
     * @param swapMask the bits of {@code swap} that are written
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean maskedCompareSwap64(final long wrId, final long laddr, final int lkey, final long raddr,
        final int rkey, final long compare, final long compareMask, final long swap, final long swapMask,
        final int flags)
    {
        begin(wrId, MLX5_OPCODE_ATOMIC_MASKED_CS, flags).remote(raddr, rkey);
        staging.operands(MASKED_CAS_64, swap, compare, swapMask, compareMask);
        return sge(laddr, lkey, 8).post();
    }

    /**
     * Masked fetch and add on 8 bytes: carries do not cross the bits set in fieldBoundary.
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param raddr the remote address
     * @param rkey the remote buffer's rkey
     * @param add the value to add
     * @param fieldBoundary carries do not cross the bits set here
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean maskedFetchAdd64(final long wrId, final long laddr, final int lkey, final long raddr,
        final int rkey, final long add, final long fieldBoundary, final int flags)
    {
        begin(wrId, MLX5_OPCODE_ATOMIC_MASKED_FA, flags).remote(raddr, rkey);
        staging.operands(MASKED_FAA_64, add, fieldBoundary, 0, 0);
        return sge(laddr, lkey, 8).post();
    }

    /**
     * Masked compare and swap on 4 bytes (old value lands in the 4 bytes at laddr).
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param raddr the remote address
     * @param rkey the remote buffer's rkey
     * @param compare the compare value
     * @param compareMask the bits that take part in the comparison
     * @param swap the swap value
     * @param swapMask the bits of {@code swap} that are written
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean maskedCompareSwap32(final long wrId, final long laddr, final int lkey, final long raddr,
        final int rkey, final int compare, final int compareMask, final int swap, final int swapMask, final int flags)
    {
        begin(wrId, MLX5_OPCODE_ATOMIC_MASKED_CS, flags).remote(raddr, rkey);
        staging.operands(MASKED_CAS_32, swap, compare, swapMask, compareMask);
        return sge(laddr, lkey, 4).post();
    }

    /**
     * Masked fetch and add on 4 bytes.
     *
     * @param wrId the caller's id, returned in the completion
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param raddr the remote address
     * @param rkey the remote buffer's rkey
     * @param add the value to add
     * @param fieldBoundary carries do not cross the bits set here
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean maskedFetchAdd32(final long wrId, final long laddr, final int lkey, final long raddr,
        final int rkey, final int add, final int fieldBoundary, final int flags)
    {
        begin(wrId, MLX5_OPCODE_ATOMIC_MASKED_FA, flags).remote(raddr, rkey);
        staging.operands(MASKED_FAA_32, add, fieldBoundary, 0, 0);
        return sge(laddr, lkey, 4).post();
    }

    /**
     * A WQE that does nothing but complete (ctrl segment only).
     *
     * @param wrId the caller's id, returned in the completion
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean nop(final long wrId, final int flags)
    {
        return postOne(wrId, MLX5_OPCODE_NOP, 0, false, 0, 0, 0, 0, 0, flags) ||
            begin(wrId, MLX5_OPCODE_NOP, flags).post();
    }

    /**
     * UD send to {@code remoteQpn} through {@code ah}'s address vector, with {@code remoteQkey}.
     *
     * @param wrId the caller's id, returned in the completion
     * @param ah the address handle of the destination
     * @param remoteQpn the destination QP number
     * @param remoteQkey the destination Q_Key
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param len the local buffer's length in bytes
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean udSend(final long wrId, final AddressHandle ah, final int remoteQpn, final int remoteQkey,
        final long laddr, final int lkey, final int len, final int flags)
    {
        return begin(wrId, MLX5_OPCODE_SEND, flags).destination(ah, remoteQpn, remoteQkey).sge(laddr, lkey, len)
            .post();
    }

    /**
     * UD send with immediate data.
     *
     * @param wrId the caller's id, returned in the completion
     * @param ah the address handle of the destination
     * @param remoteQpn the destination QP number
     * @param remoteQkey the destination Q_Key
     * @param laddr the local buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param len the local buffer's length in bytes
     * @param imm the immediate data, as a number
     * @param flags {@link SendFlags}
     * @return true if posted; false if the ring has no room (nothing was written)
     * @throws IllegalArgumentException if the work request is invalid for this QP (see Errors)
     * @throws IllegalStateException if the QP is closed
     */
    public boolean udSendImm(final long wrId, final AddressHandle ah, final int remoteQpn, final int remoteQkey,
        final long laddr, final int lkey, final int len, final int imm, final int flags)
    {
        return begin(wrId, MLX5_OPCODE_SEND_IMM, flags).destination(ah, remoteQpn, remoteQkey).imm(imm)
            .sge(laddr, lkey, len).post();
    }

    /**
     * The one-call posts' fast path ({@link FastSendEncoder}): true if the WQE was posted; false if the encoder
     * declined, and the caller then goes through the staging path (which throws the error or reports the full ring).
     */
    private boolean postOne(final long wrId, final int opcode, final int imm, final boolean remote, final long raddr,
        final int rkey, final long laddr, final int lkey, final int len, final int flags)
    {
        if (Ownership.DEBUG)
        {
            core.ownership().check(this);
        }
        final long base = core.liveRing();
        final int ds = (flags & SendFlags.INLINE) != 0
            ? fast.inline(base, opcode, remote, raddr, rkey, laddr, len, flags)
            : fast.gather(base, opcode, remote, raddr, rkey, laddr, lkey, len, flags);
        if (ds == 0)
        {
            return false;
        }
        staging.staged = false;     // a one-call post replaces whatever was staged, as begin() does
        core.commit(base, fast.ctrl(), ds, opcode, imm, wrId, flags);
        return true;
    }

    // ------------------------------------------------------------------------------------------------ staging form

    /**
     * Start staging a work request (replacing any staged one).
     *
     * @param mlx5Opcode one of {@link Mlx5Opcode}: NOP, SEND, SEND_IMM, SEND_INVAL, RDMA_WRITE, RDMA_WRITE_IMM,
     *                   RDMA_READ, ATOMIC_CS, ATOMIC_FA (masked atomics: use their one-call methods)
     * @param flags      {@link SendFlags}
     * @param wrId the caller's id, returned in the completion
     * @return this queue
     */
    public SendQueue begin(final long wrId, final int mlx5Opcode, final int flags)
    {
        if (Ownership.DEBUG)
        {
            core.ownership().check(this);
        }
        staging.begin(wrId, mlx5Opcode, flags);
        return this;
    }

    /**
     * Remote address and rkey (RDMA and atomics).
     *
     * @param raddr the remote address
     * @param rkey the remote buffer's rkey
     * @return this queue
     */
    public SendQueue remote(final long raddr, final int rkey)
    {
        staging.remote(raddr, rkey);
        return this;
    }

    /**
     * Immediate data (SEND_IMM, RDMA_WRITE_IMM) or the rkey to invalidate (SEND_INVAL), as a number.
     *
     * @param immOrRkey the immediate data, or the rkey to invalidate
     * @return this queue
     */
    public SendQueue imm(final int immOrRkey)
    {
        staging.imm = immOrRkey;
        return this;
    }

    /**
     * Operands of ATOMIC_CS.
     *
     * @param compare the compare value
     * @param swap the swap value
     * @return this queue
     */
    public SendQueue compareSwapOperands(final long compare, final long swap)
    {
        staging.operands(CAS, swap, compare, 0, 0);
        return this;
    }

    /**
     * Operand of ATOMIC_FA.
     *
     * @param add the value to add
     * @return this queue
     */
    public SendQueue fetchAddOperand(final long add)
    {
        staging.operands(FAA, add, 0, 0, 0);
        return this;
    }

    /**
     * DC target of the staged WR (DCI queues): the AH's address vector (the DCT's port), the DCT number and its DC
     * access key go into the WQE's datagram segment, the bytes libmlx5's mlx5dv_wr_set_dc_addr writes. Each WQE may
     * name another DCT. Allocates nothing (the AH's vector is looked up once per AH change). Confined to the
     * queue's thread.
     *
     * @param ah the address handle of the DCT's port
     * @param dctn the DCT number ({@code QueuePair.qpn()} of the DCT after RTR)
     * @param dcKey the DCT's DC access key
     * @return this queue
     */
    public SendQueue dcDestination(final AddressHandle ah, final int dctn, final long dcKey)
    {
        staging.dcDestination(ah, dctn, dcKey);
        return this;
    }

    /**
     * UD destination: the AH's address vector (as libmlx5 built it), remote QPN and Q_Key.
     *
     * @param ah the address handle of the destination
     * @param remoteQpn the destination QP number
     * @param remoteQkey the destination Q_Key
     * @return this queue
     */
    public SendQueue destination(final AddressHandle ah, final int remoteQpn, final int remoteQkey)
    {
        staging.destination(ah, remoteQpn, remoteQkey);
        return this;
    }

    /**
     * XRC_SEND QPs: the remote XRC SRQ (at the target, in the peer's XRC domain) that this and every later WQE names
     * until the next call, in the XRC segment after ctrl (as libmlx5's {@code ibv_wr_set_xrc_srqn} or
     * {@code wr.qp_type.xrc.remote_srqn} per work request). Both posting forms use it; NOP carries no XRC segment.
     * A post on an XRC_SEND QP before the first call throws {@link IllegalStateException}.
     *
     * @param srqn the remote XRC SRQ number (24 bits)
     * @return this queue
     * @throws IllegalStateException if the QP is not an XRC_SEND QP
     * @throws IllegalArgumentException if {@code srqn} does not fit 24 bits
     */
    public SendQueue xrcSrqn(final int srqn)
    {
        if (type != QpType.XRC_SEND)
        {
            throw new IllegalStateException("xrcSrqn is for XRC_SEND QPs; " + qp + " is " + type);
        }
        if ((srqn & ~0xffffff) != 0)
        {
            throw new IllegalArgumentException("XRC SRQ number 0x" + Integer.toHexString(srqn) + " exceeds 24 bits");
        }
        staging.xrcSrqn = srqn;
        fast.xrcSrqn = srqn;
        return this;
    }

    /**
     * One gather entry (or, with {@link SendFlags#INLINE}, one piece of inline payload: lkey ignored). Zero-length
     * entries are dropped, as libmlx5 drops them.
     *
     * @param addr the buffer's address
     * @param lkey the lkey of the local buffer's memory region
     * @param len the local buffer's length in bytes
     * @return this queue
     */
    public SendQueue sge(final long addr, final int lkey, final int len)
    {
        staging.sge(addr, lkey, len);
        return this;
    }

    /**
     * Write the staged work request into the ring (it is not rung yet, unless {@link SendFlags#RING}).
     *
     * @return false if the ring has no room: nothing was written and the WR stays staged for another post()
     */
    public boolean post()
    {
        if (Ownership.DEBUG)
        {
            core.ownership().check(this);
        }
        final SendStaging st = staging;
        if (!st.staged)
        {
            throw new IllegalStateException("post() without begin(): nothing staged on " + this);
        }
        if (core.closeRequested())
        {
            st.staged = false;
            throw core.closedOrClosing();    // the ring's segment would take the WQE: refuse it like a one-call post
        }
        // a WR that fails validation is dropped (the next post needs a new begin); one that finds the ring full is
        // kept staged for another post()
        st.staged = false;
        final int ds = st.validate(writer.maxDs());
        final long base = core.liveRing();  // the stores by address of writeAt, as the one-call posts'
        final long ctrl = sq.claim(SendRing.numWqebb(ds));
        if (ctrl == SendRing.NO_SPACE)
        {
            st.staged = true;
            refusedFull++;
            return false;
        }
        if (st.writeAt(base, ctrl, ringMask) != 0)
        {
            // the common shapes (datagram, raddr, gather entries): the ctrl segment, slot and ring of a one-call post
            core.commit(base, ctrl, ds, st.opcode, st.imm, st.wrId, st.flags);
            return true;
        }
        final WqeWriter w = writer.wrap(ring, ctrl);
        final int opmod = st.write(w);
        w.ctrl(opmod, st.opcode, sq.wqeIndex(), qpn, core.fmCeSe(st.flags), st.imm);
        core.committed(w.ds(), st.wrId);
        if ((st.flags & SendFlags.RING) != 0)
        {
            core.ring();
        }
        return true;
    }

    /**
     * Hand everything posted since the last ring to the NIC with one doorbell: the doorbell record, then BlueFlame
     * (a single WQE that fits) or the 8-byte doorbell of the last WQE, as libmlx5's post_send_db.
     *
     * @return the number of WQEs rung (0: nothing was pending, nothing was written)
     */
    public int ring()
    {
        if (Ownership.DEBUG)
        {
            core.ownership().check(this);
        }
        return core.ring();
    }

    /**
     * WQEBBs free in the ring.
     *
     * @return the number of WQEBBs
     */
    public int freeWqebb()
    {
        return sq.freeWqebb();
    }

    /**
     * WQEBBs posted whose completions have not been polled yet.
     *
     * @return the number of WQEBBs
     */
    public int outstanding()
    {
        return sq.outstanding();
    }

    /**
     * WQEs posted but not rung yet.
     *
     * @return the number of WQEs
     */
    public int pending()
    {
        return core.pending();
    }

    /** {@return free-running WQEBB producer counter (its low 16 bits are in the doorbell record after a ring)} */
    public int producerCounter()
    {
        return sq.producerCounter();
    }

    /** {@return the QP this queue posts to} */
    public QueuePair queuePair()
    {
        return qp;
    }

    /**
     * The ring core this queue posts through: its slots, ctrl segment rules, doorbell and thread group. Not public:
     * {@link io.mlx5j.raw.RawSendQueue}, which composes it to write raw-packet WQEs into the same ring, gets it through
     * {@link QueueBridge}.
     */
    SendRingCore core()
    {
        return core;
    }

    /** {@return the QP number} */
    public int qpn()
    {
        return qpn;
    }

    /** {@return how posts ring the doorbell} */
    public DoorbellMode mode()
    {
        return core.mode();
    }

    /**
     * {@return how this queue writes its BlueFlame register: never {@link RegisterMode#AUTO} (that is resolved when
     * built)}
     */
    public RegisterMode registerMode()
    {
        return registerMode;
    }

    /**
     * Largest inline payload per WQE, as the QP was granted.
     *
     * @return the number of bytes
     */
    public int maxInlineData()
    {
        return maxInline;
    }

    /** {@return gather entries per WQE, as the QP was granted} */
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
        return core.complete(wqeCounter);
    }

    /** Operand size of the (masked) atomic WQE at {@code wqeCounter} (see {@link SendScatter#atomicBytes}). */
    int atomicBytes(final int wqeCounter)
    {
        return SendScatter.atomicBytes(ring, ringMask, wqeCounter);
    }

    /** Scatter-to-CQE into the WQE at {@code wqeCounter} (see {@link SendScatter#copyToSendWqe}). */
    WcStatus copyToSendWqe(final int wqeCounter, final MemorySegment src, final long srcOffset, final int size)
    {
        return SendScatter.copyToSendWqe(type, ring, ringMask, wqeCounter, src, srcOffset, size);
    }

    /**
     * Makes the calling thread the owner of this queue's group: this queue, the CqPollers it is attached to, and
     * every queue attached to those.
     * Use it to hand the group to another thread
     * (for example a dedicated poller) after the previous owner has stopped using it; the hand-over itself must be
     * a happens-before edge ({@link Thread#start()}, a concurrent queue, a volatile write and read), because the
     * queues' counters are plain fields. Only {@code -Dmlx5j.debug=true} checks ownership; without it this records
     * the owner and nothing reads it.
     *
     * @return this
     */
    public SendQueue claim()
    {
        core.ownership().claim();
        return this;
    }

    @Override
    public String toString()
    {
        return "SendQueue(" + type + " qpn 0x" + Integer.toHexString(qpn) + ", " + core.mode() + ", register " +
            registerMode + ")";
    }

    /**
     * Posts this queue refused because its ring was full (the post returned false and wrote nothing): each is a
     * producer that outran the completions. Free-running; counted on the refusing path only, read without
     * allocation. For the thread that posts (another thread may see a stale value).
     *
     * @return the count
     */
    public long refusedFull()
    {
        return refusedFull;
    }
}
