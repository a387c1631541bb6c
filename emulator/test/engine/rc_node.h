/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rc_node.h - one end of an RC connection on a context of its own choosing (PD, CQ, MR, QP), and a ping-pong of
 * SENDs whose every completion is bounded in time and names what it waited for: for tests whose processes open,
 * close and reopen the device between rounds. The including test sets who and case_name for the messages, and
 * connects the two ends itself (QPNs over a pipe).
 */
#ifndef MLX5EMU_RC_NODE_H
#define MLX5EMU_RC_NODE_H

#include <errno.h>

#include "etest.h"

#define MSG_LEN 32
#define WC_WAIT_MS 15000 /* one completion; a loaded 2-core machine with ASan takes well under a second */
#define RECV_ID 1
#define ROUNDS 3

/* One connection end: its own PD, CQ, MR and RC QP on some context. */
struct node {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf; /* receive at 0, send from MSG_LEN */
	uint32_t remote_qpn;
	struct ibv_wc kept[4]; /* polled before they were waited for */
	int nkept;
};

static const char *who = "parent";
static const char *case_name = "setup";

static inline struct ibv_device *device0(struct ibv_device ***list)
{
	int n = 0;
	*list = ibv_get_device_list(&n);
	CHECK(*list && n > 0, "no device");
	return (*list)[0];
}

static inline struct ibv_context *open_plain(void)
{
	struct ibv_device **l;
	struct ibv_context *c = ibv_open_device(device0(&l));
	CHECK(c, "ibv_open_device: %s", strerror(errno));
	ibv_free_device_list(l);
	return c;
}

/* mlx5dv_open_device with these flags; NULL (errno set) when the device refuses them. */
static inline struct ibv_context *open_dv(uint32_t flags)
{
	struct ibv_device **l;
	struct mlx5dv_context_attr a = { .flags = flags };
	struct ibv_device *d = device0(&l);
	errno = 0;
	struct ibv_context *c = mlx5dv_open_device(d, &a);
	int e = errno;
	ibv_free_device_list(l);
	errno = e;
	return c;
}

/* The device has no DEVX (cmd_context.c): this open must be refused, and nothing else may change. */
static inline void refused_devx_open(void)
{
	struct ibv_context *c = open_dv(MLX5DV_CONTEXT_FLAGS_DEVX);
	CHECK(!c, "a DEVX context was granted by a device without DEVX");
	CHECK(errno != 0, "refused DEVX open left errno 0");
}

static inline void close_ctx(struct ibv_context *c)
{
	CHECK(ibv_close_device(c) == 0, "ibv_close_device: %s", strerror(errno));
}

/* etest.h's helpers work on t_ctx and t_pd */
static inline void use(struct node *n)
{
	t_ctx = n->ctx;
	t_pd = n->pd;
	CHECK(ibv_query_port(t_ctx, 1, &t_port) == 0, "query_port");
}

static inline uint32_t node_up(struct node *n, struct ibv_context *ctx)
{
	memset(n, 0, sizeof *n);
	n->ctx = ctx;
	n->pd = ibv_alloc_pd(ctx);
	CHECK(n->pd, "alloc_pd");
	use(n);
	n->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	CHECK(n->cq, "create_cq");
	n->mr = t_mr(4096, T_ALL_ACCESS, (void **)&n->buf);
	n->qp = t_qp(IBV_QPT_RC, n->cq, n->cq, NULL, 1);
	return n->qp->qp_num;
}

static inline void node_connect(struct node *n, uint32_t remote_qpn)
{
	use(n);
	t_connect(n->qp, remote_qpn, &t_default_conn, 1);
	t_post_recv(n->qp, RECV_ID, n->buf, MSG_LEN, n->mr->lkey);
}

/* Everything but the context. */
static inline void node_down(struct node *n)
{
	CHECK(ibv_destroy_qp(n->qp) == 0, "destroy_qp");
	CHECK(ibv_destroy_cq(n->cq) == 0, "destroy_cq");
	CHECK(ibv_dereg_mr(n->mr) == 0, "dereg_mr");
	CHECK(ibv_dealloc_pd(n->pd) == 0, "dealloc_pd");
	free(n->buf);
	memset(n, 0, sizeof *n);
}

