// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import io.mlx5j.memory.AddressSpace;
import io.mlx5j.memory.AddressStores;
import io.mlx5j.memory.Be;
import io.mlx5j.memory.WideRingCopy;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import static io.mlx5j.doorbell.UarDescriptor.BLUEFLAME_BLOCK;

/**
 * One BlueFlame register of a UAR page ({@code mlx5dv_qp.bf.reg}, {@code bf.size}): two halves of {@code size}
 * bytes that posts alternate between, so that a post never writes the half the NIC may still be consuming. Holds the
 * current half ({@code bf->offset} in libmlx5) and the lock a shared register needs.
 *
 * <h2>Thread model and locking</h2>
 * A register used by exactly one posting thread (libmlx5: a low-latency bfreg with {@code need_lock == 0}; UCX:
 * {@code UCT_IB_MLX5_MMIO_MODE_BF_POST}) needs no lock. A register shared by QPs posted from several threads
 * (libmlx5: {@code bf->need_lock}, a medium-latency bfreg shared by QPs; UCX: {@code BF_POST_MT} and {@code DB_LOCK})
 * must be created with {@code shared = true}. {@link SendDoorbell} then holds {@link #lock()} from before the WC
 * stores until after the WC flush and the half toggle, exactly the span libmlx5's {@code bf->lock} covers:
 * <ul>
 *   <li>the toggle is a read-modify-write of {@code offset}: two unlocked posters could both write the same half,
 *       and one WQE's BlueFlame bytes would interleave with another's;</li>
 *   <li>the flush must happen inside the lock: otherwise CPU A's doorbell can sit in A's WC buffer while CPU B takes
 *       the register, writes and flushes its own, and the NIC sees B's doorbell before A's (rdma-core's comment in
 *       post_send_db describes this race).</li>
 * </ul>
 * The doorbell record store stays outside the lock: it belongs to the QP, not to the register.
 */
public final class BlueFlameRegister
{
    private static final VarHandle LOCK;

