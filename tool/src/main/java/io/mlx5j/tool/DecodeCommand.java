// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import io.mlx5j.testkit.CqeDump;
import io.mlx5j.testkit.QpKind;
import io.mlx5j.testkit.WqeDump;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code mlx5j decode wqe|rwqe|srq-wqe|cqe [--qp rc|uc|ud|raw] HEX...}: the WQE or CQE in the hex bytes (the words of
 * the command line, or standard input when there are none) printed with PRM names by the testkit's decoders
 * ({@link WqeDump}, {@link CqeDump}), which are written independently of mlx5j's encoders. No device needed.
 */
final class DecodeCommand
{
    static final String USAGE = String.join("\n",
        "usage: mlx5j decode wqe|rwqe|srq-wqe|cqe [--qp rc|uc|ud|raw] [HEX...]",
        "  wqe      a send WQE from its ctrl segment on (--qp: the QP type it was built for, default rc)",
        "  rwqe     a receive WQE (data segments up to MLX5_INVALID_LKEY)",
        "  srq-wqe  a receive WQE of an SRQ (next segment, then data segments)",
        "  cqe      a 64-byte CQE (struct mlx5_cqe64)",
        "HEX: byte pairs, with or without spaces, ':' or ','; none given: read from standard input.",
        "example: mlx5j decode wqe 0000050a 00012302 00000008 00000000 00000040 00001234 00007f0000001000");

    private DecodeCommand()
    {
    }

    static int run(final String[] args, final InputStream in, final PrintStream out)
    {
        if (args.length == 0)
        {
            throw new UsageException("decode needs what to decode: wqe, rwqe, srq-wqe or cqe");
        }
        QpKind kind = QpKind.RC;
        final StringBuilder hex = new StringBuilder();
        for (int i = 1; i < args.length; i++)
        {
            if (args[i].equals("--qp"))
            {
                if (i + 1 == args.length)
                {
                    throw new UsageException("--qp needs a value (rc, uc, ud or raw)");
                }
                try
                {
                    kind = QpKind.parse(args[++i]);
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new UsageException(ex.getMessage());
                }
            }
            else if (args[i].startsWith("--"))
            {
                throw new UsageException("unknown option '" + args[i] + "'");
            }
            else
            {
                hex.append(args[i]).append(' ');
            }
        }
        final String text = hex.isEmpty() ? read(in) : hex.toString();
        if (text.isBlank())
        {
            throw new UsageException("no hex bytes given");
        }
        out.print(switch (args[0])
        {
            case "wqe" -> WqeDump.send(text, kind).text();
            case "rwqe" -> WqeDump.recv(text).text();
            case "srq-wqe" -> WqeDump.srqRecv(text).text();
            case "cqe" -> CqeDump.of(text).text();
            default -> throw new UsageException("decode wqe, rwqe, srq-wqe or cqe, not '" + args[0] + "'");
        });
        return 0;
    }

    private static String read(final InputStream in)
    {
        try
        {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
