static struct ucma_mc **g_mcs;
static uint32_t g_mcs_cap;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ucma_file *g_files;
static struct ucma_id **g_ids;
static uint32_t g_ids_cap;
static uint64_t g_serial;
static int g_nfiles;
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
