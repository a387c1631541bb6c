// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.mlx5j.testkit.Bytes.be16;
import static io.mlx5j.testkit.Bytes.be32;
import static io.mlx5j.testkit.Bytes.be64;
import static io.mlx5j.testkit.Bytes.hex16;
import static io.mlx5j.testkit.Bytes.hex24;
import static io.mlx5j.testkit.Bytes.hex32;
import static io.mlx5j.testkit.Bytes.hex64;
import static io.mlx5j.testkit.Bytes.hex8;
import static io.mlx5j.testkit.Bytes.u8;

/**
 * A 64-byte CQE (struct mlx5_cqe64, rdma-core v44 providers/mlx5/mlx5dv.h) decoded into named fields, printed in three
 * lines: the op_own byte and the words every CQE has, then either the error CQE's fields (struct mlx5_err_cqe:
 * syndrome by name, vendor_err_synd, the WQE opcode) or the receive/offload fields (checksum bits, header types,
 * flags_rqpn, vlan_info). Like {@link WqeDump} it uses nothing of mlx5j's own CQE code.
 * <pre>
 * cqe       opcode=REQ format=0 se=0 owner=1 wqe_counter=7 byte_cnt=4096 qpn=0x000123 wqe_opcode=RDMA_WRITE ...
 * </pre>
 *
 * <p>Thread model: immutable once built; any thread.
 */
public final class CqeDump
{
    /** sizeof(struct mlx5_cqe64). */
    public static final int LENGTH = 64;

    private final byte[] bytes;
    private final List<WqeField> fields;

    private CqeDump(final byte[] bytes, final List<WqeField> fields)
    {
        this.bytes = bytes;
        this.fields = Collections.unmodifiableList(fields);
    }

    /**
     * The CQE in these 64 bytes.
     *
     * @param cqe the CQE's 64 bytes
     * @return the dump
     */
    public static CqeDump of(final byte[] cqe)
    {
        if (cqe.length != LENGTH)
        {
            throw new IllegalArgumentException("a CQE is 64 bytes (struct mlx5_cqe64), " + cqe.length + " given");
        }
        final byte[] b = cqe.clone();
        return new CqeDump(b, decode(b));
    }

    /**
     * The CQE given as hex text (64 bytes).
     *
     * @param hex the 64 bytes as hex text
     * @return the dump
     */
    public static CqeDump of(final String hex)
    {
        return of(Bytes.parseHex(hex));
    }

    /**
     * The CQE at {@code cqe} (its first 64 bytes).
     *
     * @param cqe the CQE's 64 bytes
     * @return the dump
     */
    public static CqeDump of(final MemorySegment cqe)
    {
        return of(Bytes.copy(cqe, 0, LENGTH));
    }

    /** {@return the decoded fields, in the order of their bytes} */
    public List<WqeField> fields()
    {
        return fields;
    }

    /**
     * The value of the field {@code path} ({@code cqe.opcode}, {@code err.syndrome}), or null.
     *
     * @param path the field's path
     * @return the value as text, or null
     */
    public String field(final String path)
    {
        return WqeField.find(fields, path);
    }

    /** {@return a copy of the bytes decoded} */
    public byte[] bytes()
    {
        return bytes.clone();
    }

    /** {@return one line per group of fields, as {@link WqeDump#text()}} */
    public String text()
    {
        return WqeField.text(fields);
    }

    @Override
    public String toString()
    {
        return text();
    }

