// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The struct and union declarations gcc recorded in the DWARF of the compiled layout probe, read from
 * {@code readelf --debug-dump=info}: an enumeration of every C member that does not depend on which members the
 * probe names, so the layout test can also fail when Java leaves a C member out (e.g. hides it in padding).
 */
final class DwarfStructs
{
    private static final Pattern DIE = Pattern.compile(
        "^\\s*<(\\d+)><([0-9a-f]+)>: Abbrev Number: (\\d+)(?: \\((\\w+)\\))?");
    private static final Pattern ATTR = Pattern.compile("^\\s*<[0-9a-f]+>\\s+(DW_AT_\\w+)\\s*: (.*)$");

    /** One debugging information entry: tag, the attributes mlx5j needs, children in declaration order. */
    static final class Die
    {
        final String tag;
        String name;
        long typeRef = -1;
        long memberLocation;
        long byteSize = -1;
        boolean isBoolean;
        boolean declaration;
        final List<Die> children = new ArrayList<>();

        Die(final String tag)
        {
            this.tag = tag;
        }
    }

    private final Map<Long, Die> byOffset = new HashMap<>();
    private final Map<String, Die> structs = new HashMap<>();
    private final Map<String, Die> functions = new HashMap<>();

    DwarfStructs(final String readelfOutput)
    {
        final List<Die> stack = new ArrayList<>();
        Die current = null;
        for (final String line : readelfOutput.split("\n"))
        {
            final Matcher die = DIE.matcher(line);
            if (die.find())
            {
                final int depth = Integer.parseInt(die.group(1));
                if (die.group(3).equals("0"))
                {
                    current = null; // end of a children list
                    continue;
                }
                current = new Die(die.group(4));
                byOffset.put(Long.parseLong(die.group(2), 16), current);
                while (stack.size() > depth)
                {
                    stack.remove(stack.size() - 1);
                }
                if (depth > 0 && stack.size() == depth)
                {
                    stack.get(depth - 1).children.add(current);
                }
                stack.add(current);
                continue;
            }
            final Matcher attr = ATTR.matcher(line);
            if (current == null || !attr.find())
            {
                continue;
            }
            final String value = attr.group(2).trim();
            switch (attr.group(1))
            {
                case "DW_AT_name" -> current.name =
                    value.startsWith("(") ? value.substring(value.lastIndexOf("): ") + 3) : value;
                case "DW_AT_type" -> current.typeRef = Long.parseLong(value.replaceAll("[<>]|0x", ""), 16);
                case "DW_AT_data_member_location" -> current.memberLocation = Long.parseLong(value.split("\\s")[0]);
                case "DW_AT_declaration" -> current.declaration = true;
                case "DW_AT_byte_size" -> current.byteSize = Long.parseLong(value.split("\\s")[0]);
                case "DW_AT_encoding" -> current.isBoolean = value.contains("(boolean)");
                default -> { }
            }
        }
        for (final Die d : byOffset.values())
        {
            if ((isGroup(d)) && d.name != null && !d.declaration)
            {
                structs.putIfAbsent(d.name, d);
            }
            if (d.tag.equals("DW_TAG_subprogram") && d.name != null)
            {
                functions.putIfAbsent(d.name, d);
            }
        }
    }

    /** The complete definition of {@code struct name} / {@code union name}, or null. */
    Die struct(final String name)
    {
        return structs.get(name);
    }

    /** The declaration of function {@code name} (DW_TAG_subprogram), or null. */
    Die function(final String name)
    {
        return functions.get(name);
    }

    /**
     * A function's C signature as ABI classes, return type first: {@code void}, {@code ptr}, {@code bool}, or
     * {@code intN} for integers and enums of N bits. {@code fn} is a DW_TAG_subprogram or DW_TAG_subroutine_type.
     */
    java.util.List<String> signature(final Die fn)
    {
        final java.util.List<String> sig = new ArrayList<>();
        sig.add(fn.typeRef < 0 ? "void" : abiClass(fn));
        for (final Die child : fn.children)
        {
            if (child.tag.equals("DW_TAG_formal_parameter"))
            {
                sig.add(abiClass(child));
            }
            else if (child.tag.equals("DW_TAG_unspecified_parameters"))
            {
                sig.add("...");
            }
        }
        return sig;
    }

    /** For a struct member that is a function pointer: the pointed-to DW_TAG_subroutine_type, else null. */
    Die pointedFunction(final Die member)
    {
        final Die pointer = resolve(member);
        if (pointer == null || !pointer.tag.equals("DW_TAG_pointer_type"))
        {
            return null;
        }
        final Die target = byOffset.get(pointer.typeRef);
        return target != null && target.tag.equals("DW_TAG_subroutine_type") ? target : null;
    }

    private String abiClass(final Die typed)
    {
        final Die type = resolve(typed);
        if (type == null)
        {
            return "void";
        }
        return switch (type.tag)
        {
            case "DW_TAG_pointer_type" -> "ptr";
            case "DW_TAG_base_type" -> type.isBoolean ? "bool" : "int" + type.byteSize * 8;
            case "DW_TAG_enumeration_type" -> "int" + type.byteSize * 8;
            default -> type.tag;
        };
    }

    /** The member's type with typedefs and qualifiers stripped. */
    Die resolve(final Die member)
    {
        Die type = byOffset.get(member.typeRef);
        while (type != null && (type.tag.equals("DW_TAG_typedef") || type.tag.equals("DW_TAG_const_type")
            || type.tag.equals("DW_TAG_volatile_type")))
        {
            type = byOffset.get(type.typeRef);
        }
        return type;
    }

    static boolean isGroup(final Die d)
    {
        return d != null && (d.tag.equals("DW_TAG_structure_type") || d.tag.equals("DW_TAG_union_type"));
    }

    static List<Die> members(final Die group)
    {
        final List<Die> members = new ArrayList<>();
        for (final Die child : group.children)
        {
            if (child.tag.equals("DW_TAG_member"))
            {
                members.add(child);
            }
        }
        return members;
    }
}
