/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_clock.c - the device clock, judged through libmlx5: EX_QUERY_DEVICE's hca_core_clock and timestamp mask,
 * the core clock page (ibv_query_rt_values_ex) advancing at the stated rate, mlx5dv_get_clock_info +
 * mlx5dv_ts_to_ns against CLOCK_REALTIME, completion timestamps read through ibv_start_poll /
 * ibv_wc_read_completion_ts / ibv_wc_read_completion_wallclock_ns compared with the raw CQE bytes and with clock
 * reads around each operation, the kernel's mmap rules for the clock pages, and two processes: a UD receiver's
 * completion is stamped later than the sender's send completion (one-way latency measurable).
 *
 * Expected values come from the Linux mlx5 driver's formulas (drivers/net/ethernet/mellanox/mlx5/core/lib/clock.c:
 * shift 23, mult = clocksource_khz2mult(khz, 23), 41-bit mask, overflow period in jiffies of a HZ=250 kernel), not
 * from the emulator's code.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <rdma/mlx5-abi.h>

#include "etest.h"

#define KHZ 156250u
#define SHIFT 23u
#define MASK ((1ull << 41) - 1)

static uint32_t expect_mult(uint32_t khz) { return (uint32_t)((((uint64_t)1000000 << SHIFT) + khz / 2) / khz); }

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t raw_clock(void)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	CHECK(ibv_query_rt_values_ex(t_ctx, &v) == 0, "query_rt_values_ex");
	CHECK(v.comp_mask == IBV_VALUES_MASK_RAW_CLOCK && v.raw_clock.tv_sec == 0, "raw clock not reported");
	return (uint64_t)v.raw_clock.tv_nsec;
}

/* The timer page right after the device wrote it: read until the value changes, then take the host clock. The
 * device wrote the value from its clock just before, so (ticks, host time) are a close pair, provided the change
 * happened in a short window: the host clock was read before the previous look at the page and again after this
 * one, less than 5 us apart (otherwise this thread was descheduled in between: wait for the next change;
 * the window widens if that does not happen for seconds). */
static void fresh_sample(uint64_t *ticks, uint64_t *mono, uint64_t *real)
{
	uint64_t prev = raw_clock(), before_prev = now_ns(CLOCK_MONOTONIC), start = before_prev;
	uint64_t end = start + 10000000000ull;
	for (;;) {
		uint64_t before = now_ns(CLOCK_MONOTONIC);
		uint64_t v = raw_clock();
		uint64_t m = now_ns(CLOCK_MONOTONIC);
		uint64_t r = now_ns(CLOCK_REALTIME);
		if (v != prev) {
			/* on a heavily loaded machine this thread and the device's rarely run at the same time: accept a
			 * wider window after 1 s (50 us) and 3 s (500 us); the callers' tolerances allow for it */
			uint64_t limit = m - start < 1000000000ull ? 5000 : m - start < 3000000000ull ? 50000 : 500000;
			if (m - before_prev < limit) {
				*ticks = v;
				*mono = m;
				*real = r;
				return;
			}
			prev = v;
		}
		before_prev = before;
		CHECK(m < end, "no fresh core clock value within 10 s");
	}
}

