/*
 * eng_xport.c - RC/UC/UD transport: the requester (executes send WQEs, turns them into wire packets, completes
 * them on ACK/response/NAK/timeout) and the responder (consumes receive WQEs, checks keys, writes memory, ACKs).
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
#include "eth_knobs.h"

static inline int32_t psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/* IB spec min_rnr_timer encoding (table 45 "RNR NAK timer field") in microseconds. */
static const uint32_t rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520
};

void eng_qp_reset_state(struct eng_qp *qp)
{
	qp->sq_pi = qp->sq_next = qp->sq_cqe_seen = 0;
	qp->cur_valid = 0;
	qp->tx_off = 0;
	qp->infl_head = qp->infl_tail = 0;
	qp->rq_ci = 0;
	qp->ack_pending = 0;
	qp->read_off = 0;
	qp->atomic_hist_n = 0;
	qp->flushing = 0;
	qp->nak_sent = qp->uc_drop = qp->nak_rewound = 0;
	qp->rnr_until = 0;
	qp->rec_stall_since = 0;
	qp->rec_stall_reported = 0;
	memset(&qp->rx, 0, sizeof qp->rx);
	qp->peer = NULL;
}

static struct eng_inbox *qp_peer(struct eng_qp *qp)
{
	if (!qp->peer) {
		qp->peer = eng_peer_inbox(qp->dest_qpn, &qp->peer_pid, &qp->peer_lid);
		if (!qp->peer && emu_log_enabled)
			emu_log("engine: QP 0x%06x: destination QP 0x%06x not found", qp->qpn, qp->dest_qpn);
	}
	return qp->peer;
}

static uint16_t my_lid(struct eng_qp *qp)
{
	return qp->q && qp->q->ctx && qp->q->ctx->port ? qp->q->ctx->port->lid : 0;
}

static int is_eth(struct eng_qp *qp)
{
	return qp->q && qp->q->ctx && qp->q->ctx->port && qp->q->ctx->port->link_layer == EMU_LINK_ETH;
}

/* The largest UD message: the port's active MTU (QUERY_PORT answers the same). */
static uint32_t ud_mtu(struct eng_qp *qp)
{
	return is_eth(qp) ? 128u << emu_eth_active_mtu() : 4096u;
}

/* ---------------- memory helpers ---------------- */

static int check_sges(struct eng_qp *qp, const struct eng_sge *sge, uint32_t n, uint32_t access)
{
	for (uint32_t i = 0; i < n; i++)
		if (sge[i].len && !sge[i].inl && !eng_mr_check(sge[i].lkey, qp->pd, sge[i].addr, sge[i].len, access))
			return 0;
	return 1;
}

static void gather(struct eng_qp *qp, const struct eng_wqe *w, uint64_t off, uint8_t *dst, uint64_t n)
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

static void scatter(const struct eng_sge *sge, uint32_t nsge, uint64_t off, const uint8_t *src, uint64_t n)
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

static void req_err_cqe(struct eng_qp *qp, uint32_t bb, uint8_t opcode, uint8_t synd, uint8_t vendor)
{
	struct eng_cqe_info ci = { .opcode = MLX5_CQE_REQ_ERR, .wqe_opcode = opcode, .syndrome = synd,
				   .vendor_syndrome = vendor, .wqe_counter = (uint16_t)bb, .qpn = qp->qpn,
				   .srqn_uidx = qp->uidx };
	eng_write_cqe(qp->scq, &ci, 1);
}

static void resp_err_cqe(struct eng_qp *qp, uint32_t wqe_counter, uint8_t synd, uint8_t vendor)
{
	struct eng_cqe_info ci = { .opcode = MLX5_CQE_RESP_ERR, .syndrome = synd, .vendor_syndrome = vendor,
				   .wqe_counter = (uint16_t)wqe_counter, .qpn = qp->qpn, .srqn_uidx = qp->uidx };
	eng_write_cqe(qp->rcq, &ci, 1);
}

static int complete_sq(struct eng_qp *qp)
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
			req_err_cqe(qp, e->bb, e->opcode, e->syndrome, e->vendor);
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

static int flush_qp(struct eng_qp *qp)
{
	int work = 0;
	uint32_t mask = qp->sq_cnt - 1;
	for (; qp->infl_tail != qp->infl_head; qp->infl_tail++) {
		struct eng_infl *e = &qp->infl[qp->infl_tail & mask];
		req_err_cqe(qp, e->bb, e->opcode, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, ENG_VENDOR_SYND_FLUSH);
		work = 1;
	}
	while (qp->sq_next != qp->sq_pi) {
		const uint8_t *ctrl = qp->sq + (size_t)(qp->sq_next & mask) * ENG_WQE_BB;
		uint32_t ds = ctrl[7] ? ctrl[7] : 1;
		req_err_cqe(qp, qp->sq_next, ctrl[3], MLX5_CQE_SYNDROME_WR_FLUSH_ERR, ENG_VENDOR_SYND_FLUSH);
		qp->sq_next += eng_wqe_bbs(ds);
		work = 1;
	}
	qp->cur_valid = 0;
	qp->sq_cqe_seen = qp->sq_pi;
	if ((qp->rx.active && (qp->rx.is_send || qp->rx.need_rwqe == 2)) || qp->rx.held) {
		resp_err_cqe(qp, qp->rx.wqe_counter, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, ENG_VENDOR_SYND_FLUSH);
		work = 1;
	}
	qp->rx.active = qp->rx.held = 0;
	if (!qp->srq && qp->rq_cnt) {
		uint32_t pi = __builtin_bswap32(__atomic_load_n(&qp->dbrec[0], __ATOMIC_ACQUIRE)) & 0xffff;
		while ((qp->rq_ci & 0xffff) != pi) {
			resp_err_cqe(qp, qp->rq_ci & 0xffff, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, ENG_VENDOR_SYND_FLUSH);
			qp->rq_ci++;
			work = 1;
		}
	}
	return work;
}

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

