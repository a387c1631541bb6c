// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.bindings.RdmaCmEvent;
import io.mlx5j.bindings.RdmaConnParam;
import io.mlx5j.bindings.RdmaUdParam;
import io.mlx5j.verbs.AddressVector;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U8;

/**
 * One CM event, copied out of librdmacm's {@code struct rdma_cm_event} before it was acknowledged, so it stays valid
 * after the handler returns. Which parameters mean something depends on the event and the id's port space:
 * connected ids (TCP, IB) carry {@code rdma_conn_param} on CONNECT_REQUEST, ESTABLISHED and REJECTED; datagram ids
 * (UDP, IPoIB) carry {@code rdma_ud_param} (an address vector, QPN and Q_Key) on ESTABLISHED and MULTICAST_JOIN.
 */
public final class CmEvent
{
    private static final byte[] NONE = new byte[0];

    private final CmEventType type;
    private final int status;
    private final CmId id;
    private final CmId listenId;
    private final byte[] privateData;
    private final int responderResources;
    private final int initiatorDepth;
    private final int retryCount;
    private final int rnrRetryCount;
    private final boolean srq;
    private final int qpNum;
    private final int qkey;
    private final AddressVector addressVector;
    /**
     * MULTICAST_JOIN / MULTICAST_ERROR: the context pointer given to rdma_join_multicast, which librdmacm hands back
     * in {@code param.ud.private_data} (rdma-core v44 librdmacm/cma.c, rdma_get_cm_event); 0 otherwise.
     */
    private final long joinContext;

    private CmEvent(final CmEventType type, final int status, final CmId id, final CmId listenId,
        final byte[] privateData, final int responderResources, final int initiatorDepth, final int retryCount,
        final int rnrRetryCount, final boolean srq, final int qpNum, final int qkey, final AddressVector addressVector,
        final long joinContext)
    {
        this.joinContext = joinContext;
        this.type = type;
        this.status = status;
        this.id = id;
        this.listenId = listenId;
        this.privateData = privateData;
        this.responderResources = responderResources;
        this.initiatorDepth = initiatorDepth;
        this.retryCount = retryCount;
        this.rnrRetryCount = rnrRetryCount;
        this.srq = srq;
        this.qpNum = qpNum;
        this.qkey = qkey;
        this.addressVector = addressVector;
    }

    /** Copies {@code raw} ({@code struct rdma_cm_event}, still unacknowledged). */
    static CmEvent copy(final MemorySegment raw, final CmId id, final CmId listenId, final boolean datagram)
    {
        final CmEventType type = CmEventType.of(raw.get(C_INT, RdmaCmEvent.EVENT_OFFSET));
        final int status = raw.get(C_INT, RdmaCmEvent.STATUS_OFFSET);
        if (datagram)
        {
            final long ud = RdmaCmEvent.UD_OFFSET;
            final boolean join = type == CmEventType.MULTICAST_JOIN || type == CmEventType.MULTICAST_ERROR;
            final byte[] data = join ? NONE
                : privateData(raw, ud + RdmaUdParam.PRIVATE_DATA_OFFSET, ud + RdmaUdParam.PRIVATE_DATA_LEN_OFFSET);
            final boolean withAh = type == CmEventType.ESTABLISHED || type == CmEventType.MULTICAST_JOIN;
            return new CmEvent(type, status, id, listenId, data, 0, 0, 0, 0, false,
                raw.get(U32, ud + RdmaUdParam.QP_NUM_OFFSET), raw.get(U32, ud + RdmaUdParam.QKEY_OFFSET),
                withAh ? addressVector(raw, ud + RdmaUdParam.AH_ATTR_OFFSET) : null,
                join ? raw.get(C_POINTER, ud + RdmaUdParam.PRIVATE_DATA_OFFSET).address() : 0);
        }
        final long conn = RdmaCmEvent.CONN_OFFSET;
        final byte[] data = privateData(raw, conn + RdmaConnParam.PRIVATE_DATA_OFFSET,
            conn + RdmaConnParam.PRIVATE_DATA_LEN_OFFSET);
        return new CmEvent(type, status, id, listenId, data,
            raw.get(U8, conn + RdmaConnParam.RESPONDER_RESOURCES_OFFSET) & 0xff,
            raw.get(U8, conn + RdmaConnParam.INITIATOR_DEPTH_OFFSET) & 0xff,
            raw.get(U8, conn + RdmaConnParam.RETRY_COUNT_OFFSET) & 0xff,
            raw.get(U8, conn + RdmaConnParam.RNR_RETRY_COUNT_OFFSET) & 0xff,
            raw.get(U8, conn + RdmaConnParam.SRQ_OFFSET) != 0,
            raw.get(U32, conn + RdmaConnParam.QP_NUM_OFFSET), 0, null, 0);
    }

