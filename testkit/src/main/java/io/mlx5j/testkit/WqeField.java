// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

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
 */
public record WqeField(String segment, String name, int offset, int length, String value)
{
    /** {@code segment.name}, the name the assertions report ({@code ctrl.fm_ce_se}). */
    public String path()
    {
        return segment + "." + name;
    }

    @Override
    public String toString()
    {
        return path() + "=" + value;
    }
}
