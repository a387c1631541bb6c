/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fault injection (MLX5EMU_FAULTS) against the transport, judged through libibverbs and unmodified libmlx5.
 *
 * A driver re-executes this program once per fault spec of a sweep (the spec is read when the library loads).
 * Each run is two processes, A (requester) and B (responder), forked before either opens the device so each has
 * its own engine; both inject faults into what they send. A posts a mix of RC SENDs, WRITEs and READs (several
 * 64 KiB packets each), FETCH_ADDs and CMP_SWAPs, then UC SENDs of three packets and UD SENDs. The rules checked,
 * from the IB specification rather than from the engine:
 * - RC: every WR completes exactly once and in order; either all succeed, or a prefix succeeds, one WR completes
 *   with IBV_WC_RETRY_EXC_ERR (vendor syndrome 0x81) and the rest are flushed. A READ returns the responder's bytes;
 *   FETCH_ADD k returns k and CMP_SWAP k->k+1 returns k (an atomic executed twice would skip a value); B received
 *   each SEND once, in order, intact, holds every successful WRITE, and its counters equal the successful atomics
 *   (plus possibly the one that failed: it may have executed before its answer was lost).
 * - UC: completions never carry a partial or duplicated message; a receive WQE is never lost (a message abandoned
 *   after a lost packet leaves its WQE to the next one, so completed wr_ids are 0, 1, 2, ...).
 * - UD: what arrives is intact; nothing is lost or duplicated without faults.
 * Extra runs: every request dropped (retry_cnt 2 -> RETRY_EXC_ERR, flushes, responder untouched); every response
 * delayed 30 ms (max_rd_atomic 1 serializes 4 READs: >= 120 ms; max_rd_atomic 4 overlaps them); UD at the port MTU.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "etest.h"

#define N_RC   60
#define N_UC   24
#define N_UD   32
#define UC_LEN 140000 /* three 64 KiB packets */
#define UD_LEN 1000
#define RD_LEN 200000 /* four READ response packets */
#define W_STRIDE (160u << 10)
#define S_STRIDE (160u << 10)
#define B_WRITE 0
#define B_SEND  (B_WRITE + 16 * W_STRIDE)
#define B_READ  (B_SEND + 16 * S_STRIDE)
#define B_ATOM  (B_READ + RD_LEN + 64)
#define B_UC    (B_ATOM + 64)
#define B_UD    (B_UC + N_UC * 150000ul)
#define B_SIZE  (B_UD + 2 * N_UD * 1088ul + 4096)

static const uint32_t send_len[] = { 16, 5000, 140000 };
static const uint32_t write_len[] = { 8, 4000, 70000, 150000 };

struct info {
	uint32_t rc_qpn, rc2_qpn, uc_qpn, ud_qpn, rkey;
	uint64_t addr;
};

/* What A reports to B once its RC WRs completed. */
struct report {
	int failed_op;        /* index of the WR that completed with RETRY_EXC_ERR, -1 if none */
	int failed_kind;
	uint32_t sends_ok, fa_ok, cas_ok;
	uint32_t writes_ok;   /* bit per WRITE index */
	uint32_t uc_sent, ud_sent;
};

static int to_b[2], to_a[2];
static const char *mode;


static uint8_t pat(uint32_t seed, uint32_t i) { return (uint8_t)(seed * 131 + i * 7 + (i >> 9)); }
static void fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		p[i] = pat(seed, i);
}
static int same(const uint8_t *p, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != pat(seed, i))
			return 0;
	return 1;
}

static void fault_stats(uint64_t s[5])
{
	void (*f)(uint64_t *) = (void (*)(uint64_t *))dlsym(RTLD_DEFAULT, "mlx5emu_fault_stats");
	CHECK(f, "mlx5emu_fault_stats not found");
	f(s);
}

