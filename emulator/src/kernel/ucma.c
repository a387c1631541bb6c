/* /dev/infiniband/rdma_cm: the ucma write() ABI (rdma/rdma_user_cm.h, ABI version 4) and the connection manager
 * behind it, for an unmodified librdmacm 44.
 *
 * Semantics follow Linux drivers/infiniband/core/ucma.c (command checks, errnos, event queue, events_reported),
 * cma.c (id states, which event each CM message gives, private data sizes, reject reasons) and cm.c (what a
 * destroyed or dying id sends to its peer). The IB CM's messages travel between processes through cm_wire.c;
 * this file is the state machine on both ends.
 *
 * The channel fd is an eventfd: readable (poll, epoll) exactly while events are queued, so GET_EVENT waits on it
 * and honours O_NONBLOCK set with fcntl, as the kernel's ucma_get_event does with its wait queue. A CM thread per
 * process (running while a channel is open) takes mail, fires timers and watches connected peers: a peer process
 * that died is answered as its kernel would have answered while closing its ids (DREQ, REJ). */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_user_cm.h>

#include "ucma.h"
#include "uverbs.h"

/* enum rdma_cm_event_type (librdmacm rdma_cma.h, kernel include/rdma/rdma_cm.h) */
enum {
	EV_ADDR_RESOLVED = 0, EV_ADDR_ERROR, EV_ROUTE_RESOLVED, EV_ROUTE_ERROR, EV_CONNECT_REQUEST,
	EV_CONNECT_RESPONSE, EV_CONNECT_ERROR, EV_UNREACHABLE, EV_REJECTED, EV_ESTABLISHED, EV_DISCONNECTED,
	EV_DEVICE_REMOVAL, EV_MULTICAST_JOIN, EV_MULTICAST_ERROR, EV_ADDR_CHANGE, EV_TIMEWAIT_EXIT
};

/* Private data areas of IB CM messages (include/rdma/ib_cm.h IB_CM_*_PRIVATE_DATA_SIZE); rdma_cm puts its
 * 36-byte cma_hdr first for IP port spaces (cma.c cma_user_data_offset), so users get the rest. */
#define PD_REQ      92
#define PD_REP      196
#define PD_REJ      148
#define PD_SIDR_REQ 216
#define PD_SIDR_REP 136
#define CMA_HDR     36

/* Reject reasons (ib_cm.h enum ib_cm_rej_reason) and SIDR statuses (enum ib_cm_sidr_status) */
#define REJ_TIMEOUT             1
#define REJ_INVALID_SERVICE_ID  8
#define REJ_CONSUMER_DEFINED    28
#define REJ_VENDOR_OPTION_NOT_SUPPORTED 35
#define SIDR_SUCCESS     0
#define SIDR_UNSUPPORTED 1
#define SIDR_REJECT      2

#define RDMA_UDP_QKEY 0x01234567u /* cma.c */
#define IBV_EVENT_COMM_EST 4      /* enum ib_event_type */
#define MAX_BACKLOG 1024          /* ucma.c max_backlog */

/* IB_QP_* attribute mask bits and IB_ACCESS_* (ib_verbs.h; same values as ibv_qp_attr_mask) */
#define QPA_STATE 1u
#define QPA_ACCESS_FLAGS 8u
#define QPA_PKEY_INDEX 16u
#define QPA_PORT 32u
#define QPA_QKEY 64u
#define QPA_AV 128u
#define QPA_PATH_MTU 256u
#define QPA_TIMEOUT 512u
#define QPA_RETRY_CNT 1024u
#define QPA_RNR_RETRY 2048u
#define QPA_RQ_PSN 4096u
#define QPA_MAX_QP_RD_ATOMIC 8192u
#define QPA_MIN_RNR_TIMER 32768u
#define QPA_SQ_PSN 65536u
#define QPA_MAX_DEST_RD_ATOMIC 131072u
#define QPA_DEST_QPN 1048576u
#define ACC_REMOTE_WRITE 2u
#define ACC_REMOTE_READ 4u
#define ACC_REMOTE_ATOMIC 8u

/* Path facts of the emulated subnet: the SM answers packet life time 18 (OpenSM's default subnet timeout);
 * RoCE uses cma.c's CMA_IBOE_PACKET_LIFETIME 16 and the IP hop limit 64. Rate: 100 Gb/s (IB_RATE_100_GBPS). */
#define IB_PKT_LIFETIME   18
#define ROCE_PKT_LIFETIME 16
#define PATH_RATE         16

enum id_state {
	S_IDLE, S_ADDR_QUERY, S_ADDR_RESOLVED, S_ROUTE_QUERY, S_ROUTE_RESOLVED, S_ADDR_BOUND, S_LISTEN,
	S_REQ_SENT,      /* active: REQ (or SIDR REQ) sent */
	S_REP_RCVD,      /* active: REP received, CONNECT_RESPONSE queued; the library answers with ACCEPT (RTU) */
	S_REQ_RCVD,      /* passive: REQ received */
	S_REP_SENT,      /* passive: accepted, waiting for RTU */
	S_ESTABLISHED, S_DREQ_SENT, S_DREQ_RCVD, S_TIMEWAIT, S_DONE
};

/* The kernel's internal ENOTSUPP (include/linux/errno.h), which ucma passes to user space as is (errno 524). */
#define KERNEL_ENOTSUPP 524

/* T_ADDR_DONE / T_ROUTE_DONE: resolution completes on the CM thread, as the kernel reports it from a workqueue
 * (addr.c process_one_req, the SA query's MAD completion), never inside the command itself. */
enum timer_kind { T_NONE, T_ADDR, T_REQ, T_REP, T_DREQ, T_TIMEWAIT, T_ADDR_DONE, T_ROUTE_DONE };

struct ucma_file;

struct ucma_id {
	struct ucma_file *file;
	uint32_t handle;
	uint64_t uid;                /* 0 for a passive id until ACCEPT: its events are dropped (ucma_event_handler) */
	uint64_t cookie;
	uint16_t ps;
	uint8_t  qp_type;
	int      state;
	int      dev;                /* device of the bound/resolved address, -1 = none */
	struct sockaddr_in6 src, dst; /* AF_INET ids keep a sockaddr_in in the same storage */
	int      dir_slot;           /* cm_wire directory entry, -1 = none */
	int      route;              /* route resolved (num_paths 1) */
	int      backlog;
	uint32_t events_reported;
	uint8_t  tos, tos_set, reuse, afonly, afonly_set, ack_timeout, ack_timeout_set;
	uint8_t  route_tclass, route_tclass_set; /* the path's traffic class, fixed when the route is resolved */
	uint32_t qkey;
	/* the connection */
	int32_t  peer_pid;
	uint32_t peer_id;
	uint64_t peer_cookie;
	uint32_t qpn, psn, peer_qpn, peer_psn;
	uint8_t  srq, resp_res, init_depth, retry, rnr_retry, flow_control, peer_mtu;
	uint16_t peer_lid;
	uint8_t  peer_gid[16];
	struct ucma_id *listener;    /* passive id whose CONNECT_REQUEST is still queued */
	int      timer;
	uint64_t deadline;
};

struct ucma_mc;

struct ucma_event {
	struct ucma_event *next;
	struct ucma_mc *mc;          /* MULTICAST_JOIN/ERROR: the group membership it reports */
	struct ucma_id *id;          /* the id the event counts for (the listener for CONNECT_REQUEST) */
	struct ucma_id *conn;        /* CONNECT_REQUEST: the new passive id */
	struct rdma_ucm_event_resp resp;
};

struct ucma_file {
	struct ucma_file *next;
	int fd;                      /* the eventfd the user holds */
	int refs;                    /* 1 while open + commands in flight */
	int closed;
	int signaled;                /* the eventfd counter is non-zero (events queued) */
	pthread_cond_t cond;         /* GET_EVENT waits here */
	struct ucma_event *head, *tail;
};

/* A multicast group joined through an id (rdma_join_multicast); its handle space is separate from the ids'. */
struct ucma_mc {
	struct ucma_id *id;
	uint32_t handle;
	uint64_t uid;
	uint32_t events_reported;
	uint8_t  mgid[16];
	uint16_t mlid;
};

static struct ucma_mc **g_mcs;
static uint32_t g_mcs_cap;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ucma_file *g_files;
static struct ucma_id **g_ids;
static uint32_t g_ids_cap;
static uint64_t g_serial;
static int g_nfiles;
static pthread_t g_thread;
static int g_thread_running, g_thread_stop, g_join_pending;

#define FD_MAP 65536
static _Atomic unsigned char g_is_ucma[FD_MAP];

