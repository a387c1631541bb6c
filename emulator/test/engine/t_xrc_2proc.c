/* SPDX-License-Identifier: Apache-2.0 */
/* XRC across processes (engine/eng_xrcfwd.c): two processes share an XRC domain through a file; the TGT QP is in
 * this one, the XRC SRQ it delivers into in the other (the SRQ number in the WQE selects it, as on Linux with a
 * ConnectX). SEND, SEND_IMM, a SEND of three 64 KiB packets, RDMA WRITE, WRITE_IMM, READ and FETCH_ADD through this
 * process's TGT QP reach the peer's SRQ, memory and CQ (receives with the TGT QP's number, data exact), with a SEND
 * into an SRQ of this process between them; a SEND that finds the peer's SRQ empty waits (RNR) until the peer posts;
 * an SRQ the peer has in another domain is a remote access error at the INI QP and IBV_EVENT_QP_ACCESS_ERR for the
 * TGT QP here, and for the second handle of it this process opened (ibv_open_qp). The peer also opens the TGT QP:
 * its number, EINVAL for a wrong type, EBUSY to close its XRCD while the opened QP exists, QUERY_QP through it RTS,
 * then ERR once the device moved the QP to error here. Fails on main at the
 * first ibv_open_qp (EOPNOTSUPP); without the opens, at the first SEND (IBV_WC_REM_ACCESS_ERR, status 10). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <rdma/ib_user_verbs.h>

#include "etest.h"

#include "xrc_test.h"

#define BIG 150000u /* three packets of at most 64 KiB */

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed);
}

static int same(const uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)(i * 7 + seed))
			return 0;
	return 1;
}

/* Where the peer's memory is for the parent's RDMA operations */
struct peer_info {
	uint32_t srqn, foreign_srqn, rkey, pad;
	uint64_t addr;
};

static int g_rd = -1, g_wr = -1;
static int g_to_child[2], g_to_parent[2];

/* DESTROY_QP of an opened QP through the command fd, and its struct mlx5_qp freed: libmlx5 v44's ibv_destroy_qp
 * would write through the NULL doorbell record of an opened QP (test/kernel/t_xrcd.c destroy_opened). */
static int destroy_opened(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_qp cmd;
	} c;
	struct ib_uverbs_destroy_qp_resp resp;
	memset(&c, 0, sizeof c);
	c.hdr.command = IB_USER_VERBS_CMD_DESTROY_QP;
	c.hdr.in_words = sizeof c / 4;
	c.hdr.out_words = sizeof resp / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.qp_handle = qp->handle;
	if (write(qp->context->cmd_fd, &c, sizeof c) != (ssize_t)sizeof c)
		return errno;
	free((char *)qp - 8);
	return 0;
}

/* The peer: the domain (no O_CREAT: the parent made it), an XRC SRQ with its CQ and memory; the parent's TGT QP
 * delivers into them. */
