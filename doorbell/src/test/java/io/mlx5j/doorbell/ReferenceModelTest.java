// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.doorbell;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Randomized scripts of posts, receive counters, consumer indexes and CQ arms are run twice: by the Java classes and
 * by {@code src/test/c/doorbell_ref.c}, a C model compiled here with gcc against the installed
 * {@code <infiniband/mlx5dv.h>} (MLX5_SND_DBR, MLX5_RCV_DBR, MLX5_CQ_DOORBELL, MLX5_CQ_DB_REQ_NOT[_SOL]) and
 * {@code htobe32}/{@code htobe64}. Every doorbell record and every byte of the 4 KiB UAR page must match.
 */
class ReferenceModelTest
{
    private static final HexFormat HEX = HexFormat.of();
    private static Path model;

    @BeforeAll
    static void compileModel() throws IOException, InterruptedException
    {
        final Path src = Path.of("src/test/c/doorbell_ref.c");
        assertTrue(Files.isRegularFile(src), "C model missing at " + src.toAbsolutePath());
        model = Path.of("target/doorbell_ref");
        Files.createDirectories(model.getParent());
        final Process gcc = new ProcessBuilder("gcc", "-std=c11", "-D_DEFAULT_SOURCE", "-O1", "-Wall", "-Wextra",
            "-Werror", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o", model.toString(),
            src.toString()).redirectErrorStream(true).start();
        final String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(gcc.waitFor(120, TimeUnit.SECONDS), "gcc timed out");
        assertEquals(0, gcc.exitValue(), "gcc failed:\n" + out);
    }

    /** One scenario's Java state plus the script that drives the C model to the same state. */
    private static final class Scenario
    {
        final MemorySegment sq;
        final MemorySegment qpDb = MemorySegment.ofArray(new long[1]);
        final MemorySegment cqDb = MemorySegment.ofArray(new long[1]);
        final MemorySegment uar = MemorySegment.ofArray(new long[4096 / 8]);
        final SendDoorbell send;
        final DoorbellRecord rec;
        final CqDoorbell cq;

        Scenario(final int sqBytes, final int bfSize, final DoorbellMode mode, final int cqn)
        {
            sq = MemorySegment.ofArray(new long[sqBytes / 8]);
            rec = new DoorbellRecord(qpDb);
            final BlueFlameRegister bf = new BlueFlameRegister(
                uar.asSlice(UarDescriptor.MLX5_BF_OFFSET, 4096 - UarDescriptor.MLX5_BF_OFFSET), bfSize, false);
            send = new SendDoorbell(sq, rec, bf, mode);
            cq = new CqDoorbell(cqDb, uar, cqn);
        }

        String dump()
        {
            return "qpdb " + HEX.formatHex(qpDb.toArray(ValueLayout.JAVA_BYTE)) + "\n"
                + "cqdb " + HEX.formatHex(cqDb.toArray(ValueLayout.JAVA_BYTE)) + "\n"
                + "uar " + HEX.formatHex(uar.toArray(ValueLayout.JAVA_BYTE)) + "\n";
        }
    }

