/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device's affiliated asynchronous events, read with ibv_get_async_event, exact type and object:
 *  - IBV_EVENT_QP_LAST_WQE_REACHED when a QP on an SRQ is moved to ERR (only that QP, only its context), and after
 *    an error took it there; a QP destroyed with the event unread is destroyed at once (the event goes with it);
 *  - IBV_EVENT_QP_ACCESS_ERR at the responder of an RDMA WRITE with a bad rkey (the requester gets its CQE only);
 *  - IBV_EVENT_SRQ_LIMIT_REACHED once per arm;
 *  - IBV_EVENT_CQ_ERR on overrun, then IBV_EVENT_QP_FATAL for every working QP on that CQ; nothing for a CQ created
 *    with IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
 *  - a down port: the events, and nothing delivered through it (UD lost, RC retries to RETRY_EXC_ERR).
 * Every case runs under its own alarm, so a hang (a destroy waiting for an event count) fails the test.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>

#include "etest.h"

#define CASE_SECONDS 30

static struct ibv_context *t_ctx2; /* a second context on the device: sees port events, never QP events */
static uint8_t *buf;
static struct ibv_mr *mr;

static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* The next event of t_ctx within 5 s; acknowledged. */
static struct ibv_async_event next_event(const char *what)
{
	struct ibv_async_event ev;
	memset(&ev, 0, sizeof ev);
	CHECK(readable(t_ctx->async_fd, 5000), "%s: no event within 5 s", what);
	CHECK(ibv_get_async_event(t_ctx, &ev) == 0, "%s: ibv_get_async_event", what);
	ibv_ack_async_event(&ev);
	return ev;
}

static void expect_qp_event(enum ibv_event_type type, struct ibv_qp *qp, const char *what)
{
	struct ibv_async_event ev = next_event(what);
	CHECK(ev.event_type == type && ev.element.qp == qp, "%s: event %d for QP %p, want %d for %p (QPN 0x%x)", what,
	      ev.event_type, (void *)ev.element.qp, type, (void *)qp, qp->qp_num);
}

static void expect_none(struct ibv_context *ctx, int ms, const char *what)
{
	CHECK(!readable(ctx->async_fd, ms), "%s: an event nobody raised", what);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	CHECK(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) == 0, "query_qp");
	return a.qp_state;
}

static void to_err(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE) == 0, "modify to ERR");
}

static struct ibv_srq *make_srq(int posted)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(t_pd, &sa);
	CHECK(srq, "create_srq");
	for (int i = 0; i < posted; i++) {
		struct ibv_sge s = { (uintptr_t)buf + 4096 + (size_t)i * 64, 64, mr->lkey };
		struct ibv_recv_wr r = { .wr_id = 100 + (uint64_t)i, .sg_list = &s, .num_sge = 1 }, *bad;
		CHECK(ibv_post_srq_recv(srq, &r, &bad) == 0, "post srq recv");
	}
	return srq;
}

static void send_one(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t rkey)
{
	struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr w;
	memset(&w, 0, sizeof w);
	w.wr_id = 7;
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = op;
	w.send_flags = IBV_SEND_SIGNALED;
	w.wr.rdma.remote_addr = (uintptr_t)buf + 2048;
	w.wr.rdma.rkey = rkey;
	t_post_send(qp, &w);
}

/* Moved to ERR by the program: LAST_WQE_REACHED for that QP, none for the other QP on the SRQ nor for the other
 * context; destroyed with the event unread, the QP goes at once and so does the event. */
