// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.tool.UsageException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerfOptionsTest
{
    @Test
    void perftestDefaults()
    {
        final PerfOptions lat = PerfOptions.parse("write_lat");
        assertEquals(PerfTest.WRITE_LAT, lat.test());
        assertEquals(2, lat.size());
        assertEquals(1000, lat.iterations());
        assertEquals(220, lat.inlineSize());
        assertTrue(lat.inline());
        assertEquals(PerfOptions.Role.SERVER, lat.role(), "no server host: this side is perftest's server");
        assertEquals(DoorbellMode.AUTO, lat.mode());
        assertEquals(18515, lat.ib().tcpPort());
        assertEquals(1, lat.ibPort());
        assertEquals(-1, lat.ib().gidIndex());
        assertNull(lat.device());
        assertEquals(Duration.ofSeconds(60), lat.timeout());

        final PerfOptions bw = PerfOptions.parse("write_bw");
        assertEquals(65536, bw.size());
        assertEquals(5000, bw.iterations());
        // perftest's DEF_ITERS: 5000 is write_bw's alone
        assertEquals(1000, PerfOptions.parse("send_bw").iterations());
        assertEquals(1000, PerfOptions.parse("read_bw").iterations());
        assertEquals(1000, PerfOptions.parse("atomic_bw").iterations());
        assertEquals(128, bw.txDepth());
        assertEquals(100, bw.cqMod());
        assertEquals(0, bw.inlineSize());
        assertFalse(bw.inline());

        assertEquals(236, PerfOptions.parse("send_lat").inlineSize());
        assertEquals(512, PerfOptions.parse("send_bw").rxDepth());
        final PerfOptions atomic = PerfOptions.parse("atomic_lat");
        assertEquals(8, atomic.size());
        assertFalse(atomic.inline());
        assertEquals(0, PerfOptions.parse("read_lat", "-I", "64").inlineSize(), "READ has no inline payload");
    }

    @Test
    void everySpellingOfAnOption()
    {
        final PerfOptions o = PerfOptions.parse("send_bw", "-s", "4096", "--iters", "77", "--device=mlx5_1", "-i",
            "2", "-x", "3", "-I", "0x40", "--doorbell", "blueflame", "-t", "16", "--cq-mod=32", "-r", "64", "-m",
            "1024", "--client", "peer.example", "-p", "20000", "--timeout", "5", "--no-progress", "--emulated");
        assertEquals(4096, o.size());
        assertEquals(77, o.iterations());
        assertEquals("mlx5_1", o.device());
        assertEquals(2, o.ibPort());
        assertEquals(3, o.ib().gidIndex());
        assertEquals(64, o.inlineSize());
        assertFalse(o.inline());
        assertEquals(DoorbellMode.BLUEFLAME, o.mode());
        assertEquals(16, o.txDepth());
        assertEquals(16, o.cqMod(), "the signal interval never exceeds the window");
        assertEquals(64, o.rxDepth());
        assertEquals(1024, o.ib().mtu());
        assertEquals(PerfOptions.Role.CLIENT, o.role());
        assertEquals("peer.example", o.ib().host());
        assertEquals(20000, o.ib().tcpPort());
        assertEquals(Duration.ofSeconds(5), o.timeout());
        assertFalse(o.progress());
        assertEquals(PerfOptions.Role.SERVER, PerfOptions.parse("--server", "read_bw").role());
        assertEquals(DoorbellMode.DOORBELL, PerfOptions.parse("read_bw", "--doorbell", "doorbell").mode());
    }

    /** perftest's command line: the positional server, -x GID index, the options accepted and ignored. */
    @Test
    void perftestsCommandLine()
    {
        final PerfOptions c = PerfOptions.parse("write_bw", "-x", "1", "-F", "--report_gbits", "-s", "8",
            "server.example", "-N", "--use_old_post_send", "-c", "RC", "-q", "1", "-o", "4");
        assertEquals(PerfOptions.Role.CLIENT, c.role());
        assertEquals("server.example", c.ib().host());
        assertEquals(1, c.ib().gidIndex());
        assertTrue(c.reportGbits());
        assertEquals(4, c.ib().outReads());
        assertTrue(c.noPeak());
        assertEquals(2, c.notes().size(), c.notes().toString());
        assertTrue(c.notes().get(1).contains("--use_old_post_send ignored"), c.notes().toString());
        assertEquals(PerfTest.ATOMIC_BW, PerfOptions.parse("atomic_bw", "-A", "FETCH_AND_ADD").test());
        assertEquals(8, PerfOptions.parse("atomic_bw").size());
        assertMessage("multicast", () -> PerfOptions.parse("send_lat", "-g", "0"));
        assertMessage("-R connects to a peer through rdma_cm",
            () -> PerfOptions.parse("send_lat", "-R", "--loopback"));
        assertEquals(PerfOptions.Role.SERVER, PerfOptions.parse("send_lat", "-R").role());
        assertTrue(PerfOptions.parse("send_lat", "-R", "127.0.0.1").ib().rdmaCm());
        assertMessage("-c UD: mlx5j perf runs RC, XRC and DC QPs", () -> PerfOptions.parse("send_lat", "-c", "UD"));
        assertEquals("DC", PerfOptions.parse("write_bw", "-c", "dc", "h1").ib().connection());
        assertEquals("RC", PerfOptions.parse("write_bw", "h1").ib().connection());
        // perftest's DEF_INLINE_DC: 150 for write_lat and send_lat over DC (220 and 236 over RC)
        assertEquals(DcExchange.DEFAULT_INLINE, PerfOptions.parse("write_lat", "-c", "DC", "h1").inlineSize());
        assertEquals(DcExchange.DEFAULT_INLINE, PerfOptions.parse("send_lat", "-c", "DC", "h1").inlineSize());
        assertEquals(220, PerfOptions.parse("write_lat", "h1").inlineSize());
        assertMessage("-c DC: not with -R", () -> PerfOptions.parse("write_bw", "-c", "DC", "-R", "h1"));
        assertMessage("-A CMP_AND_SWAP", () -> PerfOptions.parse("atomic_lat", "-A", "CMP_AND_SWAP"));
        assertMessage("-a: message size cannot be changed for atomic tests",
            () -> PerfOptions.parse("atomic_bw", "-a"));
        assertMessage("-D: duration mode does not run all sizes", () -> PerfOptions.parse("write_bw", "-a", "-D", "5"));
        assertMessage("longer than twice the margin", () -> PerfOptions.parse("write_bw", "-D", "4", "--margin", "2"));
        assertMessage("extra argument 'h2'", () -> PerfOptions.parse("write_bw", "h1", "h2"));
        assertEquals(14, PerfOptions.parse("write_lat", "h").ib().qpTimeout());
        assertEquals(18, PerfOptions.parse("write_lat", "-u", "18", "h").ib().qpTimeout());
        assertEquals(0, PerfOptions.parse("write_lat", "--qp-timeout", "0", "h").ib().qpTimeout());
        assertEquals(18, PerfOptions.parse("write_lat", "-u", "18", "h").withSize(64).ib().qpTimeout());
        assertMessage("-u", () -> PerfOptions.parse("write_lat", "-u", "32", "h"));
        assertMessage("-u: with -R the CM sets the QP's timeout",
            () -> PerfOptions.parse("write_lat", "-R", "-u", "18", "127.0.0.1"));
    }

    /**
     * perftest's sides: with a server host the client, without one the server (ib_write_lat -p 18515 waits for a
     * client); the in-process pair only when asked for. A raw test names its side, as perftest's raw tools require.
     */
    @Test
    void sidesAreTheOnesOfPerftest()
    {
        assertEquals(PerfOptions.Role.SERVER, PerfOptions.parse("write_lat", "-p", "18515").role());
        assertEquals(PerfOptions.Role.SERVER, PerfOptions.parse("read_bw", "--server").role());
        assertEquals(PerfOptions.Role.CLIENT, PerfOptions.parse("write_lat", "-p", "18515", "h").role());
        assertEquals(PerfOptions.Role.LOOPBACK, PerfOptions.parse("write_lat", "--loopback", "-n", "2000").role());
        assertNull(PerfOptions.parse("write_lat", "--loopback").ib().host());
        assertMessage("choose one of", () -> PerfOptions.parse("write_lat", "--loopback", "h"));
        assertMessage("choose one of", () -> PerfOptions.parse("write_lat", "--loopback", "--server"));
        assertMessage("you must choose test side", () -> PerfOptions.parse("raw_lat"));
        assertMessage("--loopback", () -> PerfOptions.parse("raw_bw", "-B", "02:00:00:00:52:01"));
        assertEquals(PerfOptions.Role.LOOPBACK, PerfOptions.parse("raw_lat", "--loopback").role());
        assertEquals(PerfOptions.Role.SERVER, PerfOptions.parse("raw_bw", "-Z", "-B", "02:00:00:00:52:01").role());
        assertTrue(IbOptions.USAGE.contains("--loopback"), IbOptions.USAGE);
        assertTrue(RawOptions.USAGE.contains("--loopback"), RawOptions.USAGE);
    }

    /** --warmup: on by default for two-process latency runs over TCP only; its run is a loopback at the first size. */
    @Test
    void warmsUpTwoProcessLatencyRuns()
    {
        assertEquals(20_000, PerfOptions.parse("write_lat", "--server").ib().warmup());
        assertEquals(20_000, PerfOptions.parse("read_lat", "host1").ib().warmup());
        assertEquals(20_000, PerfOptions.parse("write_lat").ib().warmup());           // no host: the server
        assertEquals(0, PerfOptions.parse("write_lat", "--loopback").ib().warmup()); // nothing to wait for
        assertEquals(0, PerfOptions.parse("write_bw", "--server").ib().warmup());
        assertEquals(0, PerfOptions.parse("send_lat", "-R", "--server").ib().warmup()); // no TCP exchange to precede
        assertEquals(0, PerfOptions.parse("write_lat", "--server", "--warmup", "0").ib().warmup());
        final PerfOptions w = PerfOptions.parse("send_lat", "-a", "-n", "7", "--warmup", "300", "h").forWarmup();
        assertEquals(300, w.iterations());
        assertEquals(2, w.size());
        assertEquals(PerfOptions.Role.LOOPBACK, w.role());
        assertEquals(0, w.duration());
        assertTrue(w.progress());
        assertFalse(PerfOptions.parse("send_lat", "--no-progress", "h").forWarmup().progress());
        assertFalse(PerfOptions.parse("send_lat", "-D", "3", "h").forWarmup().progress());
        assertMessage("latency tests only", () -> PerfOptions.parse("write_bw", "--warmup", "5", "--server"));
        assertMessage("with -R there is none", () -> PerfOptions.parse("write_lat", "-R", "--warmup", "5", "h"));
        assertMessage("--warmup", () -> PerfOptions.parse("write_lat", "--warmup", "-1"));
    }

    /** -a: perftest's sweep 2 .. 2^23; -D: margin a quarter of the duration, no peak; the peak's 20000 limit. */
    @Test
    void sweepsDurationsAndPeak()
    {
        final PerfOptions a = PerfOptions.parse("write_lat", "-a");
        assertEquals(23, a.sizes().length);
        assertEquals(2, a.sizes()[0]);
        assertEquals(1 << 23, a.sizes()[22]);
        assertEquals(1 << 23, a.maxSize());
        assertEquals(4096, a.withSize(4096).size());
        assertEquals(1, PerfOptions.parse("write_lat").sizes().length);
        final PerfOptions d = PerfOptions.parse("write_bw", "-D", "10");
        assertEquals(10, d.duration());
        assertEquals(2, d.margin());
        assertTrue(d.noPeak());
        assertEquals(0, PerfOptions.parse("send_lat", "-D", "3").margin());
        assertFalse(PerfOptions.parse("write_bw", "-n", "20000").noPeak());
        assertTrue(PerfOptions.parse("write_bw", "-n", "20001").noPeak());
        assertFalse(PerfOptions.parse("write_lat", "-n", "20001").noPeak());
    }

    /**
     * One parser, two parts: the common options are the same for the ib_* and the raw tests (spellings, checks), their
     * ranges and defaults are the part's, and each part keeps its own options. Where the two parsers differed, the
     * merged one follows perftest: --inline_size (perftest's spelling) for every test, cq-mod clamped to tx-depth for
     * every test, the latency sample limit only where samples are kept (not with -D).
     */
    @Test
    void oneParserTwoParts()
    {
        assertEquals(64, PerfOptions.parse("write_bw", "--inline_size", "64").inlineSize());
        assertEquals(32, PerfOptions.parse("raw_lat", "--loopback", "--inline-size", "32").inlineSize());
        assertEquals(4, PerfOptions.parse("write_lat", "-n", "4").iterations());
        assertMessage("option -n must be in 5..100000000, got 4", () -> PerfOptions.parse("raw_lat", "-n", "4"));
        assertEquals(1 << 21, PerfOptions.parse("write_bw", "-s", "2097152").size());
        assertMessage("option -s must be in 1..1048576", () -> PerfOptions.parse("raw_bw", "-s", "2097152"));
        assertEquals(8, PerfOptions.parse("raw_lat", "--loopback", "-t", "8", "-Q", "20").cqMod());
        assertEquals(8, PerfOptions.parse("send_lat", "-t", "8", "-Q", "20").cqMod());
        assertEquals(20_000_000L, PerfOptions.parse("write_lat", "-D", "5", "-n", "20000000").iterations());
        assertMessage("raw_lat keeps one 8-byte sample per iteration",
            () -> PerfOptions.parse("raw_lat", "-n", "10000001"));
        assertMessage("-b: bidirectional runs are not supported", () -> PerfOptions.parse("raw_bw", "-b"));
        assertMessage("-b: bidirectional runs are not supported", () -> PerfOptions.parse("write_bw", "-b"));
        assertMessage("choose one of", () -> PerfOptions.parse("raw_bw", "--server", "-P"));
        // the raw word selects the raw part wherever it stands; each part refuses the other's options
        final PerfOptions raw = PerfOptions.parse("--server", "-B", "02:00:00:00:52:01", "raw_bw", "-D", "8");
        assertEquals(PerfTest.RAW_BW, raw.test());
        assertNull(raw.ib());
        assertEquals(2, raw.margin(), "a quarter of the duration, as for every test");
        assertMessage("GID index isn't supported for Raw Ethernet tests", () -> PerfOptions.parse("raw_bw", "-x", "1"));
        assertMessage("unknown option '-B'", () -> PerfOptions.parse("write_bw", "-B", "02:00:00:00:52:01"));
        assertMessage("unknown option '--margin'", () -> PerfOptions.parse("raw_bw", "-D", "8", "--margin", "1"));
        assertNull(PerfOptions.parse("write_bw").raw());
    }

    @Test
    void badCommandLinesSayWhatIsWrong()
    {
        assertMessage("which test", () -> PerfOptions.parse());
        assertMessage("unknown test 'write_latency'", () -> PerfOptions.parse("write_latency"));
        assertMessage("option -s needs a value", () -> PerfOptions.parse("write_lat", "-s"));
        assertMessage("option -s needs a number, got 'big'", () -> PerfOptions.parse("write_lat", "-s", "big"));
        assertMessage("must be in 1..1073741824, got 0", () -> PerfOptions.parse("write_lat", "-s", "0"));
        assertMessage("atomic_lat moves 8 bytes", () -> PerfOptions.parse("atomic_lat", "-s", "16"));
        assertMessage("--doorbell is blueflame, doorbell or auto",
            () -> PerfOptions.parse("write_lat", "--doorbell", "fast"));
        assertMessage("needs a number", () -> PerfOptions.parse("write_lat", "-x", "blueflame"));
        assertMessage("choose one of", () -> PerfOptions.parse("write_lat", "--server", "--client", "h"));
        assertMessage("--mtu is 256", () -> PerfOptions.parse("write_lat", "-m", "1000"));
        assertMessage("takes no value", () -> PerfOptions.parse("write_lat", "--server=yes"));
        assertEquals("read_lat", PerfOptions.parse("write_lat", "read_lat").ib().host(), "a second word is the server");
        assertMessage("unknown option", () -> PerfOptions.parse("write_lat", "--fast"));
        assertMessage("at most 10000000 iterations", () -> PerfOptions.parse("read_lat", "-n", "10000001"));
        assertEquals(10_000_001L, PerfOptions.parse("read_bw", "-n", "10000001").iterations());
    }

    private static void assertMessage(final String expected, final org.junit.jupiter.api.function.Executable call)
    {
        final UsageException ex = assertThrows(UsageException.class, call);
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
    }
}
