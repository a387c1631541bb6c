/* SPDX-License-Identifier: Apache-2.0 */
/* Handles (layer 1): the numbers a context gives its objects, and the lookups of an object by handle within one
 * context (callers hold emu_lock), as the kernel's idr of uobjects. */
#include "kernel.h"

uint32_t emu_ctx_new_handle(struct emu_ctx *ctx)
{
	return ctx->next_handle++;
}

struct emu_pd *emu_pd_by_handle(struct emu_ctx *ctx, uint32_t h)
{
	for (struct emu_pd *pd = ctx->pds; pd; pd = pd->next)
		if (pd->handle == h)
			return pd;
	return NULL;
}

struct emu_cq *emu_cq_by_handle(struct emu_ctx *ctx, uint32_t h)
{
	for (struct emu_cq *cq = ctx->cqs; cq; cq = cq->next)
		if (cq->handle == h)
			return cq;
	return NULL;
}

struct emu_qp *emu_qp_by_handle(struct emu_ctx *ctx, uint32_t h)
{
	for (struct emu_qp *qp = ctx->qp_hash[h & (EMU_QP_HASH - 1)]; qp; qp = qp->hash_next)
		if (qp->handle == h)
			return qp;
	return NULL;
}

void emu_ctx_link_qp(struct emu_ctx *ctx, struct emu_qp *qp)
{
	qp->next = ctx->qps;
	ctx->qps = qp;
	struct emu_qp **b = &ctx->qp_hash[qp->handle & (EMU_QP_HASH - 1)];
	qp->hash_next = *b;
	*b = qp;
}

void emu_ctx_unlink_qp(struct emu_ctx *ctx, struct emu_qp *qp)
{
	for (struct emu_qp **p = &ctx->qps; *p; p = &(*p)->next)
		if (*p == qp) {
			*p = qp->next;
			break;
		}
	for (struct emu_qp **p = &ctx->qp_hash[qp->handle & (EMU_QP_HASH - 1)]; *p; p = &(*p)->hash_next)
		if (*p == qp) {
			*p = qp->hash_next;
			break;
		}
}

struct emu_srq *emu_srq_by_handle(struct emu_ctx *ctx, uint32_t h)
{
	for (struct emu_srq *s = ctx->srqs; s; s = s->next)
		if (s->handle == h)
			return s;
	return NULL;
}
