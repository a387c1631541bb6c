/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Receive WQs, their indirection tables and RSS QPs: EX_CREATE_WQ, EX_MODIFY_WQ, EX_DESTROY_WQ,
 * EX_CREATE_RWQ_IND_TBL, EX_DESTROY_RWQ_IND_TBL, and EX_CREATE_QP with an indirection table.
 *
 * Checks and errnos follow Linux: core drivers/infiniband/core/uverbs_cmd.c (ib_uverbs_ex_create_wq,
 * ib_uverbs_ex_modify_wq, ib_uverbs_ex_destroy_wq, ib_uverbs_ex_create_rwq_ind_table, create_qp) and the mlx5
 * driver drivers/infiniband/hw/mlx5/qp.c (prepare_user_rq, set_user_rq_size, mlx5_ib_modify_wq,
 * mlx5_ib_create_rwq_ind_table, create_rss_raw_qp_tir). The driver request layouts are <rdma/mlx5-abi.h>.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "engine_hooks.h"
#include "rss_wq.h"
#include "uverbs.h"

#define OFFEND(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

/* Process-wide lists (each object names its context), so struct emu_ctx needs no new fields. Under emu_lock. */
static struct emu_wq *g_wqs;
static struct emu_rwq_ind_tbl *g_tbls;

static struct emu_wq *wq_by_handle(struct emu_ctx *ctx, uint32_t h)
{
	for (struct emu_wq *w = g_wqs; w; w = w->next)
		if (w->ctx == ctx && w->handle == h)
			return w;
	return NULL;
}

static struct emu_rwq_ind_tbl *tbl_by_handle(struct emu_ctx *ctx, uint32_t h)
{
	for (struct emu_rwq_ind_tbl *t = g_tbls; t; t = t->next)
		if (t->ctx == ctx && t->handle == h)
			return t;
	return NULL;
}

struct emu_wq *emu_find_wq(uint32_t wqn)
{
	for (struct emu_wq *w = g_wqs; w; w = w->next)
		if (w->wqn == wqn)
			return w;
	return NULL;
}

int emu_wq_cq_refs(const struct emu_cq *cq)
{
	for (struct emu_wq *w = g_wqs; w; w = w->next)
		if (w->cq == cq)
			return 1;
	return 0;
}

const struct emu_rss_qp *emu_qp_rss(const struct emu_qp *qp)
{
	return qp->rss;
}

static int is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

/* ---- WQ ---- */

