// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.memory;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;

/**
 * The doorbell's stores at native addresses, for the doorbell module's {@code SendDoorbell.ringLive}: the doorbell
 * record's send counter, the 8-byte doorbell and the BlueFlame blocks, each one instruction, without the per-access
 * bounds, alignment and session checks of a {@code MemorySegment} access. Through {@code jdk.internal.misc.Unsafe}
 * (as {@link RingStores}), so only when the JVM exports {@code jdk.internal.misc} to mlx5j ({@link #ENABLED}) and the
 * system property {@code mlx5j.ring.unsafe} is not {@code false} (the switch that also turns off the unchecked ring
 * stores).
 *
 * <p>Why: JMH on the emulated ConnectX ({@code Mlx5jPostBench.rdmaWrite}, 2 forks each, two alternated
 * rounds): the checked doorbell record store, doorbell and BlueFlame copy cost about 4 ns of an 18 ns post. Nothing
 * is checked here: callers pass addresses inside memory they have just checked is alive and that no other thread can
 * free meanwhile. Stateless; any thread.
 */
public final class AddressStores
{
    /** Whether the stores below may be called. */
    public static final boolean ENABLED;
    private static final MethodHandle PUT_INT;
    private static final MethodHandle PUT_LONG_OPAQUE;
    private static final MethodHandle GET_LONG;

    static
    {
        final boolean allowed = !"false".equalsIgnoreCase(System.getProperty("mlx5j.ring.unsafe", "true"));
        final MethodHandle putInt = allowed ?
            InternalUnsafe.bound("putInt", MethodType.methodType(void.class, long.class, int.class)) : null;
        final MethodHandle putLongOpaque = allowed ? InternalUnsafe.bound("putLongOpaque",
            MethodType.methodType(void.class, Object.class, long.class, long.class)) : null;
        final MethodHandle getLong = allowed ?
            InternalUnsafe.bound("getLong", MethodType.methodType(long.class, long.class)) : null;
        ENABLED = putInt != null && putLongOpaque != null && getLong != null;
        PUT_INT = putInt;
        PUT_LONG_OPAQUE = putLongOpaque;
        GET_LONG = getLong;
    }

    private AddressStores()
    {
    }

    /**
     * 4 bytes, big-endian, at {@code address} (4-aligned). Only when {@link #ENABLED}.
     *
     * @param address the native address
     * @param value the value to store
     */
    public static void putIntBE(final long address, final int value)
    {
        try
        {
            PUT_INT.invokeExact(address, Be.order(value));
        }
        catch (final Throwable ex)
        {
            throw unreachable(ex);
        }
    }

    /**
     * 8 raw bytes at {@code address} (8-aligned), an opaque store: never merged with, dropped for or moved across
     * other opaque stores (the same access mode as the checked 8-byte doorbell). Only when {@link #ENABLED}.
     *
     * @param address the native address
     * @param value the value to store
     */
    public static void putLongOpaque(final long address, final long value)
    {
        try
        {
            PUT_LONG_OPAQUE.invokeExact((Object)null, address, value);
        }
        catch (final Throwable ex)
        {
            throw unreachable(ex);
        }
    }

    /**
     * 8 raw bytes at {@code address} (8-aligned). Only when {@link #ENABLED}.
     *
     * @param address the native address
     * @return the 8 bytes in native order
     */
    public static long getLong(final long address)
    {
        try
        {
            return (long)GET_LONG.invokeExact(address);
        }
        catch (final Throwable ex)
        {
            throw unreachable(ex);
        }
    }

    private static IllegalStateException unreachable(final Throwable ex)
    {
        // Unsafe loads and stores at an address throw nothing; a Throwable here is a JVM error passing through.
        return new IllegalStateException("doorbell store through jdk.internal.misc.Unsafe failed", ex);
    }
}
