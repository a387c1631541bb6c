// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * {@code mlx5j aot create|run [--cache FILE] [--] COMMAND [ARGS...]}: JDK 25's ahead-of-time cache (JEP 483 loaded
 * and linked classes, JEP 515 method profiles) for one tool command. {@code create} runs COMMAND once as the training
 * run in a JVM of its own with {@code -XX:AOTCacheOutput=FILE} (JEP 514's one step), {@code run} runs COMMAND in a JVM
 * of its own with {@code -XX:AOTCache=FILE -XX:AOTMode=on}. This JVM, the dispatcher, gets neither flag: given to the
 * launcher's JVM ({@code JDK_JAVA_OPTIONS}), the training flag also reached the dispatcher, which ran nothing but the
 * dispatch and then failed at its exit on the configuration file its emulated child had written.
 * <p>
 * The child is this JVM's command line again (its options and class path, less any AOT or CDS option), under
 * {@code emulator/mlx5emu} when the command needs a device and there is none ({@link EmulatorLaunch}), so training run
 * and run see the same JVM options and jars. Beside FILE, {@code create} writes FILE.stamp: the JDK and the SHA-256
 * of every jar of the class path. {@code run} refuses a cache whose stamp does not match this JVM, because the JVM
 * itself does not check the jars of a cache made this way (JDK 25.0.3 maps the cache and runs the classes of the
 * jars it was trained with, even after a jar was rebuilt; JDK-8377932), and it refuses a cache without a stamp. A
 * mismatch the JVM does detect (another JDK build, a damaged file) ends the run's JVM at start
 * ({@code -XX:AOTMode=on}, rather than a cold run under a warning); the dispatcher then says that the cache was the
 * cause. Control path only, on the main thread; the children's output goes to this process's streams.
 */
final class AotCommand
{
    static final String USAGE = String.join("\n",
        "usage: mlx5j aot create [--cache FILE] [--] COMMAND [ARGS...]",
        "       mlx5j aot run [--cache FILE] [--] COMMAND [ARGS...]",
        "JDK 25's ahead-of-time cache (JEP 483, JEP 515: classes loaded and linked, method profiles) for a command:",
        "  create   run COMMAND once as the training run, in a JVM of its own, and write the cache to FILE",
        "           (and FILE.stamp: the JDK and the SHA-256 of each jar it was made with)",
        "  run      run COMMAND in a JVM of its own that maps FILE (-XX:AOTMode=on); refused when FILE.stamp does",
        "           not match this JDK and these jars (rebuilt jars: create the cache again)",
        "  --cache FILE   the cache (default " + AotCommand.DEFAULT_CACHE + ")",
        "COMMAND needs a device: it runs on the emulated ConnectX where there is none, as without aot.",
        "example: mlx5j aot create -- perf write_lat --loopback -n 10000 --no-progress",
        "         mlx5j aot run -- perf write_lat --loopback -n 10000",
        "It shortens start-up, not the tail of the first round trips: docs/performance.md#warm-start.");

    static final String DEFAULT_CACHE = "mlx5j.aot";
    /** Suffix of the file beside the cache that says what it was made with. */
    static final String STAMP_SUFFIX = ".stamp";
    /** Options of this JVM the children do not get: the cache options are theirs, CDS options would conflict. */
    private static final List<String> CACHE_OPTIONS = List.of("-XX:AOT", "-XX:SharedArchiveFile",
        "-XX:ArchiveClassesAtExit", "-XX:+AutoCreateSharedArchive", "-XX:-AutoCreateSharedArchive", "-Xshare:");
    /** The start of an [aot] warning or error line of the JVM's log, e.g. "[0.01s][error  ][aot] ". */
    private static final Pattern AOT_LOG = Pattern.compile("^\\[[^]]*\\]\\[(error|warning) *\\]\\[aot *\\] *");
    /** How long the check of a refused cache may take (one JVM start with -version). */
    private static final long PROBE_SECONDS = 60;

    private AotCommand()
    {
    }

    /**
     * Runs {@code mlx5j aot ...} ({@code args}: the words after "aot").
     *
     * @return the exit status: the command's, 1 when the cache could not be made or used, 2 for a bad command line
     * @throws UsageException on a bad command line
     */
    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        if (args.length == 0)
        {
            throw new UsageException("aot needs create or run");
        }
        final String verb = args[0];
        if (verb.equals("--help") || verb.equals("-h"))
        {
            out.println(USAGE);
            return 0;
        }
        if (!verb.equals("create") && !verb.equals("run"))
        {
            throw new UsageException("aot: unknown action '" + verb + "' (create or run)");
        }
        String cache = DEFAULT_CACHE;
        int i = 1;
        for (; i < args.length; i++)
        {
            final String a = args[i];
            if (a.equals("--"))
            {
                i++;
                break;
            }
            if (a.equals("--help") || a.equals("-h"))
            {
                out.println(USAGE);
                return 0;
            }
            if (a.equals("--cache"))
            {
                if (++i == args.length)
                {
                    throw new UsageException("option --cache needs a value");
                }
                cache = args[i];
            }
            else if (a.startsWith("--cache="))
            {
                cache = a.substring("--cache=".length());
            }
            else if (a.startsWith("-"))
            {
                throw new UsageException("aot " + verb + ": unknown option '" + a + "' (the command's options come "
                    + "after it, or after --)");
            }
            else
            {
                break;
            }
        }
        if (cache.isEmpty())
        {
            throw new UsageException("option --cache needs a file name");
        }
        final String[] command = Arrays.copyOfRange(args, i, args.length);
        if (command.length == 0)
        {
            throw new UsageException("aot " + verb + " needs the command to run, e.g. mlx5j aot " + verb
                + " -- perf write_lat --loopback -n 10000");
        }
        if (command[0].equals("aot"))
        {
            throw new UsageException("aot " + verb + ": the command cannot be aot itself");
        }
        final Path file = Path.of(cache).toAbsolutePath();
        return verb.equals("create") ? create(file, command, out, err) : use(file, command, err);
    }

    /** The training run; writes {@code file} and its stamp. */
    private static int create(final Path file, final String[] command, final PrintStream out, final PrintStream err)
    {
        final Stamp stamp;
        try
        {
            stamp = Stamp.ofThisJvm(command);
            Files.deleteIfExists(file);
            Files.deleteIfExists(stampOf(file));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex.getMessage(), ex);
        }
        final int status = child(command, List.of("-XX:AOTCacheOutput=" + file), err);
        if (status != 0)
        {
            deleteQuietly(file);
            err.println("mlx5j: aot create: the training run exited with status " + status + "; no cache made");
            return status;
        }
        final long size = size(file);
        if (size <= 0)
        {
            err.println("mlx5j: aot create failed: the JVM wrote no AOT cache " + file + " (its messages above say "
                + "why)");
            return 1;
        }
        try
        {
            Files.writeString(stampOf(file), stamp.format(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            deleteQuietly(file);
            throw new UncheckedIOException("cannot write " + stampOf(file) + ": " + ex.getMessage(), ex);
        }
        out.println("mlx5j: AOT cache " + file + " made (" + size + " bytes) by the training run '"
            + String.join(" ", command) + "'; use it: mlx5j aot run --cache " + file + " -- "
            + String.join(" ", command));
        return 0;
    }

    /** Runs {@code command} with the cache mapped, after checking its stamp. */
    private static int use(final Path file, final String[] command, final PrintStream err)
    {
        final String refused = refusal(file);
        if (refused != null)
        {
            err.println("mlx5j: aot run: " + refused);
            return 1;
        }
        err.println("mlx5j: AOT cache " + file + " (" + made(file) + ")");
        final List<String> cacheOptions = List.of("-XX:AOTCache=" + file, "-XX:AOTMode=on");
        final int status = child(command, cacheOptions, err);
        if (status != 0)
        {
            final String jvmSays = probe(cacheOptions);
            if (jvmSays != null)
            {
                err.println("mlx5j: aot run: the JVM could not map the AOT cache " + file + " (" + jvmSays
                    + "); make it again: " + remake(file));
            }
        }
        return status;
    }

    /**
     * Why {@code file} cannot be used by this JVM (no file, no stamp, another JDK, another class path, a changed
     * jar), or null when its stamp matches.
     */
    static String refusal(final Path file)
    {
        if (size(file) <= 0)
        {
            return "no AOT cache " + file + "; make one: mlx5j aot create --cache " + file + " -- COMMAND";
        }
        final Path stampFile = stampOf(file);
        if (!Files.isRegularFile(stampFile))
        {
            return file + " has no " + stampFile.getFileName() + ", so what it was made with is unknown (a cache "
                + "made outside mlx5j aot create may hold the classes of older jars); make it with: mlx5j aot "
                + "create --cache " + file + " -- COMMAND";
        }
        try
        {
            final Stamp made = Stamp.parse(Files.readString(stampFile, StandardCharsets.UTF_8));
            final String mismatch = made.mismatch(Stamp.ofThisJvm(new String[0]));
            return mismatch == null ? null : "the AOT cache " + file + " was made " + mismatch + "; make it again: "
                + remake(file, made.command());
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            return "cannot read " + stampFile + ": " + ex.getMessage();
        }
    }

    /** "made WHEN by 'COMMAND'" from the stamp of {@code file}, which {@link #refusal} has read. */
    private static String made(final Path file)
    {
        try
        {
            final Stamp made = Stamp.parse(Files.readString(stampOf(file), StandardCharsets.UTF_8));
            return "made " + made.made() + " by the training run '" + made.command() + "'";
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            return "stamp unreadable: " + ex.getMessage();
        }
    }

    private static String remake(final Path file)
    {
        try
        {
            return remake(file, Stamp.parse(Files.readString(stampOf(file), StandardCharsets.UTF_8)).command());
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            return remake(file, "COMMAND");
        }
    }

    private static String remake(final Path file, final String command)
    {
        return "mlx5j aot create --cache " + file + " -- " + command;
    }

    /**
     * Runs the dispatcher with {@code command} in a child JVM with {@code cacheOptions}, on the emulator if the
     * command needs it and there is no device; returns its exit status.
     */
    private static int child(final String[] command, final List<String> cacheOptions, final PrintStream err)
    {
        final boolean mlx5 = EmulatorLaunch.realDevice();
        final String why = EmulatorLaunch.reason(command, mlx5, mlx5 ? List.of() : EmulatorLaunch.otherDevices());
        final List<String> jvm = EmulatorLaunch.jvm(CACHE_OPTIONS);
        jvm.addAll(cacheOptions);
        final List<String> cmd;
        if (why == null)
        {
            cmd = new ArrayList<>(jvm);
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Mlx5jTool.class.getName()));
            cmd.addAll(Arrays.asList(command));
        }
        else
        {
            final String emulator = EmulatorLaunch.emulator(err);
            if (emulator == null)
            {
                return 1;
            }
            err.println("mlx5j: " + why);
            cmd = EmulatorLaunch.command(emulator, System.getenv(EmulatorLaunch.OPTIONS_ENV), jvm,
                System.getProperty("java.class.path"), command);
        }
        final ProcessBuilder pb = new ProcessBuilder(cmd);
        // this JVM's options already hold what these gave it; passed again they would bring back a cache option
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        return EmulatorLaunch.await(pb, why != null, "aot", err);
    }

    /**
     * Whether a JVM with this JVM's options and {@code cacheOptions} starts at all ({@code -version}): null if it
     * does, else its first error line, or its exit status.
     */
    private static String probe(final List<String> cacheOptions)
    {
        final List<String> cmd = EmulatorLaunch.jvm(CACHE_OPTIONS);
        cmd.addAll(cacheOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "-version"));
        Path log = null;
        try
        {
            log = Files.createTempFile("mlx5j-aot-check", ".log");
            final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().remove("JDK_JAVA_OPTIONS");
            pb.environment().remove("JAVA_TOOL_OPTIONS");
            final Process p = pb.start();
            if (!p.waitFor(PROBE_SECONDS, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
                return null;
            }
            if (p.exitValue() == 0)
            {
                return null;
            }
            // the JVM's [aot] warnings and errors say why, less the one that says to run with -Xlog:aot
            final List<String> why = Files.readString(log, StandardCharsets.UTF_8).lines()
                .filter(l -> AOT_LOG.matcher(l).find() && !l.contains("Run with -Xlog"))
                .map(l -> AOT_LOG.matcher(l).replaceFirst("").replaceFirst("\\.$", "")).toList();
            return why.isEmpty() ? "it exits with status " + p.exitValue() + " at start" : String.join("; ", why);
        }
        catch (final IOException ex)
        {
            return null;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return null;
        }
        finally
        {
            if (log != null)
            {
                deleteQuietly(log);
            }
        }
    }

    static Path stampOf(final Path cache)
    {
        return cache.resolveSibling(cache.getFileName() + STAMP_SUFFIX);
    }

    private static long size(final Path file)
    {
        try
        {
            return Files.isRegularFile(file) ? Files.size(file) : -1;
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    private static void deleteQuietly(final Path file)
    {
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ex)
        {
            // a cache left behind has no stamp, so aot run refuses it; a check's log is a temporary file
        }
    }

    /**
     * What a cache was made with: the JDK (its home and {@code java.vm.version}), each class path entry with the
     * SHA-256 of its bytes ("absent" for a path that did not exist), and the training command (for the message that
     * says how to make it again). Written as {@code key=value} lines.
     *
     * @param jdk       java.home and java.vm.version
     * @param classPath entry to SHA-256, in class path order
     * @param command   the training run's command
     * @param made      when the cache was made (informative; not compared)
     */
    record Stamp(String jdk, Map<String, String> classPath, String command, String made)
    {
        private static final String ABSENT = "absent";

        /** This JVM's stamp for a cache of {@code command}; hashes every jar of the class path. */
        static Stamp ofThisJvm(final String[] command) throws IOException
        {
            final Map<String, String> cp = new LinkedHashMap<>();
            for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
            {
                if (entry.isEmpty())
                {
                    continue;
                }
                final Path p = Path.of(entry);
                if (Files.isDirectory(p))
                {
                    throw new IllegalStateException("the class path holds the directory " + entry + ": an AOT cache "
                        + "takes classes from jars only (start the tool through ./mlx5j, which runs the built jars)");
                }
                cp.put(entry, Files.isRegularFile(p) ? sha256(p) : ABSENT);
            }
            return new Stamp(System.getProperty("java.home") + " " + System.getProperty("java.vm.version"), cp,
                String.join(" ", command), Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        }

        /** How {@code now} differs from this stamp, as "by/for ..." words, or null when it does not. */
        String mismatch(final Stamp now)
        {
            if (!jdk.equals(now.jdk))
            {
                return "by the JDK " + jdk + ", this is " + now.jdk;
            }
            if (!List.copyOf(classPath.keySet()).equals(List.copyOf(now.classPath.keySet())))
            {
                return "for the class path " + String.join(File.pathSeparator, classPath.keySet()) + ", this run's is "
                    + String.join(File.pathSeparator, now.classPath.keySet());
            }
            for (final Map.Entry<String, String> e : classPath.entrySet())
            {
                final String then = e.getValue();
                final String current = now.classPath.get(e.getKey());
                if (!then.equals(current))
                {
                    return "from another " + e.getKey() + " (SHA-256 " + abbreviate(then) + " then, "
                        + abbreviate(current) + " now; the JVM would run the classes of the old one)";
                }
            }
            return null;
        }

        String format()
        {
            final StringBuilder s = new StringBuilder();
            s.append("# mlx5j aot create: what the AOT cache beside this file was made with; mlx5j aot run maps it\n");
            s.append("# only while all of it holds (the JVM does not check the jars itself: JDK-8377932)\n");
            s.append("made=").append(made).append('\n');
            s.append("jdk=").append(jdk).append('\n');
            s.append("command=").append(command).append('\n');
            for (final Map.Entry<String, String> e : classPath.entrySet())
            {
                s.append("jar=").append(e.getValue()).append(' ').append(e.getKey()).append('\n');
            }
            return s.toString();
        }

        static Stamp parse(final String text)
        {
            String made = null;
            String jdk = null;
            String command = null;
            final Map<String, String> cp = new LinkedHashMap<>();
            for (final String line : text.lines().toList())
            {
                if (line.isBlank() || line.startsWith("#"))
                {
                    continue;
                }
                final int eq = line.indexOf('=');
                if (eq <= 0)
                {
                    throw new IllegalArgumentException("not key=value: '" + line + "'");
                }
                final String value = line.substring(eq + 1);
                switch (line.substring(0, eq))
                {
                    case "made" -> made = value;
                    case "jdk" -> jdk = value;
                    case "command" -> command = value;
                    case "jar" ->
                    {
                        final int sp = value.indexOf(' ');
                        if (sp <= 0)
                        {
                            throw new IllegalArgumentException("jar needs 'SHA-256 PATH': '" + line + "'");
                        }
                        cp.put(value.substring(sp + 1), value.substring(0, sp));
                    }
                    default -> throw new IllegalArgumentException("unknown key in '" + line + "'");
                }
            }
            if (jdk == null || command == null)
            {
                throw new IllegalArgumentException("no jdk= or command= line");
            }
            return new Stamp(jdk, cp, command, made);
        }

        private static String abbreviate(final String hash)
        {
            return hash == null ? "none" : hash.length() > 12 ? hash.substring(0, 12) : hash;
        }

        private static String sha256(final Path file) throws IOException
        {
            final MessageDigest md;
            try
            {
                md = MessageDigest.getInstance("SHA-256");
            }
            catch (final NoSuchAlgorithmException ex)
            {
                throw new IllegalStateException("no SHA-256 in this JDK", ex);
            }
            final byte[] buf = new byte[1 << 16];
            try (InputStream in = Files.newInputStream(file))
            {
                for (int n; (n = in.read(buf)) > 0; )
                {
                    md.update(buf, 0, n);
                }
            }
            return HexFormat.of().formatHex(md.digest());
        }
    }
}
