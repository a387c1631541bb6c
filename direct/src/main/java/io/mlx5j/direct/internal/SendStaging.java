// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import io.mlx5j.direct.SendFlags;
import io.mlx5j.memory.AddressSpace;
import io.mlx5j.memory.Be;
import io.mlx5j.memory.RingStores;
import io.mlx5j.verbs.AddressHandle;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import io.mlx5j.wqe.DataSeg;
import io.mlx5j.wqe.DatagramSeg;
import io.mlx5j.wqe.Mlx5Opcode;
import io.mlx5j.wqe.RaddrSeg;
import io.mlx5j.wqe.WqeWriter;
import io.mlx5j.wqe.XrcSeg;

import java.lang.foreign.MemorySegment;

import static io.mlx5j.direct.internal.SendOpcodeRules.CAS;
import static io.mlx5j.direct.internal.SendOpcodeRules.FAA;
import static io.mlx5j.direct.internal.SendOpcodeRules.MASKED_CAS_32;
import static io.mlx5j.direct.internal.SendOpcodeRules.MASKED_CAS_64;
import static io.mlx5j.direct.internal.SendOpcodeRules.MASKED_FAA_32;
import static io.mlx5j.direct.internal.SendOpcodeRules.MASKED_FAA_64;
import static io.mlx5j.direct.internal.SendOpcodeRules.NO_OPERANDS;
import static io.mlx5j.wqe.Mlx5Opcode.MLX5_OPCODE_NOP;

/**
 * The one work request a {@link io.mlx5j.direct.SendQueue} is staging ({@code begin ... remote / imm / operands /
 * destination / sge ... post}): its fields in primitives and reused arrays, so staging allocates nothing, then its size
 * in 16-byte units ({@link #validate}) and its segments after the ctrl segment ({@link #write}), as libmlx5's
 * _mlx5_post_send lays them out (rdma-core v44 providers/mlx5/qp.c): datagram (UD, DCI), raddr, atomic, then the data
 * segments or one inline segment. Confined to the queue's thread.
 */
public final class SendStaging
{
    /** Inline payloads are read now, from this process's memory: addresses below this are refused, not read. */
    public static final long NULL_PAGE = 4096;

    private final QueuePair qp;
    private final QpType type;
    private final int maxInline;
    private final MemorySegment inlineScratch;
    /** Entries of the WR being staged. */
    private final ScatterList sgl;

    /** Whether a WR is staged. */
    public boolean staged;
    /** The staged WR's id. */
    public long wrId;
    /** The staged WR's MLX5 opcode. */
    public int opcode;
    /** The staged WR's send flags. */
    public int flags;
    /** The staged WR's immediate data or invalidate rkey. */
    public int imm;
    private boolean remote;
    private long raddr;
    private int rkey;
    private int operands;
    private long a0;
    private long a1;
    private long a2;
    private long a3;
    private MemorySegment av;
    private int remoteQpn;
    private int qkey;
    /** Whether the staged destination is a DC target (dcDestination) rather than a UD one (destination). */
    private boolean dc;
    private long dcKey;
    /** Inline payload bytes of the validated WR. */
    private int inlineBytes;
    /** XRC_SEND: every WQE but NOP carries the XRC segment. */
    private final boolean xrc;
    /** UD and DCI: every WQE but NOP carries the datagram segment. */
    private final boolean datagram;
    /** XRC_SEND: the remote XRC SRQ number the next WQEs name; -1 until set. */
    public int xrcSrqn = -1;

    // UD: the last address handle's AV, so a post does not go through AddressHandle.av()'s lock
    private AddressHandle lastAh;
    private MemorySegment lastAv;
    // the last AH's address vector, decoded once per AH change (an AH's vector never changes): a post re-encodes
    // these primitives instead of reading the AV segment field by field
    private long avKeyLo;
    private int avDqpDct;
    private int avStatRateSl;
    private int avFlMlid;
    private int avRlid;
    private long avRmac;
    private int avTclass;
    private int avHopLimit;
    private int avGrhGidFl;
    private long avRgidHi;
    private long avRgidLo;
    // the same vector as the segment's big-endian words (DatagramSeg.word8/16/24), for writeAt: word8 without the
    // destination number, which a post ORs in
    private long avWord8;
    private long avWord16;
    private long avWord24;

