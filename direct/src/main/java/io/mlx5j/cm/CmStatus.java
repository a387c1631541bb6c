// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

/**
 * Names for the numbers a CM failure carries, so exception messages read without a table: Linux errno values (event
 * {@code status} is minus one of them for ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, CONNECT_ERROR; the calls set errno)
 * and the InfiniBand CM reject reasons a REJECTED event carries as its status (enum ib_cm_rej_reason, Linux
 * include/rdma/ib_cm.h, IBTA vol. 1 table 112).
 */
final class CmStatus
{
    /** IB_CM_REJ_INVALID_SERVICE_ID: the passive side's CM found no listener for the service ID (port). */
    static final int REJ_INVALID_SERVICE_ID = 8;
    /** IB_CM_REJ_CONSUMER_DEFINED: the application called rdma_reject. */
    static final int REJ_CONSUMER_DEFINED = 28;

    private CmStatus()
    {
    }

    static String errnoName(final int errno)
    {
        return switch (errno)
        {
            case 0 -> "no errno";
            case 1 -> "EPERM";
            case 2 -> "ENOENT";
            case 4 -> "EINTR";
            case 11 -> "EAGAIN";
            case 12 -> "ENOMEM";
            case 16 -> "EBUSY";
            case 19 -> "ENODEV";
            case 22 -> "EINVAL";
            case 38 -> "ENOSYS";
            case 61 -> "ENODATA";
            case 95 -> "EOPNOTSUPP";
            case 97 -> "EAFNOSUPPORT";
            case 98 -> "EADDRINUSE";
            case 99 -> "EADDRNOTAVAIL";
            case 101 -> "ENETUNREACH";
            case 104 -> "ECONNRESET";
            case 110 -> "ETIMEDOUT";
            case 111 -> "ECONNREFUSED";
            case 113 -> "EHOSTUNREACH";
            default -> "errno " + errno;
        };
    }

    static String rejectReason(final int reason)
    {
        return switch (reason)
        {
            case 1 -> "NO_QP";
            case 3 -> "NO_RESOURCES";
            case 4 -> "TIMEOUT";
            case 5 -> "UNSUPPORTED";
            case 6 -> "INVALID_COMM_ID";
            case 7 -> "INVALID_COMM_INSTANCE";
            case REJ_INVALID_SERVICE_ID -> "INVALID_SERVICE_ID (no listener)";
            case 9 -> "INVALID_TRANSPORT_TYPE";
            case 10 -> "STALE_CONN";
            case 12 -> "INVALID_GID";
            case 13 -> "INVALID_LID";
            case 26 -> "INVALID_MTU";
            case 27 -> "INSUFFICIENT_RESP_RESOURCES";
            case REJ_CONSUMER_DEFINED -> "CONSUMER_DEFINED (rdma_reject)";
            case 29 -> "INVALID_RNR_RETRY";
            default -> "reason " + reason;
        };
    }

    /** An event's status in words: a reject reason for REJECTED, otherwise 0 or minus an errno. */
    static String describe(final CmEventType event, final int status)
    {
        if (event == CmEventType.REJECTED)
        {
            return "status " + status + " (" + rejectReason(status) + ")";
        }
        return "status " + status + (status < 0 ? " (-" + errnoName(-status) + ")" : "");
    }
}
