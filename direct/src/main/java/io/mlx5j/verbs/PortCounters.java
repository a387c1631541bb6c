// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The NIC's own counters of one port, as Linux shows them in sysfs: {@code
 * <sysfs>/class/infiniband/<dev>/ports/<n>/counters} (the PMA port counters ib_core exposes; {@code port_xmit_data}
 * and {@code port_rcv_data} count 4-byte words, the others packets or events) and {@code .../hw_counters} (mlx5_ib's
 * queue and congestion counters, drivers/infiniband/hw/mlx5/counters.c: {@code out_of_buffer} counts frames dropped
 * because their receive queue had no WQE posted, {@code rx_write_requests}, {@code rx_read_requests},
 * {@code rx_atomic_requests} count requests this port answered as responder). This is where a feed handler learns that
 * the NIC dropped packets before any CQE could say so. {@code <sysfs>} is {@code SYSFS_PATH} when set (as libibverbs
 * reads it), else {@code /sys}; on the emulated device that is the emulator's tree, whose counters the emulator keeps
 * (docs/market-data.md, "Counters").
 * <p>
 * Each {@link #read()} reads every file once (a few system calls per counter, an allocation per snapshot: a
 * monitoring call, not one for a polling loop). Thread-safe: the object holds only the two directory paths.
 */
public final class PortCounters
{
    private final String device;
    private final int port;
    private final Path counters;
    private final Path hwCounters;

    private PortCounters(final String device, final int port, final Path portDir)
    {
        this.device = device;
        this.port = port;
        this.counters = portDir.resolve("counters");
        this.hwCounters = portDir.resolve("hw_counters");
    }

    /**
     * The counters of {@code device}'s port {@code port}.
     *
     * @param device an RDMA device name, such as {@code mlx5_0}
     * @param port   the port number, from 1
     * @return the reader
     * @throws IllegalArgumentException if the name is not a plain device name or the port is below 1
     * @throws IllegalStateException    if sysfs has neither counter directory for that port (no such device or
     *                                  port, or a kernel without them)
     */
    public static PortCounters of(final String device, final int port)
    {
        if (device == null || device.isEmpty() || device.contains("/") || device.startsWith("."))
        {
            throw new IllegalArgumentException("not an RDMA device name: " + device);
        }
        if (port < 1)
        {
            throw new IllegalArgumentException("port numbers start at 1: " + port);
        }
        final Path dir = sysfsRoot().resolve("class/infiniband").resolve(device).resolve("ports")
            .resolve(Integer.toString(port));
        final PortCounters c = new PortCounters(device, port, dir);
        if (!Files.isDirectory(c.counters) && !Files.isDirectory(c.hwCounters))
        {
            throw new IllegalStateException("no counters for " + device + " port " + port + ": neither " + c.counters
                + " nor " + c.hwCounters + " exists");
        }
        return c;
    }

    /** {@code SYSFS_PATH} as libibverbs' ibv_get_sysfs_path reads it, else {@code /sys}. */
    static Path sysfsRoot()
    {
        final String env = System.getenv("SYSFS_PATH");
        return Path.of(env == null || env.isEmpty() ? "/sys" : env);
    }

    /**
     * Reads every counter of both directories now.
     *
     * @return the values at this moment
     * @throws IllegalStateException if a directory that exists cannot be listed
     */
    public Snapshot read()
    {
        final Map<String, Long> values = new TreeMap<>();
        readDir(counters, values);
        readDir(hwCounters, values);
        return new Snapshot(device, port, values);
    }

