/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libmlx5_loop.c - the libmlx5 data path called from C, timed in C: the reference the Java benchmarks are compared
 * with, without any FFM call cost. Same QPs, same WQEs, same synthetic completer as the JMH benchmarks in
 * src/main/java/io/mlx5j/bench (EmulatedQp, Workload, SyntheticCompleter), so each number here pairs with one there.
 *
 *   mlx5emu -- env MLX5EMU_ENGINE=off libmlx5_loop quick|short|full OUT.json [LABEL [INCLUDE_REGEX]]
 *
 * INCLUDE_REGEX (POSIX extended, searched in the name "c.<Class>.<method>", as JMH searches its include pattern):
 * run only the matching variants (bench/run.sh passes its JMH include, so that a partial run keeps its C rows).
 *
 * Runs on the emulated ConnectX with the engine off: only this thread touches the rings. An RC QP "a" is connected
 * to its twin "b" (each with its own 256-entry CQ); posts go to a, the poll benchmarks complete WQEs posted once on b.
 * Per benchmark: one second (quick: 0.2 s) of warm-up, then REPS timed repetitions (clock_gettime, CLOCK_MONOTONIC)
 * of enough invocations to last about 1 s (quick: 20 ms), the length of a JMH measurement iteration (REPS: quick and
 * short 5, full 15): under
 * SCHED_FIFO (bench/run.sh, MLX5J_BENCH_RT) the kernel's RT throttling stops the thread for 50 ms of every second,
 * which a 100 ms repetition caught or missed at random (errors of 10-15 %), while every 1 s repetition includes it
 * alike, as every JMH iteration does. Reported: mean ns per WQE (or per CQE) and a 99.9 %
 * confidence half-width from Student's t, the way JMH reports its error, as JMH-style JSON records
 * ("benchmark": "c.<Class>.<method>", "params": {"libmlx5": LABEL}) that bench/report.py merges with JMH's JSON.
 * LABEL names the libmlx5 environment of the run (e.g. "default", "MLX5_SHUT_UP_BF=1").
 *
 * Completions: one invocation posts BATCH WQEs of which the last is signaled, then the completer writes that WQE's
 * requester CQE (struct mlx5_cqe64, mlx5dv.h; cqe_version 1: srqn_uidx = the QP's user index) and ibv_poll_cq
 * consumes it, exactly as the Java variants do.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "mlx5emu_debug.h"

#define BATCH 64
#define DOORBELL_BATCH 8
#define WRITE_BYTES 4096
#define WRITE_SRC 0
#define WRITE_DST (16 * 1024)
#define INLINE_SRC (32 * 1024)
#define MR_BYTES (64 * 1024)
#define MAX_SEND_WR 256
#define MAX_INLINE 64
#define CQ_DEPTH 255
#define POSTED 128 /* WQEs posted once on b for the poll benchmarks */
#define SIGNALED_WR_ID 0x5167000000000001ull
#define UNSIGNALED_WR_ID 0x2ull
#define MAX_REPS 64

static void die(const char *what, int err)
{
	fprintf(stderr, "libmlx5_loop: %s: %s\n", what, strerror(err));
	exit(1);
}

/* ------------------------------------------------------------------ synthetic completer (see SyntheticCompleter) */

struct completer {
	uint8_t *buf;
	uint32_t cqe_size, mask, log_cnt, qpn, uidx, producer;
};

static void completer_init(struct completer *c, struct ibv_cq *cq, uint32_t qpn, uint32_t uidx)
{
	struct mlx5dv_cq dv;
	struct mlx5dv_obj obj = { .cq = { .in = cq, .out = &dv } };
	int rc = mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ);
	if (rc)
		die("mlx5dv_init_obj(CQ)", rc);
	c->buf = dv.buf;
	c->cqe_size = dv.cqe_size;
	c->mask = dv.cqe_cnt - 1;
	c->log_cnt = (uint32_t)__builtin_ctz(dv.cqe_cnt);
	c->qpn = qpn;
	c->uidx = uidx;
	c->producer = 0;
}

