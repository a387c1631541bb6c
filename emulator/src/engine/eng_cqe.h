/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_cqe.h - receive WQE reader and CQE writer of the emulated ConnectX: pure functions over bytes.
 *
 * Receive WQE (RQ stride 1 << wqe_shift; rdma-core v44 providers/mlx5/qp.c mlx5_post_recv): an array of 16-byte
 * data segments (byte_count, lkey, addr). A segment whose lkey is MLX5_INVALID_LKEY (0x100, mlx5dv.h) ends the
 * list early. An SRQ WQE starts with a 16-byte struct mlx5_wqe_srq_next_seg whose bytes 2..3 hold
 * next_wqe_index (mlx5dv.h): the free list the device follows.
 *
 * CQE (struct mlx5_cqe64 in mlx5dv.h; a 128-byte CQE keeps it in its second half): offsets in the 64-byte part:
 *   17 ml_path; 22 slid(16); 24 flags_rqpn(32): [29:28] GRH flag, [27:24] sl, [23:0] source QPN;
 *   2 wqe_id(16) (striding RQ); 12 rx_hash_result(32); 16 rx_hash_type;
 *   28 hds_ip_ext (L2_OK 1, L3_OK 2, L4_OK 4); 29 l4_hdr_type_etc; 30 vlan_info(16);
 *   32 srqn_uidx; 36 imm_inval_pkey; 44 byte_cnt; 48 timestamp(64); 56 sop_drop_qpn = WQE opcode<<24 | qpn;
 *   60 wqe_counter(16); 62 signature; 63 op_own = opcode<<4 | INLINE_SCATTER_64(0x8) | INLINE_SCATTER_32(0x4) | owner.
 * Error CQE (struct mlx5_err_cqe): 54 vendor_err_synd; 55 syndrome; 56 s_wqe_opcode_qpn; 60 wqe_counter.
 * Scatter-to-CQE: SCATTER_32 puts the payload in bytes 0..31 of the 64-byte part; SCATTER_64 (128-byte CQEs)
 * puts it in the first 64 bytes of the 128-byte entry (libmlx5 cq.c reads "cqe - 1" for it). Requester CQEs
 * (READ / atomic responses) only use SCATTER_32 at the start of the entry, the one layout libmlx5 v44 reads
 * right for both CQE sizes (see eng_cqe_req_scatter_fits).
 */
#ifndef MLX5EMU_ENG_CQE_H
#define MLX5EMU_ENG_CQE_H

#include <stddef.h>
#include <stdint.h>
#include "engine/eng_wqe.h"

#define ENG_INVALID_LKEY 0x100u
#define ENG_VENDOR_SYND_RETRY_EXC 0x81 /* what ConnectX reports with TRANSPORT_RETRY_EXC_ERR */
#define ENG_VENDOR_SYND_RNR_EXC   0x88
#define ENG_VENDOR_SYND_FLUSH     0x79 /* ConnectX's vendor syndrome on flushed WQEs */

/* Parse a receive WQE of stride bytes. With is_srq, skips the next segment and stores next_wqe_index in *next.
 * Stores at most max_sge segments; returns the number stored. Zero-length segments are kept (they scatter nothing). */
uint32_t eng_rwqe_parse(const uint8_t *wqe, size_t stride, int is_srq, struct eng_sge *sge, uint32_t max_sge,
			uint16_t *next);

