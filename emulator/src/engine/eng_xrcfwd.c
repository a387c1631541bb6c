/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_xrcfwd.c - XRC across processes: a TGT QP's request for an XRC SRQ that another process of its domain has
 * (layer 4 of src/engine/LAYERS).
 *
 * On Linux an XRC domain opened through one file by several processes is one domain of the device: the TGT QP of
 * any of them receives into the XRC SRQ the request's XRCETH names, whoever created it, and completes on that SRQ's
 * CQ (a ConnectX finds the SRQ by number in its own tables). Here each engine touches only its own process's memory
 * (SRQ rings, receive buffers, MRs, CQs), so the engine of the TGT QP's process (the owner) hands such a request to
 * the engine of the SRQ's process (the server), found in the fabric-wide XRC SRQ directory (emu_xrc_srq_owner):
 *  - the owner keeps the transport state that is the TGT QP's alone (expected PSN, sequence NAKs, duplicates of
 *    SENDs and WRITEs), sends its pending ACK first, and puts the request, with the TGT QP's responder attributes
 *    and expected PSN (struct eng_xfwd), into the server's RESP ring (a delegate). Until the verdict comes back the
 *    TGT QP takes nothing more: requests behind it stay in the owner's REQ ring, so messages keep their order;
 *  - the server runs the RC responder (eng_rc_recv) on its stand-in for that TGT QP (eng_xrc_proxy), bound to its
 *    SRQ: it takes the receive WQE, checks keys against the SRQ's PD, writes its memory and the CQE with the TGT
 *    QP's number, and answers the requester itself (ACK, NAK, READ or atomic response, with the TGT QP's number as
 *    source); then it puts the verdict (the new expected PSN, whether the QP failed and with which event) into the
 *    owner's RESP ring, after its ACK went out so that ACKs reach the requester in PSN order;
 *  - the owner takes the verdict: the expected PSN moves on, or the TGT QP goes to error and raises the event its
 *    owner's process gets on Linux too (the TGT QP's events go to the processes that hold it).
 * Both travel in RESP rings, which a REQ ring waiting for a verdict never blocks: two owners that serve each
 * other's SRQs (ibv_xsrq_pingpong's clients) cannot deadlock. The server answers as soon as it reserved room for
 * the verdict; a delegate that cannot be served yet (the requester's RESP ring full) stays at the head of the RESP
 * ring. A stand-in keeps what spans requests of one message or is replayed: the receive in progress, a READ
 * response half sent, the saved atomic results. A server that dies leaves the owner to drop the wait; the
 * requester's retry then finds no SRQ and gets the remote access NAK.
 */
#include <stddef.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "engine/eng_internal.h"
#include "engine/eng_xport.h"

/* After the packet's data, 8-byte aligned, in delegates and verdicts */
struct eng_xfwd {
	uint32_t seq;            /* the owner's count of delegates of this TGT QP: a verdict answers one */
	uint32_t epsn;           /* delegate: the TGT QP's expected PSN; verdict: the new one */
	uint32_t dest_qpn, access, xrcdn, rd_atomic_res, mtu;
	uint8_t  min_rnr_timer, scat_res, nak_sent;
	uint8_t  err;            /* verdict: the TGT QP is to go to error */
	uint32_t event;          /* verdict: the affiliated event it raises then (0: none) */
	struct emu_path path;
};

static size_t xfwd_off(uint32_t len)
{
	return (sizeof(struct pkt) + len + 7u) & ~(size_t)7u;
}

static struct eng_xfwd *xfwd_of(struct pkt *p)
{
	return (struct eng_xfwd *)((uint8_t *)p + xfwd_off(p->len));
}

int eng_xrc_wait(struct eng_qp *qp)
{
	if (!qp->xfwd_pending)
		return 0;
	int32_t pid;
	int slot;
	/* The server died, or (checked after a grace period, as it takes the directory's lock) no longer has the SRQ
	 * (it closed the context, whose inbox took the delegate with it): the verdict never comes, and the requester's
	 * retry gets the NAK of an SRQ nobody has. A server that is only slow or stopped is waited for. */
	if (eng_pid_gone(qp->xfwd_pid) ||
	    (eng_pass_ns() - qp->xfwd_since > ENG_STALL_GRACE_NS &&
	     (!emu_xrc_srq_owner(qp->xfwd_srqn, qp->xrcdn, &pid, &slot) || pid != qp->xfwd_pid))) {
		if (emu_log_enabled)
			emu_log("engine: XRC TGT QP 0x%06x: process %d no longer serves SRQ 0x%06x", qp->qpn, qp->xfwd_pid,
				qp->xfwd_srqn);
		qp->xfwd_pending = 0;
		return 0;
	}
	return 1;
}

int eng_xrc_forward(struct eng_qp *qp, struct pkt *p)
{
	int32_t pid;
	int slot;
	if (!emu_xrc_srq_owner(p->xrc_srqn, qp->xrcdn, &pid, &slot) || pid == G.pid)
		return -1;
	struct eng_inbox *ib = eng_pid_inbox(pid, slot);
	if (!ib)
		return -1;
	eng_qp_flush_ack(qp); /* ACKs reach the requester in PSN order */
	size_t off = xfwd_off(p->len);
	uint64_t tok;
	struct pkt *d = eng_ring_reserve(&ib->resp, off + sizeof(struct eng_xfwd), &tok);
	if (!d)
		return 0;
	memcpy(d, p, sizeof *p + p->len);
	d->xfwd = ENG_XFWD_DELEGATE;
	struct eng_xfwd *f = (struct eng_xfwd *)((uint8_t *)d + off);
	memset(f, 0, sizeof *f);
	f->seq = ++qp->xfwd_seq;
	f->epsn = qp->epsn;
	f->dest_qpn = qp->dest_qpn;
	f->access = qp->access;
	f->xrcdn = qp->xrcdn;
	f->rd_atomic_res = qp->rd_atomic_res;
	f->mtu = qp->mtu;
	f->min_rnr_timer = qp->min_rnr_timer;
	f->scat_res = (uint8_t)qp->scat_res;
	f->nak_sent = (uint8_t)qp->nak_sent;
	f->path = qp->path;
	eng_ring_commit(&ib->resp, tok);
	eng_inbox_kick(ib);
	qp->xfwd_pending = 1;
	qp->xfwd_pid = pid;
	qp->xfwd_srqn = p->xrc_srqn;
	qp->xfwd_since = eng_pass_ns();
	qp->placed_unanswered = 0;
	if (emu_log_enabled)
		emu_log("engine: XRC TGT QP 0x%06x: PSN 0x%06x for SRQ 0x%06x to process %d", qp->qpn, p->psn,
			p->xrc_srqn, (int)pid);
	return 1;
}

/* The server: run the responder on the stand-in, then tell the owner. */
static int serve(struct pkt *p)
{
	struct eng_xfwd *f = xfwd_of(p);
	struct eng_inbox *owner = eng_peer_inbox(p->dst_qpn, NULL, NULL);
	if (!owner)
		return 1; /* the TGT QP is gone: nobody waits for the request */
	uint64_t tok;
	struct pkt *v = eng_ring_reserve(&owner->resp, xfwd_off(0) + sizeof(struct eng_xfwd), &tok);
	if (!v)
		return 0;
	struct eng_qp *px = eng_xrc_proxy(p->dst_qpn);
	if (!px) {
		eng_ring_cancel(&owner->resp, tok);
		return 0;
	}
	if (px->dest_qpn != f->dest_qpn)
		memset(&px->rx, 0, sizeof px->rx); /* reconnected: nothing of the old connection goes on */
	px->state = EMU_QPS_RTR;
	px->dest_qpn = f->dest_qpn;
	px->peer = NULL;          /* looked up again: a cached mapping may have been dropped since */
	px->access = f->access;
	px->xrcdn = f->xrcdn;
	px->rd_atomic_res = f->rd_atomic_res;
	px->mtu = f->mtu;
	px->min_rnr_timer = f->min_rnr_timer;
	px->scat_res = f->scat_res;
	px->nak_sent = f->nak_sent;
	px->epsn = f->epsn;
	px->path = f->path;
	px->q->path = f->path;
	px->q->ctx = NULL;
	px->xproxy_event = 0;
	int r;
	if (eng_xrc_tgt_bind(px, p)) {
		px->q->ctx = px->srq->s->ctx; /* the port the answers leave from */
		r = eng_rc_recv(px, p);
	} else { /* destroyed since the owner looked it up */
		eng_resp_fail_norwqe(px, p, NAK_REM_ACCESS);
		r = 1;
	}
	if (r == 0) { /* the requester's RESP ring is full: serve it again later */
		eng_ring_cancel(&owner->resp, tok);
		return 0;
	}
	eng_qp_flush_ack(px);
	/* the SRQ and its context may go before the next delegate: a coalesced ACK still pending leaves unframed */
	px->q->ctx = NULL;
	px->srq = NULL;
	px->rcq = NULL;
	memset(v, 0, sizeof *v);
	v->type = PKT_ACK;
	v->xfwd = ENG_XFWD_VERDICT;
	v->dst_qpn = p->dst_qpn;
	v->psn = p->psn;
	struct eng_xfwd *w = xfwd_of(v);
	memset(w, 0, sizeof *w);
	w->seq = f->seq;
	w->epsn = px->epsn;
	w->nak_sent = (uint8_t)px->nak_sent;
	w->err = px->state == EMU_QPS_ERR;
	w->event = px->xproxy_event;
	eng_ring_commit(&owner->resp, tok);
	eng_inbox_kick(owner);
	return 1;
}

/* The owner: the verdict on the request its TGT QP handed over. */
static void verdict(struct pkt *p)
{
	struct eng_xfwd *w = xfwd_of(p);
	struct eng_qp *qp = eng_find_qp(p->dst_qpn);
	if (!qp || qp->xrc != EMU_QPT_XRC_TGT || !qp->xfwd_pending || w->seq != qp->xfwd_seq)
		return; /* reset, destroyed or given up on since */
	qp->xfwd_pending = 0;
	if (eng_psn_diff(w->epsn, qp->epsn) > 0)
		qp->epsn = w->epsn;
	qp->nak_sent = w->nak_sent;
	if (w->err && qp->state != EMU_QPS_ERR) {
		eng_qp_set_error(qp);
		if (w->event)
			eng_qp_event(qp, w->event);
	}
}

int eng_xrc_resp(struct pkt *p)
{
	if (p->xfwd == ENG_XFWD_DELEGATE)
		return serve(p);
	verdict(p);
	return 1;
}
