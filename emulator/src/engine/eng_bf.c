/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_bf.c - the strict check that a BlueFlame copy equals the WQE the driver wrote to the send ring.
 *
 * A ConnectX takes a WQE from the BlueFlame buffer only when the whole write-combined chunk arrived, and fetches
 * it from the ring otherwise, so the driver must write the same bytes to both (rdma-core providers/mlx5/qp.c
 * writes the ring, then copies the WQE with mlx5_bf_copy). The engine always executes from the ring and checks
 * that the copy agrees, as a validator of the program's doorbell code.
 *
 * What the copy is compared with, and when, must not depend on timing:
 *  - The reference is the shadow: the ring's bytes copied when the engine took the doorbell record that covers
 *    the WQE, before it executes it, so the program cannot have rewritten them (it may reuse a slot only after
 *    the WQE's completion). With doorbells through write faults the engine executes a WQE when the doorbell
 *    store faults, before that store and the rest of the copy land; by the time the copy is checked, the WQE
 *    may be complete and its slot reused, so the ring itself is no reference then.
 *  - The check never waits for the copy while holding G.lock: a copy whose remaining stores fault (the engine
 *    protected the page meanwhile) can only land after the fault thread took G.lock. Pending checks are decided
 *    by later passes: the copy matched (done), the half's next doorbell word arrived (the copy under check has
 *    landed by then, since x86 stores become visible in program order and one writer owns a register at a
 *    time, but the next copy may already be landing over it: not decidable, dropped), or after ENG_BF_SETTLE_NS
 *    the half still holds what it held before this doorbell (seen: a plain 8-byte doorbell, no copy) or
 *    something else (a wrong copy, reported).
 */
#include <string.h>
#include <time.h>

#include "engine/eng_bf.h"
#include "engine/eng_internal.h"

/* A writer may be descheduled in the middle of its copy for a long time on a loaded machine (a JVM safepoint
 * does the same); hardware never sees that, so only a difference that persists this long counts. */
#define ENG_BF_SETTLE_NS (500ull * 1000 * 1000)

/* A clock for that deadline only: the coarse clock (a few ms resolution) costs a few ns instead of a full read,
 * and a pending check is looked at in every engine pass. */
static uint64_t coarse_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void eng_bf_shadow(struct eng_qp *qp, uint32_t from, uint32_t to)
{
	if (!qp->sq_shadow)
		return;
	uint32_t mask = qp->sq_cnt - 1;
	for (uint32_t i = from; (i & 0xffff) != (to & 0xffff); i++)
		memcpy(qp->sq_shadow + (size_t)(i & mask) * ENG_WQE_BB, qp->sq + (size_t)(i & mask) * ENG_WQE_BB,
		       ENG_WQE_BB);
}

/* Whether bytes 8..len of the half equal ref (bytes 0..7, the doorbell word, are taken by exchange). */
static int half_equals(volatile const uint8_t *half, const uint8_t *ref, uint32_t len)
{
	for (uint32_t o = 8; o < len; o++)
		if (half[o] != ref[o])
			return 0;
	return 1;
}

/*
 * seen is what the half holds as long as no further copy is written: after a copy matched, that copy (every byte
 * a copy writes was compared, whole WQEBBs, so its stores still landing cannot change the half); after a plain
 * doorbell, what it held before. It is never read back from a half that a next copy may be landing on.
 */
static void matched(struct eng_bf_check *c)
{
	c->deadline = 0;
	memcpy(c->seen + 8, c->ref + 8, c->len - 8);
}

void eng_bf_check_start(struct eng_bf_check *c, struct eng_qp *qp, volatile const uint8_t *half, uint32_t idx,
			uint32_t ds)
{
	c->deadline = 0;
	if (!qp->sq_shadow || !qp->sq_cnt)
		return;
	uint32_t bbs = eng_wqe_bbs(ds), end = (idx + bbs) & 0xffff;
	/* The shadow holds the last sq_cnt WQEBBs taken; a doorbell for anything else (beyond the record, already
	 * reported, or overwritten since) has no reference. */
	uint32_t behind = (qp->sq_pi - end) & 0xffff;
	if (bbs > qp->sq_cnt || behind > qp->sq_cnt - bbs)
		return;
	/* The driver copies whole 64-byte blocks of the ring (mlx5_bf_copy; mlx5j's BlueFlameRegister.copy). */
	uint32_t len = bbs * ENG_WQE_BB < ENG_BF_HALF_SIZE ? bbs * ENG_WQE_BB : ENG_BF_HALF_SIZE;
	size_t ring = (size_t)qp->sq_cnt * ENG_WQE_BB, start = (size_t)(idx & (qp->sq_cnt - 1)) * ENG_WQE_BB;
	for (uint32_t o = 0; o < len; o++)
		c->ref[o] = qp->sq_shadow[(start + o) & (ring - 1)];
	c->qpn = qp->qpn, c->idx = idx, c->ds = ds, c->len = len;
	if (half_equals(half, c->ref, len)) {
		matched(c); /* the copy is complete already: the common case */
		return;
	}
	c->deadline = coarse_ns() + ENG_BF_SETTLE_NS;
}

void eng_bf_check_poll(struct eng_bf_check *c, volatile const uint8_t *half, int superseded)
{
	if (!c->deadline)
		return;
	if (half_equals(half, c->ref, c->len)) {
		matched(c);
		return;
	}
	if (superseded) {
		c->deadline = 0; /* a plain doorbell (seen stays true), or a wrong copy that the next check will see */
		return;
	}
	if (coarse_ns() < c->deadline)
		return;
	c->deadline = 0;
	if (half_equals(half, c->seen, c->len))
		return; /* nothing was written after the doorbell word: a plain 8-byte doorbell */
	uint32_t diff = 8;
	while (diff < c->len && half[diff] == c->ref[diff])
		diff++;
	eng_strict(c->qpn, c->idx, "BlueFlame copy differs from the WQE in the send ring (ds %u, first difference at "
		   "byte %u: copy 0x%02x, ring 0x%02x, half before the doorbell 0x%02x)", c->ds, diff, half[diff],
		   c->ref[diff], c->seen[diff]);
	for (uint32_t o = 8; o < c->len; o++)
		c->seen[o] = half[o]; /* the wrong copy is complete: it has not changed for ENG_BF_SETTLE_NS */
}
