/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_xrc.c - XRC at the target: which SRQ a TGT QP's request goes to.
 *
 * An XRC INI QP is an RC requester whose WQEs carry the number of an XRC SRQ at the target (the XRC segment after
 * ctrl, eng_wqe.c); every packet carries it on (struct pkt xrc_srqn, the XRCETH of IBA 9.3.?). An XRC TGT QP is an RC
 * responder with no receive queue, PD or CQ of its own: each request is received into the SRQ it names, with that
 * SRQ's PD for the memory checks of SENDs, WRITEs, READs and atomics, and completes on that SRQ's CQ with the TGT
 * QP's number, as a ConnectX does (mlx5_ib creates the SRQ with its XRCD's number and CQ, and libmlx5 finds the SRQ
 * from the CQE's user index: providers/mlx5/cq.c, MLX5_RSC_TYPE_XSRQ). The SRQ must be an XRC SRQ of the TGT QP's
 * domain. Only SRQs of this process are found: a TGT QP receives into the XRC SRQs of the process that created it.
 */
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
