package io.mlx5j.tests;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** libc's setenv, for emulator knobs read when a device context opens (this JVM's environment is C's). */
final class Libc
{
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle SETENV = LINKER.downcallHandle(
        LINKER.defaultLookup().find("setenv").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

    private Libc()
    {
    }

    static void setenv(final String name, final String value)
    {
        try (Arena a = Arena.ofConfined())
        {
            final int rc = (int) SETENV.invokeExact(a.allocateFrom(name), a.allocateFrom(value), 1);
            if (rc != 0)
            {
                throw new IllegalStateException("setenv(" + name + ") failed");
            }
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable t)
        {
            throw new AssertionError(t);
        }
    }
}
