// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.memory;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Methods of {@code jdk.internal.misc.Unsafe} as method handles bound to its instance, when the JVM was started with
 * {@code --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED}; otherwise none. mlx5j uses two kinds, each with a
 * fallback for JVMs without the export: the write-back post-sync, which is the only {@code sfence} Java has (the
 * doorbell module's {@code StoreFence}), and unchecked loads and stores at ring addresses ({@link RingStores},
 * {@link AddressStores}). Nothing is
 * compiled against {@code jdk.internal.misc}: callers keep the handle in a {@code static final} field, which C2
 * inlines like a direct call.
 *
 * <p>Thread model: static and stateless; any thread.
 */
public final class InternalUnsafe
{
    private static final Object UNSAFE = unsafe();

    private InternalUnsafe()
    {
    }

    /**
     * The instance method {@code name} of type {@code type} (without the receiver), bound to the Unsafe instance;
     * null if the package is not exported to mlx5j or the method does not exist in this JDK.
     *
     * @param name the method name in {@code jdk.internal.misc.Unsafe}
     * @param type the method type without the receiver
     * @return the bound handle, or null (see above)
     */
    public static MethodHandle bound(final String name, final MethodType type)
    {
        if (UNSAFE == null)
        {
            return null;
        }
        try
        {
            return MethodHandles.lookup().findVirtual(UNSAFE.getClass(), name, type).bindTo(UNSAFE);
        }
        catch (final ReflectiveOperationException ex)
        {
            return null;
        }
    }

    private static Object unsafe()
    {
        if (!Object.class.getModule().isExported("jdk.internal.misc", InternalUnsafe.class.getModule()))
        {
            return null;
        }
        try
        {
            final Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
            return MethodHandles.lookup().findStatic(unsafeClass, "getUnsafe", MethodType.methodType(unsafeClass))
                .invoke();
        }
        catch (final Throwable ex)
        {
            return null;
        }
    }
}
