// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.IbvSendWr;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.direct.WcOpcode;
import io.mlx5j.doorbell.DoorbellRecord;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.QpState;
import io.mlx5j.verbs.QpType;
import io.mlx5j.wqe.CtrlSeg;
import io.mlx5j.wqe.WcStatus;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every Java constant that carries a verbs or mlx5dv name has the value the installed C headers give that name
 * (once a defect: SendFlags.SIGNALED was 1 while IBV_SEND_SIGNALED is 2, so ported verbs code fenced instead of
 * signaling, silently). The test generates a C program from the Java side, compiles it with gcc against
 * /usr/include/infiniband, and compares each printed value with the Java one:
 * <ul>
 * <li>every {@code static final int/long} field named {@code IBV_*} or {@code MLX5*} in the bindings, wqe-builder,
 * doorbell and direct modules (found by walking their class files, so a new constant is checked without being
 * listed here), except the few that rdma-core defines only in its private provider headers;</li>
 * <li>the user-facing short names of the direct module, each mapped to its verbs name: {@link SendFlags} to
 * IBV_SEND_*, {@link Access} to IBV_ACCESS_*, {@link WcOpcode} to IBV_WC_* (opcodes and wc_flags), {@link QpState}
 * to IBV_QPS_*, {@link QpType} to IBV_QPT_*, {@link WcStatus} to IBV_WC_*.</li>
 * </ul>
 * mlx5j-only flags must not overlap any verbs bit: {@link SendFlags#RING} is checked against the OR of every
 * IBV_SEND_* value.
 */
class HeaderConstantsTest
{
    /**
     * Names rdma-core keeps in providers/mlx5/mlx5.h and wqe.h (not installed); their values are cited where they are
     * defined. A name here that the headers do define fails the test, so this list cannot hide a checkable constant.
     */
    private static final Set<String> PRIVATE_TO_RDMA_CORE = Set.of(
        "MLX5_AV_GRH", "MLX5_BF_OFFSET", "MLX5_CQ_ARM_DB", "MLX5_CQ_ARM_DB_OFFSET", "MLX5_CQ_SET_CI",
        "MLX5_CQ_SET_CI_OFFSET", "MLX5_OPMOD_EXT_ATOMIC_32", "MLX5_OPMOD_EXT_ATOMIC_64", "MLX5_RCV_DBR_OFFSET",
        "MLX5_SND_DBR_OFFSET",
        // rdma-core v44 providers/mlx5/wqe.h and mlx5.h (raw packet QPs)
        "MLX5_ETH_L2_MIN_HEADER_SIZE", "MLX5_ETH_L2_INLINE_HEADER_SIZE", "MLX5_FLOW_TAG_MASK");

    /** One Java value and the C expression it must equal. */
    private record Check(String java, String c, long value, boolean isInt)
    {
    }

    @Test
    void everyVerbsNamedConstantHasTheHeadersValue() throws Exception
    {
        final List<Check> checks = new ArrayList<>();
        final List<String> privateNames = new ArrayList<>();
        for (final Class<?> anchor : List.of(IbvSendWr.class, CtrlSeg.class, DoorbellRecord.class,
            SendQueue.class))
        {
            for (final Class<?> c : classesBeside(anchor))
            {
                if (c.getSimpleName().equals("Vector512"))
                {
                    continue;   // needs jdk.incubator.vector, which this JVM runs without; it holds no constants
                }
                for (final Field f : c.getDeclaredFields())
                {
                    if (isConstant(f) && f.getName().matches("(IBV|MLX5)[A-Z0-9_]*"))
                    {
                        if (PRIVATE_TO_RDMA_CORE.contains(f.getName()))
                        {
                            privateNames.add(f.getName());
                        }
                        else
                        {
                            checks.add(check(c.getSimpleName() + "." + f.getName(), f.getName(), f));
                        }
                    }
                }
            }
        }
        // the walk found the modules' constants (a broken walk must not pass with nothing checked)
        assertTrue(checks.stream().anyMatch(k -> k.java().equals("IbvSendWr.IBV_SEND_SIGNALED")), "bindings");
        assertTrue(checks.stream().anyMatch(k -> k.java().equals("CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE")), "wqe-builder");
        assertTrue(checks.size() > 150, checks.size() + " constants found");

        for (final Field f : SendFlags.class.getFields())
        {
            if (isConstant(f) && !f.getName().equals("RING"))
            {
                checks.add(check("SendFlags." + f.getName(), "IBV_SEND_" + f.getName(), f));
            }
        }
        for (final Field f : Access.class.getFields())
        {
            checks.add(check("Access." + f.getName(), f.getName().equals("ALL_REMOTE")
                ? "(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE"
                    + " | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)"
                : "IBV_ACCESS_" + f.getName(), f));
        }
        for (final Field f : WcOpcode.class.getFields())
        {
            // opcodes are IBV_WC_<name>, the wc_flags bits WC_<flag> are IBV_WC_<flag>
            final String c = f.getName().startsWith("WC_") ? "IBV_" + f.getName() : "IBV_WC_" + f.getName();
            checks.add(check("WcOpcode." + f.getName(), c, f));
        }
        for (final QpState s : QpState.values())
        {
            checks.add(new Check("QpState." + s, "IBV_QPS_" + s, s.value(), true));
        }
        for (final QpType t : QpType.values())
        {
            // DC QPs are the provider's type: ibv_qp_type IBV_QPT_DRIVER, the DC kind in mlx5dv_dc_init_attr
            final boolean dc = t == QpType.DCI || t == QpType.DCT;
            checks.add(new Check("QpType." + t, dc ? "IBV_QPT_DRIVER" : "IBV_QPT_" + t, t.value(), true));
        }
        for (final WcStatus s : WcStatus.values())
        {
            checks.add(new Check("WcStatus." + s, "IBV_WC_" + s, s.code(), true));
        }
        final String allSendFlags =
            "(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE | IBV_SEND_IP_CSUM)";
        checks.add(new Check("SendFlags.RING & every IBV_SEND_*", "(" + SendFlags.RING + " & " + allSendFlags + ")",
            0, true));

        final Map<String, Long> c = cValues(checks);
        final List<String> wrong = new ArrayList<>();
        for (final Check k : checks)
        {
            final long cv = c.get(k.java());
            final boolean same = cv == k.value() || (k.isInt() && cv == Integer.toUnsignedLong((int)k.value()));
            if (!same)
            {
                wrong.add(k.java() + " = " + k.value() + " but " + k.c() + " = " + cv);
            }
        }
        assertEquals(List.of(), wrong, "Java constants that differ from the installed headers");

        // the private list is exact: each name is used in Java and absent from the installed headers
        assertEquals(PRIVATE_TO_RDMA_CORE, Set.copyOf(privateNames), "names listed as private but not used");
        for (final String name : PRIVATE_TO_RDMA_CORE)
        {
            assertTrue(!compiles(name), name + " is in the installed headers: check it instead of listing it");
        }
    }

    private static boolean isConstant(final Field f)
    {
        final int m = f.getModifiers();
        return Modifier.isStatic(m) && Modifier.isFinal(m) && (f.getType() == int.class || f.getType() == long.class);
    }

    private static Check check(final String java, final String c, final Field f) throws IllegalAccessException
    {
        f.setAccessible(true);
        return f.getType() == int.class ? new Check(java, c, f.getInt(null), true)
            : new Check(java, c, f.getLong(null), false);
    }

    /** Every class in the package of {@code anchor} and its subpackages, loaded from the same jar or directory. */
    private static List<Class<?>> classesBeside(final Class<?> anchor) throws Exception
    {
        final Path where = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        final String pkg = anchor.getPackageName().replace('.', '/');
        final List<Class<?>> out = new ArrayList<>();
        if (Files.isDirectory(where))
        {
            collect(where, where.resolve(pkg), out);
        }
        else
        {
            try (FileSystem jar = FileSystems.newFileSystem(URI.create("jar:" + where.toUri()), Map.of()))
            {
                collect(jar.getPath("/"), jar.getPath("/" + pkg), out);
            }
        }
        return out;
    }

    private static void collect(final Path root, final Path dir, final List<Class<?>> out) throws Exception
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path p : files.filter(x -> x.toString().endsWith(".class")).toList())
            {
                final String rel = root.relativize(p).toString();
                final String name = rel.substring(0, rel.length() - ".class".length()).replace('/', '.');
                if (!name.endsWith("package-info") && !name.endsWith("module-info"))
                {
                    out.add(Class.forName(name, false, HeaderConstantsTest.class.getClassLoader()));
                }
            }
        }
    }

    private static final String HEADERS = "#include <stdio.h>\n#include <infiniband/verbs.h>\n"
        + "#include <infiniband/mlx5dv.h>\n"
        + "#include <rdma/mlx5-abi.h>\n";

    /** Compiles and runs a probe that prints each check's C expression as a signed 64-bit number. */
    private static Map<String, Long> cValues(final List<Check> checks) throws Exception
    {
        final StringBuilder src = new StringBuilder(HEADERS).append("int main(void)\n{\n");
        for (final Check k : checks)
        {
            src.append("\tprintf(\"%s %lld\\n\", \"").append(k.java()).append("\", (long long)(").append(k.c())
                .append("));\n");
        }
        src.append("\treturn 0;\n}\n");
        final Path dir = Files.createDirectories(Path.of("target/header-constants"));
        final Path c = dir.resolve("constant_probe.c");
        final Path exe = dir.resolve("constant_probe");
        Files.writeString(c, src);
        final Result cc = run(List.of("gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-o", exe.toString(),
            c.toString()));
        if (cc.rc() != 0)
        {
            fail("the constant probe does not compile (a Java name the headers do not define?):\n" + cc.out());
        }
        final Result r = run(List.of(exe.toString()));
        assertEquals(0, r.rc(), r.out());
        final Map<String, Long> values = new TreeMap<>();
        for (final String line : r.out().split("\n"))
        {
            final int sp = line.lastIndexOf(' ');
            values.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)));
        }
        assertEquals(checks.size(), values.size(), "one line per check");
        return values;
    }

    private static boolean compiles(final String expr) throws Exception
    {
        final Path dir = Files.createDirectories(Path.of("target/header-constants"));
        final Path c = dir.resolve("one.c");
        Files.writeString(c, HEADERS + "long long x(void) { return (long long)(" + expr + "); }\n");
        return run(List.of("gcc", "-std=gnu11", "-c", "-o", dir.resolve("one.o").toString(), c.toString())).rc()
            == 0;
    }

    private record Result(int rc, String out)
    {
    }

    private static Result run(final List<String> cmd) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            fail(cmd + " timed out");
        }
        return new Result(p.exitValue(), out);
    }
}
