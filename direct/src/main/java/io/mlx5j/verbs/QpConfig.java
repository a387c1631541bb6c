// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import java.util.Objects;

/**
 * What a QP is created with. Build with {@link #builder(QpType, CompletionQueue)}.
 *
 * @param sqSigAll      every send WR generates a CQE (otherwise only those flagged signaled)
 * @param sendOpsFlags  IBV_QP_EX_WITH_* bits: non-zero creates the QP with ibv_create_qp_ex and the ibv_wr_* API
 *                      ({@link QueuePair#qpEx()}), which the libmlx5 parity tests post through
 * @param type the transport
 * @param sendCq the CQ of send completions
 * @param recvCq the CQ of receive completions
 * @param srq the SRQ receives come from, or null
 * @param capabilities the requested queue sizes
 * @param dcAccessKey   {@link QpType#DCT} only: the DC access key every initiator's WQE must carry (a mismatch is a
 *                      key violation at the target); 0 for other types
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record QpConfig(
    QpType type,
    CompletionQueue sendCq,
    CompletionQueue recvCq,
    SharedReceiveQueue srq,
    QpCapabilities capabilities,
    boolean sqSigAll,
    long sendOpsFlags,
    long dcAccessKey)
{
    /**
     * Checks the components.
     *
     * @throws NullPointerException if the type, a CQ or the capabilities are null
     * @throws IllegalArgumentException if a capability is negative, a DCI has receive WRs or an SRQ, a DCT has no
     *     SRQ or send WRs, or another type has a DC access key
     */
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
        if (type == QpType.DCI && (srq != null || capabilities.maxRecvWr() != 0))
        {
            throw new IllegalArgumentException("a DCI only sends: it takes no SRQ and maxRecvWr must be 0");
        }
        if (type == QpType.DCT && (srq == null || capabilities.maxSendWr() != 0))
        {
            throw new IllegalArgumentException("a DCT receives its SENDs on an SRQ and sends nothing: set srq() and " +
                "maxSendWr 0");
        }
        if (type != QpType.DCT && dcAccessKey != 0)
        {
            throw new IllegalArgumentException("a DC access key belongs to a DCT, not to a " + type + " QP");
        }
    }

    /**
     * A builder with the defaults of {@link Builder}, sends and receives completing into {@code cq}.
     *
     * @param type the transport
     * @param cq the CQ of send and receive completions
     * @return the builder
     */
    public static Builder builder(final QpType type, final CompletionQueue cq)
    {
        return new Builder(type, cq);
    }

    /**
     * Defaults: 64 send and receive WRs, 1 SGE each, 64 bytes inline, selective signaling, no SRQ; a DCI starts
     * with no receive WRs or SGEs and a DCT with neither send nor receive capabilities, as they have no such queue.
     */
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
        private long dcAccessKey;

        private Builder(final QpType type, final CompletionQueue cq)
        {
            this.type = type;
            this.sendCq = cq;
            this.recvCq = cq;
            if (type == QpType.DCI)
            {
                maxRecvWr = 0;
                maxRecvSge = 0;     // libmlx5 refuses receive capabilities on a DCI (EINVAL)
            }
            else if (type == QpType.DCT)
            {
                maxSendWr = 0;
                maxSendSge = 0;
                maxInlineData = 0;
                maxRecvWr = 0;
                maxRecvSge = 0;
            }
        }

        /**
         * Sets the CQ of send completions.
         *
         * @param cq the CQ
         * @return this builder
         */
        public Builder sendCq(final CompletionQueue cq)
        {
            sendCq = cq;
            return this;
        }

        /**
         * Sets the CQ of receive completions.
         *
         * @param cq the CQ
         * @return this builder
         */
        public Builder recvCq(final CompletionQueue cq)
        {
            recvCq = cq;
            return this;
        }

        /**
         * Receives come from {@code srq}; also sets maxRecvWr/maxRecvSge to 0.
         *
         * @param srq the SRQ receives come from, or null
         * @return this builder
         */
        public Builder srq(final SharedReceiveQueue srq)
        {
            this.srq = srq;
            maxRecvWr = 0;
            maxRecvSge = 0;
            return this;
        }

        /**
         * Sets the requested number of send work requests.
         *
         * @param n the count
         * @return this builder
         */
        public Builder maxSendWr(final int n)
        {
            maxSendWr = n;
            return this;
        }

        /**
         * Sets the requested number of receive work requests.
         *
         * @param n the count
         * @return this builder
         */
        public Builder maxRecvWr(final int n)
        {
            maxRecvWr = n;
            return this;
        }

        /**
         * Sets the requested gather entries per send.
         *
         * @param n the count
         * @return this builder
         */
        public Builder maxSendSge(final int n)
        {
            maxSendSge = n;
            return this;
        }

        /**
         * Sets the requested scatter entries per receive.
         *
         * @param n the count
         * @return this builder
         */
        public Builder maxRecvSge(final int n)
        {
            maxRecvSge = n;
            return this;
        }

        /**
         * Sets the requested inline bytes per send.
         *
         * @param n the count
         * @return this builder
         */
        public Builder maxInlineData(final int n)
        {
            maxInlineData = n;
            return this;
        }

        /**
         * Sets whether every send work request generates a CQE.
         *
         * @param all true to signal every send
         * @return this builder
         */
        public Builder sqSigAll(final boolean all)
        {
            sqSigAll = all;
            return this;
        }

        /**
         * Sets the {@code IBV_QP_EX_WITH_*} bits (non-zero: created with ibv_create_qp_ex).
         *
         * @param flags OR of {@code IBV_QP_EX_WITH_*}
         * @return this builder
         */
        public Builder sendOpsFlags(final long flags)
        {
            sendOpsFlags = flags;
            return this;
        }

        /**
         * Sets a DCT's DC access key (mlx5dv_dc_init_attr.dct_access_key): DCIs must carry it in each WQE's
         * datagram segment ({@code SendQueue.dcDestination}).
         *
         * @param key the 64-bit key
         * @return this builder
         */
        public Builder dcAccessKey(final long key)
        {
            dcAccessKey = key;
            return this;
        }

        /** {@return the configuration; the record's constructor checks it} */
        public QpConfig build()
        {
            return new QpConfig(type, sendCq, recvCq, srq,
                new QpCapabilities(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData), sqSigAll,
                sendOpsFlags, dcAccessKey);
        }
    }
}
