// SPDX-License-Identifier: Apache-2.0
/**
 * FFM bindings for libibverbs and libmlx5 (rdma-core 44), written by hand in the shape jextract would produce.
 *
 * <h2>Layouts</h2>
 * One class per C struct (named after it: {@code IbvQp} is {@code struct ibv_qp}, {@code Mlx5dvQp} is
 * {@code struct mlx5dv_qp}), each with a {@code public static final GroupLayout LAYOUT} that names every
 * member and spells out padding, and {@code X_OFFSET} constants computed from that layout by {@link
 * io.mlx5j.bindings.Layouts#offset}. ibv_* structs are native order; {@code __be} members use the big-endian layouts of
 * {@link io.mlx5j.bindings.CTypes}. The PRM's WQE segments and CQEs are not here: the wire format is the
 * wqe-builder module's, with its own layout test against the same headers; only {@code mlx5_wqe_av}, which the
 * provider hands out (mlx5dv_ah.av), has a layout here. LayoutTest proves every layout against gcc's view of
 * the installed headers (sizeof/alignof/offsetof, and the member lists from DWARF).
 *
 * <h2>Functions</h2>
 * {@link io.mlx5j.bindings.Verbs} (libibverbs), {@link io.mlx5j.bindings.Mlx5dv} (libmlx5) and
 * {@link io.mlx5j.bindings.Libc} (poll, under {@link io.mlx5j.bindings.FdPoll}) bind exported symbols,
 * one lazily linked holder per function; calls that report failure through errno take a
 * {@link io.mlx5j.bindings.CallState} segment first. {@link io.mlx5j.bindings.InlineVerbs} does what verbs.h's
 * static inline functions do: ibv_post_send/recv, ibv_poll_cq, ibv_req_notify_cq through {@code ibv_context_ops},
 * ibv_create_qp_ex / ibv_create_cq_ex / the ibv_query_port macro through {@code verbs_context}, and every
 * {@code ibv_wr_*} through {@code ibv_qp_ex}, with {@code critical(false)} variants for benchmarks.
 *
 * <h2>Safety</h2>
 * These are raw bindings: pointers returned by the library are zero-length segments, and nothing here tracks object
 * lifetimes. The {@code io.mlx5j.direct} package wraps them in arena-scoped objects.
 */
package io.mlx5j.bindings;