static inline void complete(struct completer *c, uint16_t wqe_counter, uint8_t wqe_opcode)
{
	uint32_t pi = c->producer;
	struct mlx5_cqe64 *cqe = (struct mlx5_cqe64 *)(c->buf + (size_t)(pi & c->mask) * c->cqe_size +
						       c->cqe_size - sizeof(struct mlx5_cqe64));
	cqe->srqn_uidx = htobe32(c->uidx & 0xffffff);
	cqe->byte_cnt = 0;
	cqe->sop_drop_qpn = htobe32((uint32_t)wqe_opcode << 24 | (c->qpn & 0xffffff));
	cqe->wqe_counter = htobe16(wqe_counter);
	/* release: the body is visible before the owner bit that hands the CQE to software */
	__atomic_store_n(&cqe->op_own, (uint8_t)(MLX5_CQE_REQ << 4 | ((pi >> c->log_cnt) & 1)), __ATOMIC_RELEASE);
	c->producer = pi + 1;
}

/* ------------------------------------------------------------------ the emulated QP pair (see EmulatedQp) */

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t *mem;
	struct ibv_mr *mr;
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *ax;
	uint32_t uidx_a, uidx_b;
	int eth; /* port 1 is Ethernet: the raw packet rows run */
};

static struct ibv_qp *create_qp(struct env *e, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = MAX_SEND_WR, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = MAX_INLINE },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = e->pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(e->ctx, &attr);
	if (!qp)
		die("ibv_create_qp_ex", errno);
	return qp;
}

/* gid: NULL on InfiniBand (LID-routed); on Ethernet the RoCE v2 GID (index 1) both twins send from and to */
static void connect_qp(struct ibv_qp *qp, uint32_t dest, uint16_t lid, enum ibv_mtu mtu, uint32_t psn,
		       uint32_t dest_psn, const union ibv_gid *gid)
{
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
				    .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
						       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC };
	int rc = ibv_modify_qp(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (rc)
		die("RESET->INIT", rc);
	struct ibv_qp_attr rtr = { .qp_state = IBV_QPS_RTR, .path_mtu = mtu, .dest_qp_num = dest, .rq_psn = dest_psn,
				   .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
				   .ah_attr = { .dlid = lid, .port_num = 1 } };
	if (gid) {
		rtr.ah_attr.is_global = 1;
		rtr.ah_attr.grh = (struct ibv_global_route){ .dgid = *gid, .sgid_index = 1, .hop_limit = 64 };
	}
	rc = ibv_modify_qp(qp, &rtr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (rc)
		die("INIT->RTR", rc);
	struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS, .sq_psn = psn, .timeout = 14, .retry_cnt = 7,
				   .rnr_retry = 7, .max_rd_atomic = 1 };
	rc = ibv_modify_qp(qp, &rts, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc)
		die("RTR->RTS", rc);
}

/* The user index libmlx5 gave the QP, as the emulated kernel recorded it (emulator/src/mlx5emu_debug.h). */
static uint32_t emulator_uidx(uint32_t qpn)
{
	int (*debug_qp)(uint32_t, struct mlx5emu_debug_qp *) =
		(int (*)(uint32_t, struct mlx5emu_debug_qp *))dlsym(RTLD_DEFAULT, "mlx5emu_debug_qp");
	if (!debug_qp) {
		fprintf(stderr, "libmlx5_loop: run on the emulated device: emulator/mlx5emu -- ...\n");
		exit(1);
	}
	struct mlx5emu_debug_qp out;
	if (debug_qp(qpn, &out) != 0 || out.qpn != qpn) {
		fprintf(stderr, "libmlx5_loop: the emulator does not know QP 0x%x\n", qpn);
		exit(1);
	}
	return out.uidx;
}

