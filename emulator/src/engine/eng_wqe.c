/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_wqe.c - send WQE linearizer and parser (see eng_wqe.h for the layouts and their sources).
 * Pure: reads only the bytes it is given, writes only *w / dst. Fuzzed by fuzz/wqe_parse.c.
 */
#include "engine/eng_wqe.h"

#include <stddef.h>
#include <string.h>
#include <infiniband/mlx5dv.h>

/* Field offsets come from libmlx5's own segment structs (mlx5dv.h), so the parser reads the fields libmlx5 and
 * UCX write, by name. Masked atomics have no struct there: their layout is in eng_wqe.h. */
#define CTRL(f) offsetof(struct mlx5_wqe_ctrl_seg, f)
#define AV(f) offsetof(struct mlx5_wqe_av, f)
#define ETH(f) offsetof(struct mlx5_wqe_eth_seg, f)
#define RADDR(f) offsetof(struct mlx5_wqe_raddr_seg, f)
#define ATOMIC(f) offsetof(struct mlx5_wqe_atomic_seg, f)
#define DATA(f) offsetof(struct mlx5_wqe_data_seg, f)
#define INL(f) offsetof(struct mlx5_wqe_inl_data_seg, f)

/* PRM send WQE control segment: ds is the low 6 bits of qpn_ds (bits 7:6 are reserved), so a WQE spans at most
 * 63 units; DPDK's mlx5 PMD (MLX5_DSEG_MAX) and mlx5j's decoder use the same width. */
#define DS_MASK 0x3f

const char *eng_wqe_status_str(int status)
{
	switch (status) {
	case ENG_WQE_OK:              return "ok";
	case ENG_WQE_BAD_DS:          return "ds count does not match the segments";
	case ENG_WQE_BAD_OPCODE:      return "opcode invalid for the QP type";
	case ENG_WQE_INLINE_OVERFLOW: return "inline segment overflows the WQE";
	case ENG_WQE_TOO_SHORT:       return "WQE larger than the send ring";
	case ENG_WQE_BAD_ATOMIC:      return "atomic operand size invalid";
	case ENG_WQE_BAD_ETH:         return "Ethernet segment invalid (LSO header or mss missing, or empty frame)";
	default:                      return "unknown";
	}
}

size_t eng_wqe_linearize(const uint8_t *ring, size_t ring_bytes, uint32_t wqe_index, uint8_t *dst, size_t dst_cap)
{
	if (ring_bytes < ENG_WQE_BB || (ring_bytes & (ring_bytes - 1)) != 0)
		return 0;
	size_t start = ((size_t)wqe_index * ENG_WQE_BB) & (ring_bytes - 1);
	/* qpn_ds lies inside the first WQEBB: never wraps. ds is its last (big-endian) byte. */
	size_t len = (size_t)(ring[start + CTRL(qpn_ds) + 3] & DS_MASK) * ENG_DS_SIZE;
	if (len == 0 || len > ring_bytes || len > dst_cap)
		return 0;
	size_t first = ring_bytes - start;
	if (first >= len) {
		memcpy(dst, ring + start, len);
	} else {
		memcpy(dst, ring + start, first);
		memcpy(dst + first, ring, len - first);
	}
	return len;
}

static int opcode_valid(uint8_t opcode, int qp_type)
{
	switch (opcode) {
	case MLX5_OPCODE_NOP:
	case MLX5_OPCODE_SEND:
		return 1;
	case MLX5_OPCODE_SEND_IMM:
		return qp_type != ENG_QPT_RAW;
	case MLX5_OPCODE_TSO:
		return qp_type == ENG_QPT_RAW;
	case MLX5_OPCODE_SEND_INVAL:
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		return qp_type == ENG_QPT_RC || qp_type == ENG_QPT_DCI || qp_type == ENG_QPT_UC;
	case MLX5_OPCODE_RDMA_READ:
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
	case MLX5_OPCODE_ATOMIC_MASKED_CS:
	case MLX5_OPCODE_ATOMIC_MASKED_FA:
		return qp_type == ENG_QPT_RC || qp_type == ENG_QPT_DCI;
	default:
		return 0;
	}
}

static int is_zero16(const uint8_t *p)
{
	static const uint8_t zero[16];
	return memcmp(p, zero, 16) == 0;
}

/* Opcodes whose WQE carries a remote address segment after the control (and datagram) segment. */
static int has_raddr_seg(uint8_t opcode)
{
	switch (opcode) {
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
	case MLX5_OPCODE_RDMA_READ:
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
	case MLX5_OPCODE_ATOMIC_MASKED_CS:
	case MLX5_OPCODE_ATOMIC_MASKED_FA:
		return 1;
	default:
		return 0;
	}
}

