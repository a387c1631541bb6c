/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The RC transport timers, timed, with the expected times derived from the IB specification rather than from the
 * engine: local ACK timeout 4.096 us * 2^timeout, retry_cnt retransmissions before IBV_WC_RETRY_EXC_ERR (vendor
 * syndrome 0x81, libmlx5's "Failed status 12"), timeout 0 = wait forever; RNR NAK waits from the responder's
 * min_rnr_timer (IB spec table "RNR NAK timer field", 24 = 40.96 ms), rnr_retry retries before
 * IBV_WC_RNR_RETRY_EXC_ERR (vendor 0x88).
 *
 * The peer is a second process (forked before either opens the device, so each has its own engine). Stopped with
 * SIGSTOP, it neither answers nor consumes, and its peer must time out as if it had died, never hang; stopped and
 * resumed before the retries run out, the connection must carry on and the data must arrive once. The messages
 * are SENDs: an RDMA WRITE of one packet is placed in a stopped peer's memory by the requester itself, as a NIC
 * would (src/engine/eng_direct.c, checked in t_direct.c), and completes.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "etest.h"

#define NPAIRS 3

struct info {
	uint32_t qpn[NPAIRS];
	uint32_t rkey;
	uint64_t addr;
};

static int to_child[2], to_parent[2];

static void child(void)
{
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cq, "child cq");
	uint8_t *buf;
	struct ibv_mr *mr = t_mr(1 << 16, T_ALL_ACCESS, (void **)&buf);
	struct ibv_qp *qp[NPAIRS];
	struct info me = { .rkey = mr->rkey, .addr = (uintptr_t)buf };
	for (int i = 0; i < NPAIRS; i++) {
		qp[i] = t_qp(IBV_QPT_RC, cq, cq, NULL, 0);
		me.qpn[i] = qp[i]->qp_num;
	}
	t_xwrite(to_parent[1], &me, sizeof me);
	struct info peer;
	t_xread(to_child[0], &peer, sizeof peer);
	for (int i = 0; i < NPAIRS; i++) {
		t_connect(qp[i], peer.qpn[i], &t_default_conn, 1);
		for (int j = 0; j < 4; j++)
			t_post_recv(qp[i], (uint64_t)j, buf + 64 * (4 * i + j), 64, mr->lkey);
	}
	t_xwrite(to_parent[1], "r", 1);
	char c;
	t_xread(to_child[0], &c, 1); /* the parent says when to go; our engine thread answers meanwhile */
	_exit(0);
}

static double elapsed_ms(uint64_t t0) { return (double)(t_ms() - t0); }

/* kill() returns before the child is stopped: its threads stop only once one of them has taken the signal. Until
 * then its engine still answers, and a doorbell taken at once (a write fault) reaches it within microseconds. */
static void stop_child(pid_t pid)
{
	int st;
	CHECK(kill(pid, SIGSTOP) == 0, "SIGSTOP");
	CHECK(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st), "child stopped");
}

