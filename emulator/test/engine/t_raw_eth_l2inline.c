/* SPDX-License-Identifier: Apache-2.0 */
/* t_raw_eth under MLX5EMU_ETH_MIN_INLINE=l2: libmlx5 then inlines the first 18 bytes of every frame into the
 * Ethernet segment (its other raw send path); every check of raw_eth_test.h must hold the same, and a hand-written
 * WQE with fewer inline bytes is a strict-mode violation completed with LOC_QP_OP_ERR. */
#include <stdlib.h>
#include "raw_eth_test.h"

int main(void)
{
	setenv("MLX5EMU_ETH_MIN_INLINE", "l2", 1); /* read by the emulated kernel at GET_CONTEXT */
	return raw_eth_main();
}
