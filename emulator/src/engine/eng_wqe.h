/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_wqe.h - the send WQE parser of the emulated ConnectX: pure functions over bytes.
 *
 * A send WQE is a run of 16-byte units ("ds") starting at a 64-byte WQEBB of the send ring; it may wrap around
 * the end of the ring (libmlx5 wraps inline data and every segment at the ring end: rdma-core v44
 * providers/mlx5/qp.c, "qend"). eng_wqe_linearize() copies it out of the ring into a flat buffer, and
 * eng_wqe_parse() decodes the flat copy into struct eng_wqe. Neither touches anything but the bytes given,
 * so both are fuzzed (fuzz/wqe_parse.c).
 *
 * Segment layouts (offsets in bytes, all big-endian; rdma-core v44 mlx5dv.h structs of the same names):
 *   ctrl   (16): 0 opmod_idx_opcode = opmod<<24 | wqe_index<<8 | opcode; 4 qpn_ds = qpn<<8 | ds;
 *                8 signature; 9..10 reserved; 11 fm_ce_se; 12 imm (immediate / invalidate rkey)
 *   datagram (48, UD and DCI; struct mlx5_wqe_av): 0 qkey (UD) or dc_key (64, DCI); 8 dqp_dct (bit 31 = extended
 *                AV; the DCT number on a DCI); 12 stat_rate_sl
 *                (sl in bits 3:0); 13 fl_mlid; 14 rlid; 20 rmac[6]; 26 tclass; 27 hop_limit;
 *                28 grh_gid_fl (bit 30 = GRH present, flow label in bits 19:0); 32 rgid[16]
 *   xrc    (16, XRC INI QPs only, right after ctrl; struct mlx5_wqe_xrc_seg): 0 xrc_srqn (24 bits); 4..15 reserved
 *   raddr  (16): 0 raddr (64); 8 rkey
 *   atomic (16): 0 swap_add (64); 8 compare (64)
 *   masked atomics (PRM "Atomic Operations"; opmod 0x8 = 32-bit, 0x9 = 64-bit operands):
 *                CS 64: swap, compare, swap_mask, compare_mask (8 each, 32 B); FA 64: add, field_boundary (16 B);
 *                CS 32: swap, compare, swap_mask, compare_mask (4 each, 16 B); FA 32: add, boundary (4 each, 16 B)
 *   data   (16): 0 byte_count; 4 lkey; 8 addr (64)
 *   inline      : 0 byte_count | MLX5_INLINE_SEG (bit 31), then the bytes; padded to 16
 *   eth (raw packet QPs, struct mlx5_wqe_eth_seg): 4 cs_flags (bit 6 L3, bit 7 L4 checksum); 6 mss (LSO);
 *                12 inline_hdr_sz (be16), 14.. the inline headers, continuing into the following 16-byte units:
 *                the segment takes max(16, align16(14 + inline_hdr_sz)) bytes (libmlx5 qp.c copy_eth_inline_headers
 *                and set_tso_eth_seg). With bit 15 of the be16 at 12 set (Linux mlx5 MLX5_ETH_WQE_INSERT_VLAN),
 *                bytes 12..15 are insert.type / insert.vlan_tci instead: the device inserts an 802.1Q tag.
 */
#ifndef MLX5EMU_ENG_WQE_H
#define MLX5EMU_ENG_WQE_H

#include <stddef.h>
#include <stdint.h>

#define ENG_WQE_BB          64
#define ENG_DS_SIZE         16
#define ENG_WQE_MAX_DS      255            /* ds is the low byte of qpn_ds */
#define ENG_WQE_MAX_BYTES   (ENG_WQE_MAX_DS * ENG_DS_SIZE)
#define ENG_WQE_MAX_SGE     ENG_WQE_MAX_DS /* upper bound: one per 16-byte unit */

/* Outcome of parsing; every value except OK is a driver bug the strict validator reports
 * and that completes the WQE with LOC_QP_OP_ERR, as hardware does for a malformed WQE. */
enum eng_wqe_status {
	ENG_WQE_OK = 0,
	ENG_WQE_BAD_DS,          /* ds count does not match the segments the opcode needs or carries */
	ENG_WQE_BAD_OPCODE,      /* opcode unknown or invalid for the QP type */
	ENG_WQE_INLINE_OVERFLOW, /* an inline segment runs past the end of the WQE */
	ENG_WQE_TOO_SHORT,       /* fewer bytes than ds says (ring smaller than the WQE) */
	ENG_WQE_BAD_ATOMIC,      /* atomic opmod / local buffer length not an operand size */
	ENG_WQE_BAD_ETH,         /* Ethernet segment: LSO without a header or mss, or a frame of no bytes */
};
const char *eng_wqe_status_str(int status);

