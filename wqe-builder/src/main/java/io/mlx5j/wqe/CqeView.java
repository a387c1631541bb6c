// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.wqe;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.memory.Be.BE16;
import static io.mlx5j.memory.Be.BE32;
import static io.mlx5j.memory.Be.BE64;
import static io.mlx5j.memory.Be.U8;

/**
 * Reusable read-only view of one CQE in a completion queue buffer (layout: {@link Cqe64}). One instance per CQ,
 * re-pointed by {@link #tryAcquire} for every poll; no object is created per CQE.
 * <p>
 * Ownership follows libmlx5 (rdma-core v44 providers/mlx5/cq.c get_sw_cqe): CQE {@code ci} belongs to software when
 * its opcode is not MLX5_CQE_INVALID and its owner bit equals bit log2(cqe_cnt) of {@code ci}, i.e. the owner bit
 * the device writes flips on every pass over the ring. For 128-byte CQEs every field, including op_own, is read
 * from the second 64 bytes.
 * <p>
 * The raw field accessors never throw and accept any bytes. {@link #status()}, {@link #scatterOffset()} and
 * {@link #scatterLength()} interpret the CQE and throw {@link MalformedCqeException} (and nothing else) when the
 * bytes cannot be a valid completion.
 * <p>
 * <b>Thread confinement:</b> not thread-safe; one view per polling thread. The CQ buffer must only be polled by
 * that thread.
 */
public final class CqeView
{
    private MemorySegment cq;
    private int cqeSize;
    private int cqeMask;
    private int logCqeCnt;
    private long cqe;
    private long cqe64;
    private int opOwn;

    /**
     * Creates an unwrapped view; {@link #wrap} points it at a CQ buffer. Any thread may construct it.
     */
    public CqeView()
    {
    }

    /**
     * Point the view at a CQ buffer. Any thread may call it, but the view then belongs to one polling thread.
     *
     * @param cq       the CQ buffer (mlx5dv_cq.buf), cqeCount * cqeSize bytes
     * @param cqeSize  64 or 128 (mlx5dv_cq.cqe_size)
     * @param cqeCount number of CQEs (mlx5dv_cq.cqe_cnt), a power of two
     * @return this view
     * @throws IllegalArgumentException if {@code cqeSize} is not 64 or 128, or {@code cqeCount} is not a power of two
     *                                 fitting {@code cq}
     * @throws IllegalArgumentException if {@code cqeSize} is not 64 or 128, or {@code cqeCount} is not a power of two
     *                                 fitting {@code cq}
     */
    public CqeView wrap(final MemorySegment cq, final int cqeSize, final int cqeCount)
    {
        if (cqeSize != 64 && cqeSize != 128)
        {
            throw new IllegalArgumentException("CQE size must be 64 or 128: " + cqeSize);
        }
        if (cqeCount < 1 || Integer.bitCount(cqeCount) != 1 || (long)cqeCount * cqeSize > cq.byteSize())
        {
            throw new IllegalArgumentException("cqe_cnt " + cqeCount + " of " + cqeSize +
                " bytes must be a power of two fitting the buffer of " + cq.byteSize());
        }
        this.cq = cq;
        this.cqeSize = cqeSize;
        this.cqeMask = cqeCount - 1;
        this.logCqeCnt = Integer.numberOfTrailingZeros(cqeCount);
        return this;
    }

    /**
     * Point the view at CQE {@code ci} if software owns it.
     *
     * @param ci free-running consumer index
     * @return false if the CQE is still the device's (invalid opcode or owner bit of the previous pass)
     */
    public boolean tryAcquire(final int ci)
    {
        final long at = (long)(ci & cqeMask) * cqeSize;
        final long at64 = at + cqeSize - Cqe64.LENGTH;
        // Acquire: later reads of the CQE body cannot be satisfied before this op_own read (libmlx5 issues
        // udma_from_device_barrier after the ownership check for the same reason).
        final int ownByte = (byte)U8.getAcquire(cq, at64 + Cqe64.OP_OWN_OFFSET) & 0xff;
        if ((ownByte >>> 4) == Cqe64.MLX5_CQE_INVALID
            || (ownByte & Cqe64.MLX5_CQE_OWNER_MASK) != ((ci >>> logCqeCnt) & 1))
        {
            return false;
        }
        this.cqe = at;
        this.cqe64 = at64;
        this.opOwn = ownByte;
        return true;
    }

    /**
     * Point the view at the CQE starting at {@code cqeOffset} without an ownership check (tests, dumps).
     *
     * @param cqeOffset byte offset of the CQE's first byte in the CQ buffer
     * @return this view
     */
    public CqeView at(final long cqeOffset)
    {
        this.cqe = cqeOffset;
        this.cqe64 = cqeOffset + cqeSize - Cqe64.LENGTH;
        this.opOwn = (byte)U8.get(cq, cqe64 + Cqe64.OP_OWN_OFFSET) & 0xff;
        return this;
    }