    /**
     * Staging for one send queue; confined to its posting thread.
     *
     * @param qp the QP
     * @param maxSge gather entries per WQE the QP was granted
     * @param maxInline inline bytes per WQE the QP was granted
     */
    public SendStaging(final QueuePair qp, final int maxSge, final int maxInline)
    {
        this.qp = qp;
        this.type = qp.type();
        this.xrc = type == QpType.XRC_SEND;
        this.datagram = type == QpType.UD || type == QpType.DCI;
        this.maxInline = maxInline;
        this.sgl = new ScatterList(maxSge);
        this.inlineScratch = MemorySegment.ofArray(new byte[Math.max(1, maxInline)]);
    }

    /**
     * Starts staging a WR, replacing any staged one.
     *
     * @param wrId the caller's id
     * @param mlx5Opcode the MLX5 opcode
     * @param flags the send flags
     * @throws IllegalArgumentException if the flags are unknown or not for this QP type
     */
    public void begin(final long wrId, final int mlx5Opcode, final int flags)
    {
        if ((flags & ~SendOpcodeRules.SEND_QUEUE_FLAGS) != 0)
        {
            throw new IllegalArgumentException((flags & SendFlags.IP_CSUM) != 0
                ? "IP_CSUM (IBV_SEND_IP_CSUM) needs a raw packet QP; this is a " + type + " QP"
                : "unknown send flags 0x" + Integer.toHexString(flags & ~SendOpcodeRules.SEND_QUEUE_FLAGS));
        }
        staged = true;
        this.wrId = wrId;
        this.opcode = mlx5Opcode;
        this.flags = flags;
        remote = false;
        imm = 0;
        operands = NO_OPERANDS;
        av = null;
        sgl.clear();
    }

    /**
     * Stages the remote address and rkey.
     *
     * @param raddr the remote address
     * @param rkey the remote key
     */
    public void remote(final long raddr, final int rkey)
    {
        remote = true;
        this.raddr = raddr;
        this.rkey = rkey;
    }

    /**
     * Atomic operands in the order of the atomic segment's words: {@code a0} swap or add, {@code a1} compare or
     * field boundary, {@code a2} swap mask, {@code a3} compare mask (masked compare and swap only).
     *
     * @param kind the operand kind ({@link SendOpcodeRules#CAS} ...)
     * @param a0 swap or add
     * @param a1 compare or field boundary
     * @param a2 swap mask
     * @param a3 compare mask
     */
    public void operands(final int kind, final long a0, final long a1, final long a2, final long a3)
    {
        operands = kind;
        this.a0 = a0;
        this.a1 = a1;
        this.a2 = a2;
        this.a3 = a3;
    }

    /**
     * Stages the UD destination.
     *
     * @param ah the address handle
     * @param remoteQpn the destination QP number
     * @param remoteQkey the destination Q_Key
     */
    public void destination(final AddressHandle ah, final int remoteQpn, final int remoteQkey)
    {
        if (ah != lastAh)
        {
            decodeAv(ah);   // setup-like path, taken only when the AH changes
        }
        av = lastAv;
        this.remoteQpn = remoteQpn;
        qkey = remoteQkey;
        dc = false;
    }

    /**
     * Stages a DC target: the datagram segment carries the AH's address vector, the DCT number and the DC key (as
     * libmlx5's mlx5dv_wr_set_dc_addr writes it).
     *
     * @param ah the address handle of the DCT's port
     * @param dctn the DCT number
     * @param key the DCT's DC access key
     */
    public void dcDestination(final AddressHandle ah, final int dctn, final long key)
    {
        if (ah != lastAh)
        {
            decodeAv(ah);   // setup-like path, taken only when the AH changes
        }
        av = lastAv;
        remoteQpn = dctn;
        dcKey = key;
        dc = true;
    }

