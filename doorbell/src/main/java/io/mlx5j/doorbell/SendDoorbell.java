// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import io.mlx5j.memory.AddressStores;
import io.mlx5j.wqe.SendRing;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.doorbell.UarDescriptor.BLUEFLAME_BLOCK;
import static io.mlx5j.wqe.CtrlSeg.MAX_DS;

/**
 * Hands posted send WQEs to the NIC: doorbell record, then a BlueFlame copy or the 8-byte doorbell, then the WC
 * flush, then the BlueFlame half toggle (rdma-core v44 providers/mlx5/qp.c post_send_db). The flush is left out
 * after a BlueFlame copy to a dedicated register: whole 64-byte lines leave the WC buffer by themselves, and the
 * next post's {@link Dma#wcStart()} fences anyway (UCX v1.x uct_ib_mlx5_txwq_ring_doorbell, BF_POST mode). This
 * saves one of the two fences per post (an sfence, or a locked instruction where {@link StoreFence} cannot reach
 * sfence: then the largest single cost of a post). This is the only class
 * that looks at the {@link DoorbellMode}; it does so once, in the constructor, turning the mode into the range of
 * {@code ds} values that go through BlueFlame.
 *
 * <p>Thread model: one posting thread per instance (the SQ is single-producer). Instances of different QPs may share
 * one {@link BlueFlameRegister}; if they are posted from different threads that register must be {@code shared},
 * and {@link #ring} then holds its lock around the UAR stores (see {@link BlueFlameRegister}).
 *
 * <p>Allocation-free; the only exceptions thrown are for arguments that would otherwise make the NIC read garbage.
 */
public final class SendDoorbell
{
    private final MemorySegment sq;
    private final long sqMask;
    /** Bits a valid ctrl offset never has: below 64-byte alignment, at or above the ring size, and the sign. */
    private final long ctrlInvalidBits;
    private final DoorbellRecord dbrec;
    private final BlueFlameRegister bf;
    private final boolean locked;
    private final int bfMinDs;
    private final int bfMaxDs;
    private final DoorbellMode mode;
    /** Whether {@link #ringLive} stores by address: the JVM allows it and the ring, record and register are native. */
    private final boolean byAddress;
    private final long sqAddress;

