/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Judge for mlx5j's NicClock: reads "nsec last_cycles frac mult shift mask timestamp" per line (decimal, unsigned)
 * and prints mlx5dv_ts_to_ns() of the installed <infiniband/mlx5dv.h> on that clock info and timestamp.
 */
#include <inttypes.h>
#include <stdio.h>
#include <infiniband/mlx5dv.h>

int main(void)
{
	struct mlx5dv_clock_info ci;
	uint64_t ts;
	uint32_t mult, shift;

	while (scanf("%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu32 " %" SCNu32 " %" SCNu64 " %" SCNu64, &ci.nsec,
		     &ci.last_cycles, &ci.frac, &mult, &shift, &ci.mask, &ts) == 7) {
		ci.mult = mult;
		ci.shift = shift;
		printf("%" PRIu64 "\n", mlx5dv_ts_to_ns(&ci, ts));
	}
	return 0;
}
