/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_frame.h - Ethernet frame helpers of the engine (pure; see eng_frame.c). emu_frame_parse() and
 * emu_flow_match() are declared in flow_rule.h because the steering rules and the frames meet there.
 */
#ifndef MLX5EMU_ENG_FRAME_H
#define MLX5EMU_ENG_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include "flow_rule.h"

/* CQE hds_ip_ext bits (mlx5dv.h MLX5_CQE_L2_OK / L3_OK / L4_OK) */
#define ENG_CQE_L2_OK 0x1
#define ENG_CQE_L3_OK 0x2
#define ENG_CQE_L4_OK 0x4

/* Checksum offload of a send (eth segment cs_flags): l3 = IPv4 header checksum, l4 = TCP/UDP checksum over the
 * IPv4 or IPv6 pseudo-header. Returns -1 (frame unchanged) when the frame has no IP header. */
int eng_frame_csum(uint8_t *f, size_t len, int l3, int l4);

/* Receive-side verification: ENG_CQE_L3_OK when the IPv4 header checksum is right (always for IPv6), ENG_CQE_L4_OK
 * when the TCP/UDP checksum is right. 0 for frames without IP. */
uint8_t eng_frame_rx_ok(const uint8_t *f, const struct emu_frame_info *fi);

/* The CQE's check_sum (bytes 20..21 of struct mlx5_cqe64 in Linux include/linux/mlx5/device.h, reserved in
 * rdma-core's mlx5dv.h): the 16-bit one's complement sum, not complemented, of every byte after the Ethernet header
 * (and its 802.1Q tag), which Linux mlx5e hands to the stack as CHECKSUM_COMPLETE (en_rx.c mlx5e_handle_csum). */
uint16_t eng_frame_rx_csum(const uint8_t *f, size_t len, const struct emu_frame_info *fi);

/* The CQE's l4_hdr_type_etc byte for this frame, without the cvlan bit. */
uint8_t eng_frame_hdr_types(const struct emu_frame_info *fi);

#endif
