/* SPDX-License-Identifier: Apache-2.0 */
/* CREATE/MODIFY/QUERY/DESTROY_SRQ: sizes, the armed limit, and mlx5's failure cases. */
#include <fcntl.h>

#include "common.h"

int main(void)
{
	struct debug_api dbg = debug_api();
	struct ibv_context *ctx = open_dev(0);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	REQUIRE(pd && cq, "pd/cq");

	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 3 } };
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);
	REQUIRE(srq, "create_srq: %s", strerror(errno));
	CHECK(sa.attr.max_wr >= 64 && sa.attr.max_sge == 3, "granted %u/%u", sa.attr.max_wr, sa.attr.max_sge);
	uint32_t srqn = 0;
	CHECK_ERR(ibv_get_srq_num(srq, &srqn), 0);
	struct mlx5emu_debug_srq d;
	REQUIRE(dbg.srq(srqn, &d) == 0, "emulator has no srqn 0x%x", srqn);
	/* 16-byte next segment + 3 x 16-byte data segments -> 64-byte WQEs; 2 * 64 + 1 WQEs -> 256 */
	CHECK(d.wqe_shift == 6 && d.wqe_cnt == 256 && d.max_sge == 3, "srq %u << %u, %u sges", d.wqe_cnt, d.wqe_shift,
	      d.max_sge);
	CHECK(d.uidx != 0xffffff, "user index under cqe_version 1: 0x%x", d.uidx);

	struct ibv_srq_attr q;
	CHECK_ERR(ibv_query_srq(srq, &q), 0);
	CHECK(q.srq_limit == 0, "initial limit %u", q.srq_limit);
	struct ibv_srq_attr m = { .srq_limit = 10 };
	CHECK_ERR(ibv_modify_srq(srq, &m, IBV_SRQ_LIMIT), 0);
	CHECK(dbg.srq(srqn, &d) == 0 && d.srq_limit == 10, "limit armed: %u", d.srq_limit);
	CHECK_ERR(ibv_query_srq(srq, &q), 0);
	CHECK(q.srq_limit == 10, "queried limit %u", q.srq_limit);

	/* failures: resize (mlx5 cannot), a limit beyond the ring, too many WRs or SGEs, in use, bad handles */
	m.max_wr = 128;
	CHECK_ERR(ibv_modify_srq(srq, &m, IBV_SRQ_MAX_WR), EINVAL);
	m.srq_limit = 4096;
	CHECK_ERR(ibv_modify_srq(srq, &m, IBV_SRQ_LIMIT), EINVAL);
	struct ibv_srq_init_attr big = { .attr = { .max_wr = 40000, .max_sge = 1 } };
	errno = 0;
	CHECK(!ibv_create_srq(pd, &big) && errno == EINVAL, "max_wr 40000: errno %d", errno);
	struct ibv_srq_init_attr sges = { .attr = { .max_wr = 16, .max_sge = 64 } };
	errno = 0;
	CHECK(!ibv_create_srq(pd, &sges) && errno == EINVAL, "max_sge 64: errno %d", errno);
	struct ibv_qp *qp = make_qp(pd, cq, IBV_QPT_RC, srq);
	REQUIRE(qp, "qp on srq: %s", strerror(errno));
	CHECK_ERR(ibv_destroy_srq(srq), EBUSY);
	CHECK_ERR(ibv_destroy_qp(qp), 0);
	struct ib_uverbs_query_srq_resp qr;
	struct ib_uverbs_query_srq qs = { .response = (uintptr_t)&qr, .srq_handle = 0xdead };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_QUERY_SRQ, &qs, sizeof(qs), sizeof(qr)), EINVAL);
	struct ib_uverbs_modify_srq ms = { .srq_handle = 0xdead, .attr_mask = IBV_SRQ_LIMIT, .srq_limit = 1 };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_MODIFY_SRQ, &ms, sizeof(ms), 0), EINVAL);
	/* an XRC SRQ needs its XRC domain (t_xrcd checks XRC domains and SRQs in full) */
	struct ibv_srq_init_attr_ex xa;
	memset(&xa, 0, sizeof(xa));
	xa.srq_type = IBV_SRQT_XRC;
	xa.pd = pd;
	xa.cq = cq;
	xa.attr.max_wr = 8;
	xa.attr.max_sge = 1;
	xa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ;
	errno = 0;
	CHECK(!ibv_create_srq_ex(ctx, &xa), "XRC SRQ without an XRC domain");
	struct ibv_xrcd_init_attr xd = { .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS, .fd = -1,
					 .oflags = O_CREAT };
	errno = 0;
	struct ibv_xrcd *xrcd = ibv_open_xrcd(ctx, &xd);
	CHECK(xrcd, "XRC domain: errno %d", errno);
	if (xrcd) {
		xa.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD;
		xa.xrcd = xrcd;
		struct ibv_srq *xs = ibv_create_srq_ex(ctx, &xa);
		CHECK(xs, "XRC SRQ: errno %d", errno);
		CHECK_ERR(ibv_close_xrcd(xrcd), EBUSY);
		if (xs)
			CHECK_ERR(ibv_destroy_srq(xs), 0);
		CHECK_ERR(ibv_close_xrcd(xrcd), 0);
	}

	uint32_t h = srq->handle;
	CHECK_ERR(ibv_destroy_srq(srq), 0);
	CHECK(dbg.srq(srqn, &d) == -1, "srqn alive after destroy");
	struct ib_uverbs_destroy_srq_resp dr;
	struct ib_uverbs_destroy_srq ds = { .response = (uintptr_t)&dr, .srq_handle = h };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_DESTROY_SRQ, &ds, sizeof(ds), sizeof(dr)), EINVAL);

	CHECK_ERR(ibv_destroy_cq(cq), 0);
	CHECK_ERR(ibv_dealloc_pd(pd), 0);
	CHECK_ERR(ibv_close_device(ctx), 0);
	return test_done("t_srq");
}
