/* SPDX-License-Identifier: Apache-2.0 */
/*
 * etest.h - helpers for the device engine's tests: one process, QPs connected to each other on the emulated
 * device, completions read with libmlx5's own ibv_poll_cq, raw CQEs read through mlx5dv_init_obj.
 */
#ifndef MLX5EMU_ETEST_H
#define MLX5EMU_ETEST_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <endian.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "emu_barrier.h" /* the tests that post raw WQEs use libmlx5's barriers, by rdma-core's names */

#define CHECK(cond, ...)                                                                    \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);      \
			fprintf(stderr, __VA_ARGS__);                                       \
			fprintf(stderr, "\n");                                              \
			exit(1);                                                            \
		}                                                                           \
	} while (0)

static struct ibv_context *t_ctx;
static struct ibv_pd *t_pd;
static struct ibv_port_attr t_port;

static inline void t_open(void)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	CHECK(l && n > 0, "no device");
	t_ctx = ibv_open_device(l[0]);
	CHECK(t_ctx, "open");
	ibv_free_device_list(l);
	t_pd = ibv_alloc_pd(t_ctx);
	CHECK(t_pd, "pd");
	CHECK(ibv_query_port(t_ctx, 1, &t_port) == 0, "query_port");
}

static inline struct ibv_mr *t_mr(size_t len, int access, void **buf)
{
	void *p = NULL;
	CHECK(posix_memalign(&p, 4096, len) == 0, "alloc");
	memset(p, 0, len);
	struct ibv_mr *mr = ibv_reg_mr(t_pd, p, len, access);
	CHECK(mr, "reg_mr");
	*buf = p;
	return mr;
}

#define T_ALL_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static inline struct ibv_qp *t_qp(enum ibv_qp_type type, struct ibv_cq *scq, struct ibv_cq *rcq, struct ibv_srq *srq,
			   int sig_all)
{
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof a);
	a.send_cq = scq;
	a.recv_cq = rcq;
	a.srq = srq;
	a.qp_type = type;
	a.sq_sig_all = sig_all;
	a.cap.max_send_wr = 64;
	a.cap.max_recv_wr = srq ? 0 : 64;
	a.cap.max_send_sge = 4;
	a.cap.max_recv_sge = srq ? 0 : 4;
	a.cap.max_inline_data = 128;
	struct ibv_qp *qp = ibv_create_qp(t_pd, &a);
	CHECK(qp, "create_qp type %d", type);
	return qp;
}

struct t_conn {
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
};
static const struct t_conn t_default_conn = { 14, 7, 7, 1 };

static inline void t_ah_attr(struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof *ah);
	ah->dlid = t_port.lid;
	ah->port_num = 1;
	if (t_port.link_layer == IBV_LINK_LAYER_ETHERNET) {
		ah->is_global = 1;
		CHECK(ibv_query_gid(t_ctx, 1, 0, &ah->grh.dgid) == 0, "gid");
		ah->grh.hop_limit = 64;
		ah->grh.sgid_index = 0;
	}
}

/* RESET -> INIT -> RTR -> RTS of an RC/UC QP towards remote_qpn. */
static inline void t_connect(struct ibv_qp *qp, uint32_t remote_qpn, const struct t_conn *c, int to_rts)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    (qp->qp_type == IBV_QPT_RC ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0, "init");
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = remote_qpn;
	a.rq_psn = 0x100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = c->min_rnr_timer;
	t_ah_attr(&a.ah_attr);
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	CHECK(ibv_modify_qp(qp, &a, mask) == 0, "rtr");
	if (!to_rts)
		return;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x100;
	a.timeout = c->timeout;
	a.retry_cnt = c->retry_cnt;
	a.rnr_retry = c->rnr_retry;
	a.max_rd_atomic = 4;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	CHECK(ibv_modify_qp(qp, &a, mask) == 0, "rts");
}

/* Two RC QPs of this process connected to each other (a on cqa, b on cqb), every WQE signaled, up to RTS. */
static inline void t_rc_loop(struct ibv_cq *cqa, struct ibv_cq *cqb, struct ibv_qp **a, struct ibv_qp **b)
{
	*a = t_qp(IBV_QPT_RC, cqa, cqa, NULL, 1);
	*b = t_qp(IBV_QPT_RC, cqb, cqb, NULL, 1);
	t_connect(*a, (*b)->qp_num, &t_default_conn, 1);
	t_connect(*b, (*a)->qp_num, &t_default_conn, 1);
}