static int is_rd_atomic(uint8_t opcode)
{
	return opcode == MLX5_OPCODE_RDMA_READ || opcode == MLX5_OPCODE_ATOMIC_CS || opcode == MLX5_OPCODE_ATOMIC_FA ||
	       opcode == MLX5_OPCODE_ATOMIC_MASKED_CS || opcode == MLX5_OPCODE_ATOMIC_MASKED_FA;
}

/* READ/atomic requests sent and not answered yet. */
static uint32_t outstanding_rd_atomic(struct eng_qp *qp)
{
	uint32_t n = 0;
	for (uint32_t i = qp->infl_tail; i != qp->infl_head; i++) {
		struct eng_infl *e = &qp->infl[i & (qp->sq_cnt - 1)];
		n += !e->done && is_rd_atomic(e->opcode);
	}
	return n;
}

/* PSNs a READ of len bytes takes: one per response packet (IBA vol. 1 ch. 9.7: a READ request consumes as many PSNs
 * as there are response packets); the engine's response packets carry up to ENG_CHUNK bytes each. */
static uint32_t read_psns(uint64_t len)
{
	return len ? (uint32_t)((len + ENG_CHUNK - 1) / ENG_CHUNK) : 1;
}

static void fill_common(struct eng_qp *qp, struct pkt *p, uint8_t type, uint32_t dst_qpn)
{
	memset(p, 0, sizeof *p);
	p->type = type;
	p->qp_type = (uint8_t)qp->type;
	p->opcode = qp->cur.opcode;
	p->dst_qpn = dst_qpn;
	p->src_qpn = qp->qpn;
	p->slid = my_lid(qp);
	p->sl = qp->path.sl;
}

/* Transmit the SEND/WRITE message of the current WQE from tx_off on; 0 if the wire is full. */
static int tx_message(struct eng_qp *qp, struct eng_inbox *peer, uint32_t dst_qpn, uint8_t type)
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
			p->psn = qp->tx_psn;
			p->imm = w->imm;
			p->rkey = w->rkey;
			p->raddr = w->raddr;
			p->msg_len = (uint32_t)total;
			p->len = (uint32_t)chunk;
			p->offset = qp->tx_off;
			if (qp->type == EMU_QPT_UD) {
				p->qkey = (w->av.qkey & 0x80000000u) ? qp->qkey : w->av.qkey;
				if (w->av.grh || is_eth(qp)) {
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
			gather(qp, w, qp->tx_off, p->data, chunk);
			eng_tap_tx(qp, p, qp->type == EMU_QPT_UD ? &w->av : NULL);
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
		qp->cur_status = qp->cur_len ? eng_wqe_parse(qp->cur_buf, qp->cur_len, qp->type, &qp->cur)
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
	    !check_sges(qp, w->sge, w->nsge, (is_read || w->atomic_size) ? IBV_ACCESS_LOCAL_WRITE : 0)) {
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
		if (w->total_len > ud_mtu(qp)) {
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
				tx_message(qp, eng_peer_inbox(members[i], NULL, NULL), members[i], PKT_SEND);
			}
			qp->tx_off = (uint32_t)w->total_len;
			qp->tx_psn = (qp->next_psn + 1) & ENG_PSN_MASK; /* the message takes one PSN */
		} else {
			struct eng_inbox *peer = eng_peer_inbox(w->av.dqpn, NULL, NULL);
			if (!tx_message(qp, peer, w->av.dqpn, PKT_SEND))
				return 0;
		}
		qp->next_psn = qp->tx_psn; /* UD packets carry consecutive PSNs too (IBA 9.7.1) */
		struct eng_infl *e = push_infl(qp, now);
		e->done = 1;
		e->byte_cnt = (uint32_t)w->total_len;
		advance(qp);
		return 1;
	}

	struct eng_inbox *peer = qp_peer(qp);
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
		if (!tx_message(qp, peer, qp->dest_qpn, type))
			return 0;
		e = push_infl(qp, now);
		e->psn_first = psn_first;
		e->psn_last = (qp->tx_psn - 1) & ENG_PSN_MASK;
		e->byte_cnt = (uint32_t)w->total_len;
		qp->next_psn = qp->tx_psn;
		e->done = qp->type == EMU_QPT_UC;
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
		uint32_t npsn = is_read ? read_psns(w->total_len) : 1;
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

static void rewind_to(struct eng_qp *qp, uint32_t slot)
{
	struct eng_infl *e = &qp->infl[slot & (qp->sq_cnt - 1)];
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
static void nak_rewind(struct eng_qp *qp, uint32_t slot, uint32_t psn, uint64_t now)
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
	rewind_to(qp, slot);
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
	rewind_to(qp, slot);
	if (emu_log_enabled)
		emu_log("engine: QP 0x%06x timeout, resending from PSN 0x%06x (%d retries left)", qp->qpn, qp->next_psn,
			qp->retries_left);
}