    private static void readDir(final Path dir, final Map<String, Long> into)
    {
        if (!Files.isDirectory(dir))
        {
            return;
        }
        try (Stream<Path> files = Files.list(dir))
        {
            files.sorted().forEach(f -> into.put(f.getFileName().toString(), value(f)));
        }
        catch (final IOException e)
        {
            throw new IllegalStateException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }

    /** A counter file's value; -1 when it cannot be read (some hw_counters answer EINVAL on some firmware). */
    private static long value(final Path file)
    {
        try
        {
            return Long.parseUnsignedLong(Files.readString(file).strip());
        }
        catch (final IOException | NumberFormatException e)
        {
            return -1;
        }
    }

    @Override
    public String toString()
    {
        return "PortCounters(" + device + " port " + port + ")";
    }

    /**
     * The counters of one port at one moment, by their kernel names; a counter the kernel does not show (another
     * driver, firmware or kernel version), or could not read, is -1. Immutable, so thread-safe.
     */
    public static final class Snapshot
    {
        private final String device;
        private final int port;
        private final Map<String, Long> values;

        Snapshot(final String device, final int port, final Map<String, Long> values)
        {
            this.device = device;
            this.port = port;
            this.values = Collections.unmodifiableMap(values);
        }

        /**
         * Any counter by its sysfs file name.
         *
         * @param name the file name in counters/ or hw_counters/, e.g. {@code out_of_buffer}
         * @return its value, or -1 if this port has no such readable counter
         */
        public long value(final String name)
        {
            final Long v = values.get(name);
            return v == null ? -1 : v;
        }

        /** {@return every counter read, by name (sorted), unmodifiable} */
        public Map<String, Long> all()
        {
            return values;
        }

        /**
         * The change since {@code earlier} of every counter both snapshots have (a counter that was unreadable in
         * either is -1).
         *
         * @param earlier a snapshot of the same port taken before this one
         * @return the differences
         * @throws IllegalArgumentException if {@code earlier} is of another device or port
         */
        public Snapshot since(final Snapshot earlier)
        {
            if (!earlier.device.equals(device) || earlier.port != port)
            {
                throw new IllegalArgumentException("snapshot of " + earlier.device + " port " + earlier.port
                    + " is not of " + device + " port " + port);
            }
            final Map<String, Long> d = new TreeMap<>();
            values.forEach((k, v) ->
            {
                final long before = earlier.value(k);
                if (earlier.values.containsKey(k))
                {
                    d.put(k, v < 0 || before < 0 ? -1 : v - before);
                }
            });
            return new Snapshot(device, port, d);
        }

        /** {@return {@code port_xmit_data}: data sent, in 4-byte words} */
        public long portXmitData()
        {
            return value("port_xmit_data");
        }

        /** {@return {@code port_rcv_data}: data received, in 4-byte words} */
        public long portRcvData()
        {
            return value("port_rcv_data");
        }

        /** {@return {@code port_xmit_packets}: packets sent} */
        public long portXmitPackets()
        {
            return value("port_xmit_packets");
        }

        /** {@return {@code port_rcv_packets}: packets received} */
        public long portRcvPackets()
        {
            return value("port_rcv_packets");
        }

        /** {@return {@code unicast_xmit_packets}} */
        public long unicastXmitPackets()
        {
            return value("unicast_xmit_packets");
        }

        /** {@return {@code unicast_rcv_packets}} */
        public long unicastRcvPackets()
        {
            return value("unicast_rcv_packets");
        }

        /** {@return {@code multicast_xmit_packets}} */
        public long multicastXmitPackets()
        {
            return value("multicast_xmit_packets");
        }

        /** {@return {@code multicast_rcv_packets}} */
        public long multicastRcvPackets()
        {
            return value("multicast_rcv_packets");
        }

        /** {@return {@code port_rcv_errors}: received packets with errors} */
        public long portRcvErrors()
        {
            return value("port_rcv_errors");
        }

        /** {@return {@code port_xmit_discards}: outbound packets discarded by the port} */
        public long portXmitDiscards()
        {
            return value("port_xmit_discards");
        }

        /** {@return {@code out_of_buffer}: frames dropped because their receive queue had no WQE posted} */
        public long outOfBuffer()
        {
            return value("out_of_buffer");
        }

        /** {@return {@code out_of_sequence}: packets that arrived out of sequence (RC)} */
        public long outOfSequence()
        {
            return value("out_of_sequence");
        }

        /** {@return {@code rx_write_requests}: RDMA WRITE requests received as responder} */
        public long rxWriteRequests()
        {
            return value("rx_write_requests");
        }

        /** {@return {@code rx_read_requests}: RDMA READ requests received as responder} */
        public long rxReadRequests()
        {
            return value("rx_read_requests");
        }

        /** {@return {@code rx_atomic_requests}: atomic requests received as responder} */
        public long rxAtomicRequests()
        {
            return value("rx_atomic_requests");
        }

        /** {@return {@code rnr_nak_retry_err}: RNR NAK retries exceeded} */
        public long rnrNakRetryErr()
        {
            return value("rnr_nak_retry_err");
        }

        /** {@return {@code local_ack_timeout_err}: transport retries exceeded after ACK timeouts} */
        public long localAckTimeoutErr()
        {
            return value("local_ack_timeout_err");
        }

        /**
         * One line per counter, {@code "  name value"}, with the bytes of the two *_data counters spelled out.
         *
         * @return the text, each line ending in a newline
         */
        public String format()
        {
            final StringBuilder b = new StringBuilder();
            values.forEach((k, v) ->
            {
                b.append(String.format(Locale.ROOT, "  %-24s %d", k, v));
                if ((k.equals("port_xmit_data") || k.equals("port_rcv_data")) && v >= 0)
                {
                    b.append(" (4-byte words: ").append(v * 4).append(" bytes)");
                }
                b.append('\n');
            });
            return b.toString();
        }

        @Override
        public String toString()
        {
            return "PortCounters.Snapshot(" + device + " port " + port + " " + values + ")";
        }
    }
}
