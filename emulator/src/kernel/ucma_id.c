/* SPDX-License-Identifier: Apache-2.0 */
/* The rdma_cm "kernel"'s state (ucma_state.h): ids and their handles, the channel files' event queues, the CM
 * messages and timers of an id, and what an id that goes away sends to its peer (cm.c cm_destroy_id). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ucma_state.h"

struct ucma_mc **emu_ucma_mcs;
uint32_t emu_ucma_mcs_cap;

pthread_mutex_t emu_ucma_lock = PTHREAD_MUTEX_INITIALIZER;
struct ucma_file *emu_ucma_files;
struct ucma_id **emu_ucma_ids;
uint32_t emu_ucma_ids_cap;
static uint64_t g_serial;
int emu_ucma_nfiles;
uint64_t emu_ucma_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* How long a REQ, REP or DREQ waits for its answer before the id gets UNREACHABLE / DISCONNECTED. The kernel
 * waits cma.c's CMA_CM_RESPONSE_TIMEOUT (20: 4.096 us << 20 = 4.3 s) for each of CMA_MAX_CM_RETRIES + 1 (16)
 * sends; MLX5EMU_CM_TIMEOUT_MS shortens it for tests. */
uint64_t emu_ucma_cm_timeout_ns(void)
{
	const char *e = getenv("MLX5EMU_CM_TIMEOUT_MS");
	uint64_t ms = e && *e ? strtoull(e, NULL, 10) : 16ull * 4295;
	return (ms ? ms : 1) * 1000000ull;
}

/* How long address and route resolution take: 0 by default (loopback neighbours, an SM next door);
 * MLX5EMU_CM_RESOLVE_MS models a slower fabric (an SA path query, ARP) for each of the two steps. */
uint64_t emu_ucma_resolve_ns(void)
{
	const char *e = getenv("MLX5EMU_CM_RESOLVE_MS");
	return e && *e ? strtoull(e, NULL, 10) * 1000000ull : 0;
}

/* ---- files, ids, events ---- */

struct ucma_id *emu_ucma_id_alloc(struct ucma_file *f, uint16_t ps, uint8_t qp_type)
{
	uint32_t h = 0;
	while (h < emu_ucma_ids_cap && emu_ucma_ids[h])
		h++;
	if (h == emu_ucma_ids_cap) {
		uint32_t cap = emu_ucma_ids_cap ? emu_ucma_ids_cap * 2 : 64;
		if (cap > 1u << 20)
			return NULL;
		struct ucma_id **n = realloc(emu_ucma_ids, cap * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + emu_ucma_ids_cap, 0, (cap - emu_ucma_ids_cap) * sizeof(*n));
		emu_ucma_ids = n;
		emu_ucma_ids_cap = cap;
	}
	struct ucma_id *id = calloc(1, sizeof(*id));
	if (!id)
		return NULL;
	id->file = f;
	id->handle = h;
	id->cookie = ((uint64_t)(uint32_t)getpid() << 32) | (++g_serial & 0xffffffffu);
	id->ps = ps;
	id->qp_type = qp_type;
	id->dev = -1;
	id->dir_slot = -1;
	id->qkey = RDMA_UDP_QKEY;
	emu_ucma_ids[h] = id;
	return id;
}

struct ucma_id *emu_ucma_id_get(struct ucma_file *f, uint32_t handle, int *err)
{
	/* ucma.c _ucma_find_context: unknown id ENOENT, another file's id EINVAL */
	if (handle >= emu_ucma_ids_cap || !emu_ucma_ids[handle]) {
		*err = ENOENT;
		return NULL;
	}
	if (emu_ucma_ids[handle]->file != f) {
		*err = EINVAL;
		return NULL;
	}
	return emu_ucma_ids[handle];
}