    /**
     * Binds a send ring to its doorbell record and BlueFlame register. Any thread may construct it; only the
     * posting thread may then ring it.
     *
     * @param sq     the whole send ring ({@code mlx5dv_qp.sq.buf}, {@code wqe_cnt * 64} bytes, a power of two)
     * @param dbrec  the QP's doorbell record
     * @param bf     the QP's BlueFlame register ({@code mlx5dv_qp.bf})
     * @param mode   how to ring; {@link DoorbellMode#BLUEFLAME} needs {@code bf.size() > 0}
     * @throws IllegalArgumentException if the ring is not a power of two of at least 64 bytes, or {@code mode} is
     *                                  {@link DoorbellMode#BLUEFLAME} and the register has no BlueFlame buffer
     */
    public SendDoorbell(final MemorySegment sq, final DoorbellRecord dbrec, final BlueFlameRegister bf,
        final DoorbellMode mode)
    {
        final long sqSize = sq.byteSize();
        if (sqSize < BLUEFLAME_BLOCK || Long.bitCount(sqSize) != 1)
        {
            throw new IllegalArgumentException("send ring must be a power of two >= 64 bytes, got " + sqSize);
        }
        this.sq = sq;
        this.sqMask = sqSize - 1;
        this.ctrlInvalidBits = ~(sqMask & -BLUEFLAME_BLOCK);
        this.dbrec = dbrec;
        this.bf = bf;
        this.locked = bf.shared();
        this.mode = mode;
        this.byAddress = AddressStores.ENABLED && sq.isNative() && dbrec.segment().isNative() &&
            bf.segment().isNative();
        this.sqAddress = sq.address();
        final int bfDs = bf.size() / 16;
        switch (mode)
        {
            case BLUEFLAME ->
            {
                if (bfDs == 0)
                {
                    throw new IllegalArgumentException(
                        "DoorbellMode.BLUEFLAME needs a BlueFlame buffer, but bf.size is 0: use DOORBELL or AUTO");
                }
                bfMinDs = 1;
                bfMaxDs = bfDs;
            }
            case AUTO ->
            {
                bfMinDs = 2; // libmlx5: "size > 1", a ctrl-only WQE is rung with the 8-byte doorbell
                bfMaxDs = bfDs; // "size <= bf->buf_size / 16"; 0 when uuarn == 0, so never BlueFlame
            }
            case DOORBELL ->
            {
                bfMinDs = 1;
                bfMaxDs = 0; // empty range
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    /** {@return the mode this doorbell was built with} */
    public DoorbellMode mode()
    {
        return mode;
    }

    /** {@return the register this doorbell writes} */
    public BlueFlameRegister register()
    {
        return bf;
    }

    /**
     * Whether a post of {@code nreq} WQEs whose last one has {@code ds} 16-byte units goes through BlueFlame. Pure;
     * any thread.
     *
     * @param nreq how many WQEs the post covers
     * @param ds   the last WQE's size in 16-byte units
     * @return true for one WQE whose size fits the mode's BlueFlame range
     */
    public boolean usesBlueFlame(final int nreq, final int ds)
    {
        return nreq == 1 && ds >= bfMinDs && ds <= bfMaxDs;
    }

    /**
     * Ring for one WQE just written: shorthand for {@code ring(1, ctrlOffset, ds, curPost)}. Posting thread only.
     *
     * @param ctrlOffset offset in the ring of the WQE's ctrl segment, 64-byte aligned
     * @param ds         the WQE's size in 16-byte units, {@code 1 .. MAX_DS}
     * @param curPost    free-running WQEBB producer counter just past the WQE
     * @throws IllegalArgumentException if {@code ctrlOffset} or {@code ds} is out of range
     */
    public void ring(final long ctrlOffset, final int ds, final int curPost)
    {
        ring(1, ctrlOffset, ds, curPost);
    }

    /**
     * Hand {@code nreq} newly written WQEs to the NIC. Posting thread only (see the class comment).
     *
     * @param nreq        how many WQEs this doorbell covers; 0 does nothing (as libmlx5)
     * @param ctrlOffset  offset in the ring of the LAST WQE's ctrl segment, 64-byte aligned
     * @param ds          the last WQE's size in 16-byte units, {@code 1 .. MAX_DS}
     * @param curPost     free-running WQEBB producer counter just past the last WQE
     * @throws IllegalArgumentException if {@code nreq} is negative, or {@code ctrlOffset} or {@code ds} is out of
     *                                  range (nothing is written then)
     */
    public void ring(final int nreq, final long ctrlOffset, final int ds, final int curPost)
    {
        ring(nreq, ctrlOffset, ds, curPost, false);
    }

    /**
     * {@link #ring(int, long, int, int)} for a caller that has checked, within this post, that the ring, the doorbell
     * record and the register are alive, and that keeps every other thread from freeing them until this returns
     * ({@code SendQueue}'s close rule: one liveness check per post, the QP closed only by its posting thread or
     * after it). The doorbell record store, the 8-byte doorbell and the 512-bit BlueFlame blocks then go by address
     * ({@link AddressStores}), without a segment's bounds, alignment and session checks on each: JMH
     * ({@code Mlx5jPostBench.rdmaWrite}, jars alternated): about 4 ns less per post in both doorbell modes. Where the
     * JVM does not allow it ({@link #storesByAddress()} false) this is {@link #ring(int, long, int, int)}. The
     * arguments are checked as there. Posting thread only.
     *
     * @param nreq       how many WQEs this doorbell covers; 0 does nothing
     * @param ctrlOffset offset in the ring of the last WQE's ctrl segment, 64-byte aligned
     * @param ds         the last WQE's size in 16-byte units, {@code 1 .. MAX_DS}
     * @param curPost    free-running WQEBB producer counter just past the last WQE
     * @throws IllegalArgumentException as {@link #ring(int, long, int, int)}
     */
    public void ringLive(final int nreq, final long ctrlOffset, final int ds, final int curPost)
    {
        ring(nreq, ctrlOffset, ds, curPost, byAddress);
    }

    /**
     * {@return whether {@link #ringLive} stores by address}: true when
     * {@code --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED} is given, {@code mlx5j.ring.unsafe} is not
     * {@code false}, and ring, record and register memory are native.
     */
    public boolean storesByAddress()
    {
        return byAddress;
    }

    private void ring(final int nreq, final long ctrlOffset, final int ds, final int curPost, final boolean live)
    {
        if (nreq <= 0 || ds <= 0 || ds > MAX_DS || (ctrlOffset & ctrlInvalidBits) != 0)
        {
            if (nreq == 0)
            {
                return;
            }
            throw badRing(nreq, ctrlOffset, ds);
        }
        // both include Dma.toDevice(): WQE bytes before the producer counter
        if (live)
        {
            dbrec.sendCounterAt(curPost);
        }
        else
        {
            dbrec.sendCounter(curPost);
        }
        final BlueFlameRegister bf = this.bf;
        if (!locked)
        {
            ringRegister(bf, nreq, ctrlOffset, ds, live);
            return;
        }
        bf.lock();
        try
        {
            ringRegister(bf, nreq, ctrlOffset, ds, live);
        }
        finally
        {
            // A ring that throws (e.g. the QP's memory was closed under it) must not leave the register locked:
            // every other QP sharing it would spin forever on its next post. A try/finally costs nothing unless
            // something is thrown.
            bf.unlock();
        }
    }

    private void ringRegister(final BlueFlameRegister bf, final int nreq, final long ctrlOffset, final int ds,
        final boolean live)
    {
        // Doorbell record before the MMIO stores, or the NIC may read the old counter when the doorbell arrives.
        Dma.wcStart();
        if (usesBlueFlame(nreq, ds))
        {
            if (live)
            {
                bf.copyAt(sq, sqAddress, sqMask, ctrlOffset, SendRing.numWqebb(ds));
            }
            else
            {
                bf.copy(sq, sqMask, ctrlOffset, SendRing.numWqebb(ds)); // align(ds * 16, 64) / 64 blocks
            }
            // A BlueFlame copy fills whole 64-byte WC lines, and a full WC buffer is written out by the CPU at once:
            // no flush is needed for the copy to leave. A dedicated register's next post starts with wcStart(),
            // which keeps it from combining with this one. This is UCX's BF_POST mode (uct_ib_mlx5_txwq_ring_doorbell:
            // ucs_memory_bus_cacheline_wc_flush() is empty on x86-64) and saves one fence per post.
            // A shared register still flushes inside the lock: see BlueFlameRegister for the cross-CPU race.
            if (locked)
            {
                Dma.wcFlush();
            }
        }
        else
        {
            if (live)
            {
                bf.doorbellAt(sqAddress, ctrlOffset);
            }
            else
            {
                bf.doorbell(sq, ctrlOffset);
            }
            // 8 bytes leave a WC line partly written, and a partial line may wait in the WC buffer: flush it now
            // (libmlx5's mmio_flush_writes, UCX's DB mode sfence).
            Dma.wcFlush();
        }
        bf.toggle();
    }

    private IllegalArgumentException badRing(final int nreq, final long ctrlOffset, final int ds)
    {
        return new IllegalArgumentException("bad doorbell: nreq=" + nreq + " ctrlOffset=" + ctrlOffset
            + " (must be 64-byte aligned and < " + (sqMask + 1) + ") ds=" + ds + " (must be 1.." + MAX_DS + ")");
    }
}
