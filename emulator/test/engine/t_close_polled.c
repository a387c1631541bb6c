/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A context closed while another thread polls its CQ, with RDMA WRITEs in flight. On a ConnectX the kernel destroys
 * the context's QPs and CQs when its file closes: the device writes no CQE after that, the CQ ring (user memory)
 * stays as it was, and a poller sees the completions written before and then nothing. It never crashes nor hangs.
 *  - direct: the poller reads the CQ ring itself (mlx5dv, as mlx5j's CqPoller does) while the main thread calls
 *    ibv_close_device on the live objects; every CQE it saw is a successful RDMA WRITE, in posting order, or a
 *    flush error, and the ring does not change any more once ibv_close_device returned;
 *  - verbs: the poller calls ibv_poll_cq (each call takes libmlx5's CQ lock, through which it lends the engine a
 *    pass, eng_core.c) while the main thread closes the command fd underneath libibverbs, as a crashing program
 *    would (libibverbs' own structures stay, so polling stays legal); ibv_poll_cq keeps returning;
 *  - in both, a second context of the process carries traffic before and after: the close of one context stops
 *    neither the engine nor the other context's connections.
 * Each poller must stop within a time bound once told to.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "etest.h"

#define NWR 32
#define WR_LEN (64 * 1024)
#define BOUND_MS 10000

struct conn {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint8_t *buf;
};

static struct ibv_context *open0(void)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	CHECK(l && n > 0, "no device");
	struct ibv_context *c = ibv_open_device(l[0]);
	CHECK(c, "open");
	ibv_free_device_list(l);
	return c;
}

/* An RC loopback pair on its own context, with a buffer of 2 * NWR * WR_LEN bytes: writes go from the first half
 * to the second. */
static void conn_up(struct conn *c)
{
	memset(c, 0, sizeof *c);
	c->ctx = t_ctx = open0();
	c->pd = t_pd = ibv_alloc_pd(c->ctx);
	CHECK(c->pd, "pd");
	CHECK(ibv_query_port(t_ctx, 1, &t_port) == 0, "query_port");
	c->cqa = ibv_create_cq(c->ctx, 64, NULL, NULL, 0);
	c->cqb = ibv_create_cq(c->ctx, 64, NULL, NULL, 0);
	CHECK(c->cqa && c->cqb, "cq");
	t_rc_loop(c->cqa, c->cqb, &c->a, &c->b);
	c->mr = t_mr(2 * NWR * WR_LEN, T_ALL_ACCESS, (void **)&c->buf);
}

static void post_writes(struct conn *c, int n)
{
	for (int i = 0; i < n; i++) {
		memset(c->buf + (size_t)i * WR_LEN, 0x40 + i, WR_LEN);
		struct ibv_sge s = { (uintptr_t)(c->buf + (size_t)i * WR_LEN), WR_LEN, c->mr->lkey };
		struct ibv_send_wr wr = { .wr_id = (uint64_t)i, .sg_list = &s, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = (uintptr_t)(c->buf + (size_t)(NWR + i) * WR_LEN);
		wr.wr.rdma.rkey = c->mr->rkey;
		t_post_send(c->a, &wr);
	}
}

/* n WRITEs on a live connection complete, each with its bytes. */
static void traffic(struct conn *c, const char *when)
{
	memset(c->buf + (size_t)NWR * WR_LEN, 0, (size_t)NWR * WR_LEN);
	post_writes(c, 4);
	struct ibv_wc wc[4];
	CHECK(t_poll(c->cqa, wc, 4, BOUND_MS) == 4, "%s: the other context's WRITEs did not complete within %d ms",
	      when, BOUND_MS);
	for (int i = 0; i < 4; i++) {
		CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == (uint64_t)i, "%s: wc %d: %s wr_id %llu", when, i,
		      ibv_wc_status_str(wc[i].status), (unsigned long long)wc[i].wr_id);
		const uint8_t *d = c->buf + (size_t)(NWR + i) * WR_LEN;
		CHECK(d[0] == 0x40 + i && d[WR_LEN - 1] == 0x40 + i, "%s: WRITE %d landed wrong", when, i);
	}
}

static void conn_down(struct conn *c)
{
	CHECK(ibv_dereg_mr(c->mr) == 0, "dereg_mr");
	free(c->buf);
	t_ctx = c->ctx;
	t_pd = c->pd;
	t_close_pair(c->a, c->b, c->cqa, c->cqb); /* and the PD and the context */
}

/* ---- direct: the ring, read as a direct poller reads it ---- */

struct direct_poller {
	struct t_rawcq raw;
	_Atomic int stop;
	uint32_t seen, ok, flushed, bad;
	uint32_t bad_op, bad_counter;
};

static void *direct_poll(void *arg)
{
	struct direct_poller *p = arg;
	uint32_t ci = 0;
	while (!atomic_load(&p->stop)) {
		struct mlx5_cqe64 *c = t_cqe64(&p->raw, ci);
		uint8_t op_own = __atomic_load_n(&c->op_own, __ATOMIC_ACQUIRE);
		uint8_t op = op_own >> 4;
		/* owner bit of pass ci / cqe_cnt (the engine's first pass writes owner 0) */
		if (op == MLX5_CQE_INVALID || (op_own & 1) != ((ci / p->raw.cqe_cnt) & 1)) {
			sched_yield();
			continue;
		}
		p->seen++;
		if (op == MLX5_CQE_REQ && be16toh(c->wqe_counter) == (uint16_t)p->ok) {
			p->ok++;
		} else if (op == MLX5_CQE_REQ_ERR &&
			   ((struct mlx5_err_cqe *)(void *)c)->syndrome == MLX5_CQE_SYNDROME_WR_FLUSH_ERR) {
			p->flushed++;
		} else {
			p->bad++;
			p->bad_op = op;
			p->bad_counter = be16toh(c->wqe_counter);
		}
		ci++;
	}
	return NULL;
}

static void join_bounded(pthread_t t, const char *what)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += BOUND_MS / 1000;
	int rc = pthread_timedjoin_np(t, NULL, &ts);
	CHECK(rc == 0, "%s did not stop within %d ms after it was told to (%s)", what, BOUND_MS, strerror(rc));
}

