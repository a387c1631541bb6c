/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_dc.c - the DC (Dynamically Connected) transport (layer 4 of src/engine/LAYERS).
 *
 * A DCI is an RC requester whose responder is not fixed at modify time: each send WQE carries, after its control
 * segment, a datagram segment (struct mlx5_wqe_datagram_seg) whose address vector names the DCT (dqp_dct, with
 * MLX5_EXTENDED_UD_AV) and the DC access key (key.dc_key), as libmlx5's mlx5dv_wr_set_dc_addr writes them
 * (rdma-core v44 providers/mlx5/qp.c). The rest of the WQE is an RC WQE. The DCI is connected to one DCT at a
 * time: a WQE for another DCT (or key) waits until every WQE sent on the current connection is answered, then the
 * DCI connects anew (its dc_gen counts the connections) and carries on, so a DCI keeps its WQEs in order as the PRM
 * describes (a DCI reconnects when the target changes). Everything else - PSNs, ACKs, timeouts and retries, READ
 * and atomic responses, completions - is the RC requester's and completer's (eng_req.c, eng_comp.c): a DCT that does
 * not exist answers nothing, and the DCI ends in RETRY_EXC_ERR as an RC QP whose peer is gone.
 *
 * A DCT is an RC responder shared by every DCI that connects to it. It checks each request's DC access key against
 * its own (mlx5_ib_create_qp.access_key): a request with another key is dropped and counted. Why a drop and not a
 * NAK: Linux mlx5 knows a DCT key violation only as an asynchronous event of the DCT's owner
 * (MLX5_EVENT_TYPE_DCT_KEY_VIOLATION), like a Q_Key violation on UD, which is silent to the sender; the PRM's own
 * text was not at hand. So the DCI retries and ends in RETRY_EXC_ERR. A request with the right key runs the RC
 * responder (eng_resp.c) on the responder state of that DCI's connection: expected PSN, the receive in progress,
 * READ resume offset, saved atomic results, the DCI's inbox. The state lives in a table of ENG_DCT_CONNS
 * connections per DCT (least recently used one replaced); a request of a new connection (another dc_gen) starts
 * from its own PSN. Receives come from the DCT's SRQ and complete on its CQ with the DCT's number as QPN and the
 * DCI's as source QPN. ACKs are not coalesced across packets: the next packet may come from another DCI.
 *
 * Not modelled: the DC connect/disconnect handshake packets (the pcap tap shows the RC opcodes of the requests), a
 * lost first packet of a connection under fault injection (its successor would set the expected PSN), DCI streams.
 */
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "engine/eng_internal.h"
#include "engine/eng_xport.h"

#define ENG_DCT_CONNS 64

struct eng_dct_conn {
	int used;
	uint32_t src_qpn, gen;
	uint64_t last_use;
	/* the eng_qp fields of the RC responder, for this connection */
	uint32_t epsn, read_off, atomic_hist_n;
	int nak_sent;
	struct eng_atomic_hist atomic_hist[ENG_ATOMIC_HIST];
	struct eng_rx rx;
	struct eng_inbox *peer;
	int peer_pid;
	uint16_t peer_lid;
};

struct eng_dct {
	uint64_t uses;
	uint64_t key_violations;
	struct eng_dct_conn conn[ENG_DCT_CONNS];
};

/* A DCT has no work queue and so no doorbell record: the engine reads this one, which says nothing was posted. */
static uint32_t dct_no_dbrec[2];

void eng_dc_qp_created(struct eng_qp *qp)
{
	qp->dc_type = qp->q ? qp->q->dc_type : EMU_DC_NONE;
	qp->dc_key = qp->q ? qp->q->dc_key : 0;
	if (qp->dc_type == EMU_DC_DCT && !qp->dbrec)
		qp->dbrec = dct_no_dbrec;
}

void eng_dc_qp_destroying(struct eng_qp *qp)
{
	free(qp->dct);
	qp->dct = NULL;
}

int eng_dci_connect(struct eng_qp *qp, const struct eng_wqe *w)
{
	if (qp->dest_qpn && qp->dest_qpn == w->av.dqpn && qp->dc_key == w->av.dc_key)
		return 1;
	/* another target: the WQEs of the current connection go first (ordering per DCI) */
	for (uint32_t i = qp->infl_tail; i != qp->infl_head; i++)
		if (!qp->infl[i & (qp->sq_cnt - 1)].done)
			return 0;
	qp->dest_qpn = w->av.dqpn;
	qp->dc_key = w->av.dc_key;
	qp->dc_gen++;
	qp->peer = NULL; /* eng_qp_peer looks the DCT up by its number; none found: the requests are lost, RC retries */
	if (emu_log_enabled)
		emu_log("engine: DCI 0x%06x connects to DCT 0x%06x (connection %u)", qp->qpn, qp->dest_qpn, qp->dc_gen);
	return 1;
}

