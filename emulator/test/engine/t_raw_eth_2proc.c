/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_raw_eth_2proc.c - the Ethernet fabric between processes: a multicast frame sent by one process reaches every
 * QP that steers it, in another process (two QPs there: each gets a copy) and in the sender's own process
 * (loopback), in order and byte for byte; a unicast frame to a MAC no rule matches reaches nobody. The receiving
 * process then closes its device and opens it again, and still gets what is sent (its new inbox, eng_wire.h).
 * The second process is this program re-executed (argv[1] = "child"), so it opens the device itself as a
 * separately launched program would. A third, a fork child, opens the device next to the copies of its parent's
 * QP and flow: its engine must steer to its own QP only, never into what it inherited.
 */
#include <errno.h>
#include <sys/wait.h>
#include "etest.h"

#define N_MC 5
#define FR 1024

static const uint8_t MAC_MC[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
static const uint8_t MAC_UC[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x42 };

struct rq {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_flow *fl;
};

static void rq_make(struct rq *r, const uint8_t *dmac)
{
	memset(r, 0, sizeof(*r));
	r->cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(r->cq, "cq");
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.send_cq = a.recv_cq = r->cq;
	a.cap.max_send_wr = a.cap.max_recv_wr = 32;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	r->qp = ibv_create_qp(t_pd, &a);
	CHECK(r->qp, "raw qp: errno %d", errno);
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	CHECK(ibv_modify_qp(r->qp, &at, IBV_QP_STATE | IBV_QP_PORT) == 0, "init");
	at.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(r->qp, &at, IBV_QP_STATE) == 0, "rtr");
	at.qp_state = IBV_QPS_RTS;
	CHECK(ibv_modify_qp(r->qp, &at, IBV_QP_STATE) == 0, "rts");
	r->mr = t_mr(FR * 32, IBV_ACCESS_LOCAL_WRITE, (void **)&r->buf);
	for (int i = 0; i < 32; i++)
		t_post_recv(r->qp, (uint64_t)i, r->buf + i * FR, FR, r->mr->lkey);
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} f;
	memset(&f, 0, sizeof f);
	f.attr.type = IBV_FLOW_ATTR_NORMAL;
	f.attr.size = sizeof f;
	f.attr.num_of_specs = 1;
	f.attr.port = 1;
	f.eth.type = IBV_FLOW_SPEC_ETH;
	f.eth.size = sizeof f.eth;
	memcpy(f.eth.val.dst_mac, dmac, 6);
	memset(f.eth.mask.dst_mac, 0xff, 6);
	r->fl = ibv_create_flow(r->qp, &f.attr);
	CHECK(r->fl, "flow: errno %d", errno);
}

static void rq_free(struct rq *r)
{
	CHECK(ibv_destroy_flow(r->fl) == 0 && ibv_destroy_qp(r->qp) == 0 && ibv_destroy_cq(r->cq) == 0, "free");
	ibv_dereg_mr(r->mr);
	free(r->buf);
}

/* Expect n frames of the sender's pattern (byte i of frame k = k + i, after the headers). */
static void expect(struct rq *r, int n, size_t len, const char *who)
{
	for (int k = 0; k < n; k++) {
		struct ibv_wc wc;
		CHECK(t_poll(r->cq, &wc, 1, 10000) == 1, "%s: frame %d missing", who, k);
		CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV && wc.byte_len == len, "%s: status %d len %u",
		      who, wc.status, wc.byte_len);
		uint8_t *f = r->buf + wc.wr_id * FR;
		CHECK(memcmp(f, MAC_MC, 6) == 0, "%s: dmac", who);
		for (size_t i = 14; i < len; i++)
			CHECK(f[i] == (uint8_t)(f[14] + i - 14), "%s: payload byte %zu", who, i);
		CHECK(f[14] == (uint8_t)k, "%s: frame order: got frame %u as %d", who, f[14], k);
		t_post_recv(r->qp, wc.wr_id, f, FR, r->mr->lkey);
	}
	struct ibv_wc wc;
	CHECK(t_poll(r->cq, &wc, 1, 300) == 0, "%s: a frame too many (the unicast one?)", who);
}

static int child(int rd, int wr)
{
	t_open();
	struct rq a, b;
	rq_make(&a, MAC_MC);
	rq_make(&b, MAC_MC);
	char c = 'R';
	CHECK(write(wr, &c, 1) == 1, "ready");
	expect(&a, N_MC, 200, "child QP a");
	expect(&b, N_MC, 200, "child QP b");
	/* Closing the last context stops this process's engine; the next one has a new inbox, and the sender, which
	 * put frames into the old one, must find it. */
	rq_free(&a);
	rq_free(&b);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	t_open();
	rq_make(&a, MAC_MC);
	CHECK(write(wr, &c, 1) == 1, "ready again");
	expect(&a, N_MC, 200, "child QP a after the device was opened again");
	CHECK(read(rd, &c, 1) == 1, "done");
	rq_free(&a);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	return 0;
}

