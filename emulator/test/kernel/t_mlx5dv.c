/* SPDX-License-Identifier: Apache-2.0 */
/* After ibv_create_qp/ibv_create_srq and mlx5dv_init_obj, the rings, doorbell records and BlueFlame registers
 * libmlx5 hands to a direct-verbs user are exactly the memory the emulated kernel registered for the engine. */
#include "common.h"

static void check_qp(struct debug_api *dbg, struct ibv_qp *qp, struct ibv_cq *cq)
{
	struct mlx5dv_qp dv;
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o = { .qp = { .in = qp, .out = &dv }, .cq = { .in = cq, .out = &dcq } };
	REQUIRE(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ) == 0, "mlx5dv_init_obj");
	struct mlx5emu_debug_qp d;
	REQUIRE(dbg->qp(qp->qp_num, &d) == 0, "emulator has no qpn 0x%x", qp->qp_num);
	CHECK(d.sq_buf == (uintptr_t)dv.sq.buf, "qpn 0x%x: sq buf 0x%llx vs mlx5dv %p", d.qpn,
	      (unsigned long long)d.sq_buf, dv.sq.buf);
	CHECK(d.sq_wqe_cnt == dv.sq.wqe_cnt && dv.sq.stride == 64, "sq %u x %u vs %u", dv.sq.wqe_cnt, dv.sq.stride,
	      d.sq_wqe_cnt);
	if (!qp->srq) {
		CHECK(d.rq_buf == (uintptr_t)dv.rq.buf, "qpn 0x%x: rq buf", d.qpn);
		CHECK(d.rq_wqe_cnt == dv.rq.wqe_cnt && (1u << d.rq_wqe_shift) == dv.rq.stride, "rq %u x %u vs %u << %u",
		      dv.rq.wqe_cnt, dv.rq.stride, d.rq_wqe_cnt, d.rq_wqe_shift);
	} else {
		CHECK(d.rq_wqe_cnt == 0 && dv.rq.wqe_cnt == 0, "an SRQ QP has no RQ");
	}
	CHECK(d.dbrec == (uintptr_t)dv.dbrec, "qpn 0x%x: dbrec 0x%llx vs %p", d.qpn, (unsigned long long)d.dbrec,
	      (void *)dv.dbrec);
	CHECK(d.uar_page_user_va != 0, "UAR page %u not mapped", d.uar_page);
	CHECK(d.uar_page_user_va + d.bf_offset == (uintptr_t)dv.bf.reg, "qpn 0x%x: bf.reg %p vs page 0x%llx + 0x%x",
	      d.qpn, dv.bf.reg, (unsigned long long)d.uar_page_user_va, d.bf_offset);
	CHECK(d.bf_offset == 0x800 || d.bf_offset == 0xa00, "bf offset 0x%x", d.bf_offset);
	/* bfreg 0 is the shared register without BlueFlame (libmlx5 gives it buf_size 0) */
	CHECK(dv.bf.size == (d.bfreg_index == 0 ? 0u : 256u), "bf size %u for bfreg %u", dv.bf.size, d.bfreg_index);
	CHECK(d.send_cqn == dcq.cqn && d.recv_cqn == dcq.cqn, "cqns");
	CHECK(d.create_flags & (1u << 1), "libmlx5 asks for scatter-to-CQE by default (flags 0x%x)", d.create_flags);
	/* the engine's view of the UAR page is the same physical page */
	volatile uint64_t *user = (volatile uint64_t *)(uintptr_t)(d.uar_page_user_va + 0x400);
	volatile uint64_t *alias = (volatile uint64_t *)(uintptr_t)(d.uar_page_alias_va + 0x400);
	*user = 0x1122334455667788ULL ^ d.qpn;
	CHECK(*alias == (0x1122334455667788ULL ^ d.qpn), "alias mapping is not the user's UAR page");
	*user = 0;
}

int main(void)
{
	struct debug_api dbg = debug_api();
	struct ibv_context *ctx = open_dev(0);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	REQUIRE(pd && cq, "pd/cq");

	/* more QPs than BlueFlame registers: dedicated ones first, then shared ones, all consistent */
	enum { N = 24 };
	struct ibv_qp *qps[N];
	uint32_t seen_bf[64] = { 0 };
	for (int i = 0; i < N; i++) {
		enum ibv_qp_type t = i % 3 == 0 ? IBV_QPT_RC : i % 3 == 1 ? IBV_QPT_UC : IBV_QPT_UD;
		qps[i] = make_qp(pd, cq, t, NULL);
		REQUIRE(qps[i], "qp %d: %s", i, strerror(errno));
		check_qp(&dbg, qps[i], cq);
		struct mlx5emu_debug_qp d;
		dbg.qp(qps[i]->qp_num, &d);
		if (d.bfreg_index < 64)
			seen_bf[d.bfreg_index]++;
	}
	int distinct = 0;
	for (int i = 0; i < 64; i++)
		distinct += seen_bf[i] != 0;
	CHECK(distinct > 4, "only %d distinct BlueFlame registers for %d QPs", distinct, N);

	/* an SRQ and a QP on it */
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 100, .max_sge = 2 } };
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);
	REQUIRE(srq, "srq: %s", strerror(errno));
	struct mlx5dv_srq dsrq = { .comp_mask = MLX5DV_SRQ_MASK_SRQN };
	struct mlx5dv_obj o = { .srq = { .in = srq, .out = &dsrq } };
	REQUIRE(mlx5dv_init_obj(&o, MLX5DV_OBJ_SRQ) == 0, "init srq");
	struct mlx5emu_debug_srq ds;
	REQUIRE(dbg.srq(dsrq.srqn, &ds) == 0, "emulator has no srqn 0x%x", dsrq.srqn);
	CHECK(ds.buf == (uintptr_t)dsrq.buf && ds.dbrec == (uintptr_t)dsrq.dbrec, "srq buf/dbrec");
	/* libmlx5 (srq.c mlx5_alloc_srq_buf) sizes the ring for 2 * max_wr + 1 WQEs, the upper part being its wait
	 * queue, and tells the kernel max_wr = ring - 1: 100 -> 256 WQEs, of which the application sees tail = 127 */
	CHECK(ds.wqe_cnt == 256 && dsrq.tail == 127 && (1u << ds.wqe_shift) == dsrq.stride,
	      "srq %u << %u vs tail %u stride %u", ds.wqe_cnt, ds.wqe_shift, dsrq.tail, dsrq.stride);
	struct ibv_qp *sq = make_qp(pd, cq, IBV_QPT_RC, srq);
	REQUIRE(sq, "srq qp: %s", strerror(errno));
	check_qp(&dbg, sq, cq);
	struct mlx5emu_debug_qp d;
	dbg.qp(sq->qp_num, &d);
	CHECK(d.srqn == dsrq.srqn, "QP's srqn");

	CHECK_ERR(ibv_destroy_qp(sq), 0);
	CHECK_ERR(ibv_destroy_srq(srq), 0);
	for (int i = 0; i < N; i++)
		CHECK_ERR(ibv_destroy_qp(qps[i]), 0);
	CHECK_ERR(ibv_destroy_cq(cq), 0);
	CHECK_ERR(ibv_dealloc_pd(pd), 0);
	CHECK_ERR(ibv_close_device(ctx), 0);
	return test_done("t_mlx5dv");
}
