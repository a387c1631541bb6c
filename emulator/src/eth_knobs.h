/* SPDX-License-Identifier: Apache-2.0 */
/* Ethernet port knobs shared by the kernel part and the engine (implemented in src/kernel/eth_knobs.c). */
#ifndef MLX5EMU_ETH_KNOBS_H
#define MLX5EMU_ETH_KNOBS_H

#include <stdint.h>

uint8_t emu_eth_min_inline(void);        /* enum mlx5_user_inline_mode answered in GET_CONTEXT */
uint32_t emu_eth_min_inline_bytes(void); /* what libmlx5 then inlines: 0 or 18 */
uint32_t emu_eth_mtu(void);              /* the port's Ethernet MTU */
/* The RoCE port's active MTU, enum ibv_mtu (1 = 256 .. 5 = 4096): what the kernel derives from the netdev MTU. */
uint8_t emu_eth_active_mtu(void);
/* How long a frame waits for a receive to be posted before it is dropped for that QP (MLX5EMU_ETH_HOLD_MS). */
uint64_t emu_eth_hold_ns(void);

#endif
