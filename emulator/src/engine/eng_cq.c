/*
 * eng_cq.c - the CQ writer: CQEs, completion and asynchronous events, the CQ arm doorbell (layer 2 of
 * src/engine/LAYERS).
 */
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "emu_clock.h"
#include "engine/eng_internal.h"

/* ---------------- events and CQEs ---------------- */

void eng_async_event(struct emu_ctx *ctx, uint64_t element, uint32_t type)
{
	struct ib_uverbs_async_event_desc d = { .element = element, .event_type = type };
	if (ctx && ctx->async_write_fd >= 0 && write(ctx->async_write_fd, &d, sizeof d) != (ssize_t)sizeof d)
		emu_log("engine: async event %u lost (pipe full)", type);
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

void eng_write_cqe(struct eng_cq *cq, const struct eng_cqe_info *ci, int solicited)
{
	if (!cq || cq->overrun)
		return;
	/* the slot written below was freed by the driver before it stored this index: its reads of it are done */
	uint32_t cons = udma_device_load_dbrec(&cq->dbrec[0]) & 0xffffff;
	if (((cq->pi - cons) & 0xffffff) >= cq->cnt) {
		cq->overrun = 1;
		eng_strict(ci->qpn, ci->wqe_counter, "CQ 0x%06x overrun: consumer index %u not advanced (%u CQEs)",
			   cq->c->cqn, cons, cq->cnt);
		emu_lock();
		cq->c->async_events++;
		emu_unlock();
		eng_async_event(cq->c->ctx, cq->c->user_handle, IBV_EVENT_CQ_ERR);
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
