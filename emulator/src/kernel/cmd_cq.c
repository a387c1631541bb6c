/* SPDX-License-Identifier: Apache-2.0 */
/* Completion queues: CREATE_CQ (legacy and extended), RESIZE_CQ, DESTROY_CQ. Size and driver-data rules follow
 * Linux mlx5_ib_create_cq()/create_cq_user()/mlx5_ib_resize_cq() with a ConnectX-5's log_max_cq_sz of 22. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "emu_profile.h"
#include "engine_hooks.h"
#include "uverbs.h"

#define LOG_MAX_CQ_SZ 22

struct emu_comp_channel *emu_channel_by_fd(struct emu_ctx *ctx, int fd);

static uint32_t roundup_pow2(uint32_t v)
{
	uint32_t r = 1;
	while (r < v)
		r <<= 1;
	return r;
}


struct cq_args {
	uint64_t user_handle;
	uint32_t cqe;
	uint32_t comp_vector;
	int32_t  comp_channel;
	uint32_t ibv_flags;
};

static int create_cq(struct emu_cmd *cmd, const struct cq_args *a, struct ib_uverbs_create_cq_resp *out)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct mlx5_ib_create_cq ucmd;
	struct mlx5_ib_create_cq_resp dresp;
	size_t ucmdlen;

	if (a->comp_vector >= emu_num_comp_vectors())
		return EINVAL;
	if (a->cqe > (1u << LOG_MAX_CQ_SZ))
		return EINVAL;
	uint32_t entries = roundup_pow2(a->cqe + 1);
	if (entries > (1u << LOG_MAX_CQ_SZ))
		return EINVAL;

	/* older libraries send the struct without flags (mlx5 create_cq_user) */
	ucmdlen = cmd->drv_in_len < sizeof(ucmd) ? sizeof(ucmd) - sizeof(ucmd.flags) : sizeof(ucmd);
	if (cmd->drv_in_len < ucmdlen)
		return EFAULT;
	memset(&ucmd, 0, sizeof(ucmd));
	memcpy(&ucmd, cmd->drv_in, ucmdlen);
	/* the reserved words after flags must be zero when present */
	if (ucmdlen == sizeof(ucmd) &&
	    (ucmd.flags & ~(MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD | MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX |
			    MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS)))
		return EINVAL;
	if ((ucmd.cqe_size != 64 && ucmd.cqe_size != 128) || ucmd.reserved0 || ucmd.reserved1)
		return EINVAL;
	/* create_cq_user() (Linux drivers/infiniband/hw/mlx5/cq.c): cqe_comp_en 1 asks for compression in the format
	 * mini_cqe_res_format_to_hw() accepts (one MLX5_IB_CQE_RES_FORMAT_* value, else EINVAL; CSUM_STRIDX only with
	 * mini_cqe_resp_stride_index, else EOPNOTSUPP), and 128-byte CQEs only with cqe_compression_128, which no
	 * profile here reports (MLX5_IB_QUERY_DEV_RESP_FLAGS_CQE_128B_COMP stays clear). */
	if (ucmd.cqe_comp_en > 1)
		return EINVAL;
	if (ucmd.cqe_comp_en) {
		const struct emu_profile *prof = emu_profile();
		if (!prof->cqe_comp_formats || ucmd.cqe_size != 64)
			return EOPNOTSUPP;
		uint8_t f = ucmd.cqe_comp_res_format;
		if (f != MLX5_IB_CQE_RES_FORMAT_HASH && f != MLX5_IB_CQE_RES_FORMAT_CSUM &&
		    f != MLX5_IB_CQE_RES_FORMAT_CSUM_STRIDX)
			return EINVAL;
		if (!(prof->cqe_comp_formats & f))
			return EOPNOTSUPP;
	} else if (ucmd.cqe_comp_res_format) {
		return EINVAL;
	}
	if ((ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD) && ucmd.cqe_size != 128)
		return EINVAL;
	if (ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX)
		return EINVAL; /* dynamic UAR pages do not exist here */
	/* create_cq_user: real-time stamps only where the device's ts_format allows them (profile.c) */
	if ((ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS) && !emu_profile()->real_time_ts)
		return EOPNOTSUPP;
	if (!emu_user_range_mapped(ucmd.buf_addr, (uint64_t)entries * ucmd.cqe_size) || !emu_user_range_mapped(ucmd.db_addr, 8))
		return EFAULT;

	struct emu_cq *cq = calloc(1, sizeof(*cq));
	if (!cq)
		return ENOMEM;
	int err = 0;
	emu_lock();
	struct emu_comp_channel *ch = NULL;
	if (a->comp_channel >= 0) {
		ch = emu_channel_by_fd(ctx, a->comp_channel);
		if (!ch)
			err = EBADF;
	}
	if (!err)
		cq->handle = emu_ctx_new_handle(ctx);
	emu_unlock();
	if (err) {
		free(cq);
		return err;
	}
	cq->ctx = ctx;
	cq->cqn = emu_reg_alloc_cqn();
	cq->buf = ucmd.buf_addr;
	cq->cqe_cnt = entries;
	cq->cqe_size = ucmd.cqe_size;
	cq->dbrec = ucmd.db_addr;
	cq->comp_fd = ch ? ch->write_fd : -1;
	cq->user_handle = a->user_handle;
	cq->flags = ucmd.flags;
	cq->comp_format = ucmd.cqe_comp_en ? ucmd.cqe_comp_res_format : 0;
	cq->ibv_flags = a->ibv_flags;
	cq->uar_page = 0; /* libmlx5 rings CQ arm doorbells through uar[0] (cq_uar_reg) */

	out->cq_handle = cq->handle;
	out->cqe = entries - 1;
	memset(&dresp, 0, sizeof(dresp));
	dresp.cqn = cq->cqn;
	err = emu_cmd_respond_drv(cmd, &dresp, sizeof(dresp));
	if (err) {
		free(cq);
		return err;
	}
	emu_lock();
	cq->next = ctx->cqs;
	ctx->cqs = cq;
	emu_unlock();
	if (emu_log_enabled)
		emu_log("cq handle %u: cqn 0x%x, %u x %u-byte CQEs at 0x%llx, dbrec 0x%llx, channel fd %d, "
			"compression format %u", cq->handle, cq->cqn, cq->cqe_cnt, cq->cqe_size,
			(unsigned long long)cq->buf, (unsigned long long)cq->dbrec, a->comp_channel, cq->comp_format);
	emu_engine_cq_created(cq);
	return 0;
}

