// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import java.util.List;

/**
 * One decoded field of a WQE or CQE: the segment it belongs to ({@code ctrl}, {@code raddr}, {@code data[1]},
 * {@code eth.ipv4}, ...), its PRM / rdma-core name ({@code fm_ce_se}, {@code qpn}, {@code byte_count}), where its bytes
 * are in the decoded buffer, and its value as the dumps print it ({@code CQ_UPDATE|SOLICITED}, {@code 0x000123}).
 * A field narrower than a byte (qpn inside qpn_ds, ds) names the bytes that hold it.
 *
 * @param segment the segment's name, with an index when the WQE has several of its kind ({@code data[0]})
 * @param name    the field's name
 * @param offset  the first byte of the field, from the start of the decoded bytes (the ctrl segment)
 * @param length  how many bytes hold the field
 * @param value   the field's value as text
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record WqeField(String segment, String name, int offset, int length, String value)
{
    /** {@return {@code segment.name}, the name the assertions report ({@code ctrl.fm_ce_se})} */
    public String path()
    {
        return segment + "." + name;
    }

    @Override
    public String toString()
    {
        return path() + "=" + value;
    }

    /** The value of the field {@code path} among {@code fields}, or null: what both dumps answer. */
    static String find(final List<WqeField> fields, final String path)
    {
        for (final WqeField f : fields)
        {
            if (f.path().equals(path))
            {
                return f.value();
            }
        }
        return null;
    }

    /** One line per segment: its name padded to 9 columns, then name=value of each field; both dumps print this. */
    static String text(final List<WqeField> fields)
    {
        final StringBuilder sb = new StringBuilder();
        String seg = null;
        for (final WqeField f : fields)
        {
            if (!f.segment().equals(seg))
            {
                if (seg != null)
                {
                    sb.append('\n');
                }
                seg = f.segment();
                sb.append(seg);
                for (int i = seg.length(); i < 9; i++)
                {
                    sb.append(' ');
                }
            }
            sb.append(' ').append(f.name()).append('=').append(f.value());
        }
        return sb.append('\n').toString();
    }
}