int emu_ucma_is_fd(int fd)
{
	return fd >= 0 && fd < FD_MAP && atomic_load_explicit(&g_is_ucma[fd], memory_order_relaxed);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* How long a REQ, REP or DREQ waits for its answer before the id gets UNREACHABLE / DISCONNECTED. The kernel
 * waits cma.c's CMA_CM_RESPONSE_TIMEOUT (20: 4.096 us << 20 = 4.3 s) for each of CMA_MAX_CM_RETRIES + 1 (16)
 * sends; MLX5EMU_CM_TIMEOUT_MS shortens it for tests. */
static uint64_t cm_timeout_ns(void)
{
	const char *e = getenv("MLX5EMU_CM_TIMEOUT_MS");
	uint64_t ms = e && *e ? strtoull(e, NULL, 10) : 16ull * 4295;
	return (ms ? ms : 1) * 1000000ull;
}

/* How long address and route resolution take: 0 by default (loopback neighbours, an SM next door);
 * MLX5EMU_CM_RESOLVE_MS models a slower fabric (an SA path query, ARP) for each of the two steps. */
static uint64_t resolve_ns(void)
{
	const char *e = getenv("MLX5EMU_CM_RESOLVE_MS");
	return e && *e ? strtoull(e, NULL, 10) * 1000000ull : 0;
}

static int is_ud(const struct ucma_id *id) { return id->qp_type == 4; /* IB_QPT_UD */ }

static const struct emu_port_info *id_port(const struct ucma_id *id)
{
	return emu_port_info(id->dev >= 0 ? id->dev : 0);
}

static int eth(const struct ucma_id *id) { return id_port(id)->link_layer == EMU_LINK_ETH; }

static uint8_t pkt_lifetime(const struct ucma_id *id) { return eth(id) ? ROCE_PKT_LIFETIME : IB_PKT_LIFETIME; }

/* cm.c cm_ack_timeout(ca_ack_delay 16, packet life time) is packet life time + 1 for these values;
 * rdma_set_ack_timeout() overrides it */
static uint8_t ack_timeout(const struct ucma_id *id)
{
	return id->ack_timeout_set ? id->ack_timeout : (uint8_t)(pkt_lifetime(id) + 1);
}

static uint8_t port_mtu(const struct ucma_id *id) { return eth(id) ? 3 /* 1024 */ : 5 /* 4096 */; }

static uint8_t path_mtu(const struct ucma_id *id)
{
	uint8_t m = port_mtu(id);
	return id->peer_mtu && id->peer_mtu < m ? id->peer_mtu : m;
}

/* The GID this id's packets carry: the port GID on IB, its address's RoCE GID on Ethernet. */
static void local_gid(const struct ucma_id *id, uint8_t gid[16])
{
	if (eth(id))
		emu_cm_addr_gid((const struct sockaddr *)&id->src, gid);
	else
		memcpy(gid, id_port(id)->gid[0].raw, 16);
}

/* The traffic class of the id's path record, where RDMA_OPTION_ID_TOS ends up (Linux drivers/infiniband/core/cma.c):
 *  - passive side: the REQ's primary path (cm_format_paths_from_req copies its traffic class), whatever TOS the
 *    listener has; active side: what the route resolution computed from the TOS then (cma_resolve_iboe_route and
 *    cma_query_ib_route read it at RESOLVE_ROUTE);
 *  - RoCE: cma_resolve_iboe_route sets path_rec->traffic_class to the TOS when rdma_set_option set one (tos_set),
 *    else to the port's default_roce_tos, which cma_add_one initialises to 0 (configfs can change it; the
 *    emulator has no configfs);
 *  - IB: cma_query_ib_route puts the TOS into the PathRecord query only as its QoSClass (AF_INET); an SM without
 *    a QoS policy (the emulated one, as OpenSM with QoS off) answers traffic class 0 whatever the class. For
 *    AF_INET6 the query asks for the traffic class in the source address' sin6_flowinfo (bits 27..20), which the
 *    emulated SM grants. */
static uint8_t path_tclass(const struct ucma_id *id)
{
	if (id->route_tclass_set)
		return id->route_tclass; /* the route's path record keeps what it got: a later TOS changes nothing */
	if (eth(id))
		return id->tos_set ? id->tos : 0;
	if (id->src.sin6_family == AF_INET6)
		return (uint8_t)(ntohl(id->src.sin6_flowinfo) >> 20);
	return 0;
}

/* The service level of the id's path record: 0 on both links here. RoCE: cma_resolve_iboe_route takes
 * iboe_tos_to_sl(ndev, tos), the priority rt_tos2priority(tos) mapped through the netdev's VLAN egress map or
 * prio-to-tc map, and 0 for a netdev with neither (the emulated ports have no VLAN and no traffic classes). IB:
 * the SL is the SM's choice for the QoS class; without a QoS policy it is the default SL 0. */
static uint8_t path_sl(const struct ucma_id *id)
{
	(void)id;
	return 0;
}

/* ---- files, ids, events ---- */

static struct ucma_id *id_alloc(struct ucma_file *f, uint16_t ps, uint8_t qp_type)
{
	uint32_t h = 0;
	while (h < g_ids_cap && g_ids[h])
		h++;
	if (h == g_ids_cap) {
		uint32_t cap = g_ids_cap ? g_ids_cap * 2 : 64;
		if (cap > 1u << 20)
			return NULL;
		struct ucma_id **n = realloc(g_ids, cap * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + g_ids_cap, 0, (cap - g_ids_cap) * sizeof(*n));
		g_ids = n;
		g_ids_cap = cap;
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
	g_ids[h] = id;
	return id;
}

static struct ucma_id *id_get(struct ucma_file *f, uint32_t handle, int *err)
{
	/* ucma.c _ucma_find_context: unknown id ENOENT, another file's id EINVAL */
	if (handle >= g_ids_cap || !g_ids[handle]) {
		*err = ENOENT;
		return NULL;
	}
	if (g_ids[handle]->file != f) {
		*err = EINVAL;
		return NULL;
	}
	return g_ids[handle];
}

static void file_signal(struct ucma_file *f)
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

static void copy_conn_param(struct rdma_ucm_conn_param *c, const struct cm_msg *m, uint32_t pd_size)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->private_data, m->pdata, pd_size < sizeof(c->private_data) ? pd_size : sizeof(c->private_data));
	c->private_data_len = (uint8_t)pd_size;
}

/* Queue an event for id (ucma_event_handler): events of a passive id the user has not accepted yet are dropped,
 * except the CONNECT_REQUEST that introduces it. */
static struct ucma_event *queue_event(struct ucma_id *id, uint32_t event, int32_t status)
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
	file_signal(f);
	if (emu_log_enabled)
		emu_log("rdma_cm: t=%llu id %u event %u status %d", (unsigned long long)(now_ns() / 1000), id->handle, event, status);
	return e;
}

static void ud_ah_to_user(const struct ucma_id *id, struct ib_uverbs_ah_attr *ah);

static void send_msg(struct ucma_id *id, uint32_t type, uint8_t reason, const void *pdata, uint32_t len)
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
	m.mtu = port_mtu(id);
	m.tclass = path_tclass(id);
	m.dev = (uint16_t)(id->dev >= 0 ? id->dev : 0);
	m.lid = id_port(id)->lid;
	local_gid(id, m.gid);
	if (len > CM_PDATA_MAX)
		len = CM_PDATA_MAX;
	if (pdata && len)
		memcpy(m.pdata, pdata, len);
	m.pdata_len = len;
	if (id->peer_pid && cm_send(id->peer_pid, &m) != 0 && emu_log_enabled)
		emu_log("rdma_cm: id %u: message %u to pid %d lost", id->handle, type, (int)id->peer_pid);
}

static void set_timer(struct ucma_id *id, int kind, uint64_t after_ns)
{
	id->timer = kind;
	id->deadline = now_ns() + after_ns;
}

/* cm.c cm_enter_timewait: the id stays in timewait for the ack timeout (4.096 us << timeout, in ms 1 << (t-8)) */
static void enter_timewait(struct ucma_id *id)
{
	id->state = S_TIMEWAIT;
	int t = ack_timeout(id);
	set_timer(id, T_TIMEWAIT, (1ull << (t > 8 ? t - 8 : 0)) * 1000000ull);
}

/* What the kernel sends for an id that goes away (rdma_destroy_id -> ib_destroy_cm_id -> cm_destroy_id). */
static void farewell(struct ucma_id *id)
{
	switch (id->state) {
	case S_REQ_SENT:
		if (!is_ud(id))
			send_msg(id, CM_REJ, REJ_TIMEOUT, NULL, 0);
		break;
	case S_REQ_RCVD:
		if (is_ud(id))
			send_msg(id, CM_SIDR_REP, SIDR_REJECT, NULL, 0);
		else
			send_msg(id, CM_REJ, REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case S_REP_SENT:
	case S_REP_RCVD:
		send_msg(id, CM_REJ, REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case S_ESTABLISHED:
		send_msg(id, CM_DREQ, 0, NULL, 0);
		break;
	case S_DREQ_RCVD:
		send_msg(id, CM_DREP, 0, NULL, 0);
		break;
	default:
		break;
	}
	id->state = S_DONE;
}

static void id_free(struct ucma_id *id);

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
				id_free(e->conn);
			}
			free(e);
			continue;
		}
		prev = e;
		pp = &e->next;
	}
	file_signal(f);
}

static void id_free(struct ucma_id *id)
{
	for (uint32_t h = 0; h < g_mcs_cap; h++)
		if (g_mcs[h] && g_mcs[h]->id == id) {
			free(g_mcs[h]);
			g_mcs[h] = NULL;
		}
	cm_dir_release(id->dir_slot);
	if (id->handle < g_ids_cap && g_ids[id->handle] == id)
		g_ids[id->handle] = NULL;
	free(id);
}