static void connect_qp(struct ibv_qp *qp, uint32_t remote, int rd_atomic, uint8_t retry_cnt, uint8_t timeout)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    (qp->qp_type == IBV_QPT_RC ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0, "init");
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = remote;
	a.rq_psn = 0xfffff0; /* the PSNs wrap during the run */
	a.max_dest_rd_atomic = (uint8_t)rd_atomic;
	a.min_rnr_timer = 1;
	t_ah_attr(&a.ah_attr);
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	CHECK(ibv_modify_qp(qp, &a, mask) == 0, "rtr");
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0xfffff0;
	a.timeout = timeout;
	a.retry_cnt = retry_cnt;
	a.rnr_retry = 7;
	a.max_rd_atomic = (uint8_t)rd_atomic;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	CHECK(ibv_modify_qp(qp, &a, mask) == 0, "rts");
}

static struct ibv_qp *mkqp(enum ibv_qp_type t, struct ibv_cq *scq, struct ibv_cq *rcq, int nrecv)
{
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof a);
	a.send_cq = scq;
	a.recv_cq = rcq;
	a.qp_type = t;
	a.cap.max_send_wr = 64;
	a.cap.max_recv_wr = (uint32_t)nrecv;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	struct ibv_qp *qp = ibv_create_qp(t_pd, &a);
	CHECK(qp, "create_qp %d", t);
	return qp;
}

/* ---------------- B: the responder ---------------- */