/* QP types (same numbers as enum ibv_qp_type / emu_qp_type). */
enum { ENG_QPT_RC = 2, ENG_QPT_UC = 3, ENG_QPT_UD = 4, ENG_QPT_RAW = 8,
       ENG_QPT_XRC_SEND = 9 /* an RC WQE with the XRC segment after ctrl */,
       ENG_QPT_DCI = 0xff /* IBV_QPT_DRIVER: an RC WQE with a datagram segment after the control one */ };

struct eng_sge {
	uint64_t addr;           /* an inline piece: its offset in the WQE */
	uint32_t len;
	uint32_t lkey;
	uint8_t  inl;            /* 1: inline data in the WQE, 0: memory pointer */
};

struct eng_av {
	uint32_t qkey;
	uint32_t dqpn;
	uint8_t  sl;
	uint8_t  grh;            /* GRH present */
	uint16_t rlid;
	uint8_t  tclass;
	uint8_t  hop_limit;
	uint32_t flow_label;
	uint8_t  rgid[16];
	uint8_t  rmac[6];
	uint8_t  sgid_index;     /* grh_gid_fl bits 27:20 (libmlx5 mlx5_create_ah) */
	uint64_t dc_key;         /* DCI: key.dc_key, the DC access key (mlx5dv_wr_set_dc_addr), bytes 0..7 */
};

struct eng_wqe {
	uint8_t  opcode;
	uint8_t  opmod;
	uint8_t  fm_ce_se;
	uint8_t  ds;
	uint16_t wqe_index;      /* from opmod_idx_opcode */
	uint32_t qpn;            /* from qpn_ds */
	uint32_t imm;            /* host order value of the be32 imm field */
	uint8_t  has_raddr, has_av, is_inline, atomic_size; /* atomic_size: 0, 4 or 8 */
	uint32_t xrc_srqn;       /* XRC INI QPs: the remote XRC SRQ number (24 bits) */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t swap_add, compare, swap_mask, compare_mask; /* host order; masks all-ones for plain atomics */
	struct eng_av av;
	/* raw packet QPs: the Ethernet segment */
	uint8_t  has_eth, cs_flags, vlan_insert;
	uint16_t mss, vlan_tci;
	uint16_t eth_hdr_len;    /* inline headers (inline_hdr_sz) ... */
	uint16_t eth_hdr_off;    /* ... at this offset of the flat WQE */
	uint32_t nsge;           /* gather list: data segments, or inline pieces (addr = offset in the flat WQE) */
	struct eng_sge sge[ENG_WQE_MAX_SGE];
	uint64_t total_len;      /* sum of sge[].len */
};

/* Copy the WQE whose first WQEBB is wqe_index out of a send ring of ring_bytes (power of two multiple of 64)
 * into dst (capacity dst_cap). Returns the number of bytes copied (ds * 16), or 0 if ds is 0 or larger than the
 * ring or dst. */
size_t eng_wqe_linearize(const uint8_t *ring, size_t ring_bytes, uint32_t wqe_index, uint8_t *dst, size_t dst_cap);

/* Parse a flat WQE of len bytes for a QP of qp_type. Fills *w as far as possible and returns an eng_wqe_status. */
int eng_wqe_parse(const uint8_t *wqe, size_t len, int qp_type, struct eng_wqe *w);

/* Number of WQEBBs the WQE with this ds occupies. */
static inline uint32_t eng_wqe_bbs(uint32_t ds) { return (ds * ENG_DS_SIZE + ENG_WQE_BB - 1) / ENG_WQE_BB; }

/* Big-endian loads/stores over unaligned bytes. */
static inline uint16_t eng_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t eng_be32(const uint8_t *p)
{ return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static inline uint64_t eng_be64(const uint8_t *p) { return (uint64_t)eng_be32(p) << 32 | eng_be32(p + 4); }
static inline void eng_put_be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void eng_put_be32(uint8_t *p, uint32_t v)
{ p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v; }
static inline void eng_put_be64(uint8_t *p, uint64_t v) { eng_put_be32(p, (uint32_t)(v >> 32)); eng_put_be32(p + 4, (uint32_t)v); }

#endif
