/* SPDX-License-Identifier: Apache-2.0 */
/* Queue pairs: CREATE_QP (legacy and extended), QUERY_QP, MODIFY_QP (legacy and extended), DESTROY_QP.
 * Checks follow the Linux kernel (uverbs_cmd.c create_qp()/modify_qp(), mlx5 qp.c: set_rq_size(),
 * set_user_buf_size(), process_vendor_flags(), mlx5_ib_modify_qp(), mlx5_set_path()), and the blue-flame
 * register assignment follows mlx5's static allocation (alloc_bfreg(): a free low-latency register first,
 * then the least used medium one, else the shared register 0). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "engine_hooks.h"
#include "qp_state.h"
#include "uverbs.h"

#define DEFAULT_UIDX 0xffffff
#define LOG_MAX_QP_SZ 15          /* 32768 WQEs */
#define MAX_RD_ATOMIC 16          /* 1 << log_max_ra_res_qp / log_max_ra_req_qp */
#define IB_QP_STANDARD_BITS ((IBV_QP_RATE_LIMIT << 1) - 1)
#define LEGACY_LAST_MASK IBV_QP_DEST_QPN


static int is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

/* ---- blue-flame registers (per context), the kernel's static scheme ---- */

static uint32_t num_med_bfregs(const struct emu_ctx *ctx)
{
	int n = (int)ctx->tot_bfregs - (int)ctx->num_low_lat_bfregs - 1;
	return n > 0 ? (uint32_t)n : 0;
}

static uint32_t alloc_bfreg(struct emu_ctx *ctx)
{
	uint32_t med = num_med_bfregs(ctx);
	uint32_t first_hi = med + 1;
	for (uint32_t i = first_hi; i < ctx->tot_bfregs; i++)
		if (!ctx->bfreg_users[i]) {
			ctx->bfreg_users[i]++;
			return i;
		}
	if (med) {
		uint32_t best = 1;
		for (uint32_t i = 1; i < first_hi; i++) {
			if (ctx->bfreg_users[i] < ctx->bfreg_users[best])
				best = i;
			if (!ctx->bfreg_users[best])
				break;
		}
		ctx->bfreg_users[best]++;
		return best;
	}
	ctx->bfreg_users[0]++;
	return 0;
}

/* Drops a QP's use of static bfreg n; anything past the static ones (dynamic bfregs, RSS QPs) was not counted. */
static void release_bfreg(struct emu_ctx *ctx, uint32_t n)
{
	emu_lock();
	if (n < ctx->tot_bfregs && ctx->bfreg_users[n])
		ctx->bfreg_users[n]--;
	emu_unlock();
}

/* A dynamic bfreg (2 per dynamic UAR page) is usable once its page was mapped with ALLOC_WC. */
static int dyn_bfreg_valid(struct emu_ctx *ctx, uint32_t bfregn)
{
	uint32_t page = bfregn / 2;
	emu_lock();
	int ok = page < EMU_DYN_UAR_PAGES && ctx->dyn_uar_mapped[page];
	emu_unlock();
	return ok;
}

/* Index libmlx5 uses for ctx->bfs[]: 4 registers per UAR page of which the first 2 are real (adjust_bfregn). */
static uint32_t gross_bfreg(uint32_t bfregn)
{
	return bfregn / 2 * 4 + bfregn % 2;
}

/* ---- create ---- */

struct qp_args {
	uint64_t user_handle;
	uint32_t pd_handle, send_cq_handle, recv_cq_handle, srq_handle;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data;
	uint8_t sq_sig_all, qp_type, is_srq;
	uint32_t create_flags;
};

static int check_type(uint8_t t)
{
	switch (t) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		return 0;
	case IBV_QPT_RAW_PACKET:
		return 0; /* permission and link layer: checked by create_qp() */
	case IBV_QPT_DRIVER:
		return 0; /* DCI or DCT, by the vendor flags (cmd_dc.c) */
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return 0; /* XRC INI and TGT (cmd_xrcd.c) */
	default:
		return EINVAL;
	}
}

static void qp_unlink(struct emu_ctx *ctx, struct emu_qp *qp)
{
	emu_ctx_unlink_qp(ctx, qp);
}