static void cq_discard(struct emu_ctx *ctx, uint32_t handle)
{
	/* undo a create whose core response could not be written */
	emu_lock();
	struct emu_cq *cq = emu_cq_by_handle(ctx, handle);
	if (cq)
		for (struct emu_cq **p = &ctx->cqs; *p; p = &(*p)->next)
			if (*p == cq) {
				*p = cq->next;
				break;
			}
	emu_unlock();
	if (cq) {
		emu_engine_cq_destroying(cq);
		free(cq);
	}
}

int emu_cmd_create_cq(struct emu_cmd *cmd)
{
	struct ib_uverbs_create_cq req;
	struct ib_uverbs_create_cq_resp r;
	struct cq_args a;

	memcpy(&req, cmd->in, sizeof(req));
	a.user_handle = req.user_handle;
	a.cqe = req.cqe;
	a.comp_vector = req.comp_vector;
	a.comp_channel = req.comp_channel;
	a.ibv_flags = 0;
	memset(&r, 0, sizeof(r));
	int err = create_cq(cmd, &a, &r);
	if (!err && (err = emu_cmd_respond(cmd, &r, sizeof(r))))
		cq_discard(cmd->ctx, r.cq_handle);
	return err;
}

int emu_cmd_ex_create_cq(struct emu_cmd *cmd)
{
	struct ib_uverbs_ex_create_cq req;
	struct ib_uverbs_ex_create_cq_resp r;
	struct cq_args a;

	memset(&req, 0, sizeof(req));
	memcpy(&req, cmd->in, cmd->in_len < sizeof(req) ? cmd->in_len : sizeof(req));
	for (size_t i = sizeof(req); i < cmd->in_len; i++)
		if (cmd->in[i])
			return EOPNOTSUPP;
	if (req.comp_mask || req.reserved)
		return EINVAL;
	if (req.flags & ~(uint32_t)(IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION | IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN))
		return EOPNOTSUPP;
	/* IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION changes nothing: like the mlx5 driver's CQs, every CQE carries the
	 * core clock timestamp (libmlx5 even creates such CQs through the legacy command, CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX) */
	a.user_handle = req.user_handle;
	a.cqe = req.cqe;
	a.comp_vector = req.comp_vector;
	a.comp_channel = req.comp_channel;
	a.ibv_flags = req.flags;
	memset(&r, 0, sizeof(r));
	int err = create_cq(cmd, &a, &r.base);
	if (err)
		return err;
	size_t len = cmd->resp_len < sizeof(r) ? cmd->resp_len : sizeof(r);
	r.response_length = (uint32_t)len;
	if ((err = emu_cmd_respond(cmd, &r, len)))
		cq_discard(cmd->ctx, r.base.cq_handle);
	return err;
}

