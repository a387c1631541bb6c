/* SPDX-License-Identifier: Apache-2.0 */
/* Ethernet knobs of the emulated port that both the "kernel" (GET_CONTEXT) and the engine (raw send path,
 * strict mode) must agree on.
 *
 * MLX5EMU_ETH_MIN_INLINE=none|l2 (default: the profile's, emu_profile.h): the minimum inline header mode of the
 * port. The kernel answers mlx5_query_min_inline() + 1 in mlx5_ib_alloc_ucontext_resp.eth_min_inline; libmlx5
 * (mlx5.c) then inlines 0 bytes (MLX5_USER_INLINE_MODE_NONE) or 18 bytes (L2 and above) of every frame into the
 * Ethernet segment.
 * The default follows the profile: none on ConnectX-5 and later, whose wqe_inline_mode capability is
 * MLX5_CAP_INLINE_MODE_NOT_REQUIRED in the usual configuration, l2 on ConnectX-4 Lx (profile cx4lx); l2 exercises
 * libmlx5's other path, where the first 18 bytes travel in the WQE.
 * MLX5EMU_ETH_MTU (default 1500, 68..9600): the port's Ethernet MTU; frames longer than MTU + 18 (Ethernet header
 * and one VLAN tag) are not transmitted (strict mode reports them).
 * MLX5EMU_ETH_HOLD_MS (default 200, 0..600000): how long a frame waits for a receiving QP that has no receive
 * posted before it is dropped for that QP. A ConnectX drops at once (rx_out_of_buffer); the default wait stands for
 * a receiver that reposts late. A run that must count every frame between two processes, one of them a JVM still
 * loading and compiling while the other already sends, sets a long wait: that is a lossless link, not a faster
 * receiver. */
#include <stdlib.h>
#include <string.h>
#include <rdma/mlx5-abi.h>

#include "eth_knobs.h"
#include "emu_profile.h"

uint8_t emu_eth_min_inline(void)
{
	const char *s = getenv("MLX5EMU_ETH_MIN_INLINE");
	if (s && strcmp(s, "l2") == 0)
		return MLX5_USER_INLINE_MODE_L2;
	if (s && strcmp(s, "none") == 0)
		return MLX5_USER_INLINE_MODE_NONE;
	return emu_profile()->eth_min_inline;
}

uint32_t emu_eth_min_inline_bytes(void)
{
	return emu_eth_min_inline() == MLX5_USER_INLINE_MODE_NONE ? 0 : 18; /* MLX5_ETH_L2_INLINE_HEADER_SIZE */
}

uint32_t emu_eth_mtu(void)
{
	const char *s = getenv("MLX5EMU_ETH_MTU");
	long v = s ? strtol(s, NULL, 10) : 1500;
	return v >= 68 && v <= 9600 ? (uint32_t)v : 1500;
}

uint8_t emu_eth_active_mtu(void)
{
	/* Linux include/rdma/ib_addr.h iboe_get_mtu(): the netdev MTU less the largest RoCE headers (GRH 40, UDP 8,
	 * BTH 12, XRC ETH 4, AtomicETH 28, ICRC 4 = 96 bytes), rounded down to an IB MTU; mlx5_ib's query_port for
	 * RoCE reports that as active_mtu. 1500 gives 1024, 9000 gives 4096. */
	int mtu = (int)emu_eth_mtu() - 96;
	uint8_t e = 5; /* IBV_MTU_4096 */
	while (e > 1 && mtu < (128 << e))
		e--;
	return e;
}

uint64_t emu_eth_hold_ns(void)
{
	const char *s = getenv("MLX5EMU_ETH_HOLD_MS");
	char *end = NULL;
	long v = s ? strtol(s, &end, 10) : 200;
	if (s && (end == s || *end != '\0' || v < 0 || v > 600000))
		v = 200;
	return (uint64_t)v * 1000 * 1000;
}