static int create_qp(struct emu_cmd *cmd, const struct qp_args *a, struct ib_uverbs_create_qp_resp *out)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct mlx5_ib_create_qp ucmd;
	struct mlx5_ib_create_qp_resp dresp;
	int err;

	/* core create_qp(): raw packet QPs need CAP_NET_RAW; mlx5 serves them on Ethernet ports only */
	int raw = a->qp_type == IBV_QPT_RAW_PACKET;
	if (raw && !emu_cap_net_raw())
		return EPERM;
	if ((err = check_type(a->qp_type)))
		return err;
	if (raw && ctx->port->link_layer != EMU_LINK_ETH)
		return EOPNOTSUPP;
	if (a->qp_type == IBV_QPT_XRC_RECV) /* the kernel's own QP: no driver data, pd_handle names the XRCD */
		return emu_xrc_create_tgt(cmd, a->pd_handle, a->user_handle, out);
	/* core create_qp(): an XRC INI QP has no receive side */
	int ini = a->qp_type == IBV_QPT_XRC_SEND;
	if (a->max_send_wr > EMU_MAX_QP_WR || a->max_recv_wr > EMU_MAX_QP_WR || a->max_send_sge > EMU_MAX_SGE ||
	    a->max_recv_sge > EMU_MAX_SGE || a->max_inline_data > EMU_MAX_INLINE)
		return EINVAL;
	if (cmd->drv_in_len < offsetof(struct mlx5_ib_create_qp, sq_buf_addr))
		return EINVAL;
	if ((err = emu_cmd_drv_in(cmd, &ucmd, sizeof(ucmd))))
		return err;

	/* vendor flags valid for RC/UC/UD user QPs */
	uint32_t known = MLX5_QP_FLAG_SIGNATURE | MLX5_QP_FLAG_SCATTER_CQE | MLX5_QP_FLAG_TUNNEL_OFFLOADS |
			 MLX5_QP_FLAG_BFREG_INDEX | MLX5_QP_FLAG_TYPE_DCT | MLX5_QP_FLAG_TYPE_DCI |
			 MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_UC | MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_MC |
			 MLX5_QP_FLAG_ALLOW_SCATTER_CQE | MLX5_QP_FLAG_PACKET_BASED_CREDIT_MODE |
			 MLX5_QP_FLAG_UAR_PAGE_INDEX | MLX5_QP_FLAG_DCI_STREAM;
	if (ucmd.flags & ~known)
		return EINVAL;
	int dc;
	if ((err = emu_dc_create_type(a->qp_type, ucmd.flags, &dc)))
		return err;
	int dct = dc == EMU_DC_DCT;
	if (!raw && (ucmd.flags & (MLX5_QP_FLAG_TUNNEL_OFFLOADS | MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_UC |
				   MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_MC)))
		return EINVAL; /* raw packet only */
	if (ucmd.flags & MLX5_QP_FLAG_TUNNEL_OFFLOADS)
		return EOPNOTSUPP; /* tunnel offloads: not emulated */
	/* Linux create_user_qp(): MLX5_QP_FLAG_BFREG_INDEX names a bfreg of a dynamic UAR page the context mapped
	 * with ALLOC_WC (libmlx5's thread domains), checked by bfregn_to_uar_index(..., dyn_bfreg = true);
	 * MLX5_QP_FLAG_UAR_PAGE_INDEX names a UAR object, which only the ioctl ABI allocates: none exists here. */
	uint32_t uar_flags = ucmd.flags & (MLX5_QP_FLAG_BFREG_INDEX | MLX5_QP_FLAG_UAR_PAGE_INDEX);
	int dyn_bfreg = uar_flags == MLX5_QP_FLAG_BFREG_INDEX;
	if (uar_flags && !dyn_bfreg)
		return EINVAL;
	if (dyn_bfreg && !dyn_bfreg_valid(ctx, ucmd.bfreg_index))
		return EINVAL;
	if (ucmd.flags & (MLX5_QP_FLAG_SIGNATURE | MLX5_QP_FLAG_PACKET_BASED_CREDIT_MODE))
		return EOPNOTSUPP;

	/* user index: required under cqe_version 1, must be the default otherwise */
	uint32_t uidx = DEFAULT_UIDX;
	if (ctx->cqe_version) {
		if ((ucmd.uidx & ~0xffffffu) || ucmd.uidx == DEFAULT_UIDX)
			return EINVAL;
		uidx = ucmd.uidx;
	}
	if ((err = emu_dc_check_attr(dc, a->is_srq, a->max_recv_wr, a->max_recv_sge)))
		return err;

	int has_rq = !ini && !a->is_srq && a->max_recv_wr != 0;
	uint32_t rq_cnt = 0, rq_shift = 0;
	if (has_rq) {
		rq_cnt = ucmd.rq_wqe_count;
		if (ucmd.rq_wqe_shift > 32)
			return EINVAL;
		rq_shift = ucmd.rq_wqe_shift;
		/* 64-bit shifts: the bound above lets rq_wqe_shift be 32, and 1u << 32 is undefined */
		if (rq_cnt && (!is_pow2(rq_cnt) || rq_cnt > (1u << LOG_MAX_QP_SZ) || rq_shift < 4 ||
			       (1ull << rq_shift) > EMU_MAX_RQ_DESC_SZ))
			return EINVAL;
	}
	if (ucmd.sq_wqe_count && (!is_pow2(ucmd.sq_wqe_count) || ucmd.sq_wqe_count > (1u << LOG_MAX_QP_SZ)))
		return EINVAL;
	/* A raw packet QP has its SQ in a buffer of its own (libmlx5 allocates qp->sq_buf and passes sq_buf_addr;
	 * mlx5 create_raw_packet_qp() builds the SQ object from it); buf_addr then holds the RQ alone. */
	uint64_t sq_size = (uint64_t)ucmd.sq_wqe_count << 6;
	/* an INI QP's SQ follows whatever receive ring libmlx5 laid out before it (none when max_recv_wr is 0) */
	uint64_t rq_bytes = ini && ucmd.rq_wqe_shift < 32 ? (uint64_t)ucmd.rq_wqe_count << ucmd.rq_wqe_shift : 0;
	uint64_t buf_size = ((uint64_t)rq_cnt << rq_shift) + rq_bytes + (raw ? 0 : sq_size);
	if (buf_size && !emu_user_range_mapped(ucmd.buf_addr, buf_size))
		return EFAULT;
	if (raw && sq_size && !emu_user_range_mapped(ucmd.sq_buf_addr, sq_size))
		return EFAULT;
	if (!dct && !emu_user_range_mapped(ucmd.db_addr, 8))
		return EFAULT; /* a DCT has no work queue and no doorbell record (create_dct) */

	struct emu_qp *qp = calloc(1, sizeof(*qp));
	if (!qp)
		return ENOMEM;
	emu_lock();
	struct emu_pd *pd = emu_pd_by_handle(ctx, a->pd_handle);
	struct emu_cq *scq = emu_cq_by_handle(ctx, a->send_cq_handle);
	struct emu_cq *rcq = ini ? NULL : emu_cq_by_handle(ctx, a->recv_cq_handle);
	struct emu_srq *srq = a->is_srq && !ini ? emu_srq_by_handle(ctx, a->srq_handle) : NULL;
	if (!pd || !scq || (!rcq && !ini) || (a->is_srq && !ini && (!srq || srq->srq_type != IBV_SRQT_BASIC))) {
		emu_unlock();
		free(qp);
		return EINVAL;
	}
	qp->ctx = ctx;
	qp->pd = pd;
	qp->send_cq = scq;
	qp->recv_cq = rcq;
	qp->srq = srq;
	qp->handle = emu_ctx_new_handle(ctx);
	/* a dynamic bfreg is the thread domain's own: not counted among the static ones */
	uint32_t bfregn = dyn_bfreg || dct ? 2 * (ctx->num_uar_pages + EMU_DYN_UAR_PAGES) : alloc_bfreg(ctx);
	emu_unlock();

	/* a DC QP travels as RC: its packets carry the DC fields besides (src/engine/eng_dc.c) */
	qp->type = dc ? EMU_QPT_RC : a->qp_type;
	qp->dc_type = dc;
	qp->dc_key = dct ? ucmd.access_key : 0;
	qp->state = EMU_QPS_RESET;
	qp->uidx = uidx;
	qp->create_flags = ucmd.flags;
	qp->ibv_create_flags = a->create_flags;
	qp->sq_sig_all = a->sq_sig_all;
	qp->max_send_wr = a->max_send_wr;
	qp->max_recv_wr = has_rq ? rq_cnt : 0;
	qp->max_send_sge = a->max_send_sge;
	qp->max_recv_sge = has_rq && rq_shift >= 4 ? (uint32_t)((1ull << rq_shift) / 16) : 0;
	qp->max_inline_data = a->max_inline_data;
	qp->buf = ucmd.buf_addr;
	qp->rq_buf = ucmd.buf_addr;
	qp->rq_wqe_cnt = rq_cnt;
	qp->rq_wqe_shift = rq_shift;
	qp->sq_buf = raw ? ucmd.sq_buf_addr : ucmd.buf_addr + ((uint64_t)rq_cnt << rq_shift) + rq_bytes;
	qp->sq_wqe_cnt = ucmd.sq_wqe_count;
	qp->dbrec = ucmd.db_addr;
	if (dyn_bfreg) {
		qp->bfreg_index = 0; /* kernel: adjust_bfregn(MLX5_IB_INVALID_BFREG); libmlx5 uses the TD's register */
		qp->uar_page = ctx->num_uar_pages + ucmd.bfreg_index / 2;
		qp->bf_offset = EMU_BF_OFFSET + (ucmd.bfreg_index % 2) * EMU_BF_REG_SIZE;
	} else {
		qp->bfreg_index = gross_bfreg(bfregn);
		qp->uar_page = bfregn / 2;
		qp->bf_offset = EMU_BF_OFFSET + (bfregn % 2) * EMU_BF_REG_SIZE;
	}
	qp->user_handle = a->user_handle;
	qp->port_num = 1;

	err = emu_reg_qp_alloc(qp);
	if (err) {
		release_bfreg(ctx, bfregn);
		free(qp);
		return err;
	}
	memset(&dresp, 0, sizeof(dresp));
	dresp.bfreg_index = qp->bfreg_index;
	if (raw) {
		/* create_raw_packet_qp(): the QP is an SQ, an RQ, a TIS and a TIR, numbered by the device. Here the
		 * SQ and RQ carry the QPN itself (the number the CQEs and doorbells use) and the TIR/TIS the same. */
		dresp.comp_mask = MLX5_IB_CREATE_QP_RESP_MASK_TIRN | MLX5_IB_CREATE_QP_RESP_MASK_TISN |
				  MLX5_IB_CREATE_QP_RESP_MASK_RQN | MLX5_IB_CREATE_QP_RESP_MASK_SQN;
		dresp.tirn = qp->qpn;
		dresp.tisn = qp->qpn;
		dresp.rqn = qp->qpn;
		dresp.sqn = qp->qpn;
	}
	if ((err = emu_cmd_respond_drv(cmd, &dresp, sizeof(dresp)))) {
		emu_reg_qp_free(qp);
		release_bfreg(ctx, bfregn);
		free(qp);
		return err;
	}
	out->qp_handle = qp->handle;
	out->qpn = dct ? 0 : qp->qpn; /* a DCT has its number from RTR on (emu_dc_modify_done) */
	out->max_send_wr = qp->max_send_wr;
	out->max_recv_wr = qp->max_recv_wr;
	out->max_send_sge = qp->max_send_sge;
	out->max_recv_sge = has_rq ? a->max_recv_sge : 0;
	out->max_inline_data = qp->max_inline_data;
	emu_lock();
	emu_ctx_link_qp(ctx, qp);
	emu_unlock();
	if (emu_log_enabled)
		emu_log("qp handle %u: qpn 0x%x type %d uidx 0x%x sq %u@0x%llx rq %u<<%u@0x%llx db 0x%llx bfreg %u "
			"(uar page %u + 0x%x) flags 0x%x%s", qp->handle, qp->qpn, qp->type, qp->uidx, qp->sq_wqe_cnt,
			(unsigned long long)qp->sq_buf, qp->rq_wqe_cnt, qp->rq_wqe_shift,
			(unsigned long long)qp->rq_buf, (unsigned long long)qp->dbrec, qp->bfreg_index,
			qp->uar_page, qp->bf_offset, qp->create_flags, srq ? " srq" : "");
	emu_engine_qp_created(qp);
	return 0;
}

