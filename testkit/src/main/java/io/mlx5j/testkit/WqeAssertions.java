// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Compares a WQE with an {@link ExpectedWqe} field by field and fails on the first field that differs, naming it and
 * both values as the dumps print them:
 * <pre>
 * ctrl.fm_ce_se: expected CQ_UPDATE|SOLICITED, was CQ_UPDATE
 * </pre>
 * followed by both WQEs decoded. Bytes the reference left unwritten are skipped (the rule is on
 * {@link ExpectedWqe}); a field partly unwritten is compared on its written bytes. Fields are visited in the order of
 * their bytes, so a wrong ds or opcode is reported before the segments it displaces. Throws {@link AssertionError},
 * which JUnit, TestNG and plain {@code assert} users all report as a failure.
 *
 * <p>Thread model: static and stateless; any thread (a failure is thrown on the calling thread).
 */
public final class WqeAssertions
{
    private WqeAssertions()
    {
    }

    /**
     * {@code actual}: the WQE from its ctrl segment on (at least ds * 16 bytes; more are ignored).
     *
     * @param expected the expected WQE
     * @param actual the WQE to check
     */
    public static void assertWqe(final ExpectedWqe expected, final byte[] actual)
    {
        final String difference = firstDifference(expected, actual);
        if (difference != null)
        {
            throw new AssertionError(difference + "\nexpected WQE:\n" + expected.dump().text() + "actual WQE:\n"
                + WqeDump.send(actual, expected.kind()).text());
        }
    }

    /**
     * The WQE at {@code actual} (its ctrl segment; ds is read there).
     *
     * @param expected the expected WQE
     * @param actual the WQE to check
     */
    public static void assertWqe(final ExpectedWqe expected, final MemorySegment actual)
    {
        assertWqe(expected, WqeDump.send(actual, expected.kind()).bytes());
    }

    /**
     * The first line of the failure {@link #assertWqe} would throw ({@code path: expected X, was Y}), or null when
     * the WQEs agree on every compared byte.
     *
     * @param expected the expected WQE
     * @param actual the WQE to check
     * @return the first difference, or null
     */
    public static String firstDifference(final ExpectedWqe expected, final byte[] actual)
    {
        final byte[] e = expected.bytes();
        final boolean[] skip = expected.unwritten();
        final List<WqeField> ef = WqeDump.send(e, expected.kind()).fields();
        final List<WqeField> af = WqeDump.send(actual, expected.kind()).fields();
        final int n = Math.min(ef.size(), af.size());
        for (int i = 0; i < n; i++)
        {
            final WqeField x = ef.get(i);
            final WqeField y = af.get(i);
            if (!x.path().equals(y.path()) || x.offset() != y.offset() || x.length() != y.length())
            {
                return "WQE layout differs at byte " + Math.min(x.offset(), y.offset()) + ": expected " + x + ", was "
                    + y;
            }
            for (int j = x.offset(); j < x.offset() + x.length(); j++)
            {
                if (j < skip.length && skip[j])
                {
                    continue;
                }
                if (j >= e.length || j >= actual.length || e[j] != actual[j])
                {
                    return x.path() + ": expected " + x.value() + ", was " + y.value() + (x.value().equals(y.value())
                        ? " (byte " + j + ": 0x" + Bytes.hex(e, j, 1) + " vs 0x" + Bytes.hex(actual, j, 1) + ")" : "");
                }
            }
        }
        if (ef.size() > n)
        {
            return ef.get(n).path() + ": expected " + ef.get(n).value() + ", was nothing (the WQE ends before it)";
        }
        if (af.size() > n)
        {
            return af.get(n).path() + ": expected nothing (the WQE ends before it), was " + af.get(n).value();
        }
        return null;
    }
}
