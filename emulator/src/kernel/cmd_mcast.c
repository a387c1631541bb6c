/* SPDX-License-Identifier: Apache-2.0 */
/* Multicast attachments: ATTACH_MCAST / DETACH_MCAST. The fabric-wide member table lives in the CM directory
 * (cm_wire.c); the engine sends a UD message addressed to QPN 0xffffff to every QP attached to its MGID.
 * Checks of ib_attach_mcast()/ib_detach_mcast(): a multicast GID (rdma_is_multicast_addr: first byte 0xff, or an
 * IPv4-mapped IPv4 multicast address, the RoCE v2 groups of rdma_cm) and a UD QP, else EINVAL. */
#include <errno.h>
#include <string.h>
#include <rdma/ib_user_verbs.h>

#include "ucma.h"
#include "uverbs.h"

static int multicast_gid(const uint8_t *g)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	return g[0] == 0xff || (memcmp(g, v4, 12) == 0 && (g[12] & 0xf0) == 0xe0);
}

static int mcast(struct emu_cmd *cmd, int attach)
{
	struct ib_uverbs_attach_mcast req; /* ib_uverbs_detach_mcast has the same layout */

	memcpy(&req, cmd->in, sizeof(req));
	emu_lock();
	struct emu_qp *qp = emu_qp_by_handle(cmd->ctx, req.qp_handle);
	uint32_t qpn = qp ? qp->qpn : 0;
	int type = qp ? qp->type : 0;
	emu_unlock();
	if (!qp || !multicast_gid(req.gid) || type != EMU_QPT_UD)
		return EINVAL;
	return attach ? cm_mcast_attach(req.gid, qpn) : cm_mcast_detach(req.gid, qpn);
}

int emu_cmd_attach_mcast(struct emu_cmd *cmd) { return mcast(cmd, 1); }
int emu_cmd_detach_mcast(struct emu_cmd *cmd) { return mcast(cmd, 0); }