static void destroy_qp_obj(struct emu_qp *qp)
{
	if (emu_xrc_tgt_closing(qp))
		return; /* an opened handle of an XRC TGT QP, or a TGT QP an opened handle keeps */
	/* qp is unlinked; tell the engine, then release its number and register */
	emu_engine_qp_destroying(qp);
	emu_reg_qp_free(qp);
	emu_rss_qp_release(qp);
	if (qp->type == EMU_QPT_XRC_TGT)
		emu_xrcd_release(qp->ctx, qp->xrcd); /* it took no register */
	else
		release_bfreg(qp->ctx, qp->uar_page * 2 + (qp->bf_offset - EMU_BF_OFFSET) / EMU_BF_REG_SIZE);
	free(qp);
}

static void qp_discard(struct emu_ctx *ctx, uint32_t handle)
{
	emu_lock();
	struct emu_qp *qp = emu_qp_by_handle(ctx, handle);
	if (qp)
		qp_unlink(ctx, qp);
	emu_unlock();
	if (qp)
		destroy_qp_obj(qp);
}

int emu_cmd_create_qp(struct emu_cmd *cmd)
{
	struct ib_uverbs_create_qp req;
	struct ib_uverbs_create_qp_resp r;
	struct qp_args a;

	memcpy(&req, cmd->in, sizeof(req));
	memset(&a, 0, sizeof(a));
	a.user_handle = req.user_handle;
	a.pd_handle = req.pd_handle;
	a.send_cq_handle = req.send_cq_handle;
	a.recv_cq_handle = req.recv_cq_handle;
	a.srq_handle = req.srq_handle;
	a.max_send_wr = req.max_send_wr;
	a.max_recv_wr = req.max_recv_wr;
	a.max_send_sge = req.max_send_sge;
	a.max_recv_sge = req.max_recv_sge;
	a.max_inline_data = req.max_inline_data;
	a.sq_sig_all = req.sq_sig_all;
	a.qp_type = req.qp_type;
	a.is_srq = req.is_srq;
	memset(&r, 0, sizeof(r));
	int err = create_qp(cmd, &a, &r);
	if (!err && (err = emu_cmd_respond(cmd, &r, sizeof(r))))
		qp_discard(cmd->ctx, r.qp_handle);
	return err;
}

