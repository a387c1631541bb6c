// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import java.util.List;

/**
 * A send WQE as a reference wrote it (usually {@code Libmlx5Oracle}: libmlx5's bytes), with the bytes a comparison must
 * not judge because the reference leaves them unwritten. The rule, from rdma-core v44 providers/mlx5/qp.c (libmlx5
 * keeps whatever the ring held there, so no value can be expected of another encoder):
 * <ul>
 * <li>{@code ctrl.imm} of opcodes without immediate data, on the ibv_wr_* path: _common_wqe_init_op sets
 *     opmod_idx_opcode, qpn_ds and fm_ce_se but not imm (ibv_post_send writes 0 there);</li>
 * <li>{@code atomic.compare} of ATOMIC_FA: _set_atomic_seg writes swap_add only (both paths);</li>
 * <li>the padding of an inline segment after its data, up to the 16-byte boundary (set_data_inl_seg and
 *     memcpy_to_wqe copy only the payload), and the padding after the inline headers of an Ethernet segment past the
 *     first 32 bytes libmlx5 zeroes;</li>
 * <li>bytes past ds * 16: not part of the WQE.</li>
 * </ul>
 * Every other byte is compared, the QP number and the WQE index included: use {@link #withQpn} and
 * {@link #withWqeIndex} when the encoder under test posts on another QP or at another ring position.
 *
 * @param bytes     the expected WQE, from its ctrl segment on, ds * 16 bytes
 * @param kind      the QP type it was built for (which segments follow ctrl)
 * @param unwritten per byte: true where the reference wrote nothing (same length as bytes)
 *
 * <p>Thread model: an immutable value; any thread.
 */
public record ExpectedWqe(byte[] bytes, QpKind kind, boolean[] unwritten)
{
    /**
     * Copies the arrays, so the record cannot be changed from outside.
     *
     * @throws IllegalArgumentException if {@code unwritten} and {@code bytes} differ in length
     */
    public ExpectedWqe
    {
        if (unwritten.length != bytes.length)
        {
            throw new IllegalArgumentException("mask of " + unwritten.length + " bytes for a WQE of " + bytes.length);
        }
        bytes = bytes.clone();
        unwritten = unwritten.clone();
    }

    /**
     * Every byte expected exactly (a WQE written by hand, or by an encoder that writes every byte).
     *
     * @param bytes the WQE's bytes
     * @param kind the QP type it was built for
     * @return the expectation
     */
    public static ExpectedWqe exactly(final byte[] bytes, final QpKind kind)
    {
        return new ExpectedWqe(bytes, kind, new boolean[bytes.length]);
    }

    /** {@return a copy of the expected bytes} */
    @Override
    public byte[] bytes()
    {
        return bytes.clone();
    }

    /** {@return a copy of the mask of bytes the reference did not write} */
    @Override
    public boolean[] unwritten()
    {
        return unwritten.clone();
    }

    /**
     * The same WQE with qpn_ds's QP number replaced (the encoder under test has its own QP).
     *
     * @param qpn the QP number, 24 bits
     * @return a new expectation
     * @throws IllegalArgumentException if {@code unwritten} and {@code bytes} differ in length
     */
    public ExpectedWqe withQpn(final int qpn)
    {
        final byte[] b = bytes.clone();
        b[4] = (byte)(qpn >>> 16);
        b[5] = (byte)(qpn >>> 8);
        b[6] = (byte)qpn;
        return new ExpectedWqe(b, kind, unwritten);
    }

    /**
     * The same WQE with opmod_idx_opcode's wqe_index replaced (the encoder under test posts elsewhere).
     *
     * @param wqeIndex the WQE index, 16 bits
     * @return a new expectation
     * @throws IllegalArgumentException if {@code unwritten} and {@code bytes} differ in length
     */
    public ExpectedWqe withWqeIndex(final int wqeIndex)
    {
        final byte[] b = bytes.clone();
        b[1] = (byte)(wqeIndex >>> 8);
        b[2] = (byte)wqeIndex;
        return new ExpectedWqe(b, kind, unwritten);
    }

    /** {@return the QP number in qpn_ds} */
    public int qpn()
    {
        return Bytes.be32(bytes, 4) >>> 8;
    }

    /** {@return the wqe_index in opmod_idx_opcode} */
    public int wqeIndex()
    {
        return Bytes.be16(bytes, 1);
    }

    /** {@return the decoded WQE ({@link WqeDump}), unwritten bytes as the reference left them} */
    public WqeDump dump()
    {
        return WqeDump.send(bytes, kind);
    }

    /** {@return the paths of the fields whose bytes are all unwritten (what a comparison skips)} */
    public List<String> ignoredFields()
    {
        return dump().fields().stream().filter(f -> f.length() > 0 && allUnwritten(f)).map(WqeField::path).toList();
    }

    boolean allUnwritten(final WqeField f)
    {
        for (int i = f.offset(); i < f.offset() + f.length(); i++)
        {
            if (i < unwritten.length && !unwritten[i])
            {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString()
    {
        return dump().text();
    }
}
