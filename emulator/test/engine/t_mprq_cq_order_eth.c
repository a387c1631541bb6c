/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_mprq_cq_order_eth.c - a striding RQ whose driver reposts a WQE before it stores the CQ consumer index that frees
 * the CQEs of that WQE's strides, as DPDK 22.11's vectorized striding-RQ Rx does (drivers/net/mlx5/mlx5_rxtx_vec.c:
 * rxq_copy_mprq_mbuf_v stores the RQ doorbell record, mlx5_rx_burst_mprq_vec the CQ's after it), with the CQ sized
 * for exactly the strides posted (mlx5_rxq.c mlx5_rxq_cqe_num: WQEs * strides). The state is the one measured under
 * dpdk-testpmd when the CQ overran: the record lags by the last strides of the reposted WQE, and the frames that
 * follow fill the reposted WQE up to the lag. The next frame finds no free CQ slot by the record:
 *  - it waits for the record (no strict report, no CQ_ERR, no CQE) as it would for a WQE, and lands once the driver
 *    stores the index, followed by the frames behind it, each at its stride;
 *  - a driver that does not store it within MLX5EMU_ETH_HOLD_MS still overruns the CQ: strict report, CQ_ERR;
 *  - a plain raw QP's frame waits for its receive CQ alike.
 * Deterministic: the test drives both doorbell records by hand and waits for engine passes, not for time (the hold
 * is set to 60 s for the first case, so a descheduled test cannot reach its end).
 */
#include "rss_common.h"

#include <fcntl.h>
#include <poll.h>
#include <stddef.h>

#include "mlx5emu_debug.h"

#define LOG_STRIDE 6            /* 64-byte strides: a 60-byte frame takes one */
#define LOG_NSTRIDES 3          /* 8 strides per WQE */
#define NSTRIDES (1u << LOG_NSTRIDES)
#define STRIDE (1u << LOG_STRIDE)
#define NWQE 4
#define FRAME 60
#define LAG 3                   /* strides of the reposted WQE the CQ record does not cover (DPDK run: 3, 8, 10) */

static struct t_rawcq g_rc;
static volatile __be32 *g_cq_dbrec;
static uint8_t *g_bufs[NWQE];

static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* Frame k: to the RSS QP, its sequence number in the UDP source port and the payload. */
static size_t frame(uint8_t *fr, uint32_t k)
{
	uint8_t src[4] = { 10, 1, 1, 1 }, dst[4] = { 10, 1, 2, 2 };
	return ip4_frame(fr, FRAME, 17, src, dst, (uint16_t)(1000 + k), 9);
}

/* Is CQE index i of rc there (owner bit of pass i / cqe_cnt, not invalid)? */
static int cqe_in(struct t_rawcq *rc, uint32_t i)
{
	const uint8_t *c = (const uint8_t *)t_cqe64(rc, i);
	uint32_t log_cnt = (uint32_t)__builtin_ctz(rc->cqe_cnt);
	uint8_t op_own = c[63];
	return (op_own & 1) == ((i >> log_cnt) & 1) && (op_own >> 4) != 0xf;
}

static int cqe_there(uint32_t i)
{
	return cqe_in(&g_rc, i);
}

/* Wait (bounded) for CQE index i of rc. */
static void wait_cqe(struct t_rawcq *rc, uint32_t i)
{
	uint64_t end = t_ms() + 5000;
	while (!cqe_in(rc, i) && t_ms() < end) {
		ibv_poll_cq(g_txcq, 0, NULL); /* lend the engine a cycle */
		usleep(100);
	}
	CHECK(cqe_in(rc, i), "CQE %u not written within 5 s", i);
	udma_from_device_barrier(); /* else the CQE's body could be read from before the engine's op_own store */
}

/* Wait (bounded) for CQE index i, then check it is frame k's: WQE k / NSTRIDES, stride k % NSTRIDES, one stride,
 * the bytes at that stride. */
static void expect_cqe(uint32_t i, uint32_t k)
{
	wait_cqe(&g_rc, i);
	const uint8_t *c = (const uint8_t *)t_cqe64(&g_rc, i);
	CHECK((c[63] >> 4) == MLX5_CQE_RESP_SEND, "CQE %u: opcode %d", i, c[63] >> 4);
	uint32_t bc = be32toh(*(const uint32_t *)(c + 44));
	uint16_t stride = be16toh(*(const uint16_t *)(c + 60)), wqe_id = be16toh(*(const uint16_t *)(c + 2));
	CHECK(bc == (1u << 16 | FRAME), "CQE %u: byte_cnt 0x%08x, want one stride of %u bytes", i, bc, FRAME);
	CHECK(wqe_id == (uint16_t)(k / NSTRIDES) && stride == k % NSTRIDES, "CQE %u: WQE %u stride %u, want %u/%u", i,
	      wqe_id, stride, k / NSTRIDES, k % NSTRIDES);
	uint8_t fr[FRAME];
	frame(fr, k);
	CHECK(memcmp(g_bufs[(k / NSTRIDES) % NWQE] + (size_t)stride * STRIDE, fr, FRAME) == 0, "CQE %u: frame %u's bytes",
	      i, k);
}

static void send_k(uint32_t k)
{
	uint8_t fr[FRAME];
	send_frame(fr, frame(fr, k));
}

/* Let the engine make at least n whole passes (bounded): a frame already in its inbox has then been looked at. */
static void engine_passes(uint64_t n)
{
	void (*pv)(uint64_t *, uint64_t *) =
		(void (*)(uint64_t *, uint64_t *))dlsym(RTLD_DEFAULT, "mlx5emu_debug_pass_visits");
	CHECK(pv, "mlx5emu_debug_pass_visits not found (not running under the emulator?)");
	uint64_t p0, p, v;
	pv(&p0, &v);
	uint64_t end = t_ms() + 5000;
	do {
		ibv_poll_cq(g_txcq, 0, NULL);
		usleep(100);
		pv(&p, &v);
	} while (p < p0 + n + 1 && t_ms() < end);
	CHECK(p >= p0 + n + 1, "only %lu engine passes in 5 s", (unsigned long)(p - p0));
}

/* case 3: a plain raw QP waits alike: its receive CQ (8 entries) holds 8 unread CQEs while 16 receives are posted;
 * the 9th frame waits until the CQ record frees a slot */
static void raw_qp_case(unsigned long v0)
{
	setenv("MLX5EMU_ETH_HOLD_MS", "60000", 1); /* no frame is held now */
	struct ibv_cq *scq = ibv_create_cq(t_ctx, 8, NULL, NULL, 0), *rcq = ibv_create_cq(t_ctx, 7, NULL, NULL, 0);
	CHECK(scq && rcq, "cqs");
	struct t_rawcq rc;
	t_rawcq(rcq, &rc);
	CHECK(rc.cqe_cnt == 8, "receive CQ of %u entries", rc.cqe_cnt);
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o;
	memset(&o, 0, sizeof o);
	o.cq.in = rcq;
	o.cq.out = &dcq;
	CHECK(mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ) == 0, "init_obj cq");
	struct ibv_qp_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.send_cq = scq;
	a.recv_cq = rcq;
	a.cap.max_send_wr = 1;
	a.cap.max_recv_wr = 16;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	a.pd = t_pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	struct ibv_qp *qp = ibv_create_qp_ex(t_ctx, &a);
	CHECK(qp, "raw qp: errno %d", errno);
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	CHECK(ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PORT) == 0, "INIT");
	at.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(qp, &at, IBV_QP_STATE) == 0, "RTR");
	uint8_t *mem;
	struct ibv_mr *mr = t_mr(16 * 128, IBV_ACCESS_LOCAL_WRITE, (void **)&mem);
	for (uint32_t i = 0; i < 16; i++)
		t_post_recv(qp, i, mem + i * 128, 128, mr->lkey);
	struct ibv_flow *fl = flow_to(qp);
	for (uint32_t k = 0; k < 8; k++) {
		send_k(k);
		wait_cqe(&rc, k);
	}
	send_k(8);
	engine_passes(3);
	CHECK(t_violations() == v0, "raw QP: strict: %lu reports for a frame the CQ has no slot for yet",
	      t_violations() - v0);
	CHECK(!readable(t_ctx->async_fd, 0), "raw QP: an asynchronous event (CQ_ERR)");
	CHECK(!cqe_in(&rc, 8), "raw QP: CQE 8 written over the unread CQE 0");
	dcq.dbrec[0] = htobe32(1); /* CQE 0 read */
	wait_cqe(&rc, 8);
	const struct mlx5_cqe64 *c = t_cqe64(&rc, 8);
	uint8_t fr[FRAME];
	frame(fr, 8);
	CHECK((c->op_own >> 4) == MLX5_CQE_RESP_SEND && be32toh(c->byte_cnt) == FRAME && be16toh(c->wqe_counter) == 8 &&
	      memcmp(mem + 8 * 128, fr, FRAME) == 0, "raw QP: CQE 8: opcode %d, %u bytes in WQE %u", c->op_own >> 4,
	      be32toh(c->byte_cnt), be16toh(c->wqe_counter));
	CHECK(t_violations() == v0, "raw QP: strict: %lu reports", t_violations() - v0);
	CHECK(ibv_destroy_flow(fl) == 0 && ibv_destroy_qp(qp) == 0, "destroy raw qp");
	CHECK(ibv_destroy_cq(rcq) == 0 && ibv_destroy_cq(scq) == 0, "destroy cqs");
	CHECK(ibv_dereg_mr(mr) == 0, "dereg");
	free(mem);
}