int emu_cmd_ex_create_qp(struct emu_cmd *cmd)
{
	struct ib_uverbs_ex_create_qp req;
	struct ib_uverbs_ex_create_qp_resp r;
	struct qp_args a;

	memset(&req, 0, sizeof(req));
	memcpy(&req, cmd->in, cmd->in_len < sizeof(req) ? cmd->in_len : sizeof(req));
	for (size_t i = sizeof(req); i < cmd->in_len; i++)
		if (cmd->in[i])
			return EOPNOTSUPP;
	if (req.comp_mask & ~(uint32_t)IB_UVERBS_CREATE_QP_SUP_COMP_MASK)
		return EINVAL;
	if (req.reserved)
		return EINVAL;
	if (req.comp_mask & IB_UVERBS_CREATE_QP_MASK_IND_TABLE)
		return emu_cmd_create_rss_qp(cmd, &req); /* cmd_wq.c */
	uint32_t known = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB | IBV_QP_CREATE_SCATTER_FCS |
			 IBV_QP_CREATE_CVLAN_STRIPPING | IBV_QP_CREATE_SOURCE_QPN |
			 IBV_QP_CREATE_PCI_WRITE_END_PADDING | (1u << 3) | (1u << 4) | (1u << 5);
	if (req.create_flags & ~known)
		return EINVAL;
	/* CVLAN stripping: raw packet QPs only (mlx5 create_qp: vlan_cap), as the device reports in raw_packet_caps */
	if (req.create_flags & ~(uint32_t)(IBV_QP_CREATE_BLOCK_SELF_MCAST_LB | IBV_QP_CREATE_CVLAN_STRIPPING))
		return EOPNOTSUPP;
	if ((req.create_flags & IBV_QP_CREATE_CVLAN_STRIPPING) && req.qp_type != IBV_QPT_RAW_PACKET)
		return EOPNOTSUPP;
	memset(&a, 0, sizeof(a));
	a.user_handle = req.user_handle;
	a.pd_handle = req.pd_handle;
	a.send_cq_handle = req.send_cq_handle;
	a.recv_cq_handle = req.recv_cq_handle;
	a.srq_handle = req.srq_handle;
	a.max_send_wr = req.max_send_wr;
	a.max_recv_wr = req.max_recv_wr;
	a.max_send_sge = req.max_send_sge;
	a.max_recv_sge = req.max_recv_sge;
	a.max_inline_data = req.max_inline_data;
	a.sq_sig_all = req.sq_sig_all;
	a.qp_type = req.qp_type;
	a.is_srq = req.is_srq;
	a.create_flags = req.create_flags;
	memset(&r, 0, sizeof(r));
	int err = create_qp(cmd, &a, &r.base);
	if (err)
		return err;
	size_t len = cmd->resp_len < sizeof(r) ? cmd->resp_len : sizeof(r);
	r.response_length = (uint32_t)len;
	if ((err = emu_cmd_respond(cmd, &r, len)))
		qp_discard(cmd->ctx, r.base.qp_handle);
	return err;
}