struct eng_cqe_info {
	uint8_t  opcode;          /* MLX5_CQE_REQ, MLX5_CQE_RESP_*, MLX5_CQE_REQ_ERR, MLX5_CQE_RESP_ERR */
	uint8_t  wqe_opcode;      /* REQ: the send opcode (top byte of sop_drop_qpn / s_wqe_opcode_qpn) */
	uint8_t  syndrome;        /* error CQEs */
	uint8_t  vendor_syndrome;
	uint16_t wqe_counter;
	uint32_t qpn;
	uint32_t byte_cnt;
	uint32_t imm_inval_pkey;  /* host order; stored big-endian */
	uint32_t srqn_uidx;       /* uidx under cqe_version 1 */
	uint32_t src_qpn;         /* UD: source QPN */
	uint8_t  sl;
	uint8_t  grh;             /* flags_rqpn GRH flag (1 = GRH present) */
	uint16_t slid;
	uint8_t  ml_path;
	uint8_t  hds_ip_ext;      /* raw packet receive: L2/L3/L4 OK bits (byte 28) */
	uint8_t  l4_hdr_type_etc; /* raw packet receive: L4/L3 header types, cvlan stripped (byte 29) */
	uint16_t vlan_info;       /* raw packet receive: stripped VLAN TCI (bytes 30..31) */
	uint16_t wqe_id;          /* striding RQ: index of the multi-packet WQE (bytes 2..3; DPDK mlx5_cqe.wqe_id) */
	uint32_t rss_hash;        /* RSS QP receive: rx_hash_result (bytes 12..15) */
	uint8_t  rss_hash_type;   /* RSS QP receive: rx_hash_type (byte 16; CQE_RSS_*_HTYPE_* in Linux mlx5/device.h) */
	uint16_t check_sum;       /* raw packet receive: check_sum (bytes 20..21; eng_frame_rx_csum) */
	uint8_t  mprq;            /* striding RQ receive: wqe_counter is the stride index, byte_cnt bits 30..16 the
				   * strides consumed (not written to the CQE; the compressor needs it) */
	const void *inline_data;  /* scatter-to-CQE payload, or NULL */
	uint32_t inline_len;
	uint64_t timestamp;       /* core clock ticks (emu_clock.h); not in error CQEs, whose bytes 48..55 are
				   * reserved words and the syndromes (struct mlx5_err_cqe) */
};

/* Can a payload of len bytes be scattered into a CQE of cqe_size bytes? */
static inline int eng_cqe_scatter_fits(uint32_t cqe_size, uint32_t len)
{ return len <= (cqe_size == 128 ? 64u : 32u); }

/* Can a READ/atomic response of len bytes go into a requester CQE? */
static inline int eng_cqe_req_scatter_fits(uint32_t len) { return len <= 32u; }

/* Write every byte of the CQE at entry (cqe_size 64 or 128) except op_own, and return the op_own byte to
 * publish last (release) with the owner bit of this pass. */
uint8_t eng_cqe_build(uint8_t *entry, uint32_t cqe_size, const struct eng_cqe_info *ci, uint8_t owner);

/* CQE compression (PRM "Compressed CQE"; read from Linux drivers/net/ethernet/mellanox/mlx5/core/en_rx.c
 * mlx5e_decompress_cqes_start/_cont and DPDK drivers/net/mlx5/mlx5_rx.c mlx5_rx_poll_len, legacy layout, not
 * DPDK's cqe_comp_layout of ConnectX-7's enhanced format):
 *   - a block of N >= 2 completions takes N consecutive CQ slots T .. T+N-1;
 *   - slot T is the title: a whole CQE whose fields hold for every completion of the block, except byte_cnt
 *     (bytes 44..47), which holds N, and op_own, whose format bits [3:2] are MLX5_COMPRESSED (3); wqe_counter is the
 *     first completion's;
 *   - the mini-CQEs (8 bytes, DPDK mlx5_prm.h struct mlx5_mini_cqe8: be32 rx_hash_result, or be16 checksum and be16
 *     stride_idx; then be32 byte_cnt) go 8 to a slot: completion i in slot T+1 when i < 8, else in slot T + (i & ~7),
 *     at offset (i & 7) * 8 (DPDK: the second array is 7 slots after the first, the next ones 8 apart);
 *   - the other slots of the block are not written: the consumer skips them (and must invalidate them, as DPDK
 *     does, or rewrite their owner bit, as Linux does, before the ring comes round again);
 *   - per completion i: byte_cnt from the mini-CQE; rx_hash_result (HASH) or check_sum (CSUM, CSUM_STRIDX) from it;
 *     wqe_counter = title's + i on a cyclic RQ; on a striding RQ the stride index from the mini-CQE (CSUM_STRIDX), or
 *     the title's plus the strides the earlier completions consumed (byte_cnt bits 30..16), as Linux mlx5e does. */
#define ENG_MLX5_COMPRESSED 3
#define ENG_MINI_CQE_SIZE 8

/* Write the 8-byte mini-CQE of ci in the given format (MLX5_IB_CQE_RES_FORMAT_*). */
void eng_mini_cqe_build(uint8_t *mini, uint8_t format, const struct eng_cqe_info *ci);

/* Write the title CQE of a block of n completions whose first is ci; returns the op_own byte to publish last. */
uint8_t eng_cqe_title_build(uint8_t *entry, const struct eng_cqe_info *first, uint32_t n, uint8_t owner);

/* The op_own byte of an entry. */
static inline uint8_t *eng_cqe_op_own(uint8_t *entry, uint32_t cqe_size) { return entry + cqe_size - 1; }

#endif
