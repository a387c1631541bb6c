// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.emulator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The emulator jar's launcher on its classes directory (target/classes holds the same payload the jar does):
 * unpacking once into BASE/VERSION-HASH, parallel first launches, refusing a changed directory, cleaning, and
 * running programs on the emulated device. scripts/check_jar.sh repeats the end-to-end part on the packaged jar.
 */
class LauncherTest
{
    /** Every launch here meets on a fabric of its own, removed from /dev/shm afterwards. */
    private static final String FABRIC = "mlx5j-launcher-test-" + ProcessHandle.current().pid();
    private static final Path BUILD = Path.of(System.getProperty("mlx5emu.build", "build"));

    @TempDir
    Path tmp;

    @AfterEach
    void clearProperty()
    {
        System.clearProperty(Launcher.CACHE_PROPERTY);
    }

    @AfterAll
    static void removeFabric() throws IOException
    {
        try (Stream<Path> shm = Files.list(Path.of("/dev/shm")))
        {
            for (final Path p : shm.filter(p -> p.getFileName().toString().startsWith(FABRIC)).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }

    @Test
    void unpacksOnceIntoVersionAndHash() throws IOException
    {
        final Launcher.Payload payload = Launcher.Payload.load();
        final Path dir = Launcher.unpack(tmp, payload);
        assertEquals(tmp.resolve(payload.version + "-" + payload.hash), dir);
        assertTrue(payload.hash.matches("[0-9a-f]{12}"), payload.hash);
        assertTrue(payload.version.matches("[0-9]+\\.[0-9]+\\.[0-9]+(-SNAPSHOT)?"), payload.version);
        assertArrayEquals(Files.readAllBytes(BUILD.resolve("libmlx5emu.so")), Files.readAllBytes(dir.resolve(
            Launcher.LIBRARY)));
        assertArrayEquals(Files.readAllBytes(BUILD.resolveSibling("mlx5emu")), Files.readAllBytes(dir.resolve(
            Launcher.SCRIPT)));
        for (final String name : List.of(Launcher.LIBRARY, Launcher.SCRIPT))
        {
            assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(name))));
        }
        final Object inode = Files.readAttributes(dir.resolve(Launcher.LIBRARY),
            BasicFileAttributes.class).fileKey();
        assertEquals(dir, Launcher.unpack(tmp, payload));
        assertEquals(inode, Files.readAttributes(dir.resolve(Launcher.LIBRARY),
            BasicFileAttributes.class).fileKey(), "a second launch rewrote the library");
        assertEquals(List.of(dir), entries(tmp));
    }

    @Test
    void parallelFirstLaunchesShareOneDirectory() throws Exception
    {
        final Launcher.Payload payload = Launcher.Payload.load();
        final int n = 8;
        final CyclicBarrier start = new CyclicBarrier(n);
        final ExecutorService pool = Executors.newFixedThreadPool(n);
        try
        {
            final List<Future<Path>> results = new ArrayList<>();
            for (int i = 0; i < n; i++)
            {
                results.add(pool.submit(() ->
                {
                    start.await();
                    return Launcher.unpack(tmp, payload);
                }));
            }
            final Set<Path> dirs = new HashSet<>();
            for (final Future<Path> f : results)
            {
                dirs.add(f.get());
            }
            assertEquals(Set.of(tmp.resolve(payload.version + "-" + payload.hash)), dirs);
            // every loser removed its temporary directory
            assertEquals(List.copyOf(dirs), entries(tmp));
            Launcher.verify(dirs.iterator().next(), payload);
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    @Test
    void aChangedDirectoryIsRefused() throws IOException
    {
        final Launcher.Payload payload = Launcher.Payload.load();
        final Path dir = Launcher.unpack(tmp, payload);
        Files.writeString(dir.resolve(Launcher.SCRIPT), "\n# edited\n", StandardOpenOption.APPEND);
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> Launcher.unpack(tmp, payload));
        assertTrue(e.getMessage().startsWith(dir.resolve(Launcher.SCRIPT) + " is missing or differs"), e.getMessage());

        System.setProperty(Launcher.CACHE_PROPERTY, tmp.toString());
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, Launcher.run(new String[] {"--where"}, System.out, new PrintStream(err, true,
            StandardCharsets.UTF_8), Map.of()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("(or run --clean)"), err.toString());
    }

    @Test
    void cleanRemovesUnpackedVersionsAndLeftoversOnly() throws IOException
    {
        final Path dir = Launcher.unpack(tmp, Launcher.Payload.load());
        final Path leftover = Files.createDirectory(tmp.resolve(".unpack-123"));
        final Path other = Files.writeString(tmp.resolve("notes.txt"), "kept");
        assertEquals(List.of(leftover, dir), Launcher.clean(tmp));
        assertEquals(List.of(other), entries(tmp));
        assertEquals(List.of(), Launcher.clean(tmp.resolve("absent")));
    }

    @Test
    void cacheBaseComesFromPropertyThenEnvironmentThenXdgThenHome()
    {
        final Path home = Path.of(System.getProperty("user.home"));
        assertEquals(Path.of("/p"), Launcher.cacheBase("/p", Map.of(Launcher.CACHE_ENV, "/e", "XDG_CACHE_HOME", "/x")));
        assertEquals(Path.of("/e"), Launcher.cacheBase(null, Map.of(Launcher.CACHE_ENV, "/e", "XDG_CACHE_HOME", "/x")));
        assertEquals(Path.of("/x/mlx5j/emulator"), Launcher.cacheBase("", Map.of("XDG_CACHE_HOME", "/x")));
        // a relative XDG_CACHE_HOME is invalid (XDG Base Directory) and ignored
        assertEquals(home.resolve(".cache/mlx5j/emulator"), Launcher.cacheBase(null, Map.of("XDG_CACHE_HOME", "x")));
        assertEquals(home.resolve(".cache/mlx5j/emulator"), Launcher.cacheBase(null, Map.of()));
    }

    @Test
    void platformNamesAreMavenClassifiers()
    {
        assertEquals("linux-x86_64", Launcher.platformOf("Linux", "amd64"));
        assertEquals("linux-x86_64", Launcher.platformOf("Linux", "x86_64"));
        assertEquals("linux-aarch64", Launcher.platformOf("Linux", "aarch64"));
        assertEquals("mac_os_x-aarch64", Launcher.platformOf("Mac OS X", "aarch64"));
    }

    @Test
    void runsACommandOnTheEmulatedDeviceAndReturnsItsStatus() throws IOException
    {
        System.setProperty(Launcher.CACHE_PROPERTY, tmp.resolve("cache").toString());
        final Path ib = tmp.resolve("ib.txt");
        final Path eth = tmp.resolve("eth.txt");
        assertEquals(0, launch("--fabric", FABRIC, "--", "sh", "-c", "ibv_devinfo > " + ib));
        assertEquals(0, launch("--link", "eth", "--fabric", FABRIC + "-eth", "--", "sh", "-c",
            "ibv_devinfo > " + eth));
        final String ibText = Files.readString(ib);
        assertTrue(ibText.contains("hca_id:\tmlx5_0") && ibText.contains("PORT_ACTIVE (4)")
            && ibText.contains("link_layer:\t\tInfiniBand"), ibText);
        assertTrue(Files.readString(eth).contains("link_layer:\t\tEthernet"), Files.readString(eth));
        assertEquals(7, launch("--fabric", FABRIC, "--", "sh", "-c", "exit 7"));
        // the program sees the preloaded library from the cache, not from a checkout
        final Path preload = tmp.resolve("preload.txt");
        assertEquals(0, launch("--fabric", FABRIC, "--", "sh", "-c", "echo \"$LD_PRELOAD\" > " + preload));
        assertEquals(Launcher.unpack(tmp.resolve("cache"), Launcher.Payload.load()).resolve(Launcher.LIBRARY)
            .toString(), Files.readString(preload).strip());
    }

    @Test
    void envWritesTheTreeAndCopiesTheLibraryBesideIt() throws IOException
    {
        System.setProperty(Launcher.CACHE_PROPERTY, tmp.resolve("cache").toString());
        final Path dir = tmp.resolve("target/mlx5emu");
        assertEquals(0, launch("--link", "eth", "--env", dir.toString()));
        assertArrayEquals(Files.readAllBytes(BUILD.resolve("libmlx5emu.so")), Files.readAllBytes(dir.resolve(
            Launcher.LIBRARY)));
        assertEquals("Ethernet", Files.readString(dir.resolve("class/infiniband/mlx5_0/ports/1/link_layer")).strip());
        final Object inode = Files.readAttributes(dir.resolve(Launcher.LIBRARY),
            BasicFileAttributes.class).fileKey();
        // the same library again: left in place (a test JVM may have it mapped)
        assertEquals(0, launch("--env=" + dir));
        assertEquals(inode, Files.readAttributes(dir.resolve(Launcher.LIBRARY),
            BasicFileAttributes.class).fileKey());
        assertEquals("InfiniBand", Files.readString(dir.resolve("class/infiniband/mlx5_0/ports/1/link_layer")).strip());
    }

    @Test
    void versionAndUsage()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, Launcher.run(new String[] {"--version"}, new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err, Map.of()));
        assertTrue(out.toString(StandardCharsets.UTF_8).matches(
            "mlx5j-emulator [0-9.]+(-SNAPSHOT)? linux-x86_64 payload [0-9a-f]{12}\\R"), out.toString());
    }

    private static int launch(final String... args)
    {
        return Launcher.run(args, System.out, System.err, System.getenv());
    }

    private static List<Path> entries(final Path dir) throws IOException
    {
        try (Stream<Path> s = Files.list(dir))
        {
            return s.sorted().toList();
        }
    }
}