static void env_open(struct env *e)
{
	const char *engine = getenv("MLX5EMU_ENGINE");
	if (!engine || strcmp(engine, "off") != 0) {
		fprintf(stderr, "libmlx5_loop: set MLX5EMU_ENGINE=off (only this thread may touch the rings)\n");
		exit(1);
	}
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		fprintf(stderr, "libmlx5_loop: no RDMA device (run under emulator/mlx5emu)\n");
		exit(1);
	}
	e->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!e->ctx)
		die("ibv_open_device", errno);
	e->pd = ibv_alloc_pd(e->ctx);
	if (!e->pd)
		die("ibv_alloc_pd", errno);
	if (posix_memalign((void **)&e->mem, 4096, MR_BYTES))
		die("posix_memalign", ENOMEM);
	memset(e->mem, 0x5a, MR_BYTES);
	e->mr = ibv_reg_mr(e->pd, e->mem, MR_BYTES, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
							      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!e->mr)
		die("ibv_reg_mr", errno);
	e->cq_a = ibv_create_cq(e->ctx, CQ_DEPTH, NULL, NULL, 0);
	e->cq_b = ibv_create_cq(e->ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!e->cq_a || !e->cq_b)
		die("ibv_create_cq", errno);
	e->a = create_qp(e, e->cq_a);
	e->b = create_qp(e, e->cq_b);
	e->ax = ibv_qp_to_qp_ex(e->a);
	if (!e->ax)
		die("ibv_qp_to_qp_ex", errno);
	struct ibv_port_attr port;
	int rc = ibv_query_port(e->ctx, 1, &port);
	if (rc)
		die("ibv_query_port", rc);
	/* bench/run.sh runs on an Ethernet port (the raw packet rows need one): the RC twins are then RoCE v2, which
	 * changes nothing in their WQEs or CQEs */
	e->eth = port.link_layer == IBV_LINK_LAYER_ETHERNET;
	union ibv_gid gid;
	if (e->eth && (rc = ibv_query_gid(e->ctx, 1, 1, &gid)))
		die("ibv_query_gid", rc);
	connect_qp(e->a, e->b->qp_num, port.lid, port.active_mtu, 100, 200, e->eth ? &gid : NULL);
	connect_qp(e->b, e->a->qp_num, port.lid, port.active_mtu, 200, 100, e->eth ? &gid : NULL);
	e->uidx_a = emulator_uidx(e->a->qp_num);
	e->uidx_b = emulator_uidx(e->b->qp_num);
}

static void env_close(struct env *e)
{
	ibv_destroy_qp(e->a);
	ibv_destroy_qp(e->b);
	ibv_destroy_cq(e->cq_a);
	ibv_destroy_cq(e->cq_b);
	ibv_dereg_mr(e->mr);
	ibv_dealloc_pd(e->pd);
	ibv_close_device(e->ctx);
	free(e->mem);
}

/* ------------------------------------------------------------------ benchmark state */

struct bench {
	struct env *e;
	struct completer ca, cb;
	uint32_t cur_post;    /* mirror of a's sq.cur_post in WQEBBs: the signaled WQE's wqe_counter */
	uint32_t next_b;      /* next of b's POSTED WQEs to complete */
	struct ibv_sge write_sge, inl16_sge, inl64_sge;
	struct ibv_send_wr write_u, write_s, inl16_u, inl16_s, inl64_u, inl64_s;
	struct ibv_send_wr batch_u[DOORBELL_BATCH], batch_s[DOORBELL_BATCH];
	struct ibv_send_wr chain_s[16]; /* postPoll: 16 signaled WRITEs, wr_id = index; chain_s[15] alone is a list of 1 */
	uint64_t raddr;
	struct ibv_wc wc[16];
	struct raw_bench *raw; /* the raw packet QPs (libmlx5_raw.h), on an Ethernet port only */
	struct striding *str;  /* the striding WQ (libmlx5_striding.h), on an Ethernet port only */
	struct manyqp *many;   /* the QPs of the running many-QP row (libmlx5_manyqp.h), built per row */
	struct dc_bench *dc;   /* the DCI (libmlx5_dc.h) */
};

