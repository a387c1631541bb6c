// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvQpInitAttr;

/**
 * Transport of a QP (enum ibv_qp_type).
 *
 * <p>Thread model: immutable; any thread.
 */
public enum QpType
{
    /** Reliable connected: every operation, acknowledged and retried by the device. */
    RC(IbvQpInitAttr.IBV_QPT_RC),
    /** Unreliable connected: SEND and RDMA WRITE only, no acks. */
    UC(IbvQpInitAttr.IBV_QPT_UC),
    /** Unreliable datagram: SEND only, one MTU per message, destination per WR (address handle). */
    UD(IbvQpInitAttr.IBV_QPT_UD),
    /**
     * Raw Ethernet: whole frames are sent as written (an Ethernet segment in every send WQE) and received as steered
     * by flow rules ({@link io.mlx5j.raw.FlowRule}). Needs an Ethernet port and the CAP_NET_RAW capability.
     */
    RAW_PACKET(IbvQpInitAttr.IBV_QPT_RAW_PACKET),
    /**
     * XRC initiator (IBV_QPT_XRC_SEND, 9 in infiniband/verbs.h): an RC send queue without a receive queue whose every
     * WQE names the XRC SRQ at the target that takes the message ({@code SendQueue.xrcSrqn}); the target side is an
     * XRC TGT QP of the peer's XRC domain. Create it with no receive WRs.
     */
    XRC_SEND(IbvQpInitAttr.IBV_QPT_XRC_SEND),
    /**
     * XRC target (IBV_QPT_XRC_RECV, 10): the responder an XRC INI QP connects to, in an XRC domain rather than a PD
     * ({@link XrcDomain#createTgtQp()}). It has no queues, rings or CQs of its own: each request goes into the XRC SRQ
     * of the domain it names and completes on that SRQ's CQ, carrying the TGT QP's number.
     */
    XRC_RECV(IbvQpInitAttr.IBV_QPT_XRC_RECV),
    /**
     * DC initiator (mlx5 dynamically connected transport, created with mlx5dv_create_qp): an RC-like requester
     * whose target is chosen per WQE (address handle, DCT number and DC key: {@code SendQueue.dcDestination});
     * SEND, SEND_IMM, RDMA WRITE(_IMM), RDMA READ and atomics. No receive queue.
     */
    DCI(IbvQpInitAttr.IBV_QPT_DRIVER),
    /**
     * DC target (mlx5dv_create_qp): the responder any DCI that presents its DC access key reaches; SENDs land on
     * its SRQ. It posts nothing itself and its number is known from RTR on ({@link QueuePair#qpn()}).
     */
    DCT(IbvQpInitAttr.IBV_QPT_DRIVER);

    private final int value;

    QpType(final int value)
    {
        this.value = value;
    }

    /** {@return the enum ibv_qp_type value} */
    public int value()
    {
        return value;
    }
}
