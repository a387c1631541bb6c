/* SPDX-License-Identifier: Apache-2.0 */
/* CREATE_CQ (legacy and extended), RESIZE_CQ, DESTROY_CQ, CREATE_COMP_CHANNEL: the ring the emulator registered
 * is the one libmlx5 allocated, sizes round like the kernel's, and the failure cases answer its errno. */
#include <rdma/mlx5-abi.h>

#include "common.h"

static void check_cq_matches(struct debug_api *dbg, struct ibv_cq *cq, int want_cqe_cnt, const char *what)
{
	struct mlx5dv_cq dv;
	struct mlx5dv_obj o = { .cq = { .in = cq, .out = &dv } };
	REQUIRE(mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ) == 0, "mlx5dv_init_obj cq");
	struct mlx5emu_debug_cq d;
	REQUIRE(dbg->cq(dv.cqn, &d) == 0, "%s: emulator has no cqn 0x%x", what, dv.cqn);
	CHECK(d.buf == (uintptr_t)dv.buf, "%s: buf 0x%llx vs mlx5dv %p", what, (unsigned long long)d.buf, dv.buf);
	CHECK(d.dbrec == (uintptr_t)dv.dbrec, "%s: dbrec", what);
	CHECK(d.cqe_cnt == dv.cqe_cnt && (int)d.cqe_cnt == want_cqe_cnt, "%s: %u CQEs, mlx5dv %u, want %d", what,
	      d.cqe_cnt, dv.cqe_cnt, want_cqe_cnt);
	CHECK(d.cqe_size == dv.cqe_size, "%s: cqe size %u vs %u", what, d.cqe_size, dv.cqe_size);
	CHECK(cq->cqe == want_cqe_cnt - 1, "%s: ibv cqe %d", what, cq->cqe);
}

