// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every librdmacm FunctionDescriptor in {@link Rdmacm} is the C prototype from the installed rdma/rdma_cma.h: gcc
 * records the prototypes of the functions src/test/c/rdmacm_function_probe.c takes the address of, and each public
 * method's descriptor must have the same return and parameter ABI classes. A public method with no C function, or a
 * C function the probe lists but Java does not bind, fails.
 */
class RdmacmSignatureTest
{
    private static DwarfStructs functions;
    private static String probeSource;

    @BeforeAll
    static void probe() throws Exception
    {
        Files.createDirectories(Path.of("target"));
        final Path src = Path.of("src/test/c/rdmacm_function_probe.c");
        probeSource = Files.readString(src);
        run(List.of("gcc", "-std=gnu11", "-g", "-Wall", "-Wextra", "-Werror", "-c", "-o",
            "target/rdmacm_function_probe.o", src.toString()));
        functions = new DwarfStructs(run(List.of("readelf", "--debug-dump=info", "target/rdmacm_function_probe.o")));
    }

    @Test
    void everyBoundFunctionMatchesItsPrototype() throws ReflectiveOperationException
    {
        final List<String> problems = new ArrayList<>();
        int checked = 0;
        for (final Method method : Rdmacm.class.getDeclaredMethods())
        {
            if (!Modifier.isPublic(method.getModifiers()))
            {
                continue;
            }
            final String name = method.getName();
            final DwarfStructs.Die c = functions.function(name);
            if (c == null || !probeSource.contains("(void *)" + name + ","))
            {
                problems.add(name + ": not in rdmacm_function_probe.c (or not declared by rdma_cma.h)");
                continue;
            }
            final List<String> java = abi(descriptor(Rdmacm.class.getName() + "$" + name + "$"));
            final List<String> cSig = functions.signature(c);
            if (!cSig.equals(java))
            {
                problems.add(name + ": C " + cSig + ", Java " + java);
            }
            checked++;
        }
        if (!problems.isEmpty())
        {
            fail(String.join("\n", problems));
        }
        final long probed = probeSource.lines().filter(l -> l.trim().startsWith("(void *)rdma_")).count();
        assertEquals(probed, checked, "the probe lists functions Rdmacm does not bind");
        assertEquals(24, checked);
    }

    /** The descriptors link: every symbol is exported by the installed librdmacm.so.1. */
    @Test
    void everySymbolResolves()
    {
        for (final Method method : Rdmacm.class.getDeclaredMethods())
        {
            if (Modifier.isPublic(method.getModifiers()))
            {
                assertTrue(NativeLibs.rdmacm(method.getName()).address() != 0, method.getName());
            }
        }
    }

    private static FunctionDescriptor descriptor(final String holder) throws ReflectiveOperationException
    {
        final Field f = Class.forName(holder).getDeclaredField("DESC");
        f.setAccessible(true);
        return (FunctionDescriptor) f.get(null);
    }

    private static List<String> abi(final FunctionDescriptor fd)
    {
        final List<String> sig = new ArrayList<>();
        sig.add(fd.returnLayout().map(RdmacmSignatureTest::abiClass).orElse("void"));
        for (final MemoryLayout arg : fd.argumentLayouts())
        {
            sig.add(abiClass(arg));
        }
        return sig;
    }

    private static String abiClass(final MemoryLayout layout)
    {
        if (layout instanceof AddressLayout)
        {
            return "ptr";
        }
        if (layout instanceof ValueLayout.OfBoolean)
        {
            return "bool";
        }
        return "int" + layout.byteSize() * 8;
    }

    private static String run(final List<String> command) throws Exception
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0)
        {
            fail(String.join(" ", command) + " failed:\n" + new String(out, StandardCharsets.UTF_8));
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
