package io.mlx5j.tool.perf;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code mlx5j perf} against the unmodified perftest 4.5 programs over InfiniBand, every test in both roles, with
 * sizes that do and do not go inline, one that makes a perftest bw client walk the target (a message of at most
 * half a page), and perftest options mlx5j accepts and ignores.
 */
class PerftestInteropTest
{
    @ParameterizedTest(name = "{0} {1}, mlx5j server {2}")
    @CsvSource({
        "write_lat, -s 2 -n 200, true",
        "write_lat, -s 2 -n 200, false",
        "write_lat, -s 1024 -n 100 -I 0, true",
        "write_lat, -s 1024 -n 100 -I 0, false",
        "send_lat,  -s 64 -n 300, true",
        "send_lat,  -s 64 -n 300, false",
        "send_lat,  -s 4096 -n 100, true",
        "send_lat,  -s 4096 -n 100 -F, false",
        "read_lat,  -s 32 -n 300, true",
        "read_lat,  -s 32 -n 300, false",
        "atomic_lat, -n 300, true",
        "atomic_lat, -n 300, false",
        "write_bw,  -s 65536 -n 300, true",
        "write_bw,  -s 65536 -n 300 --report_gbits, false",
        "write_bw,  -s 64 -n 500 -N, true",
        "write_bw,  -s 64 -n 500, false",
        "send_bw,   -s 4096 -n 300, true",
        "send_bw,   -s 4096 -n 300 --use_old_post_send, false",
        "read_bw,   -s 8 -n 500, true",
        "read_bw,   -s 16384 -n 300, false",
        "atomic_bw, -n 500, true",
        "atomic_bw, -n 500, false",
    })
    void againstPerftest(final String test, final String args, final boolean javaServer) throws Exception
    {
        PerftestInterop.run(test, javaServer, List.of(args.trim().split(" +")));
    }

    /**
     * perftest's -a (all sizes 2 .. 2^23, with each test's exchanges between sizes), -D (duration: warm-up, sample,
     * cool-down) and the BW peak column, against the perftest binaries in both roles (5 iterations, perftest's least:
     * 23 sizes).
     */
    @ParameterizedTest(name = "{0} {1}, mlx5j server {2}")
    @CsvSource({
        "write_lat, -a -n 5, true",
        "send_lat,  -a -n 5, false",
        "send_bw,   -a -n 5, true",
        "read_bw,   -a -n 5, false",
        "write_lat, -D 3, false",
        "send_bw,   -D 3, true",
        "write_bw,  -D 3, false",
        "read_lat,  -D 3, true",
    })
    void sweepsAndDurations(final String test, final String args, final boolean javaServer) throws Exception
    {
        PerftestInterop.run(test, javaServer, List.of(args.trim().split(" +")));
    }

    /**
     * write_lat has no closing exchange, so mlx5j's QP must outlive the perftest peer's run: mlx5j's duration run
     * here ends 2 s before perftest's while perftest's next WRITE is still on the wire (perftest's emulator holds
     * each request it sends for 50 ms), and perftest polls that WRITE's completion, which only mlx5j's QP can give.
     * A side that destroys its QP at the end of its own run fails perftest with RETRY_EXC_ERR (CI met it once
     * without the delay, the two sides' equal durations ending a few milliseconds apart).
     */
    @ParameterizedTest(name = "write_lat -D, mlx5j ends first, mlx5j server {0}")
    @CsvSource({"false", "true"})
    void writeLatPeerOutlivesOurDuration(final boolean javaServer) throws Exception
    {
        PerftestInterop.run("write_lat", javaServer, List.of("env", "MLX5EMU_FAULTS=delay=1:50ms,dir=req"),
            List.of("-D", "3"), List.of("-D", "1"));
    }

    /**
     * The mirror case: perftest leaves first while mlx5j's last WRITE waits for its ACK. perftest's emulator drops
     * every response it sends, so mlx5j's first WRITE (its answer to perftest's) is never acknowledged, although
     * perftest sees its data and writes again; perftest's run (-D 2) ends a second before mlx5j's (-D 3), and with
     * -u 17 (537 ms per try, 8 tries) the WRITE completes with RETRY_EXC_ERR only after mlx5j's own run ended.
     * mlx5j excuses it because the peer has ended, and says so (it failed the run before).
     */
    @Test
    void writeLatPeerEndsFirst() throws Exception
    {
        final String out = PerftestInterop.run("write_lat", false, List.of("env", "MLX5EMU_FAULTS=drop=1,dir=resp"),
            List.of("-D", "2"), List.of("-D", "3", "-u", "17"));
        assertTrue(out.contains("mlx5j: the peer ended its run before acknowledging our last RDMA WRITE"), out);
        assertTrue(out.contains("transport retry counter exceeded") || out.contains("RETRY_EXC"), out);
    }

    /** The same over RoCE (the surefire execution with an Ethernet link): both sides use GID index 1 (RoCE v2). */
    @Tag("roce")
    @ParameterizedTest(name = "RoCE {0} {1}, mlx5j server {2}")
    @CsvSource({
        "write_lat, -x 1 -s 2 -n 100, true",
        "write_lat, -x 1 -s 2 -n 100, false",
        "send_lat,  -x 1 -s 128 -n 200, true",
        "send_lat,  -x 1 -s 128 -n 200, false",
        "read_lat,  -x 1 -s 64 -n 200, true",
        "read_lat,  -x 1 -s 64 -n 200, false",
        "atomic_lat, -x 1 -n 200, true",
        "atomic_lat, -x 1 -n 200, false",
        "write_bw,  -x 1 -s 8192 -n 300, true",
        "write_bw,  -x 1 -s 8192 -n 300, false",
        "send_bw,   -x 1 -s 1024 -n 300, true",
        "send_bw,   -x 1 -s 1024 -n 300, false",
        "read_bw,   -x 1 -s 2048 -n 300, true",
        "read_bw,   -x 1 -s 2048 -n 300, false",
        "atomic_bw, -x 1 -n 300, true",
        "atomic_bw, -x 1 -n 300, false",
    })
    void againstPerftestOverRoce(final String test, final String args, final boolean javaServer) throws Exception
    {
        PerftestInterop.run(test, javaServer, List.of(args.trim().split(" +")));
    }
}