/* Destroys a pair of QPs and their CQs, then the PD and the device of t_open. */
static inline void t_close_pair(struct ibv_qp *a, struct ibv_qp *b, struct ibv_cq *cqa, struct ibv_cq *cqb)
{
	CHECK(ibv_destroy_qp(a) == 0 && ibv_destroy_qp(b) == 0, "destroy qp");
	CHECK(ibv_destroy_cq(cqa) == 0 && ibv_destroy_cq(cqb) == 0, "destroy cq");
	CHECK(ibv_dealloc_pd(t_pd) == 0, "dealloc pd");
	CHECK(ibv_close_device(t_ctx) == 0, "close device");
}

static inline void t_ud_up(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = qkey;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) == 0, "ud init");
	a.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE) == 0, "ud rtr");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0, "ud rts");
}

static inline uint64_t t_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Poll until n completions arrived or ms elapsed; returns how many. */
/* The pipes between a test and the process it forked: a short read or write ends the test. */
static inline void t_xwrite(int fd, const void *p, size_t n) { CHECK(write(fd, p, n) == (ssize_t)n, "pipe write"); }
static inline void t_xread(int fd, void *p, size_t n) { CHECK(read(fd, p, n) == (ssize_t)n, "pipe read"); }

/* Fork the peer process of a two-process test, before either opens the device (each then has its own engine):
 * child runs in it and must _exit; each side closes the pipe ends it does not use, so a side that dies ends the
 * other's read instead of hanging it. Returns the child's pid. */
static inline pid_t t_fork_peer(int to_child[2], int to_parent[2], void (*child)(void))
{
	CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0, "pipes");
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		child();
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	return pid;
}

/* WRITEs this process's engine placed directly into a peer (eng_direct.c), through the emulator's export. */
static inline unsigned long t_direct_placements(void)
{
	unsigned long (*f)(void) = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "mlx5emu_direct_placements");
	CHECK(f, "mlx5emu_direct_placements not found");
	return f();
}

static inline int t_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms)
{
	int got = 0;
	uint64_t end = t_ms() + (uint64_t)ms;
	while (got < n && t_ms() < end) {
		int r = ibv_poll_cq(cq, n - got, wc + got);
		CHECK(r >= 0, "poll_cq");
		got += r;
		if (!r)
			usleep(50);
	}
	return got;
}

static inline void t_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	CHECK(ibv_post_send(qp, wr, &bad) == 0, "post_send");
}

static inline void t_post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;
	CHECK(ibv_post_recv(qp, &wr, &bad) == 0, "post_recv");
}

/* Raw view of a CQ's ring (mlx5dv), for byte-level checks of the CQE the engine wrote. */
struct t_rawcq {
	uint8_t *buf;
	uint32_t cqe_cnt, cqe_size;
};
static inline void t_rawcq(struct ibv_cq *cq, struct t_rawcq *r)
{
	struct mlx5dv_cq dv;
	struct mlx5dv_obj o;
	memset(&o, 0, sizeof o);
	o.cq.in = cq;
	o.cq.out = &dv;
	CHECK(mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ) == 0, "init_obj cq");
	r->buf = dv.buf;
	r->cqe_cnt = dv.cqe_cnt;
	r->cqe_size = dv.cqe_size;
}
/* The 64-byte mlx5_cqe64 part of CQE index i. */
static inline struct mlx5_cqe64 *t_cqe64(struct t_rawcq *r, uint32_t i)
{
	uint8_t *e = r->buf + (size_t)(i & (r->cqe_cnt - 1)) * r->cqe_size;
	return (struct mlx5_cqe64 *)(void *)(e + r->cqe_size - 64);
}

static inline unsigned long t_violations(void)
{
	unsigned long (*f)(void) = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "mlx5emu_strict_violations");
	CHECK(f, "mlx5emu_strict_violations not found (not running under the emulator?)");
	return f();
}

#endif
