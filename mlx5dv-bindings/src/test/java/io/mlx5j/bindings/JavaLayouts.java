// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Finds every {@code public static final GroupLayout LAYOUT} in io.mlx5j.bindings (by listing the compiled classes,
 * so a new struct class cannot escape the layout test) and flattens it into the lines the C probe prints:
 * <pre>
 *   S &lt;struct&gt; &lt;sizeof&gt; &lt;alignof&gt;
 *   F &lt;struct&gt; &lt;member.path&gt; &lt;offsetof&gt; &lt;sizeof&gt; &lt;alignof&gt;
 * </pre>
 * Members of groups named {@code $anon...} (anonymous C unions/structs) appear without that name in the path, as
 * in C. Padding has no C name and is skipped; array elements are not descended into.
 */
final class JavaLayouts
{
    private JavaLayouts()
    {
    }

    static List<GroupLayout> all() throws IOException, URISyntaxException, ReflectiveOperationException
    {
        final Path dir = Path.of(IbvPd.class.getResource("IbvPd.class").toURI()).getParent();
        final List<GroupLayout> layouts = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir))
        {
            for (final Path file : files.sorted().toList())
            {
                final String name = file.getFileName().toString();
                if (!name.endsWith(".class") || name.contains("$"))
                {
                    continue;
                }
                final Class<?> type = Class.forName("io.mlx5j.bindings." + name.substring(0, name.length() - 6));
                for (final Field field : type.getDeclaredFields())
                {
                    if (field.getName().equals("LAYOUT") && Modifier.isStatic(field.getModifiers())
                        && GroupLayout.class.isAssignableFrom(field.getType()))
                    {
                        layouts.add((GroupLayout) field.get(null));
                    }
                }
            }
        }
        return layouts;
    }

    static Map<String, String> lines(final List<GroupLayout> layouts)
    {
        final Map<String, String> out = new TreeMap<>();
        for (final GroupLayout layout : layouts)
        {
            final String struct = layout.name()
                .orElseThrow(() -> new IllegalStateException("unnamed LAYOUT " + layout));
            out.put("S " + struct, layout.byteSize() + " " + layout.byteAlignment());
            members(struct, "", layout, 0, out);
        }
        return out;
    }

    private static void members(final String struct, final String prefix, final GroupLayout group, final long base,
        final Map<String, String> out)
    {
        for (final MemoryLayout member : group.memberLayouts())
        {
            if (member instanceof PaddingLayout)
            {
                continue;
            }
            final String name = member.name().orElseThrow(
                () -> new IllegalStateException("unnamed member in " + struct + ": " + member));
            final long offset = base + group.byteOffset(MemoryLayout.PathElement.groupElement(name));
            if (name.startsWith(Layouts.ANON))
            {
                members(struct, prefix, (GroupLayout) member, offset, out);
                continue;
            }
            final String path = prefix + name;
            out.put("F " + struct + " " + path, offset + " " + member.byteSize() + " " + member.byteAlignment());
            if (member instanceof GroupLayout inner)
            {
                members(struct, path + ".", inner, offset, out);
            }
        }
    }

    public static void main(final String[] args) throws Exception
    {
        lines(all()).forEach((k, v) -> System.out.println(k + " " + v));
    }
}
