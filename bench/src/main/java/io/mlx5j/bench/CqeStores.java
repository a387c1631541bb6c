// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteOrder;

import io.mlx5j.memory.InternalUnsafe;

/**
 * The stand-in NIC's stores into a CQ ring ({@link SyntheticCompleter}, {@link RawRecvCompleter}): plain stores at
 * an address through {@code jdk.internal.misc.Unsafe}, big-endian where the CQE field is, as the C loop's completers
 * store through a pointer. Through a {@code MemorySegment} every store kept a bounds and an alignment check, which
 * the C completer does not pay and which would be charged to the Java rows as if mlx5j's own. Every benchmark fork
 * has the {@code jdk.internal.misc} export ({@link ForkArgs#requireExport}).
 */
final class CqeStores
{
    private static final boolean SWAP = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final MethodHandle PUT_BYTE = handle("putByte", byte.class);
    /** Unsafe has no address-only release store: its (Object, offset) form with a null base is one. */
    private static final MethodHandle PUT_BYTE_RELEASE = MethodHandles.insertArguments(
        handle("putByteRelease", MethodType.methodType(void.class, Object.class, long.class, byte.class)), 0,
        (Object)null);
    private static final MethodHandle PUT_SHORT = handle("putShort", short.class);
    private static final MethodHandle PUT_INT = handle("putInt", int.class);
    private static final MethodHandle PUT_LONG = handle("putLong", long.class);

    private CqeStores()
    {
    }

    static void putByte(final long address, final byte value)
    {
        try
        {
            PUT_BYTE.invokeExact(address, value);
        }
        catch (final Throwable ex)
        {
            throw failed(ex);
        }
    }

    /** The owner byte, last: a poller that sees it sees the stores before it (the NIC's DMA order). */
    static void putByteRelease(final long address, final byte value)
    {
        try
        {
            PUT_BYTE_RELEASE.invokeExact(address, value);
        }
        catch (final Throwable ex)
        {
            throw failed(ex);
        }
    }

    static void putShortBE(final long address, final short value)
    {
        try
        {
            PUT_SHORT.invokeExact(address, SWAP ? Short.reverseBytes(value) : value);
        }
        catch (final Throwable ex)
        {
            throw failed(ex);
        }
    }

    static void putIntBE(final long address, final int value)
    {
        try
        {
            PUT_INT.invokeExact(address, SWAP ? Integer.reverseBytes(value) : value);
        }
        catch (final Throwable ex)
        {
            throw failed(ex);
        }
    }

    static void putLongBE(final long address, final long value)
    {
        try
        {
            PUT_LONG.invokeExact(address, SWAP ? Long.reverseBytes(value) : value);
        }
        catch (final Throwable ex)
        {
            throw failed(ex);
        }
    }

    private static MethodHandle handle(final String name, final Class<?> value)
    {
        return handle(name, MethodType.methodType(void.class, long.class, value));
    }

    private static MethodHandle handle(final String name, final MethodType type)
    {
        ForkArgs.requireExport();
        final MethodHandle h = InternalUnsafe.bound(name, type);
        if (h == null)
        {
            throw new IllegalStateException("jdk.internal.misc.Unsafe." + name + " is not reachable");
        }
        return h;
    }

    private static IllegalStateException failed(final Throwable ex)
    {
        return new IllegalStateException("CQE store through jdk.internal.misc.Unsafe failed", ex);
    }
}
