/* SPDX-License-Identifier: Apache-2.0 */
/* emu_profile.h - which ConnectX the emulated device claims to be (MLX5EMU_PROFILE / mlx5emu --profile), and the
 * capabilities that differ between the generations as the Linux mlx5 driver reports them. Implemented in
 * src/kernel/profile.c; the launcher's sysfs tree (mlx5emu write_tree) must agree on part ID and firmware. */
#ifndef MLX5EMU_PROFILE_H
#define MLX5EMU_PROFILE_H

#include <stdint.h>

struct emu_profile {
	const char *name;          /* cx4lx, cx5, cx6dx, cx7 */
	uint32_t vendor_part_id;   /* ib_device_attr.vendor_part_id = PCI device id (4117, 4119, 4125, 4129) */
	uint16_t fw_major;         /* fw_ver = major.minor.subminor, as ibv_query_device's fw_ver string */
	uint16_t fw_minor;
	uint16_t fw_sub;
	/* enum mlx5_user_inline_mode the port requires unless MLX5EMU_ETH_MIN_INLINE overrides it */
	uint8_t eth_min_inline;
	/* sq_ts_format/rq_ts_format/qp_ts_format allow real-time: GET_CONTEXT sets
	 * MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_REAL_TIME_TS and CREATE_CQ accepts MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS */
	uint8_t real_time_ts;
	/* striding (multi-packet) RQ: MLX5_CAP_GEN(striding_rq); without it striding_rq_caps stay zero */
	uint8_t striding_rq;
	/* CQE compression: MLX5_CAP_GEN(cqe_compression) and mini_cqe_resp_stride_index as the MLX5_IB_CQE_RES_FORMAT_*
	 * mask mlx5_ib_query_device() reports in cqe_comp_caps.supported_format; 0 = no compression */
	uint8_t cqe_comp_formats;
};

/* cqe_comp_caps.max_num: the most CQEs one compression block holds (the emulator's choice, see eng_cq.c) */
#define EMU_CQE_COMP_MAX_NUM 64

/* The profile of this process (MLX5EMU_PROFILE, default cx5); an unknown name falls back to cx5 with a log line. */
const struct emu_profile *emu_profile(void);

#endif