static void fill_wr(struct ibv_send_wr *wr, enum ibv_wr_opcode op, struct ibv_sge *sge, unsigned flags,
		    uint64_t raddr, uint32_t rkey, int signaled)
{
	memset(wr, 0, sizeof *wr);
	wr->wr_id = signaled ? SIGNALED_WR_ID : UNSIGNALED_WR_ID;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = op;
	wr->send_flags = flags | (signaled ? IBV_SEND_SIGNALED : 0);
	wr->wr.rdma.remote_addr = raddr;
	wr->wr.rdma.rkey = rkey;
}

static void bench_init(struct bench *b, struct env *e)
{
	memset(b, 0, sizeof *b);
	b->e = e;
	completer_init(&b->ca, e->cq_a, e->a->qp_num, e->uidx_a);
	completer_init(&b->cb, e->cq_b, e->b->qp_num, e->uidx_b);
	uint64_t base = (uintptr_t)e->mem;
	b->raddr = base + WRITE_DST;
	b->write_sge = (struct ibv_sge){ .addr = base + WRITE_SRC, .length = WRITE_BYTES, .lkey = e->mr->lkey };
	b->inl16_sge = (struct ibv_sge){ .addr = base + INLINE_SRC, .length = 16, .lkey = e->mr->lkey };
	b->inl64_sge = (struct ibv_sge){ .addr = base + INLINE_SRC, .length = 64, .lkey = e->mr->lkey };
	fill_wr(&b->write_u, IBV_WR_RDMA_WRITE, &b->write_sge, 0, b->raddr, e->mr->rkey, 0);
	fill_wr(&b->write_s, IBV_WR_RDMA_WRITE, &b->write_sge, 0, b->raddr, e->mr->rkey, 1);
	fill_wr(&b->inl16_u, IBV_WR_SEND, &b->inl16_sge, IBV_SEND_INLINE, 0, 0, 0);
	fill_wr(&b->inl16_s, IBV_WR_SEND, &b->inl16_sge, IBV_SEND_INLINE, 0, 0, 1);
	fill_wr(&b->inl64_u, IBV_WR_SEND, &b->inl64_sge, IBV_SEND_INLINE, 0, 0, 0);
	fill_wr(&b->inl64_s, IBV_WR_SEND, &b->inl64_sge, IBV_SEND_INLINE, 0, 0, 1);
	for (int i = 0; i < DOORBELL_BATCH; i++) {
		int last = i == DOORBELL_BATCH - 1;
		fill_wr(&b->batch_u[i], IBV_WR_RDMA_WRITE, &b->write_sge, 0, b->raddr, e->mr->rkey, 0);
		fill_wr(&b->batch_s[i], IBV_WR_RDMA_WRITE, &b->write_sge, 0, b->raddr, e->mr->rkey, last);
		b->batch_u[i].next = last ? NULL : &b->batch_u[i + 1];
		b->batch_s[i].next = last ? NULL : &b->batch_s[i + 1];
	}
	for (int i = 0; i < 16; i++) {
		fill_wr(&b->chain_s[i], IBV_WR_RDMA_WRITE, &b->write_sge, 0, b->raddr, e->mr->rkey, 1);
		b->chain_s[i].wr_id = (uint64_t)i;
		b->chain_s[i].next = i == 15 ? NULL : &b->chain_s[i + 1];
	}
	/* b: POSTED signaled RDMA WRITEs (1 WQEBB each, wr_id = index) that the poll benchmarks complete */
	struct ibv_send_wr wr;
	fill_wr(&wr, IBV_WR_RDMA_WRITE, &b->write_sge, 0, b->raddr, e->mr->rkey, 1);
	for (int i = 0; i < POSTED; i++) {
		struct ibv_send_wr *bad;
		wr.wr_id = (uint64_t)i;
		int rc = ibv_post_send(e->b, &wr, &bad);
		if (rc)
			die("ibv_post_send (poll setup)", rc);
	}
}

