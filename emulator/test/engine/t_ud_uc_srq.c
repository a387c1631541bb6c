/* SPDX-License-Identifier: Apache-2.0 */
/*
 * UD (QPN + Q_Key delivery, 40-byte GRH area, drops, MTU), UC (no ACK, drop without a receive) and SRQ
 * (shared by two QPs, free list cycled many times, limit event) on the emulated device.
 */
#include "etest.h"

#define QKEY 0x11110000u

static void ud_send(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t dqpn, uint32_t qkey, void *buf, uint32_t len,
		    uint32_t lkey, uint64_t id)
{
	struct ibv_sge s = { (uintptr_t)buf, len, lkey };
	struct ibv_send_wr w;
	memset(&w, 0, sizeof w);
	w.wr_id = id;
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = IBV_WR_SEND;
	w.send_flags = IBV_SEND_SIGNALED;
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = dqpn;
	w.wr.ud.remote_qkey = qkey;
	t_post_send(qp, &w);
}

int main(void)
{
	t_open();
	int eth = t_port.link_layer == IBV_LINK_LAYER_ETHERNET;
	uint8_t *ba, *bb;
	struct ibv_mr *ma = t_mr(1 << 16, T_ALL_ACCESS, (void **)&ba);
	struct ibv_mr *mb = t_mr(1 << 16, T_ALL_ACCESS, (void **)&bb);
	struct ibv_wc wc[8];
	union ibv_gid gid0;
	CHECK(ibv_query_gid(t_ctx, 1, 0, &gid0) == 0, "gid");

	/* ---- UD ---- */
	{
		struct ibv_cq *cqa = ibv_create_cq(t_ctx, 64, NULL, NULL, 0), *cqb = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
		struct ibv_qp *a = t_qp(IBV_QPT_UD, cqa, cqa, NULL, 1), *b = t_qp(IBV_QPT_UD, cqb, cqb, NULL, 1);
		t_ud_up(a, QKEY);
		t_ud_up(b, QKEY);
		struct ibv_ah_attr aa;
		t_ah_attr(&aa);
		struct ibv_ah *ah = ibv_create_ah(t_pd, &aa);
		CHECK(ah, "ah");
		for (uint32_t i = 0; i < 300; i++)
			ba[i] = (uint8_t)(i * 3 + 1);
		memset(bb, 0xcc, 1024);
		t_post_recv(b, 10, bb, 40 + 300, mb->lkey);
		ud_send(a, ah, b->qp_num, QKEY, ba, 300, ma->lkey, 1);
		CHECK(t_poll(cqb, wc, 1, 5000) == 1, "ud recv");
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == 340 && wc[0].src_qp == a->qp_num &&
		      wc[0].wr_id == 10, "ud wc status %d len %u src 0x%x", wc[0].status, wc[0].byte_len, wc[0].src_qp);
		CHECK(!!(wc[0].wc_flags & IBV_WC_GRH) == eth, "GRH flag %d (eth %d)", wc[0].wc_flags, eth);
		CHECK(memcmp(bb + 40, ba, 300) == 0 && bb[340] == 0xcc, "ud payload after the 40-byte GRH area");
		if (eth)
			CHECK(memcmp(bb + 24, gid0.raw, 16) == 0 && (bb[0] >> 4) == 6, "GRH dgid / version");
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 1, "ud send wc");

		/* explicit GRH (IB mode too) */
		struct ibv_ah_attr ag = aa;
		ag.is_global = 1;
		ag.grh.dgid = gid0;
		ag.grh.hop_limit = 7;
		struct ibv_ah *ahg = ibv_create_ah(t_pd, &ag);
		CHECK(ahg, "ah grh");
		t_post_recv(b, 11, bb, 1024, mb->lkey);
		ud_send(a, ahg, b->qp_num, QKEY, ba, 8, ma->lkey, 2);
		CHECK(t_poll(cqb, wc, 1, 5000) == 1 && (wc[0].wc_flags & IBV_WC_GRH) && wc[0].byte_len == 48, "grh recv");
		CHECK(memcmp(bb + 24, gid0.raw, 16) == 0 && bb[7] == 7, "GRH dgid and hop limit");
		CHECK(memcmp(bb + 40, ba, 8) == 0, "grh payload");
		CHECK(t_poll(cqa, wc, 1, 5000) == 1, "send");

		/* wrong Q_Key and no receive: dropped, sender still completes */
		ud_send(a, ah, b->qp_num, QKEY + 1, ba, 8, ma->lkey, 3);
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS, "send to wrong qkey completes");
		t_post_recv(b, 12, bb, 1024, mb->lkey);
		CHECK(t_poll(cqb, wc, 1, 200) == 0, "wrong qkey dropped");
		ud_send(a, ah, b->qp_num, QKEY, ba, 8, ma->lkey, 4); /* consumes receive 12 */
		CHECK(t_poll(cqb, wc, 1, 5000) == 1 && wc[0].wr_id == 12, "right qkey delivered");
		CHECK(t_poll(cqa, wc, 1, 5000) == 1, "send");
		ud_send(a, ah, b->qp_num, QKEY, ba, 8, ma->lkey, 5); /* no receive posted: dropped */
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS, "send without receive completes");
		t_post_recv(b, 13, bb, 1024, mb->lkey);
		CHECK(t_poll(cqb, wc, 1, 200) == 0, "no late delivery of a dropped datagram");
		/* above the MTU: local length error */
		ud_send(a, ah, b->qp_num, QKEY, ba, 8192, ma->lkey, 6);
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_LOC_LEN_ERR, "mtu %d", wc[0].status);
		ibv_destroy_qp(a);
		ibv_destroy_qp(b);
		ibv_destroy_ah(ah);
		ibv_destroy_ah(ahg);
		ibv_destroy_cq(cqa);
		ibv_destroy_cq(cqb);
	}
	/* ---- UC ---- */
	{
		struct ibv_cq *cqa = ibv_create_cq(t_ctx, 64, NULL, NULL, 0), *cqb = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
		struct ibv_qp *a = t_qp(IBV_QPT_UC, cqa, cqa, NULL, 1), *b = t_qp(IBV_QPT_UC, cqb, cqb, NULL, 1);
		t_connect(a, b->qp_num, &t_default_conn, 1);
		t_connect(b, a->qp_num, &t_default_conn, 1);
		struct ibv_sge s = { (uintptr_t)ba, 100, ma->lkey };
		struct ibv_send_wr w;
		memset(&w, 0, sizeof w);
		w.sg_list = &s;
		w.num_sge = 1;
		w.opcode = IBV_WR_SEND;
		w.send_flags = IBV_SEND_SIGNALED;
		w.wr_id = 1;
		t_post_send(a, &w); /* no receive: dropped, no RNR on UC */
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS, "uc send completes");
		t_post_recv(b, 20, bb, 128, mb->lkey);
		CHECK(t_poll(cqb, wc, 1, 200) == 0, "dropped message stays dropped");
		ba[0] = 0x5a;
		w.wr_id = 2;
		t_post_send(a, &w);
		CHECK(t_poll(cqb, wc, 1, 5000) == 1 && wc[0].wr_id == 20 && wc[0].byte_len == 100 && bb[0] == 0x5a, "uc recv");
		CHECK(t_poll(cqa, wc, 1, 5000) == 1, "uc send 2");
		w.opcode = IBV_WR_RDMA_WRITE;
		w.wr.rdma.remote_addr = (uintptr_t)bb + 4096;
		w.wr.rdma.rkey = mb->rkey;
		t_post_send(a, &w);
		CHECK(t_poll(cqa, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS, "uc write");
		for (int i = 0; i < 1000 && memcmp(bb + 4096, ba, 100) != 0; i++)
			usleep(1000);
		CHECK(memcmp(bb + 4096, ba, 100) == 0, "uc write data");
		ibv_destroy_qp(a);
		ibv_destroy_qp(b);
		ibv_destroy_cq(cqa);
		ibv_destroy_cq(cqb);
	}
	/* ---- SRQ shared by two RC QPs ---- */
	{
		struct ibv_cq *cqa = ibv_create_cq(t_ctx, 256, NULL, NULL, 0), *cqb = ibv_create_cq(t_ctx, 256, NULL, NULL, 0);
		struct ibv_srq_init_attr si;
		memset(&si, 0, sizeof si);
		si.attr.max_wr = 16;
		si.attr.max_sge = 2;
		struct ibv_srq *srq = ibv_create_srq(t_pd, &si);
		CHECK(srq, "srq");
		struct ibv_qp *a1 = t_qp(IBV_QPT_RC, cqa, cqa, NULL, 1), *a2 = t_qp(IBV_QPT_RC, cqa, cqa, NULL, 1);
		struct ibv_qp *b1 = t_qp(IBV_QPT_RC, cqb, cqb, srq, 1), *b2 = t_qp(IBV_QPT_RC, cqb, cqb, srq, 1);
		t_connect(a1, b1->qp_num, &t_default_conn, 1);
		t_connect(b1, a1->qp_num, &t_default_conn, 1);
		t_connect(a2, b2->qp_num, &t_default_conn, 1);
		t_connect(b2, a2->qp_num, &t_default_conn, 1);
		uint64_t next_id = 1000;
		for (int i = 0; i < 8; i++) {
			struct ibv_sge rs = { (uintptr_t)bb + (size_t)i * 256, 256, mb->lkey };
			struct ibv_recv_wr r = { .wr_id = next_id++, .sg_list = &rs, .num_sge = 1 }, *bad;
			CHECK(ibv_post_srq_recv(srq, &r, &bad) == 0, "srq recv");
		}
		for (int i = 0; i < 200; i++) {
			struct ibv_qp *src = (i & 1) ? a2 : a1;
			uint32_t len = 1 + (uint32_t)(i * 13) % 256;
			for (uint32_t k = 0; k < len; k++)
				ba[k] = (uint8_t)(i + k);
			struct ibv_sge s = { (uintptr_t)ba, len, ma->lkey };
			struct ibv_send_wr w;
			memset(&w, 0, sizeof w);
			w.wr_id = (uint64_t)i;
			w.sg_list = &s;
			w.num_sge = 1;
			w.opcode = IBV_WR_SEND;
			w.send_flags = IBV_SEND_SIGNALED;
			t_post_send(src, &w);
			CHECK(t_poll(cqb, wc, 1, 5000) == 1, "srq recv %d", i);
			CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == len &&
			      wc[0].qp_num == ((i & 1) ? b2 : b1)->qp_num, "srq wc %d status %d", i, wc[0].status);
			uint64_t slot = (wc[0].wr_id - 1000) % 8;
			CHECK(memcmp(bb + slot * 256, ba, len) == 0, "srq data %d", i);
			CHECK(t_poll(cqa, wc + 1, 1, 5000) == 1 && wc[1].status == IBV_WC_SUCCESS, "srq send %d", i);
			/* repost the consumed buffer with a new wr_id that maps to the same slot */
			struct ibv_sge rs = { (uintptr_t)bb + slot * 256, 256, mb->lkey };
			struct ibv_recv_wr r = { .wr_id = wc[0].wr_id + 8, .sg_list = &rs, .num_sge = 1 }, *bad;
			CHECK(ibv_post_srq_recv(srq, &r, &bad) == 0, "srq repost");
		}
		/* SRQ limit: arm at 8 with 8 posted; one more consumption fires IBV_EVENT_SRQ_LIMIT_REACHED. */
		struct ibv_srq_attr la = { .srq_limit = 8 };
		CHECK(ibv_modify_srq(srq, &la, IBV_SRQ_LIMIT) == 0, "arm limit");
		struct ibv_sge s = { (uintptr_t)ba, 4, ma->lkey };
		struct ibv_send_wr w;
		memset(&w, 0, sizeof w);
		w.sg_list = &s;
		w.num_sge = 1;
		w.opcode = IBV_WR_SEND;
		w.send_flags = IBV_SEND_SIGNALED;
		t_post_send(a1, &w);
		CHECK(t_poll(cqb, wc, 1, 5000) == 1 && t_poll(cqa, wc + 1, 1, 5000) == 1, "limit send");
		struct ibv_async_event ev;
		CHECK(ibv_get_async_event(t_ctx, &ev) == 0, "async event");
		CHECK(ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == srq, "event %d", ev.event_type);
		ibv_ack_async_event(&ev);
		ibv_destroy_qp(a1);
		ibv_destroy_qp(a2);
		ibv_destroy_qp(b1);
		ibv_destroy_qp(b2);
		ibv_destroy_srq(srq);
		ibv_destroy_cq(cqa);
		ibv_destroy_cq(cqb);
	}
	CHECK(t_violations() == 0, "strict violations %lu", t_violations());
	ibv_dereg_mr(ma);
	ibv_dereg_mr(mb);
	free(ba);
	free(bb);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("t_ud_uc_srq: ok\n");
	return 0;
}
