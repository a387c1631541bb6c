// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

/**
 * Lets {@code io.mlx5j.direct} and {@code io.mlx5j.raw} reach each other's non-public parts without making them
 * public API, as the JDK's SharedSecrets does: the class that owns a part registers an accessor from its static
 * initializer, and the other package asks here. Read at construction and attach time only, never per post or poll.
 * <p>
 * Both callers hold an instance of the class whose initializer registered the accessor, so the accessor is set
 * before it is read; the fields are volatile so that this holds for any thread.
 */
public final class QueueBridge
{
    /** {@code io.mlx5j.direct.SendQueue}'s ring core, for {@code io.mlx5j.raw.RawSendQueue}, which composes it. */
    public interface SendCores
    {
        /**
         * Reads a SendQueue's ring core.
         *
         * @param sendQueue an {@code io.mlx5j.direct.SendQueue}
         * @return its ring core
         */
        SendRingCore core(Object sendQueue);
    }

    /** {@code io.mlx5j.raw.StridingRecvQueue}'s CQ side, for {@code io.mlx5j.direct.CqPoller}, which attaches it. */
    public interface StridingSides
    {
        /**
         * Reads a StridingRecvQueue's CQ side.
         *
         * @param stridingRecvQueue an {@code io.mlx5j.raw.StridingRecvQueue}
         * @return its CQ side
         */
        StridingReceive cqSide(Object stridingRecvQueue);
    }

    private static volatile SendCores sendCores;
    private static volatile StridingSides stridingSides;

    private QueueBridge()
    {
    }

    /**
     * Called once, by SendQueue's static initializer.
     *
     * @param accessor how to read a SendQueue's core
     */
    public static void sendCores(final SendCores accessor)
    {
        sendCores = accessor;
    }

    /**
     * Called once, by StridingRecvQueue's static initializer.
     *
     * @param accessor how to read a StridingRecvQueue's CQ side
     */
    public static void stridingSides(final StridingSides accessor)
    {
        stridingSides = accessor;
    }

    /**
     * The ring core of a SendQueue, for the thread that constructs a RawSendQueue over it.
     *
     * @param sendQueue an {@code io.mlx5j.direct.SendQueue}
     * @return its ring core
     */
    public static SendRingCore core(final Object sendQueue)
    {
        return sendCores.core(sendQueue);
    }

    /**
     * The CQ side of a StridingRecvQueue, for the thread that attaches it to a CqPoller.
     *
     * @param stridingRecvQueue an {@code io.mlx5j.raw.StridingRecvQueue}
     * @return its CQ side
     */
    public static StridingReceive cqSide(final Object stridingRecvQueue)
    {
        return stridingSides.cqSide(stridingRecvQueue);
    }
}
