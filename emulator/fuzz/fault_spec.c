/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the MLX5EMU_FAULTS parser (src/engine/eng_fault_spec.c): arbitrary bytes as the spec. Must
 * never crash or read past the string; an accepted spec must be within its documented ranges, a rejected one must
 * say which field, and the per-packet decision must always be one of the five outcomes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/eng_fault.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = 0;
	struct eng_fault_spec s;
	char err[256];
	if (eng_fault_parse(spec, &s, err, sizeof err) != 0) {
		if (strncmp(err, "MLX5EMU_FAULTS: field \"", 23) != 0)
			__builtin_trap(); /* every error names the field */
		free(spec);
		return 0;
	}
	free(spec);
	if (!(s.drop >= 0 && s.drop <= 1 && s.dup >= 0 && s.dup <= 1 && s.reorder >= 0 && s.reorder <= 1 &&
	      s.delay >= 0 && s.delay <= 1 && s.drop + s.dup + s.reorder + s.delay <= 1.0 + 1e-9))
		__builtin_trap();
	if (s.delay > 0 && (s.delay_ns < 1 || s.delay_ns > 60000000000ull))
		__builtin_trap();
	if (s.nqpn < 0 || s.nqpn > ENG_FAULT_MAX_QPN || s.dev < -1 || s.dev > 7 || s.dir < 0 || s.dir > 2)
		__builtin_trap();
	for (int i = 0; i < s.nqpn; i++)
		if (s.qpn[i] == 0 || s.qpn[i] > 0xffffff)
			__builtin_trap();
	for (uint64_t n = 0; n < 64; n++) {
		int d = eng_fault_decide(&s, eng_fault_draw(s.seed, (uint32_t)n, n));
		if (d < 0 || d > ENG_FAULT_DELAY || (!s.active && d != ENG_FAULT_PASS))
			__builtin_trap();
	}
	return 0;
}
