// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Java encoder bytes == bytes built by the installed mlx5dv.h (its mlx5dv_set_ctrl_seg / _data_seg / _dgram_seg
 * helpers, otherwise its structs filled field by field) for thousands of seeded random inputs, each segment placed
 * at a random ring position so that segments starting at the ring beginning and inline data crossing the ring end
 * are covered. The ring is filled with random garbage first, so a byte the encoder forgets shows up as a mismatch.
 */
class GoldenBytesTest
{
    private static final long SEED = 0x6d6c7835L;
    private static final int CASES_PER_KIND = 1500;
    private static final int RING_BB = 64;

    private final Random rnd = new Random(SEED);
    private final MemorySegment ring = MemorySegment.ofArray(new long[RING_BB * 64 / 8]);
    private final WqeWriter w = new WqeWriter(64);
    private final StringBuilder stdin = new StringBuilder();
    private final List<String> expected = new ArrayList<>();
    private final List<String> labels = new ArrayList<>();

    private static String h(final long v)
    {
        return "0x" + Long.toHexString(v);
    }

    private static String h32(final int v)
    {
        return "0x" + Integer.toHexString(v);
    }

    private void garbage()
    {
        for (long i = 0; i < ring.byteSize(); i += 8)
        {
            ring.set(ValueLayout.JAVA_LONG, i, rnd.nextLong());
        }
    }

    /** Wraps at a random WQEBB and writes 0..6 filler data segments; returns the ring offset of the next segment. */
    private long startAtRandomPosition()
    {
        garbage();
        final long ctrl = (long)rnd.nextInt(RING_BB) * 64;
        w.wrap(ring, ctrl);
        final int fillers = rnd.nextInt(7);
        for (int i = 0; i < fillers; i++)
        {
            w.data(rnd.nextInt(), rnd.nextInt(), rnd.nextLong());
        }
        return (ctrl + 16L * w.ds()) % ring.byteSize();
    }

    private void expect(final String label, final String cmd, final String javaHex)
    {
        labels.add(label + ": " + cmd);
        stdin.append(cmd).append('\n');
        expected.add(javaHex);
    }

    @Test
    void everyEncoderMatchesTheHeader()
    {
        for (int i = 0; i < CASES_PER_KIND; i++)
        {
            ctrlCase();
            final long d = startAtRandomPosition();
            final int len = rnd.nextInt();
            final int lkey = rnd.nextInt();
            final long addr = rnd.nextLong();
            w.data(len, lkey, addr);
            expect("data", "data " + h32(len) + " " + h32(lkey) + " " + h(addr), Hex.of(ring, d, 16));

            final long r = startAtRandomPosition();
            final long raddr = rnd.nextLong();
            final int rkey = rnd.nextInt();
            w.raddr(raddr, rkey);
            expect("raddr", "raddr " + h(raddr) + " " + h32(rkey), Hex.of(ring, r, 16));

            atomicCases();
            datagramCase();
            inlineCase();
            ethCase();
            recvCase();
        }
        final List<String> got = CProgram.run("golden", stdin.toString());
        assertEquals(expected.size(), got.size(), "one output line per command");
        for (int i = 0; i < expected.size(); i++)
        {
            assertEquals(got.get(i), expected.get(i), labels.get(i));
        }
    }

    private void ctrlCase()
    {
        garbage();
        final long ctrl = (long)rnd.nextInt(RING_BB) * 64;
        final int ds = 1 + rnd.nextInt(w.maxDs());
        w.wrap(ring, ctrl);
        while (w.ds() < ds)
        {
            w.data(0, 0, 0);
        }
        final int pi = rnd.nextInt();
        final int opcode = rnd.nextInt(256);
        final int opmod = rnd.nextInt(256);
        final int qpn = rnd.nextInt();   // C and Java must truncate to 24 bits alike
        final int fm = rnd.nextInt(256);
        final int imm = rnd.nextInt();
        w.ctrl(opmod, opcode, pi, qpn, fm, imm);
        expect("ctrl", "ctrl " + h32(pi & 0xffff) + " " + h32(opcode) + " " + h32(opmod) + " " +
            h(Integer.toUnsignedLong(qpn)) + " " + h32(fm) + " " + ds + " 0 " + h(Integer.toUnsignedLong(imm)),
            Hex.of(ring, ctrl, 16));
    }

    private void atomicCases()
    {
        long a = startAtRandomPosition();
        final long s = rnd.nextLong();
        final long c = rnd.nextLong();
        final long sm = rnd.nextLong();
        final long cm = rnd.nextLong();
        w.atomicCas(s, c);
        expect("cas", "cas " + h(s) + " " + h(c), Hex.of(ring, a, 16));
        a = startAtRandomPosition();
        w.atomicFa(s);
        expect("faa", "faa " + h(s), Hex.of(ring, a, 16));
        a = startAtRandomPosition();
        w.maskedCas64(s, c, sm, cm);
        expect("mcas64", "mcas64 " + h(s) + " " + h(c) + " " + h(sm) + " " + h(cm), Hex.of(ring, a, 32));
        a = startAtRandomPosition();
        w.maskedFa64(s, c);
        expect("mfa64", "mfa64 " + h(s) + " " + h(c), Hex.of(ring, a, 16));
        a = startAtRandomPosition();
        w.maskedCas32((int)s, (int)c, (int)sm, (int)cm);
        expect("mcas32", "mcas32 " + h32((int)s) + " " + h32((int)c) + " " + h32((int)sm) + " " + h32((int)cm),
            Hex.of(ring, a, 16));
        a = startAtRandomPosition();
        w.maskedFa32((int)s, (int)c);
        expect("mfa32", "mfa32 " + h32((int)s) + " " + h32((int)c), Hex.of(ring, a, 16));
    }