/* ---- query ---- */

static void path_to_dest(const struct emu_path *p, struct ib_uverbs_qp_dest *d)
{
	memset(d, 0, sizeof(*d));
	memcpy(d->dgid, p->dgid, 16);
	d->flow_label = p->flow_label;
	d->dlid = p->dlid;
	d->sgid_index = p->sgid_index;
	d->hop_limit = p->hop_limit;
	d->traffic_class = p->traffic_class;
	d->sl = p->sl;
	d->src_path_bits = p->src_path_bits;
	d->static_rate = p->static_rate;
	d->is_global = p->is_global;
	d->port_num = p->port_num;
}

void emu_qp_query_fill(const struct emu_qp *qp, struct ib_uverbs_query_qp_resp *r)
{
	memset(r, 0, sizeof(*r));
	path_to_dest(&qp->path, &r->dest);
	r->max_send_wr = qp->max_send_wr;
	r->max_recv_wr = qp->max_recv_wr;
	r->max_send_sge = qp->max_send_sge;
	r->max_recv_sge = qp->max_recv_sge;
	r->max_inline_data = qp->max_inline_data;
	r->qkey = qp->qkey;
	r->rq_psn = qp->rq_psn;
	r->sq_psn = qp->sq_psn;
	r->dest_qp_num = qp->dest_qp_num;
	r->qp_access_flags = qp->qp_access_flags;
	r->pkey_index = qp->pkey_index;
	r->qp_state = (uint8_t)qp->state;
	r->cur_qp_state = (uint8_t)qp->state;
	r->path_mtu = qp->path_mtu;
	r->path_mig_state = IBV_MIG_MIGRATED;
	r->sq_draining = qp->sq_draining;
	r->max_rd_atomic = qp->max_rd_atomic;
	r->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	r->min_rnr_timer = qp->min_rnr_timer;
	r->port_num = qp->port_num;
	r->timeout = qp->timeout;
	r->retry_cnt = qp->retry_cnt;
	r->rnr_retry = qp->rnr_retry;
	r->sq_sig_all = (uint8_t)qp->sq_sig_all;
}