int emu_cmd_ex_create_wq(struct emu_cmd *cmd)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct ib_uverbs_ex_create_wq req;
	struct mlx5_ib_create_wq ucmd;

	memset(&req, 0, sizeof(req));
	memcpy(&req, cmd->in, cmd->in_len < sizeof(req) ? cmd->in_len : sizeof(req));
	for (size_t i = sizeof(req); i < cmd->in_len; i++)
		if (cmd->in[i])
			return EOPNOTSUPP; /* uverbs_request_finish: unknown trailing bytes */
	if (req.comp_mask)
		return EOPNOTSUPP;
	if (req.wq_type != IBV_WQT_RQ)
		return EINVAL; /* mlx5_ib_create_wq: only IB_WQT_RQ */
	/* prepare_user_rq: the driver data must reach single_stride_log_num_of_bytes */
	if (cmd->drv_in_len < OFFEND(struct mlx5_ib_create_wq, single_stride_log_num_of_bytes))
		return EINVAL;
	if (emu_cmd_drv_in(cmd, &ucmd, sizeof(ucmd)))
		return EOPNOTSUPP;
	if (ucmd.comp_mask & ~(uint32_t)MLX5_IB_CREATE_WQ_STRIDING_RQ)
		return EOPNOTSUPP;
	int mprq = (ucmd.comp_mask & MLX5_IB_CREATE_WQ_STRIDING_RQ) != 0;
	if (mprq && !emu_profile()->striding_rq)
		return EOPNOTSUPP; /* no MLX5_CAP_GEN(striding_rq): ConnectX-4 Lx (profile.c) */
	if (mprq) {
		if (ucmd.single_stride_log_num_of_bytes < EMU_MPRQ_MIN_LOG_STRIDE_BYTES ||
		    ucmd.single_stride_log_num_of_bytes > EMU_MPRQ_MAX_LOG_STRIDE_BYTES)
			return EINVAL;
		if (ucmd.single_wqe_log_num_of_strides < EMU_MPRQ_MIN_LOG_STRIDES ||
		    ucmd.single_wqe_log_num_of_strides > EMU_MPRQ_MAX_LOG_STRIDES)
			return EINVAL;
	}
	if (ucmd.flags & ~(uint32_t)MLX5_WQ_FLAG_SIGNATURE)
		return EOPNOTSUPP;
	if (ucmd.flags & MLX5_WQ_FLAG_SIGNATURE)
		return EOPNOTSUPP; /* WQE signatures are not emulated */
	/* set_user_rq_size */
	if (!ucmd.rq_wqe_count || !is_pow2(ucmd.rq_wqe_count))
		return EINVAL;
	if (req.max_wr > EMU_MAX_QP_WR || ucmd.rq_wqe_count > EMU_MAX_QP_WR)
		return EINVAL;
	if (ucmd.rq_wqe_shift < 4 || ucmd.rq_wqe_shift > 31 ||
	    ((uint64_t)ucmd.rq_wqe_count << ucmd.rq_wqe_shift) > (1ull << 31))
		return EINVAL;
	if (mprq && ucmd.rq_wqe_shift < 5)
		return EINVAL; /* an mlx5_mprq_wqe is a 16-byte next segment plus a 16-byte data segment */
	/* create_rq: WQ flags the device offers (CVLAN stripping, as raw_packet_caps says); the rest EOPNOTSUPP */
	if (req.create_flags & ~(uint32_t)(IBV_WQ_FLAGS_RESERVED - 1))
		return EINVAL;
	if (req.create_flags & ~(uint32_t)IBV_WQ_FLAGS_CVLAN_STRIPPING)
		return EOPNOTSUPP;
	if (ctx->cqe_version && ucmd.user_index > 0xffffff)
		return EINVAL; /* get_qp_user_index */
	if (!ucmd.buf_addr)
		return EINVAL;
	if (!emu_user_range_mapped(ucmd.buf_addr, (uint64_t)ucmd.rq_wqe_count << ucmd.rq_wqe_shift) ||
	    !emu_user_range_mapped(ucmd.db_addr, 8))
		return EFAULT;

	struct emu_wq *wq = calloc(1, sizeof(*wq));
	if (!wq)
		return ENOMEM;
	emu_lock();
	struct emu_pd *pd = emu_pd_by_handle(ctx, req.pd_handle);
	struct emu_cq *cq = emu_cq_by_handle(ctx, req.cq_handle);
	if (!pd || !cq) {
		emu_unlock();
		free(wq);
		return EINVAL;
	}
	wq->ctx = ctx;
	wq->pd = pd;
	wq->cq = cq;
	wq->handle = emu_ctx_new_handle(ctx);
	emu_unlock();
	wq->wqn = emu_reg_alloc_srqn();
	wq->state = EMU_WQS_RESET;
	wq->create_flags = req.create_flags;
	wq->buf = ucmd.buf_addr;
	wq->wqe_cnt = ucmd.rq_wqe_count;
	wq->wqe_shift = ucmd.rq_wqe_shift;
	wq->dbrec = ucmd.db_addr;
	wq->uidx = ucmd.user_index;
	wq->max_wr = req.max_wr;
	wq->max_sge = req.max_sge;
	wq->is_mprq = (uint8_t)mprq;
	if (mprq) {
		wq->log_stride_bytes = (uint8_t)ucmd.single_stride_log_num_of_bytes;
		wq->log_num_strides = (uint8_t)ucmd.single_wqe_log_num_of_strides;
		wq->two_byte_shift = ucmd.two_byte_shift_en != 0;
	}
	wq->user_handle = req.user_handle;

	struct ib_uverbs_ex_create_wq_resp r;
	memset(&r, 0, sizeof(r));
	size_t len = cmd->resp_len < sizeof(r) ? cmd->resp_len : sizeof(r);
	r.response_length = (uint32_t)len;
	r.wq_handle = wq->handle;
	r.max_wr = req.max_wr;   /* the core echoes what it asked the driver for */
	r.max_sge = req.max_sge;
	r.wqn = wq->wqn;
	struct mlx5_ib_create_wq_resp dr = { .response_length = 0 };
	int err = emu_cmd_respond(cmd, &r, len);
	if (!err && cmd->drv_out_len) {
		dr.response_length = (uint32_t)(cmd->drv_out_len < sizeof(dr) ? cmd->drv_out_len : sizeof(dr));
		err = emu_cmd_respond_drv(cmd, &dr, sizeof(dr));
	}
	emu_lock();
	if (err) {
		emu_unlock();
		free(wq);
		return err;
	}
	wq->next = g_wqs;
	g_wqs = wq;
	emu_unlock();
	if (emu_log_enabled)
		emu_log("wq handle %u: wqn 0x%x uidx 0x%x rq %u<<%u@0x%llx db 0x%llx%s", wq->handle, wq->wqn, wq->uidx,
			wq->wqe_cnt, wq->wqe_shift, (unsigned long long)wq->buf, (unsigned long long)wq->dbrec,
			mprq ? " striding" : "");
	emu_engine_wq_created(wq);
	return 0;
}

