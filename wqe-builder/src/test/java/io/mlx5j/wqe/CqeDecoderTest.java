// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CqeView against cqe_decode.c, a decoder written from mlx5dv.h's accessors (mlx5dv_get_cqe_owner/_opcode/_se/
 * _format, be16toh(wqe_counter) ...) and a syndrome->status map written from the header's MLX5_CQE_SYNDROME_* and
 * verbs.h's IBV_WC_* names. Random 64- and 128-byte CQEs of both owner parities; the only exception CqeView may
 * throw is MalformedCqeException, and exactly where the C side says the CQE is not a completion (status) or its
 * scatter-to-CQE data cannot be valid (64-byte scatter in a 64-byte CQE, byte_cnt larger than the scatter area).
 */
class CqeDecoderTest
{
    private static final int FUZZ_CASES = 30_000;
    private static final int[] OPCODES = {0, 1, 2, 3, 4, 13, 14, 15};
    private static final int[] SYNDROMES = {0x01, 0x02, 0x04, 0x05, 0x06, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
        0x22};

    private final MemorySegment cq = MemorySegment.ofArray(new long[1024 * 128 / 8]);
    private final CqeView view = new CqeView();

    @Test
    void fuzzAgreesWithHeaderDecoder()
    {
        final Random rnd = new Random(0xc0ffeeL);
        final StringBuilder stdin = new StringBuilder();
        final List<String> expected = new ArrayList<>();
        final List<String> ethernet = new ArrayList<>();
        final byte[] cqe = new byte[128];
        for (int i = 0; i < FUZZ_CASES + 2 * 256; i++)
        {
            final int size = rnd.nextBoolean() ? 64 : 128;
            rnd.nextBytes(cqe);
            final int opOwnAt = size - 1;
            final int errAt = size - 64 + Cqe64.SYNDROME_OFFSET;
            if (i >= FUZZ_CASES)
            {
                // every syndrome value under both error opcodes
                final int k = i - FUZZ_CASES;
                cqe[opOwnAt] = (byte)(((k & 1) == 0 ? Cqe64.MLX5_CQE_REQ_ERR : Cqe64.MLX5_CQE_RESP_ERR) << 4 |
                    (cqe[opOwnAt] & 0xf));
                cqe[errAt] = (byte)(k >>> 1);
            }
            else if (rnd.nextBoolean())
            {
                cqe[opOwnAt] = (byte)(OPCODES[rnd.nextInt(OPCODES.length)] << 4 | (cqe[opOwnAt] & 0xf));
                if (rnd.nextBoolean())
                {
                    cqe[errAt] = (byte)SYNDROMES[rnd.nextInt(SYNDROMES.length)];
                }
                if (rnd.nextInt(3) == 0)   // small byte_cnt so that scatter lengths are often legal
                {
                    final int bc = size - 64 + Cqe64.BYTE_CNT_OFFSET;
                    cqe[bc] = 0;
                    cqe[bc + 1] = 0;
                    cqe[bc + 2] = 0;
                    cqe[bc + 3] = (byte)rnd.nextInt(80);
                }
            }
            final int logCnt = rnd.nextInt(11);
            final int ci = rnd.nextInt() & 0x7fffffff;
            stdin.append(size).append(' ').append(ci).append(' ').append(logCnt).append(' ')
                .append(Hex.of(MemorySegment.ofArray(cqe), 0, size)).append('\n');
            expected.add(decode(cqe, size, ci, logCnt));
            ethernet.add(ethernet());
        }
        final List<String> got = CProgram.run("cqe_decode", stdin.toString());
        assertEquals(2 * expected.size(), got.size());
        int scattered = 0;
        int oversized = 0;
        for (int i = 0; i < expected.size(); i++)
        {
            assertEquals(got.get(2 * i), expected.get(i), "CQE #" + i + " (C decoder first, Java second)");
            assertEquals(got.get(2 * i + 1), ethernet.get(i), "Ethernet fields of CQE #" + i);
            final String length = got.get(2 * i).substring(got.get(2 * i).lastIndexOf(' ') + 1);
            scattered += length.equals("0") || length.equals("-2") ? 0 : 1;
            oversized += length.equals("-2") ? 1 : 0;
        }
        // the random inputs must reach both outcomes of the scatter length check, or it is not tested
        assertTrue(scattered > 500 && oversized > 500, scattered + " valid, " + oversized + " invalid scatters");
    }