/* rdma_destroy_id + ucma_free_ctx: returns events_reported */
static uint32_t id_destroy(struct ucma_id *id)
{
	uint32_t reported = id->events_reported;
	farewell(id);
	drop_events(id);
	id_free(id);
	return reported;
}

/* ---- the CM thread: mail, timers, peer liveness ---- */

static struct ucma_id *lookup_msg_id(const struct cm_msg *m)
{
	if (m->dst_id >= g_ids_cap || !g_ids[m->dst_id] || g_ids[m->dst_id]->cookie != m->dst_cookie)
		return NULL;
	return g_ids[m->dst_id];
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
	struct ucma_id *c = id_alloc(l->file, l->ps, m->qp_type);
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
	c->psn = (uint32_t)(now_ns() * 2654435761u) & 0xffffff;
	c->listener = l;
	l->backlog--;
	struct ucma_event *e = queue_event(l, EV_CONNECT_REQUEST, 0);
	if (!e) {
		id_free(c);
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
		e = queue_event(id, EV_CONNECT_RESPONSE, 0);
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
			queue_event(id, EV_UNREACHABLE, m->reason);
			break;
		}
		peer_from_msg(id, m);
		id->qkey = m->qkey;
		id->state = S_DONE;
		e = queue_event(id, EV_ESTABLISHED, 0);
		if (e) {
			struct rdma_ucm_ud_param *u = &e->resp.param.ud;
			ud_ah_to_user(id, &u->ah_attr);
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
		queue_event(id, EV_ESTABLISHED, 0);
		break;
	case CM_REJ:
		if (id->state != S_REQ_SENT && id->state != S_REP_SENT && id->state != S_REP_RCVD &&
		    id->state != S_REQ_RCVD)
			return;
		id->state = S_DONE;
		id->timer = T_NONE;
		e = queue_event(id, EV_REJECTED, m->reason);
		if (e)
			copy_conn_param(&e->resp.param.conn, m, PD_REJ);
		break;
	case CM_DREQ:
		if (id->state == S_ESTABLISHED || id->state == S_REP_SENT) {
			id->state = S_DREQ_RCVD;
			id->timer = T_NONE;
			queue_event(id, EV_DISCONNECTED, 0);
		} else if (id->state == S_DREQ_SENT) {
			/* both sides disconnected at once: cm.c answers a DREQ in DREQ_SENT with a DREP */
			send_msg(id, CM_DREP, 0, NULL, 0);
		} else if (id->state == S_TIMEWAIT || id->state == S_DONE) {
			send_msg(id, CM_DREP, 0, NULL, 0);
		}
		break;
	case CM_DREP:
		if (id->state != S_DREQ_SENT)
			return;
		enter_timewait(id);
		queue_event(id, EV_DISCONNECTED, 0);
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
		queue_event(id, EV_ADDR_ERROR, -ETIMEDOUT);
		break;
	case T_REQ:
	case T_REP:
		/* IB_CM_REQ_ERROR / IB_CM_REP_ERROR / IB_CM_SIDR_REQ_ERROR -> UNREACHABLE, -ETIMEDOUT */
		id->state = S_DONE;
		queue_event(id, EV_UNREACHABLE, -ETIMEDOUT);
		break;
	case T_DREQ:
		/* IB_CM_DREQ_ERROR -> DISCONNECTED, -ETIMEDOUT */
		enter_timewait(id);
		queue_event(id, EV_DISCONNECTED, -ETIMEDOUT);
		break;
	case T_TIMEWAIT:
		id->state = S_DONE;
		queue_event(id, EV_TIMEWAIT_EXIT, 0);
		break;
	case T_ADDR_DONE:
		id->state = S_ADDR_RESOLVED;
		queue_event(id, EV_ADDR_RESOLVED, 0);
		break;
	case T_ROUTE_DONE:
		id->route = 1;
		id->state = S_ROUTE_RESOLVED;
		queue_event(id, EV_ROUTE_RESOLVED, 0);
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
		if (is_ud(id))
			return; /* a SIDR REQ nobody answers times out */
		/* fallthrough */
	case S_REP_SENT:
	case S_REP_RCVD:
		id->state = S_DONE;
		id->timer = T_NONE;
		e = queue_event(id, EV_REJECTED, REJ_CONSUMER_DEFINED);
		if (e)
			e->resp.param.conn.private_data_len = PD_REJ;
		break;
	case S_ESTABLISHED:
		id->state = S_DREQ_RCVD;
		queue_event(id, EV_DISCONNECTED, 0);
		break;
	case S_DREQ_SENT:
		enter_timewait(id);
		queue_event(id, EV_DISCONNECTED, 0);
		break;
	default:
		break;
	}
	id->peer_pid = 0; /* nothing more goes to it */
}

static void *cm_thread(void *arg)
{
	(void)arg;
	uint64_t last_check = 0;
	struct cm_msg m;

	for (;;) {
		int wait_ms = 50;
		pthread_mutex_lock(&g_lock);
		int stop = g_thread_stop;
		uint64_t now = now_ns();
		for (uint32_t h = 0; h < g_ids_cap && !stop; h++) {
			struct ucma_id *id = g_ids[h];
			if (!id || id->timer == T_NONE)
				continue;
			if (id->deadline <= now)
				on_timer(id);
			else if ((id->deadline - now) / 1000000 < (uint64_t)wait_ms)
				wait_ms = (int)((id->deadline - now) / 1000000) + 1;
		}
		if (!stop && now - last_check > 100000000ull) {
			last_check = now;
			for (uint32_t h = 0; h < g_ids_cap; h++) {
				struct ucma_id *id = g_ids[h];
				if (id && id->peer_pid && id->state != S_DONE && id->state != S_TIMEWAIT &&
				    id->state != S_DREQ_RCVD && cm_pid_dead(id->peer_pid))
					on_peer_dead(id);
			}
		}
		pthread_mutex_unlock(&g_lock);
		if (stop)
			break;
		if (cm_recv(&m, wait_ms)) {
			pthread_mutex_lock(&g_lock);
			on_msg(&m);
			while (cm_recv(&m, 0))
				on_msg(&m);
			pthread_mutex_unlock(&g_lock);
		}
	}
	return NULL;
}

/* ---- open / close ---- */

/* fork: the child gets no CM thread and no mailbox of ours; its inherited channels are forgotten (inert, as the
 * emulator's inherited uverbs fds are), and it may open rdma_cm itself. */
static void atfork_prepare(void) { pthread_mutex_lock(&g_lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&g_lock); }
static void atfork_child(void)
{
	pthread_mutex_init(&g_lock, NULL);
	for (int fd = 0; fd < FD_MAP; fd++)
		atomic_store(&g_is_ucma[fd], 0);
	g_files = NULL; /* the parent's objects stay allocated in the child's copy, unreachable */
	g_ids = NULL;
	g_ids_cap = 0;
	g_mcs = NULL;
	g_mcs_cap = 0;
	g_nfiles = 0;
	g_thread_running = 0;
	g_thread_stop = 0;
	g_join_pending = 0;
}

static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;
static void register_atfork(void) { pthread_atfork(atfork_prepare, atfork_parent, atfork_child); }

int emu_ucma_open(int flags)
{
	pthread_once(&g_atfork_once, register_atfork);
	if ((flags & O_ACCMODE) != O_RDWR) {
		errno = EACCES;
		return -1;
	}
	int fd = eventfd(0, ((flags & O_CLOEXEC) ? EFD_CLOEXEC : 0) | ((flags & O_NONBLOCK) ? EFD_NONBLOCK : 0));
	if (fd < 0)
		return -1;
	if (fd >= FD_MAP) {
		emu_real_close(fd);
		errno = EMFILE;
		return -1;
	}
	struct ucma_file *f = calloc(1, sizeof(*f));
	if (!f) {
		emu_real_close(fd);
		errno = ENOMEM;
		return -1;
	}
	f->fd = fd;
	f->refs = 1;
	pthread_cond_init(&f->cond, NULL);
	pthread_mutex_lock(&g_lock);
	int err = cm_wire_init();
	if (!err && !g_thread_running) {
		g_thread_stop = 0;
		err = pthread_create(&g_thread, NULL, cm_thread, NULL);
		if (!err)
			g_thread_running = 1;
	}
	if (err) {
		pthread_mutex_unlock(&g_lock);
		pthread_cond_destroy(&f->cond);
		free(f);
		emu_real_close(fd);
		errno = err;
		return -1;
	}
	f->next = g_files;
	g_files = f;
	g_nfiles++;
	atomic_store(&g_is_ucma[fd], 1);
	pthread_mutex_unlock(&g_lock);
	if (emu_log_enabled)
		emu_log("open %s -> fd %d", EMU_UCMA_PATH, fd);
	return fd;
}

static struct ucma_file *file_get(int fd)
{
	struct ucma_file *f;
	for (f = g_files; f; f = f->next)
		if (f->fd == fd && !f->closed)
			break;
	if (f)
		f->refs++;
	return f;
}

static uint32_t id_destroy(struct ucma_id *id);

