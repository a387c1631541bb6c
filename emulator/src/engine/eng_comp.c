/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_comp.c - the completer: ACKs, NAKs, READ and atomic responses for the requester's packets in flight
 * (layer 5 of src/engine/LAYERS).
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

/* IB spec min_rnr_timer encoding (table 45 "RNR NAK timer field") in microseconds. */
static const uint32_t rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520
};

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
		if (eng_psn_diff(e->psn_last, psn) > 0)
			break;
		if (eng_is_rd_atomic(e->opcode)) {
			if (!implied)
				continue;
			if (progress)
				made_progress(qp, now);
			eng_nak_rewind(qp, i, e->rd_next, now);
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
		if (!e->done && e->opcode != MLX5_OPCODE_NOP && eng_psn_diff(psn, e->psn_first) >= 0 &&
		    eng_psn_diff(e->psn_last, psn) >= 0) {
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
	if (!n || eng_wqe_parse(buf, n, eng_dc_wqe_type(qp), &w) != ENG_WQE_OK)
		return 0;
	if (!eng_check_sges(qp, w.sge, w.nsge, IBV_ACCESS_LOCAL_WRITE))
		return 0;
	eng_scatter(w.sge, w.nsge, off, data, len);
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
	uint64_t now = eng_pass_ns();
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
				eng_nak_rewind(qp, slot, p->psn, now);
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
			eng_rewind_to(qp, slot);
			qp->rnr_until = now + (uint64_t)rnr_us[p->rnr_timer & 31] * 1000;
			eng_qp_mark_busy(qp);
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
		if (!e || !eng_is_rd_atomic(e->opcode) || (p->type == PKT_ATOMIC_RESP) != (e->opcode != MLX5_OPCODE_RDMA_READ))
			return; /* duplicate of something already complete */
		int32_t d = eng_psn_diff(p->psn, e->rd_next);
		if (d < 0)
			return; /* a duplicate response (the request was retransmitted) */
		if (!ack_upto(qp, (e->psn_first - 1) & ENG_PSN_MASK, now, 1))
			return;
		if (d > 0) { /* a response packet before this one was lost: ask again (go back N) */
			eng_nak_rewind(qp, slot, e->rd_next, now);
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
