// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Whole WQEs at every ring position of rings of 1 to 8 WQEBBs, against golden.c's "wqe" command, which lays the
 * header's helpers' output into the ring modulo its size, independently of WqeWriter's own wrap logic. The whole
 * ring is compared, so a byte written outside the WQE, or a segment not continued at the ring start, fails.
 */
class RingComposeTest
{
    private static final int CASES = 4000;

    @Test
    void wholeWqesMatchAtEveryPosition()
    {
        final Random rnd = new Random(0x5157L);
        final StringBuilder stdin = new StringBuilder();
        final List<String> expected = new ArrayList<>();
        final List<String> labels = new ArrayList<>();
        final int[] ringSizes = {1, 2, 4, 8};
        for (int c = 0; c < CASES; c++)
        {
            final int ringBb = ringSizes[c % ringSizes.length];
            final int ctrlBb = (c / ringSizes.length) % ringBb;   // every position of every ring size
            final MemorySegment ring = MemorySegment.ofArray(new long[ringBb * 64 / 8]);
            ring.fill((byte)0x5a);
            final WqeWriter w = new WqeWriter(ringBb);
            w.wrap(ring, ctrlBb * 64L);
            final StringBuilder segs = new StringBuilder();
            int nseg = 0;
            while (true)
            {
                final int room = w.maxDs() - w.ds();
                final int kind = rnd.nextInt(6);
                if (kind == 5 || room == 0)
                {
                    break;
                }
                if (kind == 0)
                {
                    final int len = rnd.nextInt();
                    final int lkey = rnd.nextInt();
                    final long addr = rnd.nextLong();
                    w.data(len, lkey, addr);
                    segs.append(" d 0x").append(Integer.toHexString(len)).append(" 0x")
                        .append(Integer.toHexString(lkey)).append(" 0x").append(Long.toHexString(addr));
                }
                else if (kind == 1)
                {
                    final long raddr = rnd.nextLong();
                    final int rkey = rnd.nextInt();
                    w.raddr(raddr, rkey);
                    segs.append(" r 0x").append(Long.toHexString(raddr)).append(" 0x")
                        .append(Integer.toHexString(rkey));
                }
                else if (kind == 2)
                {
                    final long s = rnd.nextLong();
                    final long cmp = rnd.nextLong();
                    w.atomicCas(s, cmp);
                    segs.append(" c 0x").append(Long.toHexString(s)).append(" 0x").append(Long.toHexString(cmp));
                }
                else if (kind == 3)
                {
                    final int len = rnd.nextInt(room * 16 - 4 + 1);
                    final byte[] data = new byte[len];
                    rnd.nextBytes(data);
                    w.inline(MemorySegment.ofArray(data), 0, len);
                    segs.append(" i ").append(len).append(' ').append(len == 0 ? "-" : Hex.of(data));
                }
                else
                {
                    if (room < 3)
                    {
                        continue;
                    }
                    final long key = rnd.nextLong();
                    final int dqp = rnd.nextInt();
                    final boolean ext = rnd.nextBoolean();
                    final int srsl = rnd.nextInt(256);
                    final int fl = rnd.nextInt(256);
                    final int rlid = rnd.nextInt(65536);
                    final long rmac = rnd.nextLong() & 0xffff_ffff_ffffL;
                    final int tclass = rnd.nextInt(256);
                    final int hop = rnd.nextInt(256);
                    final int grh = rnd.nextInt();
                    final long hi = rnd.nextLong();
                    final long lo = rnd.nextLong();
                    w.datagram(key, dqp, ext, srsl, fl, rlid, rmac, tclass, hop, grh, hi, lo);
                    segs.append(" g 0x").append(Long.toHexString(key)).append(" 0x")
                        .append(Integer.toHexString(dqp)).append(' ').append(ext ? 1 : 0).append(' ').append(srsl)
                        .append(' ').append(fl).append(' ').append(rlid).append(' ')
                        .append(String.format("%012x", rmac)).append(' ').append(tclass).append(' ').append(hop)
                        .append(" 0x").append(Integer.toHexString(grh)).append(' ')
                        .append(String.format("%016x%016x", hi, lo));
                }
                nseg++;
            }
            final int pi = rnd.nextInt(65536);
            final int opcode = rnd.nextInt(256);
            final int opmod = rnd.nextInt(256);
            final int qpn = rnd.nextInt(1 << 24);
            final int fm = rnd.nextInt(256);
            final int imm = rnd.nextInt();
            w.ctrl(opmod, opcode, pi, qpn, fm, imm);
            final String cmd = "wqe " + ringBb + " " + ctrlBb + " " + pi + " " + opcode + " " + opmod + " " + qpn +
                " " + fm + " 0x" + Integer.toHexString(imm) + " " + nseg + segs;
            stdin.append(cmd).append('\n');
            expected.add(Hex.of(ring, 0, ringBb * 64));
            labels.add("case " + c + ": " + cmd);
        }
        final List<String> got = CProgram.run("golden", stdin.toString());
        assertEquals(expected.size(), got.size());
        for (int i = 0; i < got.size(); i++)
        {
            assertEquals(got.get(i), expected.get(i), labels.get(i));
        }
    }
}
