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
 * A send or receive WQE decoded into named fields, and printed one segment a line:
 * <pre>
 * ctrl      opcode=RDMA_WRITE opmod=0x00 wqe_index=5 qpn=0x000123 ds=3 signature=0x00 rsvd=0x0000
 *           fm_ce_se=CQ_UPDATE|SOLICITED imm=0x00000000   (one line in the dump)
 * raddr     raddr=0x00007f0012345678 rkey=0x5eed0001 rsvd=0x00000000
 * data[0]   byte_count=100 lkey=0x00001234 addr=0x00007f00aabbcc00
 * </pre>
 * The decoder is written from rdma-core v44 providers/mlx5/mlx5dv.h (struct mlx5_wqe_ctrl_seg, mlx5_wqe_raddr_seg,
 * mlx5_wqe_atomic_seg, mlx5_wqe_datagram_seg / mlx5_wqe_av, mlx5_wqe_eth_seg, mlx5_wqe_data_seg,
 * mlx5_wqe_inline_seg, mlx5_wqe_srq_next_seg) and the segment order of providers/mlx5/qp.c (_mlx5_post_send), and
 * uses nothing of mlx5j's own encoders: a dump judges an encoder, it does not repeat it.
 * <p>
 * A send WQE is as long as its ctrl segment's ds says (16-byte units); bytes past it are not part of the WQE and are
 * not decoded, bytes missing before it show as a {@code truncated} field. Values are unsigned; addresses, keys and
 * QP numbers in hex, lengths and indexes in decimal.
 *
 * <p>Thread model: immutable once built; any thread.
 */
public final class WqeDump
{
    /** One send WQE basic block (MLX5_SEND_WQE_BB). */
    public static final int MLX5_SEND_WQE_BB = 64;

    private final byte[] bytes;
    private final List<WqeField> fields;

    private WqeDump(final byte[] bytes, final List<WqeField> fields)
    {
        this.bytes = bytes;
        this.fields = Collections.unmodifiableList(fields);
    }

    /**
     * The send WQE whose ctrl segment starts {@code wqe} (at least ds 16-byte units of it are decoded).
     *
     * @param wqe the WQE's bytes
     * @param kind the QP type (which segments follow ctrl)
     * @return the dump
     */
    public static WqeDump send(final byte[] wqe, final QpKind kind)
    {
        final byte[] b = wqe.clone();
        return new WqeDump(b, decodeSend(b, kind));
    }

    /**
     * The send WQE given as hex text (white space, ':' and ',' between bytes are allowed).
     *
     * @param hex the bytes as hex text
     * @param kind the QP type (which segments follow ctrl)
     * @return the dump
     */
    public static WqeDump send(final String hex, final QpKind kind)
    {
        return send(Bytes.parseHex(hex), kind);
    }

    /**
     * The send WQE at {@code wqe} (its ctrl segment): ds is read there and that many 16-byte units are copied. An
     * address-only segment must be given its size first ({@code MemorySegment.ofAddress(a).reinterpret(n)}).
     *
     * @param wqe the WQE's memory
     * @param kind the QP type (which segments follow ctrl)
     * @return the dump
     */
    public static WqeDump send(final MemorySegment wqe, final QpKind kind)
    {
        final int ds = ds(wqe, 0);
        return send(Bytes.copy(wqe, 0, (int)Math.min(wqe.byteSize(), ds * 16L)), kind);
    }

    /**
     * The send WQE at WQEBB {@code index} (taken modulo {@code wqeCnt}, a power of two) of the send ring {@code sq}
     * (mlx5dv_qp.sq.buf), following it across the end of the ring as libmlx5 writes it (qp.c, "qend").
     *
     * @param sq the send ring
     * @param wqeCnt the ring's WQEBB count, a power of two
     * @param index the WQEBB index
     * @param kind the QP type (which segments follow ctrl)
     * @return the dump
     */
    public static WqeDump sendFromRing(final MemorySegment sq, final int wqeCnt, final int index, final QpKind kind)
    {
        return send(linearize(sq, wqeCnt, index), kind);
    }