/* The N_MC multicast frames (byte i of frame k = k + i, after the headers), then one unicast frame to a MAC that
 * no rule matches. */
static void send_frames(struct ibv_qp *tx, struct ibv_cq *scq, uint8_t *buf, struct ibv_mr *mr)
{
	for (int k = 0; k <= N_MC; k++) {
		memcpy(buf, k < N_MC ? MAC_MC : MAC_UC, 6);
		memcpy(buf + 6, "\x02\x00\x00\x00\x00\x07", 6);
		buf[12] = 0x88; buf[13] = 0xb5; /* local experimental ethertype */
		for (int i = 14; i < 200; i++)
			buf[i] = (uint8_t)(k + i - 14);
		struct ibv_sge sge = { (uintptr_t)buf, 200, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = (uint64_t)k, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		t_post_send(tx, &wr);
		struct ibv_wc wc;
		CHECK(t_poll(scq, &wc, 1, 10000) == 1 && wc.status == IBV_WC_SUCCESS, "send %d", k);
	}
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "child") == 0)
		return child(atoi(argv[2]), atoi(argv[3]));
	int up[2], down[2];
	CHECK(pipe(up) == 0 && pipe(down) == 0, "pipe");
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		char r[16], w[16];
		snprintf(r, sizeof r, "%d", down[0]);
		snprintf(w, sizeof w, "%d", up[1]);
		execl("/proc/self/exe", argv[0], "child", r, w, (char *)NULL);
		_exit(127);
	}
	t_open();
	struct rq me;
	rq_make(&me, MAC_MC);
	char c;
	CHECK(read(up[0], &c, 1) == 1 && c == 'R', "child ready");

	struct ibv_cq *scq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.send_cq = a.recv_cq = scq;
	a.cap.max_send_wr = a.cap.max_recv_wr = 32;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	struct ibv_qp *tx = ibv_create_qp(t_pd, &a);
	CHECK(tx, "tx qp");
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	CHECK(ibv_modify_qp(tx, &at, IBV_QP_STATE | IBV_QP_PORT) == 0, "init");
	at.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(tx, &at, IBV_QP_STATE) == 0, "rtr");
	at.qp_state = IBV_QPS_RTS;
	CHECK(ibv_modify_qp(tx, &at, IBV_QP_STATE) == 0, "rts");
	uint8_t *buf;
	struct ibv_mr *mr = t_mr(4096, IBV_ACCESS_LOCAL_WRITE, (void **)&buf);
	send_frames(tx, scq, buf, mr);
	expect(&me, N_MC, 200, "sender's own QP (loopback)");
	CHECK(read(up[0], &c, 1) == 1 && c == 'R', "child ready again");
	send_frames(tx, scq, buf, mr);
	expect(&me, N_MC, 200, "sender's own QP (loopback), second time");
	c = 'D';
	CHECK(write(down[1], &c, 1) == 1, "done");
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed: status 0x%x", st);

	/* A fork child (no exec) that opens the device: its copies of this process's QP, buffers and flow are inert
	 * memory (emu_objects.h). A NIC writes into this process's pages, never into the child's copies, which the
	 * child may have reused for anything; the child's own QP gets its frames. */
	CHECK(pipe(up) == 0, "pipe");
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		close(up[0]);
		memset(me.buf, 0xee, FR * 32); /* the inherited receive buffer, reused */
		struct t_rawcq raw;
		t_rawcq(me.cq, &raw);
		size_t ring_len = (size_t)raw.cqe_cnt * raw.cqe_size;
		uint8_t *ring = malloc(ring_len);
		CHECK(ring, "malloc");
		memcpy(ring, raw.buf, ring_len);
		t_open();
		struct rq mine;
		rq_make(&mine, MAC_MC);
		c = 'R';
		CHECK(write(up[1], &c, 1) == 1, "fork child ready");
		expect(&mine, N_MC, 200, "fork child's own QP");
		for (size_t i = 0; i < FR * 32; i++)
			CHECK(me.buf[i] == 0xee, "the fork child's engine wrote into its copy of the parent's receive buffer "
			      "(byte %zu: 0x%02x)", i, me.buf[i]);
		CHECK(memcmp(ring, raw.buf, ring_len) == 0, "the fork child's engine wrote a CQE into its copy of the "
		      "parent's CQ");
		rq_free(&mine);
		ibv_dealloc_pd(t_pd);
		ibv_close_device(t_ctx);
		free(ring);
		_exit(0);
	}
	close(up[1]);
	CHECK(read(up[0], &c, 1) == 1 && c == 'R', "fork child ready");
	send_frames(tx, scq, buf, mr);
	expect(&me, N_MC, 200, "sender's own QP (loopback), with a fork child");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork child failed: status 0x%x",
	      st);
	rq_free(&me);
	ibv_destroy_qp(tx);
	ibv_destroy_cq(scq);
	ibv_dereg_mr(mr);
	free(buf);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("t_raw_eth_2proc: ok\n");
	return 0;
}
