// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.emulator;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The emulator jar's entry point: {@code java -jar mlx5j-emulator-VERSION-linux-x86_64.jar [OPTIONS] -- CMD [ARGS...]}
 * runs any program (a JVM, {@code ib_write_lat}, {@code ibv_devinfo}) on the emulated ConnectX, exactly as
 * {@code emulator/mlx5emu} does in a checkout: the jar carries that launcher script, the native library it
 * preloads and the control program of its {@code port DEV PORT up|down} form, unpacks them once into a versioned
 * cache directory and runs the script from there with {@code MLX5EMU_LIB} naming the unpacked library (so the
 * script never looks for make or sources, and finds the control program beside the library).
 *
 * <p>The cache directory is {@code BASE/VERSION-HASH}, HASH the first 12 hex digits of the SHA-256 of the payload.
 * BASE is the system property {@value #CACHE_PROPERTY}, else the environment variable {@value #CACHE_ENV}, else
 * {@code $XDG_CACHE_HOME/mlx5j/emulator}, else {@code ~/.cache/mlx5j/emulator}. Unpacking writes a private
 * temporary directory beside it and renames that into place, so launchers started together (parallel test JVMs, a
 * server and a client) never see a half-written directory: one rename wins, the others find the winner's. Each
 * launch checks the unpacked files against the jar and refuses a directory that differs.
 *
 * <p>Options of this launcher (every other option goes to the script unchanged; {@code --help} lists both):
 * {@code --where} unpacks and prints the directory, {@code --clean} removes BASE's unpacked directories,
 * {@code --version} prints the version and payload hash. With the script's {@code --env DIR} (write the sysfs tree
 * into DIR and print the environment, for Maven surefire) the library is also copied to {@code DIR/libmlx5emu.so},
 * so a build can name {@code LD_PRELOAD} without knowing the cache. docs/emulator-artifact.md has the recipes.
 *
 * <p>It compiles for Java 17, so it runs under a distribution's default {@code java}; the mlx5j libraries it is
 * mostly used with need JDK 25 or later.
 */
public final class Launcher
{
    /** The platform of the native library in this jar, also the jar's Maven classifier. */
    static final String PLATFORM = "linux-x86_64";
    /** System property naming the cache base directory. */
    static final String CACHE_PROPERTY = "mlx5j.emulator.cache";
    /** Environment variable naming the cache base directory (the property wins). */
    static final String CACHE_ENV = "MLX5J_EMULATOR_CACHE";
    static final String LIBRARY = "libmlx5emu.so";
    static final String SCRIPT = "mlx5emu";
    /** The script's control subcommands ({@code port DEV PORT up|down}) run it; its rpath finds the library beside. */
    static final String CONTROL = "mlx5emu-ctl";

    private static final String RESOURCES = "/io/mlx5j/emulator/";
    /** What is unpacked, in hashing order; all executable (the script runs through bash either way). */
    private static final List<String> PAYLOAD = List.of(SCRIPT, LIBRARY, CONTROL);
    private static final String MODE = "rwxr-xr-x";
    private static final int HASH_DIGITS = 12;
    /** Options of mlx5emu that take the next argument as their value (a value is never read as an option). */
    private static final List<String> VALUE_OPTIONS =
        List.of("--link", "--devices", "--fabric", "--ip", "--faults", "--pcap", "--env");

    private Launcher()
    {
    }

