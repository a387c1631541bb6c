// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * What a connect or accept sends ({@code struct rdma_conn_param}) and how long each step may take.
 *
 * @param privateData        sent with the request (at most 56 bytes for TCP port space over the IB CM), the accept
 *                           (196) or carried back by a REJECTED (148); may be empty
 * @param responderResources RDMA READ / atomic requests this side accepts in flight (the QP's max_dest_rd_atomic);
 *                           255 (RDMA_MAX_RESP_RES) leaves the CM's value
 * @param initiatorDepth     RDMA READ / atomic requests this side issues in flight (max_rd_atomic); 255 leaves it
 * @param retryCount         transport retries on a missing ACK, 0..7 (ignored on accept, as rdma_cma.h says)
 * @param rnrRetryCount      retries on receiver-not-ready, 0..7 (7 = forever)
 * @param source             local address to bind to before resolving, or null (the routing table chooses)
 * @param addressTimeout     rdma_resolve_addr's timeout; ADDR_ERROR or a {@link CmTimeoutException} after it
 * @param routeTimeout       rdma_resolve_route's timeout
 * @param connectTimeout     how long connect / accept wait for ESTABLISHED (or REJECTED / UNREACHABLE)
 * @param typeOfService      RDMA_OPTION_ID_TOS, or -1 to leave it
 * @param ackTimeout         RDMA_OPTION_ID_ACK_TIMEOUT (the QP's local ACK timeout exponent), or -1 to leave it
 */
public record ConnectOptions(
    byte[] privateData,
    int responderResources,
    int initiatorDepth,
    int retryCount,
    int rnrRetryCount,
    InetSocketAddress source,
    Duration addressTimeout,
    Duration routeTimeout,
    Duration connectTimeout,
    int typeOfService,
    int ackTimeout)
{
    /** rping's values: one READ in flight each way, 7 retries, 7 RNR retries; 2 s per resolve step, 5 s to connect. */
    public static final ConnectOptions DEFAULTS = builder().build();

    /**
     * Checks the ranges given above and copies {@code privateData}.
     *
     * @throws IllegalArgumentException naming the first component out of range
     * @throws NullPointerException if {@code privateData} is null
     */
    public ConnectOptions
    {
        privateData = Objects.requireNonNull(privateData, "privateData").clone();
        if (privateData.length > 255)
        {
            throw new IllegalArgumentException(
                "private data is at most 255 bytes (uint8_t length), got " + privateData.length);
        }
        check("responderResources", responderResources, 255);
        check("initiatorDepth", initiatorDepth, 255);
        check("retryCount", retryCount, 7);
        check("rnrRetryCount", rnrRetryCount, 7);
        positive("addressTimeout", addressTimeout);
        positive("routeTimeout", routeTimeout);
        positive("connectTimeout", connectTimeout);
        if (typeOfService < -1 || typeOfService > 255)
        {
            throw new IllegalArgumentException("typeOfService must be -1 or 0..255, got " + typeOfService);
        }
        if (ackTimeout < -1 || ackTimeout > 31)
        {
            throw new IllegalArgumentException("ackTimeout must be -1 or 0..31, got " + ackTimeout);
        }
    }

    private static void check(final String name, final int value, final int max)
    {
        if (value < 0 || value > max)
        {
            throw new IllegalArgumentException(name + " must be in 0.." + max + ", got " + value);
        }
    }

    private static void positive(final String name, final Duration d)
    {
        if (d == null || d.isNegative() || d.isZero() || d.toMillis() > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(name + " must be a positive duration of at most 2^31 ms, got " + d);
        }
    }

    /**
     * The private data connect / accept send.
     *
     * @return a copy, 0..255 bytes
     */
    @Override
    public byte[] privateData()
    {
        return privateData.clone();
    }

    /**
     * A builder starting from rping's values (those of {@link #DEFAULTS}).
     *
     * @return a new builder
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * A copy with other private data, e.g. per connection on top of shared timeouts.
     *
     * @param data the new private data, at most 255 bytes (copied)
     * @return the copy
     * @throws IllegalArgumentException if {@code data} is longer than 255 bytes
     * @throws NullPointerException if {@code data} is null
     */
    public ConnectOptions withPrivateData(final byte[] data)
    {
        return new ConnectOptions(data, responderResources, initiatorDepth, retryCount, rnrRetryCount, source,
            addressTimeout, routeTimeout, connectTimeout, typeOfService, ackTimeout);
    }

    /**
     * Builds {@link ConnectOptions}; each setter only records its value and {@link #build()} checks them all. Not
     * thread-safe: one thread fills a builder.
     */
    public static final class Builder
    {
        private byte[] privateData = new byte[0];
        private int responderResources = 1;
        private int initiatorDepth = 1;
        private int retryCount = 7;
        private int rnrRetryCount = 7;
        private InetSocketAddress source;
        private Duration addressTimeout = Duration.ofSeconds(2);
        private Duration routeTimeout = Duration.ofSeconds(2);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private int typeOfService = -1;
        private int ackTimeout = -1;

        /** A builder with the defaults; {@link ConnectOptions#builder()} is the usual way to get one. */
        public Builder()
        {
        }

        /**
         * Private data to send with connect / accept (copied); default empty.
         *
         * @param data at most 255 bytes; at most 56 reach the peer with a TCP-port-space request over the IB CM
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder privateData(final byte[] data)
        {
            privateData = data.clone();
            return this;
        }

        /**
         * RDMA READ / atomic requests this side accepts in flight; default 1.
         *
         * @param n 0..255; 255 leaves the CM's value
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder responderResources(final int n)
        {
            responderResources = n;
            return this;
        }

        /**
         * RDMA READ / atomic requests this side issues in flight; default 1.
         *
         * @param n 0..255; 255 leaves the CM's value
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder initiatorDepth(final int n)
        {
            initiatorDepth = n;
            return this;
        }

        /**
         * Transport retries on a missing ACK; default 7.
         *
         * @param n 0..7
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder retryCount(final int n)
        {
            retryCount = n;
            return this;
        }

        /**
         * Retries on receiver-not-ready; default 7 (retry forever).
         *
         * @param n 0..7; 7 means forever
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder rnrRetryCount(final int n)
        {
            rnrRetryCount = n;
            return this;
        }

        /**
         * Local address to bind before resolving; default null (the routing table chooses).
         *
         * @param address the local IP address and port, or null
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder source(final InetSocketAddress address)
        {
            source = address;
            return this;
        }

        /**
         * rdma_resolve_addr's timeout; default 2 s.
         *
         * @param d positive, at most 2^31 ms
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder addressTimeout(final Duration d)
        {
            addressTimeout = d;
            return this;
        }

        /**
         * rdma_resolve_route's timeout; default 2 s.
         *
         * @param d positive, at most 2^31 ms
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder routeTimeout(final Duration d)
        {
            routeTimeout = d;
            return this;
        }

        /**
         * How long connect / accept wait for ESTABLISHED; default 5 s.
         *
         * @param d positive, at most 2^31 ms
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder connectTimeout(final Duration d)
        {
            connectTimeout = d;
            return this;
        }

        /**
         * The same timeout for address, route and connect.
         *
         * @param d positive, at most 2^31 ms
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder timeout(final Duration d)
        {
            addressTimeout = d;
            routeTimeout = d;
            connectTimeout = d;
            return this;
        }

        /**
         * RDMA_OPTION_ID_TOS: IP type of service / traffic class; default -1 (leave it).
         *
         * @param tos 0..255, or -1
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder typeOfService(final int tos)
        {
            typeOfService = tos;
            return this;
        }

        /**
         * RDMA_OPTION_ID_ACK_TIMEOUT: local ACK timeout 4.096 us * 2^exponent; default -1 (leave it).
         *
         * @param exponent 0..31, or -1
         * @return this builder; the value is checked by {@link #build()}
         */
        public Builder ackTimeout(final int exponent)
        {
            ackTimeout = exponent;
            return this;
        }

        /**
         * Checks and freezes the values; the builder can be changed and built again afterwards.
         *
         * @return the options
         * @throws IllegalArgumentException naming the first value out of range
         */
        public ConnectOptions build()
        {
            return new ConnectOptions(privateData, responderResources, initiatorDepth, retryCount, rnrRetryCount,
                source, addressTimeout, routeTimeout, connectTimeout, typeOfService, ackTimeout);
        }
    }
}
