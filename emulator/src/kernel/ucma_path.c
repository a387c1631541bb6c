/* SPDX-License-Identifier: Apache-2.0 */
/* An rdma_cm id's port, path record and address vector: what route resolution and the CM messages report
 * (cma.c, cm.c), for IB and RoCE ports. */
#include <arpa/inet.h>
#include <string.h>

#include "ucma_state.h"

int emu_ucma_is_ud(const struct ucma_id *id) { return id->qp_type == 4; /* IB_QPT_UD */ }

const struct emu_port_info *emu_ucma_id_port(const struct ucma_id *id)
{
	return emu_port_info(id->dev >= 0 ? id->dev : 0);
}

int emu_ucma_eth(const struct ucma_id *id) { return emu_ucma_id_port(id)->link_layer == EMU_LINK_ETH; }

static uint8_t pkt_lifetime(const struct ucma_id *id) { return emu_ucma_eth(id) ? ROCE_PKT_LIFETIME : IB_PKT_LIFETIME; }

/* cm.c cm_ack_timeout(ca_ack_delay 16, packet life time) is packet life time + 1 for these values;
 * rdma_set_ack_timeout() overrides it */
uint8_t emu_ucma_ack_timeout(const struct ucma_id *id)
{
	return id->ack_timeout_set ? id->ack_timeout : (uint8_t)(pkt_lifetime(id) + 1);
}

uint8_t emu_ucma_port_mtu(const struct ucma_id *id) { return emu_ucma_eth(id) ? 3 /* 1024 */ : 5 /* 4096 */; }

uint8_t emu_ucma_path_mtu(const struct ucma_id *id)
{
	uint8_t m = emu_ucma_port_mtu(id);
	return id->peer_mtu && id->peer_mtu < m ? id->peer_mtu : m;
}

/* The GID this id's packets carry: the port GID on IB, its address's RoCE GID on Ethernet. */
void emu_ucma_local_gid(const struct ucma_id *id, uint8_t gid[16])
{
	if (emu_ucma_eth(id))
		emu_cm_addr_gid((const struct sockaddr *)&id->src, gid);
	else
		memcpy(gid, emu_ucma_id_port(id)->gid[0].raw, 16);
}

/* The traffic class of the id's path record, where RDMA_OPTION_ID_TOS ends up (Linux drivers/infiniband/core/cma.c):
 *  - passive side: the REQ's primary path (cm_format_paths_from_req copies its traffic class), whatever TOS the
 *    listener has; active side: what the route resolution computed from the TOS then (cma_resolve_iboe_route and
 *    cma_query_ib_route read it at RESOLVE_ROUTE);
 *  - RoCE: cma_resolve_iboe_route sets path_rec->traffic_class to the TOS when rdma_set_option set one (tos_set),
 *    else to the port's default_roce_tos, which cma_add_one initialises to 0 (configfs can change it; the
 *    emulator has no configfs);
 *  - IB: cma_query_ib_route puts the TOS into the PathRecord query only as its QoSClass (AF_INET); an SM without
 *    a QoS policy (the emulated one, as OpenSM with QoS off) answers traffic class 0 whatever the class. For
 *    AF_INET6 the query asks for the traffic class in the source address' sin6_flowinfo (bits 27..20), which the
 *    emulated SM grants. */
uint8_t emu_ucma_path_tclass(const struct ucma_id *id)
{
	if (id->route_tclass_set)
		return id->route_tclass; /* the route's path record keeps what it got: a later TOS changes nothing */
	if (emu_ucma_eth(id))
		return id->tos_set ? id->tos : 0;
	if (id->src.sin6_family == AF_INET6)
		return (uint8_t)(ntohl(id->src.sin6_flowinfo) >> 20);
	return 0;
}

/* The service level of the id's path record: 0 on both links here. RoCE: cma_resolve_iboe_route takes
 * iboe_tos_to_sl(ndev, tos), the priority rt_tos2priority(tos) mapped through the netdev's VLAN egress map or
 * prio-to-tc map, and 0 for a netdev with neither (the emulated ports have no VLAN and no traffic classes). IB:
 * the SL is the SM's choice for the QoS class; without a QoS policy it is the default SL 0. */
static uint8_t path_sl(const struct ucma_id *id)
{
	(void)id;
	return 0;
}

void emu_ucma_fill_path(const struct ucma_id *id, struct ib_user_path_rec *p)
{
	memset(p, 0, sizeof(*p));
	emu_ucma_local_gid(id, p->sgid);
	memcpy(p->dgid, id->peer_gid, 16);
	p->slid = htons(emu_ucma_id_port(id)->lid);
	p->dlid = htons(id->peer_lid);
	p->reversible = 1;
	p->mtu = emu_ucma_path_mtu(id);
	p->pkey = htons(0xffff);
	p->hop_limit = emu_ucma_eth(id) ? 64 : 0;
	p->traffic_class = emu_ucma_path_tclass(id);
	p->sl = path_sl(id);
	p->numb_path = 1;
	p->mtu_selector = 2;
	p->rate_selector = 2;
	p->rate = PATH_RATE;
	p->packet_life_time_selector = 2;
	p->packet_life_time = pkt_lifetime(id);
}

/* The address vector to the peer: no GRH inside the IB subnet, the RoCE v2 GID of our address on Ethernet. */
void emu_ucma_ah_to_user(const struct ucma_id *id, struct ib_uverbs_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = id->peer_lid;
	ah->static_rate = PATH_RATE;
	ah->port_num = 1;
	if (emu_ucma_eth(id)) {
		uint8_t sgid[16];
		emu_ucma_local_gid(id, sgid);
		int idx = emu_cm_gid_index(emu_ucma_id_port(id), sgid, 1);
		ah->is_global = 1;
		ah->dlid = 0;
		memcpy(ah->grh.dgid, id->peer_gid, 16);
		ah->grh.sgid_index = (uint8_t)(idx < 0 ? 1 : idx);
		ah->grh.hop_limit = 64;
		/* ib_init_ah_attr_from_path: the GRH's traffic class is the path's */
		ah->grh.traffic_class = emu_ucma_path_tclass(id);
	}
	ah->sl = path_sl(id);
}
