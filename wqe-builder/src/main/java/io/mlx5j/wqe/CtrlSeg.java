// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;

import java.lang.foreign.MemorySegment;

/**
 * Control segment: the first 16 bytes of every send WQE (PRM "Control Segment", {@code struct mlx5_wqe_ctrl_seg}
 * in rdma-core v44 mlx5dv.h, packed, 16 bytes).
 * <pre>
 *        31           24 23                        8 7             0
 *       +---------------+---------------------------+---------------+
 *  0x00 |     opmod     |         wqe_index         |     opcode    |  opmod_idx_opcode
 *       +---------------+---------------------------+---------------+
 *  0x04 |                    qpn                    |rsv|    ds     |  qpn_ds
 *       +---------------+---------------------------+---------------+
 *  0x08 |   signature   |   dci_stream_channel_id   |    fm_ce_se   |
 *       +---------------+---------------------------+---------------+
 *  0x0C |           imm (immediate data / invalidate rkey)          |  imm
 *       +-----------------------------------------------------------+
 * </pre>
 * wqe_index is the low 16 bits of the WQEBB producer counter (it wraps at 0xffff whatever the ring size); ds counts
 * the 16-byte units of the whole WQE including this segment; fm_ce_se holds fence mode in bits 7..5, completion mode
 * in bits 3..2 and solicited event in bit 1. Bytes 8..11 are stored as one big-endian word (signature 0, stream
 * channel 0, fm_ce_se), which keeps every store 4-byte aligned although the C struct is packed.
 *
 * <p>Thread model: static methods over memory the caller passes, no state of their own; any thread may call them, and
 * the ring they write belongs to the thread that posts to it.
 */
public final class CtrlSeg
{
    /** Byte offset of {@code opmod_idx_opcode} in the control segment ({@code struct mlx5_wqe_ctrl_seg}). */
    public static final int OPMOD_IDX_OPCODE_OFFSET = 0;
    /** Byte offset of {@code qpn_ds} in the control segment ({@code struct mlx5_wqe_ctrl_seg}). */
    public static final int QPN_DS_OFFSET = 4;
    /** Byte offset of {@code signature} in the control segment ({@code struct mlx5_wqe_ctrl_seg}). */
    public static final int SIGNATURE_OFFSET = 8;
    /** Byte offset of {@code dci_stream_channel_id} in the control segment ({@code struct mlx5_wqe_ctrl_seg}). */
    public static final int DCI_STREAM_CHANNEL_ID_OFFSET = 9;
    /** Byte offset of {@code fm_ce_se} in the control segment ({@code struct mlx5_wqe_ctrl_seg}). */
    public static final int FM_CE_SE_OFFSET = 11;
    /** Byte offset of {@code imm} in the control segment ({@code struct mlx5_wqe_ctrl_seg}). */
    public static final int IMM_OFFSET = 12;
    /** Size of the control segment ({@code struct mlx5_wqe_ctrl_seg}) in bytes. */
    public static final int LENGTH = 16;

    /** Generate a CQE for this WQE (completion mode "always"). */
    public static final int MLX5_WQE_CTRL_CQ_UPDATE = 2 << 2;
    /** Solicited event at the responder. */
    public static final int MLX5_WQE_CTRL_SOLICITED = 1 << 1;
    /** Strong fence: wait for all earlier WQEs (fence mode 4). */
    public static final int MLX5_WQE_CTRL_FENCE = 4 << 5;
    /** Initiator small fence: wait for earlier RDMA READ/atomic responses only (fence mode 1). */
    public static final int MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE = 1 << 5;

    /**
     * Largest ds: the PRM field is 6 bits (qpn_ds bits 5..0; bits 7..6 are reserved), as libmlx5's WQE size
     * limit assumes; the one definition every module uses (the doorbell module checks ds against it).
     * mlx5dv_set_ctrl_seg takes a uint8_t, but a larger value would spill into reserved bits.
     */
    public static final int MAX_DS = 0x3f;

    private CtrlSeg()
    {
    }

