/* SPDX-License-Identifier: Apache-2.0 */
/* Test introspection (mlx5emu_debug.h): copies of what the emulated kernel registered, taken under emu_lock. */
#include <string.h>

#include "kernel.h"
#include "mlx5emu_debug.h"
#include "ucma.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int mlx5emu_debug_qp(uint32_t qpn, struct mlx5emu_debug_qp *o)
{
	int rc = -1;
	emu_lock();
	struct emu_qp *qp = emu_find_qp(qpn);
	if (qp) {
		memset(o, 0, sizeof(*o));
		o->qpn = qp->qpn;
		o->type = (uint32_t)qp->type;
		o->state = (uint32_t)qp->state;
		o->uidx = qp->uidx;
		o->create_flags = qp->create_flags;
		o->bfreg_index = qp->bfreg_index;
		o->uar_page = qp->uar_page;
		o->bf_offset = qp->bf_offset;
		if (qp->uar_page < qp->ctx->num_uar_pages + EMU_DYN_UAR_PAGES) { /* RSS QPs have no register */
			o->uar_page_user_va = (uint64_t)(uintptr_t)qp->ctx->uar_user_va[qp->uar_page];
			o->uar_page_alias_va =
				(uint64_t)(uintptr_t)(qp->ctx->uar_alias + (size_t)qp->uar_page * EMU_UAR_PAGE_SIZE);
		}
		o->buf = qp->buf;
		o->sq_buf = qp->sq_buf;
		o->rq_buf = qp->rq_buf;
		o->dbrec = qp->dbrec;
		o->sq_wqe_cnt = qp->sq_wqe_cnt;
		o->rq_wqe_cnt = qp->rq_wqe_cnt;
		o->rq_wqe_shift = qp->rq_wqe_shift;
		/* an XRC INI QP has no receive CQ, an XRC TGT QP neither CQs nor PD: 0 there */
		o->send_cqn = qp->send_cq ? qp->send_cq->cqn : 0;
		o->recv_cqn = qp->recv_cq ? qp->recv_cq->cqn : 0;
		o->srqn = qp->srq ? qp->srq->srqn : 0;
		o->pdn = qp->pd ? qp->pd->pdn : 0;
		o->dest_qp_num = qp->dest_qp_num;
		o->qkey = qp->qkey;
		o->rq_psn = qp->rq_psn;
		o->sq_psn = qp->sq_psn;
		o->path_mtu = qp->path_mtu;
		o->attr_mask_seen = qp->attr_mask_seen;
		o->max_rd_atomic = qp->max_rd_atomic;
		o->max_dest_rd_atomic = qp->max_dest_rd_atomic;
		o->timeout = qp->timeout;
		o->retry_cnt = qp->retry_cnt;
		o->rnr_retry = qp->rnr_retry;
		o->min_rnr_timer = qp->min_rnr_timer;
		o->dlid = qp->path.dlid;
		o->is_global = qp->path.is_global;
		o->sgid_index = qp->path.sgid_index;
		memcpy(o->dgid, qp->path.dgid, 16);
		memcpy(o->dmac, qp->path.dmac, 6);
		rc = 0;
	}
	emu_unlock();
	return rc;
}

EXPORT int mlx5emu_debug_cq(uint32_t cqn, struct mlx5emu_debug_cq *o)
{
	int rc = -1;
	emu_lock();
	struct emu_cq *cq = emu_find_cq(cqn);
	if (cq) {
		memset(o, 0, sizeof(*o));
		o->cqn = cq->cqn;
		o->cqe_cnt = cq->cqe_cnt;
		o->cqe_size = cq->cqe_size;
		o->flags = cq->flags;
		o->buf = cq->buf;
		o->dbrec = cq->dbrec;
		o->user_handle = cq->user_handle;
		o->comp_fd = cq->comp_fd;
		rc = 0;
	}
	emu_unlock();
	return rc;
}

EXPORT int mlx5emu_debug_srq(uint32_t srqn, struct mlx5emu_debug_srq *o)
{
	int rc = -1;
	emu_lock();
	struct emu_srq *s = emu_find_srq(srqn);
	if (s) {
		memset(o, 0, sizeof(*o));
		o->srqn = s->srqn;
		o->wqe_cnt = s->wqe_cnt;
		o->wqe_shift = s->wqe_shift;
		o->uidx = s->uidx;
		o->srq_limit = s->srq_limit;
		o->max_sge = s->max_sge;
		o->buf = s->buf;
		o->dbrec = s->dbrec;
		rc = 0;
	}
	emu_unlock();
	return rc;
}

EXPORT int mlx5emu_debug_mr(uint32_t lkey, struct mlx5emu_debug_mr *o)
{
	int rc = -1;
	emu_lock();
	struct emu_mr *mr = emu_find_mr_lkey(lkey);
	if (mr) {
		memset(o, 0, sizeof(*o));
		o->lkey = mr->lkey;
		o->rkey = mr->rkey;
		o->access = mr->access;
		o->pdn = mr->pd->pdn;
		o->addr = mr->addr;
		o->length = mr->length;
		rc = 0;
	}
	emu_unlock();
	return rc;
}

EXPORT int mlx5emu_debug_live(struct mlx5emu_debug_live *o)
{
	memset(o, 0, sizeof(*o));
	emu_lock();
	for (struct emu_ctx *c = emu_contexts(); c; c = c->next) {
		o->contexts++;
		for (struct emu_pd *x = c->pds; x; x = x->next)
			o->pds++;
		for (struct emu_mr *x = c->mrs; x; x = x->next)
			o->mrs++;
		for (struct emu_cq *x = c->cqs; x; x = x->next)
			o->cqs++;
		for (struct emu_qp *x = c->qps; x; x = x->next)
			o->qps++;
		for (struct emu_srq *x = c->srqs; x; x = x->next)
			o->srqs++;
		for (struct emu_ah *x = c->ahs; x; x = x->next)
			o->ahs++;
		for (struct emu_comp_channel *x = c->channels; x; x = x->next)
			o->channels++;
	}
	emu_unlock();
	return 0;
}

EXPORT int mlx5emu_debug_cm_listeners(uint16_t port_space, uint16_t port)
{
	return cm_dir_count_listeners(port_space, port);
}
