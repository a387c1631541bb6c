// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvDevice;
import io.mlx5j.bindings.Mlx5dv;
import io.mlx5j.bindings.Verbs;
import io.mlx5j.memory.Be;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One entry of a {@link DeviceList} ({@code struct ibv_device}). Name and GUID are read once, when listed; the entry
 * can be opened while its list is open.
 *
 * <p>Thread model: immutable; valid, and openable, only while its {@link DeviceList} is open.
 */
public final class Device
{
    private final DeviceList list;
    private final MemorySegment device;
    private final String name;
    private final long guid;
    private final boolean mlx5;

    Device(final DeviceList list, final MemorySegment raw, final Arena listArena)
    {
        this.list = list;
        this.device = raw.reinterpret(IbvDevice.LAYOUT.byteSize(), listArena, null);
        this.name = Verbs.ibv_get_device_name(device).reinterpret(IbvDevice.IBV_SYSFS_NAME_MAX).getString(0);
        // ibv_get_device_guid returns the __be64 as it lies in memory
        this.guid = Be.order(Verbs.ibv_get_device_guid(device));
        this.mlx5 = Mlx5dv.mlx5dv_is_supported(device);
    }

    /**
     * Kernel device name, e.g. {@code mlx5_0}.
     *
     * @return the name
     */
    public String name()
    {
        return name;
    }

    /**
     * Node GUID (host order of the 64-bit big-endian value), as ibv_devices prints it.
     *
     * @return the node GUID
     */
    public long guid()
    {
        return guid;
    }

    /** {@return true if libmlx5 drives this device, i.e. the direct path (mlx5dv_init_obj) can be used on it} */
    public boolean isMlx5()
    {
        return mlx5;
    }

    /** {@return {@code struct ibv_device *}, valid while the list is open} */
    public MemorySegment pointer()
    {
        list.ensureOpen();
        return device;
    }

    /**
     * Opens the device ({@code ibv_open_device}).
     *
     * @return the open context
     */
    public Context open()
    {
        list.ensureOpen();
        return Context.open(this);
    }

    @Override
    public String toString()
    {
        return String.format("%s(guid %016x%s)", name, guid, mlx5 ? ", mlx5" : "");
    }
}
