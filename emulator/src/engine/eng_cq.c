/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_cq.c - the CQ writer: CQEs, completion and asynchronous events, the CQ arm doorbell (layer 2 of
 * src/engine/LAYERS).
 */
#include <string.h>
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
	if (qp->xproxy) { /* the TGT QP's owner raises it, told by the verdict (eng_xrcfwd.c) */
		qp->xproxy_event = type;
		return;
	}
	if (qp->q)
		emu_async_post(qp->q->ctx, type, qp->q->user_handle, qp->q->handle);
	if (qp->q && qp->xrc == EMU_QPT_XRC_TGT)
		emu_xrc_tgt_event(qp->q, type); /* and to the handles opened on it */
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

int eng_cq_has_room(struct eng_cq *cq, uint32_t n)
{
	if (!cq || cq->overrun || (cq->c->ibv_flags & IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN))
		return 1;
	uint32_t cons = udma_device_load_dbrec(&cq->dbrec[0]) & 0xffffff;
	return ((cq->pi - cons) & 0xffffff) + cq->zip_n + n <= cq->cnt;
}

/* Is there room for n more CQEs? If not, the CQ overruns (a CQ created with IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN is
 * not checked, as the HCA does not check it: the driver promised never to fall behind). */
static int cq_room(struct eng_cq *cq, uint32_t n, const struct eng_cqe_info *ci)
{
	/* the slots written next were freed by the driver before it stored this index: its reads of them are done */
	uint32_t cons = udma_device_load_dbrec(&cq->dbrec[0]) & 0xffffff;
	if (((cq->pi - cons) & 0xffffff) + n > cq->cnt && !(cq->c->ibv_flags & IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN)) {
		eng_strict(ci->qpn, ci->wqe_counter, "CQ 0x%06x overrun: consumer index %u not advanced (%u CQEs)",
			   cq->c->cqn, cons, cq->cnt);
		cq_error(cq);
		return 0;
	}
	return 1;
}

/* The completion is stamped when the engine takes it, and the timer page shows at least that value from now on (so
 * a clock read after polling the CQE is never earlier than the CQE). */
static void cqe_stamp(struct eng_cq *cq, const struct eng_cqe_info *ci, struct eng_cqe_info *stamped)
{
	*stamped = *ci;
	uint64_t now_ts = emu_clock_publish(emu_clock_now());
	stamped->timestamp = ci->timestamp && ci->timestamp < now_ts ? ci->timestamp : now_ts; /* preset: departure */
	if (stamped->timestamp < cq->last_ts)
		stamped->timestamp = cq->last_ts;
	cq->last_ts = stamped->timestamp;
	if (cq->c->flags & MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS) /* profiles cx6dx, cx7: the CQ asked for real time */
		stamped->timestamp = emu_clock_real_time_format(stamped->timestamp);
}

/* n CQEs were published at the old producer index: move it, then tell an armed CQ. */
static void cq_published(struct eng_cq *cq, uint32_t n, int solicited, int is_err)
{
	cq->pi = (cq->pi + n) & 0xffffff;
	if (solicited || is_err)
		cq->sol_pi = cq->pi;
	if (cq->armed && (!cq->arm_sol || solicited || is_err))
		fire_comp_event(cq);
}

static void cqe_publish(struct eng_cq *cq, const struct eng_cqe_info *stamped, int solicited)
{
	uint8_t *entry = cq->buf + (size_t)(cq->pi & (cq->cnt - 1)) * cq->size;
	uint8_t owner = (cq->pi & cq->cnt) ? 1 : 0;
	uint8_t op_own = eng_cqe_build(entry, cq->size, stamped, owner);
	/* op_own last: without release order a poller could see the new owner bit over the previous CQE's body */
	udma_device_publish_cqe(eng_cqe_op_own(entry, cq->size), op_own);
	cq_published(cq, 1, solicited, stamped->opcode == MLX5_CQE_REQ_ERR || stamped->opcode == MLX5_CQE_RESP_ERR);
}

/* CQE compression: which completions the device compresses, and when a block ends.
 * A ConnectX compresses responder CQEs of consecutive receives of the same kind on a CQ created with cqe_comp_en
 * (Linux enables it for RQs only: mlx5e_build_rx_cq_param; DPDK for Rx queues: mlx5_rxq_create_cq). Here:
 *   - compressible: a successful receive (MLX5_CQE_RESP_SEND) without immediate and without scatter-to-CQE data;
 *     requester, error, immediate, RDMA WRITE with immediate and striding RQ filler CQEs never are;
 *   - a block holds completions whose fields other than the mini-CQE's are equal (same QP, flow tag, source,
 *     header types and offload bits, VLAN, hash where the format has no hash; see zip_fits for the checksum)
 *     and whose WQE position follows from the previous one (next receive WQE; on a striding RQ the same WQE and
 *     the next free stride);
 *   - it ends, and becomes visible, when (a) a completion that does not fit comes (it is then written after it),
 *     (b) it holds EMU_CQE_COMP_MAX_NUM completions (cqe_comp_caps.max_num), or a CQ with fewer slots is full, or
 *     its last slot is the last of the ring (a block never wraps), or
 *     (c) the engine pass ends, which stands for the device's compression timeout (cqe_compression_timeout): a
 *     pass takes what arrived together (up to 256 packets), so a burst is compressed and a lone frame waits for
 *     nothing. A block of one completion is written as a plain CQE.
 *   - every completion keeps the title's timestamp: a mini-CQE has none (as on hardware). */
static int zip_compressible(const struct eng_cqe_info *ci)
{
	return ci->opcode == MLX5_CQE_RESP_SEND && !ci->inline_data && !ci->imm_inval_pkey &&
	       !(ci->mprq && (ci->byte_cnt & 0x80000000u));
}

