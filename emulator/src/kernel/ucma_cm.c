/* SPDX-License-Identifier: Apache-2.0 */
/* The CM thread: one per process while an rdma_cm channel is open. It takes CM mail (cm_wire.c), fires the ids'
 * timers and watches connected peers; this is the connection state machine of cma.c and cm.c on both ends. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ucma_cmd.h"

int emu_ucma_thread_stop; /* set under emu_ucma_lock by ucma.c when the last channel closes */

static void copy_conn_param(struct rdma_ucm_conn_param *c, const struct cm_msg *m, uint32_t pd_size)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->private_data, m->pdata, pd_size < sizeof(c->private_data) ? pd_size : sizeof(c->private_data));
	c->private_data_len = (uint8_t)pd_size;
}

/* ---- the CM thread: mail, timers, peer liveness ---- */

static struct ucma_id *lookup_msg_id(const struct cm_msg *m)
{
	if (m->dst_id >= emu_ucma_ids_cap || !emu_ucma_ids[m->dst_id] || emu_ucma_ids[m->dst_id]->cookie != m->dst_cookie)
		return NULL;
	return emu_ucma_ids[m->dst_id];
}

static void reply_to(const struct cm_msg *in, uint32_t type, uint8_t reason)
{
	struct cm_msg m;
	memset(&m, 0, sizeof(m));
	m.type = type;
	m.src_pid = (int32_t)getpid();
	m.dst_id = in->src_id;
	m.dst_cookie = in->src_cookie;
	m.reason = reason;
	cm_send(in->src_pid, &m);
}

static void peer_from_msg(struct ucma_id *id, const struct cm_msg *m)
{
	id->peer_pid = m->src_pid;
	id->peer_id = m->src_id;
	id->peer_cookie = m->src_cookie;
	id->peer_qpn = m->qpn & 0xffffff;
	id->peer_psn = m->psn & 0xffffff;
	id->peer_lid = m->lid;
	id->peer_mtu = m->mtu;
	memcpy(id->peer_gid, m->gid, 16);
}

/* A REQ or SIDR REQ for one of our listeners: a new passive id and a CONNECT_REQUEST (cma_ib_req_handler). */
static void on_req(const struct cm_msg *m)
{
	int ud = m->type == CM_SIDR_REQ;
	struct ucma_id *l = lookup_msg_id(m);
	if (!l || l->state != S_LISTEN || l->ps != m->ps) {
		/* the listener went away since the directory named it: nobody serves this service id */
		reply_to(m, ud ? CM_SIDR_REP : CM_REJ, ud ? SIDR_UNSUPPORTED : REJ_INVALID_SERVICE_ID);
		return;
	}
	if (!l->backlog)
		return; /* ucma_event_handler: -ENOMEM, the CM drops the REQ so the sender may retry */
	struct ucma_id *c = emu_ucma_id_alloc(l->file, l->ps, m->qp_type);
	if (!c)
		return;
	c->state = S_REQ_RCVD;
	c->src = m->dst_addr;
	c->dst = m->src_addr;
	c->dev = l->dev >= 0 ? l->dev : emu_cm_addr_device((const struct sockaddr *)&c->src);
	if (c->dev < 0)
		c->dev = 0;
	c->route = 1;
	c->route_tclass = m->tclass;
	c->route_tclass_set = 1;
	peer_from_msg(c, m);
	/* cm_req_handler swaps them: our responder resources are what the peer's initiator depth asks for */
	c->resp_res = m->init_depth;
	c->init_depth = m->resp_res;
	c->retry = m->retry;
	c->rnr_retry = m->rnr_retry;
	c->flow_control = m->flow_control;
	c->srq = 0;
	c->psn = (uint32_t)(emu_ucma_now_ns() * 2654435761u) & 0xffffff;
	c->listener = l;
	l->backlog--;
	struct ucma_event *e = emu_ucma_queue_event(l, EV_CONNECT_REQUEST, 0);
	if (!e) {
		emu_ucma_id_free(c);
		l->backlog++;
		return;
	}
	e->conn = c;
	e->resp.id = c->handle;
	if (ud) {
		struct rdma_ucm_ud_param *u = &e->resp.param.ud;
		uint32_t len = PD_SIDR_REQ - CMA_HDR;
		memcpy(u->private_data, m->pdata, len);
		u->private_data_len = (uint8_t)len;
		u->qp_num = m->qpn;
		u->qkey = m->qkey;
	} else {
		struct rdma_ucm_conn_param *p = &e->resp.param.conn;
		copy_conn_param(p, m, PD_REQ - CMA_HDR);
		p->responder_resources = m->init_depth;
		p->initiator_depth = m->resp_res;
		p->flow_control = m->flow_control;
		p->retry_count = m->retry;
		p->rnr_retry_count = m->rnr_retry;
		p->srq = m->srq;
		p->qp_num = m->qpn;
	}
}

