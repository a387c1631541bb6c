// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

/**
 * REJECTED: the passive side refused the connection. {@link #reason()} is the IB CM reject reason: 8
 * (INVALID_SERVICE_ID) when nobody listens on the port, 28 (CONSUMER_DEFINED) when the application called
 * rdma_reject, whose private data {@link #privateData()} returns.
 */
public final class CmRejectedException extends CmException
{
    private static final long serialVersionUID = 1L;

    /** IB_CM_REJ_INVALID_SERVICE_ID (Linux include/rdma/ib_cm.h): no listener. */
    public static final int REASON_NO_LISTENER = CmStatus.REJ_INVALID_SERVICE_ID;
    /** IB_CM_REJ_CONSUMER_DEFINED: rejected by the peer application. */
    public static final int REASON_CONSUMER = CmStatus.REJ_CONSUMER_DEFINED;

    /** The rejecting side's private data. */
    private final byte[] privateData;

    CmRejectedException(final String step, final int reason, final byte[] privateData, final String message)
    {
        super(step, CmEventType.REJECTED, reason, message);
        this.privateData = privateData.clone();
    }

    /**
     * The IB CM reject reason (the event's status).
     *
     * @return the reason, e.g. {@link #REASON_NO_LISTENER} or {@link #REASON_CONSUMER}
     */
    public int reason()
    {
        return status();
    }

    /**
     * The private data the rejecting side passed to {@code rdma_reject}.
     *
     * @return a copy, as the transport delivers it (IB CM pads it to 148 bytes)
     */
    public byte[] privateData()
    {
        return privateData.clone();
    }
}
