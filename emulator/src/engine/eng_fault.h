/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_fault.h - fault injection on the emulated fabric (MLX5EMU_FAULTS, `mlx5emu --faults SPEC`).
 *
 * The spec is a comma-separated list of key=value fields (emulator/INTERNALS.md, "Fault injection"):
 *   drop=P  dup=P  reorder=P  delay=P:T   probabilities 0..1 per packet (their sum at most 1), T a time with a unit
 *                                          (ns, us, ms, s), e.g. delay=0.02:200us
 *   seed=N                                  decimal or 0x hex (default 1)
 *   qpn=N                                   only packets sent by or to this QPN (up to 8 qpn fields; any matches)
 *   dev=mlx5_N                              only packets sent by or to a port of device N (a link to the switch)
 *   dir=req|resp                            only requests (SEND/WRITE/READ/atomic) or only responses (ACK/NAK,
 *                                          READ and atomic responses); default both
 * An empty spec injects nothing. Parsing is strict: an unknown key, a repeated key (qpn excepted), a value out of
 * range or trailing garbage is an error naming the field.
 */
#ifndef MLX5EMU_ENG_FAULT_H
#define MLX5EMU_ENG_FAULT_H

#include <stddef.h>
#include <stdint.h>

#define ENG_FAULT_MAX_QPN 8

enum { ENG_FAULT_DIR_BOTH = 0, ENG_FAULT_DIR_REQ, ENG_FAULT_DIR_RESP };

struct eng_fault_spec {
	double drop, dup, reorder, delay;   /* probabilities */
	uint64_t delay_ns;
	uint64_t seed;
	uint32_t qpn[ENG_FAULT_MAX_QPN];
	int nqpn;
	int dev;                            /* -1: any */
	int dir;
	int active;                         /* some probability is above 0 */
};

/* Parse spec (NUL-terminated). 0 on success; otherwise -1 and a one-line reason in err (naming the field). */
int eng_fault_parse(const char *spec, struct eng_fault_spec *out, char *err, size_t errlen);

/* What happens to one packet: a pure function of the spec and a 64-bit draw. */
enum { ENG_FAULT_PASS = 0, ENG_FAULT_DROP, ENG_FAULT_DUP, ENG_FAULT_REORDER, ENG_FAULT_DELAY };
int eng_fault_decide(const struct eng_fault_spec *s, uint64_t draw);
/* The draw for the n-th packet a QP sends: splitmix64 of the seed, the QPN and n (reproducible per QP). */
uint64_t eng_fault_draw(uint64_t seed, uint32_t qpn, uint64_t n);

#endif