static void check_caps(void)
{
	struct ibv_device_attr_ex ax;
	CHECK(ibv_query_device_ex(t_ctx, NULL, &ax) == 0, "query_device_ex");
	CHECK(ax.hca_core_clock == KHZ, "hca_core_clock %llu kHz", (unsigned long long)ax.hca_core_clock);
	CHECK(ax.completion_timestamp_mask == 0x7fffffffffffffffull, "timestamp mask 0x%llx",
	      (unsigned long long)ax.completion_timestamp_mask);

	struct mlx5dv_context dv;
	memset(&dv, 0, sizeof dv);
	dv.comp_mask = MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK | MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE;
	CHECK(mlx5dv_query_device(t_ctx, &dv) == 0, "mlx5dv_query_device");
	CHECK(dv.comp_mask & MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK, "no core clock page mapped");
	CHECK(dv.hca_core_clock != NULL, "core clock pointer");
	CHECK(dv.comp_mask & MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE, "no clock info page mapped");
	/* mlx5_init_overflow_period: min((2^63 - 1) / mult, mask / 3) cycles, in ns, divided by NSEC_PER_SEC / HZ */
	uint64_t cyc = (~0ull >> 1) / expect_mult(KHZ);
	if (cyc > MASK / 3)
		cyc = MASK / 3;
	uint64_t period = ((cyc * expect_mult(KHZ)) >> SHIFT) / (1000000000ull / 250);
	CHECK(dv.max_clock_info_update_nsec == period, "overflow period %llu, expected %llu",
	      (unsigned long long)dv.max_clock_info_update_nsec, (unsigned long long)period);

	/* the mapped page read directly (big-endian high and low words, as mlx5_read_clock reads them) */
	const volatile uint32_t *w = dv.hca_core_clock;
	uint64_t direct = (uint64_t)be32toh(w[0]) << 32 | be32toh(w[1]);
	uint64_t via = raw_clock();
	CHECK(via >= direct && via - direct < 156250000ull, "page read %llu vs verb %llu", (unsigned long long)direct,
	      (unsigned long long)via);

	struct mlx5dv_clock_info ci;
	CHECK(mlx5dv_get_clock_info(t_ctx, &ci) == 0, "get_clock_info");
	CHECK(ci.shift == SHIFT && ci.mult == expect_mult(KHZ) && ci.mask == MASK, "clock info shift %u mult %u mask 0x%llx",
	      ci.shift, ci.mult, (unsigned long long)ci.mask);
	CHECK(ci.last_cycles <= MASK && ci.frac < (1ull << SHIFT), "clock info cycles/frac out of range");
	printf("caps: hca_core_clock %u kHz, mult %u shift %u, max_clock_info_update %llu\n", KHZ, ci.mult, ci.shift,
	       (unsigned long long)dv.max_clock_info_update_nsec);
}

/* ibv_query_rt_values_ex advances at hca_core_clock, and the ticks are CLOCK_MONOTONIC * 2^shift / mult. The rate
 * is the median of 5 pairs of fresh samples 600 ms apart: on a loaded machine a device write can still be stale
 * now and then (its thread preempted between reading the clock and storing it). */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void check_rate(void)
{
	double med = 0;
	for (int attempt = 0; attempt < 3; attempt++) {
		uint64_t t1[5], m1[5], t2[5], m2[5], r;
		double khz[5];
		for (int i = 0; i < 5; i++)
			fresh_sample(&t1[i], &m1[i], &r);
		usleep(600000);
		for (int i = 0; i < 5; i++)
			fresh_sample(&t2[i], &m2[i], &r);
		for (int i = 0; i < 5; i++)
			khz[i] = (double)(t2[i] - t1[i]) * 1e6 / (double)(m2[i] - m1[i]);
		qsort(khz, 5, sizeof khz[0], cmp_double);
		med = khz[2];
		printf("rate: median of 5 pairs over ~600 ms = %.3f kHz (%.3f..%.3f)\n", med, khz[0], khz[4]);
		if (med > KHZ * 0.999 && med < KHZ * 1.001)
			break;
	}
	CHECK(med > KHZ * 0.999 && med < KHZ * 1.001, "clock runs at %.3f kHz, not %u", med, KHZ);

	/* what the page shows is never ahead of the host clock and, right after a device write, close behind it
	 * (best of 10: within 1 ms, allowing for the device's thread being descheduled on a loaded machine) */
	uint64_t best_lag = UINT64_MAX;
	for (int i = 0; i < 10; i++) {
		uint64_t t, m, r;
		fresh_sample(&t, &m, &r);
		uint64_t as_mono = (uint64_t)(((unsigned __int128)t * expect_mult(KHZ)) >> SHIFT);
		CHECK(as_mono <= m, "timer %llu is ahead of CLOCK_MONOTONIC (%llu > %llu ns)", (unsigned long long)t,
		      (unsigned long long)as_mono, (unsigned long long)m);
		if (m - as_mono < best_lag)
			best_lag = m - as_mono;
	}
	printf("timer vs CLOCK_MONOTONIC: best lag %llu ns\n", (unsigned long long)best_lag);
	CHECK(best_lag < 1000000, "timer lags CLOCK_MONOTONIC by %llu ns", (unsigned long long)best_lag);
}

