// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.CTypes;
import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvDevice;
import io.mlx5j.bindings.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Child-process main for {@link EmulatedDeviceListTest}: calls ibv_get_device_list through FFM with nothing but the
 * bindings and prints {@code count=N} then one {@code device=NAME guid=HEX} line per device.
 */
public final class ListDevices
{
    private ListDevices()
    {
    }

    public static void main(final String[] args)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment count = arena.allocate(CTypes.C_INT);
            final MemorySegment list = Verbs.ibv_get_device_list(state, count);
            if (list.address() == 0)
            {
                System.out.println("error errno=" + CallState.errno(state));
                System.exit(1);
            }
            final int n = count.get(CTypes.C_INT, 0);
            System.out.println("count=" + n);
            final MemorySegment devices = list.reinterpret((n + 1L) * CTypes.C_POINTER.byteSize());
            for (int i = 0; i < n; i++)
            {
                final MemorySegment device = devices.getAtIndex(CTypes.C_POINTER, i);
                final String name =
                    Verbs.ibv_get_device_name(device).reinterpret(IbvDevice.IBV_SYSFS_NAME_MAX).getString(0);
                System.out.printf("device=%s guid=%016x%n", name, Long.reverseBytes(Verbs.ibv_get_device_guid(device)));
            }
            Verbs.ibv_free_device_list(list);
        }
    }
}