void eng_dc_fill(const struct eng_qp *qp, struct pkt *p)
{
	if (qp->dc_type != EMU_DC_DCI)
		return;
	p->dc = 1;
	p->dc_gen = qp->dc_gen;
	p->dc_key = qp->dc_key;
}

static void conn_load(struct eng_qp *qp, const struct eng_dct_conn *c)
{
	qp->dest_qpn = c->src_qpn;
	qp->epsn = c->epsn;
	qp->read_off = c->read_off;
	qp->nak_sent = c->nak_sent;
	qp->atomic_hist_n = c->atomic_hist_n;
	memcpy(qp->atomic_hist, c->atomic_hist, sizeof qp->atomic_hist);
	qp->rx = c->rx;
	qp->peer = c->peer;
	qp->peer_pid = c->peer_pid;
	qp->peer_lid = c->peer_lid;
}

static void conn_save(const struct eng_qp *qp, struct eng_dct_conn *c)
{
	c->epsn = qp->epsn;
	c->read_off = qp->read_off;
	c->nak_sent = qp->nak_sent;
	c->atomic_hist_n = qp->atomic_hist_n;
	memcpy(c->atomic_hist, qp->atomic_hist, sizeof c->atomic_hist);
	c->rx = qp->rx;
	c->peer = qp->peer;
	c->peer_pid = qp->peer_pid;
	c->peer_lid = qp->peer_lid;
}

/* The connection state of the DCI that sent p: its own, a fresh one for a new connection, or the least recently
 * used slot, taken over. NULL only without memory. */
static struct eng_dct_conn *conn_of(struct eng_qp *qp, const struct pkt *p)
{
	if (!qp->dct && !(qp->dct = calloc(1, sizeof *qp->dct)))
		return NULL;
	struct eng_dct *t = qp->dct;
	struct eng_dct_conn *c = NULL, *lru = &t->conn[0];
	for (int i = 0; i < ENG_DCT_CONNS; i++) {
		struct eng_dct_conn *x = &t->conn[i];
		if (x->used && x->src_qpn == p->src_qpn) {
			c = x;
			break;
		}
		if (!x->used ? lru->used : (lru->used && x->last_use < lru->last_use))
			lru = x;
	}
	if (!c || c->gen != p->dc_gen) {
		if (!c)
			c = lru;
		memset(c, 0, sizeof *c);
		c->used = 1;
		c->src_qpn = p->src_qpn;
		c->gen = p->dc_gen;
		c->epsn = p->psn; /* the connection starts at its first request's PSN */
	}
	c->last_use = ++t->uses;
	return c;
}

int eng_dct_recv(struct eng_qp *qp, struct pkt *p)
{
	if (!p->dc || qp->dc_type != EMU_DC_DCT) {
		if (emu_log_enabled)
			emu_log("engine: %s packet for %s QP 0x%06x dropped", p->dc ? "DC" : "RC",
				qp->dc_type == EMU_DC_DCT ? "DCT" : qp->dc_type == EMU_DC_DCI ? "DCI" : "RC", qp->qpn);
		return 1;
	}
	if (p->dc_key != qp->dc_key) {
		if (!qp->dct && !(qp->dct = calloc(1, sizeof *qp->dct)))
			return 1;
		qp->dct->key_violations++;
		if (emu_log_enabled)
			emu_log("engine: DCT 0x%06x drops PSN 0x%06x of DCI 0x%06x: DC access key 0x%llx is not the DCT's "
				"(violation %llu)", qp->qpn, p->psn, p->src_qpn, (unsigned long long)p->dc_key,
				(unsigned long long)qp->dct->key_violations);
		return 1;
	}
	struct eng_dct_conn *c = conn_of(qp, p);
	if (!c)
		return 1; /* lost, as on a device out of connection contexts; the DCI retries */
	conn_load(qp, c);
	int r = eng_rc_recv(qp, p);
	/* the ACK goes to this DCI now: the pending ACK is per QP and the next packet may be another DCI's */
	eng_qp_flush_ack(qp);
	qp->ack_pending = 0; /* a full ring kept it: the DCI's timeout resends and the duplicate is ACKed */
	qp->ack_count = 0;
	qp->ack_now = 0;
	conn_save(qp, c);
	return r;
}
