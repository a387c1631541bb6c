// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.blocks;

import io.mlx5j.testkit.EmulatedDevice;
import io.mlx5j.tool.Capture;
import io.mlx5j.tool.Mlx5jTool;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code mlx5j blocks serve} (in a thread of this JVM) and {@code mlx5j blocks bench} over the emulated ConnectX and
 * rdma_cm on 127.0.0.1: 3 connections x queue depth 4 on a 1 MiB region (256 blocks of 4 KiB). The region is read
 * here, independently of the bench, to count the blocks it holds.
 */
@Timeout(180)
class BlocksToolTest
{
    private static final int BLOCK = 4096;
    private static final int BLOCKS = 256;

    private BlocksServer server;
    private Thread serving;
    private final Capture serverOut = new Capture();
    private int port;

    @BeforeEach
    void serve() throws Exception
    {
        EmulatedDevice.requireLoaded();
        port = EmulatedDevice.freeTcpPort();
        server = BlocksServer.open(BlocksOptions.parse(new String[] {"serve", "-a", "127.0.0.1", "-p", "" + port,
            "-s", "1m"}));
        serving = new Thread(() -> server.serve(serverOut.stream), "blocks-serve");
        serving.start();
    }

    @AfterEach
    void stop() throws Exception
    {
        server.stop();
        serving.join(Duration.ofSeconds(30));
        server.close();
    }

    private Result bench(final String... extra)
    {
        final String[] base = {"blocks", "bench", "127.0.0.1", "-p", "" + port, "-c", "3", "-q", "4", "--no-progress"};
        final String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        final Capture out = new Capture();
        final Capture err = new Capture();
        final int status = Mlx5jTool.run(args, out.stream, err.stream);
        return new Result(status, out.text(), err.text());
    }

    private record Result(int status, String out, String err)
    {
        long number(final String regex)
        {
            final Matcher m = Pattern.compile(regex).matcher(out);
            assertTrue(m.find(), "no '" + regex + "' in:\n" + out + err);
            return Long.parseLong(m.group(1));
        }
    }

    /** Blocks of the server's region holding a well-formed block of their own number (any run's). */
    private int wellFormedBlocks()
    {
        final MemorySegment region = server.region();
        final BlockFormat f = new BlockFormat(BLOCK);
        int n = 0;
        for (int b = 0; b < BLOCKS; b++)
        {
            final MemorySegment block = region.asSlice((long) b * BLOCK, BLOCK);
            final int r = f.check(block, 0, block.asByteBuffer(), b, 0, 0);
            if (r == BlockFormat.OK)
            {
                n++;
            }
            else
            {
                assertEquals(BlockFormat.ZERO, r, "block " + b + " of the region: " + BlockFormat.describe(r));
            }
        }
        return n;
    }

    @Test
    void everyWrittenBlockIsReadBackAndVerified()
    {
        final Result r = bench("-r", "50", "-D", "1");
        assertEquals(0, r.status, r.out + r.err);
        assertEquals("", r.err);
        final long readBack = r.number("read-back: (\\d+) blocks read");
        final long written = r.number("read-back: \\d+ blocks read \\((\\d+) written by this run\\)");
        final long verified = r.number("\\), (\\d+) verified");
        assertTrue(written > 0, r.out);
        assertEquals(written, readBack, r.out);
        assertEquals(written, verified, r.out);
        assertEquals(0, r.number("corrupt blocks: (\\d+)"));
        assertTrue(r.number("(\\d+) READs") > 0 && r.number("READs \\(.*\\), (\\d+) WRITEs") > 0, r.out);
        assertTrue(r.out.contains("fairness: per-connection IOPS min "), r.out);
        // the region, read here: exactly the blocks the bench wrote are well-formed, the rest still zero
        assertEquals(written, wellFormedBlocks());
    }

    @Test
    void aByteFlippedOnTheServerIsDetected()
    {
        final Result first = bench("-r", "0", "-D", "0.5");
        assertEquals(0, first.status, first.out + first.err);
        final long written = first.number("\\((\\d+) written by this run\\)");
        assertTrue(written > 0, first.out);
        // the first block the run wrote: flip one payload byte in the server's memory
        int victim = -1;
        for (int b = 0; b < BLOCKS && victim < 0; b++)
        {
            if (server.region().get(ValueLayout.JAVA_LONG_UNALIGNED, (long) b * BLOCK + BlockFormat.CRC_OFFSET) != 0)
            {
                victim = b;
            }
        }
        assertTrue(victim >= 0, "no written block in the region");
        final long at = (long) victim * BLOCK + 1000;
        server.region().set(ValueLayout.JAVA_BYTE, at, (byte) ~server.byteAt(at));
        // reads only, then every block read back: the flipped block is read at least once
        final Result second = bench("-r", "100", "-D", "0.2", "--verify-all");
        assertEquals(1, second.status, second.out + second.err);
        assertTrue(second.err.contains("block " + victim + " (offset 0x" + Long.toHexString((long) victim * BLOCK)
            + ") failed verification: CRC32C mismatch"), second.err);
        assertTrue(second.number("corrupt blocks: (\\d+)") >= 1, second.out);
        assertEquals(0, second.number("(\\d+) WRITEs"), second.out);
        // the read-back read all 256 blocks; all but the victim verified (an earlier run's or zero)
        assertEquals(BLOCKS, second.number("read-back: (\\d+) blocks read"), second.out);
        assertEquals(BLOCKS - 1, second.number("\\), (\\d+) verified"), second.out);
    }
}