int main(void)
{
	/* case 1 must end long before a frame's hold does, however slow the machine (read once per held frame) */
	setenv("MLX5EMU_ETH_HOLD_MS", "60000", 1);
	t_open();
	CHECK(t_port.link_layer == IBV_LINK_LAYER_ETHERNET, "needs --link eth");
	tx_init();
	CHECK(fcntl(t_ctx->async_fd, F_SETFL, fcntl(t_ctx->async_fd, F_GETFL) | O_NONBLOCK) == 0, "async fd");

	/* the CQ as DPDK asks for it: WQEs * strides - 1 entries, which libmlx5 rounds up to WQEs * strides */
	struct ibv_cq *cq = ibv_create_cq(t_ctx, NWQE * NSTRIDES - 1, NULL, NULL, 0);
	CHECK(cq, "cq");
	t_rawcq(cq, &g_rc);
	CHECK(g_rc.cqe_cnt == NWQE * NSTRIDES, "CQ of %u entries, want %u", g_rc.cqe_cnt, NWQE * NSTRIDES);
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o;
	memset(&o, 0, sizeof o);
	o.cq.in = cq;
	o.cq.out = &dcq;
	CHECK(mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ) == 0, "init_obj cq");
	g_cq_dbrec = dcq.dbrec;

	struct mlx5dv_wq_init_attr dv = { .comp_mask = MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ };
	dv.striding_rq_attrs.single_stride_log_num_of_bytes = LOG_STRIDE;
	dv.striding_rq_attrs.single_wqe_log_num_of_strides = LOG_NSTRIDES;
	struct ibv_wq *wq = make_wq(cq, NWQE, &dv);
	struct ibv_wq *tbl[1] = { wq };
	struct ibv_rwq_ind_table_init_attr ta = { .log_ind_tbl_size = 0, .ind_tbl = tbl };
	struct ibv_rwq_ind_table *t = ibv_create_rwq_ind_table(t_ctx, &ta);
	CHECK(t, "table");
	uint8_t key[40] = { 0 };
	struct ibv_qp *qp = make_rss_qp(t, 0, key);
	struct ibv_flow *fl = flow_to(qp);
	struct mlx5dv_rwq rwq;
	memset(&o, 0, sizeof o);
	o.rwq.in = wq;
	o.rwq.out = &rwq;
	CHECK(mlx5dv_init_obj(&o, MLX5DV_OBJ_RWQ) == 0, "init_obj rwq");
	CHECK(rwq.wqe_cnt == NWQE, "rwq of %u WQEs", rwq.wqe_cnt);
	uint8_t *mem;
	struct ibv_mr *mr = t_mr((size_t)NWQE * NSTRIDES * STRIDE, IBV_ACCESS_LOCAL_WRITE, (void **)&mem);
	for (int i = 0; i < NWQE; i++) {
		g_bufs[i] = mem + (size_t)i * NSTRIDES * STRIDE;
		struct mlx5_mprq_wqe *w = (void *)((uint8_t *)rwq.buf + (size_t)i * rwq.stride);
		memset(w, 0, sizeof *w);
		w->dseg.byte_count = htobe32(NSTRIDES * STRIDE);
		w->dseg.lkey = htobe32(mr->lkey);
		w->dseg.addr = htobe64((uintptr_t)g_bufs[i]);
	}
	udma_to_device_barrier(); /* else the engine could take a striding WQE before its bytes */
	rwq.dbrec[0] = htobe32(NWQE);
	unsigned long v0 = t_violations();

	/* every stride of the 4 WQEs: CQEs 0..31, the CQ is full */
	uint32_t k = 0;
	for (; k < NWQE * NSTRIDES; k++)
		send_k(k);
	for (uint32_t i = 0; i < NWQE * NSTRIDES; i++)
		expect_cqe(i, i);
	/* the driver's last CQ record store: WQE 0 but its last LAG strides; then, without a store, it reads those and
	 * the first CQE of WQE 1 (that is when DPDK replaces a WQE) and reposts WQE 0 as WQE 4 */
	const uint32_t stored = NSTRIDES - LAG, read = NSTRIDES + 1;
	g_cq_dbrec[0] = htobe32(stored);
	udma_to_device_barrier();
	rwq.dbrec[0] = htobe32(NWQE + 1);
	/* WQE 4's first strides, up to what the record frees: CQEs 32..36 */
	for (; k < NWQE * NSTRIDES + stored; k++) {
		send_k(k);
		expect_cqe(k, k);
	}

	/* case 1: the next frame has a stride in WQE 4 but no CQ slot by the record: it waits, the CQ stays intact */
	uint32_t held = k++;
	send_k(held);
	engine_passes(3);
	CHECK(t_violations() == v0, "strict: %lu reports while the driver is between its two stores (the CQ overran)",
	      t_violations() - v0);
	CHECK(!readable(t_ctx->async_fd, 0), "an asynchronous event (CQ_ERR) while the driver is between its two stores");
	CHECK(!cqe_there(held), "CQE %u written over the unread CQE %u", held, held - g_rc.cqe_cnt);
	/* the driver's late store: the frame lands, and so do the frames behind it, up to WQE 4's end */
	g_cq_dbrec[0] = htobe32(read);
	expect_cqe(held, held);
	for (; k < (NWQE + 1) * NSTRIDES; k++) {
		send_k(k);
		expect_cqe(k, k);
	}
	CHECK(t_violations() == v0, "strict: %lu reports", t_violations() - v0);
	CHECK(!readable(t_ctx->async_fd, 0), "an asynchronous event after the store");

	/* case 2: a driver that reposts (WQE 1 as WQE 5) and never frees the slots overruns the CQ once the hold ends */
	setenv("MLX5EMU_ETH_HOLD_MS", "100", 1); /* no frame is held now: the engine is not reading it */
	rwq.dbrec[0] = htobe32(NWQE + 2);
	for (; k < read + NWQE * NSTRIDES; k++) { /* the slots the record frees: one */
		send_k(k);
		expect_cqe(k, k);
	}
	uint64_t t0 = t_ms();
	send_k(k);
	CHECK(readable(t_ctx->async_fd, 5000), "no CQ_ERR within 5 s of a frame for a full CQ");
	uint64_t waited = t_ms() - t0;
	struct ibv_async_event ev;
	CHECK(ibv_get_async_event(t_ctx, &ev) == 0, "ibv_get_async_event");
	CHECK(ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == cq, "event %d, want CQ_ERR (%d) of the Rx CQ",
	      ev.event_type, IBV_EVENT_CQ_ERR);
	ibv_ack_async_event(&ev);
	CHECK(waited >= 100, "the overrun came after %lu ms, before the 100 ms hold ended", (unsigned long)waited);
	CHECK(t_violations() == v0 + 1, "strict: %lu reports, want the overrun's", t_violations() - v0);
	CHECK(!cqe_there(k), "CQE %u written over the unread CQE %u", k, k - g_rc.cqe_cnt);

	CHECK(ibv_destroy_flow(fl) == 0, "destroy flow");
	CHECK(ibv_destroy_qp(qp) == 0, "destroy qp");
	CHECK(ibv_destroy_rwq_ind_table(t) == 0, "destroy table");
	CHECK(ibv_destroy_wq(wq) == 0, "destroy wq");
	CHECK(ibv_destroy_cq(cq) == 0, "destroy cq");
	CHECK(ibv_dereg_mr(mr) == 0, "dereg");
	free(mem);
	raw_qp_case(v0 + 1);
	printf("t_mprq_cq_order_eth: a frame for a CQ the driver has not yet freed waits for its record (%u CQEs), and "
	       "overruns it after the hold (%lu ms)\n", k, (unsigned long)waited);
	return 0;
}
