/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_cq.c - the CQ writer: CQEs, completion and asynchronous events, the CQ arm doorbell (layer 2 of
 * src/engine/LAYERS).
 */
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "emu_clock.h"
#include "engine/eng_internal.h"

/* ---------------- events and CQEs ---------------- */

/* The element is the object's user_handle (what libibverbs turns back into its ibv_qp, ibv_cq, ibv_srq); K counts
 * the event in the object's events_reported when the program reads it (src/kernel/async_event.c). */
void eng_qp_event(struct eng_qp *qp, uint32_t type)
{
	if (qp->q)
		emu_async_post(qp->q->ctx, type, qp->q->user_handle, qp->q->handle);
	if (emu_log_enabled)
		emu_log("engine: QP 0x%06x: async event %u", qp->qpn, type);
}

void eng_cq_event(struct eng_cq *cq, uint32_t type)
{
	emu_async_post(cq->c->ctx, type, cq->c->user_handle, cq->c->handle);
}

void eng_srq_event(struct eng_srq *srq, uint32_t type)
{
	emu_async_post(srq->s->ctx, type, srq->s->user_handle, srq->s->handle);
}

/* CQ error (IBA 11.6.3.1, affiliated asynchronous errors): the CQ takes no CQE any more, and the QPs that complete
 * into it cannot report completions: each gets a local work queue catastrophic error (IBV_EVENT_QP_FATAL) and goes
 * to ERR. NVIDIA's verbs manual (Events, IBV_EVENT_CQ_ERR) says of ConnectX that all QPs associated with the CQ, on
 * the send or the receive side, get it, so every such QP that can still work is told now, not at its next CQE. */
static void cq_error(struct eng_cq *cq)
{
	cq->overrun = 1;
	eng_cq_event(cq, IBV_EVENT_CQ_ERR);
	for (struct eng_qp *qp = G.qps; qp; qp = qp->next) {
		if ((qp->scq != cq && qp->rcq != cq) || qp->state == EMU_QPS_RESET || qp->state == EMU_QPS_ERR)
			continue;
		eng_qp_set_error(qp);
		eng_qp_event(qp, IBV_EVENT_QP_FATAL);
	}
}

static void fire_comp_event(struct eng_cq *cq)
{
	cq->armed = 0;
	struct ib_uverbs_comp_event_desc d = { .cq_handle = cq->c->user_handle };
	if (cq->c->comp_fd >= 0) {
		if (write(cq->c->comp_fd, &d, sizeof d) == (ssize_t)sizeof d) {
			emu_lock();
			cq->c->comp_events++;
			emu_unlock();
		}
	}
}

/* A QP that was not working when its CQ failed (RESET, ERR), brought back since, finds out when it next completes
 * into it: the catastrophic error then (IBA 11.6.3.1: generated when a SQ or RQ attempts to use the CQ). */
static void cqe_into_failed_cq(const struct eng_cqe_info *ci)
{
	struct eng_qp *qp = eng_find_qp(ci->qpn);
	if (!qp || qp->state == EMU_QPS_RESET || qp->state == EMU_QPS_ERR)
		return;
	eng_qp_set_error(qp);
	eng_qp_event(qp, IBV_EVENT_QP_FATAL);
}

void eng_write_cqe(struct eng_cq *cq, const struct eng_cqe_info *ci, int solicited)
{
	if (!cq)
		return;
	if (cq->overrun) {
		cqe_into_failed_cq(ci);
		return;
	}
	/* the slot written below was freed by the driver before it stored this index: its reads of it are done.
	 * A CQ created with IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN is not checked, as the HCA does not check it (the driver
	 * promised never to fall behind): the CQE is written over whatever the slot holds. */
	uint32_t cons = udma_device_load_dbrec(&cq->dbrec[0]) & 0xffffff;
	if (((cq->pi - cons) & 0xffffff) >= cq->cnt && !(cq->c->ibv_flags & IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN)) {
		eng_strict(ci->qpn, ci->wqe_counter, "CQ 0x%06x overrun: consumer index %u not advanced (%u CQEs)",
			   cq->c->cqn, cons, cq->cnt);
		cq_error(cq);
		return;
	}
	uint8_t *entry = cq->buf + (size_t)(cq->pi & (cq->cnt - 1)) * cq->size;
	uint8_t owner = (cq->pi & cq->cnt) ? 1 : 0;
	/* The completion is stamped when the engine writes it, and the timer page shows at least that value from now
	 * on (so a clock read after polling the CQE is never earlier than the CQE). */
	struct eng_cqe_info stamped = *ci;
	uint64_t now_ts = emu_clock_publish(emu_clock_now());
	stamped.timestamp = ci->timestamp && ci->timestamp < now_ts ? ci->timestamp : now_ts; /* preset: a send's departure */
	if (stamped.timestamp < cq->last_ts)
		stamped.timestamp = cq->last_ts;
	cq->last_ts = stamped.timestamp;
	if (cq->c->flags & MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS) /* profiles cx6dx, cx7: the CQ asked for real time */
		stamped.timestamp = emu_clock_real_time_format(stamped.timestamp);
	uint8_t op_own = eng_cqe_build(entry, cq->size, &stamped, owner);
	/* op_own last: without release order a poller could see the new owner bit over the previous CQE's body */
	udma_device_publish_cqe(eng_cqe_op_own(entry, cq->size), op_own);
	cq->pi = (cq->pi + 1) & 0xffffff;
	int is_err = ci->opcode == MLX5_CQE_REQ_ERR || ci->opcode == MLX5_CQE_RESP_ERR;
	if (solicited || is_err)
		cq->sol_pi = cq->pi;
	if (cq->armed && (!cq->arm_sol || solicited || is_err))
		fire_comp_event(cq);
}

void eng_cq_arm_doorbell(const uint8_t *db)
{
	uint32_t hi = eng_be32(db), cqn = eng_be32(db + 4) & 0xffffff;
	struct eng_cq *cq = eng_find_cq(cqn);
	if (!cq) {
		eng_strict(0, 0, "CQ arm doorbell for unknown CQ 0x%06x", cqn);
		return;
	}
	uint32_t ci = hi & 0xffffff;
	cq->armed = 1;
	cq->arm_sol = (hi & MLX5_CQ_DB_REQ_NOT_SOL) != 0;
	/* CQEs already written at or after the armed consumer index trigger at once, as on hardware. */
	uint32_t pend = (cq->pi - ci) & 0xffffff, solpend = (cq->sol_pi - ci) & 0xffffff;
	if (pend && pend <= cq->cnt && (!cq->arm_sol || (solpend && solpend <= cq->cnt)))
		fire_comp_event(cq);
}