/* Opcodes whose WQE carries an atomic segment after the remote address segment. */
static int has_atomic_seg(uint8_t opcode)
{
	switch (opcode) {
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
	case MLX5_OPCODE_ATOMIC_MASKED_CS:
	case MLX5_OPCODE_ATOMIC_MASKED_FA:
		return 1;
	default:
		return 0;
	}
}

/*
 * One decoder per segment, named after mlx5j's writers of the same segments (io.mlx5j.wqe: CtrlSeg, DatagramSeg,
 * EthSeg, RaddrSeg, AtomicSeg, InlineSeg, DataSeg). Each reads the segment at wqe + *off, which must end within the
 * WQE's first end bytes (ds * 16), fills its fields of *w, moves *off past the segment, and returns ENG_WQE_OK or
 * the status that ends the parse. Every segment size is a multiple of 16, so *off stays on a 16-byte unit.
 */

/* The control segment (the first 16 bytes): opcode, WQE index, QPN, ds, fm_ce_se, immediate. It also decides
 * whether the rest may be read: the WQE must be as long as ds says, and the QP type must allow the opcode. */
static int ctrl_seg(const uint8_t *wqe, size_t len, int qp_type, struct eng_wqe *w)
{
	if (len < ENG_DS_SIZE)
		return ENG_WQE_TOO_SHORT;
	uint32_t opmod_idx_opcode = eng_be32(wqe + CTRL(opmod_idx_opcode));
	uint32_t qpn_ds = eng_be32(wqe + CTRL(qpn_ds));
	w->opcode = (uint8_t)opmod_idx_opcode;
	w->wqe_index = (uint16_t)(opmod_idx_opcode >> 8);
	w->opmod = (uint8_t)(opmod_idx_opcode >> 24);
	w->qpn = qpn_ds >> 8;
	w->ds = (uint8_t)(qpn_ds & DS_MASK);
	w->fm_ce_se = wqe[CTRL(fm_ce_se)];
	w->imm = eng_be32(wqe + CTRL(imm));
	if (w->ds == 0)
		return ENG_WQE_BAD_DS;
	if ((size_t)w->ds * ENG_DS_SIZE > len)
		return ENG_WQE_TOO_SHORT;
	if (!opcode_valid(w->opcode, qp_type))
		return ENG_WQE_BAD_OPCODE;
	return ENG_WQE_OK;
}

/* UD: the address vector (struct mlx5_wqe_av, 48 bytes) that names the destination of this one message. */
static int datagram_seg(const uint8_t *wqe, size_t *off, size_t end, struct eng_wqe *w)
{
	if (*off + sizeof(struct mlx5_wqe_datagram_seg) > end)
		return ENG_WQE_BAD_DS;
	const uint8_t *av = wqe + *off;
	w->has_av = 1;
	w->av.qkey = eng_be32(av + AV(key.qkey.qkey));
	w->av.dc_key = eng_be64(av + AV(key.dc_key));
	w->av.dqpn = eng_be32(av + AV(dqp_dct)) & 0xffffff;
	w->av.sl = av[AV(stat_rate_sl)] & 0xf;
	w->av.rlid = eng_be16(av + AV(rlid));
	memcpy(w->av.rmac, av + AV(rmac), 6);
	w->av.tclass = av[AV(tclass)];
	w->av.hop_limit = av[AV(hop_limit)];
	uint32_t grh_gid_fl = eng_be32(av + AV(grh_gid_fl));
	w->av.grh = (grh_gid_fl >> 30) & 1;
	w->av.flow_label = grh_gid_fl & 0xfffff;
	w->av.sgid_index = (uint8_t)(grh_gid_fl >> 20);
	memcpy(w->av.rgid, av + AV(rgid), 16);
	*off += sizeof(struct mlx5_wqe_datagram_seg);
	return ENG_WQE_OK;
}

/* Raw packet QPs: checksum flags, the LSO mss, and the inline headers (or a VLAN tag to insert). The segment is 16
 * bytes, or longer when the inline headers continue into the following units. */
