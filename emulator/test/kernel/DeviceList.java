// SPDX-License-Identifier: Apache-2.0
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Lists the RDMA devices through libibverbs with FFM and opens each one: run under emulator/mlx5emu, it proves a
 * JVM sees and opens the emulated device (t_jvm.sh). Prints "device NAME opened" per device.
 */
public final class DeviceList
{
    public static void main(final String[] args) throws Throwable
    {
        final Linker linker = Linker.nativeLinker();
        final SymbolLookup ibv = SymbolLookup.libraryLookup("libibverbs.so.1", Arena.global());
        final MethodHandle getList = linker.downcallHandle(
            ibv.find("ibv_get_device_list").orElseThrow(), FunctionDescriptor.of(ADDRESS, ADDRESS));
        final MethodHandle freeList = linker.downcallHandle(
            ibv.find("ibv_free_device_list").orElseThrow(), FunctionDescriptor.ofVoid(ADDRESS));
        final MethodHandle getName = linker.downcallHandle(
            ibv.find("ibv_get_device_name").orElseThrow(), FunctionDescriptor.of(ADDRESS, ADDRESS));
        final MethodHandle open = linker.downcallHandle(
            ibv.find("ibv_open_device").orElseThrow(), FunctionDescriptor.of(ADDRESS, ADDRESS));
        final MethodHandle close = linker.downcallHandle(
            ibv.find("ibv_close_device").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS));

        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment count = arena.allocate(JAVA_INT);
            final MemorySegment raw = (MemorySegment)getList.invokeExact(count);
            final int n = count.get(JAVA_INT, 0);
            if (raw.equals(MemorySegment.NULL) || n == 0)
            {
                System.out.println("no devices");
                System.exit(1);
            }
            final MemorySegment list = raw.reinterpret(ADDRESS.byteSize() * (n + 1));
            for (int i = 0; i < n; i++)
            {
                final MemorySegment dev = list.getAtIndex(ADDRESS, i);
                final String name = ((MemorySegment)getName.invokeExact(dev)).reinterpret(64).getString(0);
                final MemorySegment ctx = (MemorySegment)open.invokeExact(dev);
                if (ctx.equals(MemorySegment.NULL))
                {
                    System.out.println("device " + name + " failed to open");
                    System.exit(1);
                }
                final int rc = (int)close.invokeExact(ctx);
                System.out.println("device " + name + (rc == 0 ? " opened" : " close failed " + rc));
            }
            freeList.invokeExact(raw);
        }
    }
}