int eng_qp_progress(struct eng_qp *qp, uint64_t now)
{
	int work = 0;
	if (qp->state == EMU_QPS_ERR)
		return flush_qp(qp);
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
		work |= complete_sq(qp);
	return work;
}

/* ---------------- requester: responses ---------------- */

static void made_progress(struct eng_qp *qp, uint64_t now)
{
	qp->last_progress = now;
	qp->peer_stall_since = 0;
	qp->retries_left = qp->retry_cnt;
	qp->rnr_left = qp->rnr_retry;
	qp->nak_rewound = 0;
}

/* An ACK (or a response) for psn acknowledges every SEND/WRITE up to it. A READ/atomic before psn that is still
 * unanswered had its response lost, since the responder answers in PSN order: an implied NAK (IBA ch. 9.7.5),
 * when implied is set. Returns 0 if the QP rewound. */
static int ack_upto(struct eng_qp *qp, uint32_t psn, uint64_t now, int implied)
{
	int progress = 0;
	for (uint32_t i = qp->infl_tail; i != qp->infl_head; i++) {
		struct eng_infl *e = &qp->infl[i & (qp->sq_cnt - 1)];
		if (e->done)
			continue;
		if (psn_diff(e->psn_last, psn) > 0)
			break;
		if (is_rd_atomic(e->opcode)) {
			if (!implied)
				continue;
			if (progress)
				made_progress(qp, now);
			nak_rewind(qp, i, e->rd_next, now);
			return 0;
		}
		e->done = 1;
		progress = 1;
	}
	if (progress)
		made_progress(qp, now);
	return 1;
}

/* The unfinished WQE whose PSN range holds psn. */
static struct eng_infl *find_infl(struct eng_qp *qp, uint32_t psn, uint32_t *slot)
{
	for (uint32_t i = qp->infl_tail; i != qp->infl_head; i++) {
		struct eng_infl *e = &qp->infl[i & (qp->sq_cnt - 1)];
		if (!e->done && e->opcode != MLX5_OPCODE_NOP && psn_diff(psn, e->psn_first) >= 0 &&
		    psn_diff(e->psn_last, psn) >= 0) {
			if (slot)
				*slot = i;
			return e;
		}
	}
	return NULL;
}

/* Put response bytes where the READ/atomic WQE at e asked, or into the CQE when scatter-to-CQE applies. */
static int land_response(struct eng_qp *qp, struct eng_infl *e, uint32_t off, const uint8_t *data, uint32_t len,
			 uint32_t msg_len)
{
	if (qp->scat_req && (e->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE) && qp->scq &&
	    eng_cqe_req_scatter_fits(msg_len) && msg_len) {
		memcpy(e->scat + off, data, len);
		e->scat_len = (uint8_t)msg_len;
		return 1;
	}
	static uint8_t buf[ENG_WQE_MAX_BYTES];
	static struct eng_wqe w;
	size_t n = eng_wqe_linearize(qp->sq, (size_t)qp->sq_cnt * ENG_WQE_BB, e->bb, buf, sizeof buf);
	if (!n || eng_wqe_parse(buf, n, qp->type, &w) != ENG_WQE_OK)
		return 0;
	if (!check_sges(qp, w.sge, w.nsge, IBV_ACCESS_LOCAL_WRITE))
		return 0;
	scatter(w.sge, w.nsge, off, data, len);
	return 1;
}

void eng_handle_resp(struct pkt *p)
{
	struct eng_qp *qp = eng_find_qp(p->dst_qpn);
	if (!qp || qp->type != EMU_QPT_RC || qp->state != EMU_QPS_RTS || !qp->sq_cnt) {
		if (emu_log_enabled)
			emu_log("engine: response type %d PSN 0x%06x for QP 0x%06x ignored (state %d)", p->type, p->psn,
				p->dst_qpn, qp ? qp->state : -1);
		return;
	}
	uint64_t now = eng_now_ns();
	uint32_t slot;
	struct eng_infl *e;
	switch (p->type) {
	case PKT_ACK:
		if (p->syndrome == ACK_OK) {
			ack_upto(qp, p->psn, now, 1);
			return;
		}
		if (!ack_upto(qp, (p->psn - 1) & ENG_PSN_MASK, now, p->syndrome == NAK_PSN_SEQ))
			return;
		e = find_infl(qp, p->psn, &slot);
		if (!e)
			return; /* a late or duplicated NAK for something already answered */
		if (p->syndrome == NAK_PSN_SEQ) {
			if (!qp->rnr_until) /* a NAK for packets sent before an RNR NAK rewound the QP: stale */
				nak_rewind(qp, slot, p->psn, now);
			return;
		}
		if (p->syndrome == NAK_RNR) {
			if (qp->rnr_retry != 7 && qp->rnr_left-- <= 0) {
				e->done = 1;
				e->syndrome = MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR;
				e->vendor = ENG_VENDOR_SYND_RNR_EXC;
				qp->infl_head = slot + 1;
				qp->sq_next = e->bb + e->nbb;
				qp->cur_valid = 0;
				return;
			}
			rewind_to(qp, slot);
			qp->rnr_until = now + (uint64_t)rnr_us[p->rnr_timer & 31] * 1000;
			qp->last_progress = now;
			return;
		}
		e->done = 1;
		e->syndrome = p->syndrome == NAK_REM_ACCESS ? MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR
			    : p->syndrome == NAK_REM_INV_REQ ? MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR
							     : MLX5_CQE_SYNDROME_REMOTE_OP_ERR;
		qp->infl_head = slot + 1;
		qp->sq_next = e->bb + e->nbb;
		qp->cur_valid = 0;
		return;
	case PKT_READ_RESP:
	case PKT_ATOMIC_RESP: {
		e = find_infl(qp, p->psn, &slot);
		if (!e || !is_rd_atomic(e->opcode) || (p->type == PKT_ATOMIC_RESP) != (e->opcode != MLX5_OPCODE_RDMA_READ))
			return; /* duplicate of something already complete */
		int32_t d = psn_diff(p->psn, e->rd_next);
		if (d < 0)
			return; /* a duplicate response (the request was retransmitted) */
		if (!ack_upto(qp, (e->psn_first - 1) & ENG_PSN_MASK, now, 1))
			return;
		if (d > 0) { /* a response packet before this one was lost: ask again (go back N) */
			nak_rewind(qp, slot, e->rd_next, now);
			return;
		}
		if (!land_response(qp, e, p->offset, p->data, p->len, p->msg_len)) {
			e->done = 1;
			e->syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
			return;
		}
		e->rd_next = (e->rd_next + 1) & ENG_PSN_MASK;
		made_progress(qp, now);
		if (p->flags & PF_LAST)
			e->done = 1;
		return;
	}
	default:
		return;
	}
}

