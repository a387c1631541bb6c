// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.selfcheck;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.mlx5j.testkit.QpKind;
import io.mlx5j.testkit.WqeDump;
import io.mlx5j.wqe.DatagramSeg;
import io.mlx5j.wqe.InlineSeg;
import io.mlx5j.wqe.RecvWqeWriter;
import io.mlx5j.wqe.SendRing;
import io.mlx5j.wqe.WqeWriter;

import static io.mlx5j.wqe.CtrlSeg.MLX5_WQE_CTRL_CQ_UPDATE;
import static io.mlx5j.wqe.CtrlSeg.MLX5_WQE_CTRL_SOLICITED;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_RDMA_READ;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_SEND;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_SEND_IMM;

/**
 * Prints the encoded bytes of a few work requests, 16 bytes per line with ring offsets and the segment each line
 * belongs to: {@code ./mlx5j selfcheck}. It drives wqe-builder's public encoders only, so what it prints is what
 * the direct path would write; under each WQE the testkit's decoder ({@link WqeDump}) names its fields. Pure Java,
 * heap memory only: it needs no RDMA device.
 */
public final class SelfCheck
{
    private static final int QPN = 0x000abc;
    private static final int LKEY = 0x1234;
    private static final int RKEY = 0x5678;

    private SelfCheck()
    {
    }

    /** Writes the report to {@code out}; returns the number of WQEs printed. */
    public static int run(final PrintStream out)
    {
        final SendRing sq = new SendRing(16);
        final MemorySegment ring = MemorySegment.ofArray(new long[(int)(sq.ringBytes() / 8)]);
        final WqeWriter w = new WqeWriter(8);
        int count = 0;

        out.println("mlx5j wqe-builder self-check: send WQEs for QP 0x" + Integer.toHexString(QPN) +
            " (ring of " + sq.wqeCnt() + " WQEBBs), then one receive WQE");

        long ctrl = sq.claim(1);
        w.wrap(ring, ctrl).raddr(0x7f00_0000_1000L, RKEY).data(4096, LKEY, 0x5500_0000_0000L)
            .ctrl(0, MLX5_OPCODE_RDMA_WRITE, sq.wqeIndex(), QPN, MLX5_WQE_CTRL_CQ_UPDATE, 0);
        sq.commit(w.ds(), 1);
        dump(out, "RDMA_WRITE, 1 SGE of 4096 bytes, signaled", ring, w, "ctrl", "raddr", "data");
        count++;

        final byte[] text = "hello mlx5j inline!!".getBytes(StandardCharsets.US_ASCII);   // 20 bytes
        ctrl = sq.claim(SendRing.numWqebb(1 + InlineSeg.ds(text.length)));
        w.wrap(ring, ctrl).inline(MemorySegment.ofArray(text), 0, text.length)
            .ctrl(0, MLX5_OPCODE_SEND, sq.wqeIndex(), QPN, MLX5_WQE_CTRL_CQ_UPDATE, 0);
        sq.commit(w.ds(), 2);
        dump(out, "SEND inline, 20 bytes \"" + new String(text, StandardCharsets.US_ASCII) + "\", signaled", ring, w,
            "ctrl", "inline", "inline");
        count++;

        ctrl = sq.claim(1);
        w.wrap(ring, ctrl).data(64, LKEY, 0x5500_0000_2000L)
            .ctrl(0, MLX5_OPCODE_SEND_IMM, sq.wqeIndex(), QPN, MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_SOLICITED,
                0xdeadbeef);
        sq.commit(w.ds(), 3);
        dump(out, "SEND_IMM imm=0xdeadbeef, 1 SGE of 64 bytes, signaled, solicited", ring, w, "ctrl", "data");
        count++;

        ctrl = sq.claim(1);
        w.wrap(ring, ctrl).raddr(0x7f00_0000_8000L, RKEY).data(256, LKEY, 0x5500_0000_3000L)
            .ctrl(0, MLX5_OPCODE_RDMA_READ, sq.wqeIndex(), QPN, 0, 0);
        sq.commit(w.ds(), 4);
        dump(out, "RDMA_READ 256 bytes, unsignaled", ring, w, "ctrl", "raddr", "data");
        count++;

        ctrl = sq.claim(1);
        w.wrap(ring, ctrl).raddr(0x7f00_0000_0040L, RKEY).atomicCas(0x2222L, 0x1111L).data(8, LKEY,
            0x5500_0000_4000L).ctrl(0, MLX5_OPCODE_ATOMIC_CS, sq.wqeIndex(), QPN, MLX5_WQE_CTRL_CQ_UPDATE, 0);
        sq.commit(w.ds(), 5);
        dump(out, "ATOMIC_CS compare=0x1111 swap=0x2222, result to 8-byte SGE, signaled", ring, w, "ctrl", "raddr",
            "atomic", "data");
        count++;

        ctrl = sq.claim(2);
        w.wrap(ring, ctrl).datagram((long)0x11111111 << 32, 0x000123, false, DatagramSeg.statRateSlIb(0, 0), 0,
            0x0017, 0L, 0, 0, 0, 0L, 0L).data(128, LKEY, 0x5500_0000_5000L)
            .ctrl(0, MLX5_OPCODE_SEND, sq.wqeIndex(), QPN, MLX5_WQE_CTRL_CQ_UPDATE, 0);
        sq.commit(w.ds(), 6);
        dump(out, "UD SEND over InfiniBand: qkey 0x11111111, dest QPN 0x123, DLID 0x17, no GRH", ring, w, "ctrl",
            "av", "av", "av", "data");
        count++;

        ctrl = sq.claim(2);
        w.wrap(ring, ctrl).datagram((long)0x11111111 << 32, 0x000456, false, DatagramSeg.statRateSlRoce(0, 3), 0,
            0xc000, 0x0c42a1b2c3d4L, 0, 64, DatagramSeg.grhGidFlRoce(3, 0), 0L, 0x0000ffffc0a80102L)
            .data(128, LKEY, 0x5500_0000_6000L)
            .ctrl(0, MLX5_OPCODE_SEND, sq.wqeIndex(), QPN, MLX5_WQE_CTRL_CQ_UPDATE, 0);
        sq.commit(w.ds(), 7);
        dump(out, "UD SEND over RoCE v2: dest QPN 0x456, GID ::ffff:192.168.1.2, MAC 0c:42:a1:b2:c3:d4, " +
            "sgid_index 3, hop_limit 64, UDP sport 0xc000", ring, w, "ctrl", "av", "av", "av", "data");
        count++;

        final MemorySegment rq = MemorySegment.ofArray(new long[64 / 8 * 4]);
        final RecvWqeWriter r = new RecvWqeWriter();
        r.wrap(rq, 0, 64).data(2048, LKEY, 0x5600_0000_0000L).data(2048, LKEY, 0x5600_0000_0800L).finish();
        out.println();
        out.println("RECV, 2 SGEs of 2048 bytes in a 4-SGE stride (terminated by MLX5_INVALID_LKEY)");
        final String[] labels = {"data", "data", "data (terminator)", "(unused)"};
        for (int line = 0; line < 4; line++)
        {
            out.println(hexLine(rq, line * 16L, labels[line]));
        }
        decoded(out, WqeDump.recv(rq, 64));
        count++;
        return count;
    }

