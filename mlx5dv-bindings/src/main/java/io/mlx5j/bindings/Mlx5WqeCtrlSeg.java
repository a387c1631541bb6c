package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct mlx5_wqe_ctrl_seg} (mlx5dv.h, rdma-core 44), declared {@code packed, aligned(4)}: the __be16
 * {@code dci_stream_channel_id} sits at the odd offset 9, so its layout needs byte alignment 1, and the struct
 * alignment 4 comes from the attribute, not from the members. Encoding belongs to wqe-builder; this is the
 * header's shape, used to prove offsets.
 */
public final class Mlx5WqeCtrlSeg
{
    public static final GroupLayout LAYOUT = structLayout(
        BE32.withByteAlignment(1).withName("opmod_idx_opcode"),
        BE32.withByteAlignment(1).withName("qpn_ds"),
        U8.withName("signature"),
        BE16.withByteAlignment(1).withName("dci_stream_channel_id"),
        U8.withName("fm_ce_se"),
        BE32.withByteAlignment(1).withName("imm")).withByteAlignment(4).withName("mlx5_wqe_ctrl_seg");

    public static final long OPMOD_IDX_OPCODE_OFFSET = offset(LAYOUT, "opmod_idx_opcode");
    public static final long QPN_DS_OFFSET = offset(LAYOUT, "qpn_ds");
    public static final long SIGNATURE_OFFSET = offset(LAYOUT, "signature");
    public static final long DCI_STREAM_CHANNEL_ID_OFFSET = offset(LAYOUT, "dci_stream_channel_id");
    public static final long FM_CE_SE_OFFSET = offset(LAYOUT, "fm_ce_se");
    public static final long IMM_OFFSET = offset(LAYOUT, "imm");

    private Mlx5WqeCtrlSeg()
    {
    }
}