/* mlx5dv_ts_to_ns is CLOCK_REALTIME within 1 us. Two parts, so that the load on the machine cannot blur it:
 * (1) the conversion: the device timer of a CLOCK_MONOTONIC instant (ticks = ns * 2^shift / mult, what check_rate
 *     verified the timer is) converts to the CLOCK_REALTIME read at that instant (bracketed by two monotonic reads
 *     less than 1 us apart) within 1 us, for the clock info as libmlx5 reads it;
 * (2) end to end: a fresh value of the timer page converts into the CLOCK_REALTIME bracket around its write. */
static void check_ts_to_ns(void)
{
	int64_t worst = 0;
	for (int i = 0, done = 0; done < 20; i++) {
		CHECK(i < 100000, "no tight clock bracket in 100000 tries");
		uint64_t m1 = now_ns(CLOCK_MONOTONIC), r = now_ns(CLOCK_REALTIME), m2 = now_ns(CLOCK_MONOTONIC);
		if (m2 - m1 > 1000)
			continue;
		struct mlx5dv_clock_info ci;
		CHECK(mlx5dv_get_clock_info(t_ctx, &ci) == 0, "get_clock_info");
		uint64_t ticks = (uint64_t)(((unsigned __int128)(m1 + (m2 - m1) / 2) << SHIFT) / ci.mult);
		int64_t d = (int64_t)(mlx5dv_ts_to_ns(&ci, ticks) - r);
		if (d < 0 ? -d > -worst && -d > worst : d > worst && d > -worst)
			worst = d;
		CHECK(d <= 1000 && d >= -1000, "ts_to_ns is %lld ns off CLOCK_REALTIME", (long long)d);
		/* an older timestamp goes through the other branch of mlx5dv_ts_to_ns: 1e9 ticks earlier */
		uint64_t back = ((unsigned __int128)1000000000ull * ci.mult) >> SHIFT;
		int64_t dd = (int64_t)(mlx5dv_ts_to_ns(&ci, ticks) - mlx5dv_ts_to_ns(&ci, ticks - 1000000000ull)) -
			     (int64_t)back;
		CHECK(dd >= -1 && dd <= 1, "old timestamp converts %lld ns off", (long long)dd);
		done++;
	}
	printf("ts_to_ns: worst |ts_to_ns(ticks of now) - CLOCK_REALTIME| over 20 instants = %lld ns\n",
	       (long long)(worst < 0 ? -worst : worst));

	for (int i = 0; i < 20; i++) {
		uint64_t t, m, r;
		uint64_t rb = now_ns(CLOCK_REALTIME);
		fresh_sample(&t, &m, &r);
		struct mlx5dv_clock_info ci;
		CHECK(mlx5dv_get_clock_info(t_ctx, &ci) == 0, "get_clock_info");
		uint64_t ns = mlx5dv_ts_to_ns(&ci, t);
		CHECK(ns + 1000 >= rb && ns <= r + 1000, "fresh timer value converts to %llu, outside [%llu, %llu]",
		      (unsigned long long)ns, (unsigned long long)rb, (unsigned long long)r);
	}
}

/* The kernel's rules for mapping the clock pages (Linux mlx5_ib_mmap / mlx5_ib_mmap_clock_info_page). */
static void check_mmap_rules(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = t_ctx->cmd_fd;
	off_t core = (off_t)(MLX5_IB_MMAP_CORE_CLOCK << 8) * pg, info = (off_t)(MLX5_IB_MMAP_CLOCK_INFO << 8) * pg;
	errno = 0;
	CHECK(mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, core) == MAP_FAILED && errno == EPERM,
	      "writable core clock: %s", strerror(errno));
	CHECK(mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED, fd, core) == MAP_FAILED && errno == EINVAL,
	      "2-page core clock: %s", strerror(errno));
	CHECK(mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, info + pg) == MAP_FAILED && errno == EOPNOTSUPP,
	      "clock info version 1: %s", strerror(errno));
	CHECK(mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, info) == MAP_FAILED && errno == EPERM,
	      "writable clock info: %s", strerror(errno));
	CHECK(mmap(NULL, pg, PROT_READ | PROT_EXEC, MAP_SHARED, fd, info) == MAP_FAILED && errno == EPERM,
	      "executable clock info: %s", strerror(errno));
	/* VM_MAYWRITE is cleared: a read-only mapping cannot be made writable later */
	void *p = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, core);
	CHECK(p != MAP_FAILED, "core clock page: %s", strerror(errno));
	CHECK(mprotect(p, pg, PROT_READ | PROT_WRITE) != 0, "core clock page became writable");
	munmap(p, pg);
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, info);
	CHECK(p != MAP_FAILED, "clock info page: %s", strerror(errno));
	const struct mlx5_ib_clock_info *ci = p;
	CHECK(ci->shift == SHIFT && ci->mask == MASK && !(ci->sign & MLX5_IB_CLOCK_INFO_KERNEL_UPDATING),
	      "clock info page content");
	CHECK(mprotect(p, pg, PROT_READ | PROT_WRITE) != 0, "clock info page became writable");
	munmap(p, pg);
}