int emu_cmd_ex_modify_wq(struct emu_cmd *cmd)
{
	struct ib_uverbs_ex_modify_wq req;
	memset(&req, 0, sizeof(req));
	memcpy(&req, cmd->in, cmd->in_len < sizeof(req) ? cmd->in_len : sizeof(req));
	for (size_t i = sizeof(req); i < cmd->in_len; i++)
		if (cmd->in[i])
			return EOPNOTSUPP;
	if (!req.attr_mask)
		return EINVAL;
	if (req.attr_mask > (IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE | IBV_WQ_ATTR_FLAGS))
		return EINVAL;
	/* mlx5_ib_modify_wq: struct mlx5_ib_modify_wq (comp_mask, reserved) required and zero */
	struct mlx5_ib_modify_wq ucmd;
	if (cmd->drv_in_len < sizeof(ucmd))
		return EINVAL;
	if (emu_cmd_drv_in(cmd, &ucmd, sizeof(ucmd)) || ucmd.comp_mask || ucmd.reserved)
		return EOPNOTSUPP;
	emu_lock();
	struct emu_wq *wq = wq_by_handle(cmd->ctx, req.wq_handle);
	if (!wq) {
		emu_unlock();
		return EINVAL;
	}
	int cur = (req.attr_mask & IBV_WQ_ATTR_CURR_STATE) ? (int)req.curr_wq_state : wq->state;
	int next = (req.attr_mask & IBV_WQ_ATTR_STATE) ? (int)req.wq_state : cur;
	int err = 0;
	if (cur > EMU_WQS_ERR || next > EMU_WQS_ERR)
		err = EINVAL;
	else if (cur != wq->state)
		err = EINVAL; /* the firmware's MODIFY_RQ checks the current state */
	else if (cur == EMU_WQS_RESET && next == EMU_WQS_ERR)
		err = EINVAL; /* RQ state machine: RST goes to RDY only */
	else if (cur == EMU_WQS_ERR && next == EMU_WQS_RDY)
		err = EINVAL; /* ERR goes to RST first */
	if (!err && (req.attr_mask & IBV_WQ_ATTR_FLAGS)) {
		if (req.flags_mask & ~(uint32_t)(IBV_WQ_FLAGS_RESERVED - 1))
			err = EINVAL;
		else if (req.flags_mask & ~(uint32_t)IBV_WQ_FLAGS_CVLAN_STRIPPING)
			err = EOPNOTSUPP;
		else
			wq->create_flags = (wq->create_flags & ~req.flags_mask) | (req.flags & req.flags_mask);
	}
	int old = wq->state;
	if (!err)
		wq->state = next;
	emu_unlock();
	if (!err)
		emu_engine_wq_modified(wq, old);
	return err;
}

static void wq_free(struct emu_wq *wq)
{
	emu_engine_wq_destroying(wq);
	free(wq);
}

static void wq_unlink(struct emu_wq *wq)
{
	for (struct emu_wq **p = &g_wqs; *p; p = &(*p)->next)
		if (*p == wq) {
			*p = wq->next;
			break;
		}
}

int emu_cmd_ex_destroy_wq(struct emu_cmd *cmd)
{
	struct ib_uverbs_ex_destroy_wq req;
	memset(&req, 0, sizeof(req));
	memcpy(&req, cmd->in, cmd->in_len < sizeof(req) ? cmd->in_len : sizeof(req));
	if (req.comp_mask)
		return EINVAL;
	emu_lock();
	struct emu_wq *wq = wq_by_handle(cmd->ctx, req.wq_handle);
	if (!wq || wq->ind_refs) {
		emu_unlock();
		return wq ? EBUSY : EINVAL;
	}
	wq_unlink(wq);
	emu_unlock();
	struct ib_uverbs_ex_destroy_wq_resp r;
	memset(&r, 0, sizeof(r));
	size_t len = cmd->resp_len < sizeof(r) ? cmd->resp_len : sizeof(r);
	r.response_length = (uint32_t)len;
	r.events_reported = 0; /* no WQ async events are generated */
	wq_free(wq);
	return emu_cmd_respond(cmd, &r, len);
}