    private void decodeAv(final AddressHandle ah)
    {
        final MemorySegment v = ah.av();
        avKeyLo = Be.be32(v, DatagramSeg.KEY_OFFSET + 4) & 0xffffffffL;
        avDqpDct = Be.be32(v, DatagramSeg.DQP_DCT_OFFSET);
        avStatRateSl = Be.u8(v, DatagramSeg.STAT_RATE_SL_OFFSET);
        avFlMlid = Be.u8(v, DatagramSeg.FL_MLID_OFFSET);
        avRlid = Be.be16(v, DatagramSeg.RLID_OFFSET);
        avRmac = ((Be.be32(v, DatagramSeg.RMAC_OFFSET) & 0xffffffffL) << 16) | Be.be16(v, DatagramSeg.RMAC_OFFSET + 4);
        avTclass = Be.u8(v, DatagramSeg.TCLASS_OFFSET);
        avHopLimit = Be.u8(v, DatagramSeg.HOP_LIMIT_OFFSET);
        avGrhGidFl = Be.be32(v, DatagramSeg.GRH_GID_FL_OFFSET);
        avRgidHi = Be.be64(v, DatagramSeg.RGID_OFFSET);
        avRgidLo = Be.be64(v, DatagramSeg.RGID_OFFSET + 8);
        avWord8 = DatagramSeg.word8(0, true, avStatRateSl, avFlMlid, avRlid);
        avWord16 = DatagramSeg.word16(avRmac);
        avWord24 = DatagramSeg.word24(avRmac, avTclass, avHopLimit, avGrhGidFl);
        lastAv = v;
        lastAh = ah;
    }

    /**
     * Stages one gather entry (or inline piece); zero-length entries are dropped.
     *
     * @param addr the buffer's address
     * @param lkey the buffer's lkey
     * @param len the buffer's length
     */
    public void sge(final long addr, final int lkey, final int len)
    {
        sgl.add(addr, lkey, len, qp, " takes at most ", " SGEs per WQE");
    }

    /**
     * Checks the staged WR against the QP ({@link SendOpcodeRules}, SGE and inline limits) and returns its size.
     *
     * @param maxDs the largest WQE this queue posts, in 16-byte units
     * @return the WQE's ds: ctrl, datagram or XRC, raddr, atomic and data or inline segments
     * @throws IllegalArgumentException if the WR cannot be posted on this QP
     */
    public int validate(final int maxDs)
    {
        final boolean inline = (flags & SendFlags.INLINE) != 0;
        SendOpcodeRules.check(type, qp, opcode, inline, remote, operands, av != null);
        if (av != null && dc != (type == QpType.DCI))
        {
            throw new IllegalArgumentException(dc ? "dcDestination is for DCI QPs; " + qp + " takes destination"
                : "a DCI's target is set with dcDestination(ah, dctn, dcKey), not destination, on " + qp);
        }
        int ds = 1;
        if ((type == QpType.UD || type == QpType.DCI) && opcode != MLX5_OPCODE_NOP)
        {
            ds += DatagramSeg.LENGTH / 16;
        }
        if (xrc && opcode != MLX5_OPCODE_NOP)
        {
            if (xrcSrqn < 0)
            {
                throw new IllegalStateException(qp + " is an XRC_SEND QP: set the remote XRC SRQ with xrcSrqn(srqn)"
                    + " before posting");
            }
            ds += XrcSeg.LENGTH / 16;
        }
        if (remote)
        {
            ds++;
        }
        if (operands != NO_OPERANDS)
        {
            ds += operands == MASKED_CAS_64 ? 2 : 1;
        }
        inlineBytes = 0;
        if (opcode != MLX5_OPCODE_NOP)
        {
            ds += inline ? inlineDs() : gatherDs();
        }
        if (ds > maxDs)
        {
            throw new IllegalArgumentException("WQE of " + ds + " 16-byte units exceeds the limit of " + maxDs);
        }
        return ds;
    }

