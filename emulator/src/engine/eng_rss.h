/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_rss.h - receive side scaling as the mlx5 TIR does it: a Toeplitz hash over the header fields an RSS QP
 * selected (rx_hash_fields_mask, IB_UVERBS/IBV_RX_HASH_* bits), the hash's low bits index the receive WQ
 * indirection table, and the CQE reports the hash and which fields went into it (rss_hash_type).
 *
 * Pure byte functions: no engine state, so tests link this file directly.
 */
#ifndef MLX5EMU_ENG_RSS_H
#define MLX5EMU_ENG_RSS_H

#include <stddef.h>
#include <stdint.h>

/* The TIR's rx_hash_toeplitz_key is 10 dwords; the kernel's create_rss_raw_qp_tir requires rx_key_len == 40. */
#define ENG_RSS_KEY_LEN 40

/* rx_hash_fields_mask bits (enum ibv_rx_hash_fields / mlx5_rx_hash_fields in <rdma/mlx5-abi.h>). */
enum {
	ENG_RX_HASH_SRC_IPV4     = 1u << 0,
	ENG_RX_HASH_DST_IPV4     = 1u << 1,
	ENG_RX_HASH_SRC_IPV6     = 1u << 2,
	ENG_RX_HASH_DST_IPV6     = 1u << 3,
	ENG_RX_HASH_SRC_PORT_TCP = 1u << 4,
	ENG_RX_HASH_DST_PORT_TCP = 1u << 5,
	ENG_RX_HASH_SRC_PORT_UDP = 1u << 6,
	ENG_RX_HASH_DST_PORT_UDP = 1u << 7,
	ENG_RX_HASH_IPSEC_SPI    = 1u << 8,
	ENG_RX_HASH_INNER        = 1u << 31,
};

/* CQE rss_hash_type (byte 16 of the 64-byte CQE; Linux include/linux/mlx5/device.h CQE_RSS_*_HTYPE_*):
 * [1:0] source IP, [3:2] destination IP (1 IPv4, 2 IPv6), [5:4] source port, [7:6] destination port
 * (1 TCP, 2 UDP, 3 IPsec SPI). Only the fields that went into the hash are reported. */
enum {
	ENG_CQE_RSS_IPV4 = 1, ENG_CQE_RSS_IPV6 = 2,
	ENG_CQE_RSS_TCP  = 1, ENG_CQE_RSS_UDP  = 2,
};

/* Microsoft's Toeplitz hash: for every set bit of the input (most significant bit of each byte first) XOR in
 * the 32 key bits that start at that bit position. key_len must be at least in_len + 4. */
uint32_t eng_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *in, size_t in_len);

/* Hash an Ethernet frame (optionally one or two 802.1Q/802.1ad tags) as a TIR with these fields does.
 * The input is the Microsoft order: source IP, destination IP, source port, destination port, each field only
 * when selected. A frame whose L3 protocol is not the selected one hashes nothing (hash 0, type 0); a frame
 * whose L4 protocol is not the selected one (or an IPv4 fragment) hashes only its addresses, as the PRM's
 * rx_hash_field_select applies l4 fields only to packets of its l4_prot_type.
 * Returns the hash; *hash_type receives the CQE rss_hash_type. */
uint32_t eng_rss_hash_frame(const uint8_t *key, uint64_t fields, const uint8_t *frame, size_t len,
			    uint8_t *hash_type);

#endif
