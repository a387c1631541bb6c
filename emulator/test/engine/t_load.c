/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Two processes (fork before either opens the device), 16 RC QP pairs between them: random sizes and offsets
 * of RDMA WRITE (unsignaled) + RDMA READ back (compared) and SENDs whose content the other process checks,
 * all QPs in flight at once. Exercises the shared-memory wires, multi-packet messages and many QPs.
 */
#include <sys/wait.h>
#include "etest.h"

#define NQP   16
#define ITERS 40
#define REGION (64 * 1024)
#define MAXMSG (24 * 1024)

struct info {
	uint32_t qpn[NQP];
	uint64_t addr;
	uint32_t rkey;
};

static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

static void pattern(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		p[i] = (uint8_t)(seed >> 24);
	}
}

static void xfer(int fd, void *p, size_t n, int wr)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = wr ? write(fd, (char *)p + done, n - done) : read(fd, (char *)p + done, n - done);
		CHECK(r > 0, "pipe");
		done += (size_t)r;
	}
}

static struct ibv_cq *cq;
static struct ibv_qp *qps[NQP];
static uint8_t *buf;
static struct ibv_mr *mr;

static void setup(int to_peer, int from_peer, struct info *remote)
{
	t_open();
	cq = ibv_create_cq(t_ctx, 4096, NULL, NULL, 0);
	CHECK(cq, "cq");
	mr = t_mr((size_t)NQP * REGION * 2, T_ALL_ACCESS, (void **)&buf);
	struct info mine;
	memset(&mine, 0, sizeof mine);
	for (int i = 0; i < NQP; i++) {
		struct ibv_qp_init_attr a;
		memset(&a, 0, sizeof a);
		a.send_cq = a.recv_cq = cq;
		a.qp_type = IBV_QPT_RC;
		a.cap.max_send_wr = 128;
		a.cap.max_recv_wr = 128;
		a.cap.max_send_sge = a.cap.max_recv_sge = 1;
		qps[i] = ibv_create_qp(t_pd, &a);
		CHECK(qps[i], "qp %d", i);
		mine.qpn[i] = qps[i]->qp_num;
	}
	mine.addr = (uintptr_t)buf;
	mine.rkey = mr->rkey;
	xfer(to_peer, &mine, sizeof mine, 1);
	xfer(from_peer, remote, sizeof *remote, 0);
	for (int i = 0; i < NQP; i++)
		t_connect(qps[i], remote->qpn[i], &t_default_conn, 1);
}

static int child(int to_parent, int from_parent)
{
	struct info remote;
	setup(to_parent, from_parent, &remote);
	/* receive buffers: second half of the MR, one MAXMSG slot per outstanding receive */
	uint8_t *rx = buf + (size_t)NQP * REGION;
	for (int i = 0; i < NQP; i++)
		for (int k = 0; k < 2; k++)
			t_post_recv(qps[i], (uint64_t)(i * 2 + k), rx + (size_t)(i * 2 + k) * MAXMSG, MAXMSG, mr->lkey);
	uint8_t go = 1;
	xfer(to_parent, &go, 1, 1);
	uint32_t got = 0, bad = 0;
	static uint8_t expect[MAXMSG];
	while (got < NQP * ITERS) {
		struct ibv_wc wc[16];
		int n = t_poll(cq, wc, 1, 30000);
		CHECK(n == 1, "child timed out after %u messages", got);
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RECV, "child wc %d", wc[0].status);
		uint8_t *p = rx + wc[0].wr_id * MAXMSG;
		uint32_t seq, len;
		memcpy(&seq, p, 4);
		memcpy(&len, p + 4, 4);
		if (len != wc[0].byte_len || len < 8) {
			bad++;
		} else {
			pattern(expect, len - 8, seq);
			bad += memcmp(expect, p + 8, len - 8) != 0;
		}
		got++;
		int qi = (int)(wc[0].wr_id / 2);
		t_post_recv(qps[qi], wc[0].wr_id, p, MAXMSG, mr->lkey);
	}
	xfer(to_parent, &bad, 4, 1);
	uint8_t fin;
	xfer(from_parent, &fin, 1, 0); /* keep QPs up until the parent is done */
	return bad ? 1 : 0;
}

