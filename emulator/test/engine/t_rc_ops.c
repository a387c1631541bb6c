/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every RC send opcode through libmlx5's ibv_post_send, between two QPs of one process: data checked byte by
 * byte, completions checked with ibv_poll_cq, and the CQE bytes the engine wrote checked through mlx5dv.
 */
#include "etest.h"

static struct t_rawcq rawa, rawb;
static uint32_t na, nb; /* CQEs consumed so far on cq a / cq b */

/* Wait until CQE i of r is software-owned (owner bit of pass i / cqe_cnt), then return it. */
static struct mlx5_cqe64 *wait_raw(struct t_rawcq *r, uint32_t i)
{
	struct mlx5_cqe64 *c = t_cqe64(r, i);
	uint64_t end = t_ms() + 5000;
	for (;;) {
		/* acquire: the owner check and udma_from_device_barrier in one load, before the CQE's body is read */
		uint8_t op = __atomic_load_n(&c->op_own, __ATOMIC_ACQUIRE);
		if ((op >> 4) != MLX5_CQE_INVALID && (op & 1) == !!(i & r->cqe_cnt))
			return c;
		CHECK(t_ms() < end, "CQE %u never written", i);
		usleep(20);
	}
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

int main(void)
{
#ifdef T_CQE128
	setenv("MLX5_CQE_SIZE", "128", 1); /* libmlx5 then creates 128-byte CQEs */
#endif
	t_open();
	struct ibv_cq *cqa = ibv_create_cq(t_ctx, 256, NULL, NULL, 0);
	struct ibv_cq *cqb = ibv_create_cq(t_ctx, 256, NULL, NULL, 0);
	CHECK(cqa && cqb, "cq");
	t_rawcq(cqa, &rawa);
	t_rawcq(cqb, &rawb);
	struct ibv_qp *a = t_qp(IBV_QPT_RC, cqa, cqa, NULL, 1);
	struct ibv_qp *b = t_qp(IBV_QPT_RC, cqb, cqb, NULL, 1);
	t_connect(a, b->qp_num, &t_default_conn, 1);
	t_connect(b, a->qp_num, &t_default_conn, 1);
	uint8_t *ba, *bb;
	struct ibv_mr *ma = t_mr(1 << 16, T_ALL_ACCESS, (void **)&ba);
	struct ibv_mr *mb = t_mr(1 << 16, T_ALL_ACCESS, (void **)&bb);
	struct ibv_wc wc[4];

	/* 1. SEND of 100 bytes from 3 SGEs (one zero-length) into a 2-SGE receive. */
	{
		fill(ba, 100, 1);
		struct ibv_sge rs[2] = { { (uintptr_t)bb + 1000, 30, mb->lkey }, { (uintptr_t)bb + 2000, 200, mb->lkey } };
		struct ibv_recv_wr rwr = { .wr_id = 77, .sg_list = rs, .num_sge = 2 }, *rbad;
		CHECK(ibv_post_recv(b, &rwr, &rbad) == 0, "recv");
		struct ibv_sge ss[3] = { { (uintptr_t)ba, 40, ma->lkey }, { (uintptr_t)ba + 40, 0, ma->lkey },
					 { (uintptr_t)ba + 40, 60, ma->lkey } };
		struct ibv_send_wr wr = { .wr_id = 11, .sg_list = ss, .num_sge = 3, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		t_post_send(a, &wr);
		struct mlx5_cqe64 *c = wait_raw(&rawb, nb);
		CHECK((c->op_own >> 4) == MLX5_CQE_RESP_SEND, "op_own 0x%x", c->op_own);
		CHECK((c->op_own & (MLX5_INLINE_SCATTER_32 | MLX5_INLINE_SCATTER_64)) == 0, "no scatter for 100 B");
		CHECK(be32toh(c->byte_cnt) == 100, "byte_cnt %u", be32toh(c->byte_cnt));
		CHECK((be32toh(c->sop_drop_qpn) & 0xffffff) == b->qp_num, "qpn");
		CHECK(be16toh(c->wqe_counter) == 0, "wqe_counter %u", be16toh(c->wqe_counter));
		CHECK((be32toh(c->flags_rqpn) & 0xffffff) == a->qp_num, "src qpn in flags_rqpn");
		CHECK(t_poll(cqb, wc, 1, 5000) == 1, "recv completion");
		nb++;
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RECV && wc[0].wr_id == 77 &&
		      wc[0].byte_len == 100 && wc[0].qp_num == b->qp_num && wc[0].src_qp == a->qp_num,
		      "recv wc status %d opcode %d len %u", wc[0].status, wc[0].opcode, wc[0].byte_len);
		CHECK(memcmp(bb + 1000, ba, 30) == 0 && memcmp(bb + 2000, ba + 30, 70) == 0, "scattered data");
		CHECK(bb[2070] == 0, "nothing beyond the message");
		CHECK(t_poll(cqa, wc, 1, 5000) == 1, "send completion");
		na++;
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_SEND && wc[0].wr_id == 11, "send wc");
	}
	/* 2. SEND_IMM of 16 bytes: lands in the CQE (scatter-to-CQE, libmlx5 asks for it by default). */
	{
		memset(bb, 0, 4096);
		fill(ba, 16, 9);
		t_post_recv(b, 78, bb + 64, 64, mb->lkey);
		struct ibv_sge s = { (uintptr_t)ba, 16, ma->lkey };
		struct ibv_send_wr wr = { .wr_id = 12, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_IMM,
					  .send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(0xabcdef01) };
		t_post_send(a, &wr);
		struct mlx5_cqe64 *c = wait_raw(&rawb, nb);
		CHECK((c->op_own >> 4) == MLX5_CQE_RESP_SEND_IMM, "op_own 0x%x", c->op_own);
		if (rawb.cqe_size == 128) { /* payload in the first 64 bytes of the 128-byte entry */
			CHECK(c->op_own & MLX5_INLINE_SCATTER_64, "scatter-to-CQE flag (64)");
			CHECK(memcmp((uint8_t *)c - 64, ba, 16) == 0, "payload in the CQE");
		} else {
			CHECK(c->op_own & MLX5_INLINE_SCATTER_32, "scatter-to-CQE flag");
			CHECK(memcmp(c, ba, 16) == 0, "payload in the CQE");
		}
		CHECK(bb[64] == 0, "not yet in memory (the driver copies it on poll)");
		CHECK(be32toh(c->imm_inval_pkey) == 0xabcdef01, "imm");
		CHECK(t_poll(cqb, wc, 1, 5000) == 1, "recv");
		nb++;
		CHECK(wc[0].opcode == IBV_WC_RECV && (wc[0].wc_flags & IBV_WC_WITH_IMM) && wc[0].imm_data == htobe32(0xabcdef01) &&
		      wc[0].byte_len == 16, "imm wc");
		CHECK(memcmp(bb + 64, ba, 16) == 0, "libmlx5 copied the CQE payload");
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS, "send");
		na++;
	}
	/* 3. Inline SENDs of every size 1..128, enough of them to wrap the send ring many times. */
	for (int i = 0; i < 300; i++) {
		uint32_t len = 1 + (uint32_t)(i * 37) % 128;
		fill(ba, len, (uint8_t)i);
		memset(bb, 0xee, 256);
		t_post_recv(b, 1000 + (uint64_t)i, bb, 256, mb->lkey);
		struct ibv_sge s = { (uintptr_t)ba, len, 0 /* lkey ignored for inline */ };
		struct ibv_send_wr wr = { .wr_id = 2000 + (uint64_t)i, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE };
		t_post_send(a, &wr);
		CHECK(t_poll(cqb, wc, 1, 5000) == 1, "inline recv %d", i);
		nb++;
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == len && wc[0].wr_id == 1000 + (uint64_t)i,
		      "inline wc %d status %d len %u", i, wc[0].status, wc[0].byte_len);
		CHECK(memcmp(bb, ba, len) == 0 && bb[len] == 0xee, "inline data %d (len %u)", i, len);
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].wr_id == 2000 + (uint64_t)i, "inline send wc");
		na++;
	}
	/* 4. RDMA WRITE 4096 at an odd offset, WRITE_IMM of 64 bytes. */
	{
		fill(ba, 4096, 3);
		memset(bb, 0, 8192);
		struct ibv_sge s = { (uintptr_t)ba, 4096, ma->lkey };
		struct ibv_send_wr wr = { .wr_id = 13, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = (uintptr_t)bb + 7;
		wr.wr.rdma.rkey = mb->rkey;
		t_post_send(a, &wr);
		CHECK(t_poll(cqa, wc, 1, 5000) == 1, "write wc");
		na++;
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RDMA_WRITE, "write status %d", wc[0].status);
		CHECK(memcmp(bb + 7, ba, 4096) == 0 && bb[6] == 0 && bb[4103] == 0, "write data");
		t_post_recv(b, 79, bb + 8000, 16, mb->lkey);
		s.length = 64;
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htobe32(0x1234);
		wr.wr.rdma.remote_addr = (uintptr_t)bb + 5000;
		t_post_send(a, &wr);
		struct mlx5_cqe64 *c = wait_raw(&rawb, nb);
		CHECK((c->op_own >> 4) == MLX5_CQE_RESP_WR_IMM && be32toh(c->byte_cnt) == 64, "write_imm cqe");
		CHECK(t_poll(cqb, wc, 1, 5000) == 1, "write_imm recv");
		nb++;
		CHECK(wc[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc[0].imm_data == htobe32(0x1234) && wc[0].byte_len == 64 &&
		      wc[0].wr_id == 79, "write_imm wc");
		CHECK(memcmp(bb + 5000, ba, 64) == 0, "write_imm data");
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS, "write_imm send wc");
		na++;
	}
	/* 5. RDMA READ of 3000 bytes into two SGEs, then 8 bytes (requester scatter-to-CQE: sq_sig_all). */
	{
		fill(bb, 3000, 5);
		memset(ba, 0, 8192);
		struct ibv_sge s[2] = { { (uintptr_t)ba + 100, 1000, ma->lkey }, { (uintptr_t)ba + 3000, 2000, ma->lkey } };
		struct ibv_send_wr wr = { .wr_id = 14, .sg_list = s, .num_sge = 2, .opcode = IBV_WR_RDMA_READ,
					  .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = (uintptr_t)bb;
		wr.wr.rdma.rkey = mb->rkey;
		t_post_send(a, &wr);
		CHECK(t_poll(cqa, wc, 1, 5000) == 1, "read wc");
		na++;
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RDMA_READ && wc[0].byte_len == 3000,
		      "read status %d opcode %d len %u", wc[0].status, wc[0].opcode, wc[0].byte_len);
		CHECK(memcmp(ba + 100, bb, 1000) == 0 && memcmp(ba + 3000, bb + 1000, 2000) == 0, "read data");
		s[0].length = 8;
		wr.num_sge = 1;
		wr.wr.rdma.remote_addr = (uintptr_t)bb + 16;
		memset(ba + 100, 0, 8);
		t_post_send(a, &wr);
		struct mlx5_cqe64 *c = wait_raw(&rawa, na);
		CHECK((c->op_own >> 4) == MLX5_CQE_REQ && (c->op_own & MLX5_INLINE_SCATTER_32), "read scatter cqe 0x%x",
		      c->op_own);
		CHECK(memcmp((uint8_t *)c + 64 - rawa.cqe_size, bb + 16, 8) == 0, "READ data at the start of the entry");
		CHECK(be32toh(c->sop_drop_qpn) >> 24 == MLX5_OPCODE_RDMA_READ, "wqe opcode in sop_drop_qpn");
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == 8, "read8");
		na++;
		CHECK(memcmp(ba + 100, bb + 16, 8) == 0, "read8 data copied from the CQE by libmlx5");
	}
	/* 6. Atomics: host-order words (mlx5 core sets host-endian 8-byte atomics), old value returned as stored. */
	{
		uint64_t *remote = (uint64_t *)(void *)(bb + 4096), *local = (uint64_t *)(void *)(ba + 4096);
		*remote = 5;
		struct ibv_sge s = { (uintptr_t)local, 8, ma->lkey };
		struct ibv_send_wr wr = { .wr_id = 15, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
					  .send_flags = IBV_SEND_SIGNALED };
		wr.wr.atomic.remote_addr = (uintptr_t)remote;
		wr.wr.atomic.rkey = mb->rkey;
		wr.wr.atomic.compare_add = 3;
		t_post_send(a, &wr);
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_FETCH_ADD &&
		      wc[0].byte_len == 8, "fetch_add wc");
		na++;
		CHECK(*local == 5 && *remote == 8, "fetch_add values %llu %llu",
		      (unsigned long long)*local, (unsigned long long)*remote);
		wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.compare_add = 8;
		wr.wr.atomic.swap = 42;
		t_post_send(a, &wr);
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_COMP_SWAP, "cs");
		na++;
		CHECK(*local == 8 && *remote == 42, "cmp_swap values");
		wr.wr.atomic.compare_add = 7; /* mismatch: no swap */
		wr.wr.atomic.swap = 1;
		t_post_send(a, &wr);
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS, "cs2");
		na++;
		CHECK(*local == 42 && *remote == 42, "failed compare leaves memory");
	}
	/* 7. SEND with invalidate, then a fenced SEND after a READ. */
	{
		t_post_recv(b, 80, bb, 64, mb->lkey);
		struct ibv_sge s = { (uintptr_t)ba, 40, ma->lkey };
		struct ibv_send_wr wr = { .wr_id = 16, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_INV,
					  .send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = 0x55667788 };
		t_post_send(a, &wr);
		CHECK(t_poll(cqb, wc, 1, 5000) == 1, "inv recv");
		nb++;
		CHECK((wc[0].wc_flags & IBV_WC_WITH_INV) && wc[0].invalidated_rkey == 0x55667788, "invalidate");
		CHECK(t_poll(cqa, wc, 1, 5000) == 1, "inv send");
		na++;
		t_post_recv(b, 81, bb, 64, mb->lkey);
		struct ibv_send_wr rd = { .wr_id = 17, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
					  .send_flags = IBV_SEND_SIGNALED };
		rd.wr.rdma.remote_addr = (uintptr_t)bb + 512;
		rd.wr.rdma.rkey = mb->rkey;
		struct ibv_send_wr snd = { .wr_id = 18, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE };
		rd.next = &snd;
		t_post_send(a, &rd);
		CHECK(t_poll(cqa, wc, 2, 5000) == 2 && wc[0].wr_id == 17 && wc[1].wr_id == 18 &&
		      wc[0].status == IBV_WC_SUCCESS && wc[1].status == IBV_WC_SUCCESS, "fenced order");
		na += 2;
		CHECK(t_poll(cqb, wc, 1, 5000) == 1 && wc[0].wr_id == 81, "fenced recv");
		nb++;
	}
	CHECK(t_violations() == 0, "strict violations %lu", t_violations());
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_dereg_mr(ma);
	ibv_dereg_mr(mb);
	free(ba);
	free(bb);
	ibv_destroy_cq(cqa);
	ibv_destroy_cq(cqb);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("t_rc_ops: ok (%u-byte CQEs)\n", rawa.cqe_size);
	return 0;
}
