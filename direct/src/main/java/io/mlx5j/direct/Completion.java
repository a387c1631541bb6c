// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.wqe.WcStatus;

/**
 * One decoded completion: a reusable view that {@link CqPoller#poll(Completion)} overwrites, field for field what
 * libmlx5's {@code ibv_poll_cq} puts into a zeroed {@code struct ibv_wc} for the same CQE (rdma-core v44
 * providers/mlx5/cq.c mlx5_parse_cqe, handle_good_req, handle_responder). Fields libmlx5 does not set for a kind of
 * completion (for example byte_len of a successful SEND, or opcode of an error) read 0 here.
 * <p>
 * Not thread-safe; owned by the thread that polls.
 */
public final class Completion
{
    long wrId;
    int status;
    int opcode;
    int vendorErr;
    int syndrome;
    int byteLen;
    int immOrInv;
    int qpn;
    int srcQp;
    int wcFlags;
    int pkeyIndex;
    int slid;
    int sl;
    int dlidPathBits;
    long timestamp;
    // receives of RAW_PACKET QPs (0 otherwise)
    int flowTag;
    int cvlan;
    int l4HdrTypeEtc;
    int rssHash;
    int rssHashType;
    long frameAddress;
    int hdsIpExt;
    int checkSum;
    boolean compressed;
    // receives of striding WQs (0 otherwise)
    int strideIndex;
    int strideCount;
    int releasedWqes;

    /**
     * False while only the fields a successful requester completion sets (wr_id, status, opcode, byte_len, wc_flags,
     * qp_num, timestamp) can be non-zero: the requester decode then writes those seven and skips the {@link #clear()}
     * of the other nineteen. Every other decode clears and sets it.
     */
    boolean wide = true;

    /** An empty view (every field 0), for {@link CqPoller#poll(Completion)} to fill. Any thread may create it. */
    public Completion()
    {
    }

    /** Resets every field, as libmlx5's poll would see a zeroed ibv_wc. */
    void clear()
    {
        wide = false;
        wrId = 0;
        status = 0;
        opcode = 0;
        vendorErr = 0;
        syndrome = 0;
        byteLen = 0;
        immOrInv = 0;
        qpn = 0;
        srcQp = 0;
        wcFlags = 0;
        pkeyIndex = 0;
        slid = 0;
        sl = 0;
        dlidPathBits = 0;
        timestamp = 0;
        flowTag = 0;
        cvlan = 0;
        l4HdrTypeEtc = 0;
        rssHash = 0;
        rssHashType = 0;
        frameAddress = 0;
        hdsIpExt = 0;
        checkSum = 0;
        compressed = false;
        strideIndex = 0;
        strideCount = 0;
        releasedWqes = 0;
    }

    /**
     * A raw receive (CqPoller's fast path for a RESP_SEND CQE of a raw QP or WQ): every field handle_responder and
     * the Ethernet readers fill, from mlx5_cqe64's big-endian words at 0x10 (rss_hash_type, ml_path, reserved,
     * check_sum, slid) and 0x18 (flags_rqpn, hds_ip_ext, l4_hdr_type_etc, vlan_info) and its 4- and 8-byte fields;
     * the rest zeroed, as {@link #clear()} would. wr_id is the caller's.
     */
    void rawFrame(final long w10, final long w18, final int csumFlag, final int immInvalPkey, final int byteCnt,
        final long ts, final int sopDropQpn, final int rssHashResult, final long frame)
    {
        final int flagsRqpn = (int)(w18 >>> 32);
        wide = true;
        status = 0;
        opcode = WcOpcode.RECV;
        vendorErr = 0;
        syndrome = 0;
        byteLen = byteCnt;
        immOrInv = 0;
        qpn = sopDropQpn & 0xffffff;
        srcQp = flagsRqpn & 0xffffff;
        wcFlags = ((flagsRqpn >>> 28) & 3) != 0 ? csumFlag | WcOpcode.WC_GRH : csumFlag;
        pkeyIndex = immInvalPkey & 0xffff;
        slid = (int)w10 & 0xffff;
        sl = (flagsRqpn >>> 24) & 0xf;
        dlidPathBits = (int)(w10 >>> 48) & 0x7f;
        timestamp = ts;
        flowTag = sopDropQpn & io.mlx5j.wqe.Cqe64.MLX5_FLOW_TAG_MASK;
        cvlan = (int)w18 & 0xffff;
        l4HdrTypeEtc = (int)(w18 >>> 16) & 0xff;
        hdsIpExt = (int)(w18 >>> 24) & 0xff;
        rssHash = rssHashResult;
        rssHashType = (int)(w10 >>> 56) & 0xff;
        checkSum = (int)(w10 >>> 16) & 0xffff;
        compressed = false;
        frameAddress = frame;
        strideIndex = 0;
        strideCount = 0;
        releasedWqes = 0;
    }

