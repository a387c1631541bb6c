/* SPDX-License-Identifier: Apache-2.0 */
/* CREATE_QP / DESTROY_QP / QUERY_QP beyond the happy path: the mlx5 driver data rules (counts, flags, user
 * index, buffers), bad handles, QP types that are not emulated, and the fabric registry entry of each QP. */
#include <sys/mman.h>
#include <rdma/mlx5-abi.h>

#include "common.h"
#include "emu_objects.h"

struct raw_resp {
	struct ib_uverbs_create_qp_resp r;
	struct mlx5_ib_create_qp_resp d;
};

static uint8_t g_ring[64 * 64 + 16 * 64] __attribute__((aligned(4096)));
static uint32_t g_db[16] __attribute__((aligned(64)));

/* A raw CREATE_QP is a core request c and mlx5's request d, sent back to back (raw_cmd_udata): two objects, not
 * one struct, because struct ib_uverbs_create_qp ends in a flexible array and so cannot be a member of another
 * struct in C11. */
static void raw_init(struct ib_uverbs_create_qp *c, struct mlx5_ib_create_qp *d, struct raw_resp *r,
		     struct ibv_pd *pd, struct ibv_cq *cq)
{
	memset(c, 0, sizeof(*c));
	memset(d, 0, sizeof(*d));
	c->response = (uintptr_t)r;
	c->pd_handle = pd->handle;
	c->send_cq_handle = cq->handle;
	c->recv_cq_handle = cq->handle;
	c->max_send_wr = 64;
	c->max_recv_wr = 16;
	c->max_send_sge = 1;
	c->max_recv_sge = 1;
	c->qp_type = IBV_QPT_RC;
	d->buf_addr = (uintptr_t)g_ring;
	d->db_addr = (uintptr_t)g_db;
	d->sq_wqe_count = 64;
	d->rq_wqe_count = 16;
	d->rq_wqe_shift = 6;
	d->flags = MLX5_QP_FLAG_SCATTER_CQE;
	d->uidx = 0x4242;
}

static int raw_create(struct ibv_context *ctx, const struct ib_uverbs_create_qp *c,
		      const struct mlx5_ib_create_qp *d)
{
	return raw_cmd_udata(ctx, IB_USER_VERBS_CMD_CREATE_QP, c, sizeof(*c), d, sizeof(*d), sizeof(struct raw_resp));
}