int main(void)
{
	struct debug_api dbg = debug_api();
	struct ibv_context *ctx = open_dev(0);
	struct ibv_device_attr da;
	REQUIRE(ibv_query_device(ctx, &da) == 0, "query_device");

	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	REQUIRE(ch, "comp channel: %s", strerror(errno));
	struct ibv_cq *cq = ibv_create_cq(ctx, 100, (void *)0x1234, ch, 0);
	REQUIRE(cq, "create_cq: %s", strerror(errno));
	check_cq_matches(&dbg, cq, 128, "cq 100");
	struct mlx5dv_cq dv;
	struct mlx5dv_obj o = { .cq = { .in = cq, .out = &dv } };
	mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ);
	struct mlx5emu_debug_cq d;
	dbg.cq(dv.cqn, &d);
	CHECK(d.user_handle == (uintptr_t)cq, "user handle is libibverbs' cq pointer");
	CHECK(d.comp_fd >= 0 && d.comp_fd != ch->fd, "channel write end %d", d.comp_fd);

	/* the smallest CQ and one exactly at a power of two minus one */
	struct ibv_cq *c1 = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	REQUIRE(c1, "cq 1");
	check_cq_matches(&dbg, c1, 2, "cq 1");
	struct ibv_cq *c2 = ibv_create_cq(ctx, 255, NULL, NULL, 0);
	REQUIRE(c2, "cq 255");
	check_cq_matches(&dbg, c2, 256, "cq 255");

	/* too large: one more than max_cqe */
	errno = 0;
	CHECK(!ibv_create_cq(ctx, da.max_cqe + 1, NULL, NULL, 0) && errno == EINVAL, "too large: errno %d", errno);
	/* comp_vector beyond num_comp_vectors */
	errno = 0;
	CHECK(!ibv_create_cq(ctx, 8, NULL, NULL, ctx->num_comp_vectors) && errno == EINVAL, "vector: errno %d", errno);
	/* a channel fd that is no channel */
	struct ibv_comp_channel fake = { .context = ctx, .fd = 0, .refcnt = 0 };
	errno = 0;
	CHECK(!ibv_create_cq(ctx, 8, NULL, &fake, 0) && errno == EBADF, "bogus channel: errno %d", errno);

	/* extended create works (libmlx5 uses it for wc_flags); raw EX_CREATE_CQ failures follow */
	struct ibv_cq_init_attr_ex ax = { .cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ibv_cq_ex *cx = ibv_create_cq_ex(ctx, &ax);
	REQUIRE(cx, "create_cq_ex: %s", strerror(errno));
	check_cq_matches(&dbg, ibv_cq_ex_to_cq(cx), 128, "cq_ex 64");
	struct {
		struct ib_uverbs_cmd_hdr h;
		struct ib_uverbs_ex_cmd_hdr eh;
		struct ib_uverbs_ex_create_cq c;
		uint64_t drv[4];
	} xc;
	uint8_t xresp[64];
	memset(&xc, 0, sizeof(xc));
	xc.h.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_CQ;
	xc.h.in_words = sizeof(xc.c) / 8;
	xc.h.out_words = 2;
	xc.eh.provider_in_words = 4;
	xc.eh.provider_out_words = 1;
	xc.eh.response = (uintptr_t)xresp;
	xc.c.cqe = 8;
	xc.c.comp_channel = -1;
	xc.c.comp_mask = 1;
	errno = 0;
	CHECK(write(ctx->cmd_fd, &xc, sizeof(xc)) < 0 && errno == EINVAL, "ex cq comp_mask: errno %d", errno);
	xc.c.comp_mask = 0;
	/* the timestamp flag is accepted (every CQE carries the core clock; t_clock creates such CQs): this request
	 * fails only on its zero driver data (cqe_size 0), as it does without the flag */
	xc.c.flags = IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	errno = 0;
	CHECK(write(ctx->cmd_fd, &xc, sizeof(xc)) < 0 && errno == EINVAL, "ex cq timestamps: errno %d", errno);
	xc.c.flags = 1u << 7;
	errno = 0;
	CHECK(write(ctx->cmd_fd, &xc, sizeof(xc)) < 0 && errno == EOPNOTSUPP, "ex cq unknown flag: errno %d", errno);

	/* resize: grows to a new ring (libmlx5 allocates it), same CQN */
	uint32_t cqn = dv.cqn;
	CHECK_ERR(ibv_resize_cq(cq, 1000), 0);
	check_cq_matches(&dbg, cq, 1024, "resized to 1000");
	CHECK(dbg.cq(cqn, &d) == 0 && d.cqe_cnt == 1024, "resize kept cqn");
	errno = 0;
	CHECK_ERR(ibv_resize_cq(cq, da.max_cqe + 1), EINVAL);

	/* a channel whose response cannot be written is not created; REQ_NOTIFY_CQ needs a real CQ */
	struct mlx5emu_debug_live before, after;
	dbg.live(&before);
	struct ib_uverbs_create_comp_channel cc0 = { .response = 0x10 };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &cc0, sizeof(cc0), 4), EFAULT);
	dbg.live(&after);
	CHECK(after.channels == before.channels, "failed channel kept: %u -> %u", before.channels, after.channels);
	struct ib_uverbs_req_notify_cq rn = { .cq_handle = 0xdead };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &rn, sizeof(rn), 0), EINVAL);
	rn.cq_handle = cq->handle;
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &rn, sizeof(rn), 0), 0);

	/* in use by a QP: EBUSY; bad handle: EINVAL */
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_qp *qp = make_qp(pd, c1, IBV_QPT_RC, NULL);
	REQUIRE(qp, "qp: %s", strerror(errno));
	CHECK_ERR(ibv_destroy_cq(c1), EBUSY);
	CHECK_ERR(ibv_destroy_qp(qp), 0);
	struct ib_uverbs_destroy_cq_resp dr;
	struct ib_uverbs_destroy_cq dc = { .response = (uintptr_t)&dr, .cq_handle = 0xdead };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_DESTROY_CQ, &dc, sizeof(dc), sizeof(dr)), EINVAL);
	struct ib_uverbs_resize_cq_resp rr;
	struct ib_uverbs_resize_cq rc = { .response = (uintptr_t)&rr, .cq_handle = 0xdead, .cqe = 10 };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_RESIZE_CQ, &rc, sizeof(rc), sizeof(rr)), EINVAL);
	/* the mlx5 part: a CQE size other than 64/128 */
	struct {
		struct ib_uverbs_create_cq_resp r;
		uint32_t cqn, pad;
	} cr;
	struct ib_uverbs_create_cq cc;
	struct mlx5_ib_create_cq cd;
	memset(&cc, 0, sizeof(cc));
	memset(&cd, 0, sizeof(cd));
	cc.response = (uintptr_t)&cr;
	cc.cqe = 7;
	cc.comp_channel = -1;
	static uint8_t ring[8 * 128] __attribute__((aligned(4096)));
	static uint32_t db[2];
	cd.buf_addr = (uintptr_t)ring;
	cd.db_addr = (uintptr_t)db;
	cd.cqe_size = 96;
	CHECK_ERR(raw_cmd_udata(ctx, IB_USER_VERBS_CMD_CREATE_CQ, &cc, sizeof(cc), &cd, sizeof(cd), sizeof(cr)), EINVAL);
	cd.cqe_size = 64;
	cd.buf_addr = 0x1000; /* not mapped: the kernel cannot pin it */
	CHECK_ERR(raw_cmd_udata(ctx, IB_USER_VERBS_CMD_CREATE_CQ, &cc, sizeof(cc), &cd, sizeof(cd), sizeof(cr)), EFAULT);

	CHECK_ERR(ibv_destroy_cq(cq), 0);
	CHECK(dbg.cq(cqn, &d) == -1, "cqn 0x%x alive after destroy", cqn);
	CHECK_ERR(ibv_destroy_cq(c1), 0);
	CHECK_ERR(ibv_destroy_cq(c2), 0);
	CHECK_ERR(ibv_destroy_cq(ibv_cq_ex_to_cq(cx)), 0);
	CHECK_ERR(ibv_destroy_comp_channel(ch), 0);
	CHECK_ERR(ibv_dealloc_pd(pd), 0);
	struct mlx5emu_debug_live live;
	dbg.live(&live);
	CHECK(live.cqs == 0, "%u CQs left", live.cqs);
	CHECK_ERR(ibv_close_device(ctx), 0);
	return test_done("t_cq");
}