int main(void)
{
	pid_t pid = t_fork_peer(to_child, to_parent, child);
	struct info peer;
	t_xread(to_parent[0], &peer, sizeof peer);
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cq, "cq");
	uint8_t *buf;
	struct ibv_mr *mr = t_mr(1 << 16, T_ALL_ACCESS, (void **)&buf);
	struct ibv_qp *qp[NPAIRS];
	struct info me = { 0 };
	for (int i = 0; i < NPAIRS; i++) {
		qp[i] = t_qp(IBV_QPT_RC, cq, cq, NULL, 0);
		me.qpn[i] = qp[i]->qp_num;
	}
	/* pair 0: timeout 14 (67.1 ms), retry_cnt 2; pair 1: timeout 16 (268 ms), retry_cnt 3; pair 2: timeout 0 */
	struct t_conn c0 = t_default_conn, c1 = t_default_conn, c2 = t_default_conn;
	c0.timeout = 14;
	c0.retry_cnt = 2;
	c1.timeout = 16;
	c1.retry_cnt = 3;
	c2.timeout = 0;
	t_connect(qp[0], peer.qpn[0], &c0, 1);
	t_connect(qp[1], peer.qpn[1], &c1, 1);
	t_connect(qp[2], peer.qpn[2], &c2, 1);
	t_xwrite(to_child[1], &me, sizeof me);
	char r;
	t_xread(to_parent[0], &r, 1);

	struct ibv_sge s = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	/* every pair works while the peer runs */
	for (int i = 0; i < NPAIRS; i++) {
		wr.wr_id = (uint64_t)(10 + i);
		t_post_send(qp[i], &wr);
		CHECK(t_poll(cq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == (uint64_t)(10 + i),
		      "pair %d with a running peer: status %d", i, wc.status);
	}

	/* stopped and resumed within pair 1's budget (4 x 268 ms): the SEND completes successfully */
	stop_child(pid);
	memset(buf, 0x5a, 64);
	wr.wr_id = 21;
	t_post_send(qp[1], &wr);
	usleep(400000); /* past the first local ACK timeout: at least one retransmission is queued */
	CHECK(t_poll(cq, &wc, 1, 1) == 0, "nothing completes while the peer is stopped");
	CHECK(kill(pid, SIGCONT) == 0, "SIGCONT");
	CHECK(t_poll(cq, &wc, 1, 5000) == 1 && wc.wr_id == 21 && wc.status == IBV_WC_SUCCESS,
	      "resumed before the retries ran out: status %d (vendor 0x%x)", wc.status, wc.vendor_err);
	wr.wr_id = 22;
	t_post_send(qp[1], &wr);
	CHECK(t_poll(cq, &wc, 1, 5000) == 1 && wc.wr_id == 22 && wc.status == IBV_WC_SUCCESS,
	      "the connection carries on: status %d", wc.status);

	/* stopped for good: pair 0 completes with RETRY_EXC_ERR after (retry_cnt + 1) local ACK timeouts */
	stop_child(pid);
	const double expect = 3 * 4.096e-3 * (1 << 14); /* ms: 201.3 */
	uint64_t t0 = t_ms();
	wr.wr_id = 31;
	t_post_send(qp[0], &wr);
	CHECK(t_poll(cq, &wc, 1, 20000) == 1, "a stopped peer must not hang its requester");
	double ms = elapsed_ms(t0);
	CHECK(wc.wr_id == 31 && wc.status == IBV_WC_RETRY_EXC_ERR && wc.vendor_err == 0x81,
	      "status %d vendor 0x%x", wc.status, wc.vendor_err);
	/* not before the specified time; late by at most a loaded machine's scheduling (generous) */
	CHECK(ms >= 0.95 * expect && ms < expect + 3000, "RETRY_EXC_ERR after %.1f ms, expected %.1f ms", ms, expect);
	printf("t_rc_timer: stopped peer: RETRY_EXC_ERR after %.1f ms (IB spec: %.1f ms)\n", ms, expect);

	/* timeout 0 waits forever: nothing within 1 s (five times pair 0's whole budget) */
	wr.wr_id = 41;
	t_post_send(qp[2], &wr);
	CHECK(t_poll(cq, &wc, 1, 1000) == 0, "timeout 0 never times out");
	CHECK(kill(pid, SIGCONT) == 0, "SIGCONT");
	CHECK(t_poll(cq, &wc, 1, 5000) == 1 && wc.wr_id == 41 && wc.status == IBV_WC_SUCCESS,
	      "timeout 0 completes once the peer resumes: status %d", wc.status);

	/* RNR: pair 1 as SEND with no receive posted at the peer (its min_rnr_timer 1 = 0.01 ms from t_connect is
	 * too short to time), so use a local pair with min_rnr_timer 24 (40.96 ms) and rnr_retry 3: three waits. */
	{
		struct ibv_cq *rcq = ibv_create_cq(t_ctx, 16, NULL, NULL, 0);
		struct ibv_qp *a = t_qp(IBV_QPT_RC, cq, cq, NULL, 0), *b = t_qp(IBV_QPT_RC, rcq, rcq, NULL, 0);
		struct t_conn rc = t_default_conn;
		rc.rnr_retry = 3;
		rc.min_rnr_timer = 24;
		t_connect(a, b->qp_num, &rc, 1);
		t_connect(b, a->qp_num, &rc, 1);
		struct ibv_send_wr sw = { .wr_id = 51, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		const double rexp = 3 * 40.96;
		t0 = t_ms();
		t_post_send(a, &sw);
		CHECK(t_poll(cq, &wc, 1, 10000) == 1, "RNR completion");
		ms = elapsed_ms(t0);
		CHECK(wc.wr_id == 51 && wc.status == IBV_WC_RNR_RETRY_EXC_ERR && wc.vendor_err == 0x88,
		      "rnr status %d vendor 0x%x", wc.status, wc.vendor_err);
		CHECK(ms >= 0.95 * rexp && ms < rexp + 3000, "RNR_RETRY_EXC_ERR after %.1f ms, expected %.1f ms", ms, rexp);
		printf("t_rc_timer: RNR: RNR_RETRY_EXC_ERR after %.1f ms (IB spec: %.1f ms)\n", ms, rexp);
		ibv_destroy_qp(a);
		ibv_destroy_qp(b);
		ibv_destroy_cq(rcq);
	}

	t_xwrite(to_child[1], "q", 1);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child exit");
	for (int i = 0; i < NPAIRS; i++)
		ibv_destroy_qp(qp[i]);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	free(buf);
	printf("t_rc_timer: ok\n");
	return 0;
}