static int eth_seg(const uint8_t *wqe, size_t *off, size_t end, struct eng_wqe *w)
{
	if (*off + ENG_DS_SIZE > end)
		return ENG_WQE_BAD_DS;
	const uint8_t *e = wqe + *off;
	w->has_eth = 1;
	w->cs_flags = e[ETH(cs_flags)];
	w->mss = eng_be16(e + ETH(mss));
	uint16_t sz = eng_be16(e + ETH(inline_hdr_sz));
	size_t seg = ENG_DS_SIZE;
	if (sz & 0x8000) {
		/* VLAN insertion (mlx5 PRM eth segment: insert flag in the top bit, the TCI where the inline
		 * header would start) */
		w->vlan_insert = 1;
		w->vlan_tci = eng_be16(e + ETH(inline_hdr_start));
	} else {
		w->eth_hdr_len = sz;
		w->eth_hdr_off = (uint16_t)(*off + ETH(inline_hdr_start));
		if (sz > 2)
			seg = (ETH(inline_hdr_start) + (size_t)sz + 15) & ~(size_t)15;
		if (*off + ETH(inline_hdr_start) + (size_t)sz > end)
			return ENG_WQE_INLINE_OVERFLOW;
	}
	*off += seg;
	if (w->opcode == MLX5_OPCODE_TSO && (!w->mss || !w->eth_hdr_len))
		return ENG_WQE_BAD_ETH;
	return ENG_WQE_OK;
}

/* RDMA and atomic opcodes: the remote address and its key. */
static int raddr_seg(const uint8_t *wqe, size_t *off, size_t end, struct eng_wqe *w)
{
	if (*off + sizeof(struct mlx5_wqe_raddr_seg) > end)
		return ENG_WQE_BAD_DS;
	w->has_raddr = 1;
	w->raddr = eng_be64(wqe + *off + RADDR(raddr));
	w->rkey = eng_be32(wqe + *off + RADDR(rkey));
	*off += sizeof(struct mlx5_wqe_raddr_seg);
	return ENG_WQE_OK;
}

/* Atomics: the operands. CS and FA use struct mlx5_wqe_atomic_seg (masks all ones); the masked forms' layout
 * depends on opmod (0x8: 32-bit operands, 0x9: 64-bit; eng_wqe.h). */
static int atomic_seg(const uint8_t *wqe, size_t *off, size_t end, struct eng_wqe *w)
{
	const uint8_t *a = wqe + *off;
	if (w->opcode == MLX5_OPCODE_ATOMIC_CS || w->opcode == MLX5_OPCODE_ATOMIC_FA) {
		if (*off + sizeof(struct mlx5_wqe_atomic_seg) > end)
			return ENG_WQE_BAD_DS;
		w->atomic_size = 8;
		w->swap_add = eng_be64(a + ATOMIC(swap_add));
		w->compare = eng_be64(a + ATOMIC(compare));
		w->swap_mask = w->compare_mask = ~0ULL;
		*off += sizeof(struct mlx5_wqe_atomic_seg);
		return ENG_WQE_OK;
	}
	/* For masked FA, "compare" carries the field boundary mask. */
	if (w->opmod == 0x8) {
		w->atomic_size = 4;
		if (*off + 16 > end)
			return ENG_WQE_BAD_DS;
		w->swap_add = eng_be32(a);
		w->compare = eng_be32(a + 4);
		w->swap_mask = eng_be32(a + 8);
		w->compare_mask = eng_be32(a + 12);
		*off += 16;
	} else if (w->opmod == 0x9) {
		w->atomic_size = 8;
		size_t seg = w->opcode == MLX5_OPCODE_ATOMIC_MASKED_CS ? 32 : 16;
		if (*off + seg > end)
			return ENG_WQE_BAD_DS;
		w->swap_add = eng_be64(a);
		w->compare = eng_be64(a + 8);
		if (seg == 32) {
			w->swap_mask = eng_be64(a + 16);
			w->compare_mask = eng_be64(a + 24);
		}
		*off += seg;
	} else {
		return ENG_WQE_BAD_ATOMIC;
	}
	return ENG_WQE_OK;
}

/* Inline data (struct mlx5_wqe_inl_data_seg): byte_count with MLX5_INLINE_SEG set, then the bytes, padded to 16.
 * It becomes a gather entry whose addr is the offset of the bytes in the WQE. */
static int inline_seg(const uint8_t *wqe, size_t *off, size_t end, struct eng_wqe *w)
{
	uint32_t n = eng_be32(wqe + *off + INL(byte_count)) & ~(uint32_t)MLX5_INLINE_SEG;
	const size_t hdr = sizeof(struct mlx5_wqe_inl_data_seg);
	if ((uint64_t)*off + hdr + n > end)
		return ENG_WQE_INLINE_OVERFLOW;
	struct eng_sge *g = &w->sge[w->nsge++];
	g->addr = *off + hdr;
	g->len = n;
	g->lkey = 0;
	g->inl = 1;
	w->total_len += n;
	*off += (hdr + (size_t)n + 15) & ~(size_t)15;
	return ENG_WQE_OK;
}

