// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * File descriptor 2 pointed at a temporary file for a while (dup, open, dup2 of POSIX), so that what native code
 * writes there (the emulator's strict reports) can be read; {@link #stop} restores the descriptor and writes what was
 * captured to the real stderr, so nothing is lost. Java's {@code System.err} writes to the same descriptor and is
 * captured and replayed the same way.
 */
final class StderrCapture
{
    private static final int O_WRONLY = 1;
    private static final int O_CREAT = 0x40;
    private static final int O_TRUNC = 0x200;
    private static final MethodHandle DUP;
    private static final MethodHandle DUP2;
    private static final MethodHandle OPEN;
    private static final MethodHandle CLOSE;
    private static final MethodHandle WRITE;

    static
    {
        final Linker linker = Linker.nativeLinker();
        final var libc = linker.defaultLookup();
        DUP = linker.downcallHandle(libc.find("dup").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        DUP2 = linker.downcallHandle(libc.find("dup2").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
        OPEN = linker.downcallHandle(libc.find("open").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
        CLOSE = linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        WRITE = linker.downcallHandle(libc.find("write").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    }

    private final Path file;
    private final int saved;

    private StderrCapture(final Path file, final int saved)
    {
        this.file = file;
        this.saved = saved;
    }

    static StderrCapture start()
    {
        try (Arena a = Arena.ofConfined())
        {
            final Path file = Files.createTempFile("mlx5j-stderr", ".txt");
            System.err.flush();
            final int saved = (int)DUP.invokeExact(2);
            final int fd = (int)OPEN.invokeExact(a.allocateFrom(file.toString()), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (saved < 0 || fd < 0 || (int)DUP2.invokeExact(fd, 2) < 0)
            {
                throw new IllegalStateException("cannot redirect stderr to " + file);
            }
            final int closed = (int)CLOSE.invokeExact(fd);
            assert closed == 0;
            return new StderrCapture(file, saved);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        catch (final Throwable t)
        {
            throw new IllegalStateException("cannot redirect stderr", t);
        }
    }

    /** Restores fd 2, replays the captured bytes on it and returns them as text. */
    String stop()
    {
        try (Arena a = Arena.ofConfined())
        {
            System.err.flush();
            final int restored = (int)DUP2.invokeExact(saved, 2);
            final int closed = (int)CLOSE.invokeExact(saved);
            final byte[] bytes = Files.readAllBytes(file);
            Files.deleteIfExists(file);
            if (bytes.length > 0 && restored >= 0)
            {
                final MemorySegment buf = a.allocate(bytes.length);
                MemorySegment.copy(bytes, 0, buf, JAVA_BYTE, 0, bytes.length);
                final long written = (long)WRITE.invokeExact(2, buf, (long)bytes.length);
                assert written >= 0 && closed == 0;
            }
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        catch (final Throwable t)
        {
            throw new IllegalStateException("cannot restore stderr", t);
        }
    }
}
