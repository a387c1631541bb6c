/* SPDX-License-Identifier: Apache-2.0 */
/* rdma_cm multicast: JOIN_IP_MCAST, JOIN_MCAST, LEAVE_MCAST. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucma_cmd.h"

/* cma_set_mgid / cma_iboe_set_mgid: the group's MGID from the address. IB: the IPoIB mapping (ip_ib_mc_map,
 * ipv6_ib_mc_map) with the broadcast group's scope 2 and P_Key 0xffff, byte 3 = 0x01 for RDMA_PS_UDP (the
 * RDMA CM signature). RoCE: the port's default GID type for rdma_cm is RoCE v2 (cma_add_one prefers
 * CMA_PREFERRED_ROCE_GID_TYPE, IB_GID_TYPE_ROCE_UDP_ENCAP), for which cma_iboe_set_mgid maps an IPv4 group to
 * the IPv4-mapped ::ffff:a.b.c.d (ff0e::ffff:a.b.c.d is the RoCE v1 form); IPv6 groups never get here on RoCE
 * (do_join). */
static void mc_mgid(const struct ucma_id *id, const struct sockaddr *sa, uint8_t mgid[16])
{
	memset(mgid, 0, 16);
	if (emu_ucma_eth(id)) {
		mgid[10] = mgid[11] = 0xff;
		memcpy(mgid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return;
	}
	mgid[0] = 0xff;
	mgid[1] = 0x12;
	mgid[2] = sa->sa_family == AF_INET ? 0x40 : 0x60;
	mgid[3] = id->ps == RDMA_PS_UDP ? 0x01 : 0x1b;
	mgid[4] = mgid[5] = 0xff;
	if (sa->sa_family == AF_INET) {
		memcpy(mgid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		mgid[12] &= 0x0f;
	} else {
		memcpy(mgid + 6, &((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr[6], 10);
	}
}

/* rdma_join_multicast: the emulated SA (IB) creates the group at once; the join completes on the CM thread's
 * schedule like a MAD would, reported as MULTICAST_JOIN with the group's address vector, QPN 0xffffff and Q_Key. */
static int do_join(struct ucmd *c, uint32_t handle, uint64_t uid, uint64_t response, const struct sockaddr *addr,
		   uint16_t join_flags)
{
	struct rdma_ucm_create_id_resp resp;
	int err;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	if (join_flags != RDMA_MC_JOIN_FLAG_FULLMEMBER && join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		return EINVAL;
	struct ucma_id *id = emu_ucma_id_get(c->f, handle, &err);
	if (!id)
		return err;
	if (id->dev < 0 || (id->state != S_ADDR_BOUND && id->state != S_ADDR_RESOLVED))
		return EINVAL;
	if (!emu_ucma_is_mcast_addr(addr))
		return EINVAL;
	if (emu_ucma_eth(id) && addr->sa_family == AF_INET6)
		return KERNEL_ENOTSUPP; /* cma_iboe_join_multicast: an IPv6 group with the RoCE v2 GID type */
	uint32_t h = 0;
	while (h < emu_ucma_mcs_cap && emu_ucma_mcs[h])
		h++;
	if (h == emu_ucma_mcs_cap) {
		uint32_t cap = emu_ucma_mcs_cap ? emu_ucma_mcs_cap * 2 : 16;
		if (cap > 1u << 16)
			return ENOMEM;
		struct ucma_mc **n = realloc(emu_ucma_mcs, cap * sizeof(*n));
		if (!n)
			return ENOMEM;
		memset(n + emu_ucma_mcs_cap, 0, (cap - emu_ucma_mcs_cap) * sizeof(*n));
		emu_ucma_mcs = n;
		emu_ucma_mcs_cap = cap;
	}
	struct ucma_mc *mc = calloc(1, sizeof(*mc));
	if (!mc)
		return ENOMEM;
	mc->id = id;
	mc->handle = h;
	mc->uid = uid;
	mc_mgid(id, addr, mc->mgid);
	mc->mlid = emu_ucma_eth(id) ? 0 : (uint16_t)(0xc000 | ((mc->mgid[14] << 8 | mc->mgid[15]) & 0x3fff));
	resp.id = h;
	if (respond(response, &resp, sizeof(resp))) {
		free(mc);
		return EFAULT;
	}
	emu_ucma_mcs[h] = mc;
	struct ucma_event *e = emu_ucma_queue_event(id, EV_MULTICAST_JOIN, 0);
	if (e) {
		e->mc = mc;
		e->resp.uid = mc->uid;
		e->resp.id = mc->handle;
		struct rdma_ucm_ud_param *u = &e->resp.param.ud;
		struct ib_uverbs_ah_attr *ah = &u->ah_attr;
		memset(ah, 0, sizeof(*ah));
		ah->is_global = 1;
		ah->dlid = mc->mlid;
		ah->port_num = 1;
		ah->static_rate = PATH_RATE;
		memcpy(ah->grh.dgid, mc->mgid, 16);
		if (emu_ucma_eth(id)) {
			uint8_t sgid[16];
			emu_ucma_local_gid(id, sgid);
			int idx = emu_cm_gid_index(emu_ucma_id_port(id), sgid, 1);
			ah->grh.sgid_index = (uint8_t)(idx < 0 ? 1 : idx);
			ah->grh.hop_limit = 64;
		}
		/* the group's traffic class, not the id's TOS: cma_iboe_join_multicast leaves the RoCE member record's
		 * traffic class 0, and on IB it is the SA's MCMemberRecord of the group (TClass 0 for the groups the
		 * emulated SM creates) */
		ah->grh.traffic_class = 0;
		u->qp_num = 0xffffff;
		u->qkey = id->qkey;
	}
	return 0;
}

int emu_ucma_cmd_join_ip(struct ucmd *c)
{
	IN(struct rdma_ucm_join_ip_mcast, cmd);
	if (!emu_ucma_addr_size((struct sockaddr *)&cmd.addr) || cmd.addr.sin6_family == 27)
		return EINVAL;
	return do_join(c, cmd.id, cmd.uid, cmd.response, (struct sockaddr *)&cmd.addr, RDMA_MC_JOIN_FLAG_FULLMEMBER);
}

int emu_ucma_cmd_join(struct ucmd *c)
{
	IN(struct rdma_ucm_join_mcast, cmd);
	if (cmd.addr_size != emu_ucma_addr_size((struct sockaddr *)&cmd.addr))
		return EINVAL;
	if (cmd.addr.ss_family == 27)
		return EAFNOSUPPORT;
	return do_join(c, cmd.id, cmd.uid, cmd.response, (struct sockaddr *)&cmd.addr, cmd.join_flags);
}

/* ucma_leave_multicast: the membership goes with its unreported events; returns its events_reported */
int emu_ucma_cmd_leave(struct ucmd *c)
{
	IN(struct rdma_ucm_destroy_id, cmd);
	struct rdma_ucm_destroy_id_resp resp;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	if (cmd.id >= emu_ucma_mcs_cap || !emu_ucma_mcs[cmd.id])
		return ENOENT;
	struct ucma_mc *mc = emu_ucma_mcs[cmd.id];
	if (mc->id->file != c->f)
		return EINVAL;
	struct ucma_file *f = mc->id->file;
	struct ucma_event **pp = &f->head, *prev = NULL;
	while (*pp) {
		struct ucma_event *e = *pp;
		if (e->mc == mc) {
			*pp = e->next;
			if (f->tail == e)
				f->tail = prev;
			free(e);
			continue;
		}
		prev = e;
		pp = &e->next;
	}
	emu_ucma_file_signal(f);
	resp.events_reported = mc->events_reported;
	emu_ucma_mcs[cmd.id] = NULL;
	free(mc);
	return respond(cmd.response, &resp, sizeof(resp));
}
