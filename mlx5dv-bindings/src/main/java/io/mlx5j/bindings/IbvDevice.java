// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;

import static io.mlx5j.bindings.CTypes.*;
import static io.mlx5j.bindings.Layouts.offset;
import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct ibv_device} (verbs.h, rdma-core 44): returned by ibv_get_device_list, read for its names only.
 *
 * <p>Thread model: constants only; any thread. The memory a layout describes belongs to whoever owns the C object.
 */
public final class IbvDevice
{
    /** {@code IBV_SYSFS_NAME_MAX} ({@code infiniband/verbs.h}). */
    public static final int IBV_SYSFS_NAME_MAX = 64;
    /** {@code IBV_SYSFS_PATH_MAX} ({@code infiniband/verbs.h}). */
    public static final int IBV_SYSFS_PATH_MAX = 256;

    /** Memory layout of {@code struct ibv_device} (verbs.h). */
    public static final GroupLayout LAYOUT = structLayout(
        structLayout(
            C_POINTER.withName("_dummy1"),
            C_POINTER.withName("_dummy2")).withName("_ops"),
        C_INT.withName("node_type"),
        C_INT.withName("transport_type"),
        bytes(IBV_SYSFS_NAME_MAX).withName("name"),
        bytes(IBV_SYSFS_NAME_MAX).withName("dev_name"),
        bytes(IBV_SYSFS_PATH_MAX).withName("dev_path"),
        bytes(IBV_SYSFS_PATH_MAX).withName("ibdev_path")).withName("ibv_device");

    /** Byte offset of {@code node_type} in {@code struct ibv_device}. */
    public static final long NODE_TYPE_OFFSET = offset(LAYOUT, "node_type");
    /** Byte offset of {@code transport_type} in {@code struct ibv_device}. */
    public static final long TRANSPORT_TYPE_OFFSET = offset(LAYOUT, "transport_type");
    /** Byte offset of {@code name} in {@code struct ibv_device}. */
    public static final long NAME_OFFSET = offset(LAYOUT, "name");
    /** Byte offset of {@code dev_name} in {@code struct ibv_device}. */
    public static final long DEV_NAME_OFFSET = offset(LAYOUT, "dev_name");
    /** Byte offset of {@code dev_path} in {@code struct ibv_device}. */
    public static final long DEV_PATH_OFFSET = offset(LAYOUT, "dev_path");
    /** Byte offset of {@code ibdev_path} in {@code struct ibv_device}. */
    public static final long IBDEV_PATH_OFFSET = offset(LAYOUT, "ibdev_path");

    private IbvDevice()
    {
    }
}