/* libibverbs sends a CQ with only the timestamp flag through the legacy CREATE_CQ (libmlx5 passes
 * CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX); with IGNORE_OVERRUN too it needs EX_CREATE_CQ with both flags. */
static struct ibv_cq_ex *ts_cq_flags(uint64_t extra, uint32_t create_flags)
{
	struct ibv_cq_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.cqe = 256;
	a.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | extra;
	if (create_flags) {
		a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
		a.flags = create_flags;
	}
	struct ibv_cq_ex *cq = ibv_create_cq_ex(t_ctx, &a);
	CHECK(cq, "create_cq_ex with completion timestamps: %s", strerror(errno));
	return cq;
}

static struct ibv_cq_ex *ts_cq(uint64_t extra) { return ts_cq_flags(extra, 0); }

struct polled {
	uint64_t ts, wall;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint64_t raw_ts;
};

/* One completion through the extended poll API; its raw CQE (index idx of the ring) is read too. */
static void poll_one(struct ibv_cq_ex *cq, int wallclock, uint32_t idx, struct polled *o)
{
	struct ibv_poll_cq_attr pa = { 0 };
	uint64_t end = t_ms() + 5000;
	int r;
	while ((r = ibv_start_poll(cq, &pa)) == ENOENT)
		CHECK(t_ms() < end, "no completion within 5 s");
	CHECK(r == 0, "start_poll %d", r);
	o->status = cq->status;
	o->opcode = ibv_wc_read_opcode(cq);
	o->ts = ibv_wc_read_completion_ts(cq);
	o->wall = wallclock ? ibv_wc_read_completion_wallclock_ns(cq) : 0;
	ibv_end_poll(cq);
	struct t_rawcq raw;
	t_rawcq(ibv_cq_ex_to_cq(cq), &raw);
	o->raw_ts = be64toh(t_cqe64(&raw, idx)->timestamp);
}

/* RC in one process: for every SEND, clock before post <= receive stamp <= send stamp (the send completes on the
 * ACK) <= clock after poll; stamps increase per CQ; the raw CQE holds what the verbs return; the wall-clock
 * reading lies between CLOCK_REALTIME before the post and after the poll. */
