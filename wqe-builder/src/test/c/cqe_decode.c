/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Independent CQE decoder for io.mlx5j.wqe tests, written only from the installed <infiniband/mlx5dv.h> accessors
 * and structs and the IBV_WC_* enum of <infiniband/verbs.h>. Each stdin line: cqe_size ci log_cqe_cnt hex_bytes.
 * Each output line: the decoded fields as decimal numbers, in a fixed order the Java test mirrors.
 */
#define _DEFAULT_SOURCE
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

/* Syndrome -> status, written from the MLX5_CQE_SYNDROME_* names: the mapping libmlx5 documents in cq.c. */
static int status_of(uint8_t syndrome)
{
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR: return IBV_WC_LOC_LEN_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR: return IBV_WC_LOC_QP_OP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR: return IBV_WC_LOC_PROT_ERR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR: return IBV_WC_WR_FLUSH_ERR;
	case MLX5_CQE_SYNDROME_MW_BIND_ERR: return IBV_WC_MW_BIND_ERR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR: return IBV_WC_BAD_RESP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR: return IBV_WC_LOC_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR: return IBV_WC_REM_INV_REQ_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR: return IBV_WC_REM_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR: return IBV_WC_REM_OP_ERR;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR: return IBV_WC_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR: return IBV_WC_RNR_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR: return IBV_WC_REM_ABORT_ERR;
	default: return IBV_WC_GENERAL_ERR;
	}
}

int main(void)
{
	unsigned int size, ci, log_cnt;
	static char hex[300];
	uint8_t buf[128] __attribute__((aligned(64)));

	while (scanf("%u %u %u %299s", &size, &ci, &log_cnt, hex) == 4) {
		if ((size != 64 && size != 128) || strlen(hex) != 2 * size || log_cnt > 24)
			return 2;
		for (unsigned int i = 0; i < size; i++) {
			unsigned int b;

			if (sscanf(hex + 2 * i, "%2x", &b) != 1)
				return 2;
			buf[i] = (uint8_t)b;
		}
		struct mlx5_cqe64 *cqe = (struct mlx5_cqe64 *)(size == 64 ? buf : buf + 64);
		struct mlx5_err_cqe *err = (struct mlx5_err_cqe *)cqe;
		uint8_t opcode = mlx5dv_get_cqe_opcode(cqe);
		/* software owns it: valid opcode and owner bit equal to the pass parity of ci */
		int sw = opcode != MLX5_CQE_INVALID &&
			 mlx5dv_get_cqe_owner(cqe) == ((ci >> log_cnt) & 1);
		int status;
		long scatter_off = -1;
		long scatter_len = 0;

		if (opcode <= MLX5_CQE_RESP_SEND_INV)
			status = IBV_WC_SUCCESS;
		else if (opcode == MLX5_CQE_REQ_ERR || opcode == MLX5_CQE_RESP_ERR)
			status = status_of(err->syndrome);
		else
			status = -1;
		if (opcode <= MLX5_CQE_RESP_SEND_INV) {
			if (cqe->op_own & MLX5_INLINE_SCATTER_32)
				scatter_off = (uint8_t *)cqe - buf;
			else if (cqe->op_own & MLX5_INLINE_SCATTER_64)
				scatter_off = size == 128 ? (uint8_t *)(cqe - 1) - buf : -2;
		}
		/* scattered bytes: byte_cnt, which must fit the area the flag names (32 bytes in this cqe64, or the
		 * 64-byte first half of a 128-byte CQE); -2 marks a CQE that cannot be a valid completion */
		if (scatter_off == -2) {
			scatter_len = -2;
		} else if (scatter_off >= 0) {
			uint32_t area = (cqe->op_own & MLX5_INLINE_SCATTER_32) ? 32 : 64;

			scatter_len = be32toh(cqe->byte_cnt) > area ? -2 : (long)be32toh(cqe->byte_cnt);
		}
		printf("%d %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %llu %d %ld %ld\n",
		       sw, mlx5dv_get_cqe_owner(cqe), opcode, mlx5dv_get_cqe_se(cqe), mlx5dv_get_cqe_format(cqe),
		       be16toh(cqe->wqe_counter), be32toh(cqe->byte_cnt), be32toh(cqe->imm_inval_pkey),
		       be32toh(cqe->sop_drop_qpn), be32toh(cqe->srqn_uidx), be32toh(cqe->flags_rqpn),
		       be16toh(cqe->slid), cqe->signature, err->syndrome, err->vendor_err_synd,
		       (unsigned)((cqe->op_own & MLX5_INLINE_SCATTER_32) ? 1 : 0) | ((cqe->op_own & MLX5_INLINE_SCATTER_64) ? 2u : 0u),
		       (unsigned long long)be64toh(cqe->timestamp), status, scatter_off, scatter_len);
		/*
		 * Ethernet receive fields, from the mlx5dv.h members and enums; the IBV_WC_IP_CSUM_OK rule is libmlx5's
		 * (cq.c get_csum_ok); rss hash at 0x0c / type at 0x10 and the striding-RQ byte_cnt split are not in
		 * mlx5dv.h: PRM offsets as DPDK's mlx5_prm.h names them (rx_hash_res, MLX5_MPRQ_*).
		 */
		{
			uint32_t bc = be32toh(cqe->byte_cnt);
			uint32_t rss;
			int l3 = (cqe->l4_hdr_type_etc >> 2) & 0x3;
			int csum_ok = (cqe->hds_ip_ext & (MLX5_CQE_L4_OK | MLX5_CQE_L3_OK)) ==
				      (MLX5_CQE_L4_OK | MLX5_CQE_L3_OK) && l3 == MLX5_CQE_L3_HDR_TYPE_IPV4;

			memcpy(&rss, (uint8_t *)cqe + 0x0c, 4);
			printf("%u %u %d %u %u %u %u %d %u %u %u %u %u %u %u\n", cqe->hds_ip_ext, cqe->l4_hdr_type_etc, l3,
			       (cqe->l4_hdr_type_etc >> 4) & 0x7, cqe->l4_hdr_type_etc & 1, be16toh(cqe->vlan_info),
			       be32toh(cqe->sop_drop_qpn) & 0x00ffffff, csum_ok ? IBV_WC_IP_CSUM_OK : 0, be32toh(rss),
			       ((uint8_t *)cqe)[0x10], be16toh(cqe->wqe_id), be16toh(cqe->wqe_counter),
			       (bc & 0x3fff0000) >> 16, bc >> 31, bc & 0xffff);
		}
	}
	return 0;
}