    /** Java decode in cqe_decode.c's output format. Any exception other than MalformedCqeException fails. */
    private String decode(final byte[] bytes, final int size, final int ci, final int logCnt)
    {
        view.wrap(cq, size, 1 << logCnt);
        final long at = (long)(ci & ((1 << logCnt) - 1)) * size;
        MemorySegment.copy(bytes, 0, cq, ValueLayout.JAVA_BYTE, at, size);
        final boolean sw = view.tryAcquire(ci);
        view.at(at);
        int status;
        try
        {
            status = view.status().code();
        }
        catch (final MalformedCqeException e)
        {
            status = -1;
        }
        assertEquals(status != -1, view.isWorkCompletion());
        long scatter;
        try
        {
            final long off = view.scatterOffset();
            scatter = off < 0 ? -1 : off - at;
        }
        catch (final MalformedCqeException e)
        {
            scatter = -2;
        }
        long scatterLength;
        try
        {
            scatterLength = view.scatterLength();
        }
        catch (final MalformedCqeException e)
        {
            scatterLength = -2;
        }
        if (sw)
        {
            assertEquals(at, view.cqeOffset());
        }
        final int scatterFlags = (view.inlineScatter32() ? 1 : 0) | (view.inlineScatter64() ? 2 : 0);
        return (sw ? 1 : 0) + " " + view.owner() + " " + view.opcode() + " " + view.se() + " " + view.format() + " " +
            view.wqeCounter() + " " + Integer.toUnsignedString(view.byteCnt()) + " " +
            Integer.toUnsignedString(view.immInvalPkey()) + " " + Integer.toUnsignedString(view.sopDropQpn()) + " " +
            Integer.toUnsignedString(view.srqnUidx()) + " " + Integer.toUnsignedString(view.flagsRqpn()) + " " +
            view.slid() + " " + view.signature() + " " + view.syndrome() + " " + view.vendorSyndrome() + " " +
            scatterFlags + " " + Long.toUnsignedString(view.timestamp()) + " " + status + " " + scatter + " " +
            scatterLength;
    }

    /** The Ethernet receive fields of the CQE decode() left the view on, in cqe_decode.c's second line format. */
    private String ethernet()
    {
        return view.hdsIpExt() + " " + view.l4HdrTypeEtc() + " " + view.l3HdrType() + " " + view.l4HdrType() + " " +
            (view.vlanStripped() ? 1 : 0) + " " + view.vlanInfo() + " " + view.flowTag() + " " +
            (view.ipCsumOk() ? 4 : 0) + " " + Integer.toUnsignedString(view.rssHashResult()) + " " +
            view.rssHashType() + " " + view.wqeId() + " " + view.strideIndex() + " " + view.consumedStrides() + " " +
            (view.filler() ? 1 : 0) + " " + view.strideByteCnt();
    }

    @Test
    void ownerBitFlipsEveryPass()
    {
        final int cnt = 4;
        final MemorySegment buf = MemorySegment.ofArray(new long[cnt * 128 / 8]);
        for (final int size : new int[] {64, 128})
        {
            buf.fill((byte)0);
            for (int i = 0; i < cnt; i++)   // libmlx5 initialises every CQE to MLX5_CQE_INVALID << 4
            {
                buf.set(ValueLayout.JAVA_BYTE, (long)i * size + size - 1, (byte)(Cqe64.MLX5_CQE_INVALID << 4));
            }
            view.wrap(buf, size, cnt);
            int ci = 0;
            for (int produced = 0; produced < 3 * cnt; produced++)
            {
                assertFalse(view.tryAcquire(ci), "nothing produced yet at ci " + ci);
                final long at = (long)(produced & (cnt - 1)) * size + size - 64;
                buf.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                    at + Cqe64.WQE_COUNTER_OFFSET, (short)produced);
                final int owner = (produced / cnt) & 1;   // the device flips the owner bit on every pass
                buf.set(ValueLayout.JAVA_BYTE, at + Cqe64.OP_OWN_OFFSET, (byte)(Cqe64.MLX5_CQE_REQ << 4 | owner));
                assertTrue(view.tryAcquire(ci), "CQE " + produced + " must be visible");
                assertEquals(produced, view.wqeCounter());
                assertEquals(WcStatus.SUCCESS, view.status());
                ci++;
            }
            assertFalse(view.tryAcquire(ci), "stale CQE of the previous pass must not be taken");
        }
    }

    @Test
    void syndromeMappingIsLibmlx5s()
    {
        assertEquals(WcStatus.LOC_LEN_ERR, WcStatus.fromSyndrome(0x01));
        assertEquals(WcStatus.WR_FLUSH_ERR, WcStatus.fromSyndrome(0x05));
        assertEquals(WcStatus.RETRY_EXC_ERR, WcStatus.fromSyndrome(0x15));
        assertEquals(WcStatus.REM_ABORT_ERR, WcStatus.fromSyndrome(0x22));
        assertEquals(WcStatus.GENERAL_ERR, WcStatus.fromSyndrome(0x93));
        assertEquals(12, WcStatus.RETRY_EXC_ERR.code());
    }
}
