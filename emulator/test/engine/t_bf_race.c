/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BlueFlame copies checked while doorbells arrive through write faults (MLX5EMU_DOORBELL_FAULT=1, strict mode).
 *
 * With write-fault doorbells the engine executes a WQE when its doorbell store faults, before the store and the
 * rest of the BlueFlame copy land; the WQE may even be completed, and its ring slot reused, by then. The strict
 * check of the copy (the copy must equal the WQE the driver wrote to the ring) must therefore neither compare
 * against a ring slot the program may have rewritten nor wait for stores that can only land once the engine
 * lets the fault handler run. Each post here is written as mlx5j's Java side writes it: the 8-byte doorbell word
 * first, then the other 8-byte words in ascending order (doorbell/BlueFlameRegister.java).
 *
 * Part 1 (deterministic): a copy that lands 5 ms after its doorbell word (the writer was descheduled; its data
 * stores fault on the page the engine protected meanwhile), then the ring slot of that WQE reused, then a plain
 * 8-byte doorbell on the same half. Nothing the program did is wrong, so no strict report may follow.
 * Part 2 (stress): two threads post NOPs through BlueFlame halves of their own QPs, with random pauses between
 * the stores of a copy and some plain doorbells in between, while the engine protects and opens the pages.
 * Every WQE must complete once, in order, and no strict report may follow.
 * Part 3: a copy that really differs from the ring, written the same way, is still reported, exactly once.
 */
#include <pthread.h>
#include <sched.h>

#include "etest.h"

struct raw {
	struct ibv_qp *qp, *peer;
	struct ibv_cq *cq, *peer_cq;
	uint8_t *sq;
	uint32_t cnt, pi;
	volatile uint32_t *dbrec;
	uint8_t *bf;
	uint32_t bf_size;
	pthread_mutex_t *bf_lock; /* QPs sharing a BlueFlame register must not interleave their copies */
};

static pthread_mutex_t bf_locks[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static uint8_t *bf_owner;

static void raw_make(struct raw *r, uint32_t max_send_wr)
{
	memset(r, 0, sizeof *r);
	r->cq = ibv_create_cq(t_ctx, 256, NULL, NULL, 0);
	r->peer_cq = ibv_create_cq(t_ctx, 16, NULL, NULL, 0);
	CHECK(r->cq && r->peer_cq, "cq");
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof a);
	a.send_cq = a.recv_cq = r->cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = max_send_wr;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	r->qp = ibv_create_qp(t_pd, &a);
	a.send_cq = a.recv_cq = r->peer_cq;
	r->peer = ibv_create_qp(t_pd, &a);
	CHECK(r->qp && r->peer, "create_qp");
	t_connect(r->qp, r->peer->qp_num, &t_default_conn, 1);
	t_connect(r->peer, r->qp->qp_num, &t_default_conn, 1);
	struct mlx5dv_qp dv;
	struct mlx5dv_obj o;
	memset(&o, 0, sizeof o);
	o.qp.in = r->qp;
	o.qp.out = &dv;
	CHECK(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP) == 0, "init_obj");
	CHECK(dv.bf.size >= 64, "no BlueFlame buffer (bf.size %u)", dv.bf.size);
	r->sq = dv.sq.buf;
	r->cnt = dv.sq.wqe_cnt;
	r->dbrec = dv.dbrec;
	r->bf = dv.bf.reg;
	r->bf_size = dv.bf.size;
	if (!bf_owner)
		bf_owner = r->bf;
	r->bf_lock = &bf_locks[r->bf == bf_owner ? 0 : 1];
}

static void raw_free(struct raw *r)
{
	CHECK(ibv_destroy_qp(r->qp) == 0 && ibv_destroy_qp(r->peer) == 0, "destroy_qp");
	CHECK(ibv_destroy_cq(r->cq) == 0 && ibv_destroy_cq(r->peer_cq) == 0, "destroy_cq");
}

/* A signaled NOP of one WQEBB (ds 4) whose bytes 16..63 all hold fill: what the copy must reproduce. */
static void nop(const struct raw *r, uint8_t w[64], uint16_t idx, uint8_t fill)
{
	memset(w, fill, 64);
	*(uint32_t *)(void *)w = htobe32((uint32_t)idx << 8 | MLX5_OPCODE_NOP);
	*(uint32_t *)(void *)(w + 4) = htobe32(r->qp->qp_num << 8 | 4);
	memset(w + 8, 0, 8);
	w[11] = MLX5_WQE_CTRL_CQ_UPDATE;
}

/* Write the WQE to the ring slot of r->pi and advance the doorbell record (what the driver does before the
 * doorbell store). */
static void ring_write(struct raw *r, const uint8_t w[64])
{
	memcpy(r->sq + (size_t)(r->pi & (r->cnt - 1)) * 64, w, 64);
	r->pi++;
	udma_to_device_barrier(); /* else the engine could read the WQE before its bytes */
	r->dbrec[MLX5_SND_DBR] = htobe32(r->pi & 0xffff);
	mmio_wc_start(); /* else a doorbell stored next could reach the engine before the record */
}

/* One 8-byte store, as a BlueFlame copy's: atomic so the compiler neither splits nor merges it; relaxed, since the
 * order among the copy's stores is exactly what the races here vary. */
static void store8(struct raw *r, uint32_t half, const uint8_t w[64], int word)
{
	__atomic_store_n((uint64_t *)(void *)(r->bf + half * r->bf_size + (size_t)word * 8),
			 *(const uint64_t *)(const void *)(w + word * 8), __ATOMIC_RELAXED);
}