    /** {@return the wr_id given when the WQE was posted} */
    public long wrId()
    {
        return wrId;
    }

    /**
     * Status as the ibv_wc_status enum (no allocation: enum constants).
     *
     * @return the status
     */
    public WcStatus status()
    {
        return WC_STATUS[status];
    }

    /** {@return ibv_wc_status number} */
    public int statusCode()
    {
        return status;
    }

    /** {@return whether the status is SUCCESS} */
    public boolean isSuccess()
    {
        return status == 0;
    }

    /** {@return {@link WcOpcode} / ibv_wc_opcode number; 0 for error completions (libmlx5 leaves it unset)} */
    public int opcode()
    {
        return opcode;
    }

    /** {@return vendor_err: the error CQE's vendor syndrome (0 on success)} */
    public int vendorSyndrome()
    {
        return vendorErr;
    }

    /** {@return the error CQE's mlx5 syndrome byte (not part of ibv_wc; 0 on success)} */
    public int syndrome()
    {
        return syndrome;
    }

    /** {@return byte_len: received bytes, RDMA READ length, 8 for atomics; 0 where libmlx5 does not set it} */
    public int byteLen()
    {
        return byteLen;
    }

    /**
     * Immediate data as a number (the 4 wire bytes read big-endian: what the sender passed as {@code imm}); valid when
     * {@link #wcFlags()} has {@link WcOpcode#WC_WITH_IMM}. libibverbs' imm_data holds the same bytes in network order.
     *
     * @return the immediate data, or 0
     */
    public int imm()
    {
        return (wcFlags & WcOpcode.WC_WITH_IMM) != 0 ? immOrInv : 0;
    }

    /**
     * {@return the rkey a SEND_WITH_INV invalidated; valid when {@link #wcFlags()} has {@link WcOpcode#WC_WITH_INV}}
     */
    public int invalidatedRkey()
    {
        return (wcFlags & WcOpcode.WC_WITH_INV) != 0 ? immOrInv : 0;
    }

    /** {@return qp_num: the local QP the completion belongs to} */
    public int qpn()
    {
        return qpn;
    }

    /** {@return src_qp: the remote QP of a receive (UD: the sender)} */
    public int srcQp()
    {
        return srcQp;
    }

    /** {@return wc_flags: OR of {@link WcOpcode#WC_GRH}, {@link WcOpcode#WC_WITH_IMM}, {@link WcOpcode#WC_WITH_INV}} */
    public int wcFlags()
    {
        return wcFlags;
    }

    /** {@return pkey_index: the P_Key index of a UD receive, as libmlx5 reports it} */
    public int pkeyIndex()
    {
        return pkeyIndex;
    }

    /** {@return slid: the source LID of a UD receive} */
    public int slid()
    {
        return slid;
    }

    /** {@return sl: the service level of a UD receive} */
    public int sl()
    {
        return sl;
    }

    /** {@return dlid_path_bits of a UD receive} */
    public int dlidPathBits()
    {
        return dlidPathBits;
    }

    /**
     * The CQE's completion timestamp in device clock ticks, for receives and sends alike (libmlx5
     * mlx5_cq_read_wc_completion_ts: the timestamp field, whatever the CQ was created with). A receive is stamped when
     * the message arrived; a send when it left the port (UD, UC, raw packet) or, on RC, when its acknowledgement
     * completed it; error completions carry none (0). {@link io.mlx5j.raw.NicClock#toNanos(long)} turns it into
     * nanoseconds since the epoch; two hosts' values compare only as well as PTP keeps their NIC clocks together.
     *
     * @return device clock ticks, or 0 for an error completion
     */
    public long timestamp()
    {
        return timestamp;
    }

    /**
     * Raw receives: the tag of the flow rule that steered the frame (0: a rule without a tag).
     *
     * @return the flow tag
     */
    public int flowTag()
    {
        return flowTag;
    }

    /**
     * Raw receives: the TCI of the VLAN tag the NIC stripped (with VLAN stripping on), as ibv_wc_read_cvlan.
     *
     * @return the TCI
     */
    public int cvlan()
    {
        return cvlan;
    }

    /**
     * Raw receives: the hds_ip_ext byte of the CQE (MLX5_CQE_L2_OK 1, L3_OK 2, L4_OK 4).
     *
     * @return the byte
     */
    public int hdsIpExt()
    {
        return hdsIpExt;
    }

    /**
     * Raw receives: the NIC stripped a VLAN tag ({@link #cvlan()} holds it).
     *
     * @return whether a tag was stripped
     */
    public boolean vlanStripped()
    {
        return (l4HdrTypeEtc & 1) != 0;
    }