static void direct_case(struct conn *other)
{
	struct conn c;
	conn_up(&c);
	traffic(other, "direct, before");
	static struct direct_poller p;
	memset(&p, 0, sizeof p);
	t_rawcq(c.cqa, &p.raw);
	size_t ring_len = (size_t)p.raw.cqe_cnt * p.raw.cqe_size;
	pthread_t t;
	CHECK(pthread_create(&t, NULL, direct_poll, &p) == 0, "thread");
	post_writes(&c, NWR);
	/* with live objects, as a program that exits its connection code early does; the CQ's memory stays (only
	 * ibv_destroy_cq frees it) */
	CHECK(ibv_close_device(c.ctx) == 0, "close");
	uint8_t *at_close = malloc(ring_len);
	CHECK(at_close, "malloc");
	memcpy(at_close, p.raw.buf, ring_len);
	usleep(200000);
	CHECK(memcmp(at_close, p.raw.buf, ring_len) == 0, "a CQE was written after ibv_close_device returned");
	atomic_store(&p.stop, 1);
	join_bounded(t, "the direct poller");
	fprintf(stderr, "direct: %u CQEs seen before the close (%u WRITEs, %u flushed) of %d posted\n", p.seen, p.ok,
		p.flushed, NWR);
	CHECK(p.bad == 0, "%u CQEs neither a WRITE in order nor a flush (last: opcode 0x%x, wqe_counter %u)", p.bad,
	      p.bad_op, p.bad_counter);
	CHECK(p.seen <= NWR, "%u CQEs for %d WRITEs", p.seen, NWR);
	traffic(other, "direct, after");
	free(at_close);
	free(c.buf); /* the MR went with the context: nothing writes there any more */
	/* libmlx5's QP and CQ structures of the closed context are abandoned on purpose: nothing may be destroyed
	 * through a closed context */
}

/* ---- verbs: ibv_poll_cq while the command fd closes underneath ---- */

struct verbs_poller {
	struct ibv_cq *cq;
	_Atomic int stop;
	_Atomic uint32_t calls;
	uint32_t ok, flushed, bad, bad_status;
};

static void *verbs_poll(void *arg)
{
	struct verbs_poller *p = arg;
	while (!atomic_load(&p->stop)) {
		struct ibv_wc wc[8];
		int n = ibv_poll_cq(p->cq, 8, wc);
		p->calls++;
		for (int i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_SUCCESS && wc[i].opcode == IBV_WC_RDMA_WRITE && wc[i].wr_id == p->ok)
				p->ok++;
			else if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
				p->flushed++;
			else
				p->bad++, p->bad_status = wc[i].status;
		}
		if (n < 0)
			p->bad++, p->bad_status = (uint32_t)-n;
	}
	return NULL;
}

static void verbs_case(struct conn *other)
{
	struct conn c;
	conn_up(&c);
	static struct verbs_poller p;
	memset(&p, 0, sizeof p);
	p.cq = c.cqa;
	pthread_t t;
	CHECK(pthread_create(&t, NULL, verbs_poll, &p) == 0, "thread");
	post_writes(&c, NWR);
	CHECK(close(c.ctx->cmd_fd) == 0, "close of the command fd");
	traffic(other, "verbs, while the poller polls the closed context");
	uint32_t calls = atomic_load(&p.calls);
	for (uint64_t end = t_ms() + BOUND_MS; atomic_load(&p.calls) < calls + 1000 && t_ms() < end;)
		usleep(1000);
	CHECK(atomic_load(&p.calls) >= calls + 1000, "ibv_poll_cq on the closed context hangs (%u calls in %d ms)",
	      atomic_load(&p.calls) - calls, BOUND_MS);
	atomic_store(&p.stop, 1);
	join_bounded(t, "the ibv_poll_cq poller");
	fprintf(stderr, "verbs: %u completions (%u WRITEs, %u flushed) of %d posted, %u polls\n", p.ok + p.flushed,
		p.ok, p.flushed, NWR, atomic_load(&p.calls));
	CHECK(p.bad == 0, "%u completions neither a WRITE in order nor a flush (last status %u)", p.bad, p.bad_status);
	CHECK(p.ok + p.flushed <= NWR, "%u completions for %d WRITEs", p.ok + p.flushed, NWR);
	/* the objects are gone with the context: libibverbs' calls on them now fail instead of reaching anything */
	CHECK(ibv_destroy_qp(c.a) != 0, "destroy_qp on a closed context succeeded");
	traffic(other, "verbs, after");
	free(c.buf);
}

int main(void)
{
	struct conn other;
	conn_up(&other);
	direct_case(&other);
	verbs_case(&other);
	conn_down(&other);
	printf("t_close_polled: ok\n");
	return 0;
}