static int zip_fits(const struct eng_cq *cq, const struct eng_cqe_info *ci)
{
	const struct eng_cqe_info *a = &cq->zip_first, *z = &cq->zip_last;
	uint8_t f = cq->comp_format;
	if (a->qpn != ci->qpn || a->srqn_uidx != ci->srqn_uidx || a->src_qpn != ci->src_qpn || a->sl != ci->sl ||
	    a->grh != ci->grh || a->slid != ci->slid || a->ml_path != ci->ml_path || a->hds_ip_ext != ci->hds_ip_ext ||
	    a->l4_hdr_type_etc != ci->l4_hdr_type_etc || a->vlan_info != ci->vlan_info ||
	    a->rss_hash_type != ci->rss_hash_type || a->mprq != ci->mprq || a->wqe_opcode != ci->wqe_opcode)
		return 0;
	/* a CSUM block carries no hash: a different one ends it (the emulator's choice, so that no hash is lost); a
	 * HASH block carries no checksum, and compresses across them: its completions report the title's check_sum,
	 * which only Linux's CHECKSUM_COMPLETE would read, and Linux never asks for HASH (mlx5e_build_rx_cq_param) */
	if (f != MLX5DV_CQE_RES_FORMAT_HASH && a->rss_hash != ci->rss_hash)
		return 0;
	if (!ci->mprq)
		return ci->wqe_counter == (uint16_t)(z->wqe_counter + 1);
	return ci->wqe_id == a->wqe_id && ci->wqe_counter == (uint16_t)(z->wqe_counter + (z->byte_cnt >> 16 & 0x7fff));
}

void eng_cq_zip_flush(struct eng_cq *cq)
{
	uint32_t n = cq->zip_n;
	if (!n)
		return;
	cq->zip_n = 0;
	int sol = cq->zip_sol;
	cq->zip_sol = 0;
	if (cq->overrun)
		return;
	if (n == 1) {
		cqe_publish(cq, &cq->zip_first, sol);
		return;
	}
	uint32_t mask = cq->cnt - 1, t = cq->pi;
	/* the mini-CQE arrays first, each slot whole (unused mini-CQEs zero), then the title's op_own with release:
	 * until then the block's slots are the consumer's to ignore */
	for (uint32_t first = 0; first < n; first = (first | 7) + 1) {
		uint32_t last = (first | 7) + 1 < n ? (first | 7) + 1 : n;
		uint8_t *slot = cq->buf + (size_t)((t + (first < 8 ? 1 : first)) & mask) * 64;
		memset(slot, 0, 64);
		for (uint32_t k = first; k < last; k++)
			memcpy(slot + (k & 7) * ENG_MINI_CQE_SIZE, cq->zip_mini[k], ENG_MINI_CQE_SIZE);
	}
	uint8_t *title = cq->buf + (size_t)(t & mask) * 64;
	uint8_t op_own = eng_cqe_title_build(title, &cq->zip_first, n, (t & cq->cnt) ? 1 : 0);
	udma_device_publish_cqe(eng_cqe_op_own(title, 64), op_own);
	cq_published(cq, n, sol, 0);
}

static uint32_t zip_open; /* CQs with an open block (under G.lock, as every CQ write) */

int eng_cq_zip_flush_all(void)
{
	if (!zip_open)
		return 0;
	zip_open = 0;
	int any = 0;
	for (struct eng_cq *cq = G.cqs; cq; cq = cq->next) {
		any |= cq->zip_n != 0;
		eng_cq_zip_flush(cq);
	}
	return any;
}

void eng_write_cqe(struct eng_cq *cq, const struct eng_cqe_info *ci, int solicited)
{
	if (!cq)
		return;
	if (cq->overrun) {
		cqe_into_failed_cq(ci);
		return;
	}
	struct eng_cqe_info stamped;
	if (cq->comp_format) {
		if (!zip_compressible(ci)) {
			eng_cq_zip_flush(cq);
		} else {
			if (cq->zip_n && !zip_fits(cq, ci))
				eng_cq_zip_flush(cq);
			/* a block never wraps round the end of the ring: DPDK's vectorized Rx decompresses a block into
			 * consecutive CQ slots and mbufs without a mask (mlx5_rxtx_vec_sse.h rxq_cq_decompress_v, after
			 * rxq_burst_v stops its batch at the queue end); it dereferenced an mbuf past its ring when a
			 * block wrapped. The title goes at pi (nothing else is written while a block is open). */
			uint32_t max = cq->cnt < EMU_CQE_COMP_MAX_NUM ? cq->cnt : EMU_CQE_COMP_MAX_NUM;
			uint32_t to_end = cq->cnt - (cq->pi & (cq->cnt - 1));
			if (max > to_end)
				max = to_end;
			if (cq->overrun || !cq_room(cq, cq->zip_n + 1, ci))
				return;
			cqe_stamp(cq, ci, &stamped);
			if (!cq->zip_n) {
				cq->zip_first = stamped;
				cq->zip_first.inline_data = NULL;
				zip_open++;
			}
			eng_mini_cqe_build(cq->zip_mini[cq->zip_n++], cq->comp_format, &stamped);
			cq->zip_last = stamped;
			cq->zip_sol |= solicited;
			if (cq->zip_n == max)
				eng_cq_zip_flush(cq);
			return;
		}
		if (cq->overrun)
			return;
	}
	if (!cq_room(cq, 1, ci))
		return;
	cqe_stamp(cq, ci, &stamped);
	cqe_publish(cq, &stamped, solicited);
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