static void run_b(void)
{
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 256, NULL, NULL, 0), *uccq = ibv_create_cq(t_ctx, 256, NULL, NULL, 0),
		      *udcq = ibv_create_cq(t_ctx, 256, NULL, NULL, 0);
	CHECK(cq && uccq && udcq, "cqs");
	uint8_t *buf;
	struct ibv_mr *mr = t_mr(B_SIZE, T_ALL_ACCESS, (void **)&buf);
	fill(buf + B_READ, RD_LEN, 77);
	struct ibv_qp *rc = mkqp(IBV_QPT_RC, cq, cq, 64), *rc2 = mkqp(IBV_QPT_RC, cq, cq, 4),
		      *uc = mkqp(IBV_QPT_UC, cq, uccq, N_UC), *ud = mkqp(IBV_QPT_UD, cq, udcq, 2 * N_UD);
	t_ud_up(ud, 0x11111111);
	struct info me = { rc->qp_num, rc2->qp_num, uc->qp_num, ud->qp_num, mr->rkey, (uintptr_t)buf }, peer;
	t_xwrite(to_a[1], &me, sizeof me);
	t_xread(to_b[0], &peer, sizeof peer);
	connect_qp(rc, peer.rc_qpn, 16, 7, 8);
	connect_qp(rc2, peer.rc2_qpn, 16, 7, 8);
	connect_qp(uc, peer.uc_qpn, 0, 0, 0);
	for (uint32_t i = 0; i < 16; i++)
		t_post_recv(rc, i, buf + B_SEND + i * S_STRIDE, S_STRIDE, mr->lkey);
	for (uint32_t i = 0; i < N_UC; i++)
		t_post_recv(uc, i, buf + B_UC + i * 150000ul, 150000, mr->lkey);
	for (uint32_t i = 0; i < 2 * N_UD; i++)
		t_post_recv(ud, i, buf + B_UD + i * 1088ul, 1088, mr->lkey);
	t_xwrite(to_a[1], "r", 1);
	struct report r;
	t_xread(to_b[0], &r, sizeof r); /* our engine thread answers A meanwhile */

	/* RC SENDs: once each, in order, intact (the failed one may have landed) */
	struct ibv_wc wc[64];
	uint32_t want = r.sends_ok + (r.failed_kind == 0 ? 1 : 0), got = 0;
	uint64_t end = t_ms() + 3000, grace = 0;
	while (t_ms() < end) {
		if (got >= want && !grace)
			grace = t_ms() + 50; /* look a little longer for a SEND delivered twice */
		if (grace && t_ms() > grace)
			break;
		int n = ibv_poll_cq(cq, 64, wc);
		CHECK(n >= 0, "poll");
		for (int i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_WR_FLUSH_ERR && r.failed_op >= 0)
				continue; /* our QP went to error with A's: hardware flushes the posted receives too */
			CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].opcode == IBV_WC_RECV, "B recv status %d op %d",
			      wc[i].status, wc[i].opcode);
			CHECK(wc[i].wr_id == got, "SEND %u arrived as receive %lu (lost, duplicated or reordered)", got,
			      (unsigned long)wc[i].wr_id);
			uint32_t len = send_len[got % 3];
			CHECK(wc[i].byte_len == len && same(buf + B_SEND + got * S_STRIDE, len, 1000 + got),
			      "SEND %u: %u bytes, content %s", got, wc[i].byte_len,
			      same(buf + B_SEND + got * S_STRIDE, len, 1000 + got) ? "ok" : "wrong");
			got++;
		}
		if (!n)
			usleep(1000);
	}
	CHECK(got == r.sends_ok || (r.failed_kind == 0 && got == r.sends_ok + 1), "B got %u SENDs, A completed %u", got,
	      r.sends_ok);
	for (uint32_t i = 0; i < 16; i++)
		if (r.writes_ok & (1u << i))
			CHECK(same(buf + B_WRITE + i * W_STRIDE, write_len[i % 4], 2000 + i), "WRITE %u content", i);
	uint64_t fa, cas;
	memcpy(&fa, buf + B_ATOM, 8);
	memcpy(&cas, buf + B_ATOM + 8, 8);
	CHECK(fa == r.fa_ok || (r.failed_kind == 3 && fa == r.fa_ok + 1), "FETCH_ADD counter %lu, %u succeeded",
	      (unsigned long)fa, r.fa_ok);
	CHECK(cas == r.cas_ok || (r.failed_kind == 4 && cas == r.cas_ok + 1), "CMP_SWAP word %lu, %u succeeded",
	      (unsigned long)cas, r.cas_ok);

	/* UC: whole messages only, receives consumed in order, never one lost */
	uint32_t ucgot = 0;
	end = t_ms() + 300; /* 300 ms without a new completion (delayed packets wait at most 30 ms) */
	while (t_ms() < end) {
		int n = ibv_poll_cq(uccq, 64, wc);
		if (n > 0)
			end = t_ms() + 300;
		for (int i = 0; i < n; i++) {
			CHECK(wc[i].status == IBV_WC_SUCCESS, "UC recv status %d", wc[i].status);
			CHECK(wc[i].wr_id == ucgot, "UC completion %u has wr_id %lu: a receive WQE was lost", ucgot,
			      (unsigned long)wc[i].wr_id);
			CHECK(wc[i].byte_len == UC_LEN, "UC message of %u bytes", wc[i].byte_len);
			uint8_t *m = buf + B_UC + ucgot * 150000ul;
			uint32_t seq = m[0];
			CHECK(seq < r.uc_sent && same(m + 1, UC_LEN - 1, 3000 + seq), "UC message %u (seq %u) damaged", ucgot, seq);
			static int last = -1;
			CHECK((int)seq > last, "UC seq %u after %d: duplicated or reordered message delivered", seq, last);
			last = (int)seq;
			ucgot++;
		}
		if (!n)
			usleep(2000);
	}
	/* UD: intact */
	uint32_t udgot = 0;
	end = t_ms() + 200;
	while (t_ms() < end) {
		int n = ibv_poll_cq(udcq, 64, wc);
		if (n > 0)
			end = t_ms() + 200;
		else
			usleep(2000);
		for (int i = 0; i < n; i++) {
			CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].byte_len == 40 + UD_LEN, "UD recv status %d len %u",
			      wc[i].status, wc[i].byte_len);
			uint8_t *m = buf + B_UD + wc[i].wr_id * 1088ul + 40;
			CHECK(m[0] < r.ud_sent && same(m + 1, UD_LEN - 1, 4000 + m[0]), "UD message damaged");
			udgot++;
		}
	}
	uint64_t st[5];
	fault_stats(st);
	printf("  B: RC SENDs %u, UC %u/%u, UD %u/%u; B's faults: %lu matched, %lu dropped, %lu dup, %lu reordered, %lu delayed\n",
	       got, ucgot, r.uc_sent, udgot, r.ud_sent, (unsigned long)st[0], (unsigned long)st[1], (unsigned long)st[2],
	       (unsigned long)st[3], (unsigned long)st[4]);
	const char *spec = getenv("MLX5EMU_FAULTS");
	if (spec && strstr(spec, "dir=resp") && strstr(spec, "drop="))
		CHECK(st[1] > 0, "the spec drops responses, but B dropped nothing");
	if (!spec || !*spec) {
		CHECK(ucgot == r.uc_sent && udgot == r.ud_sent, "without faults nothing is lost");
	} else if (strstr(spec, "drop") == NULL && strstr(spec, "reorder") == NULL && strstr(spec, "delay") == NULL) {
		CHECK(ucgot == r.uc_sent, "duplicates alone lose no UC message (%u of %u)", ucgot, r.uc_sent);
		CHECK(udgot >= r.ud_sent, "duplicates alone lose no UD message");
	}
	t_xwrite(to_a[1], "d", 1);
	ibv_destroy_qp(rc);
	ibv_destroy_qp(rc2);
	ibv_destroy_qp(uc);
	ibv_destroy_qp(ud);
	ibv_destroy_cq(cq);
	ibv_destroy_cq(uccq);
	ibv_destroy_cq(udcq);
	ibv_dereg_mr(mr);
	free(buf);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	exit(0); /* exit, not _exit: the engine removes its inbox file at exit */
}

