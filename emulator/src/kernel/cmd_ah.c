/* SPDX-License-Identifier: Apache-2.0 */
/* Address handles through the kernel: CREATE_AH / DESTROY_AH. libmlx5 builds IB address vectors itself and only
 * asks the kernel on RoCE, to learn the destination MAC (mlx5_ib_create_ah_resp.dmac). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "uverbs.h"


/* As the kernel resolves it (ib_resolve_eth_dmac): a link-local GID carries the MAC in its modified EUI-64;
 * anything else must be a GID of a port on the emulated fabric (there is no neighbour table to ask). */
int emu_resolve_dmac(const uint8_t *dgid, uint8_t *mac)
{
	static const uint8_t ll[8] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0 }, v4[12] = { [10] = 0xff, [11] = 0xff };
	if (memcmp(dgid, v4, 12) == 0 && (dgid[12] & 0xf0) == 0xe0) {
		/* an IPv4-mapped multicast GID (RoCE v2 groups): ip_eth_mc_map, 01:00:5e + the low 23 address bits */
		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = dgid[13] & 0x7f;
		mac[4] = dgid[14];
		mac[5] = dgid[15];
		return 0;
	}
	if (dgid[0] == 0xff) {
		/* rdma_get_mcast_mac(): the IPv6 multicast MAC 33:33 + the GID's last four bytes */
		mac[0] = 0x33;
		mac[1] = 0x33;
		memcpy(mac + 2, dgid + 12, 4);
		return 0;
	}
	if (memcmp(dgid, ll, 8) == 0 && dgid[11] == 0xff && dgid[12] == 0xfe) {
		mac[0] = dgid[8] ^ 0x02;
		mac[1] = dgid[9];
		mac[2] = dgid[10];
		mac[3] = dgid[13];
		mac[4] = dgid[14];
		mac[5] = dgid[15];
		return 0;
	}
	for (int d = 0; d < emu_num_devices(); d++) {
		const struct emu_port_info *p = emu_port_info(d);
		for (int i = 0; i < p->num_gids; i++)
			if (memcmp(p->gid[i].raw, dgid, 16) == 0) {
				memcpy(mac, p->mac, 6);
				return 0;
			}
	}
	return EHOSTUNREACH;
}

int emu_cmd_create_ah(struct emu_cmd *cmd)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct ib_uverbs_create_ah req;
	struct ib_uverbs_create_ah_resp r;
	struct mlx5_ib_create_ah_resp d;
	const struct emu_port_info *p = ctx->port;
	int eth = p->link_layer == EMU_LINK_ETH;

	memcpy(&req, cmd->in, sizeof(req));
	if (req.attr.port_num != 1)
		return EINVAL;
	if (eth && !req.attr.is_global)
		return EINVAL;
	if (req.attr.is_global && req.attr.grh.sgid_index >= p->num_gids)
		return EINVAL;
	struct emu_ah *ah = calloc(1, sizeof(*ah));
	if (!ah)
		return ENOMEM;
	memset(&d, 0, sizeof(d));
	if (eth) {
		/* mlx5 answers RoCE AHs with the resolved MAC and needs room for it */
		if (cmd->drv_out_len < offsetof(struct mlx5_ib_create_ah_resp, reserved)) {
			free(ah);
			return EINVAL;
		}
		int err = emu_resolve_dmac(req.attr.grh.dgid, ah->path.dmac);
		if (err) {
			free(ah);
			return err;
		}
		d.response_length = offsetof(struct mlx5_ib_create_ah_resp, reserved);
		memcpy(d.dmac, ah->path.dmac, 6);
	}
	ah->ctx = ctx;
	ah->path.dlid = req.attr.dlid;
	ah->path.sl = req.attr.sl;
	ah->path.src_path_bits = req.attr.src_path_bits;
	ah->path.static_rate = req.attr.static_rate;
	ah->path.is_global = req.attr.is_global;
	ah->path.port_num = req.attr.port_num;
	ah->path.sgid_index = req.attr.grh.sgid_index;
	ah->path.hop_limit = req.attr.grh.hop_limit;
	ah->path.traffic_class = req.attr.grh.traffic_class;
	ah->path.flow_label = req.attr.grh.flow_label;
	memcpy(ah->path.dgid, req.attr.grh.dgid, 16);
	emu_lock();
	struct emu_pd *pd = emu_pd_by_handle(ctx, req.pd_handle);
	if (pd) {
		ah->pd = pd;
		ah->handle = emu_ctx_new_handle(ctx);
	}
	emu_unlock();
	if (!pd) {
		free(ah);
		return EINVAL;
	}
	r.ah_handle = ah->handle;
	int err = emu_cmd_respond(cmd, &r, sizeof(r));
	if (!err && eth)
		err = emu_cmd_respond_drv(cmd, &d, d.response_length);
	if (err) {
		free(ah);
		return err;
	}
	emu_lock();
	ah->next = ctx->ahs;
	ctx->ahs = ah;
	emu_unlock();
	return 0;
}

int emu_cmd_destroy_ah(struct emu_cmd *cmd)
{
	struct ib_uverbs_destroy_ah req;
	struct emu_ah *found = NULL;

	memcpy(&req, cmd->in, sizeof(req));
	emu_lock();
	for (struct emu_ah **p = &cmd->ctx->ahs; *p; p = &(*p)->next)
		if ((*p)->handle == req.ah_handle) {
			found = *p;
			*p = found->next;
			break;
		}
	emu_unlock();
	if (!found)
		return EINVAL;
	free(found);
	return 0;
}

void emu_destroy_all_ahs(struct emu_ctx *ctx)
{
	emu_lock();
	for (struct emu_ah *ah = ctx->ahs, *n; ah; ah = n) {
		n = ah->next;
		free(ah);
	}
	ctx->ahs = NULL;
	emu_unlock();
}
