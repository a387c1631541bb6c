// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The emulated ConnectX this process runs on (emulator/: libmlx5emu.so, which emulator/mlx5emu or a surefire
 * configuration puts in {@code LD_PRELOAD}), seen through the hooks the emulator exports for tests:
 * <ul>
 * <li>strict mode: the driver-rule violations its engine counted ({@code mlx5emu_strict_violations}), and the
 * reports it prints for each one;</li>
 * <li>the emulated kernel's records of QPs, CQs, SRQs and MRs ({@code emulator/src/mlx5emu_debug.h}): what libibverbs
 * actually sent in its commands, independent of what libibverbs or libmlx5 report back;</li>
 * <li>the live verbs objects of this process, and the rdma_cm listeners of the whole emulated fabric;</li>
 * <li>the knobs the emulator reads with {@code getenv(3)}, and the environment emulator/mlx5emu would set.</li>
 * </ul>
 * Each record comes back as a map from the C member name to its value, unsigned ({@code int32_t comp_fd = -1} reads
 * 0xffffffff). The member offsets are the Java layouts below; testkit's own {@code DebugStructLayoutTest} compares
 * every one with gcc's {@code offsetof} against the header, so a change of the header fails there.
 * <p>
 * Each native function is bound on first use, in a holder class of its own (a {@code static final} handle), and
 * found with {@code dlsym(RTLD_DEFAULT, name)}: the emulator's hooks are defined by the preloaded library and by
 * nothing else, so whether it is loaded is whether the symbol is there ({@link #isLoaded()}).
 * <p>
 * Threads: every method may be called from any thread. The record reads copy under the emulated kernel's lock, so
 * each map is one consistent snapshot; {@link #setenv} and {@link #unsetenv} must not race with code that calls
 * {@code getenv}, as POSIX says of {@code setenv}.
 */
public final class EmulatedDevice
{
    /** rdma_cm's port space for TCP-like (RC) connections, {@code RDMA_PS_TCP} in {@code <rdma/rdma_cma.h>}. */
    public static final int RDMA_PS_TCP = 0x0106;

    /** The system property that names the file {@code emulator/mlx5emu --env DIR} wrote (the modules' poms set it). */
    public static final String ENV_FILE_PROPERTY = "mlx5emu.env";

    private static final ValueLayout.OfInt U32 = JAVA_INT;
    private static final ValueLayout.OfLong U64 = JAVA_LONG;

    /** {@code struct mlx5emu_debug_qp}. */
    static final StructLayout QP = MemoryLayout.structLayout(
        U32.withName("qpn"), U32.withName("type"), U32.withName("state"), U32.withName("uidx"),
        U32.withName("create_flags"), U32.withName("bfreg_index"), U32.withName("uar_page"),
        U32.withName("bf_offset"),
        U64.withName("uar_page_user_va"), U64.withName("uar_page_alias_va"),
        U64.withName("buf"), U64.withName("sq_buf"), U64.withName("rq_buf"), U64.withName("dbrec"),
        U32.withName("sq_wqe_cnt"), U32.withName("rq_wqe_cnt"), U32.withName("rq_wqe_shift"),
        U32.withName("send_cqn"), U32.withName("recv_cqn"), U32.withName("srqn"), U32.withName("pdn"),
        U32.withName("dest_qp_num"), U32.withName("qkey"), U32.withName("rq_psn"), U32.withName("sq_psn"),
        U32.withName("path_mtu"), U32.withName("attr_mask_seen"),
        U32.withName("max_rd_atomic"), U32.withName("max_dest_rd_atomic"), U32.withName("timeout"),
        U32.withName("retry_cnt"), U32.withName("rnr_retry"), U32.withName("min_rnr_timer"),
        JAVA_SHORT.withName("dlid"), JAVA_BYTE.withName("is_global"), JAVA_BYTE.withName("sgid_index"),
        MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("dgid"),
        MemoryLayout.sequenceLayout(6, JAVA_BYTE).withName("dmac"),
        MemoryLayout.paddingLayout(2)).withName("qp");

    /** {@code struct mlx5emu_debug_cq}. */
    static final StructLayout CQ = MemoryLayout.structLayout(
        U32.withName("cqn"), U32.withName("cqe_cnt"), U32.withName("cqe_size"), U32.withName("flags"),
        U64.withName("buf"), U64.withName("dbrec"), U64.withName("user_handle"),
        JAVA_INT.withName("comp_fd"),
        MemoryLayout.paddingLayout(4)).withName("cq");

    /** {@code struct mlx5emu_debug_srq}. */
    static final StructLayout SRQ = MemoryLayout.structLayout(
        U32.withName("srqn"), U32.withName("wqe_cnt"), U32.withName("wqe_shift"), U32.withName("uidx"),
        U32.withName("srq_limit"), U32.withName("max_sge"),
        U64.withName("buf"), U64.withName("dbrec")).withName("srq");

    /** {@code struct mlx5emu_debug_mr}. */
    static final StructLayout MR = MemoryLayout.structLayout(
        U32.withName("lkey"), U32.withName("rkey"), U32.withName("access"), U32.withName("pdn"),
        U64.withName("addr"), U64.withName("length")).withName("mr");

    /** {@code struct mlx5emu_debug_live}. */
    static final StructLayout LIVE = MemoryLayout.structLayout(
        U32.withName("contexts"), U32.withName("pds"), U32.withName("mrs"), U32.withName("cqs"),
        U32.withName("qps"), U32.withName("srqs"), U32.withName("ahs"), U32.withName("channels")).withName("live");

    /** {@code int mlx5emu_debug_qp(uint32_t qpn, struct mlx5emu_debug_qp *out)} and its siblings. */
    private static final FunctionDescriptor RECORD = FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS);

    private static final Linker LINKER = Linker.nativeLinker();

    private EmulatedDevice()
    {
    }

    /**
     * Whether the emulator library is loaded in this process, that is whether this process runs on the emulated
     * device. Decided once.
     *
     * @return true when libmlx5emu.so defines its hooks here
     */
    public static boolean isLoaded()
    {
        return Loaded.YES;
    }

    /**
     * Fails unless this process runs on the emulated device; every hook method calls it first.
     *
     * @throws IllegalStateException when libmlx5emu.so is not loaded (the message shows {@code LD_PRELOAD})
     */
    public static void requireLoaded()
    {
        if (!Loaded.YES)
        {
            throw new IllegalStateException("this process does not run on the emulated device: libmlx5emu.so is not "
                + "loaded (LD_PRELOAD=" + System.getenv("LD_PRELOAD") + ")");
        }
    }

    /**
     * Whether the engine reports each violation it counts: {@code MLX5EMU_STRICT} set, non-empty and not
     * {@code 0}, the rule of the engine's start-up (emulator/src/engine/eng_core.c).
     *
     * @return true when strict mode is on in this process's environment
     */
    public static boolean strictMode()
    {
        final String s = System.getenv("MLX5EMU_STRICT");
        return s != null && !s.isEmpty() && !s.equals("0");
    }

    /**
     * The driver-rule violations the engine of this process has counted so far (a ring posted past its doorbell, a
     * bad {@code ds}, an unknown opcode...). Monotonic: compare a count taken before the code under test with one
     * taken after. The engine's stderr carries a report of each one ({@link #strictReports}).
     *
     * @return the count since the process started
     * @throws IllegalStateException when the emulator is not loaded, or strict mode is off: without it the engine
     *                               still counts but prints nothing, so a changed count could not say what broke
     */
    public static long strictViolations()
    {
        requireLoaded();
        if (!strictMode())
        {
            throw new IllegalStateException("strict mode is off (MLX5EMU_STRICT=" + System.getenv("MLX5EMU_STRICT")
                + "): violations would be counted without a report of what broke; set MLX5EMU_STRICT=1");
        }
        try
        {
            return (long) StrictViolations.HANDLE.invokeExact();
        }
        catch (final Throwable t)
        {
            throw new AssertionError(t);
        }
    }

    /**
     * The strict-mode lines in a process's stderr: the engine's report of one violation
     * ({@code mlx5emu[PID] STRICT: QP 0x... WQE n: what}) and its summary at exit
     * ({@code mlx5emu[PID]: n strict-mode violations}). Any line that says {@code STRICT} counts, so a new report
     * format cannot slip through.
     *
     * @param stderr what a process (a child on this fabric, typically) wrote to its standard error
     * @return the lines, in order; empty when the process broke no driver rule
     */
    public static List<String> strictReports(final String stderr)
    {
        return stderr.lines().filter(l -> l.contains("STRICT") || l.contains("strict-mode violations")).toList();
    }

    /**
     * The emulated kernel's record of a QP of this process: {@code qpn, type, state, uidx, create_flags,
     * bfreg_index, uar_page, bf_offset, uar_page_user_va, uar_page_alias_va, buf, sq_buf, rq_buf, dbrec, sq_wqe_cnt,
     * rq_wqe_cnt, rq_wqe_shift, send_cqn, recv_cqn, srqn, pdn, dest_qp_num, qkey, rq_psn, sq_psn, path_mtu,
     * attr_mask_seen, max_rd_atomic, max_dest_rd_atomic, timeout, retry_cnt, rnr_retry, min_rnr_timer, dlid,
     * is_global, sgid_index} (the byte arrays {@code dgid} and {@code dmac} are left out).
     *
     * @param qpn the QP number
     * @return member name to unsigned value, in the struct's order; null when this process has no such QP
     * @throws IllegalStateException when the emulator is not loaded
     */
    public static Map<String, Long> qp(final int qpn)
    {
        requireLoaded();
        return record(DebugQp.HANDLE, QP, qpn);
    }

    /**
     * The emulated kernel's record of a CQ: {@code cqn, cqe_cnt, cqe_size, flags, buf, dbrec, user_handle,
     * comp_fd} ({@code comp_fd} is the completion channel's write end, 0xffffffff for none).
     *
     * @param cqn the CQ number
     * @return member name to unsigned value; null when this process has no such CQ
     * @throws IllegalStateException when the emulator is not loaded
     */
    public static Map<String, Long> cq(final int cqn)
    {
        requireLoaded();
        return record(DebugCq.HANDLE, CQ, cqn);
    }

    /**
     * The emulated kernel's record of an SRQ: {@code srqn, wqe_cnt, wqe_shift, uidx, srq_limit, max_sge, buf,
     * dbrec}.
     *
     * @param srqn the SRQ number
     * @return member name to unsigned value; null when this process has no such SRQ
     * @throws IllegalStateException when the emulator is not loaded
     */
    public static Map<String, Long> srq(final int srqn)
    {
        requireLoaded();
        return record(DebugSrq.HANDLE, SRQ, srqn);
    }

    /**
     * The emulated kernel's record of an MR: {@code lkey, rkey, access, pdn, addr, length}.
     *
     * @param lkey the MR's local key
     * @return member name to unsigned value; null when this process has no MR with that key (deregistered)
     * @throws IllegalStateException when the emulator is not loaded
     */
    public static Map<String, Long> mr(final int lkey)
    {
        requireLoaded();
        return record(DebugMr.HANDLE, MR, lkey);
    }

    /**
     * The user index libmlx5 gave a QP (with CQE version 1 it is what a CQE's {@code srqn_uidx} carries).
     *
     * @param qpn the QP number
     * @return the {@code uidx} member of the QP's record
     * @throws IllegalStateException when the emulator is not loaded or this process has no such QP
     */
    public static int uidx(final int qpn)
    {
        final Map<String, Long> qp = qp(qpn);
        if (qp == null)
        {
            throw new IllegalStateException("the emulated kernel has no QP 0x" + Integer.toHexString(qpn));
        }
        return (int) (long) qp.get("uidx");
    }

    /**
     * The live verbs objects of this process, as the emulated kernel counts them: {@code contexts, pds, mrs, cqs,
     * qps, srqs, ahs, channels}. A test that closed everything it opened sees what it saw before it started.
     *
     * @return member name to count, in the struct's order
     * @throws IllegalStateException when the emulator is not loaded or the call fails
     */
    public static Map<String, Long> live()
    {
        requireLoaded();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment out = arena.allocate(LIVE);
            if ((int) DebugLive.HANDLE.invokeExact(out) != 0)
            {
                throw new IllegalStateException("mlx5emu_debug_live failed");
            }
            return members(LIVE, out);
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

    /**
     * Listeners on the whole emulated fabric, every process included, for an rdma_cm port space and port. Reads
     * the fabric's directory without binding, so waiting for another program to listen cannot steal the port from
     * it the way a probing bind can.
     *
     * @param portSpace the rdma_cm port space, e.g. {@link #RDMA_PS_TCP}
     * @param port      the port
     * @return how many ids listen there
     * @throws IllegalStateException when the emulator is not loaded or the fabric's directory cannot be mapped
     */
    public static int cmListeners(final int portSpace, final int port)
    {
        requireLoaded();
        try
        {
            final int n = (int) DebugCmListeners.HANDLE.invokeExact((short) portSpace, (short) port);
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

    /**
     * Sets a variable in the C environment of this process, where the emulator's {@code getenv} reads its knobs
     * ({@code MLX5EMU_CM_TIMEOUT_MS} when the CM arms a REQ timer, {@code MLX5EMU_ETH_MIN_INLINE} when a device
     * context opens...). {@link System#getenv} keeps its own copy and does not see the change.
     *
     * @param name  the variable
     * @param value its value
     * @throws IllegalStateException when {@code setenv(3)} fails
     */
    public static void setenv(final String name, final String value)
    {
        try (Arena a = Arena.ofConfined())
        {
            if ((int) Setenv.HANDLE.invokeExact(a.allocateFrom(name), a.allocateFrom(value), 1) != 0)
            {
                throw new IllegalStateException("setenv(" + name + ") failed");
            }
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

    /**
     * Removes a variable from the C environment of this process (see {@link #setenv}).
     *
     * @param name the variable
     * @throws IllegalStateException when {@code unsetenv(3)} fails
     */
    public static void unsetenv(final String name)
    {
        try (Arena a = Arena.ofConfined())
        {
            if ((int) Unsetenv.HANDLE.invokeExact(a.allocateFrom(name)) != 0)
            {
                throw new IllegalStateException("unsetenv(" + name + ") failed");
            }
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

    /**
     * A TCP port nobody on this host listens on right now, for the TCP side channel of a program on the fabric
     * (perftest, the pingpong examples). The emulated rdma_cm keeps a port table of its own, which this does not
     * ask: a test that needs the port free there as well binds it there too.
     *
     * @return the port
     * @throws IOException when no socket can be opened
     */
    public static int freeTcpPort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0))
        {
            return s.getLocalPort();
        }
    }

    /**
     * The environment {@code emulator/mlx5emu --env DIR} printed for this test run, read from the file the
     * system property {@value #ENV_FILE_PROPERTY} names: its {@code KEY=VALUE} lines (the file also holds whatever
     * building the emulator library printed, as exec-maven-plugin merges the streams), each value read as the one
     * shell word the launcher prints, so that {@code set -a; . FILE} loads the same file.
     *
     * @return variable to value, in the launcher's order
     * @throws IllegalStateException when the property is not set (not run through Maven)
     * @throws UncheckedIOException  when the file cannot be read
     */
    public static Map<String, String> launcherEnvironment()
    {
        final String file = System.getProperty(ENV_FILE_PROPERTY);
        if (file == null)
        {
            throw new IllegalStateException("system property " + ENV_FILE_PROPERTY + " not set (run through Maven)");
        }
        final Map<String, String> env = new LinkedHashMap<>();
        try
        {
            for (final String line : Files.readAllLines(Path.of(file)))
            {
                if (line.matches("[A-Z][A-Z0-9_]*=.*"))
                {
                    final int eq = line.indexOf('=');
                    env.put(line.substring(0, eq), shellWord(line.substring(eq + 1)));
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return Collections.unmodifiableMap(env);
    }

    /**
     * A value as a POSIX shell reads it: the launcher prints every value as one single-quoted word (a quote inside
     * becomes {@code '\''}); a backslash outside quotes escapes the next character.
     */
    private static String shellWord(final String word)
    {
        final StringBuilder value = new StringBuilder(word.length());
        for (int i = 0; i < word.length(); i++)
        {
            final char c = word.charAt(i);
            if (c == '\'')
            {
                final int end = word.indexOf('\'', i + 1);
                if (end < 0)
                {
                    throw new IllegalArgumentException("unterminated quote in " + word);
                }
                value.append(word, i + 1, end);
                i = end;
            }
            else if (c == '\\' && i + 1 < word.length())
            {
                value.append(word.charAt(++i));
            }
            else
            {
                value.append(c);
            }
        }
        return value.toString();
    }

    /**
     * Where this JVM's environment differs from what the launcher sets: a variable missing here, or set otherwise.
     * Paths ({@code LD_PRELOAD}, {@code SYSFS_PATH}, {@code MLX5EMU_SYSFS}) are compared as real paths, since the
     * pom and the launcher may spell the same file differently.
     *
     * @param launcher the launcher's environment, {@link #launcherEnvironment()}
     * @return one sentence per difference; empty when the test runs as emulator/mlx5emu would run it
     */
    public static List<String> environmentDifferences(final Map<String, String> launcher)
    {
        final List<String> differences = new ArrayList<>();
        launcher.forEach((key, expected) ->
        {
            final String actual = System.getenv(key);
            if (actual == null)
            {
                differences.add(key + " is not set in this JVM; the launcher sets it to " + expected);
            }
            else if (key.equals("LD_PRELOAD") || key.contains("SYSFS"))
            {
                try
                {
                    if (!Path.of(expected).toRealPath().equals(Path.of(actual).toRealPath()))
                    {
                        differences.add(key + ": the launcher sets " + expected + ", this JVM has " + actual);
                    }
                }
                catch (final IOException ex)
                {
                    differences.add(key + ": " + ex + " (the launcher sets " + expected + ", this JVM has " + actual
                        + ")");
                }
            }
            else if (!expected.equals(actual))
            {
                differences.add(key + ": the launcher sets " + expected + ", this JVM has " + actual);
            }
        });
        return differences;
    }

    private static Map<String, Long> record(final MethodHandle handle, final StructLayout layout, final int number)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment out = arena.allocate(layout);
            return (int) handle.invokeExact(number, out) == 0 ? members(layout, out) : null;
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

    private static Map<String, Long> members(final StructLayout layout, final MemorySegment out)
    {
        final Map<String, Long> values = new LinkedHashMap<>();
        long offset = 0;
        for (final MemoryLayout m : layout.memberLayouts())
        {
            if (m instanceof ValueLayout && m.name().isPresent())
            {
                final long v = switch ((int) m.byteSize())
                {
                    case 1 -> Byte.toUnsignedLong(out.get(JAVA_BYTE, offset));
                    case 2 -> Short.toUnsignedLong(out.get(JAVA_SHORT, offset));
                    case 4 -> Integer.toUnsignedLong(out.get(JAVA_INT, offset));
                    default -> out.get(JAVA_LONG, offset);
                };
                values.put(m.name().get(), v);
            }
            offset += m.byteSize();
        }
        return Collections.unmodifiableMap(values);
    }

    /** {@code dlsym(RTLD_DEFAULT, name)} (glibc's RTLD_DEFAULT is 0): what the dynamic linker finds first. */
    private static MemorySegment symbol(final String name)
    {
        try (Arena a = Arena.ofConfined())
        {
            return (MemorySegment) Dlsym.HANDLE.invokeExact(MemorySegment.NULL, a.allocateFrom(name));
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

    private static MethodHandle bind(final String name, final FunctionDescriptor descriptor)
    {
        final MemorySegment address = symbol(name);
        if (address.address() == 0)
        {
            throw new IllegalStateException(name + " is not defined by the loaded emulator library");
        }
        return LINKER.downcallHandle(address, descriptor);
    }

    private static MethodHandle libc(final String name, final FunctionDescriptor descriptor)
    {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor);
    }

    private static final class Dlsym
    {
        static final MethodHandle HANDLE = libc("dlsym", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    }

    private static final class Loaded
    {
        static final boolean YES = symbol("mlx5emu_strict_violations").address() != 0;
    }

    private static final class StrictViolations
    {
        /** {@code unsigned long mlx5emu_strict_violations(void)}, emulator/src/engine/eng_base.c. */
        static final MethodHandle HANDLE = bind("mlx5emu_strict_violations", FunctionDescriptor.of(JAVA_LONG));
    }

    private static final class DebugQp
    {
        static final MethodHandle HANDLE = bind("mlx5emu_debug_qp", RECORD);
    }

    private static final class DebugCq
    {
        static final MethodHandle HANDLE = bind("mlx5emu_debug_cq", RECORD);
    }

    private static final class DebugSrq
    {
        static final MethodHandle HANDLE = bind("mlx5emu_debug_srq", RECORD);
    }

    private static final class DebugMr
    {
        static final MethodHandle HANDLE = bind("mlx5emu_debug_mr", RECORD);
    }

    private static final class DebugLive
    {
        static final MethodHandle HANDLE = bind("mlx5emu_debug_live", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    private static final class DebugCmListeners
    {
        static final MethodHandle HANDLE = bind("mlx5emu_debug_cm_listeners",
            FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, JAVA_SHORT));
    }

    private static final class Setenv
    {
        static final MethodHandle HANDLE = libc("setenv", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    }

    private static final class Unsetenv
    {
        static final MethodHandle HANDLE = libc("unsetenv", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }
}