int emu_cmd_resize_cq(struct emu_cmd *cmd)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct ib_uverbs_resize_cq req;
	struct ib_uverbs_resize_cq_resp r;
	struct mlx5_ib_resize_cq ucmd;

	memcpy(&req, cmd->in, sizeof(req));
	emu_lock();
	struct emu_cq *cq = emu_cq_by_handle(ctx, req.cq_handle);
	emu_unlock();
	if (!cq)
		return EINVAL;
	if (req.cqe < 1 || req.cqe > (1u << LOG_MAX_CQ_SZ))
		return EINVAL;
	uint32_t entries = roundup_pow2(req.cqe + 1);
	if (entries > (1u << LOG_MAX_CQ_SZ))
		return EINVAL;
	memset(&r, 0, sizeof(r));
	if (entries == cq->cqe_cnt) {
		r.cqe = cq->cqe_cnt - 1;
		return emu_cmd_respond(cmd, &r, sizeof(r));
	}
	if (cmd->drv_in_len < sizeof(ucmd))
		return EFAULT;
	memcpy(&ucmd, cmd->drv_in, sizeof(ucmd));
	if (ucmd.reserved0 || ucmd.reserved1)
		return EINVAL;
	if (ucmd.cqe_size != 64 && ucmd.cqe_size != 128)
		return EINVAL;
	if (!emu_user_range_mapped(ucmd.buf_addr, (uint64_t)entries * ucmd.cqe_size))
		return EFAULT;
	/* The device refuses a new size that cannot hold the completions still in the CQ (rdma-core's
	 * test_resize_cq expects EINVAL, as a ConnectX answers): the user sees entries - 1 usable CQEs. */
	if (emu_engine_cq_unpolled(cq) > entries - 1)
		return EINVAL;

	emu_lock();
	if (!emu_cq_by_handle(ctx, req.cq_handle) || cq->kbusy) {
		emu_unlock();
		return EBUSY; /* destroyed or resized concurrently */
	}
	cq->kbusy++;
	cq->old_buf = cq->buf;
	cq->old_cqe_cnt = cq->cqe_cnt;
	cq->old_cqe_size = cq->cqe_size;
	cq->buf = ucmd.buf_addr;
	cq->cqe_cnt = entries;
	cq->cqe_size = ucmd.cqe_size;
	emu_unlock();
	emu_engine_cq_resized(cq);
	emu_lock();
	cq->old_buf = 0;
	cq->old_cqe_cnt = 0;
	cq->old_cqe_size = 0;
	cq->kbusy--;
	emu_unlock();
	r.cqe = entries - 1;
	return emu_cmd_respond(cmd, &r, sizeof(r));
}

static int cq_in_use(struct emu_ctx *ctx, struct emu_cq *cq)
{
	for (struct emu_qp *qp = ctx->qps; qp; qp = qp->next)
		if (qp->send_cq == cq || qp->recv_cq == cq)
			return 1;
	for (struct emu_srq *srq = ctx->srqs; srq; srq = srq->next)
		if (srq->cq == cq)
			return 1;
	return emu_wq_cq_refs(cq); /* WQs complete into it too */
}

int emu_cmd_destroy_cq(struct emu_cmd *cmd)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct ib_uverbs_destroy_cq req;
	struct ib_uverbs_destroy_cq_resp r;
	int err = 0;

	memcpy(&req, cmd->in, sizeof(req));
	emu_lock();
	struct emu_cq *cq = emu_cq_by_handle(ctx, req.cq_handle);
	if (!cq)
		err = EINVAL;
	else if (cq->kbusy || cq_in_use(ctx, cq))
		err = EBUSY;
	else
		for (struct emu_cq **p = &ctx->cqs; *p; p = &(*p)->next)
			if (*p == cq) {
				*p = cq->next;
				break;
			}
	emu_unlock();
	if (err)
		return err;
	emu_engine_cq_destroying(cq);
	r.comp_events_reported = cq->comp_events;
	r.async_events_reported = cq->async_events;
	free(cq);
	emu_async_prune(ctx); /* its unread events go with it */
	return emu_cmd_respond(cmd, &r, sizeof(r));
}

void emu_destroy_all_cqs(struct emu_ctx *ctx)
{
	for (;;) {
		emu_lock();
		struct emu_cq *cq = ctx->cqs;
		if (cq)
			ctx->cqs = cq->next;
		emu_unlock();
		if (!cq)
			break;
		emu_engine_cq_destroying(cq);
		free(cq);
	}
}

/* REQ_NOTIFY_CQ through the kernel is legal but libmlx5 arms CQs through the UAR doorbell; accept it. */
int emu_cmd_req_notify_cq(struct emu_cmd *cmd)
{
	struct ib_uverbs_req_notify_cq req;
	memcpy(&req, cmd->in, sizeof(req));
	emu_lock();
	struct emu_cq *cq = emu_cq_by_handle(cmd->ctx, req.cq_handle);
	emu_unlock();
	return cq ? 0 : EINVAL;
}