static void on_msg(const struct cm_msg *m)
{
	if (m->type == CM_REQ || m->type == CM_SIDR_REQ) {
		on_req(m);
		return;
	}
	struct ucma_id *id = lookup_msg_id(m);
	if (!id)
		return; /* for an id that no longer exists: a stale MAD */
	if (id->peer_pid && id->peer_pid != m->src_pid)
		return;
	struct ucma_event *e;
	switch (m->type) {
	case CM_REP:
		if (id->state != S_REQ_SENT)
			return;
		peer_from_msg(id, m);
		/* cm_rep_handler: swapped again, and the passive side's RNR retry count */
		id->resp_res = m->init_depth;
		id->init_depth = m->resp_res;
		id->rnr_retry = m->rnr_retry;
		id->state = S_REP_RCVD;
		id->timer = T_NONE;
		e = emu_ucma_queue_event(id, EV_CONNECT_RESPONSE, 0);
		if (e) {
			struct rdma_ucm_conn_param *p = &e->resp.param.conn;
			copy_conn_param(p, m, PD_REP);
			p->responder_resources = m->init_depth;
			p->initiator_depth = m->resp_res;
			p->flow_control = m->flow_control;
			p->rnr_retry_count = m->rnr_retry;
			p->srq = m->srq;
			p->qp_num = m->qpn;
		}
		break;
	case CM_SIDR_REP:
		if (id->state != S_REQ_SENT)
			return;
		id->timer = T_NONE;
		if (m->reason != SIDR_SUCCESS) {
			id->state = S_DONE;
			emu_ucma_queue_event(id, EV_UNREACHABLE, m->reason);
			break;
		}
		peer_from_msg(id, m);
		id->qkey = m->qkey;
		id->state = S_DONE;
		e = emu_ucma_queue_event(id, EV_ESTABLISHED, 0);
		if (e) {
			struct rdma_ucm_ud_param *u = &e->resp.param.ud;
			emu_ucma_ah_to_user(id, &u->ah_attr);
			u->qp_num = m->qpn;
			u->qkey = m->qkey;
			memcpy(u->private_data, m->pdata, PD_SIDR_REP);
			u->private_data_len = PD_SIDR_REP;
		}
		break;
	case CM_RTU:
		if (id->state != S_REP_SENT)
			return;
		id->state = S_ESTABLISHED;
		id->timer = T_NONE;
		emu_ucma_queue_event(id, EV_ESTABLISHED, 0);
		break;
	case CM_REJ:
		if (id->state != S_REQ_SENT && id->state != S_REP_SENT && id->state != S_REP_RCVD &&
		    id->state != S_REQ_RCVD)
			return;
		id->state = S_DONE;
		id->timer = T_NONE;
		e = emu_ucma_queue_event(id, EV_REJECTED, m->reason);
		if (e)
			copy_conn_param(&e->resp.param.conn, m, PD_REJ);
		break;
	case CM_DREQ:
		if (id->state == S_ESTABLISHED || id->state == S_REP_SENT) {
			id->state = S_DREQ_RCVD;
			id->timer = T_NONE;
			emu_ucma_queue_event(id, EV_DISCONNECTED, 0);
		} else if (id->state == S_DREQ_SENT) {
			/* both sides disconnected at once: cm.c answers a DREQ in DREQ_SENT with a DREP */
			emu_ucma_send_msg(id, CM_DREP, 0, NULL, 0);
		} else if (id->state == S_TIMEWAIT || id->state == S_DONE) {
			emu_ucma_send_msg(id, CM_DREP, 0, NULL, 0);
		}
		break;
	case CM_DREP:
		if (id->state != S_DREQ_SENT)
			return;
		emu_ucma_enter_timewait(id);
		emu_ucma_queue_event(id, EV_DISCONNECTED, 0);
		break;
	default:
		break;
	}
}