static void peer(void)
{
	t_open();
	uint32_t tgt_qpn;
	t_xread(g_rd, &tgt_qpn, sizeof tgt_qpn);
	int fd = open(g_path, O_RDONLY);
	CHECK(fd >= 0, "open %s", g_path);
	struct ibv_xrcd *x = open_xrcd(fd, 0), *other = open_xrcd(-1, O_CREAT);
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0), *fcq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cq && fcq, "peer cqs");
	struct ibv_srq *s = xsrq(x, cq), *foreign = xsrq(other, fcq);
	void *buf;
	struct ibv_mr *mr = t_mr(1u << 19, T_ALL_ACCESS, &buf);
	uint8_t *b = buf;
	uint64_t *word = (uint64_t *)(void *)(b + 460000);
	*word = 37;
	struct peer_info pi = { .rkey = mr->rkey, .addr = (uintptr_t)b };
	CHECK(ibv_get_srq_num(s, &pi.srqn) == 0 && ibv_get_srq_num(foreign, &pi.foreign_srqn) == 0, "srq nums");
	/* the TGT QP, opened from this process: its number; another type is EINVAL (ib_open_qp) */
	struct ibv_qp_open_attr oa = { .comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_TYPE,
				       .qp_num = tgt_qpn, .xrcd = x, .qp_type = IBV_QPT_XRC_RECV };
	struct ibv_qp *o = ibv_open_qp(t_ctx, &oa);
	CHECK(o && o->qp_num == tgt_qpn, "peer: ibv_open_qp of the TGT QP 0x%x: %s", tgt_qpn, strerror(errno));
	oa.qp_type = IBV_QPT_RC;
	errno = 0;
	CHECK(!ibv_open_qp(t_ctx, &oa) && errno == EINVAL, "peer: ibv_open_qp as RC: %s", strerror(errno));
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	CHECK(o && ibv_query_qp(o, &qa, IBV_QP_STATE, &qi) == 0 && qa.qp_state == IBV_QPS_RTS,
	      "peer: the opened TGT QP's state %d, want RTS", qa.qp_state);
	post_srq(s, 101, b, 4096, mr->lkey);
	post_srq(s, 102, b + 8192, 4096, mr->lkey);
	post_srq(s, 103, b + 65536, 200000, mr->lkey);
	post_srq(s, 104, b + 270000, 64, mr->lkey);
	post_srq(foreign, 301, b, 4096, mr->lkey);
	t_xwrite(g_wr, &pi, sizeof pi);

	char step;
	t_xread(g_rd, &step, 1); /* the parent's operations are done */
	expect_recv(cq, 101, tgt_qpn, s, IBV_WC_RECV, 1000, 0);
	expect_recv(cq, 102, tgt_qpn, s, IBV_WC_RECV, 3000, 1);
	expect_recv(cq, 103, tgt_qpn, s, IBV_WC_RECV, BIG, 0);
	expect_recv(cq, 104, tgt_qpn, s, IBV_WC_RECV_RDMA_WITH_IMM, 500, 1);
	CHECK(same(b, 1000, 3), "SEND data");
	CHECK(same(b + 8192, 3000, 103), "SEND_IMM data");
	CHECK(same(b + 65536, BIG, 5), "three-packet SEND data");
	CHECK(same(b + 300000, 20000, 3), "WRITE data");
	CHECK(same(b + 340000, 500, 8), "WRITE_IMM data");
	CHECK(*word == 42, "FETCH_ADD: the word is %lu", (unsigned long)*word);
	t_xwrite(g_wr, &step, 1);

	/* RNR: the parent's SEND finds the SRQ empty and is retried until this receive is there */
	t_xread(g_rd, &step, 1);
	usleep(100000);
	post_srq(s, 105, b, 4096, mr->lkey);
	expect_recv(cq, 105, tgt_qpn, s, IBV_WC_RECV, 64, 0);
	CHECK(same(b, 64, 9), "SEND after RNR data");
	t_xwrite(g_wr, &step, 1);

	/* the foreign SRQ: the parent's SEND into it fails there, nothing arrives here */
	t_xread(g_rd, &step, 1);
	struct ibv_wc wc;
	CHECK(t_poll(fcq, &wc, 1, 100) == 0, "the SRQ of another domain received");
	/* the device moved the TGT QP to error in the parent's process: seen here through the opened handle */
	CHECK(ibv_query_qp(o, &qa, IBV_QP_STATE, &qi) == 0 && qa.qp_state == IBV_QPS_ERR,
	      "peer: the opened TGT QP's state %d after the error, want ERR", qa.qp_state);
	CHECK(t_violations() == 0, "peer strict violations");
	t_xwrite(g_wr, &step, 1);
	t_xread(g_rd, &step, 1); /* the parent's QPs are gone */
	CHECK(ibv_destroy_srq(s) == 0 && ibv_destroy_srq(foreign) == 0, "peer destroy srqs");
	CHECK(ibv_dereg_mr(mr) == 0 && ibv_destroy_cq(cq) == 0 && ibv_destroy_cq(fcq) == 0, "peer teardown");
	free(buf);
	CHECK(ibv_close_xrcd(x) == EBUSY, "peer: close_xrcd with the opened QP");
	CHECK(o && destroy_opened(o) == 0, "peer: destroy the opened QP");
	CHECK(ibv_close_xrcd(x) == 0 && ibv_close_xrcd(other) == 0, "peer close_xrcd");
	close(fd);
	ibv_close_device(t_ctx);
	_exit(0);
}

static void child(void)
{
	g_rd = g_to_child[0];
	g_wr = g_to_parent[1];
	peer();
}

