/* SPDX-License-Identifier: Apache-2.0 */
/* Shared receive queues: CREATE_SRQ, CREATE_XSRQ (basic and XRC types), MODIFY_SRQ, QUERY_SRQ, DESTROY_SRQ.
 * Sizing follows Linux mlx5_ib_create_srq(): max = roundup_pow_of_two(max_wr + 1), WQE = 16-byte next segment
 * plus max_sge 16-byte data segments rounded up to a power of two of at least 32 bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "engine_hooks.h"
#include "uverbs.h"

#define DEFAULT_UIDX 0xffffff

static uint32_t roundup_pow2(uint32_t v)
{
	uint32_t r = 1;
	while (r < v)
		r <<= 1;
	return r;
}


struct srq_args {
	uint64_t user_handle;
	uint32_t pd_handle, max_wr, max_sge, srq_limit;
	uint32_t srq_type, cq_handle, xrcd_handle;
};

static int create_srq(struct emu_cmd *cmd, const struct srq_args *a, struct ib_uverbs_create_srq_resp *out)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct mlx5_ib_create_srq ucmd;
	struct mlx5_ib_create_srq_resp dresp;

	if (a->srq_type != IBV_SRQT_BASIC && a->srq_type != IBV_SRQT_XRC)
		return EOPNOTSUPP; /* tag-matching SRQs are not emulated */
	int xrc = a->srq_type == IBV_SRQT_XRC;
	if (a->max_wr >= EMU_MAX_SRQ_WR + 1 || a->max_sge > EMU_MAX_SRQ_SGE)
		return EINVAL;
	memset(&ucmd, 0, sizeof(ucmd));
	size_t n = cmd->drv_in_len < sizeof(ucmd) ? cmd->drv_in_len : sizeof(ucmd);
	memcpy(&ucmd, cmd->drv_in, n);
	for (size_t i = sizeof(ucmd); i < cmd->drv_in_len; i++)
		if (cmd->drv_in[i])
			return EINVAL;
	if (ucmd.reserved0 || ucmd.reserved1)
		return EINVAL;
	if (ucmd.flags & ~(uint32_t)MLX5_SRQ_FLAG_SIGNATURE)
		return EINVAL;
	if (ucmd.flags & MLX5_SRQ_FLAG_SIGNATURE)
		return EOPNOTSUPP;
	uint32_t uidx = DEFAULT_UIDX;
	if (ctx->cqe_version) {
		if (cmd->drv_in_len < offsetof(struct mlx5_ib_create_srq, reserved1) ||
		    (ucmd.uidx & ~0xffffffu) || ucmd.uidx == DEFAULT_UIDX)
			return EINVAL;
		uidx = ucmd.uidx;
	}
	uint32_t max = roundup_pow2(a->max_wr + 1);
	uint32_t desc = 16 + a->max_sge * 16;
	desc = roundup_pow2(desc);
	if (desc < 32)
		desc = 32;
	uint32_t shift = 0;
	while ((1u << shift) < desc)
		shift++;
	if (!emu_user_range_mapped(ucmd.buf_addr, (uint64_t)max * desc) || !emu_user_range_mapped(ucmd.db_addr, 4))
		return EFAULT;

	struct emu_srq *srq = calloc(1, sizeof(*srq));
	if (!srq)
		return ENOMEM;
	/* __uverbs_create_xsrq(): an XRC SRQ names its XRCD and its CQ (EINVAL when either is not a handle) */
	emu_lock();
	struct emu_pd *pd = emu_pd_by_handle(ctx, a->pd_handle);
	struct emu_cq *cq = xrc ? emu_cq_by_handle(ctx, a->cq_handle) : NULL;
	struct emu_xrcd *x = xrc && pd && cq ? emu_xrcd_get(ctx, a->xrcd_handle) : NULL;
	int ok = pd && (!xrc || (cq && x));
	if (ok)
		srq->handle = emu_ctx_new_handle(ctx);
	emu_unlock();
	if (!ok) {
		free(srq);
		return EINVAL;
	}
	srq->srq_type = a->srq_type;
	srq->cq = cq;
	srq->xrcd = x;
	srq->xrcdn = x ? emu_xrcd_num(x) : 0;
	srq->ctx = ctx;
	srq->pd = pd;
	srq->srqn = emu_reg_alloc_srqn();
	srq->buf = ucmd.buf_addr;
	srq->wqe_cnt = max;
	srq->wqe_shift = shift;
	srq->dbrec = ucmd.db_addr;
	srq->uidx = uidx;
	srq->max_sge = (desc - 16) / 16;
	srq->srq_limit = 0;
	srq->user_handle = a->user_handle;

	memset(&dresp, 0, sizeof(dresp));
	dresp.srqn = srq->srqn;
	int err = emu_cmd_respond_drv(cmd, &dresp, sizeof(dresp));
	if (err) {
		emu_xrcd_release(ctx, srq->xrcd);
		free(srq);
		return err;
	}
	out->srq_handle = srq->handle;
	out->max_wr = max - 1;
	out->max_sge = srq->max_sge;
	out->srqn = srq->srqn;
	emu_lock();
	srq->next = ctx->srqs;
	ctx->srqs = srq;
	emu_unlock();
	if (emu_log_enabled)
		emu_log("srq handle %u: srqn 0x%x, %u x %u-byte WQEs at 0x%llx, db 0x%llx, uidx 0x%x", srq->handle,
			srq->srqn, srq->wqe_cnt, 1u << srq->wqe_shift, (unsigned long long)srq->buf,
			(unsigned long long)srq->dbrec, srq->uidx);
	emu_engine_srq_created(srq);
	emu_xrc_srq_publish(srq); /* after the engine knows it: a peer's TGT QP may forward to it at once */
	return 0;
}