/* The last reference of a closed file: ucma_close destroys every id of the file (listeners first, so their
 * queued requests go with them). A GET_EVENT blocked in another thread holds a reference, as the kernel's
 * write() holds the file, so the ids live until it returns. */
static void file_release(struct ucma_file *f)
{
	for (uint32_t h = 0; h < g_ids_cap; h++)
		if (g_ids[h] && g_ids[h]->file == f && g_ids[h]->state == S_LISTEN)
			id_destroy(g_ids[h]);
	for (uint32_t h = 0; h < g_ids_cap; h++)
		if (g_ids[h] && g_ids[h]->file == f)
			id_destroy(g_ids[h]);
	for (struct ucma_event *e = f->head, *n; e; e = n) {
		n = e->next;
		free(e);
	}
	for (struct ucma_file **pp = &g_files; *pp; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	pthread_cond_destroy(&f->cond);
	free(f);
	if (--g_nfiles == 0 && g_thread_running) {
		g_thread_stop = 1;
		g_thread_running = 0;
		g_join_pending = 1;
	}
}

static void file_put(struct ucma_file *f)
{
	if (--f->refs == 0)
		file_release(f);
}

/* After dropping g_lock: the CM thread stops with the last file. */
static void maybe_join(void)
{
	pthread_mutex_lock(&g_lock);
	int join = g_join_pending && !g_thread_running;
	pthread_t t = g_thread;
	g_join_pending = 0;
	pthread_mutex_unlock(&g_lock);
	if (join) {
		cm_wake_self();
		pthread_join(t, NULL);
	}
}

void emu_ucma_close(int fd)
{
	pthread_mutex_lock(&g_lock);
	struct ucma_file *f = file_get(fd);
	if (f) {
		f->closed = 1;
		atomic_store(&g_is_ucma[fd], 0);
		f->refs--;       /* the open reference */
		file_put(f);     /* ours */
	}
	pthread_mutex_unlock(&g_lock);
	maybe_join();
}

__attribute__((destructor)) static void ucma_fini(void)
{
	cm_wire_fini();
}

/* ---- command helpers ---- */

static size_t addr_size(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET: return sizeof(struct sockaddr_in);
	case AF_INET6: return sizeof(struct sockaddr_in6);
	case 27 /* AF_IB */: return 48; /* sizeof(struct sockaddr_ib) */
	default: return 0;
	}
}

static void to_storage(struct sockaddr_in6 *dst, const void *src)
{
	memset(dst, 0, sizeof(*dst));
	const struct sockaddr *sa = src;
	if (sa->sa_family == AF_INET)
		memcpy(dst, src, sizeof(struct sockaddr_in));
	else if (sa->sa_family == AF_INET6)
		memcpy(dst, src, sizeof(struct sockaddr_in6));
}

static const char *addr_str(const struct sockaddr_in6 *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	if (a->sin6_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, ip, sizeof(ip));
	else if (a->sin6_family == AF_INET6)
		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
	snprintf(buf, len, "%s%s%s:%u", a->sin6_family == AF_INET6 ? "[" : "", ip,
		 a->sin6_family == AF_INET6 ? "]" : "", emu_cm_addr_port((const struct sockaddr *)a));
	return buf;
}

/* rdma_bind_addr(): state IDLE only; an address must belong to a port (EADDRNOTAVAIL when no interface has
 * it; ENODEV when it is a loopback address, which the host has, but no RDMA port owns); AF_IB is not
 * emulated (EAFNOSUPPORT), so librdmacm keeps to the IP commands (ucma_set_af_ib_support). */
static int do_bind(struct ucma_id *id, const struct sockaddr *addr)
{
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return EAFNOSUPPORT;
	if (id->state != S_IDLE)
		return EINVAL;
	int dev = -1;
	if (!emu_cm_addr_any(addr)) {
		dev = emu_cm_addr_device(addr);
		if (dev < 0)
			return emu_cm_loopback_addr(addr) ? ENODEV : EADDRNOTAVAIL;
	}
	struct sockaddr_in6 a;
	to_storage(&a, addr);
	int afonly = addr->sa_family == AF_INET ? 1 : (id->afonly_set ? id->afonly : 0);
	int slot = cm_dir_bind(id->ps, (struct sockaddr *)&a, id->reuse, afonly, id->handle, id->cookie);
	if (slot < 0)
		return -slot;
	id->dir_slot = slot;
	id->afonly = (uint8_t)afonly;
	id->src = a;
	id->dev = dev;
	id->state = S_ADDR_BOUND;
	if (emu_log_enabled) {
		char b[80];
		emu_log("rdma_cm: t=%llu id %u bound to %s (ps 0x%x, device %d)", (unsigned long long)(now_ns() / 1000), id->handle, addr_str(&a, b, sizeof(b)),
			id->ps, dev);
	}
	return 0;
}

static int is_mcast_addr(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 28) == 0xe;
	if (sa->sa_family == AF_INET6)
		return ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr[0] == 0xff;
	return 0;
}

static int do_resolve_addr(struct ucma_id *id, const struct sockaddr *src, const struct sockaddr *dst,
			   uint32_t timeout_ms)
{
	if (dst->sa_family != AF_INET && dst->sa_family != AF_INET6)
		return dst->sa_family == 27 ? EAFNOSUPPORT : EINVAL;
	if (id->state == S_IDLE) {
		/* cma_bind_addr(): the source address, or the wildcard of the destination's family */
		struct sockaddr_in6 any;
		memset(&any, 0, sizeof(any));
		any.sin6_family = dst->sa_family;
		int err = do_bind(id, src && src->sa_family ? src : (struct sockaddr *)&any);
		if (err)
			return err;
	}
	if (id->src.sin6_family != dst->sa_family)
		return EINVAL;
	if (id->state != S_ADDR_BOUND)
		return EINVAL;
	to_storage(&id->dst, dst);
	struct sockaddr_in6 d = id->dst;
	if (emu_cm_addr_any((struct sockaddr *)&d)) {
		/* cma_resolve_loopback(): the wildcard means this host */
		if (id->dev >= 0)
			d = id->src;
		else
			to_storage(&d, emu_cm_ip(0, 0));
		emu_cm_addr_set_port((struct sockaddr *)&d, emu_cm_addr_port((struct sockaddr *)&id->dst));
	}
	int dst_dev = emu_cm_addr_device((struct sockaddr *)&d);
	int mcast = is_mcast_addr((struct sockaddr *)&d);
	if (mcast) {
		/* a multicast destination resolves on the source's port (the group MAC needs no neighbour) */
		dst_dev = id->dev >= 0 ? id->dev : 0;
		if (id->dev < 0) {
			for (int k = 0; k < emu_cm_ip_count(dst_dev); k++)
				if (emu_cm_ip(dst_dev, k)->sa_family == d.sin6_family) {
					uint16_t port = emu_cm_addr_port((struct sockaddr *)&id->src);
					to_storage(&id->src, emu_cm_ip(dst_dev, k));
					emu_cm_addr_set_port((struct sockaddr *)&id->src, port);
					id->dev = dst_dev;
					break;
				}
			if (id->dev < 0)
				dst_dev = -1;
		}
	}
	id->state = S_ADDR_QUERY;
	if (dst_dev < 0) {
		/* no port answers for the address: the neighbour never resolves */
		set_timer(id, T_ADDR, (uint64_t)timeout_ms * 1000000ull);
		return 0;
	}
	if (id->dev < 0) {
		/* bound to the wildcard: the route's source is the destination itself (loopback) */
		uint16_t port = emu_cm_addr_port((struct sockaddr *)&id->src);
		id->src = d;
		emu_cm_addr_set_port((struct sockaddr *)&id->src, port);
		id->dev = dst_dev;
	}
	if (mcast) {
		id->dst = d;
		set_timer(id, T_ADDR_DONE, resolve_ns());
		cm_wake_self();
		return 0;
	}
	id->peer_lid = emu_port_info(dst_dev)->lid;
	if (eth(id))
		emu_cm_addr_gid((struct sockaddr *)&d, id->peer_gid);
	else
		memcpy(id->peer_gid, emu_port_info(dst_dev)->gid[0].raw, 16);
	id->peer_mtu = port_mtu(id);
	id->dst = d;
	set_timer(id, T_ADDR_DONE, resolve_ns());
	cm_wake_self();
	return 0;
}

static void fill_path(const struct ucma_id *id, struct ib_user_path_rec *p)
{
	memset(p, 0, sizeof(*p));
	local_gid(id, p->sgid);
	memcpy(p->dgid, id->peer_gid, 16);
	p->slid = htons(id_port(id)->lid);
	p->dlid = htons(id->peer_lid);
	p->reversible = 1;
	p->mtu = path_mtu(id);
	p->pkey = htons(0xffff);
	p->hop_limit = eth(id) ? 64 : 0;
	p->traffic_class = path_tclass(id);
	p->sl = path_sl(id);
	p->numb_path = 1;
	p->mtu_selector = 2;
	p->rate_selector = 2;
	p->rate = PATH_RATE;
	p->packet_life_time_selector = 2;
	p->packet_life_time = pkt_lifetime(id);
}