static void expect_nop(struct raw *r, uint16_t idx)
{
	struct ibv_wc wc;
	CHECK(t_poll(r->cq, &wc, 1, 10000) == 1, "NOP %u did not complete", idx);
	CHECK(wc.status == IBV_WC_SUCCESS, "NOP %u status %d", idx, wc.status);
}

static void part1(void)
{
	struct raw r;
	raw_make(&r, 1);
	uint8_t w[64];
	unsigned long v = t_violations();

	/* WQE 0 on half 0: the doorbell word, then nothing for 5 ms (the engine executes the NOP, takes the word
	 * and, going idle, protects the page again), then the rest of the copy, whose stores now fault. */
	nop(&r, w, 0, 0xa0);
	ring_write(&r, w);
	store8(&r, 0, w, 0);
	usleep(5000);
	for (int k = 1; k < 8; k++)
		store8(&r, 0, w, k);
	expect_nop(&r, 0);
	/* WQEs 1..cnt-1 through half 1 with whole copies; the last one leaves WQE 0's slot free for reuse. */
	for (uint32_t i = 1; i < r.cnt; i++) {
		nop(&r, w, (uint16_t)i, (uint8_t)(0xa0 + i));
		ring_write(&r, w);
		for (int k = 0; k < 8; k++)
			store8(&r, 1, w, k);
		expect_nop(&r, (uint16_t)i);
	}
	/* WQE cnt reuses slot 0 with other bytes and rings half 0 with a plain 8-byte doorbell: half 0 still holds
	 * WQE 0's (correct, late) copy, which must not be taken for a wrong copy of this WQE. */
	nop(&r, w, (uint16_t)r.cnt, 0x5c);
	ring_write(&r, w);
	store8(&r, 0, w, 0);
	expect_nop(&r, (uint16_t)r.cnt);
	usleep(700 * 1000); /* longer than the engine waits for a copy to settle */
	CHECK(t_violations() == v, "%lu strict reports for a late BlueFlame copy and a reused slot", t_violations() - v);
	raw_free(&r);
}

#define STRESS_MS 1500

struct stress {
	struct raw r;
	unsigned seed;
	unsigned long posts, plain;
};

static void pause_some(unsigned *seed)
{
	unsigned x = (unsigned)rand_r(seed) % 16;
	if (x == 0)
		sched_yield();
	else if (x == 1)
		usleep((useconds_t)(rand_r(seed) % 300));
	else if (x < 5)
		for (unsigned i = (unsigned)rand_r(seed) % 2000; i; i--)
			__builtin_ia32_pause();
}

static void *stress_thread(void *arg)
{
	struct stress *s = arg;
	struct raw *r = &s->r;
	uint8_t w[64];
	uint64_t end = t_ms() + STRESS_MS;
	for (uint32_t half = 0; t_ms() < end; half ^= 1) {
		uint16_t idx = (uint16_t)r->pi;
		nop(r, w, idx, (uint8_t)rand_r(&s->seed));
		pthread_mutex_lock(r->bf_lock);
		ring_write(r, w);
		store8(r, half, w, 0);
		if (rand_r(&s->seed) % 8 == 0) {
			s->plain++;
		} else {
			for (int k = 1; k < 8; k++) {
				if (rand_r(&s->seed) % 4 == 0)
					pause_some(&s->seed);
				store8(r, half, w, k);
			}
		}
		pthread_mutex_unlock(r->bf_lock);
		s->posts++;
		expect_nop(r, idx);
		if (rand_r(&s->seed) % 8 == 0)
			usleep(2000); /* let the engine go idle: the page is protected and the next doorbell faults */
	}
	return NULL;
}

static void part2(void)
{
	struct stress s[2];
	pthread_t t[2];
	unsigned long v = t_violations();
	for (int i = 0; i < 2; i++) {
		raw_make(&s[i].r, 2);
		s[i].seed = 12345u + (unsigned)i;
		s[i].posts = s[i].plain = 0;
	}
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, stress_thread, &s[i]) == 0, "thread");
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	usleep(700 * 1000);
	CHECK(t_violations() == v, "%lu strict reports under stress", t_violations() - v);
	for (int i = 0; i < 2; i++) {
		printf("thread %d: %lu NOPs, %lu with plain doorbells\n", i, s[i].posts, s[i].plain);
		raw_free(&s[i].r);
	}
}

static void part3(void)
{
	struct raw r;
	raw_make(&r, 1);
	uint8_t w[64];
	unsigned long v = t_violations();
	nop(&r, w, 0, 0x33);
	ring_write(&r, w);
	w[45] ^= 0xff; /* the copy disagrees with the ring in one byte */
	for (int k = 0; k < 8; k++)
		store8(&r, 0, w, k);
	expect_nop(&r, 0);
	for (int i = 0; i < 5000 && t_violations() == v; i++)
		usleep(1000);
	usleep(700 * 1000);
	CHECK(t_violations() == v + 1, "%lu strict reports for one wrong BlueFlame copy", t_violations() - v);
	raw_free(&r);
}

int main(void)
{
	setenv("MLX5EMU_DOORBELL_FAULT", "1", 1); /* read when the engine starts (at the first device open) */
	t_open();
	unsigned long (*faults)(void) = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "mlx5emu_doorbell_faults");
	CHECK(faults, "mlx5emu_doorbell_faults not found");
	part1();
	CHECK(faults() > 0, "no doorbell arrived through a write fault");
	part2();
	part3();
	printf("t_bf_race: ok (%lu doorbells through faults)\n", faults());
	return 0;
}