    static
    {
        try
        {
            LOCK = MethodHandles.lookup().findVarHandle(BlueFlameRegister.class, "lockState", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final MemorySegment reg;
    /** The register's address, for the stores by address ({@link #copyAt}, {@link #doorbellAt}; native only). */
    private final long regAddress;
    private final int size;
    private final boolean shared;
    private long offset;
    @SuppressWarnings("unused") // accessed through LOCK
    private volatile int lockState;

    /**
     * Wraps one BlueFlame register. Any thread may construct it; see the class comment for who may then post.
     *
     * @param reg    the register: at least {@code max(8, 2 * size)} bytes, 8-byte aligned (mapped UAR memory, or a
     *               long[]-backed heap segment in tests)
     * @param size   {@code mlx5dv_qp.bf.size}: bytes per half, a multiple of 64, or 0 when the register has no
     *               BlueFlame buffer (then only 8-byte doorbells at offset 0 are possible and the toggle is a no-op)
     * @param shared true if posts from more than one thread may use this register
     * @throws IllegalArgumentException if {@code size} is negative or not a multiple of 64, or {@code reg} is too
     *                                  small or not 8-byte aligned
     */
    public BlueFlameRegister(final MemorySegment reg, final int size, final boolean shared)
    {
        if (size < 0 || size % BLUEFLAME_BLOCK != 0)
        {
            throw new IllegalArgumentException("bf.size must be 0 or a positive multiple of 64, got " + size);
        }
        final long needed = Math.max(UarDescriptor.DOORBELL_LENGTH, 2L * size);
        if (reg.byteSize() < needed)
        {
            throw new IllegalArgumentException("BlueFlame register needs " + needed + " bytes, segment has "
                + reg.byteSize());
        }
        if ((reg.address() & 7) != 0)
        {
            throw new IllegalArgumentException("BlueFlame register must be 8-byte aligned: " + reg);
        }
        this.reg = reg;
        this.regAddress = reg.address();
        this.size = size;
        this.shared = shared;
    }

    /** {@return {@code bf.size}: bytes per half; 0 if the register has no BlueFlame buffer} */
    public int size()
    {
        return size;
    }

    /**
     * {@return whether BlueFlame blocks go out as single 512-bit stores in this JVM ({@link WideRingCopy#enabled()}:
     * see the conditions on {@code io.mlx5j.memory.WideCopy}: {@code --add-modules jdk.incubator.vector}, a 512-bit
     * preferred vector shape, {@code mlx5j.doorbell.vector})}
     */
    public static boolean wideCopy()
    {
        return WideRingCopy.enabled();
    }

    /** {@return whether posts must hold {@link #lock()}} */
    public boolean shared()
    {
        return shared;
    }

    /** {@return the offset of the half the next post writes: 0 or {@link #size()}} */
    public long offset()
    {
        return offset;
    }

    /** {@return the register's memory} */
    public MemorySegment segment()
    {
        return reg;
    }

    /**
     * Spin until this thread owns the register. Allocation-free; the holder does a handful of stores and one fence,
     * so spinning beats parking (libmlx5 uses a pthread spinlock for the same span).
     */
    public void lock()
    {
        while (!LOCK.compareAndSet(this, 0, 1))
        {
            Thread.onSpinWait();
        }
    }

    /** Release the register taken with {@link #lock()}. */
    public void unlock()
    {
        LOCK.setRelease(this, 0);
    }

    /**
     * BlueFlame copy: write {@code blocks} 64-byte blocks of the WQE starting at {@code src} in {@code sq} to the
     * current half, block after block in ascending order, continuing at the start of the ring when the WQE wraps.
     * Each block is one 512-bit store when {@link WideRingCopy#enabled()}, otherwise eight ascending 8-byte stores.
     *
     * <p>Ascending single 8-byte stores, not {@code MemorySegment.copy}: a bulk copy promises neither order nor
     * width, and rdma-core avoids memcpy for the same reason (qp.c, comment above mlx5_bf_copy). Opaque stores keep
     * the JIT from merging, dropping or reordering them relative to each other.
     *
     * @param sq      the whole send ring, a power-of-two number of bytes
     * @param sqMask  {@code sq.byteSize() - 1}
     * @param src     offset of the WQE's ctrl segment, 64-byte aligned
     * @param blocks  number of 64-byte blocks, {@code 1 .. size / 64}
     */
    void copy(final MemorySegment sq, final long sqMask, final long src, final int blocks)
    {
        // two bodies, not one: C2 refuses to inline a callee whose own compiled code is large ("already compiled
        // into a big method"), and the scalar loop made this method that large, so every post paid a call here
        if (WideRingCopy.enabled())
        {
            copyWide(sq, 0, sqMask, src, reg, 0, blocks);
        }
        else
        {
            copyScalar(sq, sqMask, src, blocks);
        }
    }

    /**
     * {@link #copy} by address: for {@link SendDoorbell#ringLive}, whose caller has checked that the ring at
     * {@code sqAddress} and this (native) register are alive. The 512-bit blocks, or without the vectors eight
     * ascending opaque 8-byte stores per block, each one load and one store with no segment check.
     */
    void copyAt(final MemorySegment sq, final long sqAddress, final long sqMask, final long src, final int blocks)
    {
        if (WideRingCopy.enabled())
        {
            copyWide(AddressSpace.ALL, sqAddress, sqMask, src, AddressSpace.ALL, regAddress, blocks);
        }
        else
        {
            copyScalarAt(sqAddress, sqMask, src, blocks);
        }
    }

    /**
     * The blocks from ring offset {@code src} of the ring at {@code sqBase} in {@code sqSeg} to the current half of
     * the register at {@code regBase} in {@code regSeg}: the segments themselves (bases 0), or the whole address
     * space and the addresses.
     */
    private void copyWide(final MemorySegment sqSeg, final long sqBase, final long sqMask, final long src,
        final MemorySegment regSeg, final long regBase, final int blocks)
    {
        // written out for the four blocks a 256-byte half holds, not as a loop: C2 unrolls a loop of vector copies
        // into code too big to inline ("already compiled into a big method"), and a call per post cost more than
        // the copy
        final long to = regBase + offset;
        long from = src;
        WideRingCopy.copy64(sqSeg, sqBase + from, regSeg, to); // one 64-byte store per block: see WideCopy
        if (blocks > 1)
        {
            from = (from + BLUEFLAME_BLOCK) & sqMask;   // a WQE may run past the end of the ring; it continues at 0
            WideRingCopy.copy64(sqSeg, sqBase + from, regSeg, to + BLUEFLAME_BLOCK);
            if (blocks > 2)
            {
                from = (from + BLUEFLAME_BLOCK) & sqMask;
                WideRingCopy.copy64(sqSeg, sqBase + from, regSeg, to + 2 * BLUEFLAME_BLOCK);
                if (blocks > 3)
                {
                    from = (from + BLUEFLAME_BLOCK) & sqMask;
                    WideRingCopy.copy64(sqSeg, sqBase + from, regSeg, to + 3 * BLUEFLAME_BLOCK);
                    if (blocks > 4)
                    {
                        copyWideRest(sqSeg, sqBase, sqMask, (from + BLUEFLAME_BLOCK) & sqMask, regSeg,
                            to + 4 * BLUEFLAME_BLOCK, blocks - 4);
                    }
                }
            }
        }
    }

    /** Blocks past the fourth (a BlueFlame half larger than 256 bytes). */
    private static void copyWideRest(final MemorySegment sqSeg, final long sqBase, final long sqMask,
        final long src, final MemorySegment regSeg, final long dst, final int blocks)
    {
        long from = src;
        long to = dst;
        for (int b = 0; b < blocks; b++)
        {
            WideRingCopy.copy64(sqSeg, sqBase + from, regSeg, to);
            to += BLUEFLAME_BLOCK;
            from = (from + BLUEFLAME_BLOCK) & sqMask;
        }
    }

    private void copyScalar(final MemorySegment sq, final long sqMask, final long src, final int blocks)
    {
        final MemorySegment reg = this.reg;
        long from = src;
        long to = offset;
        for (int b = 0; b < blocks; b++)
        {
            Be.RAW64.setOpaque(reg, to, (long) Be.RAW64.get(sq, from));
            Be.RAW64.setOpaque(reg, to + 8, (long) Be.RAW64.get(sq, from + 8));
            Be.RAW64.setOpaque(reg, to + 16, (long) Be.RAW64.get(sq, from + 16));
            Be.RAW64.setOpaque(reg, to + 24, (long) Be.RAW64.get(sq, from + 24));
            Be.RAW64.setOpaque(reg, to + 32, (long) Be.RAW64.get(sq, from + 32));
            Be.RAW64.setOpaque(reg, to + 40, (long) Be.RAW64.get(sq, from + 40));
            Be.RAW64.setOpaque(reg, to + 48, (long) Be.RAW64.get(sq, from + 48));
            Be.RAW64.setOpaque(reg, to + 56, (long) Be.RAW64.get(sq, from + 56));
            to += BLUEFLAME_BLOCK;
            from = (from + BLUEFLAME_BLOCK) & sqMask; // a WQE may run past the end of the ring; it continues at 0
        }
    }

    /**
     * {@link #copyScalar} by address. Why not the checked copy: each opaque segment store keeps its own bounds,
     * alignment and session checks (an opaque access is a compiler ordering point, so C2 does not merge the checks of
     * the 8 stores of a block), which cost a 2-WQEBB DCI RDMA WRITE (16 stores) about as much as the rest of its
     * post: {@code DciPostBench} without the vector module, docs/performance.md "DC initiator".
     */
    private void copyScalarAt(final long sqAddress, final long sqMask, final long src, final int blocks)
    {
        final long reg = regAddress;
        long from = src;
        long to = offset;
        for (int b = 0; b < blocks; b++)
        {
            final long s = sqAddress + from;
            final long d = reg + to;
            AddressStores.putLongOpaque(d, AddressStores.getLong(s));
            AddressStores.putLongOpaque(d + 8, AddressStores.getLong(s + 8));
            AddressStores.putLongOpaque(d + 16, AddressStores.getLong(s + 16));
            AddressStores.putLongOpaque(d + 24, AddressStores.getLong(s + 24));
            AddressStores.putLongOpaque(d + 32, AddressStores.getLong(s + 32));
            AddressStores.putLongOpaque(d + 40, AddressStores.getLong(s + 40));
            AddressStores.putLongOpaque(d + 48, AddressStores.getLong(s + 48));
            AddressStores.putLongOpaque(d + 56, AddressStores.getLong(s + 56));
            to += BLUEFLAME_BLOCK;
            from = (from + BLUEFLAME_BLOCK) & sqMask; // a WQE may run past the end of the ring; it continues at 0
        }
    }

    /**
     * The 8-byte doorbell: the first 8 bytes of the ctrl segment at {@code ctrl} ({@code opmod_idx_opcode} and
     * {@code qpn_ds}, already big-endian), as one 8-byte store to the current half.
     */
    void doorbell(final MemorySegment sq, final long ctrl)
    {
        Be.RAW64.setOpaque(reg, offset, (long) Be.RAW64.get(sq, ctrl));
    }

    /** {@link #doorbell} by address, for {@link SendDoorbell#ringLive} (see {@link #copyAt}). */
    void doorbellAt(final long sqAddress, final long ctrl)
    {
        AddressStores.putLongOpaque(regAddress + offset, AddressStores.getLong(sqAddress + ctrl));
    }

    /** {@code bf->offset ^= bf->buf_size}: the next post uses the other half (no-op when size is 0). */
    void toggle()
    {
        offset ^= size;
    }
}