/* ---------------- responder ---------------- */

static int send_ack(struct eng_qp *qp, uint32_t syndrome, uint32_t psn)
{
	struct eng_inbox *peer = qp_peer(qp);
	if (!peer) {
		if (emu_log_enabled)
			emu_log("engine: QP 0x%06x cannot reach QP 0x%06x: ACK for PSN 0x%06x lost", qp->qpn, qp->dest_qpn, psn);
		return 1; /* nobody to tell */
	}
	uint64_t tok;
	struct pkt *p = eng_ring_reserve(&peer->resp, sizeof *p, &tok);
	if (!p)
		return 0;
	memset(p, 0, sizeof *p);
	p->type = PKT_ACK;
	p->dst_qpn = qp->dest_qpn;
	p->src_qpn = qp->qpn;
	p->psn = psn & ENG_PSN_MASK;
	p->syndrome = syndrome;
	p->rnr_timer = qp->min_rnr_timer;
	eng_tap_tx(qp, p, NULL);
	eng_xmit(qp, peer, &peer->resp, tok, p, sizeof *p);
	return 1;
}

static int flush_ack(struct eng_qp *qp)
{
	if (!qp->ack_pending)
		return 1;
	if (!send_ack(qp, ACK_OK, qp->ack_psn))
		return 0;
	qp->ack_pending = 0;
	return 1;
}

void eng_qp_flush_ack(struct eng_qp *qp)
{
	if (qp->ack_pending)
		flush_ack(qp);
}

int eng_flush_acks(void)
{
	int work = 0;
	for (struct eng_qp *qp = G.qps; qp; qp = qp->next)
		if (qp->ack_pending && flush_ack(qp))
			work = 1;
	/* The end of every engine pass's inbox drain is also where packets held back by fault injection (delayed,
	 * reordered) go out when due. */
	work |= eng_fault_pump();
	return work;
}

