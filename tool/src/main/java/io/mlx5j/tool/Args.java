// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import java.util.List;

/**
 * A small getopt: {@code -s 64}, {@code --size 64} and {@code --size=64}; flags take no value. Each option is looked up
 * by every spelling it has. Control path only.
 */
public final class Args
{
    private final List<String> args;
    private int next;
    private String pendingValue;

    public Args(final String[] args)
    {
        this.args = List.of(args);
    }

    public boolean hasNext()
    {
        return next < args.size();
    }

    /** The next token; for {@code --name=value} the name part (the value is kept for {@link #value}). */
    public String nextToken()
    {
        final String token = args.get(next++);
        pendingValue = null;
        if (token.startsWith("--"))
        {
            final int eq = token.indexOf('=');
            if (eq > 0)
            {
                pendingValue = token.substring(eq + 1);
                return token.substring(0, eq);
            }
        }
        return token;
    }

    public String value(final String option)
    {
        if (pendingValue != null)
        {
            final String v = pendingValue;
            pendingValue = null;
            return v;
        }
        if (next >= args.size())
        {
            throw new UsageException("option " + option + " needs a value");
        }
        return args.get(next++);
    }

    /** Fails when a flag was given as {@code --flag=value}. */
    public void noValue(final String option)
    {
        if (pendingValue != null)
        {
            throw new UsageException("option " + option + " takes no value");
        }
    }

    public long longValue(final String option, final long min, final long max)
    {
        final String v = value(option);
        final long n;
        try
        {
            n = v.startsWith("0x") || v.startsWith("0X") ? Long.parseLong(v.substring(2), 16) : Long.parseLong(v);
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException("option " + option + " needs a number, got '" + v + "'");
        }
        if (n < min || n > max)
        {
            throw new UsageException("option " + option + " must be in " + min + ".." + max + ", got " + n);
        }
        return n;
    }

    public int intValue(final String option, final int min, final int max)
    {
        return (int) longValue(option, min, max);
    }
}