    /**
     * Byte offset of the current CQE (its first byte) in the CQ buffer.
     *
     * @return the byte offset
     */
    public long cqeOffset()
    {
        return cqe;
    }

    /** {@return op_own: opcode in bits 7..4, then se, format and owner bits} */
    public int opOwn()
    {
        return opOwn;
    }

    /** {@return the CQE opcode ({@code Cqe64.MLX5_CQE_*}), bits 7..4 of op_own (mlx5dv_get_cqe_opcode)} */
    public int opcode()
    {
        return opOwn >>> 4;
    }

    /** {@return the owner bit, bit 0 of op_own (mlx5dv_get_cqe_owner)} */
    public int owner()
    {
        return opOwn & Cqe64.MLX5_CQE_OWNER_MASK;
    }

    /**
     * Solicited event bit (mlx5dv_get_cqe_se).
     *
     * @return 1 if the solicited event bit is set, else 0
     */
    public int se()
    {
        return (opOwn >>> 1) & 1;
    }

    /** {@return bits 3..2 of op_own (mlx5dv_get_cqe_format)} */
    public int format()
    {
        return (opOwn >>> 2) & 3;
    }

    /** {@return whether the CQE carries up to 32 bytes of scattered data ({@code MLX5_INLINE_SCATTER_32})} */
    public boolean inlineScatter32()
    {
        return (opOwn & Cqe64.MLX5_INLINE_SCATTER_32) != 0;
    }

    /** {@return whether the CQE carries up to 64 bytes of scattered data ({@code MLX5_INLINE_SCATTER_64})} */
    public boolean inlineScatter64()
    {
        return (opOwn & Cqe64.MLX5_INLINE_SCATTER_64) != 0;
    }

    /**
     * {@return true for REQ, RESP_* and the two error opcodes: CQEs that complete a WQE (others, e.g. RESIZE_CQ, do
     * not)}
     */
    public boolean isWorkCompletion()
    {
        final int op = opOwn >>> 4;
        return op <= Cqe64.MLX5_CQE_RESP_SEND_INV || op == Cqe64.MLX5_CQE_REQ_ERR || op == Cqe64.MLX5_CQE_RESP_ERR;
    }

    /** {@return whether the opcode is REQ_ERR or RESP_ERR} */
    public boolean isError()
    {
        final int op = opOwn >>> 4;
        return op == Cqe64.MLX5_CQE_REQ_ERR || op == Cqe64.MLX5_CQE_RESP_ERR;
    }

    /** {@return wqe_counter: the index of the WQE this CQE completes} */
    public int wqeCounter()
    {
        return (short)BE16.get(cq, cqe64 + Cqe64.WQE_COUNTER_OFFSET) & 0xffff;
    }

    /** {@return byte_cnt: bytes received (responder CQEs)} */
    public int byteCnt()
    {
        return (int)BE32.get(cq, cqe64 + Cqe64.BYTE_CNT_OFFSET);
    }

    /**
     * Immediate data, invalidated rkey or pkey, as a number (the wire bytes read big-endian).
     *
     * @return imm_inval_pkey read big-endian
     */
    public int immInvalPkey()
    {
        return (int)BE32.get(cq, cqe64 + Cqe64.IMM_INVAL_PKEY_OFFSET);
    }

    /** {@return sop_drop_qpn: the QP number in bits 23..0 (flow tag for raw receive)} */
    public int sopDropQpn()
    {
        return (int)BE32.get(cq, cqe64 + Cqe64.SOP_DROP_QPN_OFFSET);
    }

    /**
     * {@return the CQE's last 8 bytes in one read, big-endian: sop_drop_qpn in bits 63..32, wqe_counter in bits 31..16,
     * signature in bits 15..8, op_own in bits 7..0 (mlx5_cqe64 offsets 0x38..0x3f)} A requester CQE needs only
     * these, so its decode pays one segment access (bounds, alignment and liveness checks) instead of two. Read it
     * after {@link #tryAcquire}, whose acquiring read of op_own orders it, as the separate reads are.
     */
    public long sopDropQpnWqeCounter()
    {
        return (long)BE64.get(cq, cqe64 + Cqe64.SOP_DROP_QPN_OFFSET);
    }

    /**
     * Low 24 bits of sop_drop_qpn.
     *
     * @return the QP number
     */
    public int qpn()
    {
        return sopDropQpn() & 0xffffff;
    }