int emu_cmd_query_qp(struct emu_cmd *cmd)
{
	struct ib_uverbs_query_qp req;
	struct ib_uverbs_query_qp_resp r;

	memcpy(&req, cmd->in, sizeof(req));
	memset(&r, 0, sizeof(r));
	emu_lock();
	struct emu_qp *qp = emu_qp_by_handle(cmd->ctx, req.qp_handle);
	int remote = 0;
	uint32_t oqpn = 0, oxrcdn = 0;
	if (qp && qp->xrc_open) { /* an opened handle: the QP it names (ib_query_qp reads the real QP) */
		oqpn = qp->open_qpn;
		oxrcdn = qp->xrcdn;
		qp = emu_xrc_open_target(qp);
		remote = !qp;
	}
	if (qp)
		emu_qp_query_fill(qp, &r);
	emu_unlock();
	if (remote) /* another process's TGT QP: what it published at its last change (xrc_dir.c); gone with its
		     * process, EOPNOTSUPP (README, Not supported) */
		return emu_xrc_tgt_query(oqpn, oxrcdn, &r) ? emu_cmd_respond(cmd, &r, sizeof(r)) : EOPNOTSUPP;
	if (!qp)
		return EINVAL;
	return emu_cmd_respond(cmd, &r, sizeof(r));
}

/* ---- modify ---- */



static int check_path(const struct emu_ctx *ctx, const struct ib_uverbs_qp_dest *d, struct emu_path *out)
{
	const struct emu_port_info *p = ctx->port;
	int eth = p->link_layer == EMU_LINK_ETH;

	if (d->port_num != 1)
		return EINVAL;
	if (eth && !d->is_global)
		return EINVAL; /* RoCE needs a GRH */
	if (d->static_rate > 18)
		return EINVAL;
	memset(out, 0, sizeof(*out));
	if (d->is_global) {
		int tbl = eth ? EMU_GID_TBL_LEN_ETH : EMU_GID_TBL_LEN_IB;
		if (d->sgid_index >= tbl || d->sgid_index >= p->num_gids)
			return EINVAL; /* beyond the table, or an empty entry */
		if (eth) {
			int err = emu_resolve_dmac(d->dgid, out->dmac);
			if (err)
				return err;
		}
	}
	out->dlid = d->dlid;
	out->sl = d->sl;
	out->src_path_bits = d->src_path_bits;
	out->static_rate = d->static_rate;
	out->is_global = d->is_global;
	out->port_num = d->port_num;
	out->sgid_index = d->sgid_index;
	out->hop_limit = d->hop_limit;
	out->traffic_class = d->traffic_class;
	out->flow_label = d->flow_label & 0xfffff;
	memcpy(out->dgid, d->dgid, 16);
	return 0;
}

