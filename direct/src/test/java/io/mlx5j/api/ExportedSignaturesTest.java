// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.api;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The API the module descriptor exports names no type it does not export. A public method that takes or returns an
 * {@code .internal} type (or a public class that implements an internal interface, which makes the interface's
 * methods public methods of the class) puts a part of the implementation into the API that users compile against:
 * it can then no longer change without breaking them.
 */
class ExportedSignaturesTest
{
    private static final List<String> EXPORTED = List.of("io.mlx5j.verbs", "io.mlx5j.direct", "io.mlx5j.raw",
        "io.mlx5j.cm");

    @Test
    void noExportedSignatureNamesAnInternalType() throws Exception
    {
        final List<Class<?>> classes = exportedClasses();
        assertTrue(classes.size() > 60, "found only " + classes.size() + " public classes: is the scan broken?");
        final List<String> leaks = new ArrayList<>();
        for (final Class<?> c : classes)
        {
            check(leaks, c + " extends", c.getGenericSuperclass());
            for (final Type t : c.getGenericInterfaces())
            {
                check(leaks, c + " implements", t);
            }
            for (final Method m : c.getDeclaredMethods())
            {
                if (visible(m.getModifiers()) && !m.isSynthetic())
                {
                    checkExecutable(leaks, m);
                    check(leaks, m + " returns", m.getGenericReturnType());
                }
            }
            for (final Constructor<?> k : c.getDeclaredConstructors())
            {
                if (visible(k.getModifiers()))
                {
                    checkExecutable(leaks, k);
                }
            }
            for (final Field f : c.getDeclaredFields())
            {
                if (visible(f.getModifiers()))
                {
                    check(leaks, f + " has type", f.getGenericType());
                }
            }
        }
        assertEquals(List.of(), leaks);
    }

    @Test
    void theReceiveQueuesExposeNoPollerContract() throws Exception
    {
        // the methods by which the poller retires WQEs and scatters CQE data: an application calling one corrupts
        // the queue, so they must not be methods of the public classes
        final Set<String> contract = Set.of("complete", "reclaim", "copyToRecvWqe", "copyToRecvSrq", "consume",
            "releaseOldest", "tailSlot", "tailWrId", "frameAddress", "ownership", "dead", "core");
        for (final String name : List.of("io.mlx5j.direct.RecvQueue", "io.mlx5j.direct.SrqRecvQueue",
            "io.mlx5j.raw.StridingRecvQueue", "io.mlx5j.direct.SendQueue", "io.mlx5j.raw.RawSendQueue"))
        {
            for (final Method m : Class.forName(name).getMethods())
            {
                assertTrue(!contract.contains(m.getName()), name + " has public " + m);
            }
        }
    }

    private static boolean visible(final int modifiers)
    {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void checkExecutable(final List<String> leaks, final Executable e)
    {
        for (final Type t : e.getGenericParameterTypes())
        {
            check(leaks, e + " takes", t);
        }
        for (final Type t : e.getGenericExceptionTypes())
        {
            check(leaks, e + " throws", t);
        }
    }

    private static void check(final List<String> leaks, final String where, final Type type)
    {
        if (type == null)
        {
            return;
        }
        final String name = type.getTypeName();
        for (final String token : name.split("[<>,\\[\\] ?&]+"))
        {
            if (token.startsWith("io.mlx5j.") && token.contains(".internal."))
            {
                leaks.add(where + " " + token);
            }
        }
    }

    private static List<Class<?>> exportedClasses() throws IOException, URISyntaxException, ClassNotFoundException
    {
        final Path root = Path.of(io.mlx5j.direct.SendQueue.class.getProtectionDomain().getCodeSource().getLocation()
            .toURI());
        final List<Class<?>> out = new ArrayList<>();
        for (final String pkg : EXPORTED)
        {
            try (Stream<Path> files = Files.list(root.resolve(pkg.replace('.', '/'))))
            {
                for (final Path p : (Iterable<Path>) files::iterator)
                {
                    final String file = p.getFileName().toString();
                    if (file.endsWith(".class") && !file.equals("package-info.class"))
                    {
                        final Class<?> c = Class.forName(pkg + "." + file.substring(0, file.length() - 6), false,
                            ExportedSignaturesTest.class.getClassLoader());
                        if (Modifier.isPublic(c.getModifiers()))
                        {
                            out.add(c);
                        }
                    }
                }
            }
        }
        return out;
    }
}
