/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_cqe.c - receive WQE reader and CQE writer (layouts and sources in eng_cqe.h).
 */
#include "engine/eng_cqe.h"

#include <string.h>
#include <infiniband/mlx5dv.h>

uint32_t eng_rwqe_parse(const uint8_t *wqe, size_t stride, int is_srq, struct eng_sge *sge, uint32_t max_sge,
			uint16_t *next)
{
	size_t off = 0;
	uint32_t n = 0;
	if (is_srq) {
		if (stride < 16)
			return 0;
		if (next)
			*next = eng_be16(wqe + 2);
		off = 16;
	}
	for (; off + 16 <= stride && n < max_sge; off += 16) {
		uint32_t lkey = eng_be32(wqe + off + 4);
		if (lkey == ENG_INVALID_LKEY)
			break;
		sge[n].len = eng_be32(wqe + off);
		sge[n].lkey = lkey;
		sge[n].addr = eng_be64(wqe + off + 8);
		n++;
	}
	return n;
}

uint8_t eng_cqe_build(uint8_t *entry, uint32_t cqe_size, const struct eng_cqe_info *ci, uint8_t owner)
{
	uint8_t *c = entry + (cqe_size == 128 ? 64 : 0);
	uint8_t flags = 0;
	if (cqe_size == 128)
		memset(entry, 0, 64);
	memset(c, 0, 63);

	int is_err = ci->opcode == MLX5_CQE_REQ_ERR || ci->opcode == MLX5_CQE_RESP_ERR;
	if (!is_err && ci->inline_data && ci->inline_len && ci->opcode == MLX5_CQE_REQ) {
		/* Requester: libmlx5 v44 (cq.c mlx5_parse_cqe, MLX5_CQE_REQ) copies SCATTER_32 data from the start of
		 * the CQE entry (not from the 64-byte part), so only that layout decodes right with 128-byte CQEs too. */
		if (ci->inline_len <= 32) {
			memcpy(entry, ci->inline_data, ci->inline_len);
			/* With 128-byte CQEs the SCATTER_32 data also goes where the PRM puts it, the first 32 bytes of
			 * the 64-byte CQE part (those carry no field a requester CQE needs): UCX's rc_mlx5, a second
			 * independent reader, takes it from there (uct_rc_mlx5_txqp_process_tx_cqe) and otherwise
			 * delivered garbage for small gets, and libmlx5 from the entry start. */
			if (cqe_size == 128)
				memcpy(c, ci->inline_data, ci->inline_len);
			flags = MLX5_INLINE_SCATTER_32;
		}
	} else if (!is_err && ci->inline_data && ci->inline_len) {
		if (cqe_size == 128 && ci->inline_len <= 64) {
			memcpy(entry, ci->inline_data, ci->inline_len);
			flags = MLX5_INLINE_SCATTER_64;
		} else if (ci->inline_len <= 32) {
			memcpy(c, ci->inline_data, ci->inline_len);
			flags = MLX5_INLINE_SCATTER_32;
		}
	}
	if (!flags) {
		c[17] = ci->ml_path;
		eng_put_be16(c + 22, ci->slid);
		eng_put_be32(c + 24, (uint32_t)(ci->grh & 3) << 28 | (uint32_t)(ci->sl & 0xf) << 24 |
				      (ci->src_qpn & 0xffffff));
		eng_put_be16(c + 2, ci->wqe_id);
		eng_put_be32(c + 12, ci->rss_hash);
		c[16] = ci->rss_hash_type;
		eng_put_be16(c + 20, ci->check_sum);
		c[28] = ci->hds_ip_ext;
		c[29] = ci->l4_hdr_type_etc;
		eng_put_be16(c + 30, ci->vlan_info);
	}
	eng_put_be32(c + 32, ci->srqn_uidx & 0xffffff);
	eng_put_be32(c + 36, ci->imm_inval_pkey);
	eng_put_be32(c + 44, ci->byte_cnt);
	if (is_err) {
		c[54] = ci->vendor_syndrome;
		c[55] = ci->syndrome;
	} else {
		eng_put_be64(c + 48, ci->timestamp);
	}
	eng_put_be32(c + 56, (uint32_t)ci->wqe_opcode << 24 | (ci->qpn & 0xffffff));
	eng_put_be16(c + 60, ci->wqe_counter);
	return (uint8_t)(ci->opcode << 4 | flags | (owner & 1));
}

void eng_mini_cqe_build(uint8_t *mini, uint8_t format, const struct eng_cqe_info *ci)
{
	if (format == MLX5DV_CQE_RES_FORMAT_HASH) {
		eng_put_be32(mini, ci->rss_hash);
	} else {
		eng_put_be16(mini, ci->check_sum);
		/* stride_idx only in CSUM_STRIDX; reserved (0) in CSUM */
		eng_put_be16(mini + 2, format == MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX && ci->mprq ? ci->wqe_counter : 0);
	}
	eng_put_be32(mini + 4, ci->byte_cnt);
}

uint8_t eng_cqe_title_build(uint8_t *entry, const struct eng_cqe_info *first, uint32_t n, uint8_t owner)
{
	uint8_t op_own = eng_cqe_build(entry, 64, first, owner);
	eng_put_be32(entry + 44, n);
	return (uint8_t)((op_own & 0xf1) | ENG_MLX5_COMPRESSED << 2);
}
