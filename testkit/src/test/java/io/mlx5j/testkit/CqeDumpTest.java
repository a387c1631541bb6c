// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Exact dumps of hand-made CQEs (struct mlx5_cqe64 / mlx5_err_cqe of mlx5dv.h, values written word by word). */
class CqeDumpTest
{
    private static final String ZERO32 = "00000000000000000000000000000000 00000000000000000000000000000000 ";

    @Test
    void requesterCqe()
    {
        // srqn_uidx, imm, app.., byte_cnt 4096, timestamp, sop_drop_qpn 0x08000123 (RDMA_WRITE, qpn 0x123),
        // wqe_counter 7, signature 0xff, op_own 0x01 (REQ, owner 1)
        final CqeDump d = CqeDump.of(ZERO32 + "00000000 00000000 00000000 00001000 0000000000000000 "
            + "08000123 0007 ff 01");
        assertEquals("""
            cqe       opcode=REQ format=0 se=0 owner=1 wqe_counter=7 signature=0xff byte_cnt=4096 qpn=0x000123 \
            wqe_opcode=RDMA_WRITE imm_inval_pkey=0x00000000 srqn_uidx=0x000000 timestamp=0x0000000000000000
            """, d.text());
    }

    @Test
    void errorCqeNamesItsSyndrome()
    {
        // vendor_err_synd 0x51, syndrome 0x04, s_wqe_opcode_qpn 0x10000123; op_own 0xd1 (REQ_ERR 13, owner 1)
        final CqeDump d = CqeDump.of(ZERO32 + "00000000 00000000 00000000 00000000 00000000 0000 51 04 "
            + "10000123 0003 00 d1");
        assertEquals("""
            cqe       opcode=REQ_ERR format=0 se=0 owner=1 wqe_counter=3 signature=0x00 qpn=0x000123
            err       syndrome=LOCAL_PROT_ERR vendor_err_synd=0x51 s_wqe_opcode=RDMA_READ srqn=0x000000
            """, d.text());
        assertEquals("WR_FLUSH_ERR", CqeDump.of(ZERO32 + "00000000 00000000 00000000 00000000 00000000 0000 f9 05 "
            + "00000123 0003 00 e0").field("err.syndrome"));
    }

    @Test
    void receiveCqeWithChecksumBits()
    {
        // hds_ip_ext 0x06 (L3_OK | L4_OK), l4_hdr_type_etc 0x28 (UDP 2 << 4 | IPV4 2 << 2), byte_cnt 64,
        // sop_drop_qpn 0x456, wqe_counter 2, op_own 0x20 (RESP_SEND, owner 0)
        final CqeDump d = CqeDump.of("00000000000000000000000000000000 0000000000000000 00000000 06280000 "
            + "00000000 00000000 00000000 00000040 0000000000000000 00000456 0002 00 20");
        assertEquals("""
            cqe       opcode=RESP_SEND format=0 se=0 owner=0 wqe_counter=2 signature=0x00 byte_cnt=64 qpn=0x000456 \
            sop_drop=0x00 imm_inval_pkey=0x00000000 srqn_uidx=0x000000 timestamp=0x0000000000000000
            rx        csum=L3_OK|L4_OK l3_hdr_type=IPV4 l4_hdr_type=UDP cv=0 vlan_info=0x0000 flags=0x00 \
            rqpn=0x000000 slid=0x0000 ml_path=0x00 check_sum=0x0000 rss_hash_type=0x00 rss_hash_result=0x00000000 \
            wqe_id=0
            """, d.text());
    }

    @Test
    void aCqeIsSixtyFourBytes()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CqeDump.of("00"));
        assertEquals("a CQE is 64 bytes (struct mlx5_cqe64), 1 given", e.getMessage());
    }
}