/* A memory pointer (struct mlx5_wqe_data_seg): byte_count, lkey, addr. *off < end, so all 16 bytes are inside. */
static int data_seg(const uint8_t *wqe, size_t *off, struct eng_wqe *w)
{
	const uint8_t *s = wqe + *off;
	if (is_zero16(s))
		return ENG_WQE_BAD_DS; /* ds counts a unit nobody wrote */
	struct eng_sge *g = &w->sge[w->nsge++];
	g->len = eng_be32(s + DATA(byte_count));
	g->lkey = eng_be32(s + DATA(lkey));
	g->addr = eng_be64(s + DATA(addr));
	g->inl = 0;
	w->total_len += g->len;
	*off += sizeof(struct mlx5_wqe_data_seg);
	return ENG_WQE_OK;
}

/* The gather list up to the end of the WQE: inline and memory pointer segments in any order. The PRM's send WQE
 * gathers from a sequence of data segments of either kind, and UCX's UD/RC transports put an inline header before
 * a pointer to the payload in one WQE. Bit 31 of the first word (byte_count in both) tells them apart. */
static int gather_segs(const uint8_t *wqe, size_t off, size_t end, struct eng_wqe *w)
{
	int saw_inline = 0;
	while (off < end) {
		int st;
		if (eng_be32(wqe + off + DATA(byte_count)) & MLX5_INLINE_SEG) {
			saw_inline = 1;
			st = inline_seg(wqe, &off, end, w);
		} else {
			st = data_seg(wqe, &off, w);
		}
		if (st != ENG_WQE_OK)
			return st;
	}
	w->is_inline = (uint8_t)saw_inline;
	return ENG_WQE_OK;
}

int eng_wqe_parse(const uint8_t *wqe, size_t len, int qp_type, struct eng_wqe *w)
{
	memset(w, 0, offsetof(struct eng_wqe, sge));
	w->nsge = 0;
	w->total_len = 0;
	/* an XRC INI QP's WQE is an RC WQE with the XRC segment after ctrl (libmlx5 _mlx5_post_send, IBV_QPT_XRC_SEND) */
	int xrc = qp_type == ENG_QPT_XRC_SEND;
	if (xrc)
		qp_type = ENG_QPT_RC;
	int st = ctrl_seg(wqe, len, qp_type, w);
	if (st != ENG_WQE_OK || w->opcode == MLX5_OPCODE_NOP)
		return st; /* a NOP carries nothing; trailing units are ignored as on hardware */

	/* The segments in the order the PRM lays them out; which of them a WQE has follows from the QP type and the
	 * opcode alone. */
	size_t off = ENG_DS_SIZE, end = (size_t)w->ds * ENG_DS_SIZE;
	if ((qp_type == ENG_QPT_UD || qp_type == ENG_QPT_DCI) && (st = datagram_seg(wqe, &off, end, w)) != ENG_WQE_OK)
		return st;
	if (qp_type == ENG_QPT_RAW && (st = eth_seg(wqe, &off, end, w)) != ENG_WQE_OK)
		return st;
	if (xrc) {
		if (off + ENG_DS_SIZE > end)
			return ENG_WQE_BAD_DS;
		w->xrc_srqn = eng_be32(wqe + off) & 0xffffff;
		off += ENG_DS_SIZE;
	}
	if (has_raddr_seg(w->opcode) && (st = raddr_seg(wqe, &off, end, w)) != ENG_WQE_OK)
		return st;
	if (has_atomic_seg(w->opcode) && (st = atomic_seg(wqe, &off, end, w)) != ENG_WQE_OK)
		return st;
	if ((st = gather_segs(wqe, off, end, w)) != ENG_WQE_OK)
		return st;

	if (w->is_inline && (w->opcode == MLX5_OPCODE_RDMA_READ || w->atomic_size))
		return ENG_WQE_BAD_DS; /* READ and atomics scatter into memory: inline makes no sense */
	if (w->atomic_size && w->total_len < w->atomic_size)
		return ENG_WQE_BAD_ATOMIC;
	if (w->has_eth && w->eth_hdr_len + w->total_len == 0)
		return ENG_WQE_BAD_ETH;
	return ENG_WQE_OK;
}
