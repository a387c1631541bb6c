/* SPDX-License-Identifier: Apache-2.0 */
/* Protection domains and memory regions: ALLOC_PD, DEALLOC_PD, REG_MR, DEREG_MR.
 * Access-flag and range checks follow the Linux kernel's ib_uverbs_reg_mr() and ib_check_mr_access(). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "engine_hooks.h"
#include "uverbs.h"

#define PAGE 4096ULL

static struct emu_mr *mr_by_handle(struct emu_ctx *ctx, uint32_t h)
{
	for (struct emu_mr *mr = ctx->mrs; mr; mr = mr->next)
		if (mr->handle == h)
			return mr;
	return NULL;
}

int emu_cmd_alloc_pd(struct emu_cmd *cmd)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct ib_uverbs_alloc_pd_resp r;
	struct mlx5_ib_alloc_pd_resp d;

	struct emu_pd *pd = calloc(1, sizeof(*pd));
	if (!pd)
		return ENOMEM;
	pd->ctx = ctx;
	pd->pdn = emu_reg_alloc_pdn();
	emu_lock();
	pd->handle = emu_ctx_new_handle(ctx);
	emu_unlock();
	r.pd_handle = pd->handle;
	d.pdn = pd->pdn;
	int err = emu_cmd_respond(cmd, &r, sizeof(r));
	if (!err)
		err = emu_cmd_respond_drv(cmd, &d, sizeof(d));
	if (err) {
		free(pd);
		return err;
	}
	emu_lock();
	pd->next = ctx->pds;
	ctx->pds = pd;
	emu_unlock();
	return 0;
}

static int pd_in_use(struct emu_ctx *ctx, struct emu_pd *pd)
{
	for (struct emu_mr *o = ctx->mrs; o; o = o->next)
		if (o->pd == pd)
			return 1;
	for (struct emu_qp *o = ctx->qps; o; o = o->next)
		if (o->pd == pd)
			return 1;
	for (struct emu_srq *o = ctx->srqs; o; o = o->next)
		if (o->pd == pd)
			return 1;
	for (struct emu_ah *o = ctx->ahs; o; o = o->next)
		if (o->pd == pd)
			return 1;
	return 0;
}

int emu_cmd_dealloc_pd(struct emu_cmd *cmd)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct ib_uverbs_dealloc_pd req;
	int err = 0;

	memcpy(&req, cmd->in, sizeof(req));
	emu_lock();
	struct emu_pd *pd = emu_pd_by_handle(ctx, req.pd_handle);
	if (!pd)
		err = EINVAL;
	else if (pd_in_use(ctx, pd))
		err = EBUSY;
	else
		for (struct emu_pd **p = &ctx->pds; *p; p = &(*p)->next)
			if (*p == pd) {
				*p = pd->next;
				break;
			}
	emu_unlock();
	if (!err)
		free(pd);
	return err;
}

/* Every access bit the kernel accepts: LOCAL_WRITE .. HUGETLB, FLUSH_GLOBAL/PERSISTENT, and the optional range
 * (bits 20..29, e.g. RELAXED_ORDERING) which a device may ignore. */
#define ACCESS_MANDATORY_MASK 0x7ffu
#define ACCESS_OPTIONAL_MASK  0x3ff00000u


int emu_check_mr_access(uint32_t access)
{
	if (access & ~(ACCESS_MANDATORY_MASK | ACCESS_OPTIONAL_MASK))
		return EINVAL;
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(access & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	if (access & IBV_ACCESS_ON_DEMAND)
		return EOPNOTSUPP; /* no on-demand paging */
	return 0;
}

int emu_cmd_reg_mr(struct emu_cmd *cmd)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct ib_uverbs_reg_mr req;
	struct ib_uverbs_reg_mr_resp r;

	memcpy(&req, cmd->in, sizeof(req));
	if ((req.start & (PAGE - 1)) != (req.hca_va & (PAGE - 1)))
		return EINVAL;
	int err = emu_check_mr_access(req.access_flags);
	if (err)
		return err;
	if (req.length == 0 || req.start + req.length < req.start ||
	    ((req.start + req.length + PAGE - 1) & ~(PAGE - 1)) < req.start + req.length)
		return EINVAL;
	if (!emu_user_range_mapped(req.start, req.length))
		return EFAULT;

	struct emu_mr *mr = calloc(1, sizeof(*mr));
	if (!mr)
		return ENOMEM;
	emu_lock();
	struct emu_pd *pd = emu_pd_by_handle(ctx, req.pd_handle);
	if (pd) {
		mr->ctx = ctx;
		mr->pd = pd;
		mr->handle = emu_ctx_new_handle(ctx);
	}
	emu_unlock();
	if (!pd) {
		free(mr);
		return EINVAL;
	}
	mr->lkey = mr->rkey = emu_reg_alloc_mkey();
	mr->addr = req.hca_va;
	mr->length = req.length;
	mr->access = req.access_flags;
	r.mr_handle = mr->handle;
	r.lkey = mr->lkey;
	r.rkey = mr->rkey;
	err = emu_cmd_respond(cmd, &r, sizeof(r));
	if (err) {
		free(mr);
		return err;
	}
	emu_lock();
	mr->next = ctx->mrs;
	ctx->mrs = mr;
	emu_unlock();
	if (emu_log_enabled)
		emu_log("mr handle %u: [0x%llx, +0x%llx) access 0x%x lkey/rkey 0x%x", mr->handle,
			(unsigned long long)mr->addr, (unsigned long long)mr->length, mr->access, mr->lkey);
	emu_engine_mr_registered(mr);
	return 0;
}

int emu_cmd_rereg_mr(struct emu_cmd *cmd)
{
	(void)cmd;
	return EOPNOTSUPP;
}

/* Unlinks mr; the caller calls the hook and frees. */
static void mr_unlink(struct emu_ctx *ctx, struct emu_mr *mr)
{
	for (struct emu_mr **p = &ctx->mrs; *p; p = &(*p)->next)
		if (*p == mr) {
			*p = mr->next;
			break;
		}
}

int emu_cmd_dereg_mr(struct emu_cmd *cmd)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct ib_uverbs_dereg_mr req;

	memcpy(&req, cmd->in, sizeof(req));
	emu_lock();
	struct emu_mr *mr = mr_by_handle(ctx, req.mr_handle);
	if (mr)
		mr_unlink(ctx, mr);
	emu_unlock();
	if (!mr)
		return EINVAL;
	emu_engine_mr_deregistering(mr);
	free(mr);
	return 0;
}

void emu_destroy_all_mrs_pds(struct emu_ctx *ctx)
{
	for (;;) {
		emu_lock();
		struct emu_mr *mr = ctx->mrs;
		if (mr)
			mr_unlink(ctx, mr);
		emu_unlock();
		if (!mr)
			break;
		emu_engine_mr_deregistering(mr);
		free(mr);
	}
	emu_lock();
	for (struct emu_pd *pd = ctx->pds, *n; pd; pd = n) {
		n = pd->next;
		free(pd);
	}
	ctx->pds = NULL;
	emu_unlock();
}