    private int inlineDs()
    {
        int bytes = 0;
        for (int i = 0; i < sgl.count; i++)
        {
            bytes += sgl.len[i];
            // INLINE reads the payload from this process's memory now (as IBV_SEND_INLINE does): addresses must be
            // valid, mapped memory. The null page is refused, so that the common mistake (an unset address) is an
            // exception rather than a crash.
            if (sgl.len[i] != 0 && Long.compareUnsigned(sgl.addr[i], NULL_PAGE) < 0)
            {
                throw new IllegalArgumentException("inline payload address 0x" + Long.toHexString(sgl.addr[i]) +
                    " is in the null page");
            }
        }
        if (bytes > maxInline || bytes < 0)
        {
            throw new IllegalArgumentException("inline payload of " + bytes + " bytes exceeds " + qp +
                "'s max inline data " + maxInline);
        }
        inlineBytes = bytes;
        return bytes > 0 ? (bytes + 4 + 15) >>> 4 : 0;
    }

    private int gatherDs()
    {
        int ds = 0;
        for (int i = 0; i < sgl.count; i++)
        {
            if (sgl.len[i] != 0)
            {
                ds++;   // zero-length entries are dropped, as libmlx5 drops them
            }
        }
        return ds;
    }

    /**
     * Writes the validated WR's segments after the ctrl segment {@code w} is wrapped at.
     *
     * @param w the writer, wrapped at the ctrl segment
     * @return the ctrl segment's opmod: EXT_ATOMIC_64 / EXT_ATOMIC_32 for masked atomics, else 0
     */
    public int write(final WqeWriter w)
    {
        int opmod = 0;
        if ((type == QpType.UD || type == QpType.DCI) && opcode != MLX5_OPCODE_NOP)
        {
            writeDatagram(w);
        }
        if (xrc && opcode != MLX5_OPCODE_NOP)
        {
            w.xrc(xrcSrqn);
        }
        if (remote)
        {
            w.raddr(raddr, rkey);
        }
        int atomicBytes = 8;
        switch (operands)
        {
            case CAS -> w.atomicCas(a0, a1);
            case FAA -> w.atomicFa(a0);
            case MASKED_CAS_64 ->
            {
                w.maskedCas64(a0, a1, a2, a3);
                opmod = Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_64;
            }
            case MASKED_FAA_64 ->
            {
                w.maskedFa64(a0, a1);
                opmod = Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_64;
            }
            case MASKED_CAS_32 ->
            {
                w.maskedCas32((int) a0, (int) a1, (int) a2, (int) a3);
                opmod = Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_32;
                atomicBytes = 4;
            }
            case MASKED_FAA_32 ->
            {
                w.maskedFa32((int) a0, (int) a1);
                opmod = Mlx5Opcode.MLX5_OPMOD_EXT_ATOMIC_32;
                atomicBytes = 4;
            }
            default ->
            {
            }
        }
        if (opcode == MLX5_OPCODE_NOP)
        {
            return opmod;
        }
        if ((flags & SendFlags.INLINE) != 0)
        {
            if (inlineBytes > 0)
            {
                writeInline(w, inlineBytes);
            }
            return opmod;
        }
        for (int i = 0; i < sgl.count; i++)
        {
            if (sgl.len[i] != 0)
            {
                // atomics: the response is the operand size, whatever the SGE says (as ibv_post_send)
                w.data(operands == NO_OPERANDS ? sgl.len[i] : atomicBytes, sgl.lkey[i], sgl.addr[i]);
            }
        }
        return opmod;
    }