/* The signaled WQE of this invocation completes; ibv_poll_cq must return exactly it. */
static inline void complete_and_poll(struct bench *b, uint32_t wqebb, uint8_t opcode)
{
	b->cur_post += BATCH * wqebb;
	complete(&b->ca, (uint16_t)(b->cur_post - wqebb), opcode);
	int n = ibv_poll_cq(b->e->cq_a, 1, b->wc);
	if (n != 1 || b->wc[0].wr_id != SIGNALED_WR_ID || b->wc[0].status != IBV_WC_SUCCESS) {
		fprintf(stderr, "libmlx5_loop: ibv_poll_cq returned %d (wr_id 0x%llx, status %d): ring out of step\n", n,
			(unsigned long long)b->wc[0].wr_id, n > 0 ? (int)b->wc[0].status : -1);
		exit(1);
	}
}

static inline void post(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int rc = ibv_post_send(qp, wr, &bad);
	if (rc)
		die("ibv_post_send", rc);
}

static void post_cycle(struct bench *b, struct ibv_send_wr *u, struct ibv_send_wr *s, int per_post, uint32_t wqebb,
		       uint8_t opcode)
{
	for (int i = 1; i < BATCH / per_post; i++)
		post(b->e->a, u);
	post(b->e->a, s);
	complete_and_poll(b, wqebb, opcode);
}

static void ps_rdma_write(struct bench *b) { post_cycle(b, &b->write_u, &b->write_s, 1, 1, MLX5_OPCODE_RDMA_WRITE); }
static void ps_inline16(struct bench *b) { post_cycle(b, &b->inl16_u, &b->inl16_s, 1, 1, MLX5_OPCODE_SEND); }
static void ps_inline64(struct bench *b) { post_cycle(b, &b->inl64_u, &b->inl64_s, 1, 2, MLX5_OPCODE_SEND); }
static void ps_batch8(struct bench *b)
{
	post_cycle(b, b->batch_u, b->batch_s, DOORBELL_BATCH, 1, MLX5_OPCODE_RDMA_WRITE);
}

static inline void wr_ids(struct ibv_qp_ex *qx, int signaled)
{
	qx->wr_id = signaled ? SIGNALED_WR_ID : UNSIGNALED_WR_ID;
	qx->wr_flags = signaled ? IBV_SEND_SIGNALED : 0;
}

static inline void wr_write(struct bench *b, int signaled)
{
	struct ibv_qp_ex *qx = b->e->ax;
	wr_ids(qx, signaled);
	ibv_wr_rdma_write(qx, b->e->mr->rkey, b->raddr);
	ibv_wr_set_sge(qx, b->write_sge.lkey, b->write_sge.addr, b->write_sge.length);
}

static inline void wr_done(struct ibv_qp_ex *qx)
{
	int rc = ibv_wr_complete(qx);
	if (rc)
		die("ibv_wr_complete", rc);
}

static void wr_rdma_write(struct bench *b)
{
	struct ibv_qp_ex *qx = b->e->ax;
	for (int i = 1; i <= BATCH; i++) {
		ibv_wr_start(qx);
		wr_write(b, i == BATCH);
		wr_done(qx);
	}
	complete_and_poll(b, 1, MLX5_OPCODE_RDMA_WRITE);
}

static void wr_inline(struct bench *b, size_t bytes, uint32_t wqebb)
{
	struct ibv_qp_ex *qx = b->e->ax;
	void *src = b->e->mem + INLINE_SRC;
	for (int i = 1; i <= BATCH; i++) {
		ibv_wr_start(qx);
		wr_ids(qx, i == BATCH);
		ibv_wr_send(qx);
		ibv_wr_set_inline_data(qx, src, bytes);
		wr_done(qx);
	}
	complete_and_poll(b, wqebb, MLX5_OPCODE_SEND);
}

static void wr_inline16(struct bench *b) { wr_inline(b, 16, 1); }
static void wr_inline64(struct bench *b) { wr_inline(b, 64, 2); }

