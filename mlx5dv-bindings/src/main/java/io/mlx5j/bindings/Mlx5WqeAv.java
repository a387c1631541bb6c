// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;

/**
 * {@code struct mlx5_wqe_av} (mlx5dv.h, rdma-core 44): the address vector of a UD datagram segment, 48 bytes.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class Mlx5WqeAv
{
    /** Memory layout of {@code struct mlx5_wqe_av} (mlx5dv.h). */
    public static final GroupLayout LAYOUT = structLayout(
        unionLayout(
            structLayout(
                BE32.withName("qkey"),
                BE32.withName("reserved")).withName("qkey"),
            BE64.withName("dc_key")).withName("key"),
        BE32.withName("dqp_dct"),
        U8.withName("stat_rate_sl"),
        U8.withName("fl_mlid"),
        BE16.withName("rlid"),
        bytes(4).withName("reserved0"),
        bytes(6).withName("rmac"),
        U8.withName("tclass"),
        U8.withName("hop_limit"),
        BE32.withName("grh_gid_fl"),
        bytes(16).withName("rgid")).withName("mlx5_wqe_av");

    /** Byte offset of {@code key.qkey.qkey} in {@code struct mlx5_wqe_av}. */
    public static final long QKEY_OFFSET = offset(LAYOUT, "key", "qkey", "qkey");
    /** Byte offset of {@code key.dc_key} in {@code struct mlx5_wqe_av}. */
    public static final long DC_KEY_OFFSET = offset(LAYOUT, "key", "dc_key");
    /** Byte offset of {@code dqp_dct} in {@code struct mlx5_wqe_av}. */
    public static final long DQP_DCT_OFFSET = offset(LAYOUT, "dqp_dct");
    /** Byte offset of {@code stat_rate_sl} in {@code struct mlx5_wqe_av}. */
    public static final long STAT_RATE_SL_OFFSET = offset(LAYOUT, "stat_rate_sl");
    /** Byte offset of {@code fl_mlid} in {@code struct mlx5_wqe_av}. */
    public static final long FL_MLID_OFFSET = offset(LAYOUT, "fl_mlid");
    /** Byte offset of {@code rlid} in {@code struct mlx5_wqe_av}. */
    public static final long RLID_OFFSET = offset(LAYOUT, "rlid");
    /** Byte offset of {@code rmac} in {@code struct mlx5_wqe_av}. */
    public static final long RMAC_OFFSET = offset(LAYOUT, "rmac");
    /** Byte offset of {@code tclass} in {@code struct mlx5_wqe_av}. */
    public static final long TCLASS_OFFSET = offset(LAYOUT, "tclass");
    /** Byte offset of {@code hop_limit} in {@code struct mlx5_wqe_av}. */
    public static final long HOP_LIMIT_OFFSET = offset(LAYOUT, "hop_limit");
    /** Byte offset of {@code grh_gid_fl} in {@code struct mlx5_wqe_av}. */
    public static final long GRH_GID_FL_OFFSET = offset(LAYOUT, "grh_gid_fl");
    /** Byte offset of {@code rgid} in {@code struct mlx5_wqe_av}. */
    public static final long RGID_OFFSET = offset(LAYOUT, "rgid");

    private Mlx5WqeAv()
    {
    }
}
