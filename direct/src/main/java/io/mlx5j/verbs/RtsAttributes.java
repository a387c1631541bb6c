// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

/**
 * RTR to RTS: our starting PSN, and for RC the retry policy.
 *
 * @param sqPsn       our starting send PSN (what the peer was told)
 * @param timeout     local ACK timeout code (4.096 us * 2^timeout), RC
 * @param retryCnt    transport retries, RC (7 = the maximum)
 * @param rnrRetry    RNR retries, RC (7 = infinite)
 * @param maxRdAtomic RDMA READ / atomic requests we may have outstanding, RC
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record RtsAttributes(int sqPsn, int timeout, int retryCnt, int rnrRetry, int maxRdAtomic)
{
    /**
     * rc_pingpong's choices: timeout 14, 7 retries, 7 RNR retries, 1 outstanding read/atomic.
     *
     * @param sqPsn the first PSN this QP sends
     * @return the attributes
     */
    public static RtsAttributes of(final int sqPsn)
    {
        return new RtsAttributes(sqPsn, 14, 7, 7, 1);
    }
}