    /**
     * The ds units of the WQE at WQEBB {@code index} of the ring, unwrapped (what {@link #sendFromRing} decodes).
     *
     * @param sq the send ring
     * @param wqeCnt the ring's WQEBB count, a power of two
     * @param index the WQEBB index
     * @return the WQE's bytes
     */
    public static byte[] linearize(final MemorySegment sq, final int wqeCnt, final int index)
    {
        if (Integer.bitCount(wqeCnt) != 1 || sq.byteSize() < (long)wqeCnt * MLX5_SEND_WQE_BB)
        {
            throw new IllegalArgumentException("a send ring of " + wqeCnt + " WQEBBs (a power of two) needs "
                + (long)wqeCnt * MLX5_SEND_WQE_BB + " bytes, the segment has " + sq.byteSize());
        }
        final long size = (long)wqeCnt * MLX5_SEND_WQE_BB;
        final long start = (long)(index & (wqeCnt - 1)) * MLX5_SEND_WQE_BB;
        final int len = ds(sq, start) * 16;
        if (len > size)
        {
            // garbage in qpn_ds (an unwritten or overwritten ring) must name itself, not fail inside the copy
            throw new IllegalArgumentException("the WQE at WQEBB " + index + " claims ds " + len / 16 + " ("
                + len + " bytes), more than the whole ring of " + size + " bytes");
        }
        final byte[] out = new byte[len];
        final int first = (int)Math.min(len, size - start);
        MemorySegment.copy(sq, java.lang.foreign.ValueLayout.JAVA_BYTE, start, out, 0, first);
        MemorySegment.copy(sq, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, out, first, len - first);
        return out;
    }

    /**
     * A receive WQE of a QP's receive queue: data segments up to the end of {@code wqe} or MLX5_INVALID_LKEY.
     *
     * @param wqe the WQE's bytes
     * @return the dump
     */
    public static WqeDump recv(final byte[] wqe)
    {
        final byte[] b = wqe.clone();
        return new WqeDump(b, decodeRecv(b, false));
    }

    /**
     * A receive WQE given as hex text.
     *
     * @param hex the bytes as hex text
     * @return the dump
     */
    public static WqeDump recv(final String hex)
    {
        return recv(Bytes.parseHex(hex));
    }

    /**
     * The receive WQE of {@code stride} bytes (the RQ's 1 &lt;&lt; wqe_shift) at {@code wqe}.
     *
     * @param wqe the WQE's memory
     * @param stride the receive WQE size in bytes
     * @return the dump
     */
    public static WqeDump recv(final MemorySegment wqe, final int stride)
    {
        return recv(Bytes.copy(wqe, 0, stride));
    }

    /**
     * A receive WQE of a shared receive queue: struct mlx5_wqe_srq_next_seg, then data segments.
     *
     * @param wqe the WQE's bytes
     * @return the dump
     */
    public static WqeDump srqRecv(final byte[] wqe)
    {
        final byte[] b = wqe.clone();
        return new WqeDump(b, decodeRecv(b, true));
    }

    /**
     * A receive WQE of a shared receive queue, given as hex text.
     *
     * @param hex the bytes as hex text
     * @return the dump
     */
    public static WqeDump srqRecv(final String hex)
    {
        return srqRecv(Bytes.parseHex(hex));
    }

    /** {@return the decoded fields, in the order of their bytes} */
    public List<WqeField> fields()
    {
        return fields;
    }

    /**
     * The value of the field {@code path} ({@code ctrl.fm_ce_se}, {@code data[1].lkey}), or null.
     *
     * @param path the field's path
     * @return the value as text, or null
     */
    public String field(final String path)
    {
        return WqeField.find(fields, path);
    }

    /** {@return A copy of the bytes decoded} */
    public byte[] bytes()
    {
        return bytes.clone();
    }

