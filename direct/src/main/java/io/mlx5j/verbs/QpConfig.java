// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import java.util.Objects;

/**
 * What a QP is created with. Build with {@link #builder(QpType, CompletionQueue)}.
 *
 * @param sqSigAll      every send WR generates a CQE (otherwise only those flagged signaled)
 * @param sendOpsFlags  IBV_QP_EX_WITH_* bits: non-zero creates the QP with ibv_create_qp_ex and the ibv_wr_* API
 *                      ({@link QueuePair#qpEx()}), which the libmlx5 parity tests post through
 */
public record QpConfig(
    QpType type,
    CompletionQueue sendCq,
    CompletionQueue recvCq,
    SharedReceiveQueue srq,
    QpCapabilities capabilities,
    boolean sqSigAll,
    long sendOpsFlags)
{
    public QpConfig
    {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(sendCq, "sendCq");
        Objects.requireNonNull(recvCq, "recvCq");
        Objects.requireNonNull(capabilities, "capabilities");
        if (capabilities.maxSendWr() < 0 || capabilities.maxRecvWr() < 0 || capabilities.maxSendSge() < 0
            || capabilities.maxRecvSge() < 0 || capabilities.maxInlineData() < 0)
        {
            throw new IllegalArgumentException("negative QP capability: " + capabilities);
        }
        if (srq != null && capabilities.maxRecvWr() != 0)
        {
            throw new IllegalArgumentException("a QP on an SRQ has no receive queue of its own: set maxRecvWr to 0");
        }
    }

    public static Builder builder(final QpType type, final CompletionQueue cq)
    {
        return new Builder(type, cq);
    }

    /** Defaults: 64 send and receive WRs, 1 SGE each, 64 bytes inline, selective signaling, no SRQ. */
    public static final class Builder
    {
        private final QpType type;
        private CompletionQueue sendCq;
        private CompletionQueue recvCq;
        private SharedReceiveQueue srq;
        private int maxSendWr = 64;
        private int maxRecvWr = 64;
        private int maxSendSge = 1;
        private int maxRecvSge = 1;
        private int maxInlineData = 64;
        private boolean sqSigAll;
        private long sendOpsFlags;

        private Builder(final QpType type, final CompletionQueue cq)
        {
            this.type = type;
            this.sendCq = cq;
            this.recvCq = cq;
        }

        public Builder sendCq(final CompletionQueue cq)
        {
            sendCq = cq;
            return this;
        }

        public Builder recvCq(final CompletionQueue cq)
        {
            recvCq = cq;
            return this;
        }

        /** Receives come from {@code srq}; also sets maxRecvWr/maxRecvSge to 0. */
        public Builder srq(final SharedReceiveQueue srq)
        {
            this.srq = srq;
            maxRecvWr = 0;
            maxRecvSge = 0;
            return this;
        }

        public Builder maxSendWr(final int n)
        {
            maxSendWr = n;
            return this;
        }

        public Builder maxRecvWr(final int n)
        {
            maxRecvWr = n;
            return this;
        }

        public Builder maxSendSge(final int n)
        {
            maxSendSge = n;
            return this;
        }

        public Builder maxRecvSge(final int n)
        {
            maxRecvSge = n;
            return this;
        }

        public Builder maxInlineData(final int n)
        {
            maxInlineData = n;
            return this;
        }

        public Builder sqSigAll(final boolean all)
        {
            sqSigAll = all;
            return this;
        }

        public Builder sendOpsFlags(final long flags)
        {
            sendOpsFlags = flags;
            return this;
        }

        public QpConfig build()
        {
            return new QpConfig(type, sendCq, recvCq, srq,
                new QpCapabilities(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData), sqSigAll,
                sendOpsFlags);
        }
    }
}
