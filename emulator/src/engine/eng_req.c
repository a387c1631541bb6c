/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_req.c - the requester: executes send WQEs, turns them into wire packets, keeps them in flight, retries on
 * timeouts (layer 4 of src/engine/LAYERS).
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

/* ---------------- requester ---------------- */

static struct eng_infl *push_infl(struct eng_qp *qp, uint64_t now)
{
	uint32_t i = qp->infl_tail;
	while (i != qp->infl_head && qp->infl[i & (qp->sq_cnt - 1)].done)
		i++;
	if (i == qp->infl_head) { /* nothing outstanding: the retry timer starts now */
		qp->last_progress = now;
		qp->peer_stall_since = 0;
		if (qp->peer) /* where the peer's engine stands: check_timeout() tells slow from stalled by it */
			qp->peer_tail_seen = atomic_load_explicit(&qp->peer->req.tail, memory_order_acquire);
	}
	struct eng_infl *e = &qp->infl[qp->infl_head & (qp->sq_cnt - 1)];
	memset(e, 0, sizeof *e);
	e->bb = qp->sq_next;
	e->nbb = (uint16_t)eng_wqe_bbs(qp->cur.ds ? qp->cur.ds : 1);
	e->opcode = qp->cur.opcode;
	e->fm_ce_se = qp->cur.fm_ce_se;
	e->tx_ns = now;
	qp->infl_head++;
	return e;
}

static void advance(struct eng_qp *qp)
{
	qp->sq_next += eng_wqe_bbs(qp->cur.ds ? qp->cur.ds : 1);
	qp->cur_valid = 0;
	qp->tx_off = 0;
}

static void fail_wqe(struct eng_qp *qp, uint64_t now, uint8_t synd)
{
	struct eng_infl *e = push_infl(qp, now);
	e->done = 1;
	e->syndrome = synd;
	advance(qp);
}

/* READ/atomic requests sent and not answered yet. */
static uint32_t outstanding_rd_atomic(struct eng_qp *qp)
{
	uint32_t n = 0;
	for (uint32_t i = qp->infl_tail; i != qp->infl_head; i++) {
		struct eng_infl *e = &qp->infl[i & (qp->sq_cnt - 1)];
		n += !e->done && eng_is_rd_atomic(e->opcode);
	}
	return n;
}

static void fill_common(struct eng_qp *qp, struct pkt *p, uint8_t type, uint32_t dst_qpn)
{
	memset(p, 0, sizeof *p);
	p->type = type;
	p->qp_type = (uint8_t)qp->type;
	p->opcode = qp->cur.opcode;
	p->dst_qpn = dst_qpn;
	p->src_qpn = qp->qpn;
	p->xrc_srqn = qp->cur.xrc_srqn;
	p->xrc = qp->xrc == EMU_QPT_XRC_INI;
	p->slid = eng_my_lid(qp);
	p->sl = qp->path.sl;
	eng_dc_fill(qp, p);
}

/* Transmit the SEND/WRITE message of the current WQE from tx_off on; 0 if the wire is full. With placed, try
 * direct placement (eng_direct.c) and say in *placed whether the data is in the responder's memory already. */