int main(void)
{
	snprintf(g_path, sizeof g_path, "/tmp/t_xrc_2proc-%d", (int)getpid());
	int fd = open(g_path, O_RDONLY | O_CREAT, 0600);
	CHECK(fd >= 0, "create %s", g_path);
	int *to_child = g_to_child, *to_parent = g_to_parent;
	pid_t pid = t_fork_peer(to_child, to_parent, child);
	t_open();
	struct ibv_xrcd *x = open_xrcd(fd, O_CREAT);
	struct ibv_cq *scq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0), *rcq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(scq && rcq, "cqs");
	struct ibv_srq *mine = xsrq(x, rcq);
	uint32_t nmine;
	CHECK(ibv_get_srq_num(mine, &nmine) == 0, "srq num");
	struct ibv_qp *tgt = tgt_qp(x);
	struct ibv_qp *ini = ini_qp(scq);
	connect_xrc(tgt, ini->qp_num);
	connect_xrc(ini, tgt->qp_num);
	uint32_t tgt_qpn = tgt->qp_num;
	/* a second handle of the TGT QP in this process too: it gets the QP's events (__ib_shared_qp_event_handler) */
	struct ibv_qp_open_attr oa = { .comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_TYPE,
				       .qp_num = tgt_qpn, .xrcd = x, .qp_type = IBV_QPT_XRC_RECV };
	struct ibv_qp *otgt = ibv_open_qp(t_ctx, &oa);
	CHECK(otgt && otgt->qp_num == tgt_qpn, "ibv_open_qp of the TGT QP here: %s", strerror(errno));
	t_xwrite(to_child[1], &tgt_qpn, sizeof tgt_qpn);
	struct peer_info pi;
	t_xread(to_parent[0], &pi, sizeof pi);

	void *sbuf, *rbuf;
	struct ibv_mr *smr = t_mr(1u << 18, IBV_ACCESS_LOCAL_WRITE, &sbuf);
	struct ibv_mr *rmr = t_mr(4096, IBV_ACCESS_LOCAL_WRITE, &rbuf);
	uint8_t *s = sbuf;
	fill(s, 20000, 3);
	fill(s + 20000, 3000, 103);
	fill(s + 30000, BIG, 5);
	fill(s + 190000, 500, 8);
	fill(s + 200000, 500, 77);

	send_xrc(ini, pi.srqn, IBV_WR_SEND, 1, s, 1000, smr->lkey, 0, 0);
	expect_send_ok(scq, 1, IBV_WC_SEND);
	send_xrc(ini, pi.srqn, IBV_WR_SEND_WITH_IMM, 2, s + 20000, 3000, smr->lkey, 0, 0);
	expect_send_ok(scq, 2, IBV_WC_SEND);
	/* one into this process's own SRQ between them: the TGT QP's PSNs go on across both */
	post_srq(mine, 201, rbuf, 4096, rmr->lkey);
	send_xrc(ini, nmine, IBV_WR_SEND, 3, s + 200000, 500, smr->lkey, 0, 0);
	expect_send_ok(scq, 3, IBV_WC_SEND);
	expect_recv(rcq, 201, tgt_qpn, mine, IBV_WC_RECV, 500, 0);
	CHECK(memcmp(rbuf, s + 200000, 500) == 0, "SEND into this process's SRQ");
	send_xrc(ini, pi.srqn, IBV_WR_SEND, 4, s + 30000, BIG, smr->lkey, 0, 0);
	expect_send_ok(scq, 4, IBV_WC_SEND);
	send_xrc(ini, pi.srqn, IBV_WR_RDMA_WRITE, 5, s, 20000, smr->lkey, pi.addr + 300000, pi.rkey);
	expect_send_ok(scq, 5, IBV_WC_RDMA_WRITE);
	send_xrc(ini, pi.srqn, IBV_WR_RDMA_WRITE_WITH_IMM, 6, s + 190000, 500, smr->lkey, pi.addr + 340000, pi.rkey);
	expect_send_ok(scq, 6, IBV_WC_RDMA_WRITE);
	memset(s + 220000, 0, 8192);
	send_xrc(ini, pi.srqn, IBV_WR_RDMA_READ, 7, s + 220000, 8192, smr->lkey, pi.addr + 300000, pi.rkey);
	expect_send_ok(scq, 7, IBV_WC_RDMA_READ);
	CHECK(memcmp(s + 220000, s, 8192) == 0, "READ data");
	memset(s + 240000, 0, 8);
	send_xrc(ini, pi.srqn, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, s + 240000, 8, smr->lkey, pi.addr + 460000, pi.rkey);
	expect_send_ok(scq, 8, IBV_WC_FETCH_ADD);
	uint64_t old;
	memcpy(&old, s + 240000, 8);
	CHECK(old == 37, "FETCH_ADD returned %lu", (unsigned long)old);
	char step = 'a';
	t_xwrite(to_child[1], &step, 1);
	t_xread(to_parent[0], &step, 1);

	/* RNR: the peer posts its receive 100 ms after this SEND */
	fill(s + 250000, 64, 9);
	send_xrc(ini, pi.srqn, IBV_WR_SEND, 9, s + 250000, 64, smr->lkey, 0, 0);
	t_xwrite(to_child[1], &step, 1);
	expect_send_ok(scq, 9, IBV_WC_SEND);
	t_xread(to_parent[0], &step, 1);

	/* an SRQ of the peer in another domain: remote access error, the TGT QP (here) to error with its event */
	send_xrc(ini, pi.foreign_srqn, IBV_WR_SEND, 10, s, 100, smr->lkey, 0, 0);
	struct ibv_wc wc;
	CHECK(t_poll(scq, &wc, 1, 5000) == 1, "error completion");
	CHECK(wc.wr_id == 10 && wc.status == IBV_WC_REM_ACCESS_ERR, "another domain's SRQ: id %lu status %d (%s)",
	      (unsigned long)wc.wr_id, wc.status, ibv_wc_status_str(wc.status));
	struct pollfd pfd = { .fd = t_ctx->async_fd, .events = POLLIN };
	CHECK(poll(&pfd, 1, 5000) == 1, "no async event");
	struct ibv_async_event ev;
	int seen_tgt = 0, seen_opened = 0;
	for (int i = 0; i < 2; i++) {
		CHECK(poll(&pfd, 1, 5000) == 1, "async event %d", i);
		CHECK(ibv_get_async_event(t_ctx, &ev) == 0, "get_async_event");
		CHECK(ev.event_type == IBV_EVENT_QP_ACCESS_ERR && (ev.element.qp == tgt || ev.element.qp == otgt),
		      "event %d on qp %p (tgt %p, opened %p)", ev.event_type, (void *)ev.element.qp, (void *)tgt,
		      (void *)otgt);
		seen_tgt += ev.element.qp == tgt;
		seen_opened += ev.element.qp == otgt;
		ibv_ack_async_event(&ev);
	}
	CHECK(seen_tgt == 1 && seen_opened == 1, "events: %d on the TGT QP, %d on the opened handle", seen_tgt,
	      seen_opened);
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	CHECK(ibv_query_qp(tgt, &qa, IBV_QP_STATE, &qi) == 0 && qa.qp_state == IBV_QPS_ERR, "tgt state %d",
	      qa.qp_state);
	t_xwrite(to_child[1], &step, 1);
	t_xread(to_parent[0], &step, 1);

	CHECK(t_violations() == 0, "strict violations");
	CHECK(destroy_opened(otgt) == 0, "destroy the opened TGT QP");
	CHECK(ibv_destroy_qp(ini) == 0 && ibv_destroy_qp(tgt) == 0, "destroy qps");
	t_xwrite(to_child[1], &step, 1);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "peer status 0x%x", st);
	CHECK(ibv_destroy_srq(mine) == 0 && ibv_close_xrcd(x) == 0, "srq, xrcd");
	CHECK(ibv_dereg_mr(smr) == 0 && ibv_dereg_mr(rmr) == 0, "dereg");
	free(sbuf);
	free(rbuf);
	CHECK(ibv_destroy_cq(scq) == 0 && ibv_destroy_cq(rcq) == 0, "destroy cqs");
	CHECK(ibv_dealloc_pd(t_pd) == 0 && ibv_close_device(t_ctx) == 0, "close");
	close(fd);
	unlink(g_path);
	printf("t_xrc_2proc: ok\n");
	return 0;
}