static inline void fill(uint8_t *p, const char *what, int round)
{
	memset(p, 0, MSG_LEN);
	snprintf((char *)p, MSG_LEN, "%s %d of %d", what, round, (int)getpid());
}

/* Waits for the completion of wr_id, bounded; what says which. A SEND's completion (its ACK) and the answer to it
 * come in either order: whichever arrives first is kept until it is waited for. */
static inline void wait_wc(struct node *n, enum ibv_wc_opcode op, uint64_t wr_id, const char *what, int round)
{
	struct ibv_wc wc;
	int found = 0;
	for (int i = 0; i < n->nkept && !found; i++)
		if (n->kept[i].wr_id == wr_id) {
			wc = n->kept[i];
			n->kept[i] = n->kept[--n->nkept];
			found = 1;
		}
	for (uint64_t end = t_ms() + WC_WAIT_MS; !found;) {
		int got = ibv_poll_cq(n->cq, 1, &wc);
		CHECK(got >= 0, "poll_cq");
		if (got && wc.status == IBV_WC_SUCCESS && wc.wr_id != wr_id) {
			CHECK(n->nkept < 4, "%s: completions nobody waits for", who);
			n->kept[n->nkept++] = wc;
			continue;
		}
		found = got;
		CHECK(found || t_ms() < end, "%s: no %s completion of round %d within %d ms on QP 0x%06x (case '%s')", who,
		      what, round, WC_WAIT_MS, n->qp->qp_num, case_name);
		if (!found)
			usleep(20);
	}
	CHECK(wc.status == IBV_WC_SUCCESS, "%s: %s completion of round %d on QP 0x%06x: %s (vendor 0x%x) (case '%s')",
	      who, what, round, n->qp->qp_num, ibv_wc_status_str(wc.status), wc.vendor_err, case_name);
	CHECK(wc.opcode == op && wc.wr_id == wr_id, "%s: opcode %d wr_id %llu, expected %d %llu", what, wc.opcode,
	      (unsigned long long)wc.wr_id, op, (unsigned long long)wr_id);
	if (op == IBV_WC_RECV)
		CHECK(wc.byte_len == MSG_LEN, "%s: %u bytes", what, wc.byte_len);
}

static inline void send_msg(struct node *n, const char *what, int round)
{
	fill(n->buf + MSG_LEN, what, round);
	struct ibv_sge sge = { (uintptr_t)(n->buf + MSG_LEN), MSG_LEN, n->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 100 + (uint64_t)round, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND };
	t_post_send(n->qp, &wr);
	wait_wc(n, IBV_WC_SEND, 100 + (uint64_t)round, what, round);
}

/* The receive of round, with the exact bytes the peer's send_msg wrote; the next receive is posted before the
 * caller sends anything, so the peer's next SEND always finds one. */
static inline void recv_msg(struct node *n, const char *what, int round, pid_t from)
{
	wait_wc(n, IBV_WC_RECV, RECV_ID, what, round);
	uint8_t want[MSG_LEN];
	memset(want, 0, sizeof want);
	snprintf((char *)want, MSG_LEN, "%s %d of %d", what, round, (int)from);
	CHECK(memcmp(n->buf, want, MSG_LEN) == 0, "%s: received \"%.*s\", expected \"%s\"", who, MSG_LEN,
	      (char *)n->buf, (char *)want);
	t_post_recv(n->qp, RECV_ID, n->buf, MSG_LEN, n->mr->lkey);
}

/* ROUNDS ping-pongs, this side pinging (initiator) or answering. */
static inline void pingpong(struct node *n, int initiator, pid_t peer)
{
	for (int r = 0; r < ROUNDS; r++) {
		if (initiator) {
			send_msg(n, "ping", r);
			recv_msg(n, "pong", r, peer);
		} else {
			recv_msg(n, "ping", r, peer);
			send_msg(n, "pong", r);
		}
	}
}

#endif
