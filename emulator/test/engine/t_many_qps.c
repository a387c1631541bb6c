/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Many RC QPs in one process, one of them busy: an engine pass must visit only the QPs that have work (the
 * requester's list and the ACK list, eng_core.c and eng_resp.c), as a ConnectX schedules only those, and none of
 * the others may lose any. 128 looped-back pairs (256 QPs, past the low-latency BlueFlame registers, so most share
 * one: eng_doorbell.c take_shared_records) each carry WRITEs and SENDs whose bytes are checked; then one pair
 * alone runs WRITEs, and the QPs visited per pass are counted through mlx5emu_debug_pass_visits: with a walk over
 * every QP (the old engine) a pass visited at least 256. A count, not a time: it holds on a loaded machine.
 * Then every other QP is destroyed, out of order, and the survivors still carry data (the handle table).
 */
#include "etest.h"
#include "mlx5emu_debug.h"

#define NPAIR 128
#define MSG   64
#define ROUNDS 200

static struct ibv_qp *qa[NPAIR], *qb[NPAIR];
static struct ibv_cq *cq;
static uint8_t *buf;
static struct ibv_mr *mr;

/* the send buffer of pair i at offset i * 2 * MSG, its WRITE target at + MSG (in the same region) */
static uint8_t *src(int i) { return buf + (size_t)i * 2 * MSG; }
static uint8_t *dst(int i) { return buf + (size_t)i * 2 * MSG + MSG; }
static uint8_t *rcv(int i) { return buf + (size_t)NPAIR * 2 * MSG + (size_t)i * MSG; }

static void fillp(uint8_t *p, int i, int round)
{
	for (int k = 0; k < MSG; k++)
		p[k] = (uint8_t)(i * 31 + round * 7 + k);
}

static void write_pair(int i, int round)
{
	fillp(src(i), i, round);
	struct ibv_sge sge = { (uintptr_t)src(i), MSG, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED };
	wr.wr.rdma.remote_addr = (uintptr_t)dst(i);
	wr.wr.rdma.rkey = mr->rkey;
	t_post_send(qa[i], &wr);
}

/* Waits for n completions, each a success for a live pair; counts them per wr_id. */
static void wait_n(int n, enum ibv_wc_opcode op, int *seen)
{
	struct ibv_wc wc[32];
	int got = 0;
	while (got < n) {
		int r = t_poll(cq, wc, n - got < 32 ? n - got : 32, 20000);
		CHECK(r > 0, "completions: %d of %d", got, n);
		for (int k = 0; k < r; k++) {
			CHECK(wc[k].status == IBV_WC_SUCCESS, "wr_id %lu status %d", (unsigned long)wc[k].wr_id, wc[k].status);
			CHECK(wc[k].opcode == op, "wr_id %lu opcode %d, want %d", (unsigned long)wc[k].wr_id, wc[k].opcode, op);
			CHECK(wc[k].wr_id < NPAIR, "wr_id %lu", (unsigned long)wc[k].wr_id);
			seen[wc[k].wr_id]++;
		}
		got += r;
	}
}

/* One WRITE and one SEND on every live pair at once, every byte checked. */
static void all_pairs(int round, int step)
{
	int seen[NPAIR] = { 0 }, live = 0;
	uint8_t want[MSG];
	for (int i = 0; i < NPAIR; i += step) {
		t_post_recv(qb[i], (uint64_t)i, rcv(i), MSG, mr->lkey);
		write_pair(i, round);
		live++;
	}
	wait_n(live, IBV_WC_RDMA_WRITE, seen);
	for (int i = 0; i < NPAIR; i += step) {
		CHECK(seen[i] == 1, "pair %d: %d WRITE completions", i, seen[i]);
		fillp(want, i, round);
		CHECK(memcmp(dst(i), want, MSG) == 0, "pair %d round %d: WRITE data", i, round);
		seen[i] = 0;
		fillp(src(i), i, round + 1000);
		struct ibv_sge sge = { (uintptr_t)src(i), MSG, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		t_post_send(qa[i], &wr);
	}
	/* SEND and its receive complete on the one CQ: 2 per pair */
	struct ibv_wc wc[32];
	int got = 0, sends = 0, recvs = 0;
	while (got < 2 * live) {
		int r = t_poll(cq, wc, 2 * live - got < 32 ? 2 * live - got : 32, 20000);
		CHECK(r > 0, "SEND completions: %d of %d", got, 2 * live);
		for (int k = 0; k < r; k++) {
			CHECK(wc[k].status == IBV_WC_SUCCESS, "wr_id %lu status %d", (unsigned long)wc[k].wr_id, wc[k].status);
			if (wc[k].opcode == IBV_WC_RECV) {
				CHECK(wc[k].byte_len == MSG, "recv len %u", wc[k].byte_len);
				recvs++;
			} else {
				CHECK(wc[k].opcode == IBV_WC_SEND, "opcode %d", wc[k].opcode);
				sends++;
			}
		}
		got += r;
	}
	CHECK(sends == live && recvs == live, "%d sends %d receives of %d", sends, recvs, live);
	for (int i = 0; i < NPAIR; i += step) {
		fillp(want, i, round + 1000);
		CHECK(memcmp(rcv(i), want, MSG) == 0, "pair %d round %d: SEND data", i, round);
	}
}

int main(void)
{
	void (*visits)(uint64_t *, uint64_t *) =
		(void (*)(uint64_t *, uint64_t *))dlsym(RTLD_DEFAULT, "mlx5emu_debug_pass_visits");
	CHECK(visits, "mlx5emu_debug_pass_visits not found (not running under the emulator?)");
	t_open();
	cq = ibv_create_cq(t_ctx, 4 * NPAIR + 64, NULL, NULL, 0);
	CHECK(cq, "cq");
	mr = t_mr((size_t)NPAIR * 3 * MSG, T_ALL_ACCESS, (void **)&buf);
	for (int i = 0; i < NPAIR; i++) {
		t_rc_loop(cq, cq, &qa[i], &qb[i]);
	}
	for (int round = 0; round < 3; round++) {
		all_pairs(round, 1);
	}

	/* one pair busy, 255 QPs idle */
	uint64_t p0, v0, p1, v1;
	visits(&p0, &v0);
	for (int round = 0; round < ROUNDS; round++) {
		int seen[NPAIR] = { 0 };
		uint8_t want[MSG];
		write_pair(0, round);
		wait_n(1, IBV_WC_RDMA_WRITE, seen);
		fillp(want, 0, round);
		CHECK(memcmp(dst(0), want, MSG) == 0, "round %d: WRITE data", round);
	}
	visits(&p1, &v1);
	uint64_t passes = p1 - p0, visited = v1 - v0;
	printf("%d WRITEs on one of %d QPs: %lu passes visited %lu QPs\n", ROUNDS, 2 * NPAIR, (unsigned long)passes,
	       (unsigned long)visited);
	CHECK(passes >= ROUNDS / 2, "only %lu engine passes for %d WRITEs", (unsigned long)passes, ROUNDS);
	/* the busy pair is at most 2 QPs on each list per pass; a walk over all gives 2 * NPAIR or more */
	CHECK(visited <= 4 * passes, "%lu QPs visited in %lu passes: the passes walk idle QPs", (unsigned long)visited,
	      (unsigned long)passes);

	/* every other pair destroyed, from the middle out; the rest still carries data */
	for (int i = NPAIR / 2 + 1; i < NPAIR; i += 2)
		CHECK(ibv_destroy_qp(qb[i]) == 0 && ibv_destroy_qp(qa[i]) == 0, "destroy pair %d", i);
	for (int i = NPAIR / 2 - 1; i > 0; i -= 2)
		CHECK(ibv_destroy_qp(qa[i]) == 0 && ibv_destroy_qp(qb[i]) == 0, "destroy pair %d", i);
	all_pairs(10, 2);
	for (int i = 0; i < NPAIR; i += 2) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		CHECK(ibv_query_qp(qa[i], &a, IBV_QP_STATE, &ia) == 0 && a.qp_state == IBV_QPS_RTS, "query pair %d", i);
		CHECK(ibv_destroy_qp(qa[i]) == 0 && ibv_destroy_qp(qb[i]) == 0, "destroy pair %d", i);
	}
	CHECK(ibv_dereg_mr(mr) == 0, "dereg");
	free(buf);
	CHECK(ibv_destroy_cq(cq) == 0, "destroy cq");
	CHECK(ibv_dealloc_pd(t_pd) == 0, "dealloc pd");
	CHECK(ibv_close_device(t_ctx) == 0, "close device");
	CHECK(t_violations() == 0, "strict violations");
	printf("t_many_qps: OK\n");
	return 0;
}