static int modify_qp(struct emu_cmd *cmd, const struct ib_uverbs_modify_qp *m, uint32_t mask, uint32_t rate_limit)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct emu_path path;
	int err = 0;

	/* driver data of a modify (mlx5_ib_modify_qp: comp_mask, burst_info, ece_options): nothing is supported */
	if (cmd->drv_in_len) {
		uint32_t comp_mask = 0;
		if (cmd->drv_in_len < 4)
			return EINVAL;
		memcpy(&comp_mask, cmd->drv_in, 4);
		if (comp_mask)
			return EOPNOTSUPP;
	}

	emu_lock();
	struct emu_qp *qp = emu_qp_by_handle(ctx, m->qp_handle);
	if (qp && qp->xrc_open) { /* an opened handle: ib_modify_qp acts on the real QP */
		qp = emu_xrc_open_target(qp);
		if (!qp) {
			err = EOPNOTSUPP; /* another process's TGT QP (README, Not supported) */
			goto out;
		}
	}
	if (!qp) {
		err = EINVAL;
		goto out;
	}
	/* core checks (uverbs modify_qp) */
	if ((mask & IBV_QP_PORT) && m->port_num != 1) {
		err = EINVAL;
		goto out;
	}
	if ((mask & IBV_QP_AV) && m->dest.port_num != 1) {
		err = EINVAL;
		goto out;
	}
	if ((mask & IBV_QP_ALT_PATH) && (m->alt_port_num != 1 || m->alt_dest.port_num != 1)) {
		err = EINVAL;
		goto out;
	}
	if (((mask & IBV_QP_CUR_STATE) && m->cur_qp_state > IBV_QPS_ERR) ||
	    ((mask & IBV_QP_STATE) && m->qp_state > IBV_QPS_ERR)) {
		err = EINVAL;
		goto out;
	}
	mask = emu_xrc_modify_mask(qp->type, mask);
	/* driver checks (mlx5_ib_modify_qp) */
	int cur = (mask & IBV_QP_CUR_STATE) ? m->cur_qp_state : qp->state;
	int next = (mask & IBV_QP_STATE) ? m->qp_state : cur;
	if (qp->dc_type) {
		if ((err = emu_dc_modify_check(qp, cur, next, mask, cmd->drv_out_len)))
			goto out;
	} else if (!emu_qp_transition_ok(cur, next, qp->type, mask)) {
		if (emu_log_enabled)
			emu_log("modify qpn 0x%x: %d -> %d with mask 0x%x is not a legal transition (requires 0x%x)",
				qp->qpn, cur, next, mask, emu_qp_transition_required(cur, next, qp->type));
		err = EINVAL;
		goto out;
	}
	if ((mask & IBV_QP_PKEY_INDEX) &&
	    m->pkey_index >= (ctx->port->link_layer == EMU_LINK_ETH ? EMU_PKEY_TBL_LEN_ETH : EMU_PKEY_TBL_LEN_IB)) {
		err = EINVAL;
		goto out;
	}
	if (((mask & IBV_QP_MAX_QP_RD_ATOMIC) && m->max_rd_atomic > MAX_RD_ATOMIC) ||
	    ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && m->max_dest_rd_atomic > MAX_RD_ATOMIC)) {
		err = EINVAL;
		goto out;
	}
	if (cur == IBV_QPS_RESET && next == IBV_QPS_RESET)
		goto out;
	/* the device itself (firmware) rejects a current state that is not the QP's */
	if (cur != qp->state) {
		err = EINVAL;
		goto out;
	}
	if ((mask & IBV_QP_PATH_MTU) && (m->path_mtu < IBV_MTU_256 || m->path_mtu > IBV_MTU_4096)) {
		err = EINVAL;
		goto out;
	}
	if (mask & IBV_QP_AV) {
		if ((err = check_path(ctx, &m->dest, &path)))
			goto out;
	}
	if (mask & IBV_QP_ALT_PATH) {
		/* APM: the kernel bans it on RoCE; the emulator does not migrate paths on IB either */
		err = ctx->port->link_layer == EMU_LINK_ETH ? EINVAL : EOPNOTSUPP;
		goto out;
	}
	/* packet pacing (mlx5 modify_raw_packet_qp_sq): 0 = unlimited, else within packet_pacing_caps */
	if ((mask & IBV_QP_RATE_LIMIT) && rate_limit &&
	    (rate_limit < EMU_PP_RATE_MIN_KBPS || rate_limit > EMU_PP_RATE_MAX_KBPS)) {
		err = EINVAL;
		goto out;
	}
	if ((mask & IBV_QP_PATH_MIG_STATE) && m->path_mig_state != IBV_MIG_MIGRATED) {
		err = EOPNOTSUPP;
		goto out;
	}

	/* apply */
	int old_state = qp->state;
	if (mask & IBV_QP_QKEY)
		qp->qkey = m->qkey;
	if (mask & IBV_QP_RQ_PSN)
		qp->rq_psn = m->rq_psn & 0xffffff;
	if (mask & IBV_QP_SQ_PSN)
		qp->sq_psn = m->sq_psn & 0xffffff;
	if (mask & IBV_QP_DEST_QPN)
		qp->dest_qp_num = m->dest_qp_num & 0xffffff;
	if (mask & IBV_QP_ACCESS_FLAGS)
		qp->qp_access_flags = m->qp_access_flags;
	if (mask & IBV_QP_PKEY_INDEX)
		qp->pkey_index = m->pkey_index;
	if (mask & IBV_QP_PORT)
		qp->port_num = m->port_num;
	if (mask & IBV_QP_PATH_MTU)
		qp->path_mtu = m->path_mtu;
	if (mask & IBV_QP_TIMEOUT)
		qp->timeout = m->timeout & 0x1f;
	if (mask & IBV_QP_RETRY_CNT)
		qp->retry_cnt = m->retry_cnt & 7;
	if (mask & IBV_QP_RNR_RETRY)
		qp->rnr_retry = m->rnr_retry & 7;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = m->min_rnr_timer & 0x1f;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = m->max_rd_atomic;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = m->max_dest_rd_atomic;
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		qp->en_sqd_async_notify = m->en_sqd_async_notify;
	if (mask & IBV_QP_AV)
		qp->path = path;
	if (mask & IBV_QP_RATE_LIMIT)
		/* relaxed: the engine reads it while sending; one word with nothing behind it to order */
		__atomic_store_n(&qp->rate_limit, rate_limit, __ATOMIC_RELAXED);
	qp->state = next;
	qp->sq_draining = next == IBV_QPS_SQD;
	qp->attr_mask_seen |= mask;
	qp->kbusy++; /* like the kernel's uobject read lock: a concurrent destroy fails with EBUSY */
	if (next == IBV_QPS_RESET) {
		/* a reset QP forgets its connection, as the QP context in the device does */
		qp->attr_mask_seen = 0;
		qp->dest_qp_num = 0;
		qp->rq_psn = qp->sq_psn = 0;
		memset(&qp->path, 0, sizeof(qp->path));
	}
	emu_unlock();
	emu_reg_qp_update(qp);
	if (qp->type == EMU_QPT_XRC_TGT) { /* what QUERY_QP answers in the processes that opened it */
		struct ib_uverbs_query_qp_resp snap;
		emu_lock();
		emu_qp_query_fill(qp, &snap);
		emu_unlock();
		emu_xrc_tgt_snapshot(qp->qpn, &snap);
	}
	if (emu_log_enabled)
		emu_log("modify qpn 0x%x: %d -> %d mask 0x%x dest_qpn 0x%x dlid %u mtu %u", qp->qpn, old_state, next,
			mask, qp->dest_qp_num, qp->path.dlid, qp->path_mtu);
	emu_engine_qp_modified(qp, old_state, (int)mask);
	err = emu_dc_modify_done(cmd, qp, old_state, next);
	emu_lock();
	qp->kbusy--;
	emu_unlock();
	return err;
