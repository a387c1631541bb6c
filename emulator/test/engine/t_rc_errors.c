/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RC error paths as a ConnectX reports them: remote access, local protection, RNR retry exceeded, transport
 * retry exceeded (peer not in RTR, vendor syndrome 0x81), local length / remote invalid request, and the
 * WR_FLUSH_ERR of everything outstanding once a QP is in error.
 */
#include "etest.h"

struct pair {
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *a, *b;
};

static void mkpair(struct pair *p, const struct t_conn *ca, int b_state_rts)
{
	p->cqa = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	p->cqb = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(p->cqa && p->cqb, "cq");
	p->a = t_qp(IBV_QPT_RC, p->cqa, p->cqa, NULL, 1);
	p->b = t_qp(IBV_QPT_RC, p->cqb, p->cqb, NULL, 1);
	t_connect(p->a, p->b->qp_num, ca, 1);
	if (b_state_rts)
		t_connect(p->b, p->a->qp_num, &t_default_conn, 1);
}

static void rmpair(struct pair *p)
{
	ibv_destroy_qp(p->a);
	ibv_destroy_qp(p->b);
	ibv_destroy_cq(p->cqa);
	ibv_destroy_cq(p->cqb);
}

static struct ibv_send_wr wr1(uint64_t id, enum ibv_wr_opcode op, struct ibv_sge *s)
{
	struct ibv_send_wr w;
	memset(&w, 0, sizeof w);
	w.wr_id = id;
	w.opcode = op;
	w.sg_list = s;
	w.num_sge = 1;
	w.send_flags = IBV_SEND_SIGNALED;
	return w;
}

