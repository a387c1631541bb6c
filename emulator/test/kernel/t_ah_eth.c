/* SPDX-License-Identifier: Apache-2.0 */
/* CREATE_AH / DESTROY_AH in RoCE mode, where libmlx5 asks the kernel for the destination MAC. */
#include "common.h"

int main(void)
{
	struct ibv_context *ctx = open_dev(0);
	REQUIRE(is_eth(ctx), "run with --link eth");
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	union ibv_gid gid;
	REQUIRE(ibv_query_gid(ctx, 1, 1, &gid) == 0, "gid");

	struct ibv_ah_attr a;
	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.is_global = 1;
	a.grh.dgid = gid;
	a.grh.sgid_index = 1;
	a.grh.hop_limit = 64;
	struct ibv_ah *ah = ibv_create_ah(pd, &a);
	REQUIRE(ah, "create_ah: %s", strerror(errno));
	struct mlx5dv_ah dv;
	struct mlx5dv_obj o = { .ah = { .in = ah, .out = &dv } };
	REQUIRE(mlx5dv_init_obj(&o, MLX5DV_OBJ_AH) == 0, "init ah");
	const uint8_t mac[6] = { 0x98, 0x03, 0x9b, 0x4d, 0x45, 0x00 };
	CHECK(memcmp(dv.av->rmac, mac, 6) == 0, "rmac %02x:%02x:%02x:%02x:%02x:%02x", dv.av->rmac[0], dv.av->rmac[1],
	      dv.av->rmac[2], dv.av->rmac[3], dv.av->rmac[4], dv.av->rmac[5]);
	CHECK_ERR(ibv_destroy_ah(ah), 0);

	/* failures: no GRH on RoCE, an empty source GID, a GID nobody on the fabric owns, a dead handle */
	a.is_global = 0;
	errno = 0;
	CHECK(!ibv_create_ah(pd, &a) && errno == EINVAL, "no GRH: errno %d", errno);
	a.is_global = 1;
	a.grh.sgid_index = 9;
	errno = 0;
	CHECK(!ibv_create_ah(pd, &a) && errno == EINVAL, "empty sgid: errno %d", errno);
	a.grh.sgid_index = 1;
	memset(a.grh.dgid.raw, 0, 16);
	a.grh.dgid.raw[0] = 0x20;
	a.grh.dgid.raw[15] = 1;
	errno = 0;
	CHECK(!ibv_create_ah(pd, &a) && errno == EHOSTUNREACH, "unknown global dgid: errno %d", errno);
	struct ib_uverbs_destroy_ah d = { .ah_handle = 0xdead };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_DESTROY_AH, &d, sizeof(d), 0), EINVAL);
	struct ib_uverbs_create_ah_resp r;
	struct {
		struct ib_uverbs_create_ah c;
	} c;
	memset(&c, 0, sizeof(c));
	c.c.response = (uintptr_t)&r;
	c.c.pd_handle = 0xdead;
	c.c.attr.port_num = 1;
	c.c.attr.is_global = 1;
	memcpy(c.c.attr.grh.dgid, gid.raw, 16);
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_CREATE_AH, &c, sizeof(c), sizeof(r)), EINVAL);

	CHECK_ERR(ibv_dealloc_pd(pd), 0);
	CHECK_ERR(ibv_close_device(ctx), 0);
	return test_done("t_ah_eth");
}