/* ---------------- A: the requester ---------------- */

static struct ibv_qp *rc, *rc2, *uc, *ud;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t *abuf;
static struct info peer;
/* Every SEND and WRITE has a source of its own: a retransmission gathers the bytes again, so a source must stay
 * as it was until its WR completed. */
#define A_SEND  0
#define A_WRITE (A_SEND + 12 * S_STRIDE)
#define A_READ  (A_WRITE + 12 * W_STRIDE)
#define A_ATOM  (A_READ + 12 * (RD_LEN + 64))
#define A_UD    (A_ATOM + 64 * 8)
#define A_SIZE  (A_UD + 8192)

static void post(struct ibv_qp *qp, uint64_t id, enum ibv_wr_opcode op, uint64_t laddr, uint32_t len, uint64_t raddr)
{
	struct ibv_sge s = { laddr, len, mr->lkey };
	struct ibv_send_wr w = { .wr_id = id, .sg_list = &s, .num_sge = 1, .opcode = op, .send_flags = IBV_SEND_SIGNALED };
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = peer.rkey;
	t_post_send(qp, &w);
}

static void rc_mix(struct report *rep)
{
	int kind[N_RC], idx[N_RC], status[N_RC], seen[N_RC];
	int ns = 0, nw = 0, nr = 0, nf = 0, nc = 0;
	for (int i = 0; i < N_RC; i++) {
		kind[i] = i % 5;
		idx[i] = kind[i] == 0 ? ns++ : kind[i] == 1 ? nw++ : kind[i] == 2 ? nr++ : kind[i] == 3 ? nf++ : nc++;
		seen[i] = 0;
	}
	memset(rep, 0, sizeof *rep);
	rep->failed_op = -1;
	rep->failed_kind = -1;
	int posted = 0, done = 0;
	uint64_t end = t_ms() + 60000;
	while (done < N_RC) {
		CHECK(t_ms() < end, "RC: %d of %d WRs completed in 60 s", done, N_RC);
		while (posted < N_RC && posted - done < 16) {
			int i = posted++, k = idx[i];
			switch (kind[i]) {
			case 0:
				fill(abuf + A_SEND + k * S_STRIDE, send_len[k % 3], 1000 + (uint32_t)k);
				post(rc, (uint64_t)i, IBV_WR_SEND, (uintptr_t)abuf + A_SEND + k * S_STRIDE, send_len[k % 3], 0);
				break;
			case 1:
				fill(abuf + A_WRITE + k * W_STRIDE, write_len[k % 4], 2000 + (uint32_t)k);
				post(rc, (uint64_t)i, IBV_WR_RDMA_WRITE, (uintptr_t)abuf + A_WRITE + k * W_STRIDE,
				     write_len[k % 4], peer.addr + B_WRITE + (uint64_t)k * W_STRIDE);
				break;
			case 2:
				memset(abuf + A_READ + (size_t)(k % 12) * (RD_LEN + 64), 0, RD_LEN);
				post(rc, (uint64_t)i, IBV_WR_RDMA_READ, (uintptr_t)abuf + A_READ + (size_t)(k % 12) * (RD_LEN + 64),
				     RD_LEN, peer.addr + B_READ);
				break;
			default: {
				struct ibv_sge s = { (uintptr_t)abuf + A_ATOM + (uint64_t)i * 8, 8, mr->lkey };
				struct ibv_send_wr w = { .wr_id = (uint64_t)i, .sg_list = &s, .num_sge = 1,
							 .send_flags = IBV_SEND_SIGNALED };
				w.opcode = kind[i] == 3 ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
				w.wr.atomic.remote_addr = peer.addr + B_ATOM + (kind[i] == 3 ? 0 : 8);
				w.wr.atomic.rkey = peer.rkey;
				w.wr.atomic.compare_add = kind[i] == 3 ? 1 : (uint64_t)k;
				w.wr.atomic.swap = (uint64_t)k + 1;
				t_post_send(rc, &w);
			}
			}
		}
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(cq, 16, wc);
		CHECK(n >= 0, "poll");
		for (int j = 0; j < n; j++) {
			int i = (int)wc[j].wr_id;
			CHECK(i == done, "completion for WR %d, expected WR %d (out of order or duplicated)", i, done);
			CHECK(!seen[i]++, "WR %d completed twice", i);
			status[i] = wc[j].status;
			done++;
			if (rep->failed_op < 0 && wc[j].status != IBV_WC_SUCCESS) {
				CHECK(wc[j].status == IBV_WC_RETRY_EXC_ERR && wc[j].vendor_err == 0x81,
				      "WR %d: status %d (%s) vendor 0x%x, expected success or RETRY_EXC_ERR", i, wc[j].status,
				      ibv_wc_status_str(wc[j].status), wc[j].vendor_err);
				rep->failed_op = i;
				rep->failed_kind = kind[i];
				continue;
			}
			if (rep->failed_op >= 0) {
				CHECK(wc[j].status == IBV_WC_WR_FLUSH_ERR, "WR %d after the failed one: status %d", i, wc[j].status);
				continue;
			}
			int k = idx[i];
			switch (kind[i]) {
			case 0: rep->sends_ok++; break;
			case 1: rep->writes_ok |= 1u << k; break;
			case 2:
				CHECK(same(abuf + A_READ + (size_t)(k % 12) * (RD_LEN + 64), RD_LEN, 77), "READ %d data", k);
				break;
			case 3: {
				uint64_t old;
				memcpy(&old, abuf + A_ATOM + (uint64_t)i * 8, 8);
				CHECK(old == rep->fa_ok, "FETCH_ADD %d returned %lu, expected %u (executed twice?)", k,
				      (unsigned long)old, rep->fa_ok);
				rep->fa_ok++;
				break;
			}
			default: {
				uint64_t old;
				memcpy(&old, abuf + A_ATOM + (uint64_t)i * 8, 8);
				CHECK(old == rep->cas_ok && old == (uint64_t)k, "CMP_SWAP %d returned %lu, expected %u", k,
				      (unsigned long)old, rep->cas_ok);
				rep->cas_ok++;
			}
			}
		}
		if (!n)
			usleep(200);
	}
	(void)status;
}

