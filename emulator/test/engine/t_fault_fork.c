/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fault injection across fork: packets a process's engine holds back (MLX5EMU_FAULTS delay) are that engine's to
 * send. A fork child that opens the device starts an engine of its own, which must not send its copies of them:
 * the receiver would get every delayed message twice.
 *
 * A (this program, re-executed with MLX5EMU_FAULTS=delay=1:300ms: the spec is read when the library loads) sends
 * N UD messages to B, a process forked before either opens the device. Once A's send completions are in, all N
 * are held by A's engine; A forks C, which opens the device and creates a QP (its engine runs passes) while the
 * delay runs out. B must receive each message exactly once.
 */
#include <errno.h>
#include <sys/wait.h>

#include "etest.h"

#define N 8
#define LEN 64
#define QKEY 0x11111111u
#define SPEC "delay=1:300ms"

static int to_child[2], to_parent[2];

static struct ibv_qp *ud_qp(struct ibv_cq *cq)
{
	struct ibv_qp *qp = t_qp(IBV_QPT_UD, cq, cq, NULL, 1);
	t_ud_up(qp, QKEY);
	return qp;
}

/* B: receives for 1.5 s (five times the delay), then reports how many messages came, and whether each was the
 * i-th in order and intact. */
static void receiver(void)
{
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 4 * N, NULL, NULL, 0);
	CHECK(cq, "cq");
	struct ibv_qp *qp = ud_qp(cq);
	uint8_t *buf;
	struct ibv_mr *mr = t_mr(4 * N * (40 + LEN), IBV_ACCESS_LOCAL_WRITE, (void **)&buf);
	for (int i = 0; i < 4 * N; i++)
		t_post_recv(qp, (uint64_t)i, buf + i * (40 + LEN), 40 + LEN, mr->lkey);
	t_xwrite(to_parent[1], &qp->qp_num, sizeof qp->qp_num);
	int got = 0, bad = 0;
	uint64_t end = t_ms() + 1500;
	while (t_ms() < end) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(cq, 1, &wc);
		if (n == 0) {
			usleep(200);
			continue;
		}
		const uint8_t *m = buf + wc.wr_id * (40 + LEN) + 40; /* after the GRH space */
		if (wc.status != IBV_WC_SUCCESS || wc.byte_len != 40 + LEN || m[0] != got || m[LEN - 1] != got)
			bad++;
		got++;
	}
	t_xwrite(to_parent[1], &got, sizeof got);
	t_xwrite(to_parent[1], &bad, sizeof bad);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	free(buf);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (!getenv("MLX5EMU_FAULTS")) {
		setenv("MLX5EMU_FAULTS", SPEC, 1);
		execv("/proc/self/exe", argv);
		CHECK(0, "exec: %s", strerror(errno));
	}
	pid_t b = t_fork_peer(to_child, to_parent, receiver);
	uint32_t bqpn;
	t_xread(to_parent[0], &bqpn, sizeof bqpn);
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 4 * N, NULL, NULL, 0);
	CHECK(cq, "cq");
	struct ibv_qp *qp = ud_qp(cq);
	struct ibv_ah_attr aa;
	t_ah_attr(&aa);
	struct ibv_ah *ah = ibv_create_ah(t_pd, &aa);
	CHECK(ah, "ah");
	uint8_t *buf;
	struct ibv_mr *mr = t_mr(N * LEN, IBV_ACCESS_LOCAL_WRITE, (void **)&buf);
	uint64_t t0 = t_ms();
	for (int i = 0; i < N; i++) {
		memset(buf + i * LEN, i, LEN);
		struct ibv_sge s = { (uintptr_t)(buf + i * LEN), LEN, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = (uint64_t)i, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = bqpn;
		wr.wr.ud.remote_qkey = QKEY;
		t_post_send(qp, &wr);
	}
	struct ibv_wc wc[N];
	CHECK(t_poll(cq, wc, N, 5000) == N, "send completions");
	CHECK(t_ms() - t0 < 250, "the sends took %llu ms: the messages are no longer held when C starts",
	      (unsigned long long)(t_ms() - t0));
	pid_t c = fork();
	CHECK(c >= 0, "fork");
	if (c == 0) {
		t_open();
		struct ibv_cq *ccq = ibv_create_cq(t_ctx, 4, NULL, NULL, 0);
		CHECK(ccq, "fork child cq");
		struct ibv_qp *cqp = ud_qp(ccq); /* the child's engine runs passes now */
		usleep(600000);
		ibv_destroy_qp(cqp);
		ibv_destroy_cq(ccq);
		ibv_dealloc_pd(t_pd);
		ibv_close_device(t_ctx);
		_exit(0);
	}
	int got, bad, st;
	t_xread(to_parent[0], &got, sizeof got);
	t_xread(to_parent[0], &bad, sizeof bad);
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork child status 0x%x", st);
	CHECK(waitpid(b, &st, 0) == b && WIFEXITED(st) && WEXITSTATUS(st) == 0, "receiver status 0x%x", st);
	CHECK(got == N && bad == 0, "the receiver got %d messages (%d out of order or damaged) for %d sent", got, bad,
	      N);
	ibv_destroy_ah(ah);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	free(buf);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("t_fault_fork: ok\n");
	return 0;
}