    /**
     * Runs the launcher and exits with its status: the program's exit status, 2 for a usage error, 1 when the
     * emulator could not be unpacked or started.
     *
     * @param args launcher and mlx5emu options, then {@code --} and the command
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err, System.getenv()));
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err, final Map<String, String> env)
    {
        final List<String> forwarded = new ArrayList<>();
        String action = null;
        String envDir = null;
        int i = 0;
        for (; i < args.length; i++)
        {
            final String a = args[i];
            if (a.equals("--"))
            {
                break;
            }
            if (a.equals("--where") || a.equals("--clean") || a.equals("--version") || a.equals("-h")
                || a.equals("--help"))
            {
                action = a;
                continue;
            }
            forwarded.add(a);
            if (VALUE_OPTIONS.contains(a) && i + 1 < args.length)
            {
                forwarded.add(args[++i]);
                if (a.equals("--env"))
                {
                    envDir = args[i];
                }
            }
            else if (a.startsWith("--env="))
            {
                envDir = a.substring("--env=".length());
            }
        }
        for (; i < args.length; i++)
        {
            forwarded.add(args[i]);
        }

        try
        {
            final Path base = cacheBase(System.getProperty(CACHE_PROPERTY), env);
            if ("--clean".equals(action))
            {
                for (final Path removed : clean(base))
                {
                    out.println("mlx5j-emulator: removed " + removed);
                }
                return 0;
            }
            final Payload payload = Payload.load();
            if ("--version".equals(action))
            {
                out.println("mlx5j-emulator " + payload.version + " " + PLATFORM + " payload " + payload.hash);
                return 0;
            }
            final String platform = platformOf(System.getProperty("os.name"), System.getProperty("os.arch"));
            if (!PLATFORM.equals(platform))
            {
                err.println("mlx5j-emulator: this jar carries the emulator for " + PLATFORM + ", this JVM runs on "
                    + platform);
                return 1;
            }
            final Path dir = unpack(base, payload);
            if ("--where".equals(action))
            {
                out.println(dir);
                return 0;
            }
            if (action != null)
            {
                err.println(usage(dir));
                forwarded.clear();
                forwarded.add("--help");
            }
            Path library = dir.resolve(LIBRARY);
            if (envDir != null)
            {
                library = copyLibrary(library, Path.of(envDir));
            }
            final int status = execute(dir.resolve(SCRIPT), library, forwarded);
            return action != null ? 0 : status;
        }
        catch (final IOException | UncheckedIOException | IllegalStateException e)
        {
            err.println("mlx5j-emulator: " + e.getMessage());
            return 1;
        }
    }

    /** The base directory of the unpacked versions (see the class comment for the order of the sources). */
    static Path cacheBase(final String property, final Map<String, String> env)
    {
        if (property != null && !property.isEmpty())
        {
            return Path.of(property).toAbsolutePath();
        }
        final String fromEnv = env.get(CACHE_ENV);
        if (fromEnv != null && !fromEnv.isEmpty())
        {
            return Path.of(fromEnv).toAbsolutePath();
        }
        // XDG Base Directory: a relative XDG_CACHE_HOME is invalid and must be ignored
        final String xdg = env.get("XDG_CACHE_HOME");
        final Path cache = xdg != null && xdg.startsWith("/") ? Path.of(xdg)
            : Path.of(System.getProperty("user.home"), ".cache");
        return cache.resolve("mlx5j").resolve("emulator");
    }

    /** The Maven-classifier spelling of a JVM's platform, e.g. linux-x86_64. */
    static String platformOf(final String osName, final String osArch)
    {
        final String os = osName.toLowerCase(Locale.ROOT).startsWith("linux") ? "linux"
            : osName.toLowerCase(Locale.ROOT).replace(' ', '_');
        final String arch = osArch.equals("amd64") || osArch.equals("x86_64") ? "x86_64" : osArch;
        return os + "-" + arch;
    }