static void on_timer(struct ucma_id *id)
{
	int kind = id->timer;
	id->timer = T_NONE;
	switch (kind) {
	case T_ADDR:
		/* addr.c: resolution that never completes ends with -ETIMEDOUT */
		id->state = S_ADDR_BOUND;
		emu_ucma_queue_event(id, EV_ADDR_ERROR, -ETIMEDOUT);
		break;
	case T_REQ:
	case T_REP:
		/* IB_CM_REQ_ERROR / IB_CM_REP_ERROR / IB_CM_SIDR_REQ_ERROR -> UNREACHABLE, -ETIMEDOUT */
		id->state = S_DONE;
		emu_ucma_queue_event(id, EV_UNREACHABLE, -ETIMEDOUT);
		break;
	case T_DREQ:
		/* IB_CM_DREQ_ERROR -> DISCONNECTED, -ETIMEDOUT */
		emu_ucma_enter_timewait(id);
		emu_ucma_queue_event(id, EV_DISCONNECTED, -ETIMEDOUT);
		break;
	case T_TIMEWAIT:
		id->state = S_DONE;
		emu_ucma_queue_event(id, EV_TIMEWAIT_EXIT, 0);
		break;
	case T_ADDR_DONE:
		id->state = S_ADDR_RESOLVED;
		emu_ucma_queue_event(id, EV_ADDR_RESOLVED, 0);
		break;
	case T_ROUTE_DONE:
		id->route = 1;
		id->state = S_ROUTE_RESOLVED;
		emu_ucma_queue_event(id, EV_ROUTE_RESOLVED, 0);
		break;
	default:
		break;
	}
}

/* The peer process is gone: answer as its kernel did while it closed the peer's ids (cm_destroy_id). */
static void on_peer_dead(struct ucma_id *id)
{
	struct ucma_event *e;
	switch (id->state) {
	case S_REQ_SENT:
		if (emu_ucma_is_ud(id))
			return; /* a SIDR REQ nobody answers times out */
		/* fallthrough */
	case S_REP_SENT:
	case S_REP_RCVD:
		id->state = S_DONE;
		id->timer = T_NONE;
		e = emu_ucma_queue_event(id, EV_REJECTED, REJ_CONSUMER_DEFINED);
		if (e)
			e->resp.param.conn.private_data_len = PD_REJ;
		break;
	case S_ESTABLISHED:
		id->state = S_DREQ_RCVD;
		emu_ucma_queue_event(id, EV_DISCONNECTED, 0);
		break;
	case S_DREQ_SENT:
		emu_ucma_enter_timewait(id);
		emu_ucma_queue_event(id, EV_DISCONNECTED, 0);
		break;
	default:
		break;
	}
	id->peer_pid = 0; /* nothing more goes to it */
}

void *emu_ucma_cm_thread(void *arg)
{
	(void)arg;
	uint64_t last_check = 0;
	struct cm_msg m;

	for (;;) {
		int wait_ms = 50;
		pthread_mutex_lock(&emu_ucma_lock);
		int stop = emu_ucma_thread_stop;
		uint64_t now = emu_ucma_now_ns();
		for (uint32_t h = 0; h < emu_ucma_ids_cap && !stop; h++) {
			struct ucma_id *id = emu_ucma_ids[h];
			if (!id || id->timer == T_NONE)
				continue;
			if (id->deadline <= now)
				on_timer(id);
			else if ((id->deadline - now) / 1000000 < (uint64_t)wait_ms)
				wait_ms = (int)((id->deadline - now) / 1000000) + 1;
		}
		if (!stop && now - last_check > 100000000ull) {
			last_check = now;
			for (uint32_t h = 0; h < emu_ucma_ids_cap; h++) {
				struct ucma_id *id = emu_ucma_ids[h];
				if (id && id->peer_pid && id->state != S_DONE && id->state != S_TIMEWAIT &&
				    id->state != S_DREQ_RCVD && cm_pid_dead(id->peer_pid))
					on_peer_dead(id);
			}
		}
		pthread_mutex_unlock(&emu_ucma_lock);
		if (stop)
			break;
		if (cm_recv(&m, wait_ms)) {
			pthread_mutex_lock(&emu_ucma_lock);
			on_msg(&m);
			while (cm_recv(&m, 0))
				on_msg(&m);
			pthread_mutex_unlock(&emu_ucma_lock);
		}
	}
	return NULL;
}