int main(void)
{
	struct debug_api dbg = debug_api();
	int (*reg_qp_get)(uint32_t, struct emu_reg_qp *);
	*(void **)&reg_qp_get = dlsym(RTLD_DEFAULT, "emu_reg_qp_get");
	REQUIRE(reg_qp_get, "emu_reg_qp_get");
	struct ibv_context *ctx = open_dev(0);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	REQUIRE(pd && cq, "pd/cq");
	struct ibv_port_attr pa;
	ibv_query_port(ctx, 1, &pa);

	/* a raw create that works: the emulator keeps exactly what was sent */
	struct ib_uverbs_create_qp qc;
	struct mlx5_ib_create_qp qd;
	struct raw_resp r;
	raw_init(&qc, &qd, &r, pd, cq);
	memset(&r, 0, sizeof(r));
	CHECK_ERR(raw_create(ctx, &qc, &qd), 0);
	struct mlx5emu_debug_qp d;
	REQUIRE(dbg.qp(r.r.qpn, &d) == 0, "raw qp 0x%x unknown", r.r.qpn);
	CHECK(d.uidx == 0x4242 && d.sq_wqe_cnt == 64 && d.rq_wqe_cnt == 16 && d.rq_wqe_shift == 6, "raw qp sizes");
	CHECK(d.rq_buf == (uintptr_t)g_ring && d.sq_buf == (uintptr_t)g_ring + 16 * 64, "SQ follows the RQ");
	CHECK(d.dbrec == (uintptr_t)g_db && d.bfreg_index == r.d.bfreg_index, "dbrec, bfreg");
	CHECK(r.r.max_send_wr == 64 && r.r.max_recv_wr == 16, "caps echoed %u %u", r.r.max_send_wr, r.r.max_recv_wr);
	struct emu_reg_qp e;
	CHECK(reg_qp_get(r.r.qpn, &e) == 0, "registry entry");
	CHECK(e.pid == getpid() && e.type == IBV_QPT_RC && e.state == IBV_QPS_RESET && e.dev_index == 0 &&
	      e.lid == pa.lid && e.port == 1, "registry fields pid %d type %u state %u lid %u", e.pid, e.type, e.state,
	      e.lid);
	union ibv_gid gid;
	ibv_query_gid(ctx, 1, 0, &gid);
	CHECK(memcmp(e.gid, gid.raw, 16) == 0, "registry gid is port GID 0");
	struct ib_uverbs_destroy_qp_resp dr;
	struct ib_uverbs_destroy_qp dq = { .response = (uintptr_t)&dr, .qp_handle = r.r.qp_handle };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_DESTROY_QP, &dq, sizeof(dq), sizeof(dr)), 0);
	CHECK(reg_qp_get(r.r.qpn, &e) == -1, "registry entry survives destroy");
	/* ... and a second destroy of that handle */
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_DESTROY_QP, &dq, sizeof(dq), sizeof(dr)), EINVAL);

	/* driver-data failures */
	raw_init(&qc, &qd, &r, pd, cq);
	qd.sq_wqe_count = 48;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL); /* not a power of two */
	raw_init(&qc, &qd, &r, pd, cq);
	qd.sq_wqe_count = 65536;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL); /* beyond 1 << log_max_qp_sz */
	raw_init(&qc, &qd, &r, pd, cq);
	qd.rq_wqe_shift = 40;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qd.rq_wqe_shift = 32; /* the kernel's own bound lets 32 through: no 1 << 32 on the way to EINVAL */
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qd.rq_wqe_shift = 10; /* 1 KiB receive WQEs: beyond max_rq_desc_sz */
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qd.uidx = 0xffffff; /* the "no user index" value under cqe_version 1 */
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qd.uidx = 0x1000000;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qd.flags |= MLX5_QP_FLAG_BFREG_INDEX; /* a dynamic bfreg whose page was never mapped with ALLOC_WC */
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qd.flags |= MLX5_QP_FLAG_UAR_PAGE_INDEX; /* UAR objects come from the ioctl ABI only */
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qd.flags |= MLX5_QP_FLAG_UAR_PAGE_INDEX | MLX5_QP_FLAG_BFREG_INDEX; /* create_user_qp: both is EINVAL */
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qd.flags |= 1u << 20;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qd.flags |= MLX5_QP_FLAG_SIGNATURE;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EOPNOTSUPP);
	raw_init(&qc, &qd, &r, pd, cq);
	qd.buf_addr = 0x2000; /* not mapped */
	CHECK_ERR(raw_create(ctx, &qc, &qd), EFAULT);
	raw_init(&qc, &qd, &r, pd, cq);
	qd.db_addr = 0x3000;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EFAULT);
	/* core failures */
	raw_init(&qc, &qd, &r, pd, cq);
	qc.pd_handle = 0xdead;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qc.send_cq_handle = 0xdead;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qc.is_srq = 1;
	qc.srq_handle = 0xdead;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qc.qp_type = 7;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qc.max_send_sge = 31;
	CHECK_ERR(raw_create(ctx, &qc, &qd), EINVAL);
	raw_init(&qc, &qd, &r, pd, cq);
	qc.qp_type = IBV_QPT_RAW_PACKET; /* raw Ethernet on an InfiniBand port (EPERM first without CAP_NET_RAW) */
	CHECK_ERR(raw_create(ctx, &qc, &qd), emu_test_cap_net_raw() ? EOPNOTSUPP : EPERM);

	/* through the verbs: out-of-range caps, and types the emulator does not serve */
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 40000;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	errno = 0;
	CHECK(!ibv_create_qp(pd, &a) && errno == EINVAL, "max_send_wr 40000: errno %d", errno);
	a.cap.max_send_wr = 1;
	a.cap.max_send_sge = 31;
	errno = 0;
	CHECK(!ibv_create_qp(pd, &a) && errno == EINVAL, "max_send_sge 31: errno %d", errno);
	struct ibv_qp_init_attr_ex ax;
	memset(&ax, 0, sizeof(ax));
	ax.send_cq = ax.recv_cq = cq;
	ax.qp_type = IBV_QPT_DRIVER;
	ax.pd = pd;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD;
	ax.cap.max_send_wr = 1;
	ax.cap.max_send_sge = 1;
	struct mlx5dv_qp_init_attr dva = { .comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
					   .dc_init_attr = { .dc_type = MLX5DV_DCTYPE_DCI } };
	/* DC QPs are emulated (t_dc covers their rules and traffic): a DCI is created; with a receive queue it is not */
	struct ibv_qp *dci = mlx5dv_create_qp(ctx, &ax, &dva);
	CHECK(dci && dci->qp_num, "DCI: errno %d", errno);
	CHECK(ibv_destroy_qp(dci) == 0, "destroy DCI");
	ax.cap.max_recv_wr = 1;
	ax.cap.max_recv_sge = 1;
	errno = 0;
	CHECK(!mlx5dv_create_qp(ctx, &ax, &dva) && errno == EINVAL, "DCI with receive WRs: errno %d", errno);

	/* extended create/modify: unknown comp_mask bits, RSS tables, attribute bits beyond RATE_LIMIT */
	{
		struct {
			struct ib_uverbs_cmd_hdr h;
			struct ib_uverbs_ex_cmd_hdr eh;
			struct ib_uverbs_ex_create_qp c;
			struct mlx5_ib_create_qp d;
		} x;
		uint8_t xr[128];
		memset(&x, 0, sizeof(x));
		x.h.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_QP;
		x.h.in_words = sizeof(x.c) / 8;
		x.h.out_words = sizeof(struct ib_uverbs_ex_create_qp_resp) / 8;
		x.eh.provider_in_words = sizeof(x.d) / 8;
		x.eh.provider_out_words = sizeof(struct mlx5_ib_create_qp_resp) / 8;
		x.eh.response = (uintptr_t)xr;
		x.c.pd_handle = pd->handle;
		x.c.send_cq_handle = x.c.recv_cq_handle = cq->handle;
		x.c.max_send_wr = 64;
		x.c.max_recv_wr = 16;
		x.c.max_send_sge = x.c.max_recv_sge = 1;
		x.c.qp_type = IBV_QPT_RC;
		struct ib_uverbs_create_qp tc;
		struct raw_resp tr;
		raw_init(&tc, &x.d, &tr, pd, cq);
		CHECK(write(ctx->cmd_fd, &x, sizeof(x)) == (ssize_t)sizeof(x), "ex create_qp: %s", strerror(errno));
		uint32_t xh = ((struct ib_uverbs_ex_create_qp_resp *)xr)->base.qp_handle;
		x.c.comp_mask = 2;
		errno = 0;
		CHECK(write(ctx->cmd_fd, &x, sizeof(x)) < 0 && errno == EINVAL, "ex comp_mask: errno %d", errno);
		x.c.comp_mask = IB_UVERBS_CREATE_QP_MASK_IND_TABLE;
		errno = 0;
		/* RSS QP naming indirection table handle 0, which does not exist: the core's uobj lookup fails first
		 * (create_qp() in uverbs_cmd.c); RSS QPs themselves are covered by t_wq_eth */
		CHECK(write(ctx->cmd_fd, &x, sizeof(x)) < 0 && errno == EINVAL, "RSS: errno %d", errno);
		x.c.comp_mask = 0;
		x.c.create_flags = 1u << 30;
		errno = 0;
		CHECK(write(ctx->cmd_fd, &x, sizeof(x)) < 0 && errno == EINVAL, "unknown create flag: errno %d", errno);
		struct {
			struct ib_uverbs_cmd_hdr h;
			struct ib_uverbs_ex_cmd_hdr eh;
			struct ib_uverbs_ex_modify_qp m;
		} xm;
		memset(&xm, 0, sizeof(xm));
		xm.h.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_MODIFY_QP;
		xm.h.in_words = sizeof(xm.m) / 8;
		xm.h.out_words = 1;
		xm.eh.response = (uintptr_t)xr;
		xm.m.base.qp_handle = xh;
		xm.m.base.attr_mask = IBV_QP_STATE | (1u << 30);
		errno = 0;
		CHECK(write(ctx->cmd_fd, &xm, sizeof(xm)) < 0 && errno == EOPNOTSUPP, "ex modify bit 30: errno %d", errno);
		xm.m.base.attr_mask = IBV_QP_STATE | IBV_QP_RATE_LIMIT; /* raw packet only */
		xm.m.base.qp_state = IBV_QPS_INIT;
		errno = 0;
		CHECK(write(ctx->cmd_fd, &xm, sizeof(xm)) < 0 && errno == EINVAL, "rate limit on RC: errno %d", errno);
		struct ib_uverbs_destroy_qp_resp xdr;
		struct ib_uverbs_destroy_qp xdq = { .response = (uintptr_t)&xdr, .qp_handle = xh };
		CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_DESTROY_QP, &xdq, sizeof(xdq), sizeof(xdr)), 0);
	}

	/* QUERY_QP of a bad handle; QPNs unique over many QPs of two contexts */
	struct ib_uverbs_query_qp_resp qr;
	struct ib_uverbs_query_qp qq = { .response = (uintptr_t)&qr, .qp_handle = 0xdead };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_QUERY_QP, &qq, sizeof(qq), sizeof(qr)), EINVAL);
	struct ibv_context *ctx2 = open_dev(0);
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx2);
	struct ibv_cq *cq2 = ibv_create_cq(ctx2, 64, NULL, NULL, 0);
	enum { N = 40 };
	struct ibv_qp *qps[N];
	for (int i = 0; i < N; i++) {
		qps[i] = make_qp(i % 2 ? pd2 : pd, i % 2 ? cq2 : cq, IBV_QPT_UD, NULL);
		REQUIRE(qps[i], "qp %d", i);
		CHECK(qps[i]->qp_num > 1 && qps[i]->qp_num <= 0xffffff, "qpn 0x%x", qps[i]->qp_num);
		for (int j = 0; j < i; j++)
			CHECK(qps[i]->qp_num != qps[j]->qp_num, "duplicate qpn 0x%x", qps[i]->qp_num);
	}
	for (int i = 0; i < N; i++)
		CHECK_ERR(ibv_destroy_qp(qps[i]), 0);
	ibv_destroy_cq(cq2);
	ibv_dealloc_pd(pd2);
	ibv_close_device(ctx2);

	CHECK_ERR(ibv_destroy_cq(cq), 0);
	CHECK_ERR(ibv_dealloc_pd(pd), 0);
	CHECK_ERR(ibv_close_device(ctx), 0);
	return test_done("t_qp_create");
}