/* The address vector to the peer: no GRH inside the IB subnet, the RoCE v2 GID of our address on Ethernet. */
static void ah_to_user(const struct ucma_id *id, struct ib_uverbs_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = id->peer_lid;
	ah->static_rate = PATH_RATE;
	ah->port_num = 1;
	if (eth(id)) {
		uint8_t sgid[16];
		local_gid(id, sgid);
		int idx = emu_cm_gid_index(id_port(id), sgid, 1);
		ah->is_global = 1;
		ah->dlid = 0;
		memcpy(ah->grh.dgid, id->peer_gid, 16);
		ah->grh.sgid_index = (uint8_t)(idx < 0 ? 1 : idx);
		ah->grh.hop_limit = 64;
		/* ib_init_ah_attr_from_path: the GRH's traffic class is the path's */
		ah->grh.traffic_class = path_tclass(id);
	}
	ah->sl = path_sl(id);
}

static void ud_ah_to_user(const struct ucma_id *id, struct ib_uverbs_ah_attr *ah) { ah_to_user(id, ah); }

/* ---- handlers: each returns 0 or a positive errno ---- */

struct ucmd {
	struct ucma_file *f;
	const uint8_t *in;      /* the request after the header, copied */
	size_t in_len;
	size_t out_len;
};

#define IN(type, name) type name; memset(&name, 0, sizeof(name)); \
	memcpy(&name, c->in, c->in_len < sizeof(name) ? c->in_len : sizeof(name))

static int respond(uint64_t va, const void *src, size_t len)
{
	return emu_copy_to_user(va, src, len) ? EFAULT : 0;
}

static int c_create_id(struct ucmd *c)
{
	IN(struct rdma_ucm_create_id, cmd);
	struct rdma_ucm_create_id_resp resp;
	uint8_t qp_type;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	switch (cmd.ps) { /* ucma_get_qp_type */
	case RDMA_PS_TCP: qp_type = 2; break;
	case RDMA_PS_UDP: case RDMA_PS_IPOIB: qp_type = 4; break;
	case RDMA_PS_IB: qp_type = cmd.qp_type; break;
	default: return EINVAL;
	}
	struct ucma_id *id = id_alloc(c->f, cmd.ps, qp_type);
	if (!id)
		return ENOMEM;
	id->uid = cmd.uid;
	resp.id = id->handle;
	if (respond(cmd.response, &resp, sizeof(resp))) {
		id_free(id);
		return EFAULT;
	}
	return 0;
}

static int c_destroy_id(struct ucmd *c)
{
	IN(struct rdma_ucm_destroy_id, cmd);
	struct rdma_ucm_destroy_id_resp resp;
	int err;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	resp.events_reported = id_destroy(id);
	return respond(cmd.response, &resp, sizeof(resp));
}

static int c_bind_ip(struct ucmd *c)
{
	IN(struct rdma_ucm_bind_ip, cmd);
	int err;
	if (!addr_size((struct sockaddr *)&cmd.addr) || cmd.addr.sin6_family == 27)
		return EINVAL; /* rdma_addr_size_in6 */
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	return id ? do_bind(id, (struct sockaddr *)&cmd.addr) : err;
}

static int c_bind(struct ucmd *c)
{
	IN(struct rdma_ucm_bind, cmd);
	int err;
	if (cmd.reserved || !cmd.addr_size || cmd.addr_size != addr_size((struct sockaddr *)&cmd.addr))
		return EINVAL;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	return id ? do_bind(id, (struct sockaddr *)&cmd.addr) : err;
}

static int c_resolve_ip(struct ucmd *c)
{
	IN(struct rdma_ucm_resolve_ip, cmd);
	int err;
	if ((cmd.src_addr.sin6_family && !addr_size((struct sockaddr *)&cmd.src_addr)) ||
	    !addr_size((struct sockaddr *)&cmd.dst_addr))
		return EINVAL;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	return do_resolve_addr(id, (struct sockaddr *)&cmd.src_addr, (struct sockaddr *)&cmd.dst_addr, cmd.timeout_ms);
}

static int c_resolve_addr(struct ucmd *c)
{
	IN(struct rdma_ucm_resolve_addr, cmd);
	int err;
	if (cmd.reserved || (cmd.src_size && cmd.src_size != addr_size((struct sockaddr *)&cmd.src_addr)) ||
	    !cmd.dst_size || cmd.dst_size != addr_size((struct sockaddr *)&cmd.dst_addr))
		return EINVAL;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	return do_resolve_addr(id, cmd.src_size ? (struct sockaddr *)&cmd.src_addr : NULL,
			       (struct sockaddr *)&cmd.dst_addr, cmd.timeout_ms);
}

static int c_resolve_route(struct ucmd *c)
{
	IN(struct rdma_ucm_resolve_route, cmd);
	int err;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (id->state != S_ADDR_RESOLVED)
		return EINVAL;
	/* the emulated SM (IB) or the IP route (RoCE) always answers */
	id->route_tclass = path_tclass(id);
	id->route_tclass_set = 1;
	id->state = S_ROUTE_QUERY;
	set_timer(id, T_ROUTE_DONE, resolve_ns());
	cm_wake_self();
	return 0;
}

static int c_query_route(struct ucmd *c)
{
	IN(struct rdma_ucm_query, cmd);
	struct rdma_ucm_query_route_resp resp;
	int err;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	memset(&resp, 0, sizeof(resp));
	memcpy(&resp.src_addr, &id->src, sizeof(resp.src_addr));
	memcpy(&resp.dst_addr, &id->dst, sizeof(resp.dst_addr));
	if (id->dev >= 0) {
		const struct emu_port_info *p = id_port(id);
		resp.node_guid = htobe64(p->node_guid);
		resp.ibdev_index = (uint32_t)id->dev;
		resp.port_num = 1;
		if (id->route) {
			resp.num_paths = 1;
			fill_path(id, &resp.ib_route[0]);
		} else {
			/* ucma_copy_ib_route / ucma_copy_iboe_route without a path: the GIDs and the P_Key */
			local_gid(id, resp.ib_route[0].sgid);
			if (id->state == S_ADDR_RESOLVED)
				memcpy(resp.ib_route[0].dgid, id->peer_gid, 16);
			resp.ib_route[0].pkey = htons(0xffff);
		}
	}
	return respond(cmd.response, &resp, sizeof(resp));
}

/* SA PathRecord wire format (IBA 15.2.5.16) as struct ib_path_rec_data carries it for QUERY PATH */
static void pack_path(const struct ib_user_path_rec *p, uint8_t out[64])
{
	memset(out, 0, 64);
	memcpy(out + 8, p->dgid, 16);
	memcpy(out + 24, p->sgid, 16);
	memcpy(out + 40, &p->dlid, 2);
	memcpy(out + 42, &p->slid, 2);
	uint32_t fl = htonl(p->hop_limit);
	memcpy(out + 44, &fl, 4);
	out[48] = p->traffic_class;
	out[49] = (uint8_t)(0x80 | 1);
	memcpy(out + 50, &p->pkey, 2);
	out[53] = p->sl & 0xf;
	out[54] = (uint8_t)(p->mtu_selector << 6 | p->mtu);
	out[55] = (uint8_t)(p->rate_selector << 6 | p->rate);
	out[56] = (uint8_t)(p->packet_life_time_selector << 6 | p->packet_life_time);
}

static int c_query(struct ucmd *c)
{
	IN(struct rdma_ucm_query, cmd);
	int err;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	switch (cmd.option) {
	case RDMA_USER_CM_QUERY_ADDR: {
		struct rdma_ucm_query_addr_resp resp;
		if (c->out_len < sizeof(resp))
			return ENOSPC;
		memset(&resp, 0, sizeof(resp));
		resp.src_size = (uint16_t)addr_size((struct sockaddr *)&id->src);
		memcpy(&resp.src_addr, &id->src, resp.src_size);
		resp.dst_size = (uint16_t)addr_size((struct sockaddr *)&id->dst);
		memcpy(&resp.dst_addr, &id->dst, resp.dst_size);
		if (id->dev >= 0) {
			resp.node_guid = htobe64(id_port(id)->node_guid);
			resp.ibdev_index = (uint32_t)id->dev;
			resp.port_num = 1;
			resp.pkey = htons(0xffff);
		}
		return respond(cmd.response, &resp, sizeof(resp));
	}
	case RDMA_USER_CM_QUERY_PATH: {
		uint8_t buf[sizeof(struct rdma_ucm_query_path_resp) + sizeof(struct ib_path_rec_data)];
		struct rdma_ucm_query_path_resp *resp = (void *)buf;
		if (c->out_len < sizeof(*resp))
			return ENOSPC;
		memset(buf, 0, sizeof(buf));
		size_t len = sizeof(*resp);
		if (id->route && c->out_len >= sizeof(buf)) {
			struct ib_user_path_rec p;
			fill_path(id, &p);
			resp->num_paths = 1;
			resp->path_data[0].flags = 1 | 2 | 8 | 32; /* GMP | PRIMARY | BIDIRECTIONAL (ib_user_sa.h) */
			pack_path(&p, (uint8_t *)resp->path_data[0].path_rec);
			len = sizeof(buf);
		}
		return respond(cmd.response, buf, len);
	}
	case RDMA_USER_CM_QUERY_GID: {
		struct rdma_ucm_query_addr_resp resp;
		if (c->out_len < sizeof(resp))
			return ENOSPC;
		memset(&resp, 0, sizeof(resp));
		if (id->dev >= 0) {
			/* sockaddr_ib: family, pkey, flowinfo, then the GID at offset 8 */
			resp.src_size = resp.dst_size = 48;
			((uint16_t *)&resp.src_addr)[0] = 27;
			((uint16_t *)&resp.dst_addr)[0] = 27;
			local_gid(id, (uint8_t *)&resp.src_addr + 8);
			memcpy((uint8_t *)&resp.dst_addr + 8, id->peer_gid, 16);
			resp.node_guid = htobe64(id_port(id)->node_guid);
			resp.port_num = 1;
		}
		return respond(cmd.response, &resp, sizeof(resp));
	}
	default:
		return ENOSYS;
	}
}