static void uc_ud(struct report *rep)
{
	struct ibv_wc wc[16];
	/* UC: N_UC SENDs of three packets; UC send completions are local (no ACK) */
	for (uint32_t s = 0; s < N_UC; s++) {
		uint8_t *m = abuf + A_READ + (s % 8) * (RD_LEN + 64);
		m[0] = (uint8_t)s;
		fill(m + 1, UC_LEN - 1, 3000 + s);
		post(uc, 100 + s, IBV_WR_SEND, (uintptr_t)m, UC_LEN, 0);
		CHECK(t_poll(cq, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 100 + s,
		      "UC send %u: status %d", s, wc[0].status);
	}
	rep->uc_sent = N_UC;
	/* UD */
	struct ibv_ah_attr aa;
	t_ah_attr(&aa);
	struct ibv_ah *ah = ibv_create_ah(t_pd, &aa);
	CHECK(ah, "ah");
	for (uint32_t s = 0; s < N_UD; s++) {
		uint8_t *m = abuf + A_UD;
		m[0] = (uint8_t)s;
		fill(m + 1, UD_LEN - 1, 4000 + s);
		struct ibv_sge sg = { (uintptr_t)m, UD_LEN, mr->lkey };
		struct ibv_send_wr w = { .wr_id = 200 + s, .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED };
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = peer.ud_qpn;
		w.wr.ud.remote_qkey = 0x11111111;
		t_post_send(ud, &w);
		CHECK(t_poll(cq, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS, "UD send %u: status %d", s, wc[0].status);
	}
	rep->ud_sent = N_UD;
	/* UD at the port MTU: the largest message fits one packet, one byte more is a local length error */
	uint32_t mtu = 128u << t_port.active_mtu;
	struct ibv_sge sg = { (uintptr_t)abuf + A_SEND, mtu, mr->lkey };
	struct ibv_send_wr w = { .wr_id = 300, .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED };
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = 0xfffffe; /* nobody: only the local side matters */
	w.wr.ud.remote_qkey = 0x11111111;
	t_post_send(ud, &w);
	CHECK(t_poll(cq, wc, 1, 5000) == 1 && wc[0].wr_id == 300 && wc[0].status == IBV_WC_SUCCESS,
	      "UD send of the port MTU (%u): status %d", mtu, wc[0].status);
	sg.length = mtu + 1;
	w.wr_id = 301;
	t_post_send(ud, &w);
	CHECK(t_poll(cq, wc, 1, 5000) == 1 && wc[0].wr_id == 301 && wc[0].status == IBV_WC_LOC_LEN_ERR,
	      "UD send of MTU + 1 (%u): status %d, expected IBV_WC_LOC_LEN_ERR", mtu + 1, wc[0].status);
	ibv_destroy_ah(ah);
}

/* Every response delayed 30 ms: READs of a QP whose max_rd_atomic is 1 go one at a time. */
static void window(void)
{
	struct ibv_wc wc[4];
	double ms[2];
	for (int attempt = 0;; attempt++) {
		for (int q = 0; q < 2; q++) {
			struct ibv_qp *qp = q ? rc2 : rc;
			uint64_t t0 = t_ms();
			for (int i = 0; i < 4; i++)
				post(qp, (uint64_t)(400 + i), IBV_WR_RDMA_READ, (uintptr_t)abuf + A_READ + (size_t)i * 64, 64,
				     peer.addr + B_READ);
			CHECK(t_poll(cq, wc, 4, 10000) == 4, "4 READs");
			ms[q] = (double)(t_ms() - t0);
			for (int i = 0; i < 4; i++)
				CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == (uint64_t)(400 + i), "READ %d", i);
		}
		printf("  4 READs with every response delayed 30 ms: max_rd_atomic 1: %.0f ms, max_rd_atomic 4: %.0f ms\n",
		       ms[0], ms[1]);
		CHECK(ms[0] >= 4 * 30, "max_rd_atomic 1 must serialize the READs: %.0f ms < 120 ms", ms[0]);
		if (ms[1] < 110 || attempt == 2)
			break;
	}
	CHECK(ms[1] < 110, "max_rd_atomic 4 must overlap the READs: %.0f ms", ms[1]);
}

/* Requests lost now and then, a local ACK timeout of 1.07 s: a loss followed by more packets must be repaired by
 * the responder's NAK-PSN sequence error within milliseconds, not by the timer. */
static void nak(void)
{
	struct ibv_wc wc[16];
	uint64_t t0 = t_ms();
	int posted = 0, done = 0;
	fill(abuf + A_SEND, 64, 5);
	while (done < 400) {
		while (posted < 400 && posted - done < 32)
			post(rc, (uint64_t)posted++, IBV_WR_RDMA_WRITE, (uintptr_t)abuf + A_SEND, 64, peer.addr + B_WRITE);
		int n = ibv_poll_cq(cq, 16, wc);
		CHECK(n >= 0, "poll");
		for (int i = 0; i < n; i++, done++)
			CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == (uint64_t)done, "WRITE %d: status %d", done,
			      wc[i].status);
	}
	uint64_t st[5], ms = t_ms() - t0;
	fault_stats(st);
	printf("  400 WRITEs, %lu requests dropped, local ACK timeout 1074 ms: %lu ms\n", (unsigned long)st[1],
	       (unsigned long)ms);
	CHECK(st[1] >= 4, "too few drops to tell NAKs from timeouts (%lu)", (unsigned long)st[1]);
	/* by timer alone every loss would cost a timeout; with NAKs only losses at the very end of a burst may */
	CHECK(ms < st[1] * 1074 / 2, "%lu ms for %lu losses: recovery waited for the timer", (unsigned long)ms,
	      (unsigned long)st[1]);
}