/* ---- indirection tables ---- */

int emu_cmd_ex_create_rwq_ind_tbl(struct emu_cmd *cmd)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct ib_uverbs_ex_create_rwq_ind_table req;
	memcpy(&req, cmd->in, sizeof(req));
	if (req.comp_mask)
		return EOPNOTSUPP;
	if (req.log_ind_tbl_size > IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE)
		return EINVAL;
	uint32_t n = 1u << req.log_ind_tbl_size;
	size_t expected = (size_t)n * 4; /* uverbs_request_next, then uverbs_request_finish (zero padding only) */
	if (cmd->in_len < sizeof(req) + expected)
		return ENOSPC;
	for (size_t i = sizeof(req) + expected; i < cmd->in_len; i++)
		if (cmd->in[i])
			return EOPNOTSUPP;
	/* mlx5_ib_create_rwq_ind_table: driver input must be zero, the table no larger than log_max_rqt_size */
	for (size_t i = 0; i < cmd->drv_in_len; i++)
		if (cmd->drv_in[i])
			return EOPNOTSUPP;
	if (cmd->drv_out_len && cmd->drv_out_len < sizeof(struct mlx5_ib_create_rwq_ind_tbl_resp))
		return EINVAL;

	struct emu_rwq_ind_tbl *t = calloc(1, sizeof(*t));
	struct emu_wq **wqs = calloc(n, sizeof(*wqs));
	if (!t || !wqs) {
		free(t);
		free(wqs);
		return ENOMEM;
	}
	emu_lock();
	for (uint32_t i = 0; i < n; i++) {
		uint32_t h;
		memcpy(&h, cmd->in + sizeof(req) + 4 * (size_t)i, 4);
		wqs[i] = wq_by_handle(ctx, h);
		if (!wqs[i]) {
			emu_unlock();
			free(t);
			free(wqs);
			return EINVAL;
		}
	}
	if (req.log_ind_tbl_size > EMU_LOG_MAX_RQT_SIZE) {
		emu_unlock();
		free(t);
		free(wqs);
		return EINVAL;
	}
	t->ctx = ctx;
	t->handle = emu_ctx_new_handle(ctx);
	t->log_size = req.log_ind_tbl_size;
	t->wqs = wqs;
	for (uint32_t i = 0; i < n; i++)
		wqs[i]->ind_refs++;
	emu_unlock();
	t->ind_tbl_num = emu_reg_alloc_srqn();

	struct ib_uverbs_ex_create_rwq_ind_table_resp r;
	memset(&r, 0, sizeof(r));
	size_t len = cmd->resp_len < sizeof(r) ? cmd->resp_len : sizeof(r);
	r.response_length = (uint32_t)len;
	r.ind_tbl_handle = t->handle;
	r.ind_tbl_num = t->ind_tbl_num;
	struct mlx5_ib_create_rwq_ind_tbl_resp dr;
	memset(&dr, 0, sizeof(dr));
	dr.response_length = (uint32_t)(cmd->drv_out_len < sizeof(dr) ? cmd->drv_out_len : sizeof(dr));
	int err = emu_cmd_respond(cmd, &r, len);
	if (!err)
		err = emu_cmd_respond_drv(cmd, &dr, sizeof(dr));
	emu_lock();
	if (err) {
		for (uint32_t i = 0; i < n; i++)
			wqs[i]->ind_refs--;
		emu_unlock();
		free(wqs);
		free(t);
		return err;
	}
	t->next = g_tbls;
	g_tbls = t;
	emu_unlock();
	return 0;
}

static void tbl_unlink_free(struct emu_rwq_ind_tbl *t)
{
	for (struct emu_rwq_ind_tbl **p = &g_tbls; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			break;
		}
	for (uint32_t i = 0; i < (1u << t->log_size); i++)
		t->wqs[i]->ind_refs--;
	free(t->wqs);
	free(t);
}

