// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import java.lang.invoke.VarHandle;

/**
 * Fences between the CPU and the NIC, named by intent after rdma-core v44 {@code util/udma_barrier.h}.
 *
 * <p>Java fences are specified for threads, not for a PCIe device, so each mapping below is justified for
 * <b>x86-64 HotSpot</b> only (the platform mlx5j is built and measured on):
 * <ul>
 *   <li>x86 is TSO: ordinary stores to write-back (WB) memory become visible in program order, to other CPUs and to
 *       the NIC's coherent DMA reads alike. What can reorder them is the compiler, so a compiler-level fence is enough
 *       for WQE and doorbell-record memory. rdma-core uses an empty {@code asm volatile("" ::: "memory")} there.</li>
 *   <li>Stores to the write-combining (WC) mapped UAR/BlueFlame page are <i>not</i> ordered by TSO. rdma-core emits
 *       {@code sfence}, and so does mlx5j where {@link StoreFence} can reach it (the JVM exports
 *       {@code jdk.internal.misc} to mlx5j and the CPU has {@code clflushopt} or {@code clwb}). Elsewhere
 *       {@link VarHandle#fullFence()}, which compiles to {@code lock addl $0,(rsp)} on x86-64: a locked instruction
 *       drains the WC buffers and orders them against all other stores (it is exactly what rdma-core uses on i386),
 *       at about 5 ns more per fence on the build machine. {@link #wcFence()} says which one this JVM uses.</li>
 * </ul>
 * <b>aarch64:</b> HotSpot's releaseFence is {@code dmb ish} and fullFence is {@code dmb ish}, but rdma-core needs
 * {@code dsb st} (an outer-shareable, device-visible barrier) for all three. These mappings are therefore NOT known to
 * be sufficient on aarch64 and must be revalidated (probably via a native {@code dsb st} stub) before mlx5j runs there;
 * until then this class refuses to initialise on anything but x86-64 ({@link Platform}).
 */
public final class Dma
{
    static
    {
        Platform.requireSupported();
    }

    private Dma()
    {
    }

    /**
     * {@code udma_to_device_barrier}: every store issued before (WQE bytes, receive scatter entries) is visible to the
     * device before any store issued after (the doorbell record, the doorbell).
     *
     * <p>Without it the JIT may sink a WQE store below the doorbell record store; the NIC, which may fetch WQEs as soon
     * as the record covers them, could then execute a half-written WQE (stale opcode, stale ds, stale address).
     */
    public static void toDevice()
    {
        VarHandle.releaseFence();
    }

    /**
     * {@code mmio_wc_start}: order all earlier stores (in particular the doorbell record in WB memory) before the
     * following stores to WC memory (BlueFlame copy or 8-byte doorbell).
     *
     * <p>Without it the doorbell/BlueFlame TLP could reach the NIC before the doorbell record is visible; the NIC
     * then reads an old producer counter, treats the doorbell as covering no new WQE and the post silently hangs.
     */
    public static void wcStart()
    {
        wcFenceNow();
    }

    /**
     * {@code mmio_flush_writes}: push the write-combining buffer out now, as one burst, and keep later WC stores from
     * combining with earlier ones.
     *
     * <p>Without it the BlueFlame bytes may sit in the WC buffer for an unbounded time (latency), and the next
     * post's stores to the other BlueFlame half or the same 8-byte doorbell could merge with or overtake this one;
     * with a shared register another CPU's doorbell could reach the NIC first (see {@link BlueFlameRegister}).
     * {@link SendDoorbell} leaves it out after a BlueFlame copy to a dedicated register, as UCX does: the copy fills
     * whole WC lines, which leave the CPU by themselves, and the next post's {@link #wcStart()} keeps posts apart.
     */
    public static void wcFlush()
    {
        wcFenceNow();
    }

    /**
     * {@return the instruction {@link #wcStart()} and {@link #wcFlush()} compile to in this JVM: {@code "sfence"}
     * (started with {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED} on a CPU with {@code clflushopt} or
     * {@code clwb}; see {@link StoreFence}) or {@code "lock add"}} Benchmarks print it next to their numbers.
     */
    public static String wcFence()
    {
        return StoreFence.ENABLED ? "sfence" : "lock add";
    }

    private static void wcFenceNow()
    {
        if (StoreFence.ENABLED)
        {
            StoreFence.sfence();
        }
        else
        {
            VarHandle.fullFence();
        }
    }

    /**
     * {@code udma_from_device_barrier}: reads after it see what the device wrote before the ownership/valid byte
     * that was just read (a CQE body after its {@code op_own}).
     *
     * <p>Without it the JIT could hoist a CQE body read above the owner check and return a stale completion.
     * rdma-core emits {@code lfence} on x86-64; the CPU does not reorder loads with loads to WB memory, so the
     * compiler ordering of an acquire fence suffices (UCX relies on the same).
     */
    public static void fromDevice()
    {
        VarHandle.acquireFence();
    }
}