static int run_a(pid_t b)
{
	struct info me;
	t_xread(to_a[0], &peer, sizeof peer);
	t_open();
	cq = ibv_create_cq(t_ctx, 256, NULL, NULL, 0);
	CHECK(cq, "cq");
	mr = t_mr(A_SIZE, T_ALL_ACCESS, (void **)&abuf);
	rc = mkqp(IBV_QPT_RC, cq, cq, 1);
	rc2 = mkqp(IBV_QPT_RC, cq, cq, 1);
	uc = mkqp(IBV_QPT_UC, cq, cq, 1);
	ud = mkqp(IBV_QPT_UD, cq, cq, 1);
	t_ud_up(ud, 0x11111111);
	me = (struct info){ rc->qp_num, rc2->qp_num, uc->qp_num, ud->qp_num, mr->rkey, (uintptr_t)abuf };
	int retry = strcmp(mode, "retry") == 0, win = strcmp(mode, "window") == 0, isnak = strcmp(mode, "nak") == 0;
	/* timeout 8 (1 ms; the engine's floor is 20 ms) keeps recovery by timer quick; 14 (67 ms) when responses are
	 * delayed 30 ms on purpose */
	connect_qp(rc, peer.rc_qpn, win ? 1 : 16, retry ? 2 : 7, win ? 14 : isnak ? 18 : 8);
	connect_qp(rc2, peer.rc2_qpn, win ? 4 : 16, 7, win ? 14 : 8);
	connect_qp(uc, peer.uc_qpn, 0, 0, 0);
	t_xwrite(to_b[1], &me, sizeof me);
	char c;
	t_xread(to_a[0], &c, 1);
	struct report rep;
	memset(&rep, 0, sizeof rep);
	rep.failed_op = rep.failed_kind = -1;
	uint64_t t0 = t_ms();
	if (win) {
		window();
	} else if (isnak) {
		nak();
	} else if (retry) {
		/* every request lost: the first WR exhausts retry_cnt 2, the others are flushed */
		struct ibv_wc wc[3];
		fill(abuf + A_SEND, 64, 9);
		post(rc, 0, IBV_WR_RDMA_WRITE, (uintptr_t)abuf + A_SEND, 64, peer.addr + B_WRITE);
		post(rc, 1, IBV_WR_SEND, (uintptr_t)abuf + A_SEND, 16, 0);
		post(rc, 2, IBV_WR_RDMA_READ, (uintptr_t)abuf + A_READ, 64, peer.addr + B_READ);
		CHECK(t_poll(cq, wc, 3, 20000) == 3, "retry exhaustion must complete");
		CHECK(wc[0].wr_id == 0 && wc[0].status == IBV_WC_RETRY_EXC_ERR && wc[0].vendor_err == 0x81,
		      "first WR: status %d vendor 0x%x", wc[0].status, wc[0].vendor_err);
		CHECK(wc[1].wr_id == 1 && wc[1].status == IBV_WC_WR_FLUSH_ERR && wc[2].wr_id == 2 &&
		      wc[2].status == IBV_WC_WR_FLUSH_ERR, "the rest flushed: %d %d", wc[1].status, wc[2].status);
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qi;
		CHECK(ibv_query_qp(rc, &qa, IBV_QP_STATE, &qi) == 0 && qa.qp_state == IBV_QPS_ERR, "QP in error");
		rep.failed_op = 0;
		rep.failed_kind = 1;
		printf("  every request dropped: RETRY_EXC_ERR (vendor 0x81) after %lu ms\n", (unsigned long)(t_ms() - t0));
	} else {
		rc_mix(&rep);
		printf("  RC: %d WRs in %lu ms, %s\n", N_RC, (unsigned long)(t_ms() - t0),
		       rep.failed_op < 0 ? "all succeeded" : "retries ran out (RETRY_EXC_ERR, rest flushed)");
		uc_ud(&rep);
	}
	t_xwrite(to_b[1], &rep, sizeof rep);
	t_xread(to_a[0], &c, 1);
	uint64_t st[5];
	fault_stats(st);
	printf("  A's faults: %lu matched, %lu dropped, %lu dup, %lu reordered, %lu delayed\n", (unsigned long)st[0],
	       (unsigned long)st[1], (unsigned long)st[2], (unsigned long)st[3], (unsigned long)st[4]);
	const char *spec = getenv("MLX5EMU_FAULTS");
	if (spec && strstr(spec, "drop=") && !strstr(spec, "dir=resp"))
		CHECK(st[1] > 0, "the spec drops, but A dropped nothing");
	if (spec && strstr(spec, "dup="))
		CHECK(st[2] > 0, "the spec duplicates, but A duplicated nothing");
	int status;
	CHECK(waitpid(b, &status, 0) == b && WIFEXITED(status) && WEXITSTATUS(status) == 0, "B failed");
	CHECK(t_violations() == 0, "strict-mode violations");
	return 0;
}

