// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CTypes;
import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The RDMA devices libibverbs sees ({@code ibv_get_device_list}). The {@link Device} entries are valid while the list
 * is open; a {@link Context} opened from one stays valid after the list is closed (libibverbs keeps the device
 * referenced by the context).
 *
 * <p>Thread model: a list is used by the thread that opened it; the {@link Device}s it hands out are only valid until
 * it closes.
 */
public final class DeviceList implements AutoCloseable
{
    private final Arena arena;
    private final MemorySegment list;
    private final List<Device> devices;
    private volatile boolean closed;

    private DeviceList(final Arena arena, final MemorySegment list, final List<Device> devices)
    {
        this.arena = arena;
        this.list = list;
        this.devices = devices;
    }

    /**
     * Lists the devices; an empty list when there are none.
     *
     * @return the list; close it to free it
     */
    public static DeviceList open()
    {
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment count = arena.allocate(CTypes.C_INT);
            final MemorySegment raw = Verbs.ibv_get_device_list(state, count);
            if (raw.address() == 0)
            {
                // e.g. ENOSYS when the uverbs sysfs class does not exist at all (no RDMA stack, no emulator)
                throw new VerbsException("ibv_get_device_list", CallState.errno(state));
            }
            final int n = count.get(CTypes.C_INT, 0);
            // freeing the list must not race with reads through it: the list segment belongs to our arena
            final MemorySegment list = raw.reinterpret((n + 1L) * CTypes.C_POINTER.byteSize(), arena,
                Verbs::ibv_free_device_list);
            final List<Device> devices = new ArrayList<>(n);
            final DeviceList result = new DeviceList(arena, list, Collections.unmodifiableList(devices));
            for (int i = 0; i < n; i++)
            {
                devices.add(new Device(result, list.getAtIndex(CTypes.C_POINTER, i), arena));
            }
            return result;
        }
        catch (final RuntimeException ex)
        {
            if (arena.scope().isAlive())
            {
                arena.close();
            }
            throw ex;
        }
    }

    /** {@return the devices, in libibverbs order} */
    public List<Device> devices()
    {
        ensureOpen();
        return devices;
    }

    /** {@return the number of devices} */
    public int size()
    {
        ensureOpen();
        return devices.size();
    }

    /**
     * The device of that kernel name (e.g. {@code mlx5_0}), or an exception listing the names there are.
     *
     * @param name the kernel device name
     * @return the device
     */
    public Device get(final String name)
    {
        ensureOpen();
        for (final Device device : devices)
        {
            if (device.name().equals(name))
            {
                return device;
            }
        }
        throw new IllegalArgumentException("no RDMA device named '" + name + "'; devices: " + names());
    }

    /** {@return the kernel names of the devices, in list order} */
    public List<String> names()
    {
        ensureOpen();
        final List<String> names = new ArrayList<>(devices.size());
        for (final Device device : devices)
        {
            names.add(device.name());
        }
        return names;
    }

    void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("DeviceList is closed");
        }
    }

    /** Frees the list (ibv_free_device_list runs as the arena's cleanup); Devices from it become unusable. */
    @Override
    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            arena.close();
        }
    }

    @Override
    public String toString()
    {
        return closed ? "DeviceList(closed)" : "DeviceList" + names();
    }
}
