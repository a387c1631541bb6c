/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_resp.c - the responder: consumes receive WQEs, checks keys, writes memory, executes READs and atomics,
 * ACKs (layer 4 of src/engine/LAYERS).
 */
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "emu_clock.h"
#include "emu_counters.h"
#include "engine/eng_internal.h"
#include "engine/eng_pcap.h"
#include "engine/eng_roce.h"
#include "engine/eng_xport.h"
#include "eth_knobs.h"

/* ---------------- responder ---------------- */

static int send_ack(struct eng_qp *qp, uint32_t syndrome, uint32_t psn)
{
	struct eng_inbox *peer = eng_qp_peer(qp);
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
	p->xrc = qp->xrc == EMU_QPT_XRC_TGT;
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
	qp->ack_count = 0;
	qp->ack_now = 0;
	qp->ack_since = 0;
	return 1;
}

/*
 * ACK coalescing. An ACK for PSN n acknowledges every packet up to n, so a responder may answer a run of packets
 * with one (the IB spec lets it; ConnectX does). A pending ACK goes out at the end of the engine pass when a packet
 * asked for it (PF_ACKREQ: the requester waits on it for a completion, or its window is filling), when it covers
 * ENG_ACK_COALESCE packets, when it is ENG_ACK_DELAY_NS old, before a NAK or a response (flush_ack), and always
 * before the engine thread sleeps or a lent pass returns (force). Why: a spinning responder engine took each
 * packet of ib_write_bw -s 8 in its own pass and answered each with a ring record that the requester's thread had
 * to take, one cross-core transfer each way per message (perf).
 */
#define ENG_ACK_COALESCE 16u
#define ENG_ACK_DELAY_NS 5000ull

static _Atomic int acks_held;

int eng_acks_held(void)
{
	return atomic_load_explicit(&acks_held, memory_order_relaxed);
}

static void ack_pending_for(struct eng_qp *qp, uint32_t psn, int now)
{
	if (!qp->ack_pending)
		qp->ack_since = eng_pass_ns();
	qp->ack_pending = 1;
	eng_qp_list_add(&G.acking, qp, &qp->ack_link);
	qp->ack_psn = psn;
	qp->ack_count++;
	qp->ack_now |= now;
}

void eng_qp_flush_ack(struct eng_qp *qp)
{
	if (qp->ack_pending)
		flush_ack(qp);
}

