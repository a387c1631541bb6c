package io.mlx5j.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The emulated kernel's own view of the objects (emulator/src/mlx5emu_debug.h, exported by the LD_PRELOADed
 * libmlx5emu.so): what libibverbs actually sent in its commands, independent of what libibverbs or libmlx5 report
 * back. Member offsets come from a gcc-compiled helper (src/test/c/emu_debug_offsets.c), not from Java constants.
 */
public final class EmulatorDebug
{
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Map<String, long[]> MEMBERS = new HashMap<>();
    private static final SymbolLookup LIB;

    static
    {
        final String preload = System.getenv("LD_PRELOAD");
        if (preload == null || !preload.contains("libmlx5emu.so"))
        {
            throw new IllegalStateException("tests must run with the emulator preloaded; LD_PRELOAD=" + preload);
        }
        String lib = null;
        for (final String part : preload.split("[: ]"))
        {
            if (part.endsWith("libmlx5emu.so"))
            {
                lib = part;
            }
        }
        // dlopen of the preloaded library returns the copy already in the process
        LIB = SymbolLookup.libraryLookup(Path.of(lib), Arena.global());
        try
        {
            final Path exe = Path.of("target/emu_debug_offsets");
            final Path include = Path.of(lib).getParent().getParent().resolve("src");
            run(List.of("gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-I", include.toString(), "-o",
                exe.toString(), "src/test/c/emu_debug_offsets.c"));
            for (final String line : run(List.of(exe.toString())).split("\n"))
            {
                final String[] f = line.split(" ");
                MEMBERS.put(f[0], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        catch (final Exception ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private EmulatorDebug()
    {
    }

    /** The kernel's record of QP {@code qpn}, member name to value (unsigned), or null if it does not exist. */
    public static Map<String, Long> qp(final int qpn)
    {
        return read("qp", "mlx5emu_debug_qp", qpn);
    }

    static Map<String, Long> cq(final int cqn)
    {
        return read("cq", "mlx5emu_debug_cq", cqn);
    }

    static Map<String, Long> srq(final int srqn)
    {
        return read("srq", "mlx5emu_debug_srq", srqn);
    }

    static Map<String, Long> mr(final int lkey)
    {
        return read("mr", "mlx5emu_debug_mr", lkey);
    }

    /** Live objects of this process: contexts, pds, mrs, cqs, qps, srqs, ahs, channels. */
    public static Map<String, Long> live()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment out = arena.allocate(MEMBERS.get("live")[0], 8);
            final MethodHandle h = LINKER.downcallHandle(LIB.find("mlx5emu_debug_live").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            if ((int) h.invokeExact(out) != 0)
            {
                throw new IllegalStateException("mlx5emu_debug_live failed");
            }
            return members("live", out);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError(ex);
        }
    }

    /** Byte array member (dgid, dmac) of a QP record. */
    static byte[] qpBytes(final int qpn, final String member)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment out = call(arena, "qp", "mlx5emu_debug_qp", qpn);
            final long[] m = MEMBERS.get("qp." + member);
            return out.asSlice(m[0], m[1]).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /**
     * Listeners on the whole emulated fabric, every process included, for an rdma_cm port space
     * ({@code RDMA_PS_TCP} = 0x0106) and port. Reads the directory without binding, so waiting for another program to
     * listen cannot steal the port from it the way a probing bind can.
     */
    public static int cmListeners(final int portSpace, final int port)
    {
        try
        {
            final MethodHandle h = LINKER.downcallHandle(LIB.find("mlx5emu_debug_cm_listeners").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_SHORT, ValueLayout.JAVA_SHORT));
            final int n = (int) h.invokeExact((short) portSpace, (short) port);
            if (n < 0)
            {
                throw new IllegalStateException("the emulated fabric's CM directory cannot be mapped");
            }
            return n;
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError(ex);
        }
    }

    /** Driver-rule violations the engine counted in this process (strict mode prints each one). */
    static long strictViolations()
    {
        try
        {
            final MethodHandle h = LINKER.downcallHandle(LIB.find("mlx5emu_strict_violations").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG));
            return (long) h.invokeExact();
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError(ex);
        }
    }

    private static Map<String, Long> read(final String struct, final String function, final int number)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment out = call(arena, struct, function, number);
            return out == null ? null : members(struct, out);
        }
    }

    private static MemorySegment call(final Arena arena, final String struct, final String function, final int number)
    {
        final MemorySegment out = arena.allocate(MEMBERS.get(struct)[0], 8);
        try
        {
            final MethodHandle h = LINKER.downcallHandle(LIB.find(function).orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            return (int) h.invokeExact(number, out) == 0 ? out : null;
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError(ex);
        }
    }

    private static Map<String, Long> members(final String struct, final MemorySegment out)
    {
        final Map<String, Long> values = new HashMap<>();
        MEMBERS.forEach((key, m) ->
        {
            if (key.startsWith(struct + "."))
            {
                final long v = switch ((int) m[1])
                {
                    case 1 -> Byte.toUnsignedLong(out.get(ValueLayout.JAVA_BYTE, m[0]));
                    case 2 -> Short.toUnsignedLong(out.get(ValueLayout.JAVA_SHORT, m[0]));
                    case 4 -> Integer.toUnsignedLong(out.get(ValueLayout.JAVA_INT, m[0]));
                    case 8 -> out.get(ValueLayout.JAVA_LONG, m[0]);
                    default -> -1; // arrays: see qpBytes
                };
                values.put(key.substring(struct.length() + 1), v);
            }
        });
        return values;
    }

    private static String run(final List<String> command) throws Exception
    {
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().remove("LD_PRELOAD");
        final Process process = pb.start();
        final byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0)
        {
            throw new IllegalStateException(command + " failed: " + new String(out, StandardCharsets.UTF_8));
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
