/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_xrc.c - XRC at the target: which SRQ a TGT QP's request goes to.
 *
 * An XRC INI QP is an RC requester whose WQEs carry the number of an XRC SRQ at the target (the XRC segment after
 * ctrl, eng_wqe.c); every packet carries it on (struct pkt xrc_srqn, the XRCETH of IBA Annex A14). An XRC TGT QP
 * is an RC responder with no receive queue, PD or CQ of its own: each request is received into the SRQ it names,
 * with that SRQ's PD for the memory checks of SENDs, WRITEs, READs and atomics, and completes on that SRQ's CQ with
 * the TGT QP's number, as a ConnectX does (mlx5_ib creates the SRQ with its XRCD's number and CQ, and libmlx5 finds
 * the SRQ from the CQE's user index: providers/mlx5/cq.c, MLX5_RSC_TYPE_XSRQ). The SRQ must be an XRC SRQ of the
 * TGT QP's domain. Here only SRQs of this process are found; one of another process that shares the domain is
 * served by that process's engine (eng_xrcfwd.c), on a stand-in for the TGT QP kept below.
 */
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "engine/eng_internal.h"

int eng_xrc_tgt_bind(struct eng_qp *qp, const struct pkt *p)
{
	emu_lock();
	struct emu_srq *s = emu_find_srq(p->xrc_srqn);
	int ok = s && s->srq_type == IBV_SRQT_XRC && s->xrcdn == qp->xrcdn && s->engine && s->cq && s->cq->engine;
	if (ok) {
		qp->srq = s->engine;
		qp->rcq = s->cq->engine;
		qp->pd = s->pd;
		/* cqe_version 1: the SRQ's user index names it to libmlx5; version 0: the SRQ number */
		qp->uidx = s->ctx->cqe_version ? s->uidx : s->srqn;
	}
	emu_unlock();
	if (!ok && emu_log_enabled)
		emu_log("engine: XRC TGT QP 0x%06x: SRQ 0x%06x is not an XRC SRQ of domain 0x%x here", qp->qpn,
			p->xrc_srqn, qp->xrcdn);
	return ok;
}

/* ---- stand-ins for TGT QPs of other processes (eng_xrcfwd.c runs the responder on them) ---- */

#define ENG_XPROXIES 16

struct eng_xproxy {
	struct eng_qp qp;
	struct emu_qp q;         /* what the transport reads of K's QP: the context (port, link) and the path */
	uint64_t used;
};

static struct eng_xproxy *proxies;
static uint64_t proxy_clock;

struct eng_qp *eng_xrc_proxy(uint32_t tgt_qpn)
{
	if (!proxies && !(proxies = calloc(ENG_XPROXIES, sizeof *proxies)))
		return NULL;
	struct eng_xproxy *px = NULL, *lru = &proxies[0];
	for (int i = 0; i < ENG_XPROXIES && !px; i++) {
		if (proxies[i].qp.xproxy && proxies[i].qp.qpn == tgt_qpn)
			px = &proxies[i];
		else if (proxies[i].used < lru->used)
			lru = &proxies[i];
	}
	if (!px) { /* the least recently used one serves this TGT QP from now on: its state (a message half
		    * received, saved atomic results) goes, as a DCT's connection state does when replaced */
		px = lru;
		if (px->qp.ack_link.on)
			eng_qp_list_del(&G.acking, &px->qp, &px->qp.ack_link);
		if (px->qp.busy_link.on)
			eng_qp_list_del(&G.busy, &px->qp, &px->qp.busy_link);
		memset(px, 0, sizeof *px);
		px->qp.q = &px->q;
		px->qp.qpn = px->q.qpn = tgt_qpn;
		px->qp.type = EMU_QPT_RC;
		px->qp.xrc = px->q.type = EMU_QPT_XRC_TGT;
		px->qp.xproxy = 1;
	}
	px->used = ++proxy_clock;
	return &px->qp;
}

void eng_xrc_proxy_drop_peer(const struct eng_inbox *ib)
{
	for (int i = 0; proxies && i < ENG_XPROXIES; i++)
		if (proxies[i].qp.peer == ib)
			proxies[i].qp.peer = NULL;
}