int eng_flush_acks(int force)
{
	int work = 0, held = 0;
	uint64_t now = eng_pass_ns();
	/* only the QPs with an ACK pending, not every QP of the process (perf: this walk was half of the engine's time
	 * with 1,024 QPs); one whose ACK went out elsewhere (flush_ack before a NAK, a reset) leaves here */
	for (struct eng_qp *qp = G.acking.head, *next; qp; qp = next) {
		next = qp->ack_link.next;
		G.pass_visits++;
		if (!qp->ack_pending) {
			eng_qp_list_del(&G.acking, qp, &qp->ack_link);
			continue;
		}
		if (!force && !qp->ack_now && qp->ack_count < ENG_ACK_COALESCE && now - qp->ack_since < ENG_ACK_DELAY_NS) {
			held = 1;
			continue;
		}
		if (flush_ack(qp)) {
			work = 1;
			eng_qp_list_del(&G.acking, qp, &qp->ack_link);
		} else {
			held = 1;
		}
	}
	atomic_store_explicit(&acks_held, held, memory_order_relaxed);
	/* The end of every engine pass's inbox drain is also where packets held back by fault injection (delayed,
	 * reordered) go out when due. */
	work |= eng_fault_pump();
	return work;
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
	/* On an Ethernet port the CQE's SL bits carry the packet's network header type instead (mlx5_ib cq.c
	 * handle_responder reads roce_packet_type from flags_rqpn bits 25:24: MLX5_CQE_L3_HDR_TYPE_NONE for a RoCE v1
	 * GRH, _IPV6, _IPV4); libmlx5 v44 reports bits 27:24 as ibv_wc.sl on every link. */
	uint8_t sl = p->eth.valid ? eng_roce_l3_type(p) : p->sl;
	struct eng_cqe_info ci = { .opcode = opcode, .wqe_counter = (uint16_t)qp->rx.wqe_counter, .qpn = qp->qpn,
				   .srqn_uidx = qp->uidx, .byte_cnt = byte_cnt, .src_qpn = p->src_qpn,
				   .slid = p->slid, .sl = sl, .grh = (p->flags & PF_GRH) ? 1 : 0 };
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

/* Responder-side fatal error: error CQE for the consumed receive (if any), NAK, QP to error. An error with no
 * receive WQE to complete (RDMA WRITE, READ, atomic) cannot be reported in a CQE: the responder's owner learns of it
 * through an affiliated asynchronous error (IBA 11.6.3.1), IBV_EVENT_QP_ACCESS_ERR for an R_Key, bounds, permission
 * or alignment violation and IBV_EVENT_QP_REQ_ERR for an invalid request, as NVIDIA's verbs manual (Events) lists
 * them for ConnectX; mlx5_ib maps the device's WQ_ACCESS_ERROR and WQ_INVAL_REQ_ERROR events to these
 * (drivers/infiniband/hw/mlx5/qp.c, mlx5_ib_qp_event). */
static void resp_fail(struct eng_qp *qp, struct pkt *p, uint8_t cqe_synd, uint32_t nak, int have_rwqe)
{
	if (have_rwqe)
		eng_resp_err_cqe(qp, qp->rx.wqe_counter, cqe_synd, 0);
	qp->rx.active = 0;
	if (qp->type == EMU_QPT_RC) {
		flush_ack(qp);
		send_ack(qp, nak, p->psn);
	}
	if (qp->dc_type == EMU_DC_DCT)
		return; /* a DCT serves its other DCIs on: the NAK fails only the requester's WQE (eng_dc.c) */
	int was_err = qp->state == EMU_QPS_ERR;
	eng_qp_set_error(qp);
	if (!have_rwqe && qp->type == EMU_QPT_RC && !was_err)
		eng_qp_event(qp, nak == NAK_REM_ACCESS ? IBV_EVENT_QP_ACCESS_ERR : IBV_EVENT_QP_REQ_ERR);
}

void eng_resp_fail_norwqe(struct eng_qp *qp, struct pkt *p, uint32_t nak)
{
	resp_fail(qp, p, 0, nak, 0);
}

static int qp_dev(const struct eng_qp *qp)
{
	return qp->q && qp->q->ctx ? qp->q->ctx->dev_index : 0;
}

static void ud_recv(struct eng_qp *qp, struct pkt *p)
{
	if (p->qkey == qp->qkey && !eng_rq_avail(qp))
		emu_port_counter_add(qp_dev(qp), EMU_CNT_OUT_OF_BUFFER, 1); /* a UD message found no receive WQE */
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
	/* PayLen: BTH 12 + DETH 8 + ImmDt 4 (SEND_WITH_IMM) + payload + pad to 4 bytes + ICRC 4 (IBA 8.3.1) */
	uint32_t ib_len = 12 + 8 + ((p->flags & PF_IMM) ? 4 : 0) + ((p->len + 3) & ~3u) + 4;
	if (p->eth.valid) {
		/* RoCE: the network header as the port received it: the GRH (v1) or IPv6 header (v2) in all 40 bytes,
		 * or the IPv4 header (v2 between IPv4-mapped GIDs) in the last 20, which is where libibverbs'
		 * ibv_init_ah_from_wc (get_grh_header_version) and the kernel's ib_get_rdma_header_version look for it;
		 * the first 20 bytes are left zero */
		uint8_t l3[40];
		size_t n = eng_roce_l3(p, ib_len, l3);
		memcpy(grh + 40 - n, l3, n);
	} else if (p->flags & PF_GRH) {
		/* IBA 8.3 GRH: IPVer 6, TClass, FlowLabel, PayLen, NxtHdr 0x1b (BTH), HopLmt, SGID, DGID. */
		eng_put_be32(grh, 6u << 28 | (uint32_t)p->tclass << 20 | (p->flow_label & 0xfffff));
		eng_put_be16(grh + 4, (uint16_t)ib_len);
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
		if (p->flags & PF_GRH || p->eth.valid)
			eng_scatter(rx->sge, rx->nsge, 0, grh, 40);
		eng_scatter(rx->sge, rx->nsge, 40, p->data, p->len);
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
		eng_scatter(rx->sge, rx->nsge, p->offset, p->data, p->len);
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
		if (p->msg_len && !(p->flags & PF_PLACED) && (!(qp->access & IBV_ACCESS_REMOTE_WRITE) ||
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
	if (p->len && !(p->flags & PF_PLACED)) /* placed: the requester checked the key and wrote it (eng_direct.c) */
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
	 *
	 * A compare-and-swap loop on the word in the responder's memory: an atomic, not a barrier, so that the host's
	 * own atomics on the same word and the HCA's add up (test/engine/t_atomic_order.c). acq_rel, as a host CPU's
	 * atomic would be: a thread that sees the new value also sees the RDMA WRITEs this engine placed before it,
	 * and the stores behind the value it replaced are visible to the READs the engine executes after it.
	 */
	if (p->atomic_size == 4) {
		uint32_t *a = (uint32_t *)(void *)addr;
		uint32_t oldraw = __atomic_load_n(a, __ATOMIC_ACQUIRE), newraw; /* the loop's first guess */
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
	uint64_t oldraw = __atomic_load_n(a, __ATOMIC_ACQUIRE), newraw; /* the same loop on 8 bytes */
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
	struct eng_inbox *peer = eng_qp_peer(qp);
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
		r->xrc = qp->xrc == EMU_QPT_XRC_TGT;
		r->len = r->msg_len = req->atomic_size;
		memcpy(r->data, &raw, req->atomic_size); /* the word's bytes as they were */
		eng_tap_tx(qp, r, NULL);
		eng_xmit(qp, peer, &peer->resp, tok, r, sizeof *r + 8);
	}
	return 1;
}

static int send_read_resp(struct eng_qp *qp, struct pkt *req)
{
	struct eng_inbox *peer = eng_qp_peer(qp);
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
			r->xrc = qp->xrc == EMU_QPT_XRC_TGT;
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

int eng_rc_recv(struct eng_qp *qp, struct pkt *p)
{
	int32_t d = eng_psn_diff(p->psn, qp->epsn);
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
		ack_pending_for(qp, (qp->epsn - 1) & ENG_PSN_MASK, 1); /* a duplicate: its requester is retrying */
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
		emu_port_counter_add(qp_dev(qp), EMU_CNT_RX_READ_REQUESTS, 1); /* the whole response is out */
		qp->epsn = (qp->epsn + eng_read_psns(p->msg_len)) & ENG_PSN_MASK;
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
		emu_port_counter_add(qp_dev(qp), EMU_CNT_RX_ATOMIC_REQUESTS, 1);
		qp->epsn = (qp->epsn + 1) & ENG_PSN_MASK;
		qp->nak_sent = 0;
		return 1;
	default:
		return 1;
	}
	if (r == 0)
		return 0;
	if (r > 0 && p->type == PKT_WRITE && (p->flags & PF_FIRST)) /* one per WRITE message, executed */
		emu_port_counter_add(qp_dev(qp), EMU_CNT_RX_WRITE_REQUESTS, 1);
	if (r > 0) {
		qp->epsn = (qp->epsn + 1) & ENG_PSN_MASK;
		if (!(p->flags & PF_PLACED)) /* a placed WRITE's requester took the placement as its ACK */
			ack_pending_for(qp, p->psn, (p->flags & PF_ACKREQ) != 0);
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
	int32_t d = eng_psn_diff(p->psn, qp->epsn);
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
	if (r > 0 && p->type == PKT_WRITE && (p->flags & PF_FIRST))
		emu_port_counter_add(qp_dev(qp), EMU_CNT_RX_WRITE_REQUESTS, 1);
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
	if (p->dc || qp->dc_type)
		return eng_dct_recv(qp, p);
	switch (qp->type) {
	case EMU_QPT_UD:
		if (p->type == PKT_SEND)
			ud_recv(qp, p);
		return 1;
	case EMU_QPT_UC:
		return uc_recv(qp, p);
	default:
		qp->placed_unanswered = 0; /* the peer answers: its next placement is wanted again (eng_direct.c) */
		/* An XRC TGT QP serves the SRQ the request names. One that another process of its domain has is served
		 * by that process's engine, and what comes behind waits for its verdict (eng_xrcfwd.c); one no process
		 * has in its domain is a protection error like a bad R_Key: NAK, QP to error, IBV_EVENT_QP_ACCESS_ERR
		 * (eng_xrc.c). A packet out of sequence keeps the previous SRQ and gets rc_recv's answer, but a
		 * duplicate READ or atomic goes where its SRQ is, to be executed again or answered from the saved
		 * result there. */
		if (qp->xrc == EMU_QPT_XRC_TGT) {
			if (eng_xrc_wait(qp))
				return 0;
			if (!eng_xrc_tgt_bind(qp, p)) {
				int32_t d = eng_psn_diff(p->psn, qp->epsn);
				if (d == 0 || (d < 0 && (p->type == PKT_READ_REQ || p->type == PKT_ATOMIC_REQ))) {
					int r = eng_xrc_forward(qp, p);
					if (r >= 0)
						return r;
					if (d == 0) {
						resp_fail(qp, p, 0, NAK_REM_ACCESS, 0);
						return 1;
					}
				}
			}
		}
		return eng_rc_recv(qp, p);
	}
}