int main(void)
{
	int p2c[2], c2p[2];
	CHECK(pipe(p2c) == 0 && pipe(c2p) == 0, "pipes");
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		_exit(child(c2p[1], p2c[0]));
	}
	close(p2c[0]);
	close(c2p[1]);
	struct info remote;
	setup(p2c[1], c2p[0], &remote);
	uint8_t go;
	xfer(c2p[0], &go, 1, 0);

	uint32_t outstanding[NQP] = { 0 }, done_ops = 0, mism = 0;
	uint32_t sends_left = NQP * ITERS;
	static uint8_t src[NQP][2][MAXMSG];
	int sent_per_qp[NQP] = { 0 };
	/* every QP: WRITE (unsignaled) + READ back (signaled) of random size/offset, and one SEND per step */
	uint8_t *wv[NQP], *rv[NQP];
	uint32_t lenv[NQP];
	struct ibv_mr *smrv[NQP];
	for (int it = 0; it < ITERS; it++) {
		for (int i = 0; i < NQP; i++) {
			uint32_t len = 1 + rnd() % (MAXMSG - 1), off = rnd() % (REGION - MAXMSG);
			uint8_t *w = buf + (size_t)i * REGION + (rnd() % 1024);
			pattern(w, len, rnd());
			uint8_t *r = buf + (size_t)NQP * REGION + (size_t)i * REGION + (rnd() % 1024);
			memset(r, 0, len);
			struct ibv_sge ws = { (uintptr_t)w, len, mr->lkey }, rs = { (uintptr_t)r, len, mr->lkey };
			struct ibv_send_wr wr, rd, sd;
			memset(&wr, 0, sizeof wr);
			memset(&rd, 0, sizeof rd);
			memset(&sd, 0, sizeof sd);
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.sg_list = &ws;
			wr.num_sge = 1;
			wr.wr.rdma.remote_addr = remote.addr + (uint64_t)i * REGION + off;
			wr.wr.rdma.rkey = remote.rkey;
			rd = wr;
			rd.opcode = IBV_WR_RDMA_READ;
			rd.sg_list = &rs;
			rd.send_flags = IBV_SEND_SIGNALED;
			rd.wr_id = (uint64_t)i << 32 | 1;
			wr.next = &rd;
			/* SEND: header (seq, len) + pattern(seq) */
			uint32_t slen = 8 + rnd() % (MAXMSG - 8);
			uint32_t seq = (uint32_t)(i * 1000 + sent_per_qp[i]);
			uint8_t *sb = src[i][sent_per_qp[i] & 1];
			memcpy(sb, &seq, 4);
			memcpy(sb + 4, &slen, 4);
			pattern(sb + 8, slen - 8, seq);
			struct ibv_sge ss = { (uintptr_t)sb, slen, 0 };
			sd.opcode = IBV_WR_SEND;
			sd.sg_list = &ss;
			sd.num_sge = 1;
			sd.send_flags = IBV_SEND_SIGNALED;
			sd.wr_id = (uint64_t)i << 32 | 2;
			rd.next = &sd;
			struct ibv_mr *smr = ibv_reg_mr(t_pd, sb, slen, IBV_ACCESS_LOCAL_WRITE);
			CHECK(smr, "send mr");
			ss.lkey = smr->lkey;
			t_post_send(qps[i], &wr);
			sent_per_qp[i]++;
			outstanding[i] += 2;
			wv[i] = w;
			rv[i] = r;
			lenv[i] = len;
			smrv[i] = smr;
		}
		/* every QP has a WRITE, a READ and a SEND in flight; collect, then check the read-backs */
		for (int k = 0; k < 2 * NQP; k++) {
			struct ibv_wc wc[8];
			int n = t_poll(cq, wc, 1, 30000);
			CHECK(n == 1, "parent timed out (it %d)", it);
			CHECK(wc[0].status == IBV_WC_SUCCESS, "parent wc status %d opcode %d", wc[0].status, wc[0].opcode);
			outstanding[wc[0].wr_id >> 32]--;
			done_ops++;
		}
		for (int i = 0; i < NQP; i++) {
			CHECK(outstanding[i] == 0, "qp %d still has %u outstanding", i, outstanding[i]);
			mism += memcmp(rv[i], wv[i], lenv[i]) != 0;
			ibv_dereg_mr(smrv[i]);
			sends_left--;
		}
	}
	CHECK(mism == 0, "%u read-backs differ", mism);
	uint32_t bad = 1;
	xfer(c2p[0], &bad, 4, 0);
	uint8_t fin = 1;
	xfer(p2c[1], &fin, 1, 1);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status");
	CHECK(bad == 0, "child saw %u corrupted messages", bad);
	CHECK(t_violations() == 0, "violations %lu", t_violations());
	for (int i = 0; i < NQP; i++)
		ibv_destroy_qp(qps[i]);
	ibv_dereg_mr(mr);
	free(buf);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("t_load: ok (%u completions, %d QPs x %d iterations, 2 processes)\n", done_ops, NQP, ITERS);
	return 0;
}