static void check_rc_completions(void)
{
	struct ibv_cq_ex *scq = ts_cq(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	struct ibv_cq_ex *rcq = ts_cq_flags(0, IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN);
	struct ibv_qp *a = t_qp(IBV_QPT_RC, ibv_cq_ex_to_cq(scq), ibv_cq_ex_to_cq(scq), NULL, 1);
	struct ibv_qp *b = t_qp(IBV_QPT_RC, ibv_cq_ex_to_cq(rcq), ibv_cq_ex_to_cq(rcq), NULL, 1);
	t_connect(a, b->qp_num, &t_default_conn, 1);
	t_connect(b, a->qp_num, &t_default_conn, 1);
	void *buf;
	struct ibv_mr *mr = t_mr(8192, T_ALL_ACCESS, &buf);
	uint64_t prev_s = 0, prev_r = 0, max_span = 0;
	for (uint32_t i = 0; i < 64; i++) {
		t_post_recv(b, i, (uint8_t *)buf + 4096, 256, mr->lkey);
		uint64_t t0 = raw_clock(), r0 = now_ns(CLOCK_REALTIME);
		struct ibv_sge sge = { (uintptr_t)buf, 16 + i, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		t_post_send(a, &wr);
		struct polled s, r;
		poll_one(scq, 1, i, &s);
		poll_one(rcq, 0, i, &r);
		uint64_t t1 = raw_clock(), r1 = now_ns(CLOCK_REALTIME);
		CHECK(s.status == IBV_WC_SUCCESS && s.opcode == IBV_WC_SEND, "send %u status %d", i, s.status);
		CHECK(r.status == IBV_WC_SUCCESS && r.opcode == IBV_WC_RECV, "recv %u status %d", i, r.status);
		CHECK(s.raw_ts == s.ts && r.raw_ts == r.ts, "CQE bytes %llx/%llx, verbs %llx/%llx",
		      (unsigned long long)s.raw_ts, (unsigned long long)r.raw_ts, (unsigned long long)s.ts,
		      (unsigned long long)r.ts);
		CHECK(t0 <= r.ts && r.ts <= s.ts && s.ts <= t1, "msg %u: before %llu recv %llu send %llu after %llu", i,
		      (unsigned long long)t0, (unsigned long long)r.ts, (unsigned long long)s.ts,
		      (unsigned long long)t1);
		CHECK(s.ts > prev_s && r.ts > prev_r, "stamps not increasing per CQ");
		CHECK(s.wall + 100 >= r0 && s.wall <= r1 + 100, "wall clock %llu not in [%llu, %llu]",
		      (unsigned long long)s.wall, (unsigned long long)r0, (unsigned long long)r1);
		prev_s = s.ts;
		prev_r = r.ts;
		if (t1 - t0 > max_span)
			max_span = t1 - t0;
		if (i % 8 == 7)
			usleep(1000); /* let the engine go idle: the timer page must still bracket the stamps */
	}
	printf("rc: 64 SENDs stamped inside their clock brackets (widest bracket %llu ticks)\n",
	       (unsigned long long)max_span);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_cq(ibv_cq_ex_to_cq(scq));
	ibv_destroy_cq(ibv_cq_ex_to_cq(rcq));
	ibv_dereg_mr(mr);
	free(buf);
}

/* A legacy CQ (ibv_create_cq) gets timestamps too: every CQE the device writes carries one. */
static void check_legacy_cq(void)
{
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 16, NULL, NULL, 0);
	CHECK(cq, "create_cq");
	struct ibv_qp *a = t_qp(IBV_QPT_RC, cq, cq, NULL, 1), *b = t_qp(IBV_QPT_RC, cq, cq, NULL, 1);
	t_connect(a, b->qp_num, &t_default_conn, 1);
	t_connect(b, a->qp_num, &t_default_conn, 1);
	void *buf;
	struct ibv_mr *mr = t_mr(4096, T_ALL_ACCESS, &buf);
	t_post_recv(b, 1, (uint8_t *)buf + 2048, 64, mr->lkey);
	uint64_t t0 = raw_clock();
	struct ibv_sge sge = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	t_post_send(a, &wr);
	struct ibv_wc wc[2];
	CHECK(t_poll(cq, wc, 2, 5000) == 2, "two completions");
	uint64_t t1 = raw_clock();
	struct t_rawcq raw;
	t_rawcq(cq, &raw);
	for (uint32_t i = 0; i < 2; i++) {
		uint64_t ts = be64toh(t_cqe64(&raw, i)->timestamp);
		CHECK(t0 <= ts && ts <= t1, "legacy CQE %u stamp %llu outside [%llu, %llu]", i, (unsigned long long)ts,
		      (unsigned long long)t0, (unsigned long long)t1);
	}
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	free(buf);
}

/* RoCE ports: raw packet QPs. A frame sent to a steered MAC loops back through the NIC's switch; the send
 * completion is stamped when the frame left, the receive when it arrived, both inside the clock bracket. */
static struct ibv_qp *raw_qp(struct ibv_cq_ex *cq)
{
	struct ibv_qp_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.send_cq = a.recv_cq = ibv_cq_ex_to_cq(cq);
	a.cap.max_send_wr = a.cap.max_recv_wr = 32;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	a.pd = t_pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	struct ibv_qp *qp = ibv_create_qp_ex(t_ctx, &a);
	CHECK(qp, "create raw packet QP: %s", strerror(errno));
	struct ibv_qp_attr at;
	memset(&at, 0, sizeof at);
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	CHECK(ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PORT) == 0, "raw INIT");
	at.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(qp, &at, IBV_QP_STATE) == 0, "raw RTR");
	at.qp_state = IBV_QPS_RTS;
	CHECK(ibv_modify_qp(qp, &at, IBV_QP_STATE) == 0, "raw RTS");
	return qp;
}

