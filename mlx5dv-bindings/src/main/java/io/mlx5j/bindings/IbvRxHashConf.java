// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_rx_hash_conf} (verbs.h, rdma-core 44): embedded in ibv_qp_init_attr_ex: the hash of
 * an RSS QP (IBV_QP_INIT_ATTR_RX_HASH), its key and the header fields it covers.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvRxHashConf
{
    /** Memory layout of {@code struct ibv_rx_hash_conf} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        U8.withName("rx_hash_function"),
        U8.withName("rx_hash_key_len"),
        pad(6),
        C_POINTER.withName("rx_hash_key"),
        U64.withName("rx_hash_fields_mask")).withName("ibv_rx_hash_conf");

    /** Byte offset of {@code rx_hash_function} in {@code struct ibv_rx_hash_conf}. */
    public static final long RX_HASH_FUNCTION_OFFSET = offset(LAYOUT, "rx_hash_function");
    /** Byte offset of {@code rx_hash_key_len} in {@code struct ibv_rx_hash_conf}. */
    public static final long RX_HASH_KEY_LEN_OFFSET = offset(LAYOUT, "rx_hash_key_len");
    /** Byte offset of {@code rx_hash_key} in {@code struct ibv_rx_hash_conf}. */
    public static final long RX_HASH_KEY_OFFSET = offset(LAYOUT, "rx_hash_key");
    /** Byte offset of {@code rx_hash_fields_mask} in {@code struct ibv_rx_hash_conf}. */
    public static final long RX_HASH_FIELDS_MASK_OFFSET = offset(LAYOUT, "rx_hash_fields_mask");

    /** enum ibv_rx_hash_function_flags */
    public static final int IBV_RX_HASH_FUNC_TOEPLITZ = 1 << 0;

    private IbvRxHashConf()
    {
    }
}