    /** {@return one line per segment: its name padded to 10 columns, then name=value of each field} */
    public String text()
    {
        return WqeField.text(fields);
    }

    @Override
    public String toString()
    {
        return text();
    }

    private static int ds(final MemorySegment s, final long ctrl)
    {
        if (s.byteSize() - ctrl < 16)
        {
            throw new IllegalArgumentException("a ctrl segment needs 16 bytes, " + (s.byteSize() - ctrl) + " given");
        }
        final int ds = s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, ctrl + 7) & 0xff;
        if (ds == 0)
        {
            throw new IllegalArgumentException("ds 0 in the ctrl segment: no WQE there");
        }
        return ds;
    }

    private static List<WqeField> decodeSend(final byte[] b, final QpKind kind)
    {
        final List<WqeField> out = new ArrayList<>();
        if (b.length < 16)
        {
            out.add(new WqeField("ctrl", "truncated", 0, b.length, Bytes.hex(b, 0, b.length)));
            return out;
        }
        // struct mlx5_wqe_ctrl_seg: opmod_idx_opcode = opmod << 24 | wqe_index << 8 | opcode; qpn_ds = qpn << 8 | ds
        final int opcode = u8(b, 3);
        final int opmod = u8(b, 0);
        final int ds = u8(b, 7);
        out.add(new WqeField("ctrl", "opcode", 3, 1, PrmNames.opcode(opcode)));
        out.add(new WqeField("ctrl", "opmod", 0, 1, hex8(opmod)));
        out.add(new WqeField("ctrl", "wqe_index", 1, 2, Integer.toString(be16(b, 1))));
        out.add(new WqeField("ctrl", "qpn", 4, 3, hex24(be32(b, 4) >>> 8)));
        out.add(new WqeField("ctrl", "ds", 7, 1, Integer.toString(ds)));
        out.add(new WqeField("ctrl", "signature", 8, 1, hex8(u8(b, 8))));
        out.add(new WqeField("ctrl", "rsvd", 9, 2, hex16(be16(b, 9))));
        out.add(new WqeField("ctrl", "fm_ce_se", 11, 1, PrmNames.fmCeSe(u8(b, 11))));
        out.add(new WqeField("ctrl", "imm", 12, 4, hex32(be32(b, 12))));
        final int end = Math.min(b.length, ds * 16);
        int p = 16;
        if (opcode == 0)
        {
            return rest(b, p, end, ds, out);   // NOP: ctrl only
        }
        if (kind == QpKind.UD)
        {
            if (end - p < 48)
            {
                return rest(b, p, end, ds, out);
            }
            datagram(b, p, out);
            p += 48;
        }
        else if (kind == QpKind.RAW_PACKET)
        {
            final int size = eth(b, p, end, out);
            if (size < 0)
            {
                return rest(b, p, end, ds, out);
            }
            p += size;
        }
        else
        {
            final boolean atomic = opcode == PrmNames.MLX5_OPCODE_ATOMIC_CS || opcode == PrmNames.MLX5_OPCODE_ATOMIC_FA
                || opcode == PrmNames.MLX5_OPCODE_ATOMIC_MASKED_CS || opcode == PrmNames.MLX5_OPCODE_ATOMIC_MASKED_FA;
            if (atomic || opcode == PrmNames.MLX5_OPCODE_RDMA_WRITE || opcode == PrmNames.MLX5_OPCODE_RDMA_WRITE_IMM
                || opcode == PrmNames.MLX5_OPCODE_RDMA_READ)
            {
                if (end - p < 16)
                {
                    return rest(b, p, end, ds, out);
                }
                // struct mlx5_wqe_raddr_seg
                out.add(new WqeField("raddr", "raddr", p, 8, hex64(be64(b, p))));
                out.add(new WqeField("raddr", "rkey", p + 8, 4, hex32(be32(b, p + 8))));
                out.add(new WqeField("raddr", "rsvd", p + 12, 4, hex32(be32(b, p + 12))));
                p += 16;
            }
            if (atomic)
            {
                final int size = atomic(b, p, end, opcode, opmod, out);
                if (size < 0)
                {
                    return rest(b, p, end, ds, out);
                }
                p += size;
            }
        }
        return data(b, p, end, ds, out, false);
    }

    /** struct mlx5_wqe_datagram_seg: the address vector struct mlx5_wqe_av, 48 bytes. */
    private static void datagram(final byte[] b, final int p, final List<WqeField> out)
    {
        final String s = "datagram";
        final int dqp = be32(b, p + 8);
        final int grhGidFl = be32(b, p + 28);
        out.add(new WqeField(s, "qkey", p, 4, hex32(be32(b, p))));
        out.add(new WqeField(s, "rsvd", p + 4, 4, hex32(be32(b, p + 4))));
        out.add(new WqeField(s, "dqp_dct", p + 8, 4, ((dqp & PrmNames.MLX5_EXTENDED_UD_AV) != 0
            ? "EXTENDED_UD_AV|" : "") + hex24(dqp & 0xffffff)));
        // stat_rate_sl and fl_mlid stay whole: where the SL sits depends on the link (bits 3:0 on InfiniBand, bits
        // 3:1 on RoCE in libmlx5 mlx5_create_ah), not in the bytes; RoCE v2 keeps the UDP source port in rlid
        out.add(new WqeField(s, "stat_rate_sl", p + 12, 1, hex8(u8(b, p + 12))));
        out.add(new WqeField(s, "fl_mlid", p + 13, 1, hex8(u8(b, p + 13))));
        out.add(new WqeField(s, "rlid", p + 14, 2, hex16(be16(b, p + 14))));
        out.add(new WqeField(s, "rsvd0", p + 16, 4, hex32(be32(b, p + 16))));
        out.add(new WqeField(s, "rmac", p + 20, 6, Bytes.mac(b, p + 20)));
        out.add(new WqeField(s, "tclass", p + 26, 1, hex8(u8(b, p + 26))));
        out.add(new WqeField(s, "hop_limit", p + 27, 1, Integer.toString(u8(b, p + 27))));
        // grh_gid_fl: bit 30 GRH present, sgid index in bits 27:20, flow label in bits 19:0 (libmlx5 mlx5_create_ah)
        out.add(new WqeField(s, "grh", p + 28, 1, Integer.toString((grhGidFl >>> 30) & 1)));
        out.add(new WqeField(s, "sgid_index", p + 28, 2, Integer.toString((grhGidFl >>> 20) & 0xff)));
        out.add(new WqeField(s, "flow_label", p + 29, 3, String.format("0x%05x", grhGidFl & 0xfffff)));
        out.add(new WqeField(s, "rgid", p + 32, 16, Bytes.ipv6(b, p + 32)));
    }

    /**
     * struct mlx5_wqe_eth_seg: swp_offs, cs_flags, swp_flags, mss, flow_table_metadata, then at byte 12 either
     * inline_hdr_sz with the inline headers from byte 14 on (continuing into the following 16-byte units: the segment
     * takes max(16, align16(14 + inline_hdr_sz)) bytes) or, with bit 15 set, the VLAN insert word. Returns its size,
     * or -1 if the bytes end inside it.
     */
    private static int eth(final byte[] b, final int p, final int end, final List<WqeField> out)
    {
        if (end - p < 16)
        {
            return -1;
        }
        final String s = "eth";
        out.add(new WqeField(s, "swp_offs", p, 4, hex32(be32(b, p))));
        out.add(new WqeField(s, "cs_flags", p + 4, 1, PrmNames.csFlags(u8(b, p + 4))));
        out.add(new WqeField(s, "swp_flags", p + 5, 1, hex8(u8(b, p + 5))));
        out.add(new WqeField(s, "mss", p + 6, 2, Integer.toString(be16(b, p + 6))));
        out.add(new WqeField(s, "flow_table_metadata", p + 8, 4, hex32(be32(b, p + 8))));
        final int word = be16(b, p + 12);
        if ((word & PrmNames.MLX5_ETH_WQE_INSERT_VLAN) != 0)
        {
            final int tci = be16(b, p + 14);
            out.add(new WqeField(s, "insert", p + 12, 2, "VLAN|" + hex16(word & 0x7fff)));
            out.add(new WqeField(s, "vlan_tci", p + 14, 2, "pcp=" + (tci >>> 13) + ",dei=" + ((tci >>> 12) & 1)
                + ",vid=" + (tci & 0xfff)));
            return 16;
        }
        final int sz = word & 0x3ff;
        out.add(new WqeField(s, "inline_hdr_sz", p + 12, 2, Integer.toString(sz)));
        final int size = Math.max(16, (14 + sz + 15) & ~15);
        if (end - p < size)
        {
            return -1;
        }
        if ((word & ~0x3ff) != 0)
        {
            out.add(new WqeField(s, "rsvd", p + 12, 1, hex16(word & ~0x3ff)));
        }
        FrameHeaders.decode(b, p + 14, sz, s, out);
        if (14 + sz < size)
        {
            out.add(new WqeField(s, "pad", p + 14 + sz, size - 14 - sz, Bytes.hex(b, p + 14 + sz, size - 14 - sz)));
        }
        return size;
    }

    /**
     * struct mlx5_wqe_atomic_seg (swap_add, compare) for ATOMIC_CS / ATOMIC_FA; for the masked atomics the layouts of
     * the PRM's "Atomic Operations" by opmod (MLX5_OPMOD_EXT_ATOMIC_32 0x8, _64 0x9). Returns the size or -1.
     */
    private static int atomic(final byte[] b, final int p, final int end, final int opcode, final int opmod,
        final List<WqeField> out)
    {
        final String s = "atomic";
        if (opcode == PrmNames.MLX5_OPCODE_ATOMIC_CS || opcode == PrmNames.MLX5_OPCODE_ATOMIC_FA)
        {
            if (end - p < 16)
            {
                return -1;
            }
            out.add(new WqeField(s, "swap_add", p, 8, hex64(be64(b, p))));
            out.add(new WqeField(s, "compare", p + 8, 8, hex64(be64(b, p + 8))));
            return 16;
        }
        final boolean cs = opcode == PrmNames.MLX5_OPCODE_ATOMIC_MASKED_CS;
        if (opmod == 0x9 && cs)
        {
            if (end - p < 32)
            {
                return -1;
            }
            out.add(new WqeField(s, "swap", p, 8, hex64(be64(b, p))));
            out.add(new WqeField(s, "compare", p + 8, 8, hex64(be64(b, p + 8))));
            out.add(new WqeField(s, "swap_mask", p + 16, 8, hex64(be64(b, p + 16))));
            out.add(new WqeField(s, "compare_mask", p + 24, 8, hex64(be64(b, p + 24))));
            return 32;
        }
        if (end - p < 16)
        {
            return -1;
        }
        if (opmod == 0x9)
        {
            out.add(new WqeField(s, "add", p, 8, hex64(be64(b, p))));
            out.add(new WqeField(s, "field_boundary", p + 8, 8, hex64(be64(b, p + 8))));
        }
        else if (cs)
        {
            out.add(new WqeField(s, "swap", p, 4, hex32(be32(b, p))));
            out.add(new WqeField(s, "compare", p + 4, 4, hex32(be32(b, p + 4))));
            out.add(new WqeField(s, "swap_mask", p + 8, 4, hex32(be32(b, p + 8))));
            out.add(new WqeField(s, "compare_mask", p + 12, 4, hex32(be32(b, p + 12))));
        }
        else
        {
            out.add(new WqeField(s, "add", p, 4, hex32(be32(b, p))));
            out.add(new WqeField(s, "field_boundary", p + 4, 4, hex32(be32(b, p + 4))));
            out.add(new WqeField(s, "rsvd", p + 8, 8, hex64(be64(b, p + 8))));
        }
        return 16;
    }

    /** Data and inline segments from {@code p} to {@code end}. */
    private static List<WqeField> data(final byte[] b, final int from, final int end, final int ds,
        final List<WqeField> out, final boolean recv)
    {
        int p = from;
        int nData = 0;
        int nInline = 0;
        while (end - p >= 16)
        {
            final int byteCount = be32(b, p);
            if (!recv && (byteCount & PrmNames.MLX5_INLINE_SEG) != 0)
            {
                // struct mlx5_wqe_inline_seg: byte_count | MLX5_INLINE_SEG, the bytes, padding to 16
                final String s = "inline" + (nInline++ == 0 ? "" : "[" + (nInline - 1) + "]");
                final int len = byteCount & ~PrmNames.MLX5_INLINE_SEG;
                out.add(new WqeField(s, "byte_count", p, 4, "MLX5_INLINE_SEG|" + len));
                final int have = Math.min(len, end - p - 4);
                out.add(new WqeField(s, "data", p + 4, have, Bytes.hex(b, p + 4, have)));
                if (have < len)
                {
                    out.add(new WqeField(s, "truncated", p + 4 + have, 0, (len - have) + " bytes past ds"));
                    return out;
                }
                final int size = (4 + len + 15) & ~15;
                if (4 + len < size)
                {
                    out.add(new WqeField(s, "pad", p + 4 + len, size - 4 - len, Bytes.hex(b, p + 4 + len,
                        size - 4 - len)));
                }
                p += size;
                continue;
            }
            // struct mlx5_wqe_data_seg
            final String s = "data[" + nData++ + "]";
            final int lkey = be32(b, p + 4);
            out.add(new WqeField(s, "byte_count", p, 4, Integer.toUnsignedString(byteCount)));
            out.add(new WqeField(s, "lkey", p + 4, 4, hex32(lkey) + (recv && lkey == PrmNames.MLX5_INVALID_LKEY
                ? "(MLX5_INVALID_LKEY)" : "")));
            out.add(new WqeField(s, "addr", p + 8, 8, hex64(be64(b, p + 8))));
            p += 16;
            if (recv && lkey == PrmNames.MLX5_INVALID_LKEY)
            {
                return out;   // the terminator: what follows is not read by the device
            }
        }
        return rest(b, p, end, ds, out);
    }

    private static List<WqeField> rest(final byte[] b, final int p, final int end, final int ds,
        final List<WqeField> out)
    {
        if (p < end)
        {
            out.add(new WqeField("unit", "bytes", p, end - p, Bytes.hex(b, p, end - p)));
        }
        if (ds * 16 > b.length && ds > 0)
        {
            out.add(new WqeField("wqe", "truncated", b.length, 0, "ds " + ds + " is " + ds * 16 + " bytes, "
                + b.length + " given"));
        }
        return out;
    }

    private static List<WqeField> decodeRecv(final byte[] b, final boolean srq)
    {
        final List<WqeField> out = new ArrayList<>();
        int p = 0;
        if (srq)
        {
            if (b.length < 16)
            {
                out.add(new WqeField("next", "truncated", 0, b.length, Bytes.hex(b, 0, b.length)));
                return out;
            }
            // struct mlx5_wqe_srq_next_seg: rsvd0[2], next_wqe_index, signature, rsvd1[11]
            out.add(new WqeField("next", "rsvd0", 0, 2, hex16(be16(b, 0))));
            out.add(new WqeField("next", "next_wqe_index", 2, 2, Integer.toString(be16(b, 2))));
            out.add(new WqeField("next", "signature", 4, 1, hex8(u8(b, 4))));
            p = 16;
        }
        return data(b, p, b.length - (b.length - p) % 16, 0, out, true);
    }
}
