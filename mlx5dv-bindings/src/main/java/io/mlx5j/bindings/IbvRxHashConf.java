package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static java.lang.foreign.MemoryLayout.structLayout;

/** {@code struct ibv_rx_hash_conf} (verbs.h, rdma-core 44): embedded in ibv_qp_init_attr_ex; unused by mlx5j. */
public final class IbvRxHashConf
{
    public static final GroupLayout LAYOUT = structLayout(
        U8.withName("rx_hash_function"),
        U8.withName("rx_hash_key_len"),
        pad(6),
        C_POINTER.withName("rx_hash_key"),
        U64.withName("rx_hash_fields_mask")).withName("ibv_rx_hash_conf");

    private IbvRxHashConf()
    {
    }
}