    /**
     * {@link #write} by address, for the validated WR's common shape: datagram (UD, DCI), raddr and gather entries,
     * no inline data, atomics, XRC segment or NOP. Writes nothing and returns 0 for any other shape; the caller then
     * writes through {@link #write}. The same bytes as {@link #write} (the UD and DC parity tests post through it).
     * Why: every store through the ring segment pays its bounds, alignment and session checks, and {@link #write}
     * was not inlined into the post (373 bytecodes); a DCI RDMA WRITE has ten such stores (DciPostBench: the staging
     * form's write was 30-40 % of the post's cycles under perfasm). {@code base} is the post's
     * {@link SendRingCore#liveRing}, {@code ctrl} the claimed WQE's ctrl offset (64-byte aligned), every later unit
     * masked by {@code ringMask} (a WQE may continue at the ring start).
     *
     * @param base the ring's address, from this post's liveness check
     * @param ctrl ring offset of the claimed WQE's ctrl segment
     * @param ringMask the ring's size in bytes minus one
     * @return the WQE's ds (ctrl included), or 0 if nothing was written
     */
    public int writeAt(final long base, final long ctrl, final long ringMask)
    {
        if ((flags & SendFlags.INLINE) != 0 || operands != NO_OPERANDS || xrc || opcode == MLX5_OPCODE_NOP)
        {
            return 0;
        }
        long at = ctrl + 16;    // ctrl is 64-byte aligned: its first unit after ctrl is inside the ring
        if (datagram)
        {
            at = datagramAt(base, at, ringMask);
        }
        if (remote)
        {
            RaddrSeg.put(base + at, raddr, rkey);
            at = (at + 16) & ringMask;
        }
        int units = (datagram ? 1 + DatagramSeg.LENGTH / 16 : 1) + (remote ? 1 : 0);
        for (int i = 0; i < sgl.count; i++)
        {
            if (sgl.len[i] != 0)    // zero-length entries are dropped, as libmlx5 drops them
            {
                DataSeg.put(base + at, sgl.len[i], sgl.lkey[i], sgl.addr[i]);
                at = (at + 16) & ringMask;
                units++;
            }
        }
        return units;
    }

    /** The datagram segment of {@link #writeDatagram} at {@code at}, six stores of the AV's pre-encoded words. */
    private long datagramAt(final long base, final long at, final long ringMask)
    {
        final long key;
        final long dqpDct;
        if (dc)
        {
            key = dcKey;
            dqpDct = (avDqpDct | remoteQpn) & 0xffffffL;
        }
        else
        {
            key = ((long) qkey << 32) | avKeyLo;
            dqpDct = remoteQpn & 0xffffffL;
        }
        final long unit1 = (at + 16) & ringMask;
        final long unit2 = (unit1 + 16) & ringMask;
        RingStores.putLongBE(base + at + DatagramSeg.KEY_OFFSET, key);
        RingStores.putLongBE(base + at + DatagramSeg.DQP_DCT_OFFSET, avWord8 | dqpDct << 32);
        RingStores.putLongBE(base + unit1 + DatagramSeg.RESERVED0_OFFSET - 16, avWord16);
        RingStores.putLongBE(base + unit1 + DatagramSeg.RMAC_OFFSET + 4 - 16, avWord24);
        RingStores.putLongBE(base + unit2 + DatagramSeg.RGID_OFFSET - 32, avRgidHi);
        RingStores.putLongBE(base + unit2 + DatagramSeg.RGID_OFFSET + 8 - 32, avRgidLo);
        return (unit2 + 16) & ringMask;
    }

    /**
     * The datagram segment is libmlx5's copy of the AH's mlx5_wqe_av with dqp_dct = remote QPN | MLX5_EXTENDED_UD_AV
     * and the first key word = Q_Key (qp.c _set_datagram_seg); the fields are read from the AV and re-encoded. A DC
     * target is the same segment with the DCT number ORed into the AV's dqp_dct and the whole 8-byte key = DC key
     * (qp.c mlx5_send_wr_set_dc_addr): one encoding for both.
     */
    private void writeDatagram(final WqeWriter w)
    {
        final long key;
        final int dqpDct;
        if (dc)
        {
            key = dcKey;
            dqpDct = (avDqpDct | remoteQpn) & 0xffffff;
        }
        else
        {
            key = ((long) qkey << 32) | avKeyLo;
            dqpDct = remoteQpn & 0xffffff;
        }
        w.datagram(key, dqpDct, true, avStatRateSl, avFlMlid, avRlid, avRmac, avTclass, avHopLimit, avGrhGidFl,
            avRgidHi, avRgidLo);
    }

    private void writeInline(final WqeWriter w, final int total)
    {
        if (sgl.count == 1)
        {
            w.inline(AddressSpace.ALL, sgl.addr[0], total);
            return;
        }
        // several pieces: gather them first, the inline segment carries one byte_count for all
        long at = 0;
        for (int i = 0; i < sgl.count; i++)
        {
            MemorySegment.copy(AddressSpace.ALL, sgl.addr[i], inlineScratch, at, sgl.len[i]);
            at += sgl.len[i];
        }
        w.inline(inlineScratch, 0, total);
    }
}
