// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.oob;

import io.mlx5j.verbs.PeerInfo;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The bytes rdma-core's {@code ibv_rc_pingpong} and {@code ibv_ud_pingpong} put on their TCP connection (rdma-core v44
 * libibverbs/examples/rc_pingpong.c and ud_pingpong.c, pp_client_exch_dest / pp_server_exch_dest; both examples use the
 * same format), plus one mlx5j-only message for RDMA targets.
 * <pre>
 *  address message, ADDRESS_BYTES = 52 = sizeof "0000:000000:000000:" + 32 hex digits, NUL included:
 *
 *   0       4 5           11 12          18 19                                  51 52
 *  +---------+-+-------------+-+-------------+-+------------------------------------+--+
 *  | LID %04x|:| QPN  %06x   |:| PSN  %06x   |:| GID: 16 bytes in wire order, %02x  |\0|
 *  +---------+-+-------------+-+-------------+-+------------------------------------+--+
 *
 *  done message, DONE_BYTES = 5 = sizeof "done":   'd' 'o' 'n' 'e' '\0'
 * </pre>
 * The examples write each message with one write() of exactly that many bytes and check each read() for exactly that
 * count, so a peer of theirs must send exactly these sizes (and nothing more on the same connection).
 * <p>
 * The GID column is what the examples' gid_to_wire_gid prints: each 32-bit word of the raw {@code union ibv_gid},
 * byte-swapped to big-endian and printed with %08x, which is the 16 bytes in wire order as two hex digits each.
 * The C side parses with {@code sscanf("%x:%x:%x:%s")}; mlx5j parses strictly (exact field widths, lower or upper
 * case hex) and names what is wrong.
 * <p>
 * Not part of the examples' protocol: {@link #encodeBuffer}, an RDMA target advertisement that mlx5j peers exchange
 * after the pingpong handshake on the same connection (the perf tool needs the peer's rkey, address and length):
 * <pre>
 *  buffer message, BUFFER_BYTES = 43:  rkey %08x ':' address %016x ':' length %016x '\0'
 * </pre>
 */
public final class PingpongWire
{
    /** {@code sizeof "0000:000000:000000:00000000000000000000000000000000"}: 51 characters and the NUL. */
    public static final int ADDRESS_BYTES = 52;
    /** {@code sizeof "done"}: 4 characters and the NUL. */
    public static final int DONE_BYTES = 5;
    /** rkey, address, length as {@code %08x:%016x:%016x} and a NUL (mlx5j extension). */
    public static final int BUFFER_BYTES = 8 + 1 + 16 + 1 + 16 + 1;

    private static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    private PingpongWire()
    {
    }

    /** The 52 bytes of an address message for {@code local} (its rkey/address/length are not part of it). */
    public static byte[] encodeAddress(final PeerInfo local)
    {
        final byte[] text = local.toPingpongMessage().getBytes(StandardCharsets.US_ASCII);
        if (text.length != ADDRESS_BYTES - 1)
        {
            // cannot happen for a valid PeerInfo (fields are range-checked); guards the format string
            throw new IllegalStateException("pingpong address message has " + text.length + " characters");
        }
        final byte[] wire = new byte[ADDRESS_BYTES];
        System.arraycopy(text, 0, wire, 0, text.length);
        return wire;
    }

    /** Parses the 52 bytes of an address message. */
    public static PeerInfo decodeAddress(final byte[] wire)
    {
        checkTerminated(wire, ADDRESS_BYTES, "address");
        final String text = new String(wire, 0, ADDRESS_BYTES - 1, StandardCharsets.US_ASCII);
        return PeerInfo.parsePingpongMessage(text.toLowerCase(Locale.ROOT));
    }

    /** The 5 bytes {@code "done\0"}. */
    public static byte[] encodeDone()
    {
        return DONE.clone();
    }

    /** True when {@code wire} is exactly {@code "done\0"}. */
    public static boolean isDone(final byte[] wire)
    {
        return java.util.Arrays.equals(wire, DONE);
    }

    /** The 43 bytes advertising {@code peer}'s RDMA buffer (rkey, address, length). */
    public static byte[] encodeBuffer(final PeerInfo peer)
    {
        final String text = String.format(Locale.ROOT, "%08x:%016x:%016x", peer.rkey(), peer.addr(), peer.length());
        final byte[] wire = new byte[BUFFER_BYTES];
        System.arraycopy(text.getBytes(StandardCharsets.US_ASCII), 0, wire, 0, BUFFER_BYTES - 1);
        return wire;
    }

    /** {@code address} (from an address message) with the buffer of a 43-byte buffer message. */
    public static PeerInfo decodeBuffer(final PeerInfo address, final byte[] wire)
    {
        checkTerminated(wire, BUFFER_BYTES, "buffer");
        final String text = new String(wire, 0, BUFFER_BYTES - 1, StandardCharsets.US_ASCII);
        final String[] parts = text.split(":", -1);
        if (parts.length != 3 || parts[0].length() != 8 || parts[1].length() != 16 || parts[2].length() != 16)
        {
            throw new IllegalArgumentException("not an mlx5j buffer message (RKEY:ADDR:LEN): '" + text + "'");
        }
        try
        {
            return address.withBuffer(Integer.parseUnsignedInt(parts[0], 16), Long.parseUnsignedLong(parts[1], 16),
                Long.parseUnsignedLong(parts[2], 16));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("not an mlx5j buffer message (RKEY:ADDR:LEN): '" + text + "'", ex);
        }
    }

    private static void checkTerminated(final byte[] wire, final int size, final String what)
    {
        if (wire.length != size)
        {
            throw new IllegalArgumentException("a pingpong " + what + " message has " + size + " bytes, got "
                + wire.length);
        }
        if (wire[size - 1] != 0)
        {
            throw new IllegalArgumentException("a pingpong " + what + " message ends with a NUL byte, got 0x"
                + Integer.toHexString(wire[size - 1] & 0xff));
        }
        for (int i = 0; i < size - 1; i++)
        {
            if (wire[i] < 0x20 || wire[i] > 0x7e)
            {
                throw new IllegalArgumentException("a pingpong " + what + " message is printable ASCII; byte " + i
                    + " is 0x" + Integer.toHexString(wire[i] & 0xff));
            }
        }
    }
}
