// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import io.mlx5j.bindings.IbvContext;
import io.mlx5j.verbs.Context;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.wqe.SendRing;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The library jars carry no command line: no class of theirs is in a {@code tool} or {@code oob} package, none has a
 * {@code main} a launcher could start (Java 25's instance mains included), and no jar names a Main-Class. Reads what
 * this module compiles against, so in a {@code mvn verify} it checks the packaged jars themselves.
 */
class LibraryJarsTest
{
    @Test
    void noLibraryCarriesACommandLine() throws Exception
    {
        for (final Class<?> marker : List.of(Context.class, SendRing.class, DoorbellMode.class, IbvContext.class))
        {
            final Path where = Path.of(marker.getProtectionDomain().getCodeSource().getLocation().toURI());
            final List<String> classes = classNames(where);
            assertTrue(classes.size() > 5, where + ": " + classes);
            final List<String> found = new ArrayList<>();
            for (final String name : classes)
            {
                final List<String> packages = Arrays.asList(name.split("\\."));
                if (packages.contains("tool") || packages.contains("oob"))
                {
                    found.add(name + " is in a command-line package");
                }
                for (final Method m : Class.forName(name, false, marker.getClassLoader()).getDeclaredMethods())
                {
                    if (isMain(m))
                    {
                        found.add(name + " has " + m);
                    }
                }
            }
            assertEquals(List.of(), found, where.toString());
            if (Files.isRegularFile(where))
            {
                try (JarFile jar = new JarFile(where.toFile()))
                {
                    assertNull(jar.getManifest() == null ? null
                        : jar.getManifest().getMainAttributes().getValue("Main-Class"), where + " names a Main-Class");
                }
            }
        }
    }

    /** The check itself finds a main: the tool's dispatcher has one. */
    @Test
    void theCheckSeesTheDispatchersMain() throws Exception
    {
        assertTrue(Arrays.stream(Mlx5jTool.class.getDeclaredMethods()).anyMatch(LibraryJarsTest::isMain));
        assertTrue(classNames(Path.of(Mlx5jTool.class.getProtectionDomain().getCodeSource().getLocation().toURI()))
            .contains("io.mlx5j.tool.oob.PingpongWire"));
    }

    /** A launchable main (JLS 12.1.4, Java 25): named main, void, no parameters or one String[]. */
    private static boolean isMain(final Method m)
    {
        return m.getName().equals("main") && m.getReturnType() == void.class && (m.getParameterCount() == 0
            || m.getParameterCount() == 1 && m.getParameterTypes()[0] == String[].class);
    }

    /** The classes in a jar or a classes directory, as binary names. */
    private static List<String> classNames(final Path where) throws IOException, URISyntaxException
    {
        final List<String> names = new ArrayList<>();
        if (Files.isDirectory(where))
        {
            try (Stream<Path> files = Files.walk(where))
            {
                files.filter(f -> f.toString().endsWith(".class")).forEach(f -> names.add(binaryName(
                    where.relativize(f).toString())));
            }
        }
        else
        {
            try (JarFile jar = new JarFile(where.toFile()))
            {
                jar.stream().filter(e -> e.getName().endsWith(".class"))
                    .forEach(e -> names.add(binaryName(e.getName())));
            }
        }
        names.removeIf(n -> n.endsWith("package-info") || n.equals("module-info"));
        return names;
    }

    private static String binaryName(final String path)
    {
        return path.substring(0, path.length() - ".class".length()).replace('/', '.').replace('\\', '.');
    }
}
