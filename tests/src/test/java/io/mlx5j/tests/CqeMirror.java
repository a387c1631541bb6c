// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.verbs.CompletionQueue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static org.junit.jupiter.api.Assertions.fail;

/** Copies CQEs the emulated device wrote on one CQ to a twin CQ, for parity tests that poll the same bytes twice. */
final class CqeMirror
{
    private CqeMirror()
    {
    }

    /**
     * Waits for the engine's CQE number {@code index} in {@code from} and copies it to the same position of
     * {@code to} the way the device writes: the body, then op_own with {@code to}'s owner bit for that pass.
     */
    static void mirror(final CompletionQueue from, final CompletionQueue to, final int index)
    {
        final MemorySegment src = from.ring().buf();
        final int cntF = from.ring().cqeCnt();
        final long at = (long) (index & (cntF - 1)) * 64;
        final int owner = (index / cntF) & 1;
        final long deadline = System.nanoTime() + 10_000_000_000L;
        int opOwn;
        while (true)
        {
            opOwn = src.get(ValueLayout.JAVA_BYTE, at + 63) & 0xff;
            if ((opOwn >>> 4) != 0xf && (opOwn & 1) == owner)
            {
                break;
            }
            if (System.nanoTime() > deadline)
            {
                fail("no CQE " + index + " from the engine within 10 s");
            }
            Thread.onSpinWait();
        }
        VarHandle.acquireFence();
        final MemorySegment dst = to.ring().buf();
        final int cntT = to.ring().cqeCnt();
        final long to64 = (long) (index & (cntT - 1)) * 64;
        MemorySegment.copy(src, at, dst, to64, 63);
        VarHandle.releaseFence();
        dst.set(ValueLayout.JAVA_BYTE, to64 + 63, (byte) ((opOwn & ~1) | ((index / cntT) & 1)));
    }
}
