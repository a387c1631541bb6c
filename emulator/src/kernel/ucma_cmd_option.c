/* SPDX-License-Identifier: Apache-2.0 */
/* rdma_cm SET_OPTION (GET_OPTION is ENOSYS, as in the kernel). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucma_cmd.h"

int emu_ucma_cmd_set_option(struct ucmd *c)
{
	IN(struct rdma_ucm_set_option, cmd);
	int err;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (cmd.optlen > 4096)
		return EINVAL; /* ucma_set_option: memdup_user of optlen, bounded by the kernel's allocator */
	uint8_t val[4096];
	if (cmd.optlen && emu_copy_from_user(val, cmd.optval, cmd.optlen))
		return EFAULT;
	if (cmd.level == RDMA_OPTION_ID) {
		switch (cmd.optname) {
		case RDMA_OPTION_ID_TOS:
			if (cmd.optlen != 1)
				return EINVAL;
			id->tos = val[0];
			id->tos_set = 1;
			return 0;
		case RDMA_OPTION_ID_REUSEADDR: {
			if (cmd.optlen != sizeof(int))
				return EINVAL;
			int v;
			memcpy(&v, val, sizeof(v));
			/* rdma_set_reuseaddr: only before binding */
			if (id->state != S_IDLE)
				return EINVAL;
			id->reuse = (uint8_t)!!v;
			return 0;
		}
		case RDMA_OPTION_ID_AFONLY: {
			if (cmd.optlen != sizeof(int))
				return EINVAL;
			int v;
			memcpy(&v, val, sizeof(v));
			if (id->state != S_IDLE)
				return EINVAL;
			id->afonly = (uint8_t)!!v;
			id->afonly_set = 1;
			return 0;
		}
		case RDMA_OPTION_ID_ACK_TIMEOUT:
			if (cmd.optlen != 1)
				return EINVAL;
			id->ack_timeout = val[0] > 31 ? 31 : val[0];
			id->ack_timeout_set = 1;
			return 0;
		default:
			return ENOSYS;
		}
	}
	if (cmd.level == RDMA_OPTION_IB && cmd.optname == RDMA_OPTION_IB_PATH) {
		/* ucma_set_ib_path: whole path records, at least one; the route is then resolved with our path */
		if (!cmd.optlen || cmd.optlen % sizeof(struct ib_path_rec_data))
			return EINVAL;
		if (id->state != S_ADDR_RESOLVED)
			return EINVAL;
		id->state = S_ROUTE_QUERY;
		emu_ucma_set_timer(id, T_ROUTE_DONE, emu_ucma_resolve_ns());
		cm_wake_self();
		return 0;
	}
	return ENOSYS;
}