static int c_listen(struct ucmd *c)
{
	IN(struct rdma_ucm_listen, cmd);
	int err;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (id->state == S_IDLE) {
		struct sockaddr_in any;
		memset(&any, 0, sizeof(any));
		any.sin_family = AF_INET;
		err = do_bind(id, (struct sockaddr *)&any);
		if (err)
			return err;
	}
	if (id->state != S_ADDR_BOUND)
		return EINVAL;
	err = cm_dir_listen(id->dir_slot);
	if (err)
		return err;
	id->backlog = (int)cmd.backlog > 0 && cmd.backlog < MAX_BACKLOG ? (int)cmd.backlog : MAX_BACKLOG;
	id->state = S_LISTEN;
	return 0;
}

static int c_connect(struct ucmd *c)
{
	IN(struct rdma_ucm_connect, cmd);
	int err;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (!cmd.conn_param.valid)
		return EINVAL;
	if (id->state != S_ROUTE_RESOLVED)
		return EINVAL;
	uint32_t max = (is_ud(id) ? PD_SIDR_REQ : PD_REQ) - CMA_HDR;
	if (cmd.conn_param.private_data_len > max)
		return EINVAL;
	id->qpn = cmd.conn_param.qp_num & 0xffffff;
	id->srq = cmd.conn_param.srq;
	id->resp_res = cmd.conn_param.responder_resources;
	id->init_depth = cmd.conn_param.initiator_depth;
	id->flow_control = cmd.conn_param.flow_control;
	id->retry = cmd.conn_param.retry_count > 7 ? 7 : cmd.conn_param.retry_count;
	id->rnr_retry = cmd.conn_param.rnr_retry_count > 7 ? 7 : cmd.conn_param.rnr_retry_count;
	id->psn = (uint32_t)(now_ns() * 2246822519u) & 0xffffff;
	id->state = S_REQ_SENT;
	set_timer(id, T_REQ, cm_timeout_ns());

	struct cm_dir_hit hit;
	char b[80];
	if (emu_log_enabled)
		emu_log("rdma_cm: t=%llu id %u connects to %s (ps 0x%x)", (unsigned long long)(now_ns() / 1000), id->handle, addr_str(&id->dst, b, sizeof(b)), id->ps);
	if (cm_dir_find_listener(id->ps, (struct sockaddr *)&id->dst, &hit) != 0) {
		/* the destination's CM has no listener for the service ID */
		id->timer = T_NONE;
		id->state = S_DONE;
		if (is_ud(id)) {
			queue_event(id, EV_UNREACHABLE, SIDR_UNSUPPORTED);
		} else {
			struct ucma_event *e = queue_event(id, EV_REJECTED, REJ_INVALID_SERVICE_ID);
			if (e)
				e->resp.param.conn.private_data_len = PD_REJ;
		}
		return 0;
	}
	id->peer_pid = hit.pid;
	id->peer_id = hit.id;
	id->peer_cookie = hit.cookie;
	send_msg(id, is_ud(id) ? CM_SIDR_REQ : CM_REQ, 0, cmd.conn_param.private_data,
		 cmd.conn_param.private_data_len);
	return 0;
}

static int c_accept(struct ucmd *c)
{
	IN(struct rdma_ucm_accept, cmd);
	int err;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (!cmd.conn_param.valid) {
		/* cma_rep_recv(): the active side confirms the REP with an RTU */
		if (id->state != S_REP_RCVD)
			return EINVAL;
		send_msg(id, CM_RTU, 0, NULL, 0);
		id->state = S_ESTABLISHED;
		return 0;
	}
	if (id->state != S_REQ_RCVD || id->listener)
		return EINVAL;
	if (is_ud(id)) {
		if (cmd.conn_param.private_data_len > PD_SIDR_REP)
			return EINVAL;
		id->qpn = cmd.conn_param.qp_num & 0xffffff;
		id->uid = cmd.uid;
		send_msg(id, CM_SIDR_REP, SIDR_SUCCESS, cmd.conn_param.private_data, cmd.conn_param.private_data_len);
		id->state = S_DONE;
		return 0;
	}
	if (cmd.conn_param.private_data_len > PD_REP)
		return EINVAL;
	id->qpn = cmd.conn_param.qp_num & 0xffffff;
	id->srq = cmd.conn_param.srq;
	id->resp_res = cmd.conn_param.responder_resources;
	id->init_depth = cmd.conn_param.initiator_depth;
	id->flow_control = cmd.conn_param.flow_control;
	id->rnr_retry = cmd.conn_param.rnr_retry_count > 7 ? 7 : cmd.conn_param.rnr_retry_count;
	id->uid = cmd.uid;
	id->state = S_REP_SENT;
	set_timer(id, T_REP, cm_timeout_ns());
	send_msg(id, CM_REP, 0, cmd.conn_param.private_data, cmd.conn_param.private_data_len);
	return 0;
}

static int c_reject(struct ucmd *c)
{
	IN(struct rdma_ucm_reject, cmd);
	int err;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (!cmd.reason)
		cmd.reason = REJ_CONSUMER_DEFINED;
	if (cmd.reason != REJ_CONSUMER_DEFINED && cmd.reason != REJ_VENDOR_OPTION_NOT_SUPPORTED)
		return EINVAL;
	if (cmd.private_data_len > PD_REJ)
		return EINVAL;
	if (id->state != S_REQ_RCVD && id->state != S_REP_RCVD)
		return EINVAL;
	if (is_ud(id))
		send_msg(id, CM_SIDR_REP, SIDR_REJECT, cmd.private_data, cmd.private_data_len);
	else
		send_msg(id, CM_REJ, cmd.reason, cmd.private_data, cmd.private_data_len);
	id->state = S_DONE;
	return 0;
}

static int c_disconnect(struct ucmd *c)
{
	IN(struct rdma_ucm_disconnect, cmd);
	int err;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	/* rdma_disconnect: ids that never had a CM id are EINVAL; otherwise a DREQ if established, else a DREP
	 * if the peer asked, else nothing (still 0) */
	if (!id->peer_pid && id->state != S_DREQ_RCVD && id->state != S_TIMEWAIT && id->state != S_DONE)
		return EINVAL;
	if (id->state == S_ESTABLISHED) {
		send_msg(id, CM_DREQ, 0, NULL, 0);
		id->state = S_DREQ_SENT;
		set_timer(id, T_DREQ, cm_timeout_ns());
	} else if (id->state == S_DREQ_RCVD) {
		send_msg(id, CM_DREP, 0, NULL, 0);
		enter_timewait(id);
	}
	return 0;
}

static int c_init_qp_attr(struct ucmd *c)
{
	IN(struct rdma_ucm_init_qp_attr, cmd);
	struct ib_uverbs_qp_attr r;
	int err;

	if (c->out_len < sizeof(r))
		return ENOSPC;
	if (cmd.qp_state > 6)
		return EINVAL;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (id->dev < 0)
		return EINVAL;
	memset(&r, 0, sizeof(r));
	r.qp_state = cmd.qp_state;
	r.port_num = 1;
	r.pkey_index = 0;
	int connected = id->state == S_REQ_RCVD || id->state == S_REP_SENT || id->state == S_REP_RCVD ||
			id->state == S_ESTABLISHED;
	if (is_ud(id)) {
		/* cma_ib_init_qp_attr for UD, whatever the state asked */
		r.qkey = id->qkey;
		r.qp_attr_mask = QPA_STATE | QPA_PKEY_INDEX | QPA_PORT | QPA_QKEY;
	} else if (cmd.qp_state == 1 /* INIT */) {
		r.qp_attr_mask = QPA_STATE | QPA_PKEY_INDEX | QPA_PORT | QPA_ACCESS_FLAGS;
		if (connected) /* cm_init_qp_init_attr */
			r.qp_access_flags = ACC_REMOTE_WRITE | (id->resp_res ? ACC_REMOTE_READ | ACC_REMOTE_ATOMIC : 0);
	} else if (cmd.qp_state == 2 /* RTR */ && connected) {
		r.qp_attr_mask = QPA_STATE | QPA_AV | QPA_PATH_MTU | QPA_DEST_QPN | QPA_RQ_PSN |
				 QPA_MAX_DEST_RD_ATOMIC | QPA_MIN_RNR_TIMER;
		ah_to_user(id, &r.ah_attr);
		r.path_mtu = path_mtu(id);
		r.dest_qp_num = id->peer_qpn;
		r.rq_psn = id->peer_psn;
		r.max_dest_rd_atomic = id->resp_res;
		r.min_rnr_timer = 0;
	} else if (cmd.qp_state == 3 /* RTS */ && connected) {
		r.qp_attr_mask = QPA_STATE | QPA_SQ_PSN | QPA_TIMEOUT | QPA_RETRY_CNT | QPA_RNR_RETRY |
				 QPA_MAX_QP_RD_ATOMIC;
		r.sq_psn = id->psn;
		r.timeout = ack_timeout(id);
		r.retry_cnt = id->retry;
		r.rnr_retry = id->rnr_retry;
		r.max_rd_atomic = id->init_depth;
	} else {
		return EINVAL;
	}
	return respond(cmd.response, &r, sizeof(r));
}