    @Test
    void javaAndCModelProduceIdenticalRecordsAndUarBytes() throws IOException, InterruptedException
    {
        final SplittableRandom rnd = new SplittableRandom(0x6d6c7835L);
        final StringBuilder script = new StringBuilder();
        final List<String> javaDumps = new ArrayList<>();
        final int[] bfSizes = {0, 64, 128, 256, 512};
        final DoorbellMode[] modes = DoorbellMode.values();
        int blueFlamePosts = 0;
        int wrappedBlueFlamePosts = 0;
        for (int s = 0; s < 300; s++)
        {
            final int sqBytes = 64 << rnd.nextInt(7);                  // 64 .. 4096
            final int bfSize = bfSizes[rnd.nextInt(bfSizes.length)];
            DoorbellMode mode = modes[rnd.nextInt(modes.length)];
            if (bfSize == 0 && mode == DoorbellMode.BLUEFLAME)
            {
                mode = DoorbellMode.AUTO;
            }
            final int cmode = switch (mode)
            {
                case BLUEFLAME -> 0;
                case DOORBELL -> 1;
                case AUTO -> 2;
            };
            final int cqn = rnd.nextInt();
            final Scenario sc = new Scenario(sqBytes, bfSize, mode, cqn);
            script.append("init ").append(sqBytes).append(' ').append(bfSize).append(' ').append(cmode).append('\n');
            int armSn = 0;
            for (int op = 0; op < 24; op++)
            {
                final int kind = rnd.nextInt(10);
                if (kind < 2 || op == 0)
                {
                    final byte[] bytes = new byte[sqBytes];
                    rnd.nextBytes(bytes);
                    MemorySegment.copy(MemorySegment.ofArray(bytes), 0, sc.sq, 0, sqBytes);
                    script.append("sq 0 ").append(HEX.formatHex(bytes)).append('\n');
                }
                else if (kind < 7)
                {
                    final int nreq = rnd.nextInt(8) == 0 ? rnd.nextInt(4) : 1;
                    final long ctrl = (long) rnd.nextInt(sqBytes / 64) * 64;
                    final int ds = 1 + (rnd.nextBoolean() ? rnd.nextInt(16) : rnd.nextInt(io.mlx5j.wqe.CtrlSeg.MAX_DS));
                    final int curPost = rnd.nextInt();
                    if (sc.send.usesBlueFlame(nreq, ds))
                    {
                        blueFlamePosts++;
                        if (ctrl + ((ds + 3) / 4) * 64L > sqBytes)
                        {
                            wrappedBlueFlamePosts++;
                        }
                    }
                    sc.send.ring(nreq, ctrl, ds, curPost);
                    script.append("post ").append(nreq).append(' ').append(ctrl).append(' ').append(ds).append(' ')
                        .append(Integer.toUnsignedString(curPost)).append('\n');
                }
                else if (kind == 7)
                {
                    final int head = rnd.nextInt();
                    sc.rec.recvCounter(head);
                    script.append("recv ").append(Integer.toUnsignedString(head)).append('\n');
                }
                else if (kind == 8)
                {
                    final int ci = rnd.nextInt();
                    sc.cq.consumerIndex(ci);
                    script.append("setci ").append(Integer.toUnsignedString(ci)).append('\n');
                }
                else
                {
                    final int events = rnd.nextInt(3);
                    for (int e = 0; e < events; e++)
                    {
                        sc.cq.eventReceived();
                    }
                    armSn += events;
                    final int ci = rnd.nextInt();
                    final boolean sol = rnd.nextBoolean();
                    sc.cq.arm(ci, sol);
                    script.append("arm ").append(armSn).append(' ').append(Integer.toUnsignedString(ci)).append(' ')
                        .append(sol ? 1 : 0).append(' ').append(Integer.toUnsignedString(cqn)).append('\n');
                }
            }
            script.append("dump\n");
            javaDumps.add(sc.dump());
        }
        assertTrue(blueFlamePosts > 500, "too few BlueFlame posts exercised: " + blueFlamePosts);
        assertTrue(wrappedBlueFlamePosts > 20, "too few wrapping BlueFlame posts: " + wrappedBlueFlamePosts);

        final Process c = new ProcessBuilder(model.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final Thread feeder = Thread.ofPlatform().start(() ->
        {
            try (var in = c.getOutputStream())
            {
                in.write(script.toString().getBytes(StandardCharsets.US_ASCII));
            }
            catch (final IOException ex)
            {
                throw new java.io.UncheckedIOException(ex);
            }
        });
        final String out = new String(c.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        feeder.join();
        assertTrue(c.waitFor(60, TimeUnit.SECONDS), "C model timed out");
        assertEquals(0, c.exitValue(), "C model failed");
        final String[] lines = out.split("\n");
        assertEquals(javaDumps.size() * 3, lines.length, "C model dump count");
        for (int s = 0; s < javaDumps.size(); s++)
        {
            final String expected = lines[3 * s] + "\n" + lines[3 * s + 1] + "\n" + lines[3 * s + 2] + "\n";
            assertEquals(expected, javaDumps.get(s), "scenario " + s);
        }
    }
}
