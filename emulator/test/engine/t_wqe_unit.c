/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the engine's pure byte functions (parser, receive WQE reader, CQE writer), with the field
 * positions checked against rdma-core's own structs in <infiniband/mlx5dv.h>. Links the sources directly.
 */
#include "etest.h"
#include "engine/eng_wqe.c"
#include "engine/eng_cqe.c"

#include <stddef.h>

int main(void)
{
	static uint8_t ring[4 * 64], flat[ENG_WQE_MAX_BYTES];
	static struct eng_wqe w;

	/* An inline SEND of 100 bytes that starts in the last WQEBB of a 4-WQEBB ring and wraps. */
	memset(ring, 0xee, sizeof ring);
	uint8_t wqe[128];
	memset(wqe, 0, sizeof wqe);
	eng_put_be32(wqe, 3u << 8 | MLX5_OPCODE_SEND_IMM);
	eng_put_be32(wqe + 4, 0x123456u << 8 | 8); /* 16 + 4 + 100 -> 120 -> 128 B = 8 units */
	wqe[11] = MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_SOLICITED;
	eng_put_be32(wqe + 12, 0xdeadbeef);
	eng_put_be32(wqe + 16, MLX5_INLINE_SEG | 100);
	for (int i = 0; i < 100; i++)
		wqe[20 + i] = (uint8_t)i;
	for (int i = 0; i < 128; i++)
		ring[(3 * 64 + i) % sizeof ring] = wqe[i];
	size_t n = eng_wqe_linearize(ring, sizeof ring, 3, flat, sizeof flat);
	CHECK(n == 128 && memcmp(flat, wqe, 128) == 0, "linearize across the ring end (%zu)", n);
	CHECK(eng_wqe_parse(flat, n, ENG_QPT_RC, &w) == ENG_WQE_OK, "parse");
	CHECK(w.opcode == MLX5_OPCODE_SEND_IMM && w.wqe_index == 3 && w.qpn == 0x123456 && w.ds == 8 &&
	      w.imm == 0xdeadbeef && w.fm_ce_se == (MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_SOLICITED), "ctrl fields");
	CHECK(w.is_inline && w.nsge == 1 && w.sge[0].addr == 20 && w.sge[0].len == 100 && w.total_len == 100, "inline");
	CHECK(eng_wqe_bbs(8) == 2 && eng_wqe_bbs(1) == 1 && eng_wqe_bbs(5) == 2, "bbs");

	/* ds is 6 bits: the reserved bits 7:6 of qpn_ds's last byte are not part of the size (0xc8 is still 8 units) */
	wqe[7] = 0xc8;
	for (int i = 0; i < 128; i++)
		ring[(3 * 64 + i) % sizeof ring] = wqe[i];
	n = eng_wqe_linearize(ring, sizeof ring, 3, flat, sizeof flat);
	CHECK(n == 128, "linearize with reserved ds bits set: %zu bytes", n);
	CHECK(eng_wqe_parse(flat, n, ENG_QPT_RC, &w) == ENG_WQE_OK && w.ds == 8 && w.qpn == 0x123456 && w.total_len == 100,
	      "parse with reserved ds bits set: ds %u", w.ds);
	wqe[7] = 0x40; /* 64 would not fit the field: it reads as ds 0 */
	CHECK(eng_wqe_parse(wqe, 128, ENG_QPT_RC, &w) == ENG_WQE_BAD_DS, "ds 0x40");

	/* An inline piece followed by a memory pointer in one WQE, as UCX's UD AM short writes it: both gathered. */
	memset(wqe, 0, sizeof wqe);
	eng_put_be32(wqe, MLX5_OPCODE_SEND);
	eng_put_be32(wqe + 4, 0x123456u << 8 | 3); /* ctrl, inline 4 + 8 -> 16, data 16 */
	eng_put_be32(wqe + 16, MLX5_INLINE_SEG | 8);
	memset(wqe + 20, 0xab, 8);
	eng_put_be32(wqe + 32, 8);
	eng_put_be32(wqe + 36, 0x4242);
	eng_put_be64(wqe + 40, 0x7000);
	CHECK(eng_wqe_parse(wqe, 48, ENG_QPT_RC, &w) == ENG_WQE_OK, "inline then pointer");
	CHECK(w.nsge == 2 && w.sge[0].inl && w.sge[0].addr == 20 && w.sge[0].len == 8 && !w.sge[1].inl &&
	      w.sge[1].addr == 0x7000 && w.sge[1].lkey == 0x4242 && w.sge[1].len == 8 && w.total_len == 16, "mixed gather");

	/* Overflow: inline count beyond ds; a zero unit counted by ds; ds too small for raddr. */
	eng_put_be32(wqe + 16, MLX5_INLINE_SEG | 120);
	CHECK(eng_wqe_parse(wqe, 128, ENG_QPT_RC, &w) == ENG_WQE_INLINE_OVERFLOW, "inline overflow");
	memset(wqe + 16, 0, 16);
	eng_put_be32(wqe + 4, 0x123456u << 8 | 2);
	CHECK(eng_wqe_parse(wqe, 128, ENG_QPT_RC, &w) == ENG_WQE_BAD_DS, "zero unit");
	eng_put_be32(wqe, MLX5_OPCODE_RDMA_WRITE);
	eng_put_be32(wqe + 4, 0x123456u << 8 | 1);
	CHECK(eng_wqe_parse(wqe, 128, ENG_QPT_RC, &w) == ENG_WQE_BAD_DS, "write without raddr");
	CHECK(eng_wqe_parse(wqe, 128, ENG_QPT_UD, &w) == ENG_WQE_BAD_OPCODE, "write on UD");
	CHECK(eng_wqe_parse(wqe, 8, ENG_QPT_RC, &w) == ENG_WQE_TOO_SHORT, "short");

	/* RDMA WRITE with two data segments, UD SEND with an address vector. */
	memset(wqe, 0, sizeof wqe);
	eng_put_be32(wqe, 7u << 8 | MLX5_OPCODE_RDMA_WRITE);
	eng_put_be32(wqe + 4, 5u << 8 | 4);
	eng_put_be64(wqe + 16, 0x1122334455667788ull);
	eng_put_be32(wqe + 24, 0xabcd);
	eng_put_be32(wqe + 32, 10);
	eng_put_be32(wqe + 36, 0x300);
	eng_put_be64(wqe + 40, 0x1000);
	eng_put_be32(wqe + 48, 0);
	eng_put_be32(wqe + 52, 0x301);
	eng_put_be64(wqe + 56, 0x2000);
	CHECK(eng_wqe_parse(wqe, 64, ENG_QPT_UC, &w) == ENG_WQE_OK, "write");
	CHECK(w.raddr == 0x1122334455667788ull && w.rkey == 0xabcd && w.nsge == 2 && w.sge[0].len == 10 &&
	      w.sge[0].lkey == 0x300 && w.sge[0].addr == 0x1000 && w.sge[1].len == 0 && w.total_len == 10, "write fields");
	memset(wqe, 0, sizeof wqe);
	eng_put_be32(wqe, MLX5_OPCODE_SEND);
	eng_put_be32(wqe + 4, 9u << 8 | 5);
	struct mlx5_wqe_av *av = (struct mlx5_wqe_av *)(void *)(wqe + 16);
	av->key.qkey.qkey = htobe32(0x11110000);
	av->dqp_dct = htobe32(MLX5_EXTENDED_UD_AV | 0x4242);
	av->stat_rate_sl = 3;
	av->rlid = htobe16(7);
	av->hop_limit = 9;
	av->tclass = 5;
	av->grh_gid_fl = htobe32(1u << 30 | 0x12345);
	av->rgid[15] = 0x77;
	eng_put_be32(wqe + 64, 4);
	eng_put_be32(wqe + 68, 0x500);
	eng_put_be64(wqe + 72, 0x3000);
	CHECK(eng_wqe_parse(wqe, 80, ENG_QPT_UD, &w) == ENG_WQE_OK, "ud");
	CHECK(w.has_av && w.av.qkey == 0x11110000 && w.av.dqpn == 0x4242 && w.av.sl == 3 && w.av.rlid == 7 &&
	      w.av.hop_limit == 9 && w.av.tclass == 5 && w.av.grh && w.av.flow_label == 0x12345 && w.av.rgid[15] == 0x77 &&
	      w.nsge == 1 && w.sge[0].len == 4, "av fields via struct mlx5_wqe_av");

	/* XRC INI: the RDMA WRITE above behind the XRC segment (libmlx5's struct mlx5_wqe_xrc_seg: be32 xrc_srqn, 12
	 * reserved bytes) right after ctrl; the same WQE is short of its raddr on an RC QP, and an XRC one without
	 * room for the segment is malformed. */
	memset(wqe, 0, sizeof wqe);
	eng_put_be32(wqe, 7u << 8 | MLX5_OPCODE_RDMA_WRITE);
	eng_put_be32(wqe + 4, 5u << 8 | 4);
	eng_put_be32(wqe + 16, 0xab123456); /* the device takes the low 24 bits */
	eng_put_be64(wqe + 32, 0x1122334455667788ull);
	eng_put_be32(wqe + 40, 0xabcd);
	eng_put_be32(wqe + 48, 10);
	eng_put_be32(wqe + 52, 0x300);
	eng_put_be64(wqe + 56, 0x1000);
	CHECK(eng_wqe_parse(wqe, 64, ENG_QPT_XRC_SEND, &w) == ENG_WQE_OK, "xrc write");
	CHECK(w.xrc_srqn == 0x123456 && w.raddr == 0x1122334455667788ull && w.rkey == 0xabcd && w.nsge == 1 &&
	      w.sge[0].len == 10 && w.total_len == 10, "xrc write fields: srqn 0x%x raddr 0x%llx rkey 0x%x", w.xrc_srqn,
	      (unsigned long long)w.raddr, w.rkey);
	CHECK(eng_wqe_parse(wqe, 64, ENG_QPT_RC, &w) == ENG_WQE_OK && w.xrc_srqn == 0 && w.rkey == 0,
	      "RC reads the XRC segment as the raddr");
	eng_put_be32(wqe, MLX5_OPCODE_SEND);
	eng_put_be32(wqe + 4, 5u << 8 | 1);
	CHECK(eng_wqe_parse(wqe, 64, ENG_QPT_XRC_SEND, &w) == ENG_WQE_BAD_DS, "xrc without its segment");

	/* DCI RDMA READ (mlx5dv_wr_set_dc_addr): control, datagram segment (DCT number, DC key), raddr, data. */
	memset(wqe, 0, sizeof wqe);
	eng_put_be32(wqe, 2u << 8 | MLX5_OPCODE_RDMA_READ);
	eng_put_be32(wqe + 4, 9u << 8 | 6);
	av = (struct mlx5_wqe_av *)(void *)(wqe + 16);
	av->key.dc_key = htobe64(0x0123456789abcdefull);
	av->dqp_dct = htobe32(MLX5_EXTENDED_UD_AV | 0x5151);
	eng_put_be64(wqe + 64, 0x8000);
	eng_put_be32(wqe + 72, 0x77);
	eng_put_be32(wqe + 80, 64);
	eng_put_be32(wqe + 84, 0x501);
	eng_put_be64(wqe + 88, 0x4000);
	CHECK(eng_wqe_parse(wqe, 96, ENG_QPT_DCI, &w) == ENG_WQE_OK, "dci read");
	CHECK(w.has_av && w.av.dqpn == 0x5151 && w.av.dc_key == 0x0123456789abcdefull && w.raddr == 0x8000 &&
	      w.rkey == 0x77 && w.nsge == 1 && w.sge[0].len == 64 && w.sge[0].addr == 0x4000, "dci fields");
	CHECK(eng_wqe_parse(wqe, 96, ENG_QPT_RC, &w) != ENG_WQE_OK || w.raddr != 0x8000, "an RC parse has no av");
	eng_put_be32(wqe + 4, 9u << 8 | 4); /* the av cut off: the raddr segment would run past ds */
	CHECK(eng_wqe_parse(wqe, 96, ENG_QPT_DCI, &w) == ENG_WQE_BAD_DS, "dci without room for its segments");

	/* Receive WQEs: list ends at MLX5_INVALID_LKEY; SRQ next_wqe_index via struct mlx5_wqe_srq_next_seg. */
	uint8_t rw[64];
	memset(rw, 0, sizeof rw);
	struct mlx5_wqe_data_seg *ds = (struct mlx5_wqe_data_seg *)(void *)rw;
	ds[0].byte_count = htobe32(100);
	ds[0].lkey = htobe32(0x700);
	ds[0].addr = htobe64(0x9000);
	ds[1].lkey = htobe32(MLX5_INVALID_LKEY);
	struct eng_sge sg[4];
	CHECK(eng_rwqe_parse(rw, 64, 0, sg, 4, NULL) == 1 && sg[0].len == 100 && sg[0].lkey == 0x700 && sg[0].addr == 0x9000,
	      "rq wqe");
	memset(rw, 0, sizeof rw);
	struct mlx5_wqe_srq_next_seg *nx = (struct mlx5_wqe_srq_next_seg *)(void *)rw;
	nx->next_wqe_index = htobe16(5);
	ds = (struct mlx5_wqe_data_seg *)(void *)(rw + 16);
	ds[0].byte_count = htobe32(8);
	ds[0].lkey = htobe32(0x701);
	uint16_t next = 0;
	CHECK(eng_rwqe_parse(rw, 64, 1, sg, 4, &next) == 3 && next == 5 && sg[0].len == 8, "srq wqe (3 slots, no terminator)");

	/* CQE writer against struct mlx5_cqe64 / mlx5_err_cqe, 64 and 128 bytes, owner bit, scatter. */
	uint8_t cqe[128];
	struct eng_cqe_info ci;
	memset(&ci, 0, sizeof ci);
	ci.opcode = MLX5_CQE_RESP_SEND_IMM;
	ci.wqe_counter = 0x1234;
	ci.qpn = 0xabcdef;
	ci.byte_cnt = 4096;
	ci.imm_inval_pkey = 0x01020304;
	ci.srqn_uidx = 0x77;
	ci.src_qpn = 0x424242;
	ci.sl = 5;
	ci.grh = 1;
	ci.slid = 0x99;
	uint8_t op = eng_cqe_build(cqe, 64, &ci, 1);
	struct mlx5_cqe64 *c = (struct mlx5_cqe64 *)(void *)cqe;
	CHECK(op == (MLX5_CQE_RESP_SEND_IMM << 4 | 1), "op_own 0x%x", op);
	CHECK(be16toh(c->wqe_counter) == 0x1234 && (be32toh(c->sop_drop_qpn) & 0xffffff) == 0xabcdef &&
	      be32toh(c->byte_cnt) == 4096 && be32toh(c->imm_inval_pkey) == 0x01020304 && be32toh(c->srqn_uidx) == 0x77 &&
	      be16toh(c->slid) == 0x99 && be32toh(c->flags_rqpn) == (1u << 28 | 5u << 24 | 0x424242), "cqe64 fields");
	ci.inline_data = "0123456789abcdefghijklmnopqrstuvwxyzABCD";
	ci.inline_len = 40;
	op = eng_cqe_build(cqe, 128, &ci, 0);
	c = (struct mlx5_cqe64 *)(void *)(cqe + 64);
	CHECK((op & MLX5_INLINE_SCATTER_64) && memcmp(cqe, ci.inline_data, 40) == 0 && be32toh(c->byte_cnt) == 4096,
	      "scatter 64 into the first half of a 128-byte CQE");
	CHECK(eng_cqe_build(cqe, 64, &ci, 0) == (MLX5_CQE_RESP_SEND_IMM << 4), "40 bytes do not fit a 64-byte CQE");
	ci.inline_len = 32;
	CHECK(eng_cqe_build(cqe, 64, &ci, 0) & MLX5_INLINE_SCATTER_32, "32 bytes do");
	ci.opcode = MLX5_CQE_REQ; /* requester: SCATTER_32 at the entry start for both sizes, nothing above 32 */
	ci.inline_len = 8;
	op = eng_cqe_build(cqe, 128, &ci, 1);
	CHECK(op == (MLX5_CQE_REQ << 4 | MLX5_INLINE_SCATTER_32 | 1) && memcmp(cqe, ci.inline_data, 8) == 0, "req 128");
	/* ... and in the 64-byte CQE part, where UCX's rc_mlx5 reads SCATTER_32 data */
	CHECK(memcmp(cqe + 64, ci.inline_data, 8) == 0, "req 128: data also in the CQE part");
	ci.inline_len = 40;
	CHECK(eng_cqe_build(cqe, 128, &ci, 1) == (MLX5_CQE_REQ << 4 | 1), "req 40 bytes: no scatter");
	memset(&ci, 0, sizeof ci);
	ci.opcode = MLX5_CQE_REQ_ERR;
	ci.wqe_opcode = MLX5_OPCODE_RDMA_WRITE;
	ci.syndrome = MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR;
	ci.vendor_syndrome = 0x81;
	ci.qpn = 0x10;
	ci.wqe_counter = 9;
	op = eng_cqe_build(cqe, 64, &ci, 0);
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)(void *)cqe;
	CHECK(op >> 4 == MLX5_CQE_REQ_ERR && e->syndrome == MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR &&
	      e->vendor_err_synd == 0x81 && be32toh(e->s_wqe_opcode_qpn) == (MLX5_OPCODE_RDMA_WRITE << 24 | 0x10) &&
	      be16toh(e->wqe_counter) == 9, "err cqe");
	printf("t_wqe_unit: ok\n");
	return 0;
}