static void wr_batch8(struct bench *b)
{
	struct ibv_qp_ex *qx = b->e->ax;
	for (int k = 0; k < BATCH; k += DOORBELL_BATCH) {
		ibv_wr_start(qx);
		for (int i = 1; i <= DOORBELL_BATCH; i++)
			wr_write(b, k + i == BATCH);
		wr_done(qx);
	}
	complete_and_poll(b, 1, MLX5_OPCODE_RDMA_WRITE);
}

static inline void poll_cycle(struct bench *b, int n)
{
	uint32_t slot = b->next_b;
	for (int i = 0; i < n; i++) {
		complete(&b->cb, (uint16_t)slot, MLX5_OPCODE_RDMA_WRITE);
		slot = (slot + 1) & (POSTED - 1);
	}
	b->next_b = slot;
	int got = ibv_poll_cq(b->e->cq_b, n, b->wc);
	uint64_t want = (slot - 1) & (POSTED - 1);
	if (got != n || b->wc[n - 1].wr_id != want || b->wc[n - 1].status != IBV_WC_SUCCESS) {
		fprintf(stderr, "libmlx5_loop: ibv_poll_cq returned %d of %d (last wr_id %llu, want %llu)\n", got, n,
			(unsigned long long)b->wc[n - 1].wr_id, (unsigned long long)want);
		exit(1);
	}
}

static void poll1(struct bench *b) { poll_cycle(b, 1); }
static void poll16(struct bench *b) { poll_cycle(b, 16); }

/* Like for like with Mlx5jPollBench.postPoll*: one ibv_post_send of a list of n signaled RDMA WRITEs on a, their n
 * CQEs, one ibv_poll_cq of n. */
static inline void post_poll_cycle(struct bench *b, int n)
{
	post(b->e->a, &b->chain_s[16 - n]);
	for (int i = 0; i < n; i++)
		complete(&b->ca, (uint16_t)b->cur_post++, MLX5_OPCODE_RDMA_WRITE);
	int got = ibv_poll_cq(b->e->cq_a, n, b->wc);
	if (got != n || b->wc[n - 1].wr_id != 15 || b->wc[n - 1].status != IBV_WC_SUCCESS) {
		fprintf(stderr, "libmlx5_loop: ibv_poll_cq returned %d of %d (last wr_id %llu, want 15)\n", got, n,
			got > 0 ? (unsigned long long)b->wc[got - 1].wr_id : 0ull);
		exit(1);
	}
}

static void post_poll1(struct bench *b) { post_poll_cycle(b, 1); }
static void post_poll16(struct bench *b) { post_poll_cycle(b, 16); }

#include "libmlx5_raw.h"
#include "libmlx5_striding.h"
#include "libmlx5_manyqp.h"
#include "libmlx5_dc.h"

/* ------------------------------------------------------------------ timing and JSON */

struct variant {
	const char *name;         /* JMH-style "c.<Class>.<method>" */
	void (*fn)(struct bench *);
	int ops;                  /* WQEs or CQEs per invocation */
};

static const struct variant VARIANTS[] = {
	{ "c.IbvPostSendBench.rdmaWrite", ps_rdma_write, BATCH },
	{ "c.IbvPostSendBench.sendInline16", ps_inline16, BATCH },
	{ "c.IbvPostSendBench.sendInline64", ps_inline64, BATCH },
	{ "c.IbvPostSendBench.rdmaWriteBatch8", ps_batch8, BATCH },
	{ "c.IbvWrBench.rdmaWrite", wr_rdma_write, BATCH },
	{ "c.IbvWrBench.sendInline16", wr_inline16, BATCH },
	{ "c.IbvWrBench.sendInline64", wr_inline64, BATCH },
	{ "c.IbvWrBench.rdmaWriteBatch8", wr_batch8, BATCH },
	{ "c.IbvPollCqBench.poll1", poll1, 1 },
	{ "c.IbvPollCqBench.poll16", poll16, 16 },
	{ "c.IbvPollCqBench.postPoll1", post_poll1, 1 },
	{ "c.IbvPollCqBench.postPoll16", post_poll16, 16 },
	{ "c.DciPostBench.libmlx5RdmaWrite", dc_rdma_write, BATCH }, /* libmlx5_dc.h */
};