static int c_get_event(struct ucmd *c)
{
	IN(struct rdma_ucm_get_event, cmd);
	struct ucma_file *f = c->f;

	if (c->out_len < sizeof(struct rdma_ucm_event_resp))
		return ENOSPC;
	/* ucma_get_event: O_NONBLOCK (of the open file, set with fcntl) is EAGAIN, else wait for an event */
	while (!f->head) {
		if (!f->closed && (fcntl(f->fd, F_GETFL) & O_NONBLOCK))
			return EAGAIN;
		pthread_cond_wait(&f->cond, &g_lock);
	}
	struct ucma_event *ev = f->head;
	if (emu_copy_to_user(cmd.response, &ev->resp, sizeof(ev->resp)))
		return EFAULT;
	f->head = ev->next;
	if (!f->head)
		f->tail = NULL;
	ev->id->events_reported++;
	if (ev->mc)
		ev->mc->events_reported++;
	if (ev->conn) {
		ev->conn->listener = NULL; /* the user knows it now */
		ev->id->backlog++;
	}
	free(ev);
	file_signal(f);
	return 0;
}

static int c_set_option(struct ucmd *c)
{
	IN(struct rdma_ucm_set_option, cmd);
	int err;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (cmd.optlen > 4096)
		return EINVAL; /* ucma_set_option: memdup_user of optlen, bounded by the kernel's allocator */
	uint8_t val[4096];
	if (cmd.optlen && emu_copy_from_user(val, cmd.optval, cmd.optlen))
		return EFAULT;
	if (cmd.level == RDMA_OPTION_ID) {
		switch (cmd.optname) {
		case RDMA_OPTION_ID_TOS:
			if (cmd.optlen != 1)
				return EINVAL;
			id->tos = val[0];
			id->tos_set = 1;
			return 0;
		case RDMA_OPTION_ID_REUSEADDR: {
			if (cmd.optlen != sizeof(int))
				return EINVAL;
			int v;
			memcpy(&v, val, sizeof(v));
			/* rdma_set_reuseaddr: only before binding */
			if (id->state != S_IDLE)
				return EINVAL;
			id->reuse = (uint8_t)!!v;
			return 0;
		}
		case RDMA_OPTION_ID_AFONLY: {
			if (cmd.optlen != sizeof(int))
				return EINVAL;
			int v;
			memcpy(&v, val, sizeof(v));
			if (id->state != S_IDLE)
				return EINVAL;
			id->afonly = (uint8_t)!!v;
			id->afonly_set = 1;
			return 0;
		}
		case RDMA_OPTION_ID_ACK_TIMEOUT:
			if (cmd.optlen != 1)
				return EINVAL;
			id->ack_timeout = val[0] > 31 ? 31 : val[0];
			id->ack_timeout_set = 1;
			return 0;
		default:
			return ENOSYS;
		}
	}
	if (cmd.level == RDMA_OPTION_IB && cmd.optname == RDMA_OPTION_IB_PATH) {
		/* ucma_set_ib_path: whole path records, at least one; the route is then resolved with our path */
		if (!cmd.optlen || cmd.optlen % sizeof(struct ib_path_rec_data))
			return EINVAL;
		if (id->state != S_ADDR_RESOLVED)
			return EINVAL;
		id->state = S_ROUTE_QUERY;
		set_timer(id, T_ROUTE_DONE, resolve_ns());
		cm_wake_self();
		return 0;
	}
	return ENOSYS;
}

static int c_notify(struct ucmd *c)
{
	IN(struct rdma_ucm_notify, cmd);
	int err;
	struct ucma_id *id = id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (!id->peer_pid && id->state != S_ESTABLISHED)
		return EINVAL;
	if (cmd.event != IBV_EVENT_COMM_EST)
		return EINVAL;
	/* ib_cm_notify -> cm_establish: REP_SENT becomes ESTABLISHED (a receive completed before the RTU) */
	if (id->state == S_ESTABLISHED)
		return EISCONN;
	if (id->state != S_REP_SENT)
		return EINVAL;
	id->state = S_ESTABLISHED;
	id->timer = T_NONE;
	queue_event(id, EV_ESTABLISHED, 0);
	return 0;
}

/* ucma_migrate_id: written to the new channel; cmd.fd names the channel the id lives on now */
static int c_migrate_id(struct ucmd *c)
{
	IN(struct rdma_ucm_migrate_id, cmd);
	struct rdma_ucm_migrate_resp resp;
	int err;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	struct ucma_file *of = NULL, *nf = c->f;
	for (struct ucma_file *f = g_files; f; f = f->next)
		if (f->fd == (int)cmd.fd && !f->closed)
			of = f;
	if (!of)
		return fcntl((int)cmd.fd, F_GETFD) >= 0 ? EINVAL : EBADF; /* not a ucma file / no file */
	struct ucma_id *id = id_get(of, cmd.id, &err);
	if (!id)
		return err;
	resp.events_reported = id->events_reported;
	if (nf != of) {
		/* move the id and its queued events */
		struct ucma_event **pp = &of->head, *prev = NULL;
		while (*pp) {
			struct ucma_event *e = *pp;
			if (e->id == id) {
				*pp = e->next;
				if (of->tail == e)
					of->tail = prev;
				e->next = NULL;
				if (nf->tail)
					nf->tail->next = e;
				else
					nf->head = e;
				nf->tail = e;
				continue;
			}
			prev = e;
			pp = &e->next;
		}
		id->file = nf;
		for (uint32_t h = 0; h < g_ids_cap; h++) /* passive ids not yet reported follow their listener */
			if (g_ids[h] && g_ids[h]->listener == id)
				g_ids[h]->file = nf;
		file_signal(of);
		file_signal(nf);
	}
	return respond(cmd.response, &resp, sizeof(resp));
}

/* cma_set_mgid / cma_iboe_set_mgid: the group's MGID from the address. IB: the IPoIB mapping (ip_ib_mc_map,
 * ipv6_ib_mc_map) with the broadcast group's scope 2 and P_Key 0xffff, byte 3 = 0x01 for RDMA_PS_UDP (the
 * RDMA CM signature). RoCE: the port's default GID type for rdma_cm is RoCE v2 (cma_add_one prefers
 * CMA_PREFERRED_ROCE_GID_TYPE, IB_GID_TYPE_ROCE_UDP_ENCAP), for which cma_iboe_set_mgid maps an IPv4 group to
 * the IPv4-mapped ::ffff:a.b.c.d (ff0e::ffff:a.b.c.d is the RoCE v1 form); IPv6 groups never get here on RoCE
 * (do_join). */
