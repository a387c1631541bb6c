/* SPDX-License-Identifier: Apache-2.0 */
/* ALLOC_PD/DEALLOC_PD and REG_MR/DEREG_MR: keys, the registered range, and the kernel's access and range rules. */
#include <sys/mman.h>

#include "common.h"

int main(void)
{
	struct debug_api dbg = debug_api();
	struct ibv_context *ctx = open_dev(0);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	REQUIRE(pd, "alloc_pd: %s", strerror(errno));
	struct mlx5dv_pd dvpd;
	struct mlx5dv_obj o = { .pd = { .in = pd, .out = &dvpd } };
	CHECK_ERR(mlx5dv_init_obj(&o, MLX5DV_OBJ_PD), 0);

	size_t len = 1 << 20;
	uint8_t *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(buf != MAP_FAILED, "mmap");

	/* many registrations: unique keys, lkey == rkey, exactly the range and access given */
	enum { N = 64 };
	struct ibv_mr *mrs[N];
	int all = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	for (int i = 0; i < N; i++) {
		mrs[i] = ibv_reg_mr(pd, buf + i * 100, 4096 + i, i % 2 ? all : IBV_ACCESS_LOCAL_WRITE);
		REQUIRE(mrs[i], "reg_mr %d: %s", i, strerror(errno));
		CHECK(mrs[i]->lkey == mrs[i]->rkey, "lkey 0x%x rkey 0x%x", mrs[i]->lkey, mrs[i]->rkey);
		for (int j = 0; j < i; j++)
			CHECK(mrs[i]->lkey != mrs[j]->lkey, "duplicate lkey 0x%x", mrs[i]->lkey);
		struct mlx5emu_debug_mr d;
		REQUIRE(dbg.mr(mrs[i]->lkey, &d) == 0, "emulator does not know lkey 0x%x", mrs[i]->lkey);
		CHECK(d.addr == (uintptr_t)(buf + i * 100) && d.length == 4096u + i, "range of mr %d", i);
		CHECK(d.access == (uint32_t)(i % 2 ? all : IBV_ACCESS_LOCAL_WRITE), "access 0x%x", d.access);
		CHECK(d.pdn == dvpd.pdn, "pdn %u vs mlx5dv %u", d.pdn, dvpd.pdn);
	}
	uint32_t gone = mrs[0]->lkey;
	for (int i = 0; i < N; i++)
		CHECK_ERR(ibv_dereg_mr(mrs[i]), 0);
	struct mlx5emu_debug_mr d;
	CHECK(dbg.mr(gone, &d) == -1, "lkey 0x%x still registered after dereg", gone);

	/* access rules of ib_check_mr_access */
	errno = 0;
	CHECK(!ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE) && errno == EINVAL, "REMOTE_WRITE alone: %d", errno);
	errno = 0;
	CHECK(!ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_ATOMIC) && errno == EINVAL, "REMOTE_ATOMIC alone: %d",
	      errno);
	errno = 0;
	CHECK(!ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND) && errno == EOPNOTSUPP,
	      "ODP: %d", errno);
	errno = 0;
	CHECK(!ibv_reg_mr(pd, buf, 4096, 1 << 15) && errno == EINVAL, "unknown access bit: %d", errno);
	/* REMOTE_READ alone is fine, and relaxed ordering (an optional bit) is accepted */
	struct ibv_mr *ro = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_RELAXED_ORDERING);
	CHECK(ro != NULL, "remote read + relaxed ordering: %s", strerror(errno));
	/* ranges: empty, unmapped, wrapping */
	errno = 0;
	CHECK(!ibv_reg_mr(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE) && errno == EINVAL, "zero length: %d", errno);
	uint8_t *hole = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(hole, 8192);
	errno = 0;
	CHECK(!ibv_reg_mr(pd, hole, 8192, IBV_ACCESS_LOCAL_WRITE) && errno == EFAULT, "unmapped: %d", errno);
	errno = 0;
	CHECK(!ibv_reg_mr(pd, (void *)(uintptr_t)0xfffffffffffff000ULL, 8192, IBV_ACCESS_LOCAL_WRITE) &&
	      errno == EINVAL, "wrapping range: %d", errno);
	/* iova whose page offset differs from the address's */
	errno = 0;
	CHECK(!ibv_reg_mr_iova(pd, buf, 4096, 0x10001, IBV_ACCESS_LOCAL_WRITE) && errno == EINVAL,
	      "iova offset mismatch: %d", errno);
	struct ibv_mr *iova = ibv_reg_mr_iova(pd, buf + 16, 4096, 0x7000010, IBV_ACCESS_LOCAL_WRITE);
	CHECK(iova && dbg.mr(iova->lkey, &d) == 0 && d.addr == 0x7000010, "iova registration");

	/* REREG_MR is not emulated (README, "Not supported"): a clean EOPNOTSUPP through the raw ABI and a failed
	 * ibv_rereg_mr, and the MR keeps its range */
	struct ib_uverbs_rereg_mr_resp rgr;
	struct ib_uverbs_rereg_mr rg = { .response = (uintptr_t)&rgr, .mr_handle = ro->handle,
					 .flags = IBV_REREG_MR_CHANGE_ACCESS, .access_flags = IBV_ACCESS_LOCAL_WRITE };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_REREG_MR, &rg, sizeof(rg), sizeof(rgr)), EOPNOTSUPP);
	CHECK(ibv_rereg_mr(ro, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE) != 0,
	      "ibv_rereg_mr succeeded on an emulator that does not implement it");
	CHECK(dbg.mr(ro->lkey, &d) == 0 && d.addr == (uintptr_t)buf && d.length == 4096,
	      "MR changed by a failed rereg");

	/* a PD with a live MR cannot go; bad handles are EINVAL */
	CHECK_ERR(ibv_dealloc_pd(pd), EBUSY);
	uint32_t h = ro->handle;
	CHECK_ERR(ibv_dereg_mr(ro), 0);
	struct ib_uverbs_dereg_mr dm = { .mr_handle = h };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_DEREG_MR, &dm, sizeof(dm), 0), EINVAL);
	CHECK_ERR(ibv_dereg_mr(iova), 0);
	struct ib_uverbs_dealloc_pd dp = { .pd_handle = 0xdead };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_DEALLOC_PD, &dp, sizeof(dp), 0), EINVAL);
	struct ib_uverbs_reg_mr_resp rr;
	struct ib_uverbs_reg_mr rm = { .response = (uintptr_t)&rr, .start = (uintptr_t)buf, .length = 4096,
				       .hca_va = (uintptr_t)buf, .pd_handle = 0xdead,
				       .access_flags = IBV_ACCESS_LOCAL_WRITE };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_REG_MR, &rm, sizeof(rm), sizeof(rr)), EINVAL);
	CHECK_ERR(ibv_dealloc_pd(pd), 0);
	/* ALLOC_PD whose response cannot be written: EFAULT, and no PD is left behind (checked below) */
	struct ib_uverbs_alloc_pd ap = { .response = 8 };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_ALLOC_PD, &ap, sizeof(ap), sizeof(struct ib_uverbs_alloc_pd_resp)),
		  EFAULT);

	struct mlx5emu_debug_live live;
	dbg.live(&live);
	CHECK(live.pds == 0 && live.mrs == 0, "left over: %u pds %u mrs", live.pds, live.mrs);
	CHECK_ERR(ibv_close_device(ctx), 0);
	munmap(buf, len);
	return test_done("t_pd_mr");
}