    /** {@return srqn_uidx (the SRQ number in an error CQE)} */
    public int srqnUidx()
    {
        return (int)BE32.get(cq, cqe64 + Cqe64.SRQN_UIDX_OFFSET);
    }

    /** {@return flags_rqpn: the remote QP number in bits 23..0 and flags above} */
    public int flagsRqpn()
    {
        return (int)BE32.get(cq, cqe64 + Cqe64.FLAGS_RQPN_OFFSET);
    }

    /** {@return slid: the source LID (InfiniBand)} */
    public int slid()
    {
        return (short)BE16.get(cq, cqe64 + Cqe64.SLID_OFFSET) & 0xffff;
    }

    /** {@return the CQE's signature byte} */
    public int signature()
    {
        return (byte)U8.get(cq, cqe64 + Cqe64.SIGNATURE_OFFSET) & 0xff;
    }

    /** {@return the CQE's 64-bit timestamp field} */
    public long timestamp()
    {
        return (long)BE64.get(cq, cqe64 + Cqe64.TIMESTAMP_OFFSET);
    }

    // ---------------------------------------------------------------- Ethernet receive CQEs

    /** {@return hds_ip_ext: the MLX5_CQE_L*_OK bits} */
    public int hdsIpExt()
    {
        return (byte)U8.get(cq, cqe64 + Cqe64.HDS_IP_EXT_OFFSET) & 0xff;
    }

    /** {@return the l4_hdr_type_etc byte (header types, VLAN-stripped bit)} */
    public int l4HdrTypeEtc()
    {
        return (byte)U8.get(cq, cqe64 + Cqe64.L4_HDR_TYPE_ETC_OFFSET) & 0xff;
    }

    /**
     * MLX5_CQE_L3_HDR_TYPE_*: bits 3..2 of l4_hdr_type_etc (libmlx5 get_cqe_l3_hdr_type).
     *
     * @return the L3 header type, 0 to 3
     */
    public int l3HdrType()
    {
        return (l4HdrTypeEtc() >>> 2) & 0x3;
    }

    /**
     * CQE_L4_HDR_TYPE_*: bits 6..4 of l4_hdr_type_etc.
     *
     * @return the L4 header type, 0 to 7
     */
    public int l4HdrType()
    {
        return (l4HdrTypeEtc() >>> 4) & 0x7;
    }

    /**
     * Bit 0 of l4_hdr_type_etc: the device stripped a VLAN tag, whose TCI is {@link #vlanInfo()}.
     *
     * @return whether the device stripped a VLAN tag
     */
    public boolean vlanStripped()
    {
        return (l4HdrTypeEtc() & 1) != 0;
    }

    /** {@return vlan_info: the TCI of a stripped VLAN tag} */
    public int vlanInfo()
    {
        return (short)BE16.get(cq, cqe64 + Cqe64.VLAN_INFO_OFFSET) & 0xffff;
    }

    /**
     * libmlx5's IBV_WC_IP_CSUM_OK test (cq.c get_csum_ok): both the L3 and the L4 OK bits, on an IPv4 packet.
     * libmlx5 applies it only to QPs whose receive checksum is valid (raw packet QPs on a device with
     * IBV_DEVICE_RAW_IP_CSUM).
     *
     * @return whether both checksums of an IPv4 packet were verified
     */
    public boolean ipCsumOk()
    {
        return (hdsIpExt() & (Cqe64.MLX5_CQE_L3_OK | Cqe64.MLX5_CQE_L4_OK)) ==
            (Cqe64.MLX5_CQE_L3_OK | Cqe64.MLX5_CQE_L4_OK) && l3HdrType() == Cqe64.MLX5_CQE_L3_HDR_TYPE_IPV4;
    }

    /**
     * Flow tag of the matching steering rule (libmlx5 mlx5_cq_read_flow_tag).
     *
     * @return the flow tag
     */
    public int flowTag()
    {
        return sopDropQpn() & Cqe64.MLX5_FLOW_TAG_MASK;
    }

    /** {@return rss_hash_result: the receive-side-scaling hash of the packet} */
    public int rssHashResult()
    {
        return (int)BE32.get(cq, cqe64 + Cqe64.RSS_HASH_RESULT_OFFSET);
    }

    /** {@return rss_hash_type: which fields fed the RSS hash} */
    public int rssHashType()
    {
        return (byte)U8.get(cq, cqe64 + Cqe64.RSS_HASH_TYPE_OFFSET) & 0xff;
    }

    /** {@return check_sum: the 16-bit checksum field} */
    public int checkSum()
    {
        return (short)BE16.get(cq, cqe64 + Cqe64.CHECK_SUM_OFFSET) & 0xffff;
    }

