/* SPDX-License-Identifier: Apache-2.0 */
/* XRC through the engine: an INI QP sends to a TGT QP, which receives into the XRC SRQ each WQE names (two SRQs of
 * one domain behind one TGT QP); SEND, SEND_IMM, RDMA WRITE, WRITE_IMM, READ and FETCH_ADD complete with the data
 * in place, receives on the SRQ's CQ with the TGT QP's number; an SRQ number of another domain is a remote access
 * error at the INI QP and IBV_EVENT_QP_ACCESS_ERR for the TGT QP, whose SRQ then gets nothing. Also a second
 * process's INI QP sending to this process's TGT QP (the domain opened by both through one file). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "etest.h"

#include "xrc_test.h"

/* The next async event is IBV_EVENT_QP_LAST_WQE_REACHED on qp, within 5 s. */
static void expect_last_wqe(struct ibv_qp *qp)
{
	struct pollfd pfd = { .fd = t_ctx->async_fd, .events = POLLIN };
	CHECK(poll(&pfd, 1, 5000) == 1, "no Last WQE Reached event");
	struct ibv_async_event ev;
	CHECK(ibv_get_async_event(t_ctx, &ev) == 0, "get_async_event");
	CHECK(ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED && ev.element.qp == qp, "event %d on qp %p (want %p)",
	      ev.event_type, (void *)ev.element.qp, (void *)qp);
	ibv_ack_async_event(&ev);
}

/* The peer process: opens the same domain through the file (without O_CREAT: it exists), an INI QP to the TGT QP
 * the parent names, and sends into the parent's SRQ. */
static int g_rd = -1, g_wr = -1;

static void peer(void)
{
	t_open();
	uint32_t msg[2];
	t_xread(g_rd, msg, sizeof msg); /* TGT QPN, SRQN: the parent's domain exists */
	int fd = open(g_path, O_RDONLY);
	CHECK(fd >= 0, "open %s", g_path);
	struct ibv_xrcd *x = open_xrcd(fd, 0); /* the parent's domain: no O_CREAT needed */
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cq, "cq");
	struct ibv_qp *ini = ini_qp(cq);
	uint32_t mine = ini->qp_num;
	t_xwrite(g_wr, &mine, sizeof mine);
	connect_xrc(ini, msg[0]);
	void *buf;
	struct ibv_mr *mr = t_mr(4096, IBV_ACCESS_LOCAL_WRITE, &buf);
	memset(buf, 0x5c, 300);
	send_xrc(ini, msg[1], IBV_WR_SEND, 77, buf, 300, mr->lkey, 0, 0);
	expect_send_ok(cq, 77, IBV_WC_SEND);
	char done = 1;
	t_xwrite(g_wr, &done, 1);
	t_xread(g_rd, &done, 1);
	CHECK(ibv_destroy_qp(ini) == 0 && ibv_destroy_cq(cq) == 0 && ibv_dereg_mr(mr) == 0, "peer teardown");
	CHECK(ibv_close_xrcd(x) == 0, "peer close_xrcd");
	close(fd);
	CHECK(t_violations() == 0, "peer strict violations");
	ibv_close_device(t_ctx);
}

