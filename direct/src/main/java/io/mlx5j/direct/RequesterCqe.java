// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.memory.AddressSpace;
import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;
import io.mlx5j.wqe.Cqe64;
import io.mlx5j.wqe.CqeView;
import io.mlx5j.wqe.Mlx5Opcode;

/**
 * A successful requester CQE (MLX5_CQE_REQ), as rdma-core v44 providers/mlx5/cq.c handle_good_req decodes it: the
 * send WQE it names by wqe_counter and every earlier unsignaled one retire; the WC opcode and byte_len come from the
 * WQE opcode the CQE echoes; the timestamp is the one the device wrote (the emulator: when the send left; RC when its
 * ACK came). The common CQE of a poll loop, so it reads the ring by address ({@link RingStores}, after the poll
 * call's one liveness check) and is small enough to inline into {@link CqPoller#poll(Completion)}.
 */
final class RequesterCqe
{
    private RequesterCqe()
    {
    }

    /**
     * Decodes the CQE whose mlx5_cqe64 part is at address {@code cqe64} into {@code c}.
     *
     * @return true for a completion, false if the CQE was consumed as an orphan or an unexpected one
     */
    static boolean decode(final CqPoller p, final Completion c, final long cqe64, final int opOwn)
    {
        // sop_drop_qpn, wqe_counter, signature and op_own in one read (mlx5_cqe64 0x38..0x3f)
        final long tail = RingStores.getLongBE(cqe64 + Cqe64.SOP_DROP_QPN_OFFSET);
        final int sopDropQpn = (int)(tail >>> 32);
        final int qpn = sopDropQpn & 0xffffff;
        final int wqeOpcode = sopDropQpn >>> 24;
        final SendQueue sq = p.queues.send(qpn);
        if (sq == null)
        {
            return p.unclaimedSend(qpn);
        }
        if (c.wide)
        {
            c.clear();
        }
        else
        {
            // only these (and wr_id and timestamp, written below) can hold a previous completion's values
            c.status = 0;
            c.byteLen = 0;
            c.wcFlags = 0;
        }
        c.qpn = qpn;
        // the send's timestamp, as libmlx5's ibv_wc_read_completion_ts reads it from any CQE (cq.c
        // mlx5_cq_read_wc_completion_ts: be64toh(cqe64->timestamp)); the NIC writes it whether or not the CQ asked
        c.timestamp = RingStores.getLongBE(cqe64 + Cqe64.TIMESTAMP_OFFSET);
        opcode(c, wqeOpcode);
        final int wqeCounter = ((int)tail >>> 16) & 0xffff;
        if (wqeOpcode == Mlx5Opcode.MLX5_OPCODE_RDMA_READ)
        {
            c.byteLen = (int)Be.BE32.get(AddressSpace.ALL, cqe64 + Cqe64.BYTE_CNT_OFFSET);
        }
        else if (wqeOpcode == Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_CS ||
            wqeOpcode == Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_FA)
        {
            c.byteLen = sq.atomicBytes(wqeCounter);
        }
        // Requester scatter-to-CQE data starts at the CQE entry itself, for either flag: libmlx5 (mlx5_parse_cqe,
        // MLX5_CQE_REQ) copies SCATTER_32 data from the entry start, not from the mlx5_cqe64 part as its responder
        // path does; with 64-byte CQEs the two are the same address. (For SCATTER_64 libmlx5 v44 passes "cqe - 1" on
        // a void pointer, one byte before the entry: a bug not copied here.)
        if ((opOwn & (Cqe64.MLX5_INLINE_SCATTER_32 | Cqe64.MLX5_INLINE_SCATTER_64)) != 0)
        {
            final CqeView v = p.view.at(cqe64 - p.bufBase - p.cqeSize + Cqe64.LENGTH);
            if (v.scatterOffset() >= 0)
            {
                c.status = sq.copyToSendWqe(wqeCounter, p.buf, v.cqeOffset(), c.byteLen).code();
            }
        }
        c.wrId = sq.complete(wqeCounter);
        return true;
    }

    /** handle_good_req: the WC opcode (and byte_len of the atomics) from the WQE opcode. */
    private static void opcode(final Completion c, final int wqeOpcode)
    {
        switch (wqeOpcode)
        {
            case Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE_IMM ->
            {
                c.wcFlags |= WcOpcode.WC_WITH_IMM;
                c.opcode = WcOpcode.RDMA_WRITE;
            }
            case Mlx5Opcode.MLX5_OPCODE_RDMA_WRITE -> c.opcode = WcOpcode.RDMA_WRITE;
            case Mlx5Opcode.MLX5_OPCODE_SEND_IMM ->
            {
                c.wcFlags |= WcOpcode.WC_WITH_IMM;
                c.opcode = WcOpcode.SEND;
            }
            case Mlx5Opcode.MLX5_OPCODE_SEND, Mlx5Opcode.MLX5_OPCODE_SEND_INVAL -> c.opcode = WcOpcode.SEND;
            case Mlx5Opcode.MLX5_OPCODE_RDMA_READ -> c.opcode = WcOpcode.RDMA_READ;
            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_CS ->
            {
                c.opcode = WcOpcode.COMP_SWAP;
                c.byteLen = 8;
            }
            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_FA ->
            {
                c.opcode = WcOpcode.FETCH_ADD;
                c.byteLen = 8;
            }
            // libmlx5 has no case for the masked atomics (its verbs cannot post them); mlx5j reports them like
            // their plain forms
            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_CS -> c.opcode = WcOpcode.COMP_SWAP;
            case Mlx5Opcode.MLX5_OPCODE_ATOMIC_MASKED_FA -> c.opcode = WcOpcode.FETCH_ADD;
            default -> c.opcode = WcOpcode.SEND; // NOP: libmlx5 reports wr_data, 0 (IBV_WC_SEND)
        }
    }
}