int emu_cmd_ex_destroy_rwq_ind_tbl(struct emu_cmd *cmd)
{
	struct ib_uverbs_ex_destroy_rwq_ind_table req;
	memcpy(&req, cmd->in, sizeof(req));
	if (req.comp_mask)
		return EINVAL;
	emu_lock();
	struct emu_rwq_ind_tbl *t = tbl_by_handle(cmd->ctx, req.ind_tbl_handle);
	int err = !t ? EINVAL : t->qp_refs ? EBUSY : 0;
	if (!err)
		tbl_unlink_free(t);
	emu_unlock();
	return err;
}

/* ---- RSS QP ---- */

int emu_cmd_create_rss_qp(struct emu_cmd *cmd, const struct ib_uverbs_ex_create_qp *req)
{
	struct emu_ctx *ctx = cmd->ctx;
	/* core create_qp(): raw packet capability, then the indirection table, then no receive side of its own */
	if (req->qp_type == IBV_QPT_RAW_PACKET && !emu_cap_net_raw())
		return EPERM;
	emu_lock();
	struct emu_rwq_ind_tbl *t = tbl_by_handle(ctx, req->rwq_ind_tbl_handle);
	struct emu_pd *pd = emu_pd_by_handle(ctx, req->pd_handle);
	emu_unlock();
	if (!t)
		return EINVAL;
	if (req->max_recv_wr || req->max_recv_sge || req->srq_handle || req->is_srq)
		return EINVAL;
	if (req->max_send_wr)
		return EINVAL; /* mlx5 check_valid_flow: an RSS QP has no send queue (and so no send CQ) */
	if (!pd)
		return EINVAL;
	if (req->qp_type != IBV_QPT_RAW_PACKET)
		return EOPNOTSUPP; /* mlx5: RSS is a raw packet (TIR) object */
	if (ctx->port->link_layer != EMU_LINK_ETH)
		return EOPNOTSUPP;
	if (req->create_flags)
		return EOPNOTSUPP;
	/* process_udata_size: the driver data reaches mlx5_ib_create_qp_rss.flags; the rest must be zero */
	struct mlx5_ib_create_qp_rss ucmd;
	if (cmd->drv_in_len < OFFEND(struct mlx5_ib_create_qp_rss, flags))
		return EINVAL;
	if (emu_cmd_drv_in(cmd, &ucmd, sizeof(ucmd)))
		return EOPNOTSUPP;
	/* create_rss_raw_qp_tir, in its order */
	if (ucmd.comp_mask)
		return EOPNOTSUPP;
	for (size_t i = 0; i < sizeof(ucmd.reserved); i++)
		if (ucmd.reserved[i])
			return EOPNOTSUPP;
	if (ucmd.flags & ~(uint32_t)(MLX5_QP_FLAG_TUNNEL_OFFLOADS | MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_UC |
				      MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_MC))
		return EOPNOTSUPP;
	if ((ucmd.rx_hash_fields_mask & MLX5_RX_HASH_INNER) && !(ucmd.flags & MLX5_QP_FLAG_TUNNEL_OFFLOADS))
		return EOPNOTSUPP;
	if (ucmd.flags & MLX5_QP_FLAG_TUNNEL_OFFLOADS)
		return EOPNOTSUPP; /* tunnel offloads are not emulated (tunnel_offloads_caps 0) */
	if (ucmd.rx_hash_function != MLX5_RX_HASH_FUNC_TOEPLITZ)
		return EOPNOTSUPP;
	if (ucmd.rx_key_len != 40)
		return EINVAL; /* the TIR's rx_hash_toeplitz_key is 40 bytes */
	uint64_t m = ucmd.rx_hash_fields_mask;
	if (!m && t->log_size)
		return EINVAL; /* no hashing: only a one-entry table makes sense */
	int v4 = (m & (MLX5_RX_HASH_SRC_IPV4 | MLX5_RX_HASH_DST_IPV4)) != 0;
	int v6 = (m & (MLX5_RX_HASH_SRC_IPV6 | MLX5_RX_HASH_DST_IPV6)) != 0;
	if (v4 && v6)
		return EINVAL;
	uint32_t l4 = ((m & (MLX5_RX_HASH_SRC_PORT_TCP | MLX5_RX_HASH_DST_PORT_TCP)) != 0) |
		      ((m & (MLX5_RX_HASH_SRC_PORT_UDP | MLX5_RX_HASH_DST_PORT_UDP)) != 0) << 1 |
		      ((m & MLX5_RX_HASH_IPSEC_SPI) != 0) << 2;
	if (l4 & (l4 - 1))
		return EINVAL; /* one L4 protocol */
	if (m & ~(uint64_t)(MLX5_RX_HASH_SRC_IPV4 | MLX5_RX_HASH_DST_IPV4 | MLX5_RX_HASH_SRC_IPV6 |
			    MLX5_RX_HASH_DST_IPV6 | MLX5_RX_HASH_SRC_PORT_TCP | MLX5_RX_HASH_DST_PORT_TCP |
			    MLX5_RX_HASH_SRC_PORT_UDP | MLX5_RX_HASH_DST_PORT_UDP | MLX5_RX_HASH_INNER))
		return EOPNOTSUPP; /* IPsec SPI hashing: not offered in rss_caps */

	struct emu_qp *qp = calloc(1, sizeof(*qp));
	struct emu_rss_qp *rss = calloc(1, sizeof(*rss));
	if (!qp || !rss) {
		free(qp);
		free(rss);
		return ENOMEM;
	}
	rss->qp = qp;
	rss->ind_tbl = t;
	rss->fields_mask = m;
	rss->function = ucmd.rx_hash_function;
	rss->key_len = ucmd.rx_key_len;
	memcpy(rss->key, ucmd.rx_hash_key, 40);
	qp->ctx = ctx;
	qp->pd = pd;
	qp->rss = rss;
	qp->type = IBV_QPT_RAW_PACKET;
	qp->state = EMU_QPS_RESET;
	qp->ibv_create_flags = req->create_flags;
	qp->user_handle = req->user_handle;
	qp->port_num = 1;
	qp->dbrec = (uint64_t)(uintptr_t)rss->dbrec;
	qp->uar_page = EMU_MAX_UAR_PAGES + EMU_DYN_UAR_PAGES; /* no blue-flame register: past every page */
	qp->bf_offset = EMU_BF_OFFSET;
	emu_lock();
	qp->handle = emu_ctx_new_handle(ctx);
	t->qp_refs++;
	emu_unlock();
	int err = emu_reg_qp_alloc(qp); /* an internal number, so steering can name it; the user sees 0 */
	if (!err) {
		struct ib_uverbs_ex_create_qp_resp r;
		memset(&r, 0, sizeof(r));
		size_t len = cmd->resp_len < sizeof(r) ? cmd->resp_len : sizeof(r);
		r.response_length = (uint32_t)len;
		r.base.qp_handle = qp->handle;
		r.base.qpn = 0; /* create_rss_raw_qp_tir: "qpn is reserved for that QP" -> qp_num 0 */
		struct mlx5_ib_create_qp_resp dr;
		memset(&dr, 0, sizeof(dr));
		err = emu_cmd_respond(cmd, &r, len);
		if (!err)
			err = emu_cmd_respond_drv(cmd, &dr, sizeof(dr));
		if (err)
			emu_reg_qp_free(qp);
	}
	emu_lock();
	if (err) {
		t->qp_refs--;
		emu_unlock();
		free(rss);
		free(qp);
		return err;
	}
	emu_ctx_link_qp(ctx, qp);
	emu_unlock();
	if (emu_log_enabled)
		emu_log("qp handle %u: RSS qp (internal qpn 0x%x) ind_tbl %u fields 0x%llx", qp->handle, qp->qpn,
			t->handle, (unsigned long long)m);
	emu_engine_qp_created(qp);
	return 0;
}

void emu_rss_qp_release(struct emu_qp *qp)
{
	if (!qp->rss)
		return;
	emu_lock();
	qp->rss->ind_tbl->qp_refs--;
	emu_unlock();
	free(qp->rss);
	qp->rss = NULL;
}

void emu_destroy_all_wqs(struct emu_ctx *ctx)
{
	emu_lock();
	for (struct emu_rwq_ind_tbl *t = g_tbls, *n; t; t = n) {
		n = t->next;
		if (t->ctx == ctx)
			tbl_unlink_free(t);
	}
	emu_unlock();
	for (;;) {
		emu_lock();
		struct emu_wq *w = g_wqs;
		while (w && w->ctx != ctx)
			w = w->next;
		if (w)
			wq_unlink(w);
		emu_unlock();
		if (!w)
			break;
		wq_free(w);
	}
}