    private void datagramCase()
    {
        final long a = startAtRandomPosition();
        final long key = rnd.nextLong();
        final int dqp = rnd.nextInt();
        final boolean ext = rnd.nextBoolean();
        final int srsl = rnd.nextInt(256);
        final int flmlid = rnd.nextInt(256);
        final int rlid = rnd.nextInt(65536);
        final long rmac = rnd.nextLong() & 0xffff_ffff_ffffL;
        final int tclass = rnd.nextInt(256);
        final int hop = rnd.nextInt(256);
        final int grh = rnd.nextInt();
        final long gidHi = rnd.nextLong();
        final long gidLo = rnd.nextLong();
        w.datagram(key, dqp, ext, srsl, flmlid, rlid, rmac, tclass, hop, grh, gidHi, gidLo);
        expect("dgram", "dgram " + h(key) + " " + h(Integer.toUnsignedLong(dqp)) + " " + (ext ? 1 : 0) + " " +
            srsl + " " + flmlid + " " + rlid + " " + String.format("%012x", rmac) + " " + tclass + " " + hop + " " +
            h(Integer.toUnsignedLong(grh)) + " " + String.format("%016x%016x", gidHi, gidLo), Hex.of(ring, a, 48));
    }

    private void inlineCase()
    {
        final long a = startAtRandomPosition();
        final int maxLen = (w.maxDs() - w.ds()) * 16 - 4;
        final int len = rnd.nextInt(4) == 0 ? rnd.nextInt(17) : rnd.nextInt(Math.min(maxLen, 900) + 1);
        final byte[] data = new byte[len];
        rnd.nextBytes(data);
        final MemorySegment src = MemorySegment.ofArray(data);
        w.inline(src, 0, len);
        expect("inline", "inline " + len + " " + (len == 0 ? "-" : Hex.of(data)),
            Hex.of(ring, a, InlineSeg.ds(len) * 16));
    }

    /**
     * Ethernet segment at a random WQEBB: no inline header, the L2 minimum (18), or a longer header that continues
     * into the next units and across the ring end; every cs_flags combination; a VLAN tag a third of the time.
     */
    private void ethCase()
    {
        garbage();
        final long ctrl = (long)rnd.nextInt(RING_BB) * 64;
        w.wrap(ring, ctrl);
        final int cs = rnd.nextInt(4) << 6;
        final int mss = rnd.nextInt(65536);
        final boolean vlan = rnd.nextInt(3) == 0;
        final int tci = rnd.nextInt(65536);
        final int n = switch (rnd.nextInt(3))
        {
            case 0 -> 0;
            case 1 -> EthSeg.MLX5_ETH_L2_INLINE_HEADER_SIZE;
            default -> EthSeg.MLX5_ETH_L2_INLINE_HEADER_SIZE + rnd.nextInt(200);
        };
        final byte[] frame = new byte[Math.max(n, 14) + rnd.nextInt(64)];
        rnd.nextBytes(frame);
        final MemorySegment src = MemorySegment.ofArray(frame);
        if (vlan)
        {
            w.ethVlan(cs, mss, src, 0, n, tci);
        }
        else
        {
            w.eth(cs, mss, src, 0, n);
        }
        assertEquals(EthSeg.ds(n), w.ds() - 1, "units of an Ethernet segment with " + n + " inline bytes");
        expect("eth", "eth " + cs + " " + mss + " " + (vlan ? tci : 0x10000) + " " + n + " " + Hex.of(frame),
            Hex.of(ring, ctrl + 16, EthSeg.ds(n) * 16));
    }

    private void recvCase()
    {
        final boolean srq = rnd.nextBoolean();
        final int maxGs = 1 + rnd.nextInt(8);
        final int n = rnd.nextInt(maxGs + 1);
        final int stride = (srq ? 16 : 0) + maxGs * 16;
        final MemorySegment rq = MemorySegment.ofArray(new long[stride * 4 / 8]);
        rq.fill((byte)0xee);
        final long at = (long)rnd.nextInt(4) * stride;
        final int nextIdx = rnd.nextInt(65536);
        final RecvWqeWriter r = new RecvWqeWriter();
        if (srq)
        {
            r.wrapSrq(rq, at, stride, nextIdx);
        }
        else
        {
            r.wrap(rq, at, stride);
        }
        final StringBuilder cmd = new StringBuilder("recv " + (srq ? 1 : 0) + " " + nextIdx + " " + maxGs + " " + n);
        for (int i = 0; i < n; i++)
        {
            final int len = rnd.nextInt();
            final int lkey = rnd.nextInt();
            final long addr = rnd.nextLong();
            r.data(len, lkey, addr);
            cmd.append(' ').append(h32(len)).append(' ').append(h32(lkey)).append(' ').append(h(addr));
        }
        r.finish();
        expect("recv", cmd.toString(), Hex.of(rq, at, stride));
    }
}
