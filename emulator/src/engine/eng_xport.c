/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_xport.c - RC/UC/UD transport: what its parts share (layer 3 of src/engine/LAYERS). The parts, after rxe's
 * split: the requester eng_req.c (executes send WQEs, turns them into wire packets) and the responder eng_resp.c
 * (consumes receive WQEs, checks keys, writes memory, ACKs) at layer 4, and the completer eng_comp.c (completes
 * the requester's WQEs on ACK/response/NAK, and rewinds it) at layer 5.
 *
 * PSNs: one per packet for SEND/WRITE (a message is cut into ENG_CHUNK packets), one per READ response packet
 * (ENG_CHUNK bytes each), one per atomic. The wires themselves never lose packets; loss comes from fault injection
 * (eng_fault.c), a responder dropping what arrives for a QP not in RTR/RTS, or a process that never reads its
 * inbox. RC recovers by NAK-PSN sequence errors, implied NAKs and the retry timer (go-back-N, duplicates answered
 * without executing twice) and turns what does not recover into RETRY_EXC_ERR, as a ConnectX does.
 */
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "emu_clock.h"
#include "engine/eng_internal.h"
#include "engine/eng_pcap.h"
#include "engine/eng_xport.h"
#include "eth_knobs.h"

void eng_qp_reset_state(struct eng_qp *qp)
{
	qp->sq_pi = qp->sq_next = qp->sq_cqe_seen = 0;
	qp->cur_valid = 0;
	qp->tx_off = 0;
	qp->infl_head = qp->infl_tail = 0;
	qp->rq_ci = 0;
	qp->ack_pending = 0;
	qp->ack_count = 0;
	qp->ack_now = 0;
	qp->ack_since = 0;
	qp->read_off = 0;
	qp->atomic_hist_n = 0;
	qp->flushing = 0;
	qp->last_wqe_due = 0;
	qp->nak_sent = qp->uc_drop = qp->nak_rewound = 0;
	qp->rnr_until = 0;
	qp->rec_stall_since = 0;
	qp->rec_stall_reported = 0;
	qp->placed_unanswered = 0;
	memset(&qp->rx, 0, sizeof qp->rx);
	qp->peer = NULL;
	qp->xfwd_pending = 0; /* a verdict still to come finds nothing waiting for it (eng_xrcfwd.c) */
}

struct eng_inbox *eng_qp_peer(struct eng_qp *qp)
{
	if (!qp->peer) {
		qp->peer = eng_peer_inbox(qp->dest_qpn, &qp->peer_pid, &qp->peer_lid);
		if (!qp->peer && emu_log_enabled)
			emu_log("engine: QP 0x%06x: destination QP 0x%06x not found", qp->qpn, qp->dest_qpn);
	}
	return qp->peer;
}

uint16_t eng_my_lid(struct eng_qp *qp)
{
	return qp->q && qp->q->ctx && qp->q->ctx->port ? qp->q->ctx->port->lid : 0;
}

int eng_is_eth(struct eng_qp *qp)
{
	return qp->q && qp->q->ctx && qp->q->ctx->port && qp->q->ctx->port->link_layer == EMU_LINK_ETH;
}

/* The largest UD message: the port's active MTU (QUERY_PORT answers the same). */
uint32_t eng_ud_mtu(struct eng_qp *qp)
{
	return eng_is_eth(qp) ? 128u << emu_eth_active_mtu() : 4096u;
}

/* ---------------- memory helpers ---------------- */

int eng_check_sges(struct eng_qp *qp, const struct eng_sge *sge, uint32_t n, uint32_t access)
{
	for (uint32_t i = 0; i < n; i++)
		if (sge[i].len && !sge[i].inl && !eng_mr_check(sge[i].lkey, qp->pd, sge[i].addr, sge[i].len, access))
			return 0;
	return 1;
}

void eng_gather(struct eng_qp *qp, const struct eng_wqe *w, uint64_t off, uint8_t *dst, uint64_t n)
{
	for (uint32_t i = 0; i < w->nsge && n; i++) {
		uint64_t len = w->sge[i].len;
		if (off >= len) {
			off -= len;
			continue;
		}
		uint64_t take = len - off < n ? len - off : n;
		const uint8_t *src = w->sge[i].inl ? qp->cur_buf + w->sge[i].addr + off
						  : (const uint8_t *)(uintptr_t)(w->sge[i].addr + off);
		memcpy(dst, src, take);
		dst += take;
		n -= take;
		off = 0;
	}
}

void eng_scatter(const struct eng_sge *sge, uint32_t nsge, uint64_t off, const uint8_t *src, uint64_t n)
{
	for (uint32_t i = 0; i < nsge && n; i++) {
		uint64_t len = sge[i].len;
		if (off >= len) {
			off -= len;
			continue;
		}
		uint64_t take = len - off < n ? len - off : n;
		memcpy((uint8_t *)(uintptr_t)(sge[i].addr + off), src, take);
		src += take;
		n -= take;
		off = 0;
	}
}

/* ---------------- completions ---------------- */

void eng_req_err_cqe(struct eng_qp *qp, uint32_t bb, uint8_t opcode, uint8_t synd, uint8_t vendor)
{
	struct eng_cqe_info ci = { .opcode = MLX5_CQE_REQ_ERR, .wqe_opcode = opcode, .syndrome = synd,
				   .vendor_syndrome = vendor, .wqe_counter = (uint16_t)bb, .qpn = qp->qpn,
				   .srqn_uidx = qp->uidx };
	eng_write_cqe(qp->scq, &ci, 1);
}

void eng_resp_err_cqe(struct eng_qp *qp, uint32_t wqe_counter, uint8_t synd, uint8_t vendor)
{
	struct eng_cqe_info ci = { .opcode = MLX5_CQE_RESP_ERR, .syndrome = synd, .vendor_syndrome = vendor,
				   .wqe_counter = (uint16_t)wqe_counter, .qpn = qp->qpn, .srqn_uidx = qp->uidx };
	eng_write_cqe(qp->rcq, &ci, 1);
}

int eng_complete_sq(struct eng_qp *qp)
{
	int work = 0;
	uint32_t mask = qp->sq_cnt - 1;
	while (qp->infl_tail != qp->infl_head) {
		struct eng_infl *e = &qp->infl[qp->infl_tail & mask];
		if (!e->done)
			break;
		qp->infl_tail++;
		work = 1;
		if (e->syndrome) {
			eng_req_err_cqe(qp, e->bb, e->opcode, e->syndrome, e->vendor);
			qp->sq_cqe_seen = e->bb + e->nbb;
			eng_qp_set_error(qp);
			return 1;
		}
		if (e->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE) {
			struct eng_cqe_info ci = { .opcode = MLX5_CQE_REQ, .wqe_opcode = e->opcode,
						   .wqe_counter = (uint16_t)e->bb, .qpn = qp->qpn,
						   .srqn_uidx = qp->uidx, .byte_cnt = e->byte_cnt };
			/* RC completes on the ACK, stamped when the CQE is written; a send that waits for no ACK
			 * is stamped when it left, so the receiver's stamp is always the later one */
			if (qp->type != EMU_QPT_RC)
				ci.timestamp = emu_clock_ticks(e->tx_ns);
			if (e->scat_len) {
				ci.inline_data = e->scat;
				ci.inline_len = e->scat_len;
			}
			eng_write_cqe(qp->scq, &ci, (e->fm_ce_se & MLX5_WQE_CTRL_SOLICITED) != 0);
			qp->sq_cqe_seen = e->bb + e->nbb;
		}
	}
	return work;
}

int eng_flush_qp(struct eng_qp *qp)
{
	int work = 0;
	eng_direct_withdraw_qp(qp); /* a QP in error accepts no WRITE, placed or not */
	uint32_t mask = qp->sq_cnt - 1;
	for (; qp->infl_tail != qp->infl_head; qp->infl_tail++) {
		struct eng_infl *e = &qp->infl[qp->infl_tail & mask];
		eng_req_err_cqe(qp, e->bb, e->opcode, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, ENG_VENDOR_SYND_FLUSH);
		work = 1;
	}
	while (qp->sq_next != qp->sq_pi) {
		const uint8_t *ctrl = qp->sq + (size_t)(qp->sq_next & mask) * ENG_WQE_BB;
		uint32_t ds = ctrl[7] ? ctrl[7] : 1;
		eng_req_err_cqe(qp, qp->sq_next, ctrl[3], MLX5_CQE_SYNDROME_WR_FLUSH_ERR, ENG_VENDOR_SYND_FLUSH);
		qp->sq_next += eng_wqe_bbs(ds);
		work = 1;
	}
	qp->cur_valid = 0;
	qp->sq_cqe_seen = qp->sq_pi;
	if ((qp->rx.active && (qp->rx.is_send || qp->rx.need_rwqe == 2)) || qp->rx.held) {
		eng_resp_err_cqe(qp, qp->rx.wqe_counter, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, ENG_VENDOR_SYND_FLUSH);
		work = 1;
	}
	qp->rx.active = qp->rx.held = 0;
	if (qp->last_wqe_due) {
		/* IBA 10.2.9.5 / 11.6.3.1: a QP on an SRQ in the Error state, its receive WQE in progress (if any)
		 * flushed just above, will take no more WQEs from the SRQ: the Last WQE Reached event, once */
		qp->last_wqe_due = 0;
		eng_qp_event(qp, IBV_EVENT_QP_LAST_WQE_REACHED);
		work = 1;
	}
	if (!qp->srq && qp->rq_cnt) {
		/* every receive WQE the driver posted before its record is flushed, none it is still writing */
		uint32_t pi = udma_device_load_dbrec(&qp->dbrec[0]) & 0xffff;
		while ((qp->rq_ci & 0xffff) != pi) {
			eng_resp_err_cqe(qp, qp->rq_ci & 0xffff, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, ENG_VENDOR_SYND_FLUSH);
			qp->rq_ci++;
			work = 1;
		}
	}
	return work;
}

/* ---------------- shared by requester, completer and responder ---------------- */

int eng_is_rd_atomic(uint8_t opcode)
{
	return opcode == MLX5_OPCODE_RDMA_READ || opcode == MLX5_OPCODE_ATOMIC_CS || opcode == MLX5_OPCODE_ATOMIC_FA ||
	       opcode == MLX5_OPCODE_ATOMIC_MASKED_CS || opcode == MLX5_OPCODE_ATOMIC_MASKED_FA;
}

/* PSNs a READ of len bytes takes: one per response packet (IBA vol. 1 ch. 9.7: a READ request consumes as many PSNs
 * as there are response packets); the engine's response packets carry up to ENG_CHUNK bytes each. */
uint32_t eng_read_psns(uint64_t len)
{
	return len ? (uint32_t)((len + ENG_CHUNK - 1) / ENG_CHUNK) : 1;
}

/* Receive WQEs (an SRQ's or the QP's own), consumed by the responder and by raw Ethernet QPs. */
uint32_t eng_rq_avail(struct eng_qp *qp)
{
	if (qp->srq) {
		/* the WQEs counted here are read after the record: none still being written is taken */
		uint32_t c = udma_device_load_dbrec(&qp->srq->dbrec[0]);
		return (c - qp->srq->consumed) & 0xffff;
	}
	if (!qp->rq_cnt)
		return 0;
	uint32_t pi = udma_device_load_dbrec(&qp->dbrec[0]); /* as for the SRQ above */
	return (pi - qp->rq_ci) & 0xffff;
}

void eng_rq_take(struct eng_qp *qp, struct eng_rx *rx)
{
	const uint8_t *wqe;
	size_t stride;
	if (qp->srq) {
		struct eng_srq *s = qp->srq;
		uint16_t next = 0;
		rx->wqe_counter = s->head;
		wqe = s->buf + ((size_t)(s->head & (s->cnt - 1)) << s->shift);
		stride = (size_t)1 << s->shift;
		rx->nsge = eng_rwqe_parse(wqe, stride, 1, rx->sge, ENG_MAX_RSGE, &next);
		s->head = next;
		s->consumed++;
		if (s->limit && eng_rq_avail(qp) < s->limit) {
			s->limit = 0;
			emu_lock();
			s->s->srq_limit = 0;
			emu_unlock();
			eng_srq_event(s, IBV_EVENT_SRQ_LIMIT_REACHED);
		}
	} else {
		rx->wqe_counter = qp->rq_ci & 0xffff;
		wqe = qp->rq + ((size_t)(qp->rq_ci & (qp->rq_cnt - 1)) << qp->rq_shift);
		stride = (size_t)1 << qp->rq_shift;
		rx->nsge = eng_rwqe_parse(wqe, stride, 0, rx->sge, ENG_MAX_RSGE, NULL);
		qp->rq_ci++;
	}
	rx->cap = 0;
	for (uint32_t i = 0; i < rx->nsge; i++)
		rx->cap += rx->sge[i].len;
}
