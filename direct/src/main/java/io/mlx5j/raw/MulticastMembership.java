// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.raw;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Membership of an IPv4 multicast group on the host network interface of an RDMA port, so that the kernel sends the
 * IGMP membership reports (and, on {@link #close()}, the leave) that make an IGMP-snooping switch forward the group to
 * this port. A {@link FlowRule} only steers frames that reach the port; without a membership a snooping switch sends
 * them nowhere. Join first, then create the rule; the two are independent (the kernel's socket never sees the frames
 * the rule steers to a raw QP, as the NIC delivers them to the QP). docs/market-data.md, "Multicast membership".
 * <p>
 * How: a datagram socket (IPv4) joins the group on the interface ({@code IP_ADD_MEMBERSHIP} through
 * {@link DatagramChannel#join(InetAddress, NetworkInterface)}) and stays open while joined; the kernel answers the
 * switch's IGMP queries for as long as the socket holds the membership. The interface is found through sysfs: the
 * port's RoCE GID table names it ({@code <sysfs>/class/infiniband/<dev>/ports/<n>/gid_attrs/ndevs/0}); otherwise the
 * PCI function's network interfaces ({@code <sysfs>/class/infiniband/<dev>/device/net/}), the one whose
 * {@code dev_port} is the port's index when there are several.
 * <p>
 * On the emulated device, mlx5_0's interface is {@code lo} (the launcher's tree links it, as mlx5_0's rdma_cm
 * addresses live there): a join there is a real membership of the host's loopback interface ({@code /proc/net/igmp}
 * lists it), so the code path is the one hardware takes, while the emulated fabric itself forwards every group to every
 * port. Other emulated devices have no interface, and {@link #join} refuses them.
 * <p>
 * Thread-safe: {@link #close()} may race with another close; the state is the socket's.
 */
public final class MulticastMembership implements AutoCloseable
{
    private final String device;
    private final int port;
    private final NetworkInterface netInterface;
    private final InetAddress group;
    private final DatagramChannel channel;
    private final MembershipKey key;

    private MulticastMembership(final String device, final int port, final NetworkInterface netInterface,
        final InetAddress group, final DatagramChannel channel, final MembershipKey key)
    {
        this.device = device;
        this.port = port;
        this.netInterface = netInterface;
        this.group = group;
        this.channel = channel;
        this.key = key;
    }

    /**
     * Joins {@code group} on the network interface of {@code device}'s port {@code port}.
     *
     * @param device an RDMA device name, such as {@code mlx5_0}
     * @param port   the port number, from 1
     * @param group  the IPv4 group, as an int in network order ({@code 0xef070707} is 239.7.7.7)
     * @return the membership; {@link #close()} leaves the group
     * @throws IllegalArgumentException if {@code group} is not in 224.0.0.0/4, or the device name or port is malformed
     * @throws IllegalStateException    if the port has no network interface in sysfs, the interface is unknown to the
     *                                  kernel, or the kernel refuses the membership (the message says which)
     */
    public static MulticastMembership join(final String device, final int port, final int group)
    {
        if ((group >>> 28) != 0xe)
        {
            throw new IllegalArgumentException("not an IPv4 multicast group (224.0.0.0/4): " + ip(group));
        }
        final String name = interfaceOf(device, port);
        final NetworkInterface ni;
        try
        {
            ni = NetworkInterface.getByName(name);
        }
        catch (final SocketException e)
        {
            throw new IllegalStateException("cannot look up interface " + name + " of " + device + " port " + port
                + ": " + e.getMessage(), e);
        }
        if (ni == null)
        {
            throw new IllegalStateException("interface " + name + " of " + device + " port " + port
                + " (from sysfs) is not known to the kernel (another network namespace?)");
        }
        final InetAddress g = address(group);
        DatagramChannel ch = null;
        try
        {
            ch = DatagramChannel.open(StandardProtocolFamily.INET);
            final MembershipKey k = ch.join(g, ni);
            return new MulticastMembership(device, port, ni, g, ch, k);
        }
        catch (final IOException | UnsupportedOperationException e)
        {
            closeQuietly(ch);
            throw new IllegalStateException("joining " + ip(group) + " on " + name + " (" + device + " port " + port
                + ") failed: " + e.getMessage(), e);
        }
    }

    /**
     * The name of the host network interface that belongs to {@code device}'s port {@code port}, from sysfs.
     *
     * @param device an RDMA device name
     * @param port   the port number, from 1
     * @return the interface name, e.g. {@code enp1s0f0np0} (on the emulated mlx5_0: {@code lo})
     * @throws IllegalArgumentException if the device name or port is malformed
     * @throws IllegalStateException    if sysfs names no interface for the port
     */
    public static String interfaceOf(final String device, final int port)
    {
        if (device == null || device.isEmpty() || device.contains("/") || device.startsWith("."))
        {
            throw new IllegalArgumentException("not an RDMA device name: " + device);
        }
        if (port < 1)
        {
            throw new IllegalArgumentException("port numbers start at 1: " + port);
        }
        final Path dev = sysfsRoot().resolve("class/infiniband").resolve(device);
        final Path ndev = dev.resolve("ports").resolve(Integer.toString(port)).resolve("gid_attrs/ndevs/0");
        final String fromGid = read(ndev);
        if (fromGid != null && !fromGid.isEmpty())
        {
            return fromGid;
        }
        final Path net = dev.resolve("device/net");
        final List<String> names = new ArrayList<>();
        if (Files.isDirectory(net))
        {
            try (Stream<Path> s = Files.list(net))
            {
                s.sorted().forEach(p -> names.add(p.getFileName().toString()));
            }
            catch (final IOException e)
            {
                throw new IllegalStateException("cannot list " + net + ": " + e.getMessage(), e);
            }
        }
        if (names.size() == 1)
        {
            return names.get(0);
        }
        for (final String n : names)
        {
            if (Integer.toString(port - 1).equals(read(net.resolve(n).resolve("dev_port"))))
            {
                return n;
            }
        }
        throw new IllegalStateException(device + " port " + port + " has no network interface in sysfs (neither "
            + ndev + " nor a single entry of " + net + (names.isEmpty() ? "" : ": " + names) + "); on the emulated "
            + "device only mlx5_0 has one (lo)");
    }

    /** {@return the interface the membership is on} */
    public NetworkInterface networkInterface()
    {
        return netInterface;
    }

    /** {@return the group, as an int in network order} */
    public int group()
    {
        final byte[] b = group.getAddress();
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | b[3] & 0xff;
    }

    /** {@return whether the membership is still held} */
    public boolean isJoined()
    {
        return key.isValid();
    }

    /** Leaves the group (the kernel sends the IGMP leave) and closes the socket; a second call does nothing. */
    @Override
    public void close()
    {
        key.drop();
        closeQuietly(channel);
    }

    @Override
    public String toString()
    {
        return "MulticastMembership(" + group.getHostAddress() + " on " + netInterface.getName() + ", " + device
            + " port " + port + (isJoined() ? "" : ", left") + ")";
    }

    /** {@code SYSFS_PATH} as libibverbs reads it, else {@code /sys}. */
    private static Path sysfsRoot()
    {
        final String env = System.getenv("SYSFS_PATH");
        return Path.of(env == null || env.isEmpty() ? "/sys" : env);
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.isRegularFile(file) ? Files.readString(file).strip() : null;
        }
        catch (final IOException e)
        {
            return null;
        }
    }

    private static InetAddress address(final int ip)
    {
        try
        {
            return Inet4Address.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8),
                (byte) ip});
        }
        catch (final UnknownHostException e)
        {
            throw new AssertionError(e);     // four bytes are always an address
        }
    }

    private static String ip(final int ip)
    {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xff) + "." + ((ip >>> 8) & 0xff) + "." + (ip & 0xff);
    }

    private static void closeQuietly(final DatagramChannel ch)
    {
        if (ch != null)
        {
            try
            {
                ch.close();
            }
            catch (final IOException ignored)
            {
                // the membership is gone with the descriptor either way
            }
        }
    }
}
