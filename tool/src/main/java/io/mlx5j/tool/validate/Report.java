// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.validate;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What validate found: facts (name = value, in the order found) and checks with a verdict each. Printed as text while
 * it runs and written as one JSON object at the end, so two hosts' reports can be compared field by field.
 */
final class Report
{
    /** A check's outcome: PASS, WARN (works, but outside what was verified), FAIL (mlx5j must not be used so). */
    enum Verdict
    {
        PASS, WARN, FAIL
    }

    record Check(String name, Verdict verdict, String detail)
    {
    }

    private final Map<String, Object> facts = new LinkedHashMap<>();
    private final List<Check> checks = new ArrayList<>();
    private final PrintStream out;

    Report(final PrintStream out)
    {
        this.out = out;
    }

    void fact(final String name, final Object value)
    {
        facts.put(name, value);
        out.println("  " + name + ": " + value);
    }

    void check(final String name, final Verdict verdict, final String detail)
    {
        checks.add(new Check(name, verdict, detail));
        out.println(verdict + " " + name + (detail.isEmpty() ? "" : ": " + detail));
    }

    void section(final String title)
    {
        out.println(title);
    }

    /** No check failed. */
    boolean passed()
    {
        return checks.stream().noneMatch(c -> c.verdict() == Verdict.FAIL);
    }

    long count(final Verdict v)
    {
        return checks.stream().filter(c -> c.verdict() == v).count();
    }

    void writeJson(final Path file) throws IOException
    {
        final StringBuilder b = new StringBuilder(4096);
        b.append("{\n  \"verdict\": ").append(quote(passed() ? "PASS" : "FAIL")).append(",\n  \"facts\": {");
        String sep = "\n";
        for (final Map.Entry<String, Object> e : facts.entrySet())
        {
            b.append(sep).append("    ").append(quote(e.getKey())).append(": ").append(value(e.getValue()));
            sep = ",\n";
        }
        b.append("\n  },\n  \"checks\": [");
        sep = "\n";
        for (final Check c : checks)
        {
            b.append(sep).append("    {\"name\": ").append(quote(c.name())).append(", \"verdict\": ")
                .append(quote(c.verdict().name())).append(", \"detail\": ").append(quote(c.detail())).append('}');
            sep = ",\n";
        }
        b.append("\n  ]\n}\n");
        Files.writeString(file, b, StandardCharsets.UTF_8);
    }

    private static String value(final Object v)
    {
        if (v instanceof Number || v instanceof Boolean)
        {
            return v.toString();
        }
        return quote(String.valueOf(v));
    }

    static String quote(final String s)
    {
        final StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                default ->
                {
                    if (c < 0x20)
                    {
                        b.append(String.format("\\u%04x", (int) c));
                    }
                    else
                    {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
