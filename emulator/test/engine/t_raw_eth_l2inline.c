/* t_raw_eth under MLX5EMU_ETH_MIN_INLINE=l2: libmlx5 then inlines the first 18 bytes of every frame into the
 * Ethernet segment (its other raw send path); every check of t_raw_eth.c must hold the same. */
#include <stdlib.h>
#define main t_raw_eth_main
#include "t_raw_eth.c"
#undef main

int main(void)
{
	setenv("MLX5EMU_ETH_MIN_INLINE", "l2", 1); /* read by the emulated kernel at GET_CONTEXT */
	return t_raw_eth_main();
}
