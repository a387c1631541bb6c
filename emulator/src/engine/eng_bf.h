/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_bf.h - the strict check that a BlueFlame copy equals the WQE the driver wrote to the send ring.
 *
 * The reference is a copy of the ring taken when the engine takes a doorbell record (the shadow, eng_bf.c), not
 * the ring itself: with doorbells through write faults the engine executes, and may complete, a WQE before its
 * BlueFlame copy has landed, and the program may then reuse the slot. A check never waits: it is decided by later
 * engine passes (a writer whose remaining stores fault needs G.lock to finish its copy).
 */
#ifndef MLX5EMU_ENG_BF_H
#define MLX5EMU_ENG_BF_H

#include <stdint.h>

#include "emu_objects.h"

struct eng_qp;

/* BlueFlame halves in one UAR page: 256-byte halves from EMU_BF_OFFSET to the end of the page. */
#define ENG_BF_HALF_SIZE (EMU_BF_REG_SIZE / 2)
#define ENG_BF_HALVES    ((EMU_UAR_PAGE_SIZE - EMU_BF_OFFSET) / ENG_BF_HALF_SIZE)

/* One BlueFlame half's check of the copy of its last doorbell. */
struct eng_bf_check {
	uint64_t deadline;                /* 0: nothing to check */
	uint32_t qpn, idx, ds, len;       /* the doorbell; len = bytes its copy writes (whole WQEBBs, at most a half) */
	uint8_t ref[ENG_BF_HALF_SIZE];    /* the WQE as the engine took it from the ring */
	uint8_t seen[ENG_BF_HALF_SIZE];   /* the half if no copy was written since (eng_bf.c) */
};

/* The ring's WQEBBs [from, to) (16-bit WQE counters) enter the QP's shadow; call before any of them executes. */
void eng_bf_shadow(struct eng_qp *qp, uint32_t from, uint32_t to);
/* The doorbell (idx, ds) of qp was just taken from half: check its copy now or in later passes. */
void eng_bf_check_start(struct eng_bf_check *c, struct eng_qp *qp, volatile const uint8_t *half, uint32_t idx,
			uint32_t ds);
/* A later look at a pending check; superseded: the half's next doorbell word is there (the copy under check is
 * complete, but the next copy may already be landing over it). */
void eng_bf_check_poll(struct eng_bf_check *c, volatile const uint8_t *half, int superseded);

#endif
