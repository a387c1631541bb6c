// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rdma-core release of the libmlx5 mapped into this process, for the few places where mlx5j must write what that
 * release writes (the SRQ free list, {@link SrqFreeList}). rdma-core names its libraries
 * {@code lib<name>.so.<soname>.<abi>.<release>.0} (Debian 12: libmlx5.so.1.24.44.0; a 65.0 build:
 * libmlx5.so.1.27.65.0), and /proc/self/maps holds the resolved file name whichever way it was loaded (libibverbs'
 * provider module libmlx5-rdmavN.so is a link to it), so the name says which release runs, whatever installed it.
 *
 * <p>Thread model: stateless but for the cached answer of {@link #running()}, which any thread may call: two threads
 * that race on the first call both read /proc/self/maps and store the same int (an int store is atomic), so the race
 * is harmless.
 */
public final class Libmlx5Release
{
    /** What {@link #running()} returns when no libmlx5 is mapped or its file name does not carry a release. */
    public static final int UNKNOWN = -1;

    /** {@link #running()} has not looked yet. */
    private static final int NOT_READ = -2;
    private static final Pattern RELEASE = Pattern.compile("\\.so\\.\\d+\\.\\d+\\.(\\d{1,6})\\.\\d+$");

    /** The first answer of {@link #running()}, or {@link #NOT_READ}. */
    private static int running = NOT_READ;

    private Libmlx5Release()
    {
    }

    /**
     * The release of the libmlx5 this process has mapped. Call it once a device context exists (libibverbs loads
     * libmlx5 when it opens an mlx5 device); the first known answer is kept for the life of the JVM, because a
     * process cannot load a second libmlx5.so.1.
     *
     * @return the release (44 for Debian 12's rdma-core 44.0), or {@link #UNKNOWN}
     * @throws UncheckedIOException if /proc/self/maps cannot be read
     */
    public static int running()
    {
        int r = running;
        if (r == NOT_READ)
        {
            try
            {
                r = fromMaps(Files.readAllLines(Path.of("/proc/self/maps")));
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("cannot read /proc/self/maps to tell libmlx5's release", ex);
            }
            if (r != UNKNOWN)
            {
                // an unknown answer is not kept: a caller before libibverbs opened a device must not fix it
                running = r;
            }
        }
        return r;
    }

    /**
     * The release in an rdma-core library file name.
     *
     * @param path a library path, such as {@code /usr/lib/x86_64-linux-gnu/libmlx5.so.1.24.44.0}; may be null
     * @return the release, or {@link #UNKNOWN} when the name does not follow rdma-core's scheme
     */
    public static int release(final String path)
    {
        if (path == null)
        {
            return UNKNOWN;
        }
        final Matcher m = RELEASE.matcher(path);
        return m.find() ? Integer.parseInt(m.group(1)) : UNKNOWN;
    }

    /**
     * The release of the first mapping in {@code maps} (the text of /proc/PID/maps) whose file is libmlx5.so.*.
     *
     * @param maps the lines of a maps file
     * @return the release, or {@link #UNKNOWN} when no libmlx5 is mapped or its name carries no release
     */
    public static int fromMaps(final Iterable<String> maps)
    {
        for (final String line : maps)
        {
            final int slash = line.indexOf('/');
            if (slash >= 0 && line.substring(line.lastIndexOf('/') + 1).startsWith("libmlx5.so."))
            {
                return release(line.substring(slash));
            }
        }
        return UNKNOWN;
    }
}