out:
	emu_unlock();
	return err;
}

int emu_cmd_modify_qp(struct emu_cmd *cmd)
{
	struct ib_uverbs_modify_qp m;
	memcpy(&m, cmd->in, sizeof(m));
	/* the legacy command silently drops bits it never knew (IB_USER_LEGACY_LAST_QP_ATTR_MASK) */
	uint32_t mask = m.attr_mask & ((LEGACY_LAST_MASK << 1) - 1);
	return modify_qp(cmd, &m, mask, 0);
}

int emu_cmd_ex_modify_qp(struct emu_cmd *cmd)
{
	struct ib_uverbs_ex_modify_qp m;
	struct ib_uverbs_ex_modify_qp_resp r;

	memset(&m, 0, sizeof(m));
	memcpy(&m, cmd->in, cmd->in_len < sizeof(m) ? cmd->in_len : sizeof(m));
	for (size_t i = sizeof(m); i < cmd->in_len; i++)
		if (cmd->in[i])
			return EOPNOTSUPP;
	if (m.base.attr_mask & ~(uint32_t)IB_QP_STANDARD_BITS)
		return EOPNOTSUPP;
	int err = modify_qp(cmd, &m.base, m.base.attr_mask, m.rate_limit);
	if (err)
		return err;
	memset(&r, 0, sizeof(r));
	size_t len = cmd->resp_len < sizeof(r) ? cmd->resp_len : sizeof(r);
	r.response_length = (uint32_t)len;
	return emu_cmd_respond(cmd, &r, len);
}

/* ---- destroy ---- */

int emu_cmd_destroy_qp(struct emu_cmd *cmd)
{
	struct ib_uverbs_destroy_qp req;
	struct ib_uverbs_destroy_qp_resp r;

	memcpy(&req, cmd->in, sizeof(req));
	emu_lock();
	struct emu_qp *qp = emu_qp_by_handle(cmd->ctx, req.qp_handle);
	/* a QP that flows steer to is in use (ib_destroy_qp: usecnt) */
	int busy = qp && (qp->kbusy || emu_flow_qp_refs(qp));
	if (qp && !busy)
		qp_unlink(cmd->ctx, qp);
	emu_unlock();
	if (!qp)
		return EINVAL;
	if (busy)
		return EBUSY;
	r.events_reported = qp->async_events; /* final: an event read from now on no longer finds the QP */
	destroy_qp_obj(qp);
	emu_async_prune(cmd->ctx); /* its unread events go with it */
	return emu_cmd_respond(cmd, &r, sizeof(r));
}

void emu_destroy_all_qps(struct emu_ctx *ctx)
{
	for (;;) {
		emu_lock();
		struct emu_qp *qp = ctx->qps;
		if (qp)
			emu_ctx_unlink_qp(ctx, qp);
		emu_unlock();
		if (!qp)
			break;
		destroy_qp_obj(qp);
	}
}