    /**
     * The unpacked directory for this payload, unpacking it first when absent. Concurrent callers (threads or
     * processes) each write a private temporary directory and rename it into place; the first rename wins and
     * the others delete theirs, so the directory, once visible, is complete.
     */
    static Path unpack(final Path base, final Payload payload) throws IOException
    {
        final Path target = base.resolve(payload.version + "-" + payload.hash);
        if (!Files.isDirectory(target))
        {
            Files.createDirectories(base);
            final Path tmp = Files.createTempDirectory(base, ".unpack-");
            try
            {
                for (final String name : PAYLOAD)
                {
                    final Path file = tmp.resolve(name);
                    Files.write(file, payload.bytes(name));
                    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(MODE));
                    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE))
                    {
                        ch.force(true);
                    }
                }
                try
                {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
                }
                catch (final FileSystemException e)
                {
                    // rename(2) onto a non-empty directory fails: another launcher put it there first
                    if (!Files.isDirectory(target))
                    {
                        throw e;
                    }
                }
            }
            finally
            {
                deleteTree(tmp);
            }
        }
        verify(target, payload);
        return target;
    }

    /** Fails when an unpacked file is missing or differs from the jar's (edited, truncated, another build). */
    static void verify(final Path dir, final Payload payload) throws IOException
    {
        for (final String name : PAYLOAD)
        {
            final Path file = dir.resolve(name);
            if (!Files.isRegularFile(file) || !MessageDigest.isEqual(sha256(Files.readAllBytes(file)),
                sha256(payload.bytes(name))))
            {
                throw new IllegalStateException(file + " is missing or differs from this jar's; remove " + dir
                    + " (or run --clean) and launch again");
            }
        }
    }

    /**
     * Copies the library into DIR (for {@code --env DIR}) unless an identical copy is there. A new file renamed over
     * the old one: a test JVM that has the old one mapped keeps its pages.
     */
    static Path copyLibrary(final Path library, final Path dir) throws IOException
    {
        Files.createDirectories(dir);
        final Path target = dir.toAbsolutePath().resolve(LIBRARY);
        final byte[] bytes = Files.readAllBytes(library);
        if (Files.isRegularFile(target) && MessageDigest.isEqual(sha256(Files.readAllBytes(target)), sha256(bytes)))
        {
            return target;
        }
        final Path tmp = Files.createTempFile(target.getParent(), "." + LIBRARY + ".", ".tmp");
        try
        {
            Files.write(tmp, bytes);
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString(MODE));
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        finally
        {
            Files.deleteIfExists(tmp);
        }
        return target;
    }

    /** Removes every unpacked version and left-over temporary directory under BASE; returns what it removed. */
    static List<Path> clean(final Path base) throws IOException
    {
        final List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(base))
        {
            return removed;
        }
        try (Stream<Path> entries = Files.list(base))
        {
            for (final Path p : entries.sorted().toList())
            {
                if (Files.isDirectory(p) && Files.isRegularFile(p.resolve(SCRIPT))
                    || p.getFileName().toString().startsWith(".unpack-"))
                {
                    deleteTree(p);
                    removed.add(p);
                }
            }
        }
        return removed;
    }

    /** Runs bash SCRIPT ARGS with this JVM's stdio and MLX5EMU_LIB set; returns its exit status. */
    private static int execute(final Path script, final Path library, final List<String> args) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add("bash");
        command.add(script.toString());
        command.addAll(args);
        final ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        pb.environment().put("MLX5EMU_LIB", library.toString());
        final Process p = pb.start();
        // the JVM asked to stop (SIGTERM, SIGINT) takes the program with it; a terminal's Ctrl-C reaches both anyway
        final Thread reaper = new Thread(() ->
        {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
        }, "mlx5j-emulator-stop");
        Runtime.getRuntime().addShutdownHook(reaper);
        try
        {
            return p.waitFor();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            p.destroy();
            return 1;
        }
        finally
        {
            try
            {
                Runtime.getRuntime().removeShutdownHook(reaper);
            }
            catch (final IllegalStateException shuttingDown)
            {
                // the hook is running: nothing to remove
            }
        }
    }

    private static String usage(final Path dir)
    {
        return String.join("\n",
            "usage: java -jar mlx5j-emulator-VERSION-" + PLATFORM + ".jar [mlx5emu options] -- CMD [ARGS...]",
            "       java -jar mlx5j-emulator-VERSION-" + PLATFORM + ".jar [mlx5emu options] --env DIR",
            "       java -jar mlx5j-emulator-VERSION-" + PLATFORM + ".jar --where | --clean | --version",
            "  --where    unpack (if needed) and print the directory: " + dir,
            "  --clean    remove every unpacked version under " + dir.getParent(),
            "  --version  print the version and the payload hash",
            "  --env DIR  also copies the library to DIR/" + LIBRARY + " (surefire's LD_PRELOAD)",
            "  cache base: -D" + CACHE_PROPERTY + ", $" + CACHE_ENV + ", $XDG_CACHE_HOME/mlx5j/emulator, "
                + "~/.cache/mlx5j/emulator",
            "mlx5emu options:");
    }

    static byte[] sha256(final byte[] bytes)
    {
        try
        {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException("no SHA-256 in this JVM", e);
        }
    }

    private static void deleteTree(final Path root) throws IOException
    {
        if (!Files.exists(root))
        {
            return;
        }
        try (Stream<Path> walk = Files.walk(root))
        {
            for (final Path p : walk.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }

    /** The jar's payload: its files' bytes, the version and the hash naming the unpacked directory. */
    static final class Payload
    {
        final String version;
        final String hash;
        private final Map<String, byte[]> files;

        private Payload(final String version, final Map<String, byte[]> files)
        {
            this.version = version;
            this.files = files;
            try
            {
                final MessageDigest md = MessageDigest.getInstance("SHA-256");
                for (final String name : PAYLOAD)
                {
                    final byte[] b = files.get(name);
                    md.update((name + "\0" + b.length + "\0").getBytes(StandardCharsets.UTF_8));
                    md.update(b);
                }
                this.hash = HexFormat.of().formatHex(md.digest()).substring(0, HASH_DIGITS);
            }
            catch (final NoSuchAlgorithmException e)
            {
                throw new IllegalStateException("no SHA-256 in this JVM", e);
            }
        }

        byte[] bytes(final String name)
        {
            return files.get(name);
        }

        /** Reads the payload from this class's jar (or classes directory). */
        static Payload load() throws IOException
        {
            final Properties props = new Properties();
            try (InputStream in = resource("emulator.properties"))
            {
                props.load(in);
            }
            final Map<String, byte[]> files = new HashMap<>();
            for (final String name : PAYLOAD)
            {
                try (InputStream in = resource(PLATFORM + "/" + name))
                {
                    files.put(name, in.readAllBytes());
                }
            }
            return new Payload(props.getProperty("version"), files);
        }

        private static InputStream resource(final String name) throws IOException
        {
            final InputStream in = Launcher.class.getResourceAsStream(RESOURCES + name);
            if (in == null)
            {
                throw new IOException("this jar has no " + RESOURCES + name + " (a build without the native library?)");
            }
            return in;
        }
    }
}