static int one_run(void)
{
	CHECK(pipe(to_a) == 0 && pipe(to_b) == 0, "pipes");
	pid_t b = fork();
	CHECK(b >= 0, "fork");
	if (b == 0)
		run_b();
	return run_a(b);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "run") == 0) {
		mode = argv[2];
		return one_run();
	}
	/* the driver: one run per spec, each a fresh pair of processes that loaded the library with the spec */
	static const struct { const char *mode, *spec; } sweep[] = {
		{ "mix", "" },
		{ "mix", "drop=0.02,seed=1" },
		{ "mix", "drop=0.1,seed=2" },
		{ "mix", "dup=0.1,seed=3" },
		{ "mix", "reorder=0.1,seed=4" },
		{ "mix", "delay=0.1:5ms,seed=5" },
		{ "mix", "dir=resp,drop=0.2,seed=6" },
		{ "mix", "drop=0.05,dup=0.05,reorder=0.05,delay=0.05:30ms,seed=7" },
		{ "retry", "drop=1,dir=req" },
		{ "window", "delay=1:30ms,dir=resp" },
		{ "nak", "dir=req,drop=0.03,seed=11" },
	};
	const char *only = getenv("T_FAULTS_ONLY");
	for (size_t i = 0; i < sizeof sweep / sizeof sweep[0]; i++) {
		if (only && atoi(only) != (int)i)
			continue;
#ifdef T_FAULTS_ETH
		if (i != 0 && i != 2 && i != 7)
			continue; /* RoCE: the transport is the same; no faults, loss, and everything at once */
#endif
		printf("t_faults: [%zu] %s MLX5EMU_FAULTS=\"%s\"\n", i, sweep[i].mode, sweep[i].spec);
		fflush(stdout);
		pid_t p = fork();
		CHECK(p >= 0, "fork");
		if (p == 0) {
			setenv("MLX5EMU_FAULTS", sweep[i].spec, 1);
			execl("/proc/self/exe", argv[0], "run", sweep[i].mode, (char *)NULL);
			_exit(127);
		}
		int st;
		CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0, "run [%zu] failed (status 0x%x)", i, st);
	}
	/* a bad spec stops the program at load with a message naming the field */
	int fds[2];
	CHECK(pipe(fds) == 0, "pipe");
	pid_t p = fork();
	if (p == 0) {
		dup2(fds[1], 2);
		setenv("MLX5EMU_FAULTS", "drop=0.1,dup=2", 1);
		execl("/proc/self/exe", argv[0], "run", "mix", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char msg[512] = { 0 };
	ssize_t n = 0, r;
	while (n < (ssize_t)sizeof msg - 1 && (r = read(fds[0], msg + n, sizeof msg - 1 - (size_t)n)) > 0)
		n += r;
	int st;
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 2, "bad spec: status 0x%x", st);
	CHECK(strstr(msg, "MLX5EMU_FAULTS: field \"dup=2\": not a probability 0..1"), "bad spec message: %s", msg);
	printf("t_faults: bad spec rejected: %s", msg);
	printf("t_faults: ok\n");
	return 0;
}