/* The many-QP rows (libmlx5_manyqp.h): one variant, run once per QP count, its QPs built for each run. */
static const struct variant MANY_VARIANT = { "c.IbvManyQpBench.postPoll1", many_post_poll1, 1 };
static const uint32_t MANY_QPS[] = { 1, 64, 1024 };

/* On an Ethernet port only (libmlx5_raw.h, libmlx5_striding.h). */
static const struct variant RAW_VARIANTS[] = {
	{ "c.IbvRawPostSendBench.udpSge", raw_ps_sge, BATCH },
	{ "c.IbvRawPostSendBench.udpInline", raw_ps_inline, BATCH },
	{ "c.IbvRawWrBench.udpSge", raw_wr_sge, BATCH },
	{ "c.IbvRawWrBench.udpInline", raw_wr_inline, BATCH },
	{ "c.IbvRawPollCqBench.recv1", raw_poll1, 1 },
	{ "c.IbvRawPollCqBench.recv16", raw_poll16, 16 },
	{ "c.IbvRawCqExBench.recv1Ts", raw_ex1, 1 },
	{ "c.IbvRawCqExBench.recv16Ts", raw_ex16, 16 },
	{ "c.IbvRawCqExBench.recv1Wallclock", raw_ex1_wall, 1 },
	{ "c.IbvStridingRecvBench.recv1", str_recv1, 1 }, /* libmlx5_striding.h */
};

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Student's t quantile for a two-sided 99.9 % interval (JMH's default confidence), df = 1..30; 3.291 beyond. */
static double t999(int df)
{
	static const double T[] = { 0, 636.619, 31.599, 12.924, 8.610, 6.869, 5.959, 5.408, 5.041, 4.781, 4.587,
				    4.437, 4.318, 4.221, 4.140, 4.073, 4.015, 3.965, 3.922, 3.883, 3.850,
				    3.819, 3.792, 3.768, 3.745, 3.725, 3.707, 3.690, 3.674, 3.659, 3.646 };
	return df >= 1 && df <= 30 ? T[df] : 3.291;
}

