// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.bindings.IbvWc;
import io.mlx5j.direct.Completion;
import io.mlx5j.direct.WcOpcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.U16;
import static io.mlx5j.bindings.CTypes.U32;
import static io.mlx5j.bindings.CTypes.U64;
import static io.mlx5j.bindings.CTypes.U8;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Field-by-field comparison of a libmlx5 {@code struct ibv_wc} (zeroed before ibv_poll_cq) with a {@link Completion}.
 */
final class WcFields
{
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private WcFields()
    {
    }

    /**
     * @param qpnL the QP libmlx5's completion belongs to; {@code qpnJ} mlx5j's (twins differ only there; pass equal
     *             numbers when both polled the same CQ)
     */
    static void assertSame(final MemorySegment wc, final Completion c, final int qpnL, final int qpnJ,
        final String what)
    {
        final String msg = what + ": libmlx5 " + describe(wc) + " vs mlx5j " + c;
        assertEquals(wc.get(U64, IbvWc.WR_ID_OFFSET), c.wrId(), "wr_id " + msg);
        assertEquals(wc.get(C_INT, IbvWc.STATUS_OFFSET), c.statusCode(), "status " + msg);
        assertEquals(wc.get(C_INT, IbvWc.OPCODE_OFFSET), c.opcode(), "opcode " + msg);
        assertEquals(wc.get(U32, IbvWc.VENDOR_ERR_OFFSET), c.vendorSyndrome(), "vendor_err " + msg);
        assertEquals(wc.get(U32, IbvWc.BYTE_LEN_OFFSET), c.byteLen(), "byte_len " + msg);
        final int flags = wc.get(C_INT, IbvWc.WC_FLAGS_OFFSET);
        assertEquals(flags, c.wcFlags(), "wc_flags " + msg);
        // imm_data (network order) and invalidated_rkey (host order) share the union
        if ((flags & WcOpcode.WC_WITH_INV) != 0)
        {
            assertEquals(wc.get(U32, IbvWc.INVALIDATED_RKEY_OFFSET), c.invalidatedRkey(), "invalidated_rkey " + msg);
        }
        else
        {
            assertEquals(wc.get(BE32, IbvWc.IMM_DATA_OFFSET), c.imm(), "imm_data " + msg);
        }
        assertEquals(qpnL, wc.get(U32, IbvWc.QP_NUM_OFFSET), "qp_num (libmlx5) " + msg);
        assertEquals(qpnJ, c.qpn(), "qp_num (mlx5j) " + msg);
        assertEquals(wc.get(U32, IbvWc.SRC_QP_OFFSET), c.srcQp(), "src_qp " + msg);
        assertEquals(wc.get(U16, IbvWc.PKEY_INDEX_OFFSET) & 0xffff, c.pkeyIndex(), "pkey_index " + msg);
        assertEquals(wc.get(U16, IbvWc.SLID_OFFSET) & 0xffff, c.slid(), "slid " + msg);
        assertEquals(wc.get(U8, IbvWc.SL_OFFSET) & 0xff, c.sl(), "sl " + msg);
        assertEquals(wc.get(U8, IbvWc.DLID_PATH_BITS_OFFSET) & 0xff, c.dlidPathBits(), "dlid_path_bits " + msg);
    }

    static String describe(final MemorySegment wc)
    {
        return String.format("wc(wr_id 0x%x status %d opcode %d vendor_err 0x%x byte_len %d imm 0x%x qp 0x%x"
                + " src_qp 0x%x flags 0x%x pkey %d slid %d sl %d path %d)",
            wc.get(U64, IbvWc.WR_ID_OFFSET), wc.get(C_INT, IbvWc.STATUS_OFFSET), wc.get(C_INT, IbvWc.OPCODE_OFFSET),
            wc.get(U32, IbvWc.VENDOR_ERR_OFFSET), wc.get(U32, IbvWc.BYTE_LEN_OFFSET),
            wc.get(U32, IbvWc.IMM_DATA_OFFSET), wc.get(U32, IbvWc.QP_NUM_OFFSET), wc.get(U32, IbvWc.SRC_QP_OFFSET),
            wc.get(C_INT, IbvWc.WC_FLAGS_OFFSET), wc.get(U16, IbvWc.PKEY_INDEX_OFFSET), wc.get(U16, IbvWc.SLID_OFFSET),
            wc.get(U8, IbvWc.SL_OFFSET), wc.get(U8, IbvWc.DLID_PATH_BITS_OFFSET));
    }
}
