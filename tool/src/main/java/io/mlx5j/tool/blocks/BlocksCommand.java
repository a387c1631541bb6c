// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.blocks;

import java.io.PrintStream;

/** The {@code mlx5j blocks} dispatcher: {@code serve} or {@code bench}. Control path; runs on the calling thread. */
public final class BlocksCommand
{
    /** The command's help text. */
    public static final String USAGE = BlocksOptions.USAGE;

    private BlocksCommand()
    {
    }

    /**
     * Runs {@code blocks serve ...} or {@code blocks bench ...}.
     *
     * @param args the arguments after {@code blocks}
     * @param out  report
     * @param err  progress lines and verification failures
     * @return exit status: 0, or 1 if a block failed verification
     * @throws io.mlx5j.tool.UsageException on a bad command line
     * @throws IllegalStateException        if the connection set-up or an I/O fails
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final BlocksOptions o = BlocksOptions.parse(args);
        if (o.serve())
        {
            try (BlocksServer s = BlocksServer.open(o))
            {
                s.serve(out);
            }
            return 0;
        }
        return new BlocksBench(o, out, err).run();
    }
}