void emu_ucma_file_signal(struct ucma_file *f)
{
	if (f->head)
		pthread_cond_broadcast(&f->cond);
	if (f->closed)
		return; /* the fd number is no longer ours */
	int want = f->head != NULL;
	if (want == f->signaled)
		return;
	uint64_t v = 1;
	if (want) {
		if (emu_real_write(f->fd, &v, sizeof(v)) == (ssize_t)sizeof(v)) /* ours is interposed */
			f->signaled = 1;
	} else {
		/* the counter is non-zero, so this read never blocks whatever O_NONBLOCK says */
		if (read(f->fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			f->signaled = 0;
	}
}

/* Queue an event for id (ucma_event_handler): events of a passive id the user has not accepted yet are dropped,
 * except the CONNECT_REQUEST that introduces it. */
struct ucma_event *emu_ucma_queue_event(struct ucma_id *id, uint32_t event, int32_t status)
{
	if (!id->uid && event != EV_CONNECT_REQUEST)
		return NULL;
	struct ucma_event *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->id = id;
	e->resp.uid = id->uid;
	e->resp.id = id->handle;
	e->resp.event = event;
	e->resp.status = (uint32_t)status;
	struct ucma_file *f = id->file;
	if (f->tail)
		f->tail->next = e;
	else
		f->head = e;
	f->tail = e;
	emu_ucma_file_signal(f);
	if (emu_log_enabled)
		emu_log("rdma_cm: t=%llu id %u event %u status %d", (unsigned long long)(emu_ucma_now_ns() / 1000),
			id->handle, event, status);
	return e;
}

void emu_ucma_send_msg(struct ucma_id *id, uint32_t type, uint8_t reason, const void *pdata, uint32_t len)
{
	struct cm_msg m;
	memset(&m, 0, sizeof(m));
	m.type = type;
	m.src_pid = (int32_t)getpid();
	m.src_id = id->handle;
	m.src_cookie = id->cookie;
	m.dst_id = id->peer_id;
	m.dst_cookie = id->peer_cookie;
	m.ps = id->ps;
	m.qp_type = id->qp_type;
	m.reason = reason;
	m.src_addr = id->src;
	m.dst_addr = id->dst;
	m.qpn = id->qpn;
	m.psn = id->psn;
	m.qkey = id->qkey;
	m.resp_res = id->resp_res;
	m.init_depth = id->init_depth;
	m.retry = id->retry;
	m.rnr_retry = id->rnr_retry;
	m.srq = id->srq;
	m.flow_control = id->flow_control;
	m.mtu = emu_ucma_port_mtu(id);
	m.tclass = emu_ucma_path_tclass(id);
	m.dev = (uint16_t)(id->dev >= 0 ? id->dev : 0);
	m.lid = emu_ucma_id_port(id)->lid;
	emu_ucma_local_gid(id, m.gid);
	if (len > CM_PDATA_MAX)
		len = CM_PDATA_MAX;
	if (pdata && len)
		memcpy(m.pdata, pdata, len);
	m.pdata_len = len;
	if (id->peer_pid && cm_send(id->peer_pid, &m) != 0 && emu_log_enabled)
		emu_log("rdma_cm: id %u: message %u to pid %d lost", id->handle, type, (int)id->peer_pid);
}

void emu_ucma_set_timer(struct ucma_id *id, int kind, uint64_t after_ns)
{
	id->timer = kind;
	id->deadline = emu_ucma_now_ns() + after_ns;
}

/* cm.c cm_enter_timewait: the id stays in timewait for the ack timeout (4.096 us << timeout, in ms 1 << (t-8)) */
void emu_ucma_enter_timewait(struct ucma_id *id)
{
	id->state = S_TIMEWAIT;
	int t = emu_ucma_ack_timeout(id);
	emu_ucma_set_timer(id, T_TIMEWAIT, (1ull << (t > 8 ? t - 8 : 0)) * 1000000ull);
}

/* What the kernel sends for an id that goes away (rdma_destroy_id -> ib_destroy_cm_id -> cm_destroy_id). */
static void farewell(struct ucma_id *id)
{
	switch (id->state) {
	case S_REQ_SENT:
		if (!emu_ucma_is_ud(id))
			emu_ucma_send_msg(id, CM_REJ, REJ_TIMEOUT, NULL, 0);
		break;
	case S_REQ_RCVD:
		if (emu_ucma_is_ud(id))
			emu_ucma_send_msg(id, CM_SIDR_REP, SIDR_REJECT, NULL, 0);
		else
			emu_ucma_send_msg(id, CM_REJ, REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case S_REP_SENT:
	case S_REP_RCVD:
		emu_ucma_send_msg(id, CM_REJ, REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case S_ESTABLISHED:
		emu_ucma_send_msg(id, CM_DREQ, 0, NULL, 0);
		break;
	case S_DREQ_RCVD:
		emu_ucma_send_msg(id, CM_DREP, 0, NULL, 0);
		break;
	default:
		break;
	}
	id->state = S_DONE;
}

/* Drops id's unreported events; a queued CONNECT_REQUEST takes its new id with it (ucma_free_ctx). */
static void drop_events(struct ucma_id *id)
{
	struct ucma_file *f = id->file;
	struct ucma_event **pp = &f->head, *prev = NULL;
	while (*pp) {
		struct ucma_event *e = *pp;
		if (e->id == id || e->conn == id) {
			*pp = e->next;
			if (f->tail == e)
				f->tail = prev;
			if (e->id == id && e->conn) {
				e->conn->listener = NULL;
				farewell(e->conn);
				emu_ucma_id_free(e->conn);
			}
			free(e);
			continue;
		}
		prev = e;
		pp = &e->next;
	}
	emu_ucma_file_signal(f);
}

void emu_ucma_id_free(struct ucma_id *id)
{
	for (uint32_t h = 0; h < emu_ucma_mcs_cap; h++)
		if (emu_ucma_mcs[h] && emu_ucma_mcs[h]->id == id) {
			free(emu_ucma_mcs[h]);
			emu_ucma_mcs[h] = NULL;
		}
	cm_dir_release(id->dir_slot);
	if (id->handle < emu_ucma_ids_cap && emu_ucma_ids[id->handle] == id)
		emu_ucma_ids[id->handle] = NULL;
	free(id);
}

/* rdma_destroy_id + ucma_free_ctx: returns events_reported */
uint32_t emu_ucma_id_destroy(struct ucma_id *id)
{
	uint32_t reported = id->events_reported;
	farewell(id);
	drop_events(id);
	emu_ucma_id_free(id);
	return reported;
}