    /**
     * Raw receives: MLX5_CQE_L3_HDR_TYPE_* (0 none, 1 IPv6, 2 IPv4).
     *
     * @return the L3 header type
     */
    public int l3Type()
    {
        return (l4HdrTypeEtc >>> 2) & 0x3;
    }

    /**
     * Raw receives: CQE_L4_HDR_TYPE_* (0 none, 1 TCP, 2 UDP, 3/4 TCP with ACK).
     *
     * @return the L4 header type
     */
    public int l4Type()
    {
        return (l4HdrTypeEtc >>> 4) & 0x7;
    }

    /**
     * Raw receives: the IPv4 header and TCP/UDP checksums were verified good (IBV_WC_IP_CSUM_OK).
     *
     * @return whether both checksums were good
     */
    public boolean ipCsumOk()
    {
        return (wcFlags & WcOpcode.WC_IP_CSUM_OK) != 0;
    }

    /**
     * Raw receives on RSS QPs: the Toeplitz hash the NIC computed.
     *
     * @return the hash
     */
    public int rssHash()
    {
        return rssHash;
    }

    /** {@return raw receives on RSS QPs: the CQE's rss_hash_type byte} */
    public int rssHashType()
    {
        return rssHashType;
    }

    /**
     * Raw receives decoded on the fast path (plain frames of a raw QP or WQ, striding frames): the CQE's check_sum
     * (Linux mlx5_cqe64), the 16-bit one's complement sum, not complemented, of the frame after its Ethernet header,
     * as Linux hands it to the stack for CHECKSUM_COMPLETE. 0 where the CQE carries none: a compressed completion in
     * the HASH format, scatter-to-CQE frames. libmlx5 does not report it.
     *
     * @return the checksum, 0 if none
     */
    public int checkSum()
    {
        return checkSum;
    }

    /**
     * The completion came from a mini-CQE of a compressed block (a CQ created with CQE compression, see
     * {@link io.mlx5j.verbs.Context#createCompressedCq}): its timestamp is the block's title's.
     *
     * @return whether it was compressed
     */
    public boolean compressed()
    {
        return compressed;
    }

    /**
     * Raw receives: address of the frame's first byte, in the buffer the receive WQE named ({@link #byteLen()} bytes
     * long; for a striding WQ at {@link #strideIndex()} strides into the WQE's buffer, plus 2 with the two-byte
     * shift): a view of the receive buffer, read it in place (no copy was made).
     *
     * @return the address
     */
    public long frameAddress()
    {
        return frameAddress;
    }

    /**
     * Raw receives (QPs and WQs): the NIC verified both the L3 and the L4 checksum of an IPv4 or IPv6 frame (the
     * CQE's MLX5_CQE_L3_OK and MLX5_CQE_L4_OK bits, with an L3 header type). Unlike {@link #ipCsumOk()} this is
     * reported for WQ receives too, where libmlx5 never sets IBV_WC_IP_CSUM_OK (cq.c handle_responder only does so
     * for QPs with MLX5_RX_CSUM_VALID), and for IPv6.
     *
     * @return whether both checksums were verified good
     */
    public boolean checksumsOk()
    {
        return (hdsIpExt & 6) == 6 && l3Type() != 0;
    }

    /**
     * Striding WQs: the first stride of the frame in its WQE's buffer (the CQE's wqe_counter).
     *
     * @return the stride index
     */
    public int strideIndex()
    {
        return strideIndex;
    }

    /**
     * Striding WQs: how many strides the frame used (byte_cnt bits 29..16).
     *
     * @return the number of strides
     */
    public int strideCount()
    {
        return strideCount;
    }

    /**
     * Striding WQs: how many WQEs were released (all strides consumed) by this completion and by the filler CQEs
     * consumed just before it, oldest first. A recycling {@link io.mlx5j.raw.StridingRecvQueue} has already posted them
     * again.
     *
     * @return the number of WQEs
     */
    public int releasedWqes()
    {
        return releasedWqes;
    }

    private static final WcStatus[] WC_STATUS = WcStatus.values();

    @Override
    public String toString()
    {
        return "Completion(wr_id 0x" + Long.toHexString(wrId) + ", " + status() + ", opcode " + opcode +
            ", byte_len " + byteLen + ", qpn 0x" + Integer.toHexString(qpn) +
            ", src_qp 0x" + Integer.toHexString(srcQp) + ", flags 0x" + Integer.toHexString(wcFlags) +
            ", imm/inv 0x" + Integer.toHexString(immOrInv) + ", vendor_err 0x" + Integer.toHexString(vendorErr) + ")";
    }
}
