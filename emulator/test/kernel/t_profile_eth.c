/* SPDX-License-Identifier: Apache-2.0 */
/* Each device profile (MLX5EMU_PROFILE) answers ibv_query_device_ex and mlx5dv_query_device as that ConnectX
 * generation does under the Linux mlx5 driver (src/kernel/profile.c): part ID, firmware, CQE version, real-time
 * timestamps, striding RQ limits, TSO, CQE compression formats. Every profile runs in a child of its own, because a
 * process answers as one device for its whole life. */
#include "common.h"

#include <sys/wait.h>
#include <rdma/mlx5-abi.h>

struct expect {
	const char *name;
	uint32_t part;
	const char *fw;
	int real_time;
	int striding;
	uint32_t comp_formats; /* cqe_comp_caps.supported_format */
};

static const struct expect PROFILES[] = {
	{ "cx4lx", 4117, "14.32.1010", 0, 0, 0x3 },
	{ "cx5", 4119, "16.35.2000", 0, 1, 0x7 },
	{ "cx6dx", 4125, "22.35.2000", 1, 1, 0x7 },
	{ "cx7", 4129, "28.35.2000", 1, 1, 0x7 },
};

static int check_profile(const struct expect *e)
{
	REQUIRE(setenv("MLX5EMU_PROFILE", e->name, 1) == 0, "setenv");
	struct ibv_context *ctx = open_dev(0);
	REQUIRE(is_eth(ctx), "run under mlx5emu --link eth");

	struct ibv_device_attr_ex ax;
	memset(&ax, 0, sizeof(ax));
	REQUIRE(ibv_query_device_ex(ctx, NULL, &ax) == 0, "ibv_query_device_ex");
	CHECK(ax.orig_attr.vendor_id == 0x02c9, "%s: vendor 0x%x", e->name, ax.orig_attr.vendor_id);
	CHECK(ax.orig_attr.vendor_part_id == e->part, "%s: part %u", e->name, ax.orig_attr.vendor_part_id);
	CHECK(strcmp(ax.orig_attr.fw_ver, e->fw) == 0, "%s: fw %s", e->name, ax.orig_attr.fw_ver);
	CHECK(ax.hca_core_clock == 156250, "%s: hca_core_clock %llu", e->name, (unsigned long long)ax.hca_core_clock);
	CHECK(ax.completion_timestamp_mask == 0x7fffffffffffffffull, "%s: timestamp mask", e->name);
	CHECK(ax.tso_caps.max_tso == 1u << 18 && ax.tso_caps.supported_qpts == 1u << IBV_QPT_RAW_PACKET,
	      "%s: tso %u qpts 0x%x", e->name, ax.tso_caps.max_tso, ax.tso_caps.supported_qpts);

	struct mlx5dv_context dv;
	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION | MLX5DV_CONTEXT_MASK_STRIDING_RQ |
		       MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK | MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE;
	REQUIRE(mlx5dv_query_device(ctx, &dv) == 0, "mlx5dv_query_device");
	CHECK(dv.flags & MLX5DV_CONTEXT_FLAGS_CQE_V1, "%s: flags 0x%llx lack CQE_V1", e->name,
	      (unsigned long long)dv.flags);
	CHECK(!!(dv.flags & MLX5DV_CONTEXT_FLAGS_REAL_TIME_TS) == e->real_time, "%s: real-time flag in 0x%llx", e->name,
	      (unsigned long long)dv.flags);
	/* HASH | CSUM everywhere, CSUM_STRIDX with striding RQ (profile.c); 64 CQEs a block (eng_cq.c) */
	CHECK((dv.comp_mask & MLX5DV_CONTEXT_MASK_CQE_COMPRESION) && dv.cqe_comp_caps.max_num == 64 &&
	      dv.cqe_comp_caps.supported_format == e->comp_formats && !(dv.flags & MLX5DV_CONTEXT_FLAGS_CQE_128B_COMP),
	      "%s: compression %u/0x%x", e->name, dv.cqe_comp_caps.max_num, dv.cqe_comp_caps.supported_format);
	if (e->striding) {
		CHECK(dv.striding_rq_caps.min_single_stride_log_num_of_bytes == 6 &&
			      dv.striding_rq_caps.max_single_stride_log_num_of_bytes == 13 &&
			      dv.striding_rq_caps.min_single_wqe_log_num_of_strides == 3 &&
			      dv.striding_rq_caps.max_single_wqe_log_num_of_strides == 16 &&
			      dv.striding_rq_caps.supported_qpts == 1u << IBV_QPT_RAW_PACKET,
		      "%s: striding %u..%u bytes, %u..%u strides, qpts 0x%x", e->name,
		      dv.striding_rq_caps.min_single_stride_log_num_of_bytes,
		      dv.striding_rq_caps.max_single_stride_log_num_of_bytes,
		      dv.striding_rq_caps.min_single_wqe_log_num_of_strides,
		      dv.striding_rq_caps.max_single_wqe_log_num_of_strides, dv.striding_rq_caps.supported_qpts);
	} else {
		CHECK(dv.striding_rq_caps.supported_qpts == 0 && dv.striding_rq_caps.max_single_wqe_log_num_of_strides == 0,
		      "%s: no striding RQ, yet qpts 0x%x", e->name, dv.striding_rq_caps.supported_qpts);
	}

	/* A CQ with wall-clock completion timestamps: libmlx5 (cq.c) asks the kernel for real-time stamps
	 * (MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS) where the context offers them, and converts free-running stamps
	 * through the clock-info page elsewhere; the emulator's CQ shows which it got. */
	struct debug_api dbg = debug_api();
	struct ibv_cq_init_attr_ex ca = { .cqe = 16, .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK };
	struct ibv_cq_ex *cq = ibv_create_cq_ex(ctx, &ca);
	REQUIRE(cq != NULL, "%s: wall-clock CQ: %s", e->name, strerror(errno));
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o = { .cq = { .in = ibv_cq_ex_to_cq(cq), .out = &dcq } };
	REQUIRE(mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ) == 0, "mlx5dv_init_obj");
	struct mlx5emu_debug_cq d;
	REQUIRE(dbg.cq(dcq.cqn, &d) == 0, "emulator has no cqn 0x%x", dcq.cqn);
	CHECK(!!(d.flags & MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS) == e->real_time, "%s: CQ flags 0x%x", e->name, d.flags);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	ibv_close_device(ctx);
	return g_failures ? 1 : 0;
}

int main(void)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(PROFILES) / sizeof(PROFILES[0]); i++) {
		fflush(NULL);
		pid_t pid = fork();
		REQUIRE(pid >= 0, "fork");
		if (pid == 0)
			_exit(check_profile(&PROFILES[i]));
		int st = 0;
		REQUIRE(waitpid(pid, &st, 0) == pid, "waitpid");
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "FAIL profile %s (status 0x%x)\n", PROFILES[i].name, st);
			bad++;
		}
	}
	g_failures += bad;
	return test_done("t_profile_eth");
}