static void case_last_wqe_modify(void)
{
	alarm(CASE_SECONDS);
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_srq *srq = make_srq(4);
	struct ibv_qp *a = t_qp(IBV_QPT_RC, cq, cq, NULL, 1);
	struct ibv_qp *b = t_qp(IBV_QPT_RC, cq, cq, srq, 1), *c = t_qp(IBV_QPT_RC, cq, cq, srq, 1);
	t_connect(a, b->qp_num, &t_default_conn, 1);
	t_connect(b, a->qp_num, &t_default_conn, 1);
	t_connect(c, a->qp_num, &t_default_conn, 1);
	struct ibv_wc wc[2];
	send_one(a, IBV_WR_SEND, 0);
	CHECK(t_poll(cq, wc, 2, 5000) == 2, "send through the SRQ");
	expect_none(t_ctx, 50, "a working QP on an SRQ");
	to_err(b);
	expect_qp_event(IBV_EVENT_QP_LAST_WQE_REACHED, b, "b moved to ERR");
	expect_none(t_ctx, 200, "c stays in RTS");
	expect_none(t_ctx2, 0, "QP events of another context");
	CHECK(ibv_destroy_qp(b) == 0, "destroy b after its acknowledged event");
	/* unread: the destroy does not wait for it, and the event is gone with the QP */
	to_err(c);
	CHECK(readable(t_ctx->async_fd, 5000), "c's event is queued");
	CHECK(ibv_destroy_qp(c) == 0, "destroy c with its event unread");
	expect_none(t_ctx, 100, "the event of a destroyed QP");
	/* from INIT too (RESET to ERR is not a transition Linux allows, ib_modify_qp_is_ok) */
	struct ibv_qp *d = t_qp(IBV_QPT_RC, cq, cq, srq, 1);
	struct ibv_qp_attr ia = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	CHECK(ibv_modify_qp(d, &ia, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0, "init");
	to_err(d);
	expect_qp_event(IBV_EVENT_QP_LAST_WQE_REACHED, d, "d moved from INIT to ERR");
	to_err(d);
	expect_none(t_ctx, 100, "ERR to ERR");
	CHECK(ibv_destroy_qp(d) == 0 && ibv_destroy_qp(a) == 0, "destroy");
	CHECK(ibv_destroy_srq(srq) == 0 && ibv_destroy_cq(cq) == 0, "destroy srq, cq");
}

/* An RDMA WRITE with a bad rkey: the requester completes with REM_ACCESS_ERR and raises nothing; the responder goes
 * to ERR with IBV_EVENT_QP_ACCESS_ERR, then (it is on an SRQ) LAST_WQE_REACHED once flushed. */
static void case_access_err(int with_srq)
{
	alarm(CASE_SECONDS);
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_srq *srq = with_srq ? make_srq(2) : NULL;
	struct ibv_qp *a = t_qp(IBV_QPT_RC, cq, cq, NULL, 1), *b = t_qp(IBV_QPT_RC, cq, cq, srq, 1);
	t_connect(a, b->qp_num, &t_default_conn, 1);
	t_connect(b, a->qp_num, &t_default_conn, 1);
	send_one(a, IBV_WR_RDMA_WRITE, mr->rkey ^ 0x5500);
	struct ibv_wc wc;
	CHECK(t_poll(cq, &wc, 1, 5000) == 1, "requester completion");
	CHECK(wc.status == IBV_WC_REM_ACCESS_ERR && wc.qp_num == a->qp_num, "status %d qpn 0x%x", wc.status, wc.qp_num);
	expect_qp_event(IBV_EVENT_QP_ACCESS_ERR, b, "responder of a bad rkey");
	if (with_srq)
		expect_qp_event(IBV_EVENT_QP_LAST_WQE_REACHED, b, "responder on an SRQ, after its error");
	expect_none(t_ctx, 100, "requester of a bad rkey");
	CHECK(qp_state(b) == IBV_QPS_ERR && qp_state(a) == IBV_QPS_ERR, "states %d %d", qp_state(b), qp_state(a));
	CHECK(ibv_destroy_qp(a) == 0 && ibv_destroy_qp(b) == 0, "destroy");
	if (srq)
		CHECK(ibv_destroy_srq(srq) == 0, "destroy srq");
	CHECK(ibv_destroy_cq(cq) == 0, "destroy cq");
}

/* Armed at 4 with 6 posted: the third consumption leaves 3 (< 4) and fires, once; ibv_query_srq then says 0;
 * re-armed, it fires again. */
static void case_srq_limit(void)
{
	alarm(CASE_SECONDS);
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_srq *srq = make_srq(6);
	struct ibv_qp *a = t_qp(IBV_QPT_RC, cq, cq, NULL, 1), *b = t_qp(IBV_QPT_RC, cq, cq, srq, 1);
	t_connect(a, b->qp_num, &t_default_conn, 1);
	t_connect(b, a->qp_num, &t_default_conn, 1);
	struct ibv_srq_attr la = { .srq_limit = 4 };
	CHECK(ibv_modify_srq(srq, &la, IBV_SRQ_LIMIT) == 0, "arm");
	struct ibv_wc wc[2];
	for (int i = 0; i < 2; i++) {
		send_one(a, IBV_WR_SEND, 0);
		CHECK(t_poll(cq, wc, 2, 5000) == 2, "send %d", i);
	}
	expect_none(t_ctx, 100, "4 WQEs left, limit 4");
	send_one(a, IBV_WR_SEND, 0);
	CHECK(t_poll(cq, wc, 2, 5000) == 2, "third send");
	struct ibv_async_event ev = next_event("limit");
	CHECK(ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == srq, "event %d srq %p", ev.event_type,
	      (void *)ev.element.srq);
	struct ibv_srq_attr q;
	CHECK(ibv_query_srq(srq, &q) == 0 && q.srq_limit == 0, "limit after the event: %u", q.srq_limit);
	send_one(a, IBV_WR_SEND, 0);
	CHECK(t_poll(cq, wc, 2, 5000) == 2, "fourth send");
	expect_none(t_ctx, 100, "one event per arm");
	la.srq_limit = 2; /* 2 left: the next consumption leaves 1 */
	CHECK(ibv_modify_srq(srq, &la, IBV_SRQ_LIMIT) == 0, "re-arm");
	send_one(a, IBV_WR_SEND, 0);
	CHECK(t_poll(cq, wc, 2, 5000) == 2, "fifth send");
	ev = next_event("limit re-armed");
	CHECK(ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == srq, "event %d", ev.event_type);
	CHECK(ibv_destroy_qp(a) == 0 && ibv_destroy_qp(b) == 0, "destroy");
	CHECK(ibv_destroy_srq(srq) == 0 && ibv_destroy_cq(cq) == 0, "destroy srq, cq");
}

/* An 8-entry CQ that nobody polls takes 9 completions: CQ_ERR, then QP_FATAL for both QPs that complete into it
 * (the sender, and an idle QP that receives into it), and none for the QP on another CQ. */
static void case_cq_overrun(void)
{
	alarm(CASE_SECONDS);
	struct ibv_cq *small = ibv_create_cq(t_ctx, 4, NULL, NULL, 0), *other = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(small && other, "cqs");
	int entries = small->cqe + 1;
	struct ibv_qp *o = t_qp(IBV_QPT_RC, small, small, NULL, 1), *ob = t_qp(IBV_QPT_RC, other, other, NULL, 1);
	struct ibv_qp *idle = t_qp(IBV_QPT_RC, other, small, NULL, 1);
	t_connect(o, ob->qp_num, &t_default_conn, 1);
	t_connect(ob, o->qp_num, &t_default_conn, 1);
	t_connect(idle, ob->qp_num, &t_default_conn, 1);
	for (int i = 0; i < entries + 1; i++)
		send_one(o, IBV_WR_RDMA_WRITE, mr->rkey);
	struct ibv_async_event ev = next_event("overrun");
	CHECK(ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == small, "event %d cq %p", ev.event_type,
	      (void *)ev.element.cq);
	struct ibv_async_event e1 = next_event("fatal 1"), e2 = next_event("fatal 2");
	CHECK(e1.event_type == IBV_EVENT_QP_FATAL && e2.event_type == IBV_EVENT_QP_FATAL, "events %d %d", e1.event_type,
	      e2.event_type);
	CHECK((e1.element.qp == o && e2.element.qp == idle) || (e1.element.qp == idle && e2.element.qp == o),
	      "QP_FATAL for %p and %p, want %p and %p", (void *)e1.element.qp, (void *)e2.element.qp, (void *)o,
	      (void *)idle);
	expect_none(t_ctx, 100, "the QP on another CQ");
	CHECK(qp_state(o) == IBV_QPS_ERR && qp_state(idle) == IBV_QPS_ERR && qp_state(ob) == IBV_QPS_RTS, "states");
	CHECK(ibv_destroy_qp(o) == 0 && ibv_destroy_qp(ob) == 0 && ibv_destroy_qp(idle) == 0, "destroy");
	CHECK(ibv_destroy_cq(small) == 0 && ibv_destroy_cq(other) == 0, "destroy cqs");
}

/* IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN: the device does not check, so 9 completions into 8 entries raise nothing and
 * the QP keeps working (the ninth CQE overwrote the first, as on hardware). */
static void case_cq_ignore_overrun(void)
{
	alarm(CASE_SECONDS);
	struct ibv_cq_init_attr_ex ca = { .cqe = 4, .wc_flags = IBV_WC_STANDARD_FLAGS,
					  .comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
					  .flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN };
	struct ibv_cq_ex *cx = ibv_create_cq_ex(t_ctx, &ca);
	CHECK(cx, "create_cq_ex IGNORE_OVERRUN");
	struct ibv_cq *small = ibv_cq_ex_to_cq(cx), *other = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	int entries = small->cqe + 1;
	struct ibv_qp *o = t_qp(IBV_QPT_RC, small, small, NULL, 1), *ob = t_qp(IBV_QPT_RC, other, other, NULL, 1);
	t_connect(o, ob->qp_num, &t_default_conn, 1);
	t_connect(ob, o->qp_num, &t_default_conn, 1);
	unsigned long v0 = t_violations();
	for (int i = 0; i < entries + 1; i++)
		send_one(o, IBV_WR_RDMA_WRITE, mr->rkey);
	usleep(200 * 1000);
	expect_none(t_ctx, 100, "an overrun of a CQ that ignores overruns");
	CHECK(qp_state(o) == IBV_QPS_RTS && t_violations() == v0, "state %d, violations %lu -> %lu", qp_state(o), v0,
	      t_violations());
	CHECK(ibv_destroy_qp(o) == 0 && ibv_destroy_qp(ob) == 0, "destroy");
	CHECK(ibv_destroy_cq(small) == 0 && ibv_destroy_cq(other) == 0, "destroy cqs");
}

/* A down port: both contexts hear of it; a UD message is lost and an RC WRITE retries until RETRY_EXC_ERR; up
 * again, UD goes through. Taken down in this process (the kernel test t_async does it from another one). */
static void case_port(void)
{
	alarm(CASE_SECONDS);
	int (*port_set)(int, int, int) = (int (*)(int, int, int))dlsym(RTLD_DEFAULT, "mlx5emu_port_set");
	CHECK(port_set, "mlx5emu_port_set not exported");
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_qp *u1 = t_qp(IBV_QPT_UD, cq, cq, NULL, 1), *u2 = t_qp(IBV_QPT_UD, cq, cq, NULL, 1);
	t_ud_up(u1, 0x11);
	t_ud_up(u2, 0x11);
	struct ibv_ah_attr aa;
	t_ah_attr(&aa);
	struct ibv_ah *ah = ibv_create_ah(t_pd, &aa);
	CHECK(ah, "ah");
	t_post_recv(u2, 51, buf + 8192, 256, mr->lkey);
	CHECK(port_set(0, 1, 0) == 0, "port down");
	struct ibv_async_event ev = next_event("port down");
	CHECK(ev.event_type == IBV_EVENT_PORT_ERR && ev.element.port_num == 1, "event %d", ev.event_type);
	CHECK(readable(t_ctx2->async_fd, 5000), "second context hears of it");
	CHECK(ibv_get_async_event(t_ctx2, &ev) == 0 && ev.event_type == IBV_EVENT_PORT_ERR, "second context");
	ibv_ack_async_event(&ev);
	struct ibv_sge s = { (uintptr_t)buf, 16, mr->lkey };
	struct ibv_send_wr w;
	memset(&w, 0, sizeof w);
	w.wr_id = 61;
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = IBV_WR_SEND;
	w.send_flags = IBV_SEND_SIGNALED;
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = u2->qp_num;
	w.wr.ud.remote_qkey = 0x11;
	t_post_send(u1, &w);
	struct ibv_wc wc[2];
	CHECK(t_poll(cq, wc, 2, 300) == 1 && wc[0].wr_id == 61 && wc[0].status == IBV_WC_SUCCESS,
	      "down: the send completes (it left), nothing arrives");
	/* RC: retried, then RETRY_EXC_ERR (4.096 us << 10 = 4 ms per try, one retry) */
	struct t_conn quick = { 10, 1, 7, 1 };
	struct ibv_qp *a = t_qp(IBV_QPT_RC, cq, cq, NULL, 1), *b = t_qp(IBV_QPT_RC, cq, cq, NULL, 1);
	t_connect(a, b->qp_num, &quick, 1);
	t_connect(b, a->qp_num, &quick, 1);
	send_one(a, IBV_WR_RDMA_WRITE, mr->rkey);
	CHECK(t_poll(cq, wc, 1, 10000) == 1 && wc[0].status == IBV_WC_RETRY_EXC_ERR && wc[0].qp_num == a->qp_num,
	      "RC over a down port: status %d", wc[0].status);
	CHECK(port_set(0, 1, 1) == 0, "port up");
	ev = next_event("port up");
	CHECK(ev.event_type == IBV_EVENT_PORT_ACTIVE && ev.element.port_num == 1, "event %d", ev.event_type);
	CHECK(readable(t_ctx2->async_fd, 5000) && ibv_get_async_event(t_ctx2, &ev) == 0 &&
	      ev.event_type == IBV_EVENT_PORT_ACTIVE, "second context, up");
	ibv_ack_async_event(&ev);
	w.wr_id = 62;
	t_post_send(u1, &w);
	CHECK(t_poll(cq, wc, 2, 5000) == 2, "up: send and receive");
	int recv = wc[0].opcode == IBV_WC_RECV ? 0 : 1;
	CHECK(wc[recv].opcode == IBV_WC_RECV && wc[recv].wr_id == 51 && wc[recv].byte_len == 40 + 16 &&
	      wc[1 - recv].wr_id == 62, "delivered: wr_id %llu len %u", (unsigned long long)wc[recv].wr_id,
	      wc[recv].byte_len);
	expect_none(t_ctx, 50, "after the port cases");
	CHECK(ibv_destroy_qp(a) == 0 && ibv_destroy_qp(b) == 0, "destroy rc");
	CHECK(ibv_destroy_ah(ah) == 0 && ibv_destroy_qp(u1) == 0 && ibv_destroy_qp(u2) == 0, "destroy ud");
	CHECK(ibv_destroy_cq(cq) == 0, "destroy cq");
}

int main(void)
{
	t_open();
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	CHECK(l && n > 0, "devices");
	t_ctx2 = ibv_open_device(l[0]);
	CHECK(t_ctx2, "second context");
	ibv_free_device_list(l);
	mr = t_mr(1 << 16, T_ALL_ACCESS, (void **)&buf);
	case_last_wqe_modify();
	case_access_err(0);
	case_access_err(1);
	case_srq_limit();
	case_cq_overrun();
	case_cq_ignore_overrun();
	case_port();
	alarm(0);
	expect_none(t_ctx2, 0, "QP, SRQ and CQ events in another context");
	ibv_dereg_mr(mr);
	free(buf);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx2);
	ibv_close_device(t_ctx);
	printf("t_async_events: ok\n");
	return 0;
}
