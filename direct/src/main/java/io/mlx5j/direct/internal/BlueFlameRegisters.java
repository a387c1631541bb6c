// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.direct.RegisterMode;
import io.mlx5j.doorbell.BlueFlameRegister;
import io.mlx5j.verbs.QpRing;
import io.mlx5j.verbs.QueuePair;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@link BlueFlameRegister} object per UAR register address, shared by every send queue on that register: the
 * current half ({@code bf->offset} in libmlx5) and the lock belong to the register, not to a queue. Register
 * addresses are unique among live mappings, and a context's registers stay mapped until the context closes (after
 * all its QPs), so one process-wide map keyed by address is a map per context. Setup path only (synchronized).
 *
 * <p>Whether a register is locked is settled when its first queue is built, from libmlx5's allocation rules
 * ({@link StaticBlueFlameRegisters}) or the caller's {@link RegisterMode}: a register that libmlx5 may give to a
 * second QP is locked from the start, so its first queue needs no later change.
 *
 * <p>Thread model: {@link #acquire} is synchronized (queues of different QPs may be built on different threads);
 * {@link #classify} is pure.
 */
public final class BlueFlameRegisters
{
    private static final Map<Long, Entry> REGISTERS = new HashMap<>();
    private static final long PAGE_SIZE = pageSize();
    private static final int TOTAL = StaticBlueFlameRegisters.total(System.getenv("MLX5_TOTAL_UUARS"), PAGE_SIZE);
    private static final int LOW_LATENCY = TOTAL < 0 ? StaticBlueFlameRegisters.UNKNOWN :
        StaticBlueFlameRegisters.lowLatency(System.getenv("MLX5_NUM_LOW_LAT_UUARS"), TOTAL);

    private BlueFlameRegisters()
    {
    }

    /** A register and the scopes of the queues' QPs that use it (a dead scope is a destroyed QP). */
    private static final class Entry
    {
        final BlueFlameRegister register;
        final RegisterMode mode;
        final boolean explicit;
        final List<MemorySegment.Scope> users = new ArrayList<>();

        Entry(final BlueFlameRegister register, final RegisterMode mode, final boolean explicit)
        {
            this.register = register;
            this.mode = mode;
            this.explicit = explicit;
        }

        boolean inUse()
        {
            users.removeIf(scope -> !scope.isAlive());
            return !users.isEmpty();
        }
    }

    /**
     * The register object and the mode a queue got.
     *
     * @param register the register object the queue writes
     * @param mode the mode it got
     */
    public record Grant(BlueFlameRegister register, RegisterMode mode)
    {
    }

    /**
     * What {@link RegisterMode#AUTO} makes of this QP's register, by libmlx5's rules (no registry look-up).
     *
     * @param rings the QP's rings
     * @return the mode
     */
    public static RegisterMode classify(final QpRing rings)
    {
        if (rings.bfSize() == 0)
        {
            return RegisterMode.DOORBELL_ONLY;
        }
        final int n = StaticBlueFlameRegisters.registerNumber(rings.uarMmapOffset(), rings.bfReg().address(),
            rings.bfSize(), PAGE_SIZE);
        return n != StaticBlueFlameRegisters.UNKNOWN && StaticBlueFlameRegisters.dedicated(n, TOTAL, LOW_LATENCY)
            ? RegisterMode.DEDICATED : RegisterMode.LOCKED;
    }

    /**
     * The register object for a new send queue on {@code qp}.
     *
     * @param qp the QP
     * @param rings the QP's rings
     * @param requested the mode the caller asked for
     * @throws IllegalStateException if the register is already written without a lock by a live queue, or if
     *                               {@code requested} is {@link RegisterMode#DEDICATED} and another live queue uses it
     * @return the register and its mode
     */
    public static synchronized Grant acquire(final QueuePair qp, final QpRing rings, final RegisterMode requested)
    {
        final MemorySegment view = rings.bfReg();
        final long key = view.address();
        final RegisterMode wanted = rings.bfSize() == 0 ? RegisterMode.DOORBELL_ONLY :
            switch (requested)
            {
                case AUTO -> classify(rings);
                case DEDICATED, LOCKED -> requested;
                case DOORBELL_ONLY -> throw new IllegalArgumentException(qp + ": RegisterMode.DOORBELL_ONLY is what" +
                    " a register without a BlueFlame buffer gets; this one has bf.size " + rings.bfSize() +
                    ": for 8-byte doorbells pass DoorbellMode.DOORBELL");
            };
        Entry entry = REGISTERS.get(key);
        if (entry != null && entry.inUse())
        {
            if (entry.mode == RegisterMode.DEDICATED)
            {
                throw new IllegalStateException("BlueFlame register 0x" + Long.toHexString(key) + " of " + qp +
                    " is already written without a lock by another SendQueue (RegisterMode.DEDICATED" +
                    (entry.explicit ? ", requested" : ", a low-latency register by libmlx5's rules") +
                    "): one SendQueue per QP, and a register several QPs share must be LOCKED (the default AUTO" +
                    " locks every register libmlx5 may share)");
            }
            if (entry.mode == RegisterMode.LOCKED && wanted == RegisterMode.DEDICATED && requested ==
                RegisterMode.DEDICATED)
            {
                throw new IllegalStateException("BlueFlame register 0x" + Long.toHexString(key) + " of " + qp +
                    " cannot be DEDICATED: " + entry.users.size() + " other SendQueue(s) use it (locked)");
            }
            entry.users.add(view.scope());
            return new Grant(entry.register, entry.mode);
        }
        // The object outlives the QP that brought it: later QPs may share the register after the first is destroyed.
        // Its memory is the mapped UAR, which lives as long as the context; every ring stores the QP's doorbell
        // record (scoped to that QP) first, so a closed QP fails there before reaching the register.
        final MemorySegment reg = MemorySegment.ofAddress(key).reinterpret(view.byteSize());
        entry = new Entry(new BlueFlameRegister(reg, rings.bfSize(), wanted == RegisterMode.LOCKED), wanted,
            requested != RegisterMode.AUTO);
        entry.users.add(view.scope());
        REGISTERS.put(key, entry);
        return new Grant(entry.register, entry.mode);
    }

    private static long pageSize()
    {
        // the JDK does not expose the page size; 4 KiB on x86-64, where mlx5j runs
        final String s = System.getProperty("mlx5j.pageSize");
        return s == null ? 4096 : Long.parseLong(s);
    }
}
