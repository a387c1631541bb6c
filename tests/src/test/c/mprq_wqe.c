/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Judge for mlx5j's StridingRecvQueue: reads "wqe_size byte_count lkey addr" per line (decimal, unsigned) and prints,
 * as hex, a WQE slot of wqe_size zeroed bytes holding a struct mlx5_mprq_wqe of the installed <infiniband/mlx5dv.h>
 * whose data segment mlx5dv_set_data_seg() filled (the next segment left zero, as on a cyclic striding WQ).
 */
#define _DEFAULT_SOURCE /* htobe32/htobe64, which mlx5dv_set_data_seg uses */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/mlx5dv.h>

int main(void)
{
	unsigned wqe_size;
	uint32_t byte_count, lkey;
	uint64_t addr;
	unsigned char slot[1024];

	while (scanf("%u %" SCNu32 " %" SCNu32 " %" SCNu64, &wqe_size, &byte_count, &lkey, &addr) == 4) {
		if (wqe_size < sizeof(struct mlx5_mprq_wqe) || wqe_size > sizeof slot)
			return 2;
		memset(slot, 0, wqe_size);
		struct mlx5_mprq_wqe *w = (struct mlx5_mprq_wqe *)slot;
		mlx5dv_set_data_seg(&w->dseg, byte_count, lkey, addr);
		for (unsigned i = 0; i < wqe_size; i++)
			printf("%02x", slot[i]);
		printf("\n");
	}
	return 0;
}