static void srq_unlink(struct emu_ctx *ctx, struct emu_srq *srq)
{
	for (struct emu_srq **p = &ctx->srqs; *p; p = &(*p)->next)
		if (*p == srq) {
			*p = srq->next;
			break;
		}
}

static void srq_discard(struct emu_ctx *ctx, uint32_t handle)
{
	emu_lock();
	struct emu_srq *srq = emu_srq_by_handle(ctx, handle);
	if (srq)
		srq_unlink(ctx, srq);
	emu_unlock();
	if (srq) {
		emu_engine_srq_destroying(srq);
		emu_xrcd_srq_release(ctx, srq);
		free(srq);
	}
}

int emu_cmd_create_srq(struct emu_cmd *cmd)
{
	struct ib_uverbs_create_srq req;
	struct ib_uverbs_create_srq_resp r;
	struct srq_args a;

	memcpy(&req, cmd->in, sizeof(req));
	memset(&a, 0, sizeof(a));
	a.user_handle = req.user_handle;
	a.pd_handle = req.pd_handle;
	a.max_wr = req.max_wr;
	a.max_sge = req.max_sge;
	a.srq_limit = req.srq_limit;
	a.srq_type = IBV_SRQT_BASIC;
	memset(&r, 0, sizeof(r));
	int err = create_srq(cmd, &a, &r);
	if (!err && (err = emu_cmd_respond(cmd, &r, sizeof(r))))
		srq_discard(cmd->ctx, r.srq_handle);
	return err;
}

int emu_cmd_create_xsrq(struct emu_cmd *cmd)
{
	struct ib_uverbs_create_xsrq req;
	struct ib_uverbs_create_srq_resp r;
	struct srq_args a;

	memcpy(&req, cmd->in, sizeof(req));
	memset(&a, 0, sizeof(a));
	a.user_handle = req.user_handle;
	a.pd_handle = req.pd_handle;
	a.max_wr = req.max_wr;
	a.max_sge = req.max_sge;
	a.srq_limit = req.srq_limit;
	a.srq_type = req.srq_type;
	a.cq_handle = req.cq_handle;
	a.xrcd_handle = req.xrcd_handle;
	memset(&r, 0, sizeof(r));
	int err = create_srq(cmd, &a, &r);
	if (!err && (err = emu_cmd_respond(cmd, &r, sizeof(r))))
		srq_discard(cmd->ctx, r.srq_handle);
	return err;
}

int emu_cmd_modify_srq(struct emu_cmd *cmd)
{
	struct ib_uverbs_modify_srq req;
	int err = 0;

	memcpy(&req, cmd->in, sizeof(req));
	emu_lock();
	struct emu_srq *srq = emu_srq_by_handle(cmd->ctx, req.srq_handle);
	if (!srq)
		err = EINVAL;
	else if (req.attr_mask & ~(uint32_t)(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
		err = EINVAL;
	else if (req.attr_mask & IBV_SRQ_MAX_WR)
		err = EINVAL; /* mlx5 cannot resize an SRQ */
	else if ((req.attr_mask & IBV_SRQ_LIMIT) && req.srq_limit >= srq->wqe_cnt)
		err = EINVAL;
	else if (req.attr_mask & IBV_SRQ_LIMIT) {
		srq->srq_limit = req.srq_limit;
		srq->kbusy++;
	}
	emu_unlock();
	if (!err && (req.attr_mask & IBV_SRQ_LIMIT)) {
		emu_engine_srq_modified(srq);
		emu_lock();
		srq->kbusy--;
		emu_unlock();
	}
	return err;
}

int emu_cmd_query_srq(struct emu_cmd *cmd)
{
	struct ib_uverbs_query_srq req;
	struct ib_uverbs_query_srq_resp r;

	memcpy(&req, cmd->in, sizeof(req));
	memset(&r, 0, sizeof(r));
	emu_lock();
	struct emu_srq *srq = emu_srq_by_handle(cmd->ctx, req.srq_handle);
	if (srq) {
		r.max_wr = srq->wqe_cnt - 1;
		r.max_sge = srq->max_sge;
		r.srq_limit = srq->srq_limit;
	}
	emu_unlock();
	if (!srq)
		return EINVAL;
	return emu_cmd_respond(cmd, &r, sizeof(r));
}

int emu_cmd_destroy_srq(struct emu_cmd *cmd)
{
	struct ib_uverbs_destroy_srq req;
	struct ib_uverbs_destroy_srq_resp r;
	int err = 0;

	memcpy(&req, cmd->in, sizeof(req));
	emu_lock();
	struct emu_srq *srq = emu_srq_by_handle(cmd->ctx, req.srq_handle);
	if (!srq) {
		err = EINVAL;
	} else {
		for (struct emu_qp *qp = cmd->ctx->qps; qp; qp = qp->next)
			if (qp->srq == srq)
				err = EBUSY;
		if (srq->kbusy)
			err = EBUSY;
		if (!err)
			srq_unlink(cmd->ctx, srq);
	}
	emu_unlock();
	if (err)
		return err;
	emu_engine_srq_destroying(srq);
	r.events_reported = srq->async_events;
	emu_xrcd_srq_release(cmd->ctx, srq);
	free(srq);
	emu_async_prune(cmd->ctx); /* its unread events go with it */
	return emu_cmd_respond(cmd, &r, sizeof(r));
}

void emu_destroy_all_srqs(struct emu_ctx *ctx)
{
	for (;;) {
		emu_lock();
		struct emu_srq *srq = ctx->srqs;
		if (srq)
			ctx->srqs = srq->next;
		emu_unlock();
		if (!srq)
			break;
		emu_engine_srq_destroying(srq);
		emu_xrcd_srq_release(ctx, srq);
		free(srq);
	}
}