    /** The same event with another type and status (CONNECT_RESPONSE completed to ESTABLISHED, or failed). */
    CmEvent as(final CmEventType newType, final int newStatus)
    {
        return new CmEvent(newType, newStatus, id, listenId, privateData, responderResources, initiatorDepth,
            retryCount, rnrRetryCount, srq, qpNum, qkey, addressVector, joinContext);
    }

    long joinContext()
    {
        return joinContext;
    }

    private static byte[] privateData(final MemorySegment raw, final long pointerOffset, final long lengthOffset)
    {
        final int length = raw.get(U8, lengthOffset) & 0xff;
        final MemorySegment pointer = raw.get(C_POINTER, pointerOffset);
        if (length == 0 || pointer.address() == 0)
        {
            return NONE;
        }
        return pointer.reinterpret(length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    private static AddressVector addressVector(final MemorySegment raw, final long ah)
    {
        return AddressVector.read(raw, ah);
    }

    /**
     * What happened.
     *
     * @return the event type
     */
    public CmEventType type()
    {
        return type;
    }

    /**
     * The event's status.
     *
     * @return 0 on success; minus an errno for failure events; the IB CM reject reason for REJECTED
     */
    public int status()
    {
        return status;
    }

    /**
     * The id the event is for. On CONNECT_REQUEST it is a new id for the incoming connection (accept or reject it);
     * {@link #listenId()} is the listener.
     *
     * @return the id; never null
     */
    public CmId id()
    {
        return id;
    }

    /**
     * The listening id a CONNECT_REQUEST arrived on.
     *
     * @return the listener's id, or null for other events
     */
    public CmId listenId()
    {
        return listenId;
    }

    /**
     * The peer's private data. IB CM transports pad it to the message's fixed size.
     *
     * @return a copy; empty if none
     */
    public byte[] privateData()
    {
        return privateData.clone();
    }

    /**
     * Connected ids: the responder resources the peer offered (CONNECT_REQUEST) or granted (ESTABLISHED).
     *
     * @return RDMA READ / atomic requests in flight, 0..255
     */
    public int responderResources()
    {
        return responderResources;
    }

    /**
     * Connected ids: the peer's initiator depth.
     *
     * @return RDMA READ / atomic requests in flight, 0..255
     */
    public int initiatorDepth()
    {
        return initiatorDepth;
    }

    /**
     * Connected ids: the retry count the requester asked for (CONNECT_REQUEST).
     *
     * @return 0..7
     */
    public int retryCount()
    {
        return retryCount;
    }

    /**
     * Connected ids: the RNR retry count the peer asked for.
     *
     * @return 0..7 (7: forever)
     */
    public int rnrRetryCount()
    {
        return rnrRetryCount;
    }

    /**
     * Connected ids: whether the peer's QP uses an SRQ.
     *
     * @return true if it does
     */
    public boolean srq()
    {
        return srq;
    }

    /**
     * The peer's QP number, from the conn or ud parameters.
     *
     * @return the 24-bit QPN; 0xffffff (the multicast QPN) on MULTICAST_JOIN
     */
    public int qpNum()
    {
        return qpNum;
    }

    /**
     * Datagram ids: the Q_Key to send with.
     *
     * @return the 32-bit Q_Key; 0 for connected ids
     */
    public int qkey()
    {
        return qkey;
    }

    /**
     * Datagram ids on ESTABLISHED / MULTICAST_JOIN: where to send (for an AddressHandle).
     *
     * @return the address vector, or null for other events
     */
    public AddressVector addressVector()
    {
        return addressVector;
    }

    @Override
    public String toString()
    {
        return type.cName() + "(" + CmStatus.describe(type, status) + ", " + id + ")";
    }
}