    /**
     * The word at {@link #OPMOD_IDX_OPCODE_OFFSET}: opmod in bits 31..24, wqe_index in 23..8, opcode in 7..0. Pure.
     *
     * @param opmod the opcode modifier, 8 bits
     * @param wqeIndex the WQE index, low 16 bits of the producer counter
     * @param opcode the {@link Mlx5Opcode} value, 8 bits
     * @return the word, to be stored big-endian
     */
    public static int opmodIdxOpcode(final int opmod, final int wqeIndex, final int opcode)
    {
        return (opmod << 24) | ((wqeIndex & 0xffff) << 8) | (opcode & 0xff);
    }

    /**
     * The word at {@link #QPN_DS_OFFSET}: the QP number in bits 31..8, ds in bits 5..0. Pure.
     *
     * @param qpn the QP number, 24 bits
     * @param ds the WQE size in 16-byte units, 6 bits
     * @return the word, to be stored big-endian
     */
    public static int qpnDs(final int qpn, final int ds)
    {
        return (qpn << 8) | (ds & MAX_DS);
    }

    /**
     * Word at {@link #SIGNATURE_OFFSET}: signature, dci_stream_channel_id (0) and fm_ce_se.
     *
     * @param signature the signature byte (0 unless WQE signatures are enabled)
     * @param fmCeSe OR of {@code MLX5_WQE_CTRL_*}
     * @return the word, to be stored big-endian
     */
    public static int signatureWord(final int signature, final int fmCeSe)
    {
        return ((signature & 0xff) << 24) | (fmCeSe & 0xff);
    }

    /**
     * First 8 bytes as one big-endian word: opmod_idx_opcode, then qpn_ds.
     *
     * @param opmodIdxOpcode {@link #opmodIdxOpcode}
     * @param qpnDs {@link #qpnDs}
     * @return the word, to be stored big-endian
     */
    public static long word0(final int opmodIdxOpcode, final int qpnDs)
    {
        return ((long)opmodIdxOpcode << 32) | (qpnDs & 0xffffffffL);
    }

    /**
     * Last 8 bytes as one big-endian word: signature 0, dci_stream_channel_id 0, fm_ce_se, then imm.
     *
     * @param fmCeSe OR of {@code MLX5_WQE_CTRL_*}
     * @param imm immediate data or invalidate rkey, stored big-endian
     * @return the word, to be stored big-endian
     */
    public static long word8(final int fmCeSe, final int imm)
    {
        return ((long)(fmCeSe & 0xff) << 32) | (imm & 0xffffffffL);
    }

    /**
     * Encode the segment at {@code at} as mlx5dv_set_ctrl_seg does (signature 0), with two 8-byte big-endian stores:
     * opmod_idx_opcode and qpn_ds in one, the signature word and imm in the other.
     *
     * @param opmodIdxOpcode {@link #opmodIdxOpcode}
     * @param qpnDs          {@link #qpnDs}
     * @param fmCeSe         OR of {@code MLX5_WQE_CTRL_*}
     * @param imm            immediate data or invalidate rkey, stored big-endian
     * @param sq the whole send ring
     * @param at offset of the segment in {@code sq}, 64-byte aligned
     */
    public static void set(final MemorySegment sq, final long at, final int opmodIdxOpcode, final int qpnDs,
        final int fmCeSe, final int imm)
    {
        Be.BE64.set(sq, at + OPMOD_IDX_OPCODE_OFFSET, word0(opmodIdxOpcode, qpnDs));
        Be.BE64.set(sq, at + SIGNATURE_OFFSET, word8(fmCeSe, imm));
    }

    /**
     * {@link #set} at a ring address ({@link RingStores}: only an address inside a live ring, 8-aligned).
     * Small and static so that C2 inlines it into every post.
     *
     * @param address ring address of the segment, 16-byte aligned
     * @param opmodIdxOpcode {@link #opmodIdxOpcode}
     * @param qpnDs {@link #qpnDs}
     * @param fmCeSe OR of {@code MLX5_WQE_CTRL_*}
     * @param imm immediate data or invalidate rkey, stored big-endian
     */
    public static void put(final long address, final int opmodIdxOpcode, final int qpnDs, final int fmCeSe,
        final int imm)
    {
        RingStores.putLongBE(address + OPMOD_IDX_OPCODE_OFFSET, word0(opmodIdxOpcode, qpnDs));
        RingStores.putLongBE(address + SIGNATURE_OFFSET, word8(fmCeSe, imm));
    }
}