int main(void)
{
	t_open();
	uint8_t *ba, *bb, *bro;
	struct ibv_mr *ma = t_mr(1 << 16, T_ALL_ACCESS, (void **)&ba);
	struct ibv_mr *mb = t_mr(1 << 16, T_ALL_ACCESS, (void **)&bb);
	struct ibv_mr *mro = t_mr(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, (void **)&bro);
	struct ibv_wc wc[8];
	struct pair p;
	struct ibv_sge s = { (uintptr_t)ba, 64, ma->lkey };

	/* Remote access: bad rkey, then out of bounds, then an MR without REMOTE_WRITE. The next WQE is flushed. */
	for (int variant = 0; variant < 3; variant++) {
		mkpair(&p, &t_default_conn, 1);
		t_post_recv(p.b, 500, bb, 64, mb->lkey);
		struct ibv_send_wr w = wr1(1, IBV_WR_RDMA_WRITE, &s), w2 = wr1(2, IBV_WR_SEND, &s);
		w.wr.rdma.rkey = variant == 0 ? mb->rkey ^ 0x5500 : variant == 1 ? mb->rkey : mro->rkey;
		w.wr.rdma.remote_addr = variant == 1 ? (uintptr_t)bb + (1 << 16) - 32 : variant == 2 ? (uintptr_t)bro : (uintptr_t)bb;
		w.next = &w2;
		t_post_send(p.a, &w);
		CHECK(t_poll(p.cqa, wc, 2, 5000) == 2, "two completions (variant %d)", variant);
		CHECK(wc[0].wr_id == 1 && wc[0].status == IBV_WC_REM_ACCESS_ERR, "variant %d status %d", variant, wc[0].status);
		CHECK(wc[1].wr_id == 2 && wc[1].status == IBV_WC_WR_FLUSH_ERR, "flushed %d", wc[1].status);
		/* the responder moved to error too and flushes its posted receive */
		CHECK(t_poll(p.cqb, wc, 1, 5000) == 1 && wc[0].wr_id == 500 && wc[0].status == IBV_WC_WR_FLUSH_ERR,
		      "responder flush");
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qi;
		CHECK(ibv_query_qp(p.a, &qa, IBV_QP_STATE, &qi) == 0 && qa.qp_state == IBV_QPS_ERR, "requester in ERR");
		rmpair(&p);
	}
	/* Local protection: a bad lkey. */
	{
		mkpair(&p, &t_default_conn, 1);
		struct ibv_sge bad = { (uintptr_t)ba, 64, ma->lkey + 0x100 };
		struct ibv_send_wr w = wr1(3, IBV_WR_SEND, &bad);
		t_post_send(p.a, &w);
		CHECK(t_poll(p.cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_LOC_PROT_ERR, "loc prot %d", wc[0].status);
		rmpair(&p);
	}
	/* RNR: nothing posted at the responder, rnr_retry 2 -> RNR_RETRY_EXC_ERR. Then with a receive posted
	 * late (rnr_retry 7 = infinite), the message goes through. */
	{
		struct t_conn c = t_default_conn;
		c.rnr_retry = 2;
		mkpair(&p, &c, 1);
		struct ibv_send_wr w = wr1(4, IBV_WR_SEND, &s);
		uint64_t t0 = t_ms();
		t_post_send(p.a, &w);
		CHECK(t_poll(p.cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_RNR_RETRY_EXC_ERR, "rnr %d", wc[0].status);
		(void)t0;
		rmpair(&p);
		c.rnr_retry = 7;
		mkpair(&p, &c, 1);
		t_post_send(p.a, &w);
		usleep(30000);
		CHECK(t_poll(p.cqa, wc, 1, 1) == 0, "still waiting for a receive");
		t_post_recv(p.b, 501, bb, 64, mb->lkey);
		CHECK(t_poll(p.cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS, "after RNR %d", wc[0].status);
		CHECK(t_poll(p.cqb, wc, 1, 5000) == 1 && wc[0].wr_id == 501 && wc[0].byte_len == 64, "late recv");
		rmpair(&p);
	}
	/* Transport retry: the responder never leaves INIT. timeout 10, retry_cnt 2 -> RETRY_EXC_ERR, vendor 0x81. */
	{
		struct t_conn c = t_default_conn;
		c.timeout = 10;
		c.retry_cnt = 2;
		mkpair(&p, &c, 0);
		struct ibv_qp_attr a;
		memset(&a, 0, sizeof a);
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		CHECK(ibv_modify_qp(p.b, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0, "b init");
		t_post_recv(p.b, 502, bb, 64, mb->lkey);
		struct ibv_send_wr w = wr1(5, IBV_WR_SEND, &s), w2 = wr1(6, IBV_WR_RDMA_READ, &s);
		w2.wr.rdma.rkey = mb->rkey;
		w2.wr.rdma.remote_addr = (uintptr_t)bb;
		w.next = &w2;
		t_post_send(p.a, &w);
		CHECK(t_poll(p.cqa, wc, 2, 10000) == 2, "retry exceeded completions");
		CHECK(wc[0].wr_id == 5 && wc[0].status == IBV_WC_RETRY_EXC_ERR && wc[0].vendor_err == 0x81,
		      "retry exc status %d vendor 0x%x", wc[0].status, wc[0].vendor_err);
		CHECK(wc[1].wr_id == 6 && wc[1].status == IBV_WC_WR_FLUSH_ERR, "flush after retry exc");
		rmpair(&p);
	}
	/* Length: 100 bytes into a 16-byte receive. */
	{
		mkpair(&p, &t_default_conn, 1);
		t_post_recv(p.b, 503, bb, 16, mb->lkey);
		s.length = 100;
		struct ibv_send_wr w = wr1(7, IBV_WR_SEND, &s);
		t_post_send(p.a, &w);
		CHECK(t_poll(p.cqb, wc, 1, 5000) == 1 && wc[0].wr_id == 503 && wc[0].status == IBV_WC_LOC_LEN_ERR,
		      "responder len %d", wc[0].status);
		CHECK(t_poll(p.cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_REM_INV_REQ_ERR, "requester %d", wc[0].status);
		s.length = 64;
		rmpair(&p);
	}
	/* Modify to ERR flushes every receive, in order. */
	{
		mkpair(&p, &t_default_conn, 1);
		for (int i = 0; i < 3; i++)
			t_post_recv(p.b, 600 + (uint64_t)i, bb, 64, mb->lkey);
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
		CHECK(ibv_modify_qp(p.b, &a, IBV_QP_STATE) == 0, "to err");
		CHECK(t_poll(p.cqb, wc, 3, 5000) == 3, "3 flushes");
		for (int i = 0; i < 3; i++)
			CHECK(wc[i].wr_id == 600 + (uint64_t)i && wc[i].status == IBV_WC_WR_FLUSH_ERR, "flush %d", i);
		/* and a receive posted while in error is flushed too */
		t_post_recv(p.b, 603, bb, 64, mb->lkey);
		CHECK(t_poll(p.cqb, wc, 1, 5000) == 1 && wc[0].wr_id == 603 && wc[0].status == IBV_WC_WR_FLUSH_ERR, "late");
		rmpair(&p);
	}
	CHECK(t_violations() == 0, "strict violations %lu", t_violations());
	ibv_dereg_mr(ma);
	ibv_dereg_mr(mb);
	ibv_dereg_mr(mro);
	free(ba);
	free(bb);
	free(bro);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("t_rc_errors: ok\n");
	return 0;
}