static int tx_message(struct eng_qp *qp, struct eng_inbox *peer, uint32_t dst_qpn, uint8_t type, int *placed)
{
	const struct eng_wqe *w = &qp->cur;
	uint64_t total = w->total_len;
	do {
		uint64_t chunk = total - qp->tx_off;
		if (chunk > ENG_CHUNK)
			chunk = ENG_CHUNK;
		uint64_t tok = 0;
		struct pkt *p = NULL;
		if (peer) {
			p = eng_ring_reserve(&peer->req, sizeof *p + chunk, &tok);
			if (!p)
				return 0;
		}
		if (p) {
			fill_common(qp, p, type, dst_qpn);
			if (qp->tx_off == 0)
				p->flags |= PF_FIRST;
			if (qp->tx_off + chunk == total)
				p->flags |= PF_LAST;
			if (w->opcode == MLX5_OPCODE_SEND_IMM || w->opcode == MLX5_OPCODE_RDMA_WRITE_IMM)
				p->flags |= PF_IMM;
			if (w->opcode == MLX5_OPCODE_SEND_INVAL)
				p->flags |= PF_INV;
			if (w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED)
				p->flags |= PF_SOLICITED;
			/* the ACK of a signaled WQE's last packet completes it; past half the window the requester
			 * needs its slots back: either way the responder answers at once (eng_resp.c, coalescing) */
			if (qp->type == EMU_QPT_RC && (p->flags & PF_LAST) &&
			    ((w->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE) || qp->infl_head - qp->infl_tail >= qp->sq_cnt / 2))
				p->flags |= PF_ACKREQ;
			p->psn = qp->tx_psn;
			p->imm = w->imm;
			p->rkey = w->rkey;
			p->raddr = w->raddr;
			p->msg_len = (uint32_t)total;
			p->len = (uint32_t)chunk;
			p->offset = qp->tx_off;
			if (qp->type == EMU_QPT_UD) {
				p->qkey = (w->av.qkey & 0x80000000u) ? qp->qkey : w->av.qkey;
				if (w->av.grh || eng_is_eth(qp)) {
					p->flags |= PF_GRH;
					p->tclass = w->av.tclass;
					p->hop_limit = w->av.hop_limit;
					p->flow_label = w->av.flow_label;
					memcpy(p->dgid, w->av.rgid, 16);
					if (qp->q->ctx->port)
						memcpy(p->sgid, qp->q->ctx->port->gid[0].raw, 16);
				}
				p->sl = w->av.sl;
			}
			eng_gather(qp, w, qp->tx_off, p->data, chunk);
			eng_tap_tx(qp, p, qp->type == EMU_QPT_UD ? &w->av : NULL);
			if (placed && eng_direct_place(qp, peer, p)) {
				p->flags |= PF_PLACED;
				*placed = 1;
				eng_direct_placed(qp);
			}
			eng_xmit(qp, peer, &peer->req, tok, p, sizeof *p + chunk);
		}
		qp->tx_off += (uint32_t)chunk;
		qp->tx_psn = (qp->tx_psn + 1) & ENG_PSN_MASK;
	} while (qp->tx_off < total);
	return 1;
}