static void check_raw_completions(void)
{
	static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0x0c, 0x1c };
	struct ibv_cq_ex *scq = ts_cq(0), *rcq = ts_cq(0);
	struct ibv_qp *tx = raw_qp(scq), *rx = raw_qp(rcq);
	struct eth_flow {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth; /* the spec follows the attribute directly, as ibv_create_flow reads it */
	} f;
	_Static_assert(offsetof(struct eth_flow, eth) == sizeof(struct ibv_flow_attr), "flow spec layout");
	memset(&f, 0, sizeof f);
	f.attr.type = IBV_FLOW_ATTR_NORMAL;
	f.attr.size = sizeof f.attr + sizeof f.eth;
	f.attr.num_of_specs = 1;
	f.attr.port = 1;
	f.eth.type = IBV_FLOW_SPEC_ETH;
	f.eth.size = sizeof f.eth;
	memcpy(f.eth.val.dst_mac, dmac, 6);
	memset(f.eth.mask.dst_mac, 0xff, 6);
	struct ibv_flow *fl = ibv_create_flow(rx, &f.attr);
	CHECK(fl, "create_flow: %s", strerror(errno));
	void *buf;
	struct ibv_mr *mr = t_mr(32 * 2048 + 4096, IBV_ACCESS_LOCAL_WRITE, &buf);
	uint8_t *frame = (uint8_t *)buf + 32 * 2048;
	memcpy(frame, dmac, 6);
	memcpy(frame + 6, (const uint8_t[6]){ 0x02, 0, 0, 0, 0x0c, 0x5e }, 6);
	frame[12] = 0x88; /* ethertype 0x88b5: IEEE local experimental */
	frame[13] = 0xb5;
	for (uint32_t i = 0; i < 16; i++)
		t_post_recv(rx, i, (uint8_t *)buf + i * 2048, 2048, mr->lkey);
	uint64_t prev_s = 0, prev_r = 0;
	for (uint32_t i = 0; i < 16; i++) {
		uint64_t t0 = raw_clock();
		struct ibv_sge sge = { (uintptr_t)frame, 64 + i, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		t_post_send(tx, &wr);
		struct polled s, r;
		poll_one(scq, 0, i, &s);
		poll_one(rcq, 0, i, &r);
		uint64_t t1 = raw_clock();
		CHECK(s.status == IBV_WC_SUCCESS && r.status == IBV_WC_SUCCESS && r.opcode == IBV_WC_RECV,
		      "raw frame %u: status %d/%d", i, s.status, r.status);
		CHECK(s.raw_ts == s.ts && r.raw_ts == r.ts, "raw CQE bytes differ from the verbs");
		CHECK(t0 <= s.ts && s.ts <= r.ts && r.ts <= t1, "raw frame %u: before %llu sent %llu received %llu after %llu",
		      i, (unsigned long long)t0, (unsigned long long)s.ts, (unsigned long long)r.ts,
		      (unsigned long long)t1);
		CHECK(s.ts > prev_s && r.ts > prev_r, "raw stamps not increasing per CQ");
		prev_s = s.ts;
		prev_r = r.ts;
	}
	printf("raw: 16 looped-back frames, send stamp <= receive stamp, both inside the clock bracket\n");
	CHECK(ibv_destroy_flow(fl) == 0, "destroy_flow");
	ibv_destroy_qp(tx);
	ibv_destroy_qp(rx);
	ibv_destroy_cq(ibv_cq_ex_to_cq(scq));
	ibv_destroy_cq(ibv_cq_ex_to_cq(rcq));
	ibv_dereg_mr(mr);
	free(buf);
}

/* ---- two processes: UD sender (parent) and receiver (child) ---- */

#define UD_MSGS 32
#define UD_QKEY 0x11111111u

static void must_write(int fd, const void *p, size_t n) { CHECK(write(fd, p, n) == (ssize_t)n, "pipe write"); }
static void must_read(int fd, void *p, size_t n) { CHECK(read(fd, p, n) == (ssize_t)n, "pipe read"); }