    /**
     * Striding RQ: the WQE the packet landed in (wqe_id).
     *
     * @return the striding WQE index
     */
    public int wqeId()
    {
        return (short)BE16.get(cq, cqe64 + Cqe64.WQE_ID_OFFSET) & 0xffff;
    }

    /**
     * Striding RQ: the first stride of the packet in its WQE (wqe_counter).
     *
     * @return the first stride's index
     */
    public int strideIndex()
    {
        return wqeCounter();
    }

    /**
     * Striding RQ: strides the packet (or the filler) consumed.
     *
     * @return the number of strides consumed
     */
    public int consumedStrides()
    {
        return (byteCnt() & Cqe64.MPRQ_STRIDE_NUM_MASK) >>> Cqe64.MPRQ_STRIDE_NUM_SHIFT;
    }

    /**
     * Striding RQ: a filler CQE, which only consumes the rest of a WQE; it carries no packet.
     *
     * @return whether this is a filler CQE
     */
    public boolean filler()
    {
        return (byteCnt() & Cqe64.MPRQ_FILLER_MASK) != 0;
    }

    /**
     * Striding RQ: the packet length (low 16 bits of byte_cnt).
     *
     * @return the packet length in bytes
     */
    public int strideByteCnt()
    {
        return byteCnt() & Cqe64.MPRQ_LEN_MASK;
    }

    /**
     * Error CQEs only: syndrome (struct mlx5_err_cqe).
     *
     * @return the syndrome byte
     */
    public int syndrome()
    {
        return (byte)U8.get(cq, cqe64 + Cqe64.SYNDROME_OFFSET) & 0xff;
    }

    /**
     * Error CQEs only: vendor_err_synd.
     *
     * @return the vendor syndrome byte
     */
    public int vendorSyndrome()
    {
        return (byte)U8.get(cq, cqe64 + Cqe64.VENDOR_ERR_SYND_OFFSET) & 0xff;
    }

    /**
     * Work completion status: SUCCESS for REQ and RESP_* CQEs, the libmlx5 syndrome mapping for REQ_ERR/RESP_ERR.
     *
     * @throws MalformedCqeException for any other opcode (not a work completion)
     * @return the status of the completed work request
     */
    public WcStatus status()
    {
        final int op = opOwn >>> 4;
        if (op <= Cqe64.MLX5_CQE_RESP_SEND_INV)
        {
            return WcStatus.SUCCESS;
        }
        if (op == Cqe64.MLX5_CQE_REQ_ERR || op == Cqe64.MLX5_CQE_RESP_ERR)
        {
            return WcStatus.fromSyndrome(syndrome());
        }
        throw new MalformedCqeException("CQE opcode " + op + " is not a work completion (op_own 0x" +
            Integer.toHexString(opOwn) + ")");
    }

    /**
     * Where scatter-to-CQE data sits: the cqe64 itself for MLX5_INLINE_SCATTER_32, the first half of a 128-byte
     * CQE for MLX5_INLINE_SCATTER_64 (libmlx5 cq.c passes {@code cqe} resp. {@code cqe - 1}). Only REQ and RESP_*
     * CQEs can carry it; for those the poller copies {@link #scatterLength()} bytes from here into the buffer of
     * the WQE's first SGE.
     *
     * @return byte offset in the CQ buffer, or -1 if the CQE carries no scattered data
     * @throws MalformedCqeException if MLX5_INLINE_SCATTER_64 is set in a 64-byte CQE
     */
    public long scatterOffset()
    {
        if ((opOwn >>> 4) > Cqe64.MLX5_CQE_RESP_SEND_INV)
        {
            return -1;
        }
        if ((opOwn & Cqe64.MLX5_INLINE_SCATTER_32) != 0)
        {
            return cqe64;
        }
        if ((opOwn & Cqe64.MLX5_INLINE_SCATTER_64) != 0)
        {
            if (cqeSize != 128)
            {
                throw new MalformedCqeException("MLX5_INLINE_SCATTER_64 in a 64-byte CQE");
            }
            return cqe;
        }
        return -1;
    }

    /**
     * Bytes of scattered data: byte_cnt, checked against the area (32 or 64 bytes).
     *
     * @return 0 if the CQE carries no scattered data
     * @throws MalformedCqeException if byte_cnt exceeds the scatter area, or see {@link #scatterOffset()}
     */
    public int scatterLength()
    {
        final long off = scatterOffset();
        if (off < 0)
        {
            return 0;
        }
        final int limit = (opOwn & Cqe64.MLX5_INLINE_SCATTER_32) != 0 ? 32 : 64;
        final int n = byteCnt();
        if (n < 0 || n > limit)
        {
            throw new MalformedCqeException("scatter-to-CQE byte_cnt " + Integer.toUnsignedString(n) +
                " exceeds the " + limit + "-byte area");
        }
        return n;
    }
}
