package io.mlx5j.direct.internal;

import io.mlx5j.doorbell.BlueFlameRegister;
import io.mlx5j.verbs.QpRing;
import io.mlx5j.verbs.QueuePair;

import java.util.HashMap;
import java.util.Map;

/**
 * One {@link BlueFlameRegister} object per live UAR register address. The register's current half ({@code
 * bf->offset} in libmlx5) must be shared by every send queue that writes it, so two queues may never get separate
 * objects for one register; and an unlocked register may only serve one queue. Setup path only (synchronized).
 */
public final class BlueFlameRegisters
{
    private static final Map<Long, BlueFlameRegister> REGISTERS = new HashMap<>();

    private BlueFlameRegisters()
    {
    }

    public static synchronized BlueFlameRegister acquire(final QueuePair qp, final QpRing rings, final boolean shared)
    {
        final long key = rings.bfReg().address();
        final BlueFlameRegister old = REGISTERS.get(key);
        // a register of a destroyed QP is dead (its segment's scope is closed) and may be handed out again
        if (old != null && old.segment().scope().isAlive())
        {
            if (!old.shared() || !shared)
            {
                throw new IllegalStateException("BlueFlame register 0x" + Long.toHexString(key) + " of " + qp +
                    " is already written by another SendQueue" + (old.shared() ? "" : " without a lock") +
                    ": one SendQueue per QP, and QPs that share a register must all be created with" +
                    " SendQueue.of(qp, mode, true)");
            }
            return old;
        }
        final BlueFlameRegister reg = new BlueFlameRegister(rings.bfReg(), rings.bfSize(), shared);
        REGISTERS.put(key, reg);
        return reg;
    }
}
