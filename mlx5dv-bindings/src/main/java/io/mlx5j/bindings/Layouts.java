// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;

/**
 * Offset lookup used by the struct descriptors: every {@code X_OFFSET} constant is computed from the layout, never
 * typed by hand, so the layout test that checks the layout also checks the constant.
 * <p>
 * Anonymous C unions/structs are modelled as group members whose name starts with {@link #ANON}; they do not appear
 * in C member paths ({@code offsetof(struct ibv_wc, imm_data)}), so {@link #offset} looks through them.
 *
 * <p>Thread model: static and immutable; any thread.
 */
public final class Layouts
{
    /** Name prefix of a group standing for an anonymous C union or struct. */
    public static final String ANON = "$anon";

    private Layouts()
    {
    }

    /**
     * Byte offset of a member given by its C path, e.g. {@code offset(IbvSendWr.LAYOUT, "wr", "rdma", "rkey")} or
     * {@code offset(IbvWc.LAYOUT, "imm_data")} for a member of an anonymous union.
     *
     * @param layout the struct or union layout
     * @param cPath the member names, outermost first
     * @return the byte offset
     */
    public static long offset(final GroupLayout layout, final String... cPath)
    {
        final PathElement[] path = resolve(layout, cPath, 0);
        if (path == null)
        {
            throw new IllegalArgumentException(
                "no member " + String.join(".", cPath) + " in " + layout.name().orElse("?"));
        }
        return layout.byteOffset(path);
    }

    /**
     * Layout of a member given by its C path.
     *
     * @param layout the struct or union layout
     * @param cPath the member names, outermost first
     * @return the member's layout
     */
    public static MemoryLayout select(final GroupLayout layout, final String... cPath)
    {
        final PathElement[] path = resolve(layout, cPath, 0);
        if (path == null)
        {
            throw new IllegalArgumentException(
                "no member " + String.join(".", cPath) + " in " + layout.name().orElse("?"));
        }
        return layout.select(path);
    }

    private static PathElement[] resolve(final GroupLayout group, final String[] cPath, final int i)
    {
        for (final MemoryLayout member : group.memberLayouts())
        {
            final String name = member.name().orElse(null);
            if (name == null)
            {
                continue;
            }
            if (name.startsWith(ANON) && member instanceof GroupLayout anon)
            {
                final PathElement[] rest = resolve(anon, cPath, i);
                if (rest != null)
                {
                    return prepend(PathElement.groupElement(name), rest);
                }
            }
            else if (name.equals(cPath[i]))
            {
                if (i == cPath.length - 1)
                {
                    return new PathElement[] {PathElement.groupElement(name)};
                }
                if (member instanceof GroupLayout inner)
                {
                    final PathElement[] rest = resolve(inner, cPath, i + 1);
                    return rest == null ? null : prepend(PathElement.groupElement(name), rest);
                }
                return null;
            }
        }
        return null;
    }

    private static PathElement[] prepend(final PathElement first, final PathElement[] rest)
    {
        final PathElement[] all = new PathElement[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }
}
