// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Big-endian reads over a byte array, hex text in and out: what the decoders share. */
final class Bytes
{
    private Bytes()
    {
    }

    static int u8(final byte[] b, final int at)
    {
        return b[at] & 0xff;
    }

    static int be16(final byte[] b, final int at)
    {
        return (b[at] & 0xff) << 8 | b[at + 1] & 0xff;
    }

    static int be32(final byte[] b, final int at)
    {
        return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | b[at + 3] & 0xff;
    }

    static long be64(final byte[] b, final int at)
    {
        return (long)be32(b, at) << 32 | be32(b, at + 4) & 0xffffffffL;
    }

    static String hex(final byte[] b, final int at, final int len)
    {
        final StringBuilder sb = new StringBuilder(len * 2);
        for (int i = 0; i < len; i++)
        {
            sb.append(Character.forDigit((b[at + i] >>> 4) & 15, 16)).append(Character.forDigit(b[at + i] & 15, 16));
        }
        return sb.toString();
    }

    static String hex8(final int v)
    {
        return String.format("0x%02x", v);
    }

    static String hex16(final int v)
    {
        return String.format("0x%04x", v);
    }

    static String hex24(final int v)
    {
        return String.format("0x%06x", v);
    }

    static String hex32(final int v)
    {
        return String.format("0x%08x", v);
    }

    static String hex64(final long v)
    {
        return String.format("0x%016x", v);
    }

    static String mac(final byte[] b, final int at)
    {
        final StringBuilder sb = new StringBuilder(17);
        for (int i = 0; i < 6; i++)
        {
            sb.append(i == 0 ? "" : ":").append(hex(b, at + i, 1));
        }
        return sb.toString();
    }

    /** 16 bytes as a colon-separated IPv6 address (8 groups, no zero compression: the dump stays fixed-width). */
    static String ipv6(final byte[] b, final int at)
    {
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++)
        {
            sb.append(i == 0 ? "" : ":").append(Integer.toHexString(be16(b, at + 2 * i)));
        }
        return sb.toString();
    }

    static String ipv4(final byte[] b, final int at)
    {
        return u8(b, at) + "." + u8(b, at + 1) + "." + u8(b, at + 2) + "." + u8(b, at + 3);
    }

    /**
     * Bytes from hex text: pairs of hex digits, separated or not by white space, ':', ',' or '-'; a leading "0x" on a
     * word is dropped. Anything else, or an odd number of digits, is refused by name.
     */
    static byte[] parseHex(final String text)
    {
        final StringBuilder digits = new StringBuilder(text.length());
        for (final String word : text.split("[\\s:,\\-]+"))
        {
            final String w = word.startsWith("0x") || word.startsWith("0X") ? word.substring(2) : word;
            for (int i = 0; i < w.length(); i++)
            {
                if (Character.digit(w.charAt(i), 16) < 0)
                {
                    throw new IllegalArgumentException("not a hex digit: '" + w.charAt(i) + "' in '" + word + "'");
                }
            }
            digits.append(w);
        }
        if ((digits.length() & 1) != 0)
        {
            throw new IllegalArgumentException("odd number of hex digits (" + digits.length() + ")");
        }
        final byte[] out = new byte[digits.length() / 2];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = (byte)Integer.parseInt(digits.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static byte[] copy(final MemorySegment s, final long offset, final int len)
    {
        final byte[] out = new byte[len];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, offset, out, 0, len);
        return out;
    }
}