int main(void)
{
	snprintf(g_path, sizeof g_path, "/tmp/t_xrc-%d", (int)getpid());
	int fd = open(g_path, O_RDONLY | O_CREAT, 0600);
	CHECK(fd >= 0, "create %s", g_path);
	int to_child[2], to_parent[2];
	/* fork first: each process opens the device itself and has its own engine */
	CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0, "pipes");
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		g_rd = to_child[0];
		g_wr = to_parent[1];
		peer();
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);

	t_open();
	struct ibv_xrcd *x = open_xrcd(fd, O_CREAT);
	struct ibv_xrcd *other = open_xrcd(-1, O_CREAT); /* a private domain */
	struct ibv_cq *scq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_cq *rcq1 = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_cq *rcq2 = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_cq *rcq3 = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(scq && rcq1 && rcq2 && rcq3, "cqs");
	struct ibv_srq *s1 = xsrq(x, rcq1), *s2 = xsrq(x, rcq2), *foreign = xsrq(other, rcq3);
	uint32_t n1, n2, nf;
	CHECK(ibv_get_srq_num(s1, &n1) == 0 && ibv_get_srq_num(s2, &n2) == 0 && ibv_get_srq_num(foreign, &nf) == 0,
	      "srq nums");
	struct ibv_qp *tgt = tgt_qp(x);
	struct ibv_qp *ini = ini_qp(scq);
	connect_xrc(tgt, ini->qp_num);
	connect_xrc(ini, tgt->qp_num);

	void *sbuf, *rbuf;
	struct ibv_mr *smr = t_mr(65536, IBV_ACCESS_LOCAL_WRITE, &sbuf);
	struct ibv_mr *rmr = t_mr(65536, T_ALL_ACCESS, &rbuf);
	uint8_t *s = sbuf, *r = rbuf;
	for (int i = 0; i < 65536; i++)
		s[i] = (uint8_t)(i * 7 + 3);

	/* SEND into SRQ 1, SEND_IMM into SRQ 2: each on its own SRQ's CQ, with the TGT QP's number */
	post_srq(s1, 101, r, 4096, rmr->lkey);
	post_srq(s2, 201, r + 8192, 4096, rmr->lkey);
	send_xrc(ini, n1, IBV_WR_SEND, 1, s, 1000, smr->lkey, 0, 0);
	expect_send_ok(scq, 1, IBV_WC_SEND);
	expect_recv(rcq1, 101, tgt->qp_num, s1, IBV_WC_RECV, 1000, 0);
	CHECK(memcmp(r, s, 1000) == 0, "SEND data");
	send_xrc(ini, n2, IBV_WR_SEND_WITH_IMM, 2, s + 100, 3000, smr->lkey, 0, 0);
	expect_send_ok(scq, 2, IBV_WC_SEND);
	expect_recv(rcq2, 201, tgt->qp_num, s2, IBV_WC_RECV, 3000, 1);
	CHECK(memcmp(r + 8192, s + 100, 3000) == 0, "SEND_IMM data");
	struct ibv_wc wc;
	CHECK(t_poll(rcq1, &wc, 1, 50) == 0, "SRQ 1's CQ got a completion for SRQ 2");

	/* RDMA WRITE (the SRQ's PD checks the rkey), WRITE_IMM (consumes a receive of the named SRQ), READ, FETCH_ADD */
	send_xrc(ini, n1, IBV_WR_RDMA_WRITE, 3, s, 20000, smr->lkey, (uintptr_t)(r + 16384), rmr->rkey);
	expect_send_ok(scq, 3, IBV_WC_RDMA_WRITE);
	CHECK(memcmp(r + 16384, s, 20000) == 0, "WRITE data");
	post_srq(s2, 202, r, 64, rmr->lkey);
	send_xrc(ini, n2, IBV_WR_RDMA_WRITE_WITH_IMM, 4, s + 5, 500, smr->lkey, (uintptr_t)(r + 40000), rmr->rkey);
	expect_send_ok(scq, 4, IBV_WC_RDMA_WRITE);
	expect_recv(rcq2, 202, tgt->qp_num, s2, IBV_WC_RECV_RDMA_WITH_IMM, 500, 1);
	CHECK(memcmp(r + 40000, s + 5, 500) == 0, "WRITE_IMM data");
	memset(s + 50000, 0, 8192);
	send_xrc(ini, n1, IBV_WR_RDMA_READ, 5, s + 50000, 8192, smr->lkey, (uintptr_t)(r + 16384), rmr->rkey);
	expect_send_ok(scq, 5, IBV_WC_RDMA_READ);
	CHECK(memcmp(s + 50000, s, 8192) == 0, "READ data");
	uint64_t *word = (uint64_t *)(void *)(r + 60000);
	*word = 37;
	send_xrc(ini, n1, IBV_WR_ATOMIC_FETCH_AND_ADD, 6, s + 60000, 8, smr->lkey, (uintptr_t)word, rmr->rkey);
	expect_send_ok(scq, 6, IBV_WC_FETCH_ADD);
	uint64_t old;
	memcpy(&old, s + 60000, 8);
	CHECK(old == 37 && *word == 42, "FETCH_ADD: old %lu now %lu", (unsigned long)old, (unsigned long)*word);

	/* a second process sends into SRQ 1 through this TGT QP */
	uint32_t msg[2] = { tgt->qp_num, n1 }, peer_qpn;
	post_srq(s1, 102, r + 4096, 4096, rmr->lkey);
	t_xwrite(to_child[1], msg, sizeof msg);
	t_xread(to_parent[0], &peer_qpn, sizeof peer_qpn);
	/* the TGT QP answers the peer's INI QP now: back to RESET and up again towards it */
	struct ibv_qp_attr ra = { .qp_state = IBV_QPS_RESET };
	CHECK(ibv_modify_qp(tgt, &ra, IBV_QP_STATE) == 0, "tgt reset");
	connect_xrc(tgt, peer_qpn);
	char done;
	t_xread(to_parent[0], &done, 1);
	expect_recv(rcq1, 102, tgt->qp_num, s1, IBV_WC_RECV, 300, 0);
	for (int i = 0; i < 300; i++)
		CHECK(r[4096 + i] == 0x5c, "peer SEND byte %d: 0x%x", i, r[4096 + i]);
	t_xwrite(to_child[1], &done, 1);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "peer status 0x%x", st);

	/* back to this process's INI QP: an SRQ of another domain is a remote access error, the TGT QP goes to error
	 * with IBV_EVENT_QP_ACCESS_ERR and the foreign SRQ receives nothing */
	CHECK(ibv_modify_qp(tgt, &ra, IBV_QP_STATE) == 0, "tgt reset");
	CHECK(ibv_modify_qp(ini, &ra, IBV_QP_STATE) == 0, "ini reset");
	connect_xrc(tgt, ini->qp_num);
	connect_xrc(ini, tgt->qp_num);
	post_srq(foreign, 301, r, 4096, rmr->lkey);
	send_xrc(ini, nf, IBV_WR_SEND, 7, s, 100, smr->lkey, 0, 0);
	CHECK(t_poll(scq, &wc, 1, 5000) == 1, "error completion");
	CHECK(wc.wr_id == 7 && wc.status == IBV_WC_REM_ACCESS_ERR, "wrong domain: id %lu status %d (%s)",
	      (unsigned long)wc.wr_id, wc.status, ibv_wc_status_str(wc.status));
	CHECK(t_poll(rcq3, &wc, 1, 100) == 0, "the foreign SRQ received");
	struct pollfd pfd = { .fd = t_ctx->async_fd, .events = POLLIN };
	CHECK(poll(&pfd, 1, 5000) == 1, "no async event");
	struct ibv_async_event ev;
	CHECK(ibv_get_async_event(t_ctx, &ev) == 0, "get_async_event");
	CHECK(ev.event_type == IBV_EVENT_QP_ACCESS_ERR && ev.element.qp == tgt, "event %d on qp %p (tgt %p)",
	      ev.event_type, (void *)ev.element.qp, (void *)tgt);
	ibv_ack_async_event(&ev);
	/* a TGT QP in the Error state takes no more XRC SRQ WQEs: Last WQE Reached follows (IBA 11.6.3.1, Annex A14) */
	expect_last_wqe(tgt);
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	CHECK(ibv_query_qp(tgt, &qa, IBV_QP_STATE, &qi) == 0 && qa.qp_state == IBV_QPS_ERR, "tgt state %d",
	      qa.qp_state);
	/* also for a TGT QP no request ever reached (bound to no SRQ yet): a consumer that destroys it only after the
	 * event, as rdma-core asks of QPs on SRQs, must not wait forever */
	struct ibv_qp *idle = tgt_qp(x);
	connect_xrc(idle, ini->qp_num);
	struct ibv_qp_attr ea = { .qp_state = IBV_QPS_ERR };
	CHECK(ibv_modify_qp(idle, &ea, IBV_QP_STATE) == 0, "idle tgt to error");
	expect_last_wqe(idle);
	CHECK(ibv_destroy_qp(idle) == 0, "destroy idle tgt");

	CHECK(t_violations() == 0, "strict violations");
	CHECK(ibv_destroy_qp(ini) == 0 && ibv_destroy_qp(tgt) == 0, "destroy qps");
	CHECK(ibv_destroy_srq(s1) == 0 && ibv_destroy_srq(s2) == 0 && ibv_destroy_srq(foreign) == 0, "destroy srqs");
	CHECK(ibv_close_xrcd(x) == 0 && ibv_close_xrcd(other) == 0, "close xrcds");
	CHECK(ibv_dereg_mr(smr) == 0 && ibv_dereg_mr(rmr) == 0, "dereg");
	CHECK(ibv_destroy_cq(scq) == 0 && ibv_destroy_cq(rcq1) == 0 && ibv_destroy_cq(rcq2) == 0 &&
	      ibv_destroy_cq(rcq3) == 0, "destroy cqs");
	CHECK(ibv_dealloc_pd(t_pd) == 0 && ibv_close_device(t_ctx) == 0, "close");
	close(fd);
	unlink(g_path);
	printf("t_xrc: ok\n");
	return 0;
}