    private static void dump(final PrintStream out, final String what, final MemorySegment ring, final WqeWriter w,
        final String... labels)
    {
        out.println();
        out.println(what + "  [ctrl at 0x" + Long.toHexString(w.ctrlOffset()) + ", ds " + w.ds() + ", " +
            w.numWqebb() + " WQEBB]");
        final long mask = ring.byteSize() - 1;
        for (int line = 0; line < w.ds(); line++)
        {
            out.println(hexLine(ring, (w.ctrlOffset() + line * 16L) & mask, line < labels.length ? labels[line] : ""));
        }
        final QpKind kind = Arrays.asList(labels).contains("av") ? QpKind.UD : QpKind.RC;
        decoded(out, WqeDump.sendFromRing(ring, (int)(ring.byteSize() / WqeDump.MLX5_SEND_WQE_BB),
            (int)(w.ctrlOffset() / WqeDump.MLX5_SEND_WQE_BB), kind));
    }

    /** The testkit's decoding of the same bytes (written from mlx5dv.h, not from these encoders), indented. */
    private static void decoded(final PrintStream out, final WqeDump dump)
    {
        dump.text().lines().forEach(l -> out.println("    " + l));
    }

    static String hexLine(final MemorySegment seg, final long offset, final String label)
    {
        final StringBuilder sb = new StringBuilder(80);
        sb.append(String.format("  %04x:", offset));
        for (int i = 0; i < 16; i++)
        {
            sb.append(i == 8 ? "  " : " ").append(String.format("%02x", seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE,
                offset + i) & 0xff));
        }
        return sb.append("  ").append(label).toString();
    }
}