    private static List<WqeField> decode(final byte[] b)
    {
        final List<WqeField> out = new ArrayList<>();
        // op_own: opcode bits 7:4, format (compressed CQE) bits 3:2, se bit 1, owner bit 0
        final int opOwn = u8(b, 63);
        final int opcode = opOwn >>> 4;
        final String c = "cqe";
        out.add(new WqeField(c, "opcode", 63, 1, PrmNames.cqeOpcode(opcode)));
        out.add(new WqeField(c, "format", 63, 1, Integer.toString((opOwn >>> 2) & 3)));
        out.add(new WqeField(c, "se", 63, 1, Integer.toString((opOwn >>> 1) & 1)));
        out.add(new WqeField(c, "owner", 63, 1, Integer.toString(opOwn & 1)));
        out.add(new WqeField(c, "wqe_counter", 60, 2, Integer.toString(be16(b, 60))));
        out.add(new WqeField(c, "signature", 62, 1, hex8(u8(b, 62))));
        final int sopDropQpn = be32(b, 56);
        if (opcode == PrmNames.MLX5_CQE_REQ_ERR || opcode == PrmNames.MLX5_CQE_RESP_ERR)
        {
            // struct mlx5_err_cqe: srqn at 32, vendor_err_synd at 54, syndrome at 55, s_wqe_opcode_qpn at 56
            final String e = "err";
            out.add(new WqeField(c, "qpn", 57, 3, hex24(sopDropQpn & 0xffffff)));
            out.add(new WqeField(e, "syndrome", 55, 1, PrmNames.syndrome(u8(b, 55))));
            out.add(new WqeField(e, "vendor_err_synd", 54, 1, hex8(u8(b, 54))));
            out.add(new WqeField(e, "s_wqe_opcode", 56, 1, opcode == PrmNames.MLX5_CQE_REQ_ERR
                ? PrmNames.opcode(sopDropQpn >>> 24) : hex8(sopDropQpn >>> 24)));
            out.add(new WqeField(e, "srqn", 32, 4, hex24(be32(b, 32) & 0xffffff)));
            return out;
        }
        out.add(new WqeField(c, "byte_cnt", 44, 4, Integer.toUnsignedString(be32(b, 44))));
        out.add(new WqeField(c, "qpn", 57, 3, hex24(sopDropQpn & 0xffffff)));
        if (opcode == PrmNames.MLX5_CQE_REQ)
        {
            // a requester CQE carries the opcode of the WQE it completes in the top byte of sop_drop_qpn
            out.add(new WqeField(c, "wqe_opcode", 56, 1, PrmNames.opcode(sopDropQpn >>> 24)));
        }
        else
        {
            out.add(new WqeField(c, "sop_drop", 56, 1, hex8(sopDropQpn >>> 24)));
        }
        out.add(new WqeField(c, "imm_inval_pkey", 36, 4, hex32(be32(b, 36))));
        out.add(new WqeField(c, "srqn_uidx", 32, 4, hex24(be32(b, 32) & 0xffffff)));
        out.add(new WqeField(c, "timestamp", 48, 8, hex64(be64(b, 48))));
        if (opcode == PrmNames.MLX5_CQE_REQ)
        {
            return out;   // the receive fields below mean nothing in a requester CQE
        }
        // receive side: checksum result (hds_ip_ext), header types (l4_hdr_type_etc), source of the packet
        final String r = "rx";
        final int l4Etc = u8(b, 29);
        final int flagsRqpn = be32(b, 24);
        out.add(new WqeField(r, "csum", 28, 1, PrmNames.csumOk(u8(b, 28))));
        out.add(new WqeField(r, "l3_hdr_type", 29, 1, PrmNames.l3HdrType((l4Etc >>> 2) & 3)));
        out.add(new WqeField(r, "l4_hdr_type", 29, 1, PrmNames.l4HdrType((l4Etc >>> 4) & 7)));
        out.add(new WqeField(r, "cv", 29, 1, Integer.toString(l4Etc & 1)));
        out.add(new WqeField(r, "vlan_info", 30, 2, hex16(be16(b, 30))));
        out.add(new WqeField(r, "flags", 24, 1, hex8(flagsRqpn >>> 24)));
        out.add(new WqeField(r, "rqpn", 25, 3, hex24(flagsRqpn & 0xffffff)));
        out.add(new WqeField(r, "slid", 22, 2, hex16(be16(b, 22))));
        out.add(new WqeField(r, "ml_path", 17, 1, hex8(u8(b, 17))));
        out.add(new WqeField(r, "check_sum", 20, 2, hex16(be16(b, 20))));
        out.add(new WqeField(r, "rss_hash_type", 16, 1, hex8(u8(b, 16))));
        out.add(new WqeField(r, "rss_hash_result", 12, 4, hex32(be32(b, 12))));
        out.add(new WqeField(r, "wqe_id", 2, 2, Integer.toString(be16(b, 2))));
        return out;
    }
}