static int ud_receiver(int rfd, int wfd)
{
	t_open();
	struct ibv_cq_ex *cq = ts_cq(0);
	struct ibv_qp *qp = t_qp(IBV_QPT_UD, ibv_cq_ex_to_cq(cq), ibv_cq_ex_to_cq(cq), NULL, 1);
	t_ud_up(qp, UD_QKEY);
	void *buf;
	struct ibv_mr *mr = t_mr(UD_MSGS * 256, IBV_ACCESS_LOCAL_WRITE, &buf);
	for (uint32_t i = 0; i < UD_MSGS; i++)
		t_post_recv(qp, i, (uint8_t *)buf + i * 256, 256, mr->lkey);
	must_write(wfd, &qp->qp_num, sizeof qp->qp_num);
	uint64_t prev = 0;
	for (uint32_t i = 0; i < UD_MSGS; i++) {
		struct polled r;
		poll_one(cq, 0, i, &r);
		CHECK(r.status == IBV_WC_SUCCESS && r.opcode == IBV_WC_RECV, "ud recv %u status %d", i, r.status);
		CHECK(r.raw_ts == r.ts && r.ts > prev, "ud recv stamps");
		prev = r.ts;
		must_write(wfd, &r.ts, sizeof r.ts);
	}
	char done;
	must_read(rfd, &done, 1);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	ibv_dereg_mr(mr);
	free(buf);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	return 0;
}

static void check_two_processes(void)
{
	int p2c[2], c2p[2];
	CHECK(pipe(p2c) == 0 && pipe(c2p) == 0, "pipes");
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		_exit(ud_receiver(p2c[0], c2p[1]));
	}
	close(p2c[0]);
	close(c2p[1]);
	t_open();
	struct ibv_cq_ex *cq = ts_cq(0);
	struct ibv_qp *qp = t_qp(IBV_QPT_UD, ibv_cq_ex_to_cq(cq), ibv_cq_ex_to_cq(cq), NULL, 1);
	t_ud_up(qp, UD_QKEY);
	void *buf;
	struct ibv_mr *mr = t_mr(4096, IBV_ACCESS_LOCAL_WRITE, &buf);
	uint32_t dqpn;
	must_read(c2p[0], &dqpn, sizeof dqpn);
	struct ibv_ah_attr aa;
	t_ah_attr(&aa);
	struct ibv_ah *ah = ibv_create_ah(t_pd, &aa);
	CHECK(ah, "create_ah");
	struct mlx5dv_clock_info ci;
	uint64_t min_ns = UINT64_MAX, max_ns = 0;
	for (uint32_t i = 0; i < UD_MSGS; i++) {
		struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = dqpn;
		wr.wr.ud.remote_qkey = UD_QKEY;
		t_post_send(qp, &wr);
		struct polled s;
		poll_one(cq, 0, i, &s);
		CHECK(s.status == IBV_WC_SUCCESS && s.raw_ts == s.ts, "ud send %u", i);
		uint64_t rts;
		must_read(c2p[0], &rts, sizeof rts);
		CHECK(rts > s.ts, "message %u: receiver stamp %llu not after the send completion %llu", i,
		      (unsigned long long)rts, (unsigned long long)s.ts);
		CHECK(mlx5dv_get_clock_info(t_ctx, &ci) == 0, "clock info");
		uint64_t ns = mlx5dv_ts_to_ns(&ci, rts) - mlx5dv_ts_to_ns(&ci, s.ts);
		CHECK(ns < 1000000000ull, "one-way latency %llu ns", (unsigned long long)ns);
		if (ns < min_ns)
			min_ns = ns;
		if (ns > max_ns)
			max_ns = ns;
		if (i % 4 == 3)
			usleep(2000);
	}
	printf("two processes: %d UD messages, one-way latency from CQE timestamps %.1f..%.1f us\n", UD_MSGS,
	       (double)min_ns / 1e3, (double)max_ns / 1e3);
	must_write(p2c[1], "x", 1);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "receiver failed");
	ibv_destroy_ah(ah);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	ibv_dereg_mr(mr);
	free(buf);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the receiver forks before this process opens the device, as t_load does */
	check_two_processes();
	check_caps();
	check_mmap_rules();
	check_rate();
	check_ts_to_ns();
	check_rc_completions();
	check_legacy_cq();
	if (t_port.link_layer == IBV_LINK_LAYER_ETHERNET)
		check_raw_completions();
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("t_clock: ok\n");
	return 0;
}
