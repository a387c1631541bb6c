// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import java.util.Locale;
import java.util.Objects;

/**
 * What two peers exchange out of band to connect: addressing (LID for InfiniBand, GID for RoCE), the QP number and
 * starting PSN, and for RDMA the remote buffer (rkey, address, length).
 * <p>
 * {@link #toPingpongMessage()} / {@link #parsePingpongMessage(String)} use the text that rdma-core's ibv_*_pingpong
 * examples send ({@code "%04x:%06x:%06x:%s"}: lid, qpn, psn, then the 16 GID bytes as 32 hex digits, 51 characters
 * plus a NUL), so mlx5j can connect to them; that format carries no RDMA buffer.
 *
 * @param lid the LID (InfiniBand), 16 bits; 0 on RoCE
 * @param qpn the QP number, 24 bits
 * @param psn the starting packet sequence number, 24 bits
 * @param gid the GID ({@link Gid#ZERO} when not used)
 * @param rkey the remote buffer's rkey
 * @param addr the remote buffer's address
 * @param length the remote buffer's length
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record PeerInfo(int lid, int qpn, int psn, Gid gid, int rkey, long addr, long length)
{
    /** Length of a pingpong message including its terminating NUL, as the examples write it. */
    public static final int PINGPONG_MESSAGE_BYTES = 52;

    /**
     * Checks the components.
     *
     * @throws NullPointerException if {@code gid} is null
     * @throws IllegalArgumentException if the LID, QPN or PSN does not fit its field
     */
    public PeerInfo
    {
        Objects.requireNonNull(gid, "gid (use Gid.ZERO when not used)");
        if (lid < 0 || lid > 0xffff)
        {
            throw new IllegalArgumentException("LID is 16 bits, got " + lid);
        }
        if (qpn < 0 || qpn > 0xffffff)
        {
            throw new IllegalArgumentException("QPN is 24 bits, got " + qpn);
        }
        if (psn < 0 || psn > 0xffffff)
        {
            throw new IllegalArgumentException("PSN is 24 bits, got " + psn);
        }
    }

    /**
     * Addressing only, for SEND/RECV peers.
     *
     * @param lid the LID (InfiniBand), 16 bits; 0 on RoCE
     * @param qpn the QP number, 24 bits
     * @param psn the starting packet sequence number, 24 bits
     * @param gid the GID ({@link Gid#ZERO} when not used)
     * @return the peer
     */
    public static PeerInfo of(final int lid, final int qpn, final int psn, final Gid gid)
    {
        return new PeerInfo(lid, qpn, psn, gid, 0, 0, 0);
    }

    /**
     * The same peer advertising an RDMA target buffer.
     *
     * @param rkey the remote buffer's rkey
     * @param addr the remote buffer's address
     * @param length the remote buffer's length
     * @return a new PeerInfo
     * @throws NullPointerException if {@code gid} is null
     * @throws IllegalArgumentException if the LID, QPN or PSN does not fit its field
     */
    public PeerInfo withBuffer(final int rkey, final long addr, final long length)
    {
        return new PeerInfo(lid, qpn, psn, gid, rkey, addr, length);
    }

    /** {@return the 51 characters of an ibv_rc_pingpong address message (send them followed by one NUL byte)} */
    public String toPingpongMessage()
    {
        final StringBuilder hex = new StringBuilder(32);
        for (final byte b : gid.toBytes())
        {
            hex.append(String.format("%02x", b & 0xff));
        }
        return String.format(Locale.ROOT, "%04x:%06x:%06x:%s", lid, qpn, psn, hex);
    }

    /**
     * Parses an ibv_rc_pingpong address message (a trailing NUL is ignored).
     *
     * @param message the received text
     * @return the peer
     * @throws IllegalArgumentException if the text is not LID:QPN:PSN:GID as the examples write it
     */
    public static PeerInfo parsePingpongMessage(final String message)
    {
        final String text = message.indexOf('\0') >= 0 ? message.substring(0, message.indexOf('\0')) : message;
        final String[] parts = text.split(":");
        if (parts.length != 4 || parts[0].length() != 4 || parts[1].length() != 6 || parts[2].length() != 6
            || parts[3].length() != 32)
        {
            throw new IllegalArgumentException("not a pingpong address message (LID:QPN:PSN:GID): '" + text + "'");
        }
        final byte[] gid = new byte[16];
        for (int i = 0; i < 16; i++)
        {
            gid[i] = (byte) Integer.parseInt(parts[3].substring(2 * i, 2 * i + 2), 16);
        }
        return of(Integer.parseInt(parts[0], 16), Integer.parseInt(parts[1], 16), Integer.parseInt(parts[2], 16),
            Gid.fromBytes(gid));
    }
}