uint32_t eng_rq_avail(struct eng_qp *qp)
{
	if (qp->srq) {
		uint32_t c = __builtin_bswap32(__atomic_load_n(&qp->srq->dbrec[0], __ATOMIC_ACQUIRE));
		return (c - qp->srq->consumed) & 0xffff;
	}
	if (!qp->rq_cnt)
		return 0;
	uint32_t pi = __builtin_bswap32(__atomic_load_n(&qp->dbrec[0], __ATOMIC_ACQUIRE));
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
			s->s->async_events++;
			emu_unlock();
			eng_async_event(s->s->ctx, s->s->user_handle, IBV_EVENT_SRQ_LIMIT_REACHED);
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

static struct emu_pd *recv_pd(struct eng_qp *qp)
{
	return qp->srq && qp->srq->s ? qp->srq->s->pd : qp->pd;
}

static int rx_sges_ok(struct eng_qp *qp, struct eng_rx *rx)
{
	for (uint32_t i = 0; i < rx->nsge; i++)
		if (rx->sge[i].len && !eng_mr_check(rx->sge[i].lkey, recv_pd(qp), rx->sge[i].addr, rx->sge[i].len,
						    IBV_ACCESS_LOCAL_WRITE))
			return 0;
	return 1;
}

static void recv_cqe(struct eng_qp *qp, struct pkt *p, uint8_t opcode, uint32_t byte_cnt, const void *scat,
		     uint32_t scat_len)
{
	struct eng_cqe_info ci = { .opcode = opcode, .wqe_counter = (uint16_t)qp->rx.wqe_counter, .qpn = qp->qpn,
				   .srqn_uidx = qp->uidx, .byte_cnt = byte_cnt, .src_qpn = p->src_qpn,
				   .slid = p->slid, .sl = p->sl, .grh = (p->flags & PF_GRH) ? 1 : 0 };
	if (opcode == MLX5_CQE_RESP_SEND_IMM || opcode == MLX5_CQE_RESP_WR_IMM || opcode == MLX5_CQE_RESP_SEND_INV)
		ci.imm_inval_pkey = p->imm;
	if (scat && scat_len) {
		ci.inline_data = scat;
		ci.inline_len = scat_len;
	}
	eng_write_cqe(qp->rcq, &ci, (p->flags & PF_SOLICITED) != 0);
}

static uint8_t send_cqe_opcode(const struct pkt *p)
{
	if (p->flags & PF_IMM)
		return MLX5_CQE_RESP_SEND_IMM;
	if (p->flags & PF_INV)
		return MLX5_CQE_RESP_SEND_INV;
	return MLX5_CQE_RESP_SEND;
}

/* Responder-side fatal error: error CQE for the consumed receive (if any), NAK, QP to error. */
static void resp_fail(struct eng_qp *qp, struct pkt *p, uint8_t cqe_synd, uint32_t nak, int have_rwqe)
{
	if (have_rwqe)
		resp_err_cqe(qp, qp->rx.wqe_counter, cqe_synd, 0);
	qp->rx.active = 0;
	if (qp->type == EMU_QPT_RC) {
		flush_ack(qp);
		send_ack(qp, nak, p->psn);
	}
	eng_qp_set_error(qp);
}

static void ud_recv(struct eng_qp *qp, struct pkt *p)
{
	if (p->qkey != qp->qkey || !eng_rq_avail(qp)) {
		if (emu_log_enabled)
			emu_log("engine: UD QP 0x%06x drops a message (Q_Key 0x%x, QP's 0x%x, receive %s)", qp->qpn,
				p->qkey, qp->qkey, eng_rq_avail(qp) ? "posted" : "not posted");
		return; /* UD drops silently, as the fabric does */
	}
	struct eng_rx *rx = &qp->rx;
	eng_rq_take(qp, rx);
	if (!rx_sges_ok(qp, rx)) {
		resp_fail(qp, p, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, 0, 1);
		return;
	}
	uint64_t total = 40ull + p->len;
	if (total > rx->cap) {
		resp_fail(qp, p, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, 0, 1);
		return;
	}
	uint8_t grh[40];
	memset(grh, 0, sizeof grh);
	if (p->flags & PF_GRH) {
		/* IBA 8.3 GRH: IPVer 6, TClass, FlowLabel, PayLen, NxtHdr 0x1b (BTH), HopLmt, SGID, DGID. */
		eng_put_be32(grh, 6u << 28 | (uint32_t)p->tclass << 20 | (p->flow_label & 0xfffff));
		eng_put_be16(grh + 4, (uint16_t)(p->len + 8 + 12 + 4)); /* BTH + DETH + payload + ICRC */
		grh[6] = 0x1b;
		grh[7] = p->hop_limit;
		memcpy(grh + 8, p->sgid, 16);
		memcpy(grh + 24, p->dgid, 16);
	}
	int scat = qp->scat_res && qp->rcq && eng_cqe_scatter_fits(qp->rcq->size, (uint32_t)total);
	uint8_t buf[64];
	if (scat) {
		memcpy(buf, grh, 40);
		memcpy(buf + 40, p->data, p->len);
	} else {
		if (p->flags & PF_GRH)
			scatter(rx->sge, rx->nsge, 0, grh, 40);
		scatter(rx->sge, rx->nsge, 40, p->data, p->len);
	}
	recv_cqe(qp, p, send_cqe_opcode(p), (uint32_t)total, scat ? buf : NULL, scat ? (uint32_t)total : 0);
}

/* SEND packet on RC/UC with psn already checked. Returns 0 if blocked. */
static int send_recv(struct eng_qp *qp, struct pkt *p)
{
	struct eng_rx *rx = &qp->rx;
	if (p->flags & PF_FIRST) {
		if (rx->held) {
			/* UC: the receive WQE of a message abandoned after a loss receives this one instead */
			rx->held = 0;
			memset(rx, 0, offsetof(struct eng_rx, nsge));
		} else if (!eng_rq_avail(qp)) {
			if (qp->type == EMU_QPT_UC) {
				rx->active = 1;
				rx->drop = 1;
				goto done;
			}
			if (!flush_ack(qp) || !send_ack(qp, NAK_RNR, p->psn))
				return 0;
			return -1; /* RNR: psn not consumed */
		} else {
			memset(rx, 0, offsetof(struct eng_rx, sge));
			eng_rq_take(qp, rx);
		}
		rx->active = 1;
		rx->is_send = 1;
		if (!rx_sges_ok(qp, rx)) {
			resp_fail(qp, p, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, NAK_REM_OP, 1);
			return -1;
		}
		if (p->msg_len > rx->cap) {
			resp_fail(qp, p, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, NAK_REM_INV_REQ, 1);
			return -1;
		}
		rx->msg_len = p->msg_len;
		rx->scat = qp->scat_res && qp->rcq && p->msg_len && eng_cqe_scatter_fits(qp->rcq->size, p->msg_len);
	} else if (!rx->active || !rx->is_send) {
		return 1; /* middle of a message we never saw the start of */
	}
	if (rx->drop)
		goto done;
	if ((uint64_t)p->offset + p->len > rx->cap) {
		resp_fail(qp, p, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, NAK_REM_INV_REQ, 1);
		return -1;
	}
	if (rx->scat)
		memcpy(rx->scat_buf + p->offset, p->data, p->len);
	else
		scatter(rx->sge, rx->nsge, p->offset, p->data, p->len);
	if (p->flags & PF_LAST) {
		recv_cqe(qp, p, send_cqe_opcode(p), p->msg_len, rx->scat ? rx->scat_buf : NULL,
			 rx->scat ? p->msg_len : 0);
		rx->active = 0;
	}
done:
	if (p->flags & PF_LAST)
		rx->active = rx->drop = 0;
	return 1;
}

static int write_recv(struct eng_qp *qp, struct pkt *p)
{
	struct eng_rx *rx = &qp->rx;
	if (p->flags & PF_FIRST) {
		memset(rx, 0, offsetof(struct eng_rx, sge));
		if ((p->flags & PF_IMM) && !eng_rq_avail(qp)) {
			if (qp->type == EMU_QPT_UC) {
				rx->active = rx->drop = 1;
				goto done;
			}
			if (!flush_ack(qp) || !send_ack(qp, NAK_RNR, p->psn))
				return 0;
			return -1;
		}
		if (p->msg_len && (!(qp->access & IBV_ACCESS_REMOTE_WRITE) ||
				   !eng_mr_check(p->rkey, qp->pd, p->raddr, p->msg_len, IBV_ACCESS_REMOTE_WRITE))) {
			if (qp->type == EMU_QPT_UC) {
				rx->active = rx->drop = 1;
				goto done;
			}
			resp_fail(qp, p, 0, NAK_REM_ACCESS, 0);
			return -1;
		}
		rx->active = 1;
		rx->waddr = p->raddr;
		rx->msg_len = p->msg_len;
	} else if (!rx->active || rx->is_send) {
		return 1;
	}
	if (rx->drop)
		goto done;
	if (p->len)
		memcpy((uint8_t *)(uintptr_t)(rx->waddr + p->offset), p->data, p->len);
	if ((p->flags & PF_LAST) && (p->flags & PF_IMM)) {
		if (!eng_rq_avail(qp)) { /* receive vanished between first and last packet: drop for UC */
			rx->active = 0;
			return 1;
		}
		eng_rq_take(qp, rx);
		recv_cqe(qp, p, MLX5_CQE_RESP_WR_IMM, p->msg_len, NULL, 0);
	}
done:
	if (p->flags & PF_LAST)
		rx->active = rx->drop = 0;
	return 1;
}

static uint64_t atomic_op(struct pkt *p, uint8_t *addr)
{
	/*
	 * Byte order of the responder's memory word. The Linux mlx5 core driver switches every HCA that supports it
	 * (ConnectX-4 and later) to host-endian 8-byte atomics (main.c handle_hca_cap_atomic() sets
	 * atomic_req_8B_endianness_mode = MLX5_ATOMIC_REQ_MODE_HOST_ENDIANNESS), and only then does mlx5_ib report
	 * IBV_ATOMIC_HCA. So every 8-byte atomic, masked ones included, reads and writes the word in host order and the
	 * old value reaches the requester's buffer in host order. 4-byte (masked) atomics stay big-endian: the mode
	 * names 8-byte requests only (UCX's DEVX query marks 4-byte extended atomics as big-endian replies whatever
	 * the mode, 8-byte ones as big-endian only when the mode is 0). The operands from the WQE are host values.
	 * The value returned is the word's bytes as they were, which is what the requester's HCA writes back.
	 */
	if (p->atomic_size == 4) {
		uint32_t *a = (uint32_t *)(void *)addr;
		uint32_t oldraw = __atomic_load_n(a, __ATOMIC_ACQUIRE), newraw;
		do {
			uint32_t old = __builtin_bswap32(oldraw), nv;
			uint32_t sw = (uint32_t)p->swap_add, cmp = (uint32_t)p->compare;
			uint32_t swm = (uint32_t)p->swap_mask, cmpm = (uint32_t)p->compare_mask;
			if (p->opcode == MLX5_OPCODE_ATOMIC_MASKED_CS)
				nv = ((old & cmpm) == (cmp & cmpm)) ? ((old & ~swm) | (sw & swm)) : old;
			else { /* masked FA: carries stop at set boundary bits */
				nv = 0;
				uint32_t carry = 0;
				for (int b = 0; b < 32; b++) {
					uint32_t s = ((old >> b) & 1) + ((sw >> b) & 1) + carry;
					nv |= (s & 1) << b;
					carry = (cmp >> b) & 1 ? 0 : s >> 1;
				}
			}
			newraw = __builtin_bswap32(nv);
		} while (!__atomic_compare_exchange_n(a, &oldraw, newraw, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
		return oldraw;
	}
	uint64_t *a = (uint64_t *)(void *)addr;
	uint64_t oldraw = __atomic_load_n(a, __ATOMIC_ACQUIRE), newraw;
	do {
		uint64_t old = oldraw, nv; /* host order: the word as the CPU reads it */
		switch (p->opcode) {
		case MLX5_OPCODE_ATOMIC_CS:
			nv = old == p->compare ? p->swap_add : old;
			break;
		case MLX5_OPCODE_ATOMIC_FA:
			nv = old + p->swap_add;
			break;
		case MLX5_OPCODE_ATOMIC_MASKED_CS:
			nv = ((old & p->compare_mask) == (p->compare & p->compare_mask))
				     ? ((old & ~p->swap_mask) | (p->swap_add & p->swap_mask)) : old;
			break;
		default: { /* masked FA */
			nv = 0;
			uint64_t carry = 0;
			for (int b = 0; b < 64; b++) {
				uint64_t s = ((old >> b) & 1) + ((p->swap_add >> b) & 1) + carry;
				nv |= (s & 1) << b;
				carry = (p->compare >> b) & 1 ? 0 : s >> 1;
			}
		}
		}
		newraw = nv;
	} while (!__atomic_compare_exchange_n(a, &oldraw, newraw, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	return oldraw;
}

static int send_atomic_resp(struct eng_qp *qp, struct pkt *req, uint64_t raw, int execute)
{
	struct eng_inbox *peer = qp_peer(qp);
	uint64_t tok = 0;
	struct pkt *r = NULL;
	if (peer) {
		r = eng_ring_reserve(&peer->resp, sizeof *r + 8, &tok);
		if (!r)
			return 0;
	}
	if (execute) {
		raw = atomic_op(req, (uint8_t *)(uintptr_t)req->raddr);
		struct eng_atomic_hist *h = &qp->atomic_hist[qp->atomic_hist_n++ % ENG_ATOMIC_HIST];
		h->psn = req->psn;
		h->raw = raw;
	}
	if (r) {
		memset(r, 0, sizeof *r);
		r->type = PKT_ATOMIC_RESP;
		r->flags = PF_FIRST | PF_LAST;
		r->dst_qpn = qp->dest_qpn;
		r->src_qpn = qp->qpn;
		r->psn = req->psn;
		r->len = r->msg_len = req->atomic_size;
		memcpy(r->data, &raw, req->atomic_size); /* the word's bytes as they were */
		eng_tap_tx(qp, r, NULL);
		eng_xmit(qp, peer, &peer->resp, tok, r, sizeof *r + 8);
	}
	return 1;
}

static int send_read_resp(struct eng_qp *qp, struct pkt *req)
{
	struct eng_inbox *peer = qp_peer(qp);
	uint32_t total = req->msg_len;
	do {
		uint32_t chunk = total - qp->read_off;
		if (chunk > ENG_CHUNK)
			chunk = ENG_CHUNK;
		if (peer) {
			uint64_t tok;
			struct pkt *r = eng_ring_reserve(&peer->resp, sizeof *r + chunk, &tok);
			if (!r)
				return 0;
			memset(r, 0, sizeof *r);
			r->type = PKT_READ_RESP;
			r->dst_qpn = qp->dest_qpn;
			r->src_qpn = qp->qpn;
			r->psn = (req->psn + qp->read_off / ENG_CHUNK) & ENG_PSN_MASK; /* one PSN per response packet */
			r->msg_len = total;
			r->len = chunk;
			r->offset = qp->read_off;
			if (qp->read_off + chunk == total)
				r->flags |= PF_LAST;
			if (chunk)
				memcpy(r->data, (const uint8_t *)(uintptr_t)(req->raddr + qp->read_off), chunk);
			eng_tap_tx(qp, r, NULL);
			eng_xmit(qp, peer, &peer->resp, tok, r, sizeof *r + chunk);
		}
		qp->read_off += chunk;
	} while (qp->read_off < total);
	qp->read_off = 0;
	return 1;
}

/* A READ request's rkey, bounds and the QP's remote read permission (checked again for a duplicate, which is
 * executed again: its MR may be gone by then). */
static int read_allowed(struct eng_qp *qp, const struct pkt *p)
{
	return !p->msg_len || ((qp->access & IBV_ACCESS_REMOTE_READ) &&
			       eng_mr_check(p->rkey, qp->pd, p->raddr, p->msg_len, IBV_ACCESS_REMOTE_READ));
}

static int rc_recv(struct eng_qp *qp, struct pkt *p)
{
	int32_t d = psn_diff(p->psn, qp->epsn);
	if (d > 0) {
		/* A packet before this one was lost. IBA ch. 9.7.5: one NAK-PSN sequence error carrying the expected
		 * PSN, then silence until that PSN arrives (also after an RNR NAK: the requester resends from it). */
		if (emu_log_enabled)
			emu_log("engine: QP 0x%06x drops PSN 0x%06x, expects 0x%06x%s", qp->qpn, p->psn, qp->epsn,
				qp->nak_sent ? "" : ": NAK sequence error");
		if (!qp->nak_sent) {
			if (!flush_ack(qp) || !send_ack(qp, NAK_PSN_SEQ, qp->epsn))
				return 0;
			qp->nak_sent = 1;
		}
		return 1;
	}
	if (d < 0 && emu_log_enabled)
		emu_log("engine: QP 0x%06x duplicate PSN 0x%06x (expects 0x%06x)", qp->qpn, p->psn, qp->epsn);
	if (d < 0) {  /* duplicate: answer again, never execute twice */
		if (p->type == PKT_READ_REQ) {
			/* IBA ch. 9.7.5: a duplicate READ is executed again (memory may have changed since) */
			if (!read_allowed(qp, p)) {
				resp_fail(qp, p, 0, NAK_REM_ACCESS, 0);
				return 1;
			}
			if (!flush_ack(qp))
				return 0;
			return send_read_resp(qp, p);
		}
		if (p->type == PKT_ATOMIC_REQ) {
			/* IBA ch. 9.7.5: a duplicate atomic is answered from the saved result of the first execution,
			 * kept for as many requests as the responder has resources (max_dest_rd_atomic) */
			uint32_t keep = qp->rd_atomic_res < ENG_ATOMIC_HIST ? qp->rd_atomic_res : ENG_ATOMIC_HIST;
			uint32_t n = qp->atomic_hist_n < keep ? qp->atomic_hist_n : keep;
			for (uint32_t i = 0; i < n; i++) {
				const struct eng_atomic_hist *h = &qp->atomic_hist[(qp->atomic_hist_n - 1 - i) % ENG_ATOMIC_HIST];
				if (h->psn == p->psn)
					return send_atomic_resp(qp, p, h->raw, 0);
			}
			if (emu_log_enabled)
				emu_log("engine: QP 0x%06x duplicate atomic PSN 0x%06x older than its %u saved results",
					qp->qpn, p->psn, (unsigned)keep);
			return 1;
		}
		qp->ack_pending = 1;
		qp->ack_psn = (qp->epsn - 1) & ENG_PSN_MASK;
		return 1;
	}
	int r;
	switch (p->type) {
	case PKT_SEND:
		r = send_recv(qp, p);
		break;
	case PKT_WRITE:
		r = write_recv(qp, p);
		break;
	case PKT_READ_REQ:
		if (qp->read_off == 0 && !read_allowed(qp, p)) {
			resp_fail(qp, p, 0, NAK_REM_ACCESS, 0);
			return 1;
		}
		if (!flush_ack(qp))
			return 0;
		if (!send_read_resp(qp, p))
			return 0;
		qp->epsn = (qp->epsn + read_psns(p->msg_len)) & ENG_PSN_MASK;
		qp->nak_sent = 0;
		return 1;
	case PKT_ATOMIC_REQ:
		if (!(qp->access & IBV_ACCESS_REMOTE_ATOMIC) || (p->raddr & (p->atomic_size - 1)) ||
		    !eng_mr_check(p->rkey, qp->pd, p->raddr, p->atomic_size, IBV_ACCESS_REMOTE_ATOMIC)) {
			resp_fail(qp, p, 0, NAK_REM_ACCESS, 0);
			return 1;
		}
		if (!flush_ack(qp))
			return 0;
		if (!send_atomic_resp(qp, p, 0, 1))
			return 0;
		qp->epsn = (qp->epsn + 1) & ENG_PSN_MASK;
		qp->nak_sent = 0;
		return 1;
	default:
		return 1;
	}
	if (r == 0)
		return 0;
	if (r > 0) {
		qp->epsn = (qp->epsn + 1) & ENG_PSN_MASK;
		qp->ack_pending = 1;
		qp->ack_psn = p->psn;
		qp->nak_sent = 0;
	} else {
		qp->nak_sent = 1; /* RNR NAK (or a fatal NAK): the packets behind this one are dropped silently */
	}
	return 1;
}

/*
 * UC responder (IBA ch. 9.8: UC checks PSNs but never answers). A packet with the expected PSN continues the
 * message. Any other PSN means packets were lost (or this one is a duplicate or came late): a first (or only)
 * packet of a message starts that message afresh whatever its PSN (as rxe's check_psn does for UC, so a peer whose
 * sq_psn does not match our rq_psn still gets through), a later packet is dropped along with the rest of its
 * message, and an old one (a duplicate) is just dropped.
 * A SEND abandoned halfway completes nothing; its receive WQE takes the next message, as on hardware, which
 * never un-posts a receive. RDMA WRITE data that landed before the loss stays in memory.
 */
static int uc_recv(struct eng_qp *qp, struct pkt *p)
{
	int32_t d = psn_diff(p->psn, qp->epsn);
	if (d < 0 && !(p->flags & PF_FIRST))
		return 1; /* a duplicate or a late packet of something already received or abandoned */
	struct eng_rx *rx = &qp->rx;
	if (d != 0 || qp->uc_drop) {
		if (rx->active && !rx->drop && rx->is_send) {
			rx->held = 1; /* keep the receive for the next message */
			if (emu_log_enabled)
				emu_log("engine: UC QP 0x%06x abandons a message after a lost packet (PSN 0x%06x, expected 0x%06x)",
					qp->qpn, p->psn, qp->epsn);
		}
		rx->active = rx->drop = 0;
		qp->epsn = p->psn;
		if (!(p->flags & PF_FIRST)) {
			qp->uc_drop = 1;
			qp->epsn = (p->psn + 1) & ENG_PSN_MASK;
			return 1;
		}
		qp->uc_drop = 0;
	}
	int r = p->type == PKT_SEND ? send_recv(qp, p) : p->type == PKT_WRITE ? write_recv(qp, p) : 1;
	if (r == 0)
		return 0;
	qp->epsn = (p->psn + 1) & ENG_PSN_MASK;
	return 1;
}

int eng_handle_req(struct pkt *p)
{
	if (p->type == PKT_ETH)
		return eng_eth_rx(p);
	struct eng_qp *qp = eng_find_qp(p->dst_qpn);
	if (!qp || qp->type != p->qp_type || (qp->state != EMU_QPS_RTR && qp->state != EMU_QPS_RTS)) {
		if (emu_log_enabled)
			emu_log("engine: packet type %d PSN 0x%06x for QP 0x%06x dropped (state %d)", p->type, p->psn,
				p->dst_qpn, qp ? qp->state : -1);
		return 1; /* nobody listening: the packet is lost, as on a wire */
	}
	switch (qp->type) {
	case EMU_QPT_UD:
		if (p->type == PKT_SEND)
			ud_recv(qp, p);
		return 1;
	case EMU_QPT_UC:
		return uc_recv(qp, p);
	default:
		return rc_recv(qp, p);
	}
}
