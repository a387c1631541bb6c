// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one dispatcher: its command list, help, and what an unknown command gets. */
class DispatcherTest
{
    /** Every command the dispatcher runs, in the order --help lists them. */
    private static final List<String> COMMANDS = List.of("devices", "perf", "pingpong", "rping", "feed", "blocks",
        "validate", "selfcheck",
        "decode", "aot", "help");

    @Test
    void helpListsEveryCommandOnOneLine()
    {
        for (final String help : List.of("--help", "-h", "help"))
        {
            final Capture out = new Capture();
            final Capture err = new Capture();
            assertEquals(0, Mlx5jTool.run(new String[] {help}, out.stream, err.stream), err.text());
            assertEquals("", err.text());
            final List<String> commandLines = out.text().lines().filter(l -> l.startsWith("  ")).toList();
            assertEquals(COMMANDS.size(), commandLines.size(), out.text());
            for (int i = 0; i < COMMANDS.size(); i++)
            {
                assertTrue(commandLines.get(i).startsWith("  " + COMMANDS.get(i) + " ")
                    || commandLines.get(i).startsWith("  " + COMMANDS.get(i) + ","), commandLines.get(i));
            }
        }
    }

    /** {@code ./mlx5j} alone printed the list and exited 0 before the dispatcher moved to Java; it still does. */
    @Test
    void noArgumentsPrintsTheList()
    {
        final Capture out = new Capture();
        final Capture err = new Capture();
        assertEquals(0, Mlx5jTool.run(new String[0], out.stream, err.stream));
        assertEquals(Mlx5jTool.USAGE + "\n", out.text());
        assertEquals("", err.text());
    }

    @Test
    void unknownCommandExitsTwoNamingIt()
    {
        final Capture out = new Capture();
        final Capture err = new Capture();
        assertEquals(2, Mlx5jTool.run(new String[] {"frobnicate", "-x"}, out.stream, err.stream));
        assertEquals("", out.text());
        assertTrue(err.text().startsWith("mlx5j: unknown command 'frobnicate'\n" + Mlx5jTool.USAGE), err.text());
    }

    @Test
    void everyCommandHasItsOwnHelp()
    {
        for (final String command : COMMANDS.subList(0, COMMANDS.size() - 1))
        {
            final Capture out = new Capture();
            final Capture err = new Capture();
            assertEquals(0, Mlx5jTool.run(new String[] {command, "--help"}, out.stream, err.stream), err.text());
            assertTrue(out.text().startsWith("usage: mlx5j " + command), command + ": " + out.text());
        }
        final Capture out = new Capture();
        assertEquals(2, Mlx5jTool.run(new String[] {"selfcheck", "--verbose"}, out.stream, out.stream));
        assertTrue(out.text().startsWith("mlx5j: selfcheck takes no options ('--verbose')\nusage: mlx5j selfcheck"),
            out.text());
    }
}
