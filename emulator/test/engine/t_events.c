/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CQ arming: exactly one completion event per arm on the channel fd (next and solicited-only), in the kernel's
 * format so ibv_get_cq_event/ibv_ack_cq_events work, and ibv_destroy_cq returns. CQ overrun: an async
 * IBV_EVENT_CQ_ERR and one strict-mode violation.
 */
#include <poll.h>
#include "etest.h"

static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) > 0;
}

int main(void)
{
	t_open();
	uint8_t *ba, *bb;
	struct ibv_mr *ma = t_mr(1 << 16, T_ALL_ACCESS, (void **)&ba);
	struct ibv_mr *mb = t_mr(1 << 16, T_ALL_ACCESS, (void **)&bb);
	struct ibv_wc wc[16];
	struct ibv_comp_channel *ch = ibv_create_comp_channel(t_ctx);
	CHECK(ch, "channel");
	struct ibv_cq *cqa = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_cq *cqb = ibv_create_cq(t_ctx, 64, (void *)0x1234, ch, 0);
	struct ibv_qp *a = t_qp(IBV_QPT_RC, cqa, cqa, NULL, 1), *b = t_qp(IBV_QPT_RC, cqb, cqb, NULL, 1);
	t_connect(a, b->qp_num, &t_default_conn, 1);
	t_connect(b, a->qp_num, &t_default_conn, 1);
	struct ibv_sge s = { (uintptr_t)ba, 8, ma->lkey };
	struct ibv_send_wr w;
	memset(&w, 0, sizeof w);
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = IBV_WR_SEND;
	w.send_flags = IBV_SEND_SIGNALED;
	unsigned events = 0;

	CHECK(ibv_req_notify_cq(cqb, 0) == 0, "arm");
	CHECK(!readable(ch->fd, 50), "no event before a completion");
	t_post_recv(b, 1, bb, 64, mb->lkey);
	t_post_recv(b, 2, bb, 64, mb->lkey);
	t_post_send(a, &w);
	CHECK(readable(ch->fd, 5000), "event after the completion");
	struct ibv_cq *ecq;
	void *ectx;
	CHECK(ibv_get_cq_event(ch, &ecq, &ectx) == 0 && ecq == cqb && ectx == (void *)0x1234, "event names the CQ");
	events++;
	t_post_send(a, &w); /* second completion, CQ not re-armed: no event */
	CHECK(t_poll(cqb, wc, 2, 5000) == 2 && wc[0].wr_id == 1 && wc[1].wr_id == 2, "both receives");
	CHECK(!readable(ch->fd, 100), "exactly one event per arm");
	CHECK(t_poll(cqa, wc, 2, 5000) == 2, "sends");

	/* solicited-only arm: an unsolicited message does not fire, a solicited one does */
	CHECK(ibv_req_notify_cq(cqb, 1) == 0, "arm solicited");
	t_post_recv(b, 3, bb, 64, mb->lkey);
	t_post_recv(b, 4, bb, 64, mb->lkey);
	t_post_send(a, &w);
	CHECK(t_poll(cqb, wc, 1, 5000) == 1 && wc[0].wr_id == 3, "unsolicited recv");
	CHECK(!readable(ch->fd, 100), "no event for an unsolicited completion");
	w.send_flags |= IBV_SEND_SOLICITED;
	t_post_send(a, &w);
	CHECK(readable(ch->fd, 5000), "event for the solicited completion");
	CHECK(ibv_get_cq_event(ch, &ecq, &ectx) == 0 && ecq == cqb, "solicited event");
	events++;
	CHECK(t_poll(cqb, wc, 1, 5000) == 1 && wc[0].wr_id == 4, "solicited recv");
	CHECK(t_poll(cqa, wc, 2, 5000) == 2, "sends");
	/* armed while a completion is already waiting: fires at once, as hardware does */
	t_post_recv(b, 5, bb, 64, mb->lkey);
	w.send_flags = IBV_SEND_SIGNALED;
	t_post_send(a, &w);
	CHECK(t_poll(cqa, wc, 1, 5000) == 1, "send");
	usleep(50000); /* the receive CQE is written (and not polled) by now */
	CHECK(ibv_req_notify_cq(cqb, 0) == 0, "arm late");
	CHECK(readable(ch->fd, 5000), "late arm fires");
	CHECK(ibv_get_cq_event(ch, &ecq, &ectx) == 0 && ecq == cqb, "late-arm event");
	events++;
	CHECK(t_poll(cqb, wc, 1, 5000) == 1 && wc[0].wr_id == 5, "recv 5");
	ibv_ack_cq_events(cqb, events);

	/* overrun: 8-entry CQ, 9 completions never polled */
	struct ibv_cq *small = ibv_create_cq(t_ctx, 4, NULL, NULL, 0);
	CHECK(small, "small cq");
	int entries = small->cqe + 1;
	struct ibv_qp *o = t_qp(IBV_QPT_RC, small, small, NULL, 1), *ob = t_qp(IBV_QPT_RC, cqa, cqa, NULL, 1);
	t_connect(o, ob->qp_num, &t_default_conn, 1);
	t_connect(ob, o->qp_num, &t_default_conn, 1);
	unsigned long v0 = t_violations();
	struct ibv_send_wr wr;
	memset(&wr, 0, sizeof wr);
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)bb;
	wr.wr.rdma.rkey = mb->rkey;
	for (int i = 0; i < entries + 1; i++)
		t_post_send(o, &wr);
	struct ibv_async_event ev;
	CHECK(ibv_get_async_event(t_ctx, &ev) == 0, "async");
	CHECK(ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == small, "CQ_ERR event %d", ev.event_type);
	ibv_ack_async_event(&ev);
	CHECK(t_violations() == v0 + 1, "overrun counted once (%lu -> %lu)", v0, t_violations());

	ibv_destroy_qp(o);
	ibv_destroy_qp(ob);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	CHECK(ibv_destroy_cq(small) == 0, "destroy small");
	CHECK(ibv_destroy_cq(cqb) == 0, "destroy armed cq");
	CHECK(ibv_destroy_cq(cqa) == 0, "destroy");
	ibv_destroy_comp_channel(ch);
	ibv_dereg_mr(ma);
	ibv_dereg_mr(mb);
	free(ba);
	free(bb);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("t_events: ok\n");
	return 0;
}
