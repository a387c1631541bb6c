// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The template's bytes equal a header glibc's struct ether_header / iphdr / udphdr build in golden.c with an
 * independently written RFC 1071 checksum, for random addresses, ports, lengths and ids, each template patched many
 * times (so a field a patch forgets to rewrite, or a checksum that includes the old checksum, shows up).
 */
class UdpHeaderTemplateTest
{
    @Test
    void patchedTemplatesEqualGlibcHeaders()
    {
        final Random rnd = new Random(42);
        final StringBuilder stdin = new StringBuilder();
        final List<String> expected = new ArrayList<>();
        for (int t = 0; t < 50; t++)
        {
            final MemorySegment mem = MemorySegment.ofArray(new byte[UdpHeaderTemplate.LENGTH + 3]).asSlice(3);
            final UdpHeaderTemplate h = new UdpHeaderTemplate(mem);
            final long smac = rnd.nextLong() & 0xffff_ffff_ffffL;
            final int sip = rnd.nextInt();
            final int sport = rnd.nextInt(65536);
            final int ttl = rnd.nextInt(256);
            final int tos = rnd.nextInt(256);
            h.srcMac(smac).srcIp(sip).srcPort(sport).ttl(ttl).tos(tos);
            for (int f = 0; f < 40; f++)
            {
                final long dmac;
                final int dip = rnd.nextInt();
                final int dport = rnd.nextInt(65536);
                if (rnd.nextBoolean())
                {
                    dmac = rnd.nextLong() & 0xffff_ffff_ffffL;
                    h.dst(dmac, dip, dport);
                }
                else
                {
                    h.multicast(dip, dport);
                    dmac = 0x01005e000000L | (dip & 0x7fffff);
                }
                final int len = rnd.nextInt(1473);
                final int id = rnd.nextInt(65536);
                h.prepare(len, id);
                stdin.append("udp ").append(dmac).append(' ').append(smac).append(' ')
                    .append(Integer.toUnsignedLong(sip)).append(' ').append(Integer.toUnsignedLong(dip)).append(' ')
                    .append(sport).append(' ').append(dport).append(' ').append(ttl).append(' ').append(tos)
                    .append(' ').append(len).append(' ').append(id).append('\n');
                expected.add(Hex.of(h.segment(), 0, UdpHeaderTemplate.LENGTH));
            }
        }
        final List<String> got = CProgram.run("golden", stdin.toString());
        assertEquals(expected, got);
    }

    @Test
    void knownHeaderChecksum()
    {
        // the worked example of RFC 1071-style checksums often quoted for 45 00 00 73 00 00 40 00 40 11 .. c0 a8 00 01
        // c0 a8 00 c7: checksum 0xb861
        final UdpHeaderTemplate h = new UdpHeaderTemplate(MemorySegment.ofArray(new byte[64]));
        h.srcIp(0xc0a80001).dstIp(0xc0a800c7).prepare(0x73 - 28, 0);
        assertEquals(0xb8, h.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 24) & 0xff);
        assertEquals(0x61, h.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 25) & 0xff);
    }

    @Test
    void tooSmallSegmentIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new UdpHeaderTemplate(MemorySegment.ofArray(new byte[41])));
    }
}