static void mc_mgid(const struct ucma_id *id, const struct sockaddr *sa, uint8_t mgid[16])
{
	memset(mgid, 0, 16);
	if (eth(id)) {
		mgid[10] = mgid[11] = 0xff;
		memcpy(mgid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return;
	}
	mgid[0] = 0xff;
	mgid[1] = 0x12;
	mgid[2] = sa->sa_family == AF_INET ? 0x40 : 0x60;
	mgid[3] = id->ps == RDMA_PS_UDP ? 0x01 : 0x1b;
	mgid[4] = mgid[5] = 0xff;
	if (sa->sa_family == AF_INET) {
		memcpy(mgid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		mgid[12] &= 0x0f;
	} else {
		memcpy(mgid + 6, &((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr[6], 10);
	}
}

/* rdma_join_multicast: the emulated SA (IB) creates the group at once; the join completes on the CM thread's
 * schedule like a MAD would, reported as MULTICAST_JOIN with the group's address vector, QPN 0xffffff and Q_Key. */
static int do_join(struct ucmd *c, uint32_t handle, uint64_t uid, uint64_t response, const struct sockaddr *addr,
		   uint16_t join_flags)
{
	struct rdma_ucm_create_id_resp resp;
	int err;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	if (join_flags != RDMA_MC_JOIN_FLAG_FULLMEMBER && join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		return EINVAL;
	struct ucma_id *id = id_get(c->f, handle, &err);
	if (!id)
		return err;
	if (id->dev < 0 || (id->state != S_ADDR_BOUND && id->state != S_ADDR_RESOLVED))
		return EINVAL;
	if (!is_mcast_addr(addr))
		return EINVAL;
	if (eth(id) && addr->sa_family == AF_INET6)
		return KERNEL_ENOTSUPP; /* cma_iboe_join_multicast: an IPv6 group with the RoCE v2 GID type */
	uint32_t h = 0;
	while (h < g_mcs_cap && g_mcs[h])
		h++;
	if (h == g_mcs_cap) {
		uint32_t cap = g_mcs_cap ? g_mcs_cap * 2 : 16;
		if (cap > 1u << 16)
			return ENOMEM;
		struct ucma_mc **n = realloc(g_mcs, cap * sizeof(*n));
		if (!n)
			return ENOMEM;
		memset(n + g_mcs_cap, 0, (cap - g_mcs_cap) * sizeof(*n));
		g_mcs = n;
		g_mcs_cap = cap;
	}
	struct ucma_mc *mc = calloc(1, sizeof(*mc));
	if (!mc)
		return ENOMEM;
	mc->id = id;
	mc->handle = h;
	mc->uid = uid;
	mc_mgid(id, addr, mc->mgid);
	mc->mlid = eth(id) ? 0 : (uint16_t)(0xc000 | ((mc->mgid[14] << 8 | mc->mgid[15]) & 0x3fff));
	resp.id = h;
	if (respond(response, &resp, sizeof(resp))) {
		free(mc);
		return EFAULT;
	}
	g_mcs[h] = mc;
	struct ucma_event *e = queue_event(id, EV_MULTICAST_JOIN, 0);
	if (e) {
		e->mc = mc;
		e->resp.uid = mc->uid;
		e->resp.id = mc->handle;
		struct rdma_ucm_ud_param *u = &e->resp.param.ud;
		struct ib_uverbs_ah_attr *ah = &u->ah_attr;
		memset(ah, 0, sizeof(*ah));
		ah->is_global = 1;
		ah->dlid = mc->mlid;
		ah->port_num = 1;
		ah->static_rate = PATH_RATE;
		memcpy(ah->grh.dgid, mc->mgid, 16);
		if (eth(id)) {
			uint8_t sgid[16];
			local_gid(id, sgid);
			int idx = emu_cm_gid_index(id_port(id), sgid, 1);
			ah->grh.sgid_index = (uint8_t)(idx < 0 ? 1 : idx);
			ah->grh.hop_limit = 64;
		}
		/* the group's traffic class, not the id's TOS: cma_iboe_join_multicast leaves the RoCE member record's
		 * traffic class 0, and on IB it is the SA's MCMemberRecord of the group (TClass 0 for the groups the
		 * emulated SM creates) */
		ah->grh.traffic_class = 0;
		u->qp_num = 0xffffff;
		u->qkey = id->qkey;
	}
	return 0;
}

static int c_join_ip(struct ucmd *c)
{
	IN(struct rdma_ucm_join_ip_mcast, cmd);
	if (!addr_size((struct sockaddr *)&cmd.addr) || cmd.addr.sin6_family == 27)
		return EINVAL;
	return do_join(c, cmd.id, cmd.uid, cmd.response, (struct sockaddr *)&cmd.addr, RDMA_MC_JOIN_FLAG_FULLMEMBER);
}

static int c_join(struct ucmd *c)
{
	IN(struct rdma_ucm_join_mcast, cmd);
	if (cmd.addr_size != addr_size((struct sockaddr *)&cmd.addr))
		return EINVAL;
	if (cmd.addr.ss_family == 27)
		return EAFNOSUPPORT;
	return do_join(c, cmd.id, cmd.uid, cmd.response, (struct sockaddr *)&cmd.addr, cmd.join_flags);
}

/* ucma_leave_multicast: the membership goes with its unreported events; returns its events_reported */
static int c_leave(struct ucmd *c)
{
	IN(struct rdma_ucm_destroy_id, cmd);
	struct rdma_ucm_destroy_id_resp resp;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	if (cmd.id >= g_mcs_cap || !g_mcs[cmd.id])
		return ENOENT;
	struct ucma_mc *mc = g_mcs[cmd.id];
	if (mc->id->file != c->f)
		return EINVAL;
	struct ucma_file *f = mc->id->file;
	struct ucma_event **pp = &f->head, *prev = NULL;
	while (*pp) {
		struct ucma_event *e = *pp;
		if (e->mc == mc) {
			*pp = e->next;
			if (f->tail == e)
				f->tail = prev;
			free(e);
			continue;
		}
		prev = e;
		pp = &e->next;
	}
	file_signal(f);
	resp.events_reported = mc->events_reported;
	g_mcs[cmd.id] = NULL;
	free(mc);
	return respond(cmd.response, &resp, sizeof(resp));
}

static const struct {
	const char *name;
	int (*fn)(struct ucmd *);
} g_cmds[] = {
	[RDMA_USER_CM_CMD_CREATE_ID] = { "CREATE_ID", c_create_id },
	[RDMA_USER_CM_CMD_DESTROY_ID] = { "DESTROY_ID", c_destroy_id },
	[RDMA_USER_CM_CMD_BIND_IP] = { "BIND_IP", c_bind_ip },
	[RDMA_USER_CM_CMD_RESOLVE_IP] = { "RESOLVE_IP", c_resolve_ip },
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE] = { "RESOLVE_ROUTE", c_resolve_route },
	[RDMA_USER_CM_CMD_QUERY_ROUTE] = { "QUERY_ROUTE", c_query_route },
	[RDMA_USER_CM_CMD_CONNECT] = { "CONNECT", c_connect },
	[RDMA_USER_CM_CMD_LISTEN] = { "LISTEN", c_listen },
	[RDMA_USER_CM_CMD_ACCEPT] = { "ACCEPT", c_accept },
	[RDMA_USER_CM_CMD_REJECT] = { "REJECT", c_reject },
	[RDMA_USER_CM_CMD_DISCONNECT] = { "DISCONNECT", c_disconnect },
	[RDMA_USER_CM_CMD_INIT_QP_ATTR] = { "INIT_QP_ATTR", c_init_qp_attr },
	[RDMA_USER_CM_CMD_GET_EVENT] = { "GET_EVENT", c_get_event },
	[RDMA_USER_CM_CMD_GET_OPTION] = { "GET_OPTION", NULL },
	[RDMA_USER_CM_CMD_SET_OPTION] = { "SET_OPTION", c_set_option },
	[RDMA_USER_CM_CMD_NOTIFY] = { "NOTIFY", c_notify },
	[RDMA_USER_CM_CMD_JOIN_IP_MCAST] = { "JOIN_IP_MCAST", c_join_ip },
	[RDMA_USER_CM_CMD_LEAVE_MCAST] = { "LEAVE_MCAST", c_leave },
	[RDMA_USER_CM_CMD_MIGRATE_ID] = { "MIGRATE_ID", c_migrate_id },
	[RDMA_USER_CM_CMD_QUERY] = { "QUERY", c_query },
	[RDMA_USER_CM_CMD_BIND] = { "BIND", c_bind },
	[RDMA_USER_CM_CMD_RESOLVE_ADDR] = { "RESOLVE_ADDR", c_resolve_addr },
	[RDMA_USER_CM_CMD_JOIN_MCAST] = { "JOIN_MCAST", c_join },
};

/* ucma_write(): header checks, then the handler; a request shorter than the command's struct reads as zeros
 * beyond what was written, as the kernel's copy of the fixed-size struct would see the caller's bytes. */
ssize_t emu_ucma_write(int fd, const void *buf, size_t len)
{
	struct rdma_ucm_cmd_hdr hdr;
	uint8_t in[1024];
	int err;

	if (len < sizeof(hdr)) {
		errno = EINVAL;
		return -1;
	}
	if (emu_copy_from_user(&hdr, (uint64_t)(uintptr_t)buf, sizeof(hdr))) {
		errno = EFAULT;
		return -1;
	}
	if (hdr.cmd >= sizeof(g_cmds) / sizeof(g_cmds[0]) || hdr.in + sizeof(hdr) > len) {
		errno = EINVAL;
		return -1;
	}
	if (!g_cmds[hdr.cmd].fn) {
		errno = ENOSYS;
		return -1;
	}
	size_t in_len = hdr.in < sizeof(in) ? hdr.in : sizeof(in);
	memset(in, 0, sizeof(in));
	if (in_len && emu_copy_from_user(in, (uint64_t)(uintptr_t)buf + sizeof(hdr), in_len)) {
		errno = EFAULT;
		return -1;
	}
	pthread_mutex_lock(&g_lock);
	struct ucma_file *f = file_get(fd);
	if (!f) {
		pthread_mutex_unlock(&g_lock);
		errno = EBADF;
		return -1;
	}
	struct ucmd c = { f, in, in_len, hdr.out };
	err = g_cmds[hdr.cmd].fn(&c);
	file_put(f);
	pthread_mutex_unlock(&g_lock);
	maybe_join();
	if (emu_log_enabled)
		emu_log("rdma_cm fd=%d %s in=%u out=%u -> %s", fd, g_cmds[hdr.cmd].name, hdr.in, hdr.out,
			err ? strerror(err) : "ok");
	if (err) {
		errno = err;
		return -1;
	}
	return (ssize_t)len;
}
