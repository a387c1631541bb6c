// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import java.util.Arrays;

/**
 * One send work request, in the terms of libibverbs' struct ibv_send_wr (verbs.h): opcode IBV_WR_*, send_flags
 * IBV_SEND_*, a gather list, and the opcode's fields (remote address and rkey, immediate or invalidate rkey, atomic
 * operands, UD destination). {@link Libmlx5Oracle} posts it through libmlx5; the same object tells an encoder under
 * test what to encode. Built with the static factories and the fluent setters; immutable once built is not promised
 * (it is test input).
 *
 * <p>Thread model: mutable, not thread-safe; build and post it on one thread.
 */
public final class WorkRequest
{
    /** enum ibv_wr_opcode (verbs.h). */
    public static final int IBV_WR_RDMA_WRITE = 0;
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM} from rdma-core's {@code infiniband/verbs.h}. */
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    /** {@code IBV_WR_SEND} from rdma-core's {@code infiniband/verbs.h}. */
    public static final int IBV_WR_SEND = 2;
    /** {@code IBV_WR_SEND_WITH_IMM} from rdma-core's {@code infiniband/verbs.h}. */
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    /** {@code IBV_WR_RDMA_READ} from rdma-core's {@code infiniband/verbs.h}. */
    public static final int IBV_WR_RDMA_READ = 4;
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP} from rdma-core's {@code infiniband/verbs.h}. */
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD} from rdma-core's {@code infiniband/verbs.h}. */
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    /** {@code IBV_WR_SEND_WITH_INV} from rdma-core's {@code infiniband/verbs.h}. */
    public static final int IBV_WR_SEND_WITH_INV = 9;
    /** enum ibv_send_flags (verbs.h). */
    public static final int IBV_SEND_FENCE = 1;
    /** {@code IBV_SEND_SIGNALED} from rdma-core's {@code infiniband/verbs.h}. */
    public static final int IBV_SEND_SIGNALED = 1 << 1;
    /** {@code IBV_SEND_SOLICITED} from rdma-core's {@code infiniband/verbs.h}. */
    public static final int IBV_SEND_SOLICITED = 1 << 2;
    /** {@code IBV_SEND_INLINE} from rdma-core's {@code infiniband/verbs.h}. */
    public static final int IBV_SEND_INLINE = 1 << 3;
    /**
     * Checksum offload of a raw Ethernet frame (raw packet QPs on a device with IBV_DEVICE_RAW_IP_CSUM): libmlx5 sets
     * the Ethernet segment's cs_flags to MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM.
     */
    public static final int IBV_SEND_IP_CSUM = 1 << 4;

    final int opcode;
    int sendFlags;
    long[] addr = new long[0];
    int[] length = new int[0];
    int[] lkey = new int[0];
    long remoteAddr;
    int rkey;
    int immData;
    long compareAdd;
    long swap;
    long wrId;
    int remoteQpn;
    int remoteQkey;

    private WorkRequest(final int opcode)
    {
        this.opcode = opcode;
    }

    /**
     * A work request of opcode IBV_WR_* ({@link #IBV_WR_SEND}, ...).
     *
     * @param ibvWrOpcode an {@code IBV_WR_*} opcode
     * @return the work request
     * @throws IllegalArgumentException if the oracle does not post that opcode
     */
    public static WorkRequest of(final int ibvWrOpcode)
    {
        return switch (ibvWrOpcode)
        {
            case IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_READ,
                IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_SEND_WITH_INV ->
                new WorkRequest(ibvWrOpcode);
            default -> throw new IllegalArgumentException("opcode " + ibvWrOpcode + " is not one the oracle posts"
                + " (RDMA_WRITE[_WITH_IMM], SEND[_WITH_IMM|_WITH_INV], RDMA_READ, ATOMIC_CMP_AND_SWP,"
                + " ATOMIC_FETCH_AND_ADD)");
        };
    }

    /**
     * A SEND ({@code IBV_WR_SEND}).
     *
     * @return the work request
     */
    public static WorkRequest send()
    {
        return new WorkRequest(IBV_WR_SEND);
    }

    /**
     * An RDMA WRITE ({@code IBV_WR_RDMA_WRITE}) to {@code remoteAddr}.
     *
     * @param remoteAddr the remote address
     * @param rkey the remote key
     * @return the work request
     */
    public static WorkRequest rdmaWrite(final long remoteAddr, final int rkey)
    {
        return new WorkRequest(IBV_WR_RDMA_WRITE).remote(remoteAddr, rkey);
    }

    /**
     * send_flags, IBV_SEND_* ({@link #IBV_SEND_SIGNALED} | ...).
     *
     * @param ibvSendFlags OR of {@code IBV_SEND_*}
     * @return this work request
     */
    public WorkRequest flags(final int ibvSendFlags)
    {
        this.sendFlags = ibvSendFlags;
        return this;
    }

    /**
     * Appends a gather entry (ibv_sge). With IBV_SEND_INLINE the bytes at {@code addr} are read when posting.
     *
     * @param addr the entry's address
     * @param length the entry's length
     * @param lkey the entry's lkey
     * @return this work request
     */
    public WorkRequest sge(final long addr, final int length, final int lkey)
    {
        this.addr = Arrays.copyOf(this.addr, this.addr.length + 1);
        this.length = Arrays.copyOf(this.length, this.length.length + 1);
        this.lkey = Arrays.copyOf(this.lkey, this.lkey.length + 1);
        this.addr[this.addr.length - 1] = addr;
        this.length[this.length.length - 1] = length;
        this.lkey[this.lkey.length - 1] = lkey;
        return this;
    }

    /**
     * wr.rdma.remote_addr / rkey, or wr.atomic.remote_addr / rkey.
     *
     * @param remoteAddr the remote address
     * @param rkey the remote key
     * @return this work request
     */
    public WorkRequest remote(final long remoteAddr, final int rkey)
    {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }

    /**
     * imm_data (host order here; the WQE carries it big-endian) or, for SEND_WITH_INV, invalidate_rkey.
     *
     * @param immOrInvalidateRkey the immediate data, or the rkey to invalidate
     * @return this work request
     */
    public WorkRequest imm(final int immOrInvalidateRkey)
    {
        this.immData = immOrInvalidateRkey;
        return this;
    }

    /**
     * wr.atomic.compare_add and swap.
     *
     * @param compareAdd compare (CAS) or add (FAA) value
     * @param swap the swap value
     * @return this work request
     */
    public WorkRequest atomic(final long compareAdd, final long swap)
    {
        this.compareAdd = compareAdd;
        this.swap = swap;
        return this;
    }

    /**
     * Sets wr_id.
     *
     * @param wrId the work request id
     * @return this work request
     */
    public WorkRequest wrId(final long wrId)
    {
        this.wrId = wrId;
        return this;
    }

    /**
     * wr.ud.remote_qpn / remote_qkey; the address handle is the oracle's (its own port).
     *
     * @param remoteQpn the destination QP number
     * @param remoteQkey the destination Q_Key
     * @return this work request
     */
    public WorkRequest ud(final int remoteQpn, final int remoteQkey)
    {
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    /** {@return the {@code IBV_WR_*} opcode} */
    public int opcode()
    {
        return opcode;
    }

    /** {@return the {@code IBV_SEND_*} flags} */
    public int sendFlags()
    {
        return sendFlags;
    }

    boolean inline()
    {
        return (sendFlags & IBV_SEND_INLINE) != 0;
    }

    boolean atomicOp()
    {
        return opcode == IBV_WR_ATOMIC_CMP_AND_SWP || opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
    }

    boolean hasImm()
    {
        return opcode == IBV_WR_SEND_WITH_IMM || opcode == IBV_WR_RDMA_WRITE_WITH_IMM || opcode == IBV_WR_SEND_WITH_INV;
    }

    @Override
    public String toString()
    {
        return "WorkRequest(opcode " + opcode + ", send_flags 0x" + Integer.toHexString(sendFlags) + ", sge lengths "
            + Arrays.toString(length) + ", wr_id " + wrId + ")";
    }
}
