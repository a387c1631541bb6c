// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

/**
 * The architectures whose CPU-to-NIC ordering mlx5j has argued and measured: x86-64 only. {@link Dma} refuses to
 * initialise elsewhere, so no doorbell is ever rung with fences that are not known to order stores to the device.
 *
 * <p>Why aarch64 is refused rather than guessed: rdma-core v44 {@code util/udma_barrier.h} orders WQE stores before the
 * doorbell record with {@code dmb oshst}, and the doorbell record before the write-combining doorbell with
 * {@code dsb st} ({@code mmio_wc_start}, {@code mmio_flush_writes}): barriers in the outer-shareable domain, which the
 * PCIe device is in. HotSpot's {@code VarHandle.releaseFence()} and {@code fullFence()} compile to {@code dmb ish}
 * (inner shareable: other CPUs only), and no Java fence emits {@code dsb}. Under the Arm memory model a {@code dmb ish}
 * does not order a Normal-memory store against a Device-memory (or Normal non-cacheable WC) store as seen by an
 * outer-shareable observer, so a doorbell could reach the NIC before the WQE or the record it announces. Making it
 * sound needs a native {@code dsb st} stub (a downcall per post) and a run on real Arm hardware; until then mlx5j
 * stops at start-up with this reason.
 */
public final class Platform
{
    /** System property that replaces {@code os.arch} for this check (tests; "what would happen on aarch64"). */
    public static final String ARCH_PROPERTY = "mlx5j.arch";

    private Platform()
    {
    }

    /** {@return the architecture the check applies to: {@value #ARCH_PROPERTY} if set, else {@code os.arch}} */
    public static String arch()
    {
        return System.getProperty(ARCH_PROPERTY, System.getProperty("os.arch"));
    }

    /**
     * Whether mlx5j runs on {@code arch}, and if not, why. Pure; any thread.
     *
     * @param arch an {@code os.arch} value
     * @return null on a supported architecture, else the message naming what is unproven there
     */
    public static String refusal(final String arch)
    {
        if ("amd64".equals(arch) || "x86_64".equals(arch))
        {
            return null;
        }
        if ("aarch64".equals(arch) || "arm64".equals(arch))
        {
            return "mlx5j does not run on " + arch + ": its device fences are proven for x86-64 only. On Arm, "
                + "rdma-core orders doorbells with dmb oshst / dsb st (outer shareable, util/udma_barrier.h) while "
                + "Java fences compile to dmb ish (inner shareable), which does not order WQE and doorbell-record "
                + "stores before the doorbell as the NIC sees them; a native dsb st and a run on Arm hardware are "
                + "missing";
        }
        return "mlx5j does not run on " + arch + ": its device fences are proven for x86-64 only (the store order "
            + "of WQE, doorbell record and write-combining doorbell has not been argued for " + arch + ")";
    }

    /**
     * Throws {@link UnsupportedOperationException} with {@link #refusal(String)}'s message unless {@link #arch()} is
     * supported; {@link Dma}'s initialisation calls it, so the first post on such a machine fails with the reason.
     */
    public static void requireSupported()
    {
        final String why = refusal(arch());
        if (why != null)
        {
            throw new UnsupportedOperationException(why);
        }
    }
}
