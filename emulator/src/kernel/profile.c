/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device generation the emulator answers as (MLX5EMU_PROFILE=cx4lx|cx5|cx6dx|cx7, default cx5).
 *
 * Facts per generation, as the Linux mlx5 driver derives them from the firmware's capabilities:
 *  - part ID: mlx5_ib_query_device() reports props->vendor_part_id = mdev->pdev->device, the PCI device id
 *    (drivers/infiniband/hw/mlx5/main.c); ConnectX-4 Lx 0x1015 = 4117, ConnectX-5 0x1017 = 4119, ConnectX-6 Dx
 *    0x101d = 4125, ConnectX-7 0x1021 = 4129 (libmlx5's hca_table in rdma-core providers/mlx5/mlx5.c lists them).
 *  - firmware: the major number is the generation's (14 ConnectX-4 Lx, 16 ConnectX-5, 22 ConnectX-6 Dx,
 *    28 ConnectX-7); minor/subminor are releases of late 2022, when rdma-core 44 shipped.
 *  - minimum inline: set_ucontext_resp() answers eth_min_inline = mlx5_query_min_inline() + 1; ConnectX-4 Lx
 *    reports wqe_inline_mode MLX5_CAP_INLINE_MODE_L2 (the first 18 bytes of a frame ride in the WQE), later parts
 *    MLX5_CAP_INLINE_MODE_NOT_REQUIRED in their usual (non-eswitch-offloads) configuration.
 *  - real-time timestamps: set_ucontext_resp() sets MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_REAL_TIME_TS when sq_ts_format,
 *    rq_ts_format and qp_ts_format allow real time, which ConnectX-6 Dx introduced; create_cq_user() then takes
 *    MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS (drivers/infiniband/hw/mlx5/cq.c).
 *  - striding RQ: mlx5_ib_query_device() fills striding_rq_caps only under MLX5_CAP_GEN(striding_rq), which
 *    ConnectX-4 Lx lacks (multi-packet WQEs on the receive side came with ConnectX-5).
 *  - CQE compression: mlx5_ib_query_device() reports cqe_comp_caps under MLX5_CAP_GEN(cqe_compression): max_num
 *    from cqe_compression_max_num, formats HASH | CSUM, and CSUM_STRIDX only under mini_cqe_resp_stride_index (a
 *    stride index is only meaningful with striding RQ, so the emulator offers it from ConnectX-5 on, like
 *    striding_rq; ConnectX-4 Lx gets HASH | CSUM). max_num is EMU_CQE_COMP_MAX_NUM, the emulator's own value.
 * Alike on every profile: cqe_version 1 (MLX5_CAP_GEN(cqe_version) is 1 from ConnectX-4 on), TSO 2^18 bytes on raw
 * packet QPs, no 128-byte CQE compression (cqe_compression_128), BlueFlame registers of 256 bytes.
 */
#include <stdlib.h>
#include <string.h>
#include <rdma/mlx5-abi.h>

#include "emu_profile.h"
#include "kernel.h"

#define COMP_HASH_CSUM (MLX5_IB_CQE_RES_FORMAT_HASH | MLX5_IB_CQE_RES_FORMAT_CSUM)
#define COMP_ALL (COMP_HASH_CSUM | MLX5_IB_CQE_RES_FORMAT_CSUM_STRIDX)

static const struct emu_profile PROFILES[] = {
	{ "cx4lx", 4117, 14, 32, 1010, MLX5_USER_INLINE_MODE_L2, 0, 0, COMP_HASH_CSUM },
	{ "cx5", 4119, 16, 35, 2000, MLX5_USER_INLINE_MODE_NONE, 0, 1, COMP_ALL },
	{ "cx6dx", 4125, 22, 35, 2000, MLX5_USER_INLINE_MODE_NONE, 1, 1, COMP_ALL },
	{ "cx7", 4129, 28, 35, 2000, MLX5_USER_INLINE_MODE_NONE, 1, 1, COMP_ALL },
};

const struct emu_profile *emu_profile(void)
{
	/* read once: every answer of a process must come from the same device */
	static const struct emu_profile *_Atomic chosen;
	const struct emu_profile *p = chosen;
	if (p)
		return p;
	const char *s = getenv("MLX5EMU_PROFILE");
	p = &PROFILES[1];
	if (s && *s) {
		size_t i;
		for (i = 0; i < sizeof(PROFILES) / sizeof(PROFILES[0]); i++)
			if (strcmp(s, PROFILES[i].name) == 0)
				break;
		if (i < sizeof(PROFILES) / sizeof(PROFILES[0]))
			p = &PROFILES[i];
		else
			emu_log("MLX5EMU_PROFILE=%s is not cx4lx, cx5, cx6dx or cx7: answering as cx5", s);
	}
	chosen = p;
	return p;
}