static int exec_one(struct eng_qp *qp, uint64_t now)
{
	if (!qp->cur_valid) {
		qp->cur_len = eng_wqe_linearize(qp->sq, (size_t)qp->sq_cnt * ENG_WQE_BB, qp->sq_next, qp->cur_buf,
						sizeof qp->cur_buf);
		qp->cur_status = qp->cur_len ? eng_wqe_parse(qp->cur_buf, qp->cur_len, eng_qp_wqe_type(qp), &qp->cur)
					     : ENG_WQE_BAD_DS;
		if (!qp->cur_len) {
			memset(&qp->cur, 0, offsetof(struct eng_wqe, sge));
			qp->cur.opcode = qp->sq[(size_t)(qp->sq_next & (qp->sq_cnt - 1)) * ENG_WQE_BB + 3];
		}
		qp->cur_valid = 1;
		qp->tx_off = 0;
		qp->tx_psn = qp->next_psn;
		uint32_t idx = qp->sq_next & 0xffff;
		if (qp->cur_status != ENG_WQE_OK) {
			eng_strict(qp->qpn, idx, "%s", eng_wqe_status_str(qp->cur_status));
		} else if (qp->cur.qpn != qp->qpn) {
			eng_strict(qp->qpn, idx, "ctrl qpn 0x%06x is not this QP", qp->cur.qpn);
			qp->cur_status = ENG_WQE_BAD_OPCODE;
		} else if (qp->cur.wqe_index != idx) {
			eng_strict(qp->qpn, idx, "ctrl wqe_index %u is not the WQE's position", qp->cur.wqe_index);
			qp->cur_status = ENG_WQE_BAD_OPCODE;
		}
	}
	struct eng_wqe *w = &qp->cur;
	if (qp->cur_status != ENG_WQE_OK) {
		fail_wqe(qp, now, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
		return 1;
	}
	if ((w->fm_ce_se & (MLX5_WQE_CTRL_FENCE | MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE)) && qp->tx_off == 0 &&
	    outstanding_rd_atomic(qp))
		return 0;

	if (w->opcode == MLX5_OPCODE_NOP) {
		struct eng_infl *e = push_infl(qp, now);
		e->done = 1;
		advance(qp);
		return 1;
	}
	int is_read = w->opcode == MLX5_OPCODE_RDMA_READ;
	if (qp->tx_off == 0 &&
	    !eng_check_sges(qp, w->sge, w->nsge, (is_read || w->atomic_size) ? IBV_ACCESS_LOCAL_WRITE : 0)) {
		fail_wqe(qp, now, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		return 1;
	}

	if (qp->type == EMU_QPT_RAW) {
		uint8_t synd = 0;
		if (!eng_eth_send(qp, &synd))
			return 0;
		if (synd) {
			fail_wqe(qp, now, synd);
			return 1;
		}
		struct eng_infl *e = push_infl(qp, now);
		e->done = 1;
		advance(qp);
		return 1;
	}
	if (qp->type == EMU_QPT_UD) {
		/* A UD message must fit one packet of the port's active MTU (IBA C10-93.1.1). The spec lets the CI drop
		 * such a message without an error, and rxe does; this device completes it with a local length error. */
		if (w->total_len > eng_ud_mtu(qp)) {
			fail_wqe(qp, now, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
			return 1;
		}
		if (w->av.dqpn == 0xffffff) {
			/* multicast: one copy to every attached QP (emu_mcast_members); a full ring drops its copy, as a
			 * switch drops UD packets */
			uint32_t members[EMU_MCAST_ATTACH_MAX];
			int n = emu_mcast_members(w->av.rgid, members, EMU_MCAST_ATTACH_MAX);
			if (emu_log_enabled)
				emu_log("engine: QP 0x%06x multicast to %d attached QP(s), first 0x%06x", qp->qpn, n, n ? members[0] : 0);
			for (int i = 0; i < n; i++) {
				qp->tx_off = 0;
				qp->tx_psn = qp->next_psn;
				tx_message(qp, eng_peer_inbox(members[i], NULL, NULL), members[i], PKT_SEND, NULL);
			}
			qp->tx_off = (uint32_t)w->total_len;
			qp->tx_psn = (qp->next_psn + 1) & ENG_PSN_MASK; /* the message takes one PSN */
		} else {
			struct eng_inbox *peer = eng_peer_inbox(w->av.dqpn, NULL, NULL);
			if (!tx_message(qp, peer, w->av.dqpn, PKT_SEND, NULL))
				return 0;
		}
		qp->next_psn = qp->tx_psn; /* UD packets carry consecutive PSNs too (IBA 9.7.1) */
		struct eng_infl *e = push_infl(qp, now);
		e->done = 1;
		e->byte_cnt = (uint32_t)w->total_len;
		advance(qp);
		return 1;
	}

	if (qp->dc_type == EMU_DC_DCI && qp->tx_off == 0 && !eng_dci_connect(qp, w))
		return 0;
	struct eng_inbox *peer = eng_qp_peer(qp);
	struct eng_infl *e;
	switch (w->opcode) {
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
	case MLX5_OPCODE_SEND_INVAL:
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM: {
		uint32_t first = qp->tx_off == 0 ? qp->next_psn : 0;
		(void)first;
		uint32_t psn_first = qp->next_psn;
		uint8_t type = (w->opcode == MLX5_OPCODE_RDMA_WRITE || w->opcode == MLX5_OPCODE_RDMA_WRITE_IMM)
				       ? PKT_WRITE : PKT_SEND;
		int placed = 0;
		if (!tx_message(qp, peer, qp->dest_qpn, type, eng_direct_wanted(qp, peer, w) ? &placed : NULL))
			return 0;
		e = push_infl(qp, now);
		e->psn_first = psn_first;
		e->psn_last = (qp->tx_psn - 1) & ENG_PSN_MASK;
		e->byte_cnt = (uint32_t)w->total_len;
		qp->next_psn = qp->tx_psn;
		e->done = qp->type == EMU_QPT_UC;
		if (placed) {
			/* Placed in the responder's memory by this pass (eng_direct.c): acknowledged, as the completer
			 * would do with the responder's ACK (eng_comp.c made_progress). */
			e->done = 1;
			qp->last_progress = now;
			qp->peer_stall_since = 0;
			qp->retries_left = qp->retry_cnt;
			qp->rnr_left = qp->rnr_retry;
			qp->nak_rewound = 0;
		}
		advance(qp);
		return 1;
	}
	case MLX5_OPCODE_RDMA_READ:
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
	case MLX5_OPCODE_ATOMIC_MASKED_CS:
	case MLX5_OPCODE_ATOMIC_MASKED_FA: {
		/* The initiator depth: no more READ/atomic requests outstanding than the QP's max_rd_atomic allows
		 * (the WQE waits, as the HCA's requester does when its 2^log_sra_max slots are in use). */
		if (outstanding_rd_atomic(qp) >= qp->rd_atomic_win)
			return 0;
		uint32_t npsn = is_read ? eng_read_psns(w->total_len) : 1;
		if (peer) {
			uint64_t tok;
			struct pkt *p = eng_ring_reserve(&peer->req, sizeof *p, &tok);
			if (!p)
				return 0;
			fill_common(qp, p, is_read ? PKT_READ_REQ : PKT_ATOMIC_REQ, qp->dest_qpn);
			p->flags = PF_FIRST | PF_LAST;
			p->psn = qp->next_psn;
			p->rkey = w->rkey;
			p->raddr = w->raddr;
			p->msg_len = is_read ? (uint32_t)w->total_len : w->atomic_size;
			p->atomic_size = w->atomic_size;
			p->swap_add = w->swap_add;
			p->compare = w->compare;
			p->swap_mask = w->swap_mask;
			p->compare_mask = w->compare_mask;
			eng_tap_tx(qp, p, NULL);
			eng_xmit(qp, peer, &peer->req, tok, p, sizeof *p);
		}
		e = push_infl(qp, now);
		e->psn_first = e->rd_next = qp->next_psn;
		e->psn_last = (qp->next_psn + npsn - 1) & ENG_PSN_MASK;
		e->byte_cnt = is_read ? (uint32_t)w->total_len : 8;
		qp->next_psn = (qp->next_psn + npsn) & ENG_PSN_MASK;
		advance(qp);
		return 1;
	}
	default:
		fail_wqe(qp, now, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
		return 1;
	}
}

void eng_rewind_to(struct eng_qp *qp, uint32_t slot)
{
	struct eng_infl *e = &qp->infl[slot & (qp->sq_cnt - 1)];
	eng_qp_mark_busy(qp); /* on it already (a packet was in flight); said for whoever reads this alone */
	qp->sq_next = e->bb;
	qp->next_psn = e->psn_first;
	qp->infl_head = slot;
	qp->cur_valid = 0;
	qp->tx_off = 0;
}

/* The transport retries ran out at the WQE in slot: it completes with RETRY_EXC_ERR (vendor syndrome 0x81), and
 * the WQEs after it are flushed once the QP is in error. */
static void retry_exceeded(struct eng_qp *qp, uint32_t slot)
{
	struct eng_infl *e = &qp->infl[slot & (qp->sq_cnt - 1)];
	e->done = 1;
	e->syndrome = MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR;
	e->vendor = ENG_VENDOR_SYND_RETRY_EXC;
	if (emu_log_enabled)
		emu_log("engine: QP 0x%06x transport retries exhausted at PSN 0x%06x", qp->qpn, e->psn_first);
	qp->infl_head = slot + 1; /* nothing after it was acknowledged; it is flushed */
	qp->sq_next = e->bb + e->nbb;
	qp->cur_valid = 0;
}

/* A NAK-PSN sequence error for psn, or a response that shows an earlier one missing (an implied NAK): go back N
 * to the WQE in slot. Like the local ACK timeout this uses up one of retry_cnt retries (the IBA's
 * transport retry counter counts both; rxe does the same). One NAK per loss: until the retransmission made progress, further
 * NAKs for the same PSN (duplicates, or packets that were already in flight) are ignored. */
void eng_nak_rewind(struct eng_qp *qp, uint32_t slot, uint32_t psn, uint64_t now)
{
	if (qp->nak_rewound && qp->nak_psn == psn)
		return;
	qp->last_progress = now;
	if (qp->retries_left-- <= 0) {
		retry_exceeded(qp, slot);
		return;
	}
	qp->nak_rewound = 1;
	qp->nak_psn = psn;
	if (emu_log_enabled)
		emu_log("engine: QP 0x%06x sequence error at PSN 0x%06x, resending from PSN 0x%06x", qp->qpn, psn,
			qp->infl[slot & (qp->sq_cnt - 1)].psn_first);
	eng_rewind_to(qp, slot);
}

static void check_timeout(struct eng_qp *qp, uint64_t now)
{
	if (qp->timeout == 0 || qp->infl_tail == qp->infl_head)
		return;
	uint32_t slot = qp->infl_tail;
	for (; slot != qp->infl_head; slot++)
		if (!qp->infl[slot & (qp->sq_cnt - 1)].done)
			break;
	if (slot == qp->infl_head)
		return;
	uint64_t tmo = 4096ull << (qp->timeout > 31 ? 31 : qp->timeout);
	if (tmo < 20000000ull)
		tmo = 20000000ull; /* never below 20 ms: two processes share two cores */
	/* `now` is taken once at the start of an engine pass, but a response handled earlier in the same pass stamps
	 * last_progress with a later clock: compare signed, or the difference wraps to a huge value and a QP that
	 * just made progress times out at once and retransmits. */
	if ((int64_t)(now - qp->last_progress) < (int64_t)tmo)
		return;
	qp->last_progress = now;
	/* A peer whose engine is still working through what is queued for it is slow (a loaded machine), not lost:
	 * hardware would see the ACKs of a link that is merely busy, so that timeout uses up no retry. A peer that
	 * consumes nothing uses them up as a dead one does when its process is gone, stopped (SIGSTOP: its "NIC"
	 * stops with it here, so its peers see what they would see of a dead node) or a zombie, and after
	 * ENG_STALL_GRACE_NS when it runs but its engine gets no CPU or is wedged: a requester never waits forever. A
	 * peer that consumed the packets and still did not answer (not in RTR, ...) uses them up too. A stopped peer
	 * that resumes within the retries answers the retransmission (go-back-N from the oldest unacknowledged PSN;
	 * duplicates are detected by the responder) and the connection carries on. */
	struct eng_inbox *peer = qp->peer;
	if (peer && atomic_load_explicit(&peer->req.head, memory_order_acquire) !=
			    atomic_load_explicit(&peer->req.tail, memory_order_acquire)) {
		uint64_t tail = atomic_load_explicit(&peer->req.tail, memory_order_acquire);
		if (tail != qp->peer_tail_seen) { /* it consumed something in this interval */
			qp->peer_tail_seen = tail;
			qp->peer_stall_since = 0;
			return;
		}
		if (peer == G.inbox)
			return; /* our own engine is behind: this pass or the next one gets to it */
		if (!qp->peer_stall_since)
			qp->peer_stall_since = now - tmo; /* nothing consumed since the timer started */
		if (eng_pid_running(qp->peer_pid) && now - qp->peer_stall_since < ENG_STALL_GRACE_NS)
			return;
	} else {
		qp->peer_stall_since = 0;
	}
	if (qp->retries_left-- <= 0) {
		retry_exceeded(qp, slot);
		return;
	}
	qp->peer = NULL; /* look the peer up again: it may have come back */
	qp->nak_rewound = 0;
	eng_rewind_to(qp, slot);
	if (emu_log_enabled)
		emu_log("engine: QP 0x%06x timeout, resending from PSN 0x%06x (%d retries left)", qp->qpn, qp->next_psn,
			qp->retries_left);
}

int eng_qp_progress(struct eng_qp *qp, uint64_t now)
{
	int work = 0;
	if (qp->state == EMU_QPS_ERR)
		return eng_flush_qp(qp);
	if (qp->state == EMU_QPS_RTS && qp->sq_cnt) {
		if (qp->rnr_until && now < qp->rnr_until) {
			/* waiting out an RNR NAK */
		} else {
			qp->rnr_until = 0;
			for (int n = 0; n < 64 && qp->sq_next != qp->sq_pi && qp->state == EMU_QPS_RTS; n++) {
				if (!exec_one(qp, now))
					break;
				work = 1;
			}
			if (qp->type == EMU_QPT_RC)
				check_timeout(qp, now);
		}
	}
	if (qp->sq_cnt)
		work |= eng_complete_sq(qp);
	return work;
}
