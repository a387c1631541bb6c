/* SPDX-License-Identifier: Apache-2.0 */
/* DC (Dynamically Connected) QPs: what CREATE_QP and MODIFY_QP do differently for a DCI or a DCT, which libmlx5's
 * mlx5dv_create_qp (MLX5DV_QP_INIT_ATTR_MASK_DC) creates as IBV_QPT_DRIVER with MLX5_QP_FLAG_TYPE_DCI or
 * MLX5_QP_FLAG_TYPE_DCT in the driver data (rdma-core v44 providers/mlx5/verbs.c create_qp(), create_dct()).
 * The checks and errnos are Linux mlx5's (drivers/infiniband/hw/mlx5/qp.c): process_vendor_flags() (an
 * IB_QPT_DRIVER QP names exactly one of the two types), check_qp_attr() (a DCT needs an SRQ, a DCI takes no receive
 * WRs), create_dct() (no work queue, nothing in the device before RTR), modify_dci_qp_is_ok() and
 * mlx5_ib_modify_dct() (RESET->INIT and INIT->RTR only, with exact attribute masks; at RTR the device creates the
 * DCT and the driver answers its number in mlx5_ib_modify_qp_resp.dctn). cmd_qp.c calls these at three places;
 * the engine's side is src/engine/eng_dc.c. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/mlx5-abi.h>

#include "uverbs.h"

int emu_dc_create_type(uint8_t qp_type, uint32_t flags, int *dc)
{
	*dc = EMU_DC_NONE;
	if (qp_type != IBV_QPT_DRIVER)
		return (flags & (MLX5_QP_FLAG_TYPE_DCT | MLX5_QP_FLAG_TYPE_DCI | MLX5_QP_FLAG_DCI_STREAM)) ? EINVAL : 0;
	switch (flags & (MLX5_QP_FLAG_TYPE_DCT | MLX5_QP_FLAG_TYPE_DCI)) {
	case MLX5_QP_FLAG_TYPE_DCI:
		*dc = EMU_DC_DCI;
		break;
	case MLX5_QP_FLAG_TYPE_DCT:
		*dc = EMU_DC_DCT;
		break;
	default:
		return EINVAL; /* neither or both */
	}
	/* DCI streams need HCA_CAP.log_max_dci_stream_channels, which a ConnectX-5 does not have: the vendor flag is
	 * then left unprocessed, and an unprocessed flag is EINVAL */
	if (flags & MLX5_QP_FLAG_DCI_STREAM)
		return EINVAL;
	return 0;
}

int emu_dc_check_attr(int dc, int is_srq, uint32_t max_recv_wr, uint32_t max_recv_sge)
{
	if (dc == EMU_DC_DCT && !is_srq)
		return EINVAL; /* a DCT receives through an SRQ only */
	if (dc == EMU_DC_DCI && (max_recv_wr || max_recv_sge))
		return EINVAL; /* a DCI only sends */
	return 0;
}

/* is_valid_mask(): every required attribute and nothing beyond required and optional ones. */
static int valid_mask(uint32_t mask, uint32_t req, uint32_t opt)
{
	return (mask & req) == req && !(mask & ~(req | opt));
}

static int dci_transition_ok(int cur, int next, uint32_t mask)
{
	uint32_t req = IBV_QP_STATE;
	if (next == IBV_QPS_RESET)
		return valid_mask(mask, req, 0);
	if (cur == IBV_QPS_RESET && next == IBV_QPS_INIT)
		return valid_mask(mask, req | IBV_QP_PKEY_INDEX | IBV_QP_PORT, 0);
	if (cur == IBV_QPS_INIT && next == IBV_QPS_INIT)
		return valid_mask(mask, req, IBV_QP_PKEY_INDEX | IBV_QP_PORT);
	if (cur == IBV_QPS_INIT && next == IBV_QPS_RTR)
		return valid_mask(mask, req | IBV_QP_PATH_MTU, IBV_QP_PKEY_INDEX | IBV_QP_AV);
	if (cur == IBV_QPS_RTR && next == IBV_QPS_RTS)
		return valid_mask(mask, req | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_SQ_PSN, IBV_QP_MIN_RNR_TIMER);
	if (cur == IBV_QPS_RTS && next == IBV_QPS_RTS)
		return valid_mask(mask, req, IBV_QP_MIN_RNR_TIMER);
	if (cur != IBV_QPS_RESET && next == IBV_QPS_ERR)
		return valid_mask(mask, req, 0);
	return 0;
}

int emu_dc_modify_check(const struct emu_qp *qp, int cur, int next, uint32_t mask, size_t drv_out_len)
{
	if (qp->dc_type == EMU_DC_DCI)
		return dci_transition_ok(cur, next, mask) ? 0 : EINVAL;
	/* mlx5_ib_modify_dct(): the state is the DCT's own (a current state in the mask is not among the attributes
	 * it allows) */
	if (!(mask & IBV_QP_STATE))
		return EINVAL;
	if (qp->state == IBV_QPS_RESET && next == IBV_QPS_INIT)
		return valid_mask(mask, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT, 0)
			       ? 0 : EINVAL;
	if (qp->state == IBV_QPS_INIT && next == IBV_QPS_RTR) {
		/* the response must hold at least response_length and dctn */
		if (drv_out_len < offsetof(struct mlx5_ib_modify_qp_resp, dctn) + sizeof(uint32_t))
			return EINVAL;
		return valid_mask(mask, IBV_QP_STATE | IBV_QP_MIN_RNR_TIMER | IBV_QP_AV | IBV_QP_PATH_MTU, 0)
			       ? 0 : EINVAL;
	}
	return EINVAL; /* "Modify DCT: Invalid transition": a DCT never leaves RTR but by destroy */
}

int emu_dc_modify_done(struct emu_cmd *cmd, const struct emu_qp *qp, int old_state, int next)
{
	if (qp->dc_type != EMU_DC_DCT || old_state != IBV_QPS_INIT || next != IBV_QPS_RTR)
		return 0;
	struct mlx5_ib_modify_qp_resp r;
	memset(&r, 0, sizeof(r));
	/* response_length: the whole struct when it fits, else only up to dctn (no room for the ECE options) */
	size_t min_len = offsetof(struct mlx5_ib_modify_qp_resp, dctn) + sizeof(r.dctn);
	r.response_length = (uint32_t)(cmd->drv_out_len < sizeof(r) ? min_len : sizeof(r));
	/* The DCT number: the QPN the fabric registry gave the DCT at create, by which DCIs address it. */
	r.dctn = qp->qpn;
	return emu_cmd_respond_drv(cmd, &r, r.response_length);
}