/* quick: 1 = quick mode, 2 = short mode (1 s repetitions as full, but 5 of them), 0 = full */
/* qps: the many-QP rows' QP count (a "qps" param in the record), 0 for the others */
static void run(struct bench *b, const struct variant *v, int quick, FILE *out, const char *label, int first,
		uint32_t qps)
{
	const double warm_ns = quick == 1 ? 0.2e9 : 1e9;
	const double rep_ns = quick == 1 ? 20e6 : 1e9;
	const int reps = quick ? 5 : 15;
	/* warm-up, and calibrate how many invocations make one repetition */
	long calls = 0;
	double t0 = now_ns(), t;
	do {
		for (int i = 0; i < 100; i++)
			v->fn(b);
		calls += 100;
		t = now_ns();
	} while (t - t0 < warm_ns);
	long per_rep = (long)((double)calls * rep_ns / (t - t0)) + 1;
	double score[MAX_REPS];
	double sum = 0;
	for (int r = 0; r < reps; r++) {
		double s = now_ns();
		for (long i = 0; i < per_rep; i++)
			v->fn(b);
		score[r] = (now_ns() - s) / ((double)per_rep * v->ops);
		sum += score[r];
	}
	double mean = sum / reps, var = 0;
	for (int r = 0; r < reps; r++)
		var += (score[r] - mean) * (score[r] - mean);
	double err = t999(reps - 1) * sqrt(var / (reps - 1)) / sqrt((double)reps);
	char params[96];
	if (qps)
		snprintf(params, sizeof params, "\"libmlx5\": \"%s\", \"qps\": \"%u\"", label, qps);
	else
		snprintf(params, sizeof params, "\"libmlx5\": \"%s\"", label);
	char qtxt[16] = "";
	if (qps)
		snprintf(qtxt, sizeof qtxt, "qps=%u", qps);
	printf("%-40s %-22s %-8s %9.3f +- %7.3f ns/op\n", v->name, label, qtxt, mean, err);
	fprintf(out, "%s  {\n    \"benchmark\": \"%s\",\n    \"mode\": \"avgt\",\n    \"forks\": 1,\n"
		     "    \"measurementIterations\": %d,\n    \"params\": { %s },\n"
		     "    \"primaryMetric\": {\n      \"score\": %.6f,\n      \"scoreError\": %.6f,\n"
		     "      \"scoreUnit\": \"ns/op\",\n      \"rawData\": [[",
		first ? "" : ",\n", v->name, reps, params, mean, err);
	for (int r = 0; r < reps; r++)
		fprintf(out, "%s%.6f", r ? ", " : "", score[r]);
	fprintf(out, "]]\n    },\n    \"secondaryMetrics\": {}\n  }");
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "quick") != 0 && strcmp(argv[1], "short") != 0 &&
			  strcmp(argv[1], "full") != 0)) {
		fprintf(stderr, "usage: %s quick|short|full OUT.json [LABEL [INCLUDE_REGEX]]\n", argv[0]);
		return 2;
	}
	regex_t include;
	int filtered = argc > 4 && argv[4][0];
	if (filtered && regcomp(&include, argv[4], REG_EXTENDED | REG_NOSUB) != 0) {
		fprintf(stderr, "libmlx5_loop: bad INCLUDE_REGEX '%s'\n", argv[4]);
		return 2;
	}
	int quick = strcmp(argv[1], "quick") == 0 ? 1 : strcmp(argv[1], "short") == 0 ? 2 : 0;
	const char *label = argc > 3 ? argv[3] : "default";
	FILE *out = fopen(argv[2], "w");
	if (!out)
		die(argv[2], errno);
	struct env e;
	env_open(&e);
	struct bench b;
	bench_init(&b, &e);
	if (e.eth) {
		b.raw = calloc(1, sizeof *b.raw);
		if (!b.raw)
			die("calloc", ENOMEM);
		raw_open(b.raw, &e);
		b.str = calloc(1, sizeof *b.str);
		if (!b.str)
			die("calloc", ENOMEM);
		str_open(b.str, &e);
	} else {
		printf("libmlx5_loop: port 1 is InfiniBand: the raw packet rows are skipped (mlx5emu --link eth runs them)\n");
	}
	/* after the raw QPs, so that the BlueFlame registers and user indexes those get stay what they were */
	b.dc = calloc(1, sizeof *b.dc);
	if (!b.dc)
		die("calloc", ENOMEM);
	dc_open(b.dc, &e);
	fprintf(out, "[\n");
	const size_t n_rc = sizeof VARIANTS / sizeof VARIANTS[0], n_raw = sizeof RAW_VARIANTS / sizeof RAW_VARIANTS[0];
	int first = 1;
	for (size_t i = 0; i < n_rc + n_raw; i++) {
		const struct variant *v = i < n_rc ? &VARIANTS[i] : &RAW_VARIANTS[i - n_rc];
		if ((i >= n_rc && !b.raw) || (filtered && regexec(&include, v->name, 0, NULL, 0) != 0))
			continue;
		run(&b, v, quick, out, label, first, 0);
		first = 0;
	}
	for (size_t i = 0; i < sizeof MANY_QPS / sizeof MANY_QPS[0]; i++) {
		if (filtered && regexec(&include, MANY_VARIANT.name, 0, NULL, 0) != 0)
			continue;
		b.many = manyqp_open(&e, MANY_QPS[i]);
		run(&b, &MANY_VARIANT, quick, out, label, first, MANY_QPS[i]);
		first = 0;
		manyqp_close(b.many);
		b.many = NULL;
	}
	fprintf(out, "\n]\n");
	if (filtered)
		regfree(&include);
	if (fclose(out))
		die("writing results", errno);
	if (b.raw) {
		raw_close(b.raw);
		free(b.raw);
		str_close(b.str);
		free(b.str);
	}
	dc_close(b.dc);
	free(b.dc);
	env_close(&e);
	return 0;
}
