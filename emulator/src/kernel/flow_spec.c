/* SPDX-License-Identifier: Apache-2.0 */
/* The EX_CREATE_FLOW payload parser (interface and sources in flow_rule.h). Pure: reads only the bytes given.
 *
 * Layout (include/uapi/rdma/ib_user_verbs.h): struct ib_uverbs_create_flow = comp_mask(4) qp_handle(4) then
 * struct ib_uverbs_flow_attr = type(4) size(2) priority(2) num_of_specs(1) reserved[2] port(1) flags(4), then
 * num_of_specs specs, each a struct ib_uverbs_flow_spec_hdr = type(4) size(2) reserved(2) followed, for filters,
 * by a value and a mask of (size - 8) / 2 bytes each, and for actions by their arguments. */
#include <errno.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "flow_rule.h"

#define CREATE_FLOW_HDR   24   /* sizeof(struct ib_uverbs_create_flow) without the specs */
#define SPEC_HDR          8    /* sizeof(struct ib_uverbs_flow_spec_hdr) */
/* sizeof(struct ib_uverbs_flow_spec) in drivers/infiniband/core/uverbs.h: the union of every spec the kernel
 * knows, whose largest member is the IPv6 spec (8 + 2 * 40 bytes). */
#define SPEC_UNION_SIZE   88
#define SUPPORT_LAYERS    10   /* IB_FLOW_SPEC_SUPPORT_LAYERS (include/rdma/ib_verbs.h) */
#define ATTR_FLAGS_RESERVED (1u << 3) /* IB_FLOW_ATTR_FLAGS_RESERVED */
#define LAST_PRIO         15   /* MLX5_IB_FLOW_LAST_PRIO: MLX5_BY_PASS_NUM_REGULAR_PRIOS - 1 */
/* Real sizes of the kernel's filters (offsetof(struct ib_flow_*_filter, real_sz), include/rdma/ib_verbs.h). */
#define ETH_REAL   16
#define IPV4_REAL  12
#define IPV6_REAL  39
#define L4_REAL    4

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }   /* host order (ABI) */
static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static int nonzero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 1;
	return 0;
}

/* Add an IP protocol match; a second one that contradicts the first (TCP spec plus an IPv4 spec naming UDP) is
 * invalid. */
static int set_proto(struct emu_flow_rule *r, uint8_t proto, uint8_t mask)
{
	if (!mask)
		return 0;
	if ((r->fields & EMU_FM_IP_PROTO) && (r->ip_proto & r->ip_proto_m & mask) != (proto & r->ip_proto_m & mask))
		return 1;
	r->ip_proto = (uint8_t)((r->ip_proto & r->ip_proto_m) | (proto & mask));
	r->ip_proto_m |= mask;
	r->fields |= EMU_FM_IP_PROTO;
	return 0;
}

/* Apply one filter spec (value v, mask m, each `sz` bytes after the kernel's size rules) to the rule. */
static int apply_filter(uint32_t type, const uint8_t *v, const uint8_t *m, size_t sz, struct emu_flow_rule *r,
			int *l3_seen)
{
	uint8_t val[40] = { 0 }, mask[40] = { 0 };
	memcpy(val, v, sz);
	memcpy(mask, m, sz);
	switch (type) {
	case IBV_FLOW_SPEC_ETH:
		/* struct ib_uverbs_flow_eth_filter: dst_mac[6] src_mac[6] ether_type(be16) vlan_tag(be16) */
		memcpy(r->dmac, val, 6);
		memcpy(r->dmac_m, mask, 6);
		memcpy(r->smac, val + 6, 6);
		memcpy(r->smac_m, mask + 6, 6);
		r->ethertype = be16(val + 12);
		r->ethertype_m = be16(mask + 12);
		r->vlan = be16(val + 14);
		r->vlan_m = be16(mask + 14);
		if (nonzero(mask, 6)) r->fields |= EMU_FM_DMAC;
		if (nonzero(mask + 6, 6)) r->fields |= EMU_FM_SMAC;
		if (r->ethertype_m) r->fields |= EMU_FM_ETHERTYPE;
		if (r->vlan_m) r->fields |= EMU_FM_VLAN;
		return 0;
	case IBV_FLOW_SPEC_IPV4:
		/* struct ib_uverbs_flow_ipv4_filter: src_ip dst_ip proto tos ttl flags. mlx5 parse_flow_attr() matches up
		 * to ttl (LAST_IPV4_FIELD); a mask on flags is EOPNOTSUPP. */
		if (mask[11])
			return EOPNOTSUPP;
		*l3_seen = 4;
		memset(r->src_ip, 0, 16); memset(r->src_ip_m, 0, 16);
		memset(r->dst_ip, 0, 16); memset(r->dst_ip_m, 0, 16);
		memcpy(r->src_ip, val, 4);
		memcpy(r->src_ip_m, mask, 4);
		memcpy(r->dst_ip, val + 4, 4);
		memcpy(r->dst_ip_m, mask + 4, 4);
		if (set_proto(r, val[8], mask[8]))
			return EINVAL;
		r->tos = val[9]; r->tos_m = mask[9];
		r->ttl = val[10]; r->ttl_m = mask[10];
		if (nonzero(mask, 4)) r->fields |= EMU_FM_IP4_SRC;
		if (nonzero(mask + 4, 4)) r->fields |= EMU_FM_IP4_DST;
		if (mask[9]) r->fields |= EMU_FM_IP4_TOS;
		if (mask[10]) r->fields |= EMU_FM_IP4_TTL;
		return 0;
	case IBV_FLOW_SPEC_IPV6:
		/* struct ib_uverbs_flow_ipv6_filter: src_ip[16] dst_ip[16] flow_label(be32) next_hdr traffic_class
		 * hop_limit; the kernel rejects flow labels of 20 bits or more (kern_spec_to_ib_spec_filter) */
		if (be32(val + 32) >= (1u << 20) || be32(mask + 32) >= (1u << 20))
			return EINVAL;
		*l3_seen = 6;
		memcpy(r->src_ip, val, 16);
		memcpy(r->src_ip_m, mask, 16);
		memcpy(r->dst_ip, val + 16, 16);
		memcpy(r->dst_ip_m, mask + 16, 16);
		r->flow_label = be32(val + 32);
		r->flow_label_m = be32(mask + 32);
		if (set_proto(r, val[36], mask[36]))
			return EINVAL;
		r->tos = val[37]; r->tos_m = mask[37];
		r->ttl = val[38]; r->ttl_m = mask[38];
		if (nonzero(mask, 16)) r->fields |= EMU_FM_IP6_SRC;
		if (nonzero(mask + 16, 16)) r->fields |= EMU_FM_IP6_DST;
		if (r->flow_label_m) r->fields |= EMU_FM_IP6_FLOW;
		if (mask[37]) r->fields |= EMU_FM_IP6_TCLASS;
		if (mask[38]) r->fields |= EMU_FM_IP6_HOPLIM;
		return 0;
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP: {
		/* struct ib_uverbs_flow_tcp_udp_filter: dst_port src_port. mlx5 adds the ip_protocol match itself. */
		if (set_proto(r, type == IBV_FLOW_SPEC_TCP ? 6 : 17, 0xff))
			return EINVAL;
		r->dport = be16(val);
		r->dport_m = be16(mask);
		r->sport = be16(val + 2);
		r->sport_m = be16(mask + 2);
		if (r->dport_m) r->fields |= EMU_FM_DPORT;
		if (r->sport_m) r->fields |= EMU_FM_SPORT;
		return 0;
	}
	default:
		return EINVAL;
	}
}

int emu_flow_parse(const uint8_t *in, size_t in_len, uint32_t *qp_handle, struct emu_flow_rule *r)
{
	memset(r, 0, sizeof(*r));
	if (in_len < CREATE_FLOW_HDR)
		return EINVAL;
	uint32_t comp_mask = rd32(in);
	*qp_handle = rd32(in + 4);
	const uint8_t *a = in + 8;
	uint32_t type = rd32(a);
	uint16_t size = rd16(a + 4);
	uint16_t priority = rd16(a + 6);
	uint8_t nspecs = a[8];
	uint8_t port = a[11];
	uint32_t flags = rd32(a + 12);
	/* core checks, in ib_uverbs_ex_create_flow()'s order */
	if (comp_mask)
		return EINVAL;
	if (flags >= ATTR_FLAGS_RESERVED)
		return EINVAL;
	if ((flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP) && (type == EMU_FLOW_ALL_DEFAULT || type == EMU_FLOW_MC_DEFAULT))
		return EINVAL;
	if (nspecs > SUPPORT_LAYERS)
		return EINVAL;
	if (size > in_len - CREATE_FLOW_HDR || size > (size_t)nspecs * SPEC_UNION_SIZE)
		return EINVAL;
	if (a[9] || a[10])
		return EINVAL;

	const uint8_t *s = in + CREATE_FLOW_HDR;
	size_t left = size;
	int i, l3 = 0, drops = 0;
	for (i = 0; i < nspecs && left >= SPEC_HDR && left >= rd16(s + 4); i++) {
		uint32_t st = rd32(s);
		uint16_t ssz = rd16(s + 4);
		if (rd16(s + 6) || ssz < SPEC_HDR)
			return EINVAL;
		if (st >= IBV_FLOW_SPEC_ACTION_TAG) {
			/* kern_spec_to_ib_spec_action(): each action has an exact size */
			if (st == IBV_FLOW_SPEC_ACTION_TAG) {
				if (ssz != 16)
					return EINVAL;
				/* mlx5 parse_flow_flow_action(): 24-bit tags, one tag per rule */
				uint32_t tag = rd32(s + 8);
				if (tag >= (1u << 24) || r->has_tag)
					return EINVAL;
				r->has_tag = 1;
				r->tag = tag;
			} else if (st == IBV_FLOW_SPEC_ACTION_DROP) {
				if (ssz != SPEC_HDR || drops++)
					return EINVAL;
				r->drop = 1;
			} else {
				return EINVAL; /* flow action / counters handles: no such objects exist here */
			}
		} else {
			size_t fsz = (size_t)(ssz - SPEC_HDR) / 2;
			if (fsz % 4)
				return EINVAL; /* "User flow spec size must be aligned to 4 bytes" */
			const uint8_t *val = s + SPEC_HDR, *mask = val + fsz;
			size_t real;
			switch (st) {
			case IBV_FLOW_SPEC_ETH: real = ETH_REAL; break;
			case IBV_FLOW_SPEC_IPV4: real = IPV4_REAL; break;
			case IBV_FLOW_SPEC_IPV6: real = IPV6_REAL; break;
			case IBV_FLOW_SPEC_TCP:
			case IBV_FLOW_SPEC_UDP: real = L4_REAL; break;
			case IBV_FLOW_SPEC_VXLAN_TUNNEL | IBV_FLOW_SPEC_INNER:
				return EINVAL;
			case IBV_FLOW_SPEC_VXLAN_TUNNEL:
			case IBV_FLOW_SPEC_ESP:
			case IBV_FLOW_SPEC_GRE:
			case IBV_FLOW_SPEC_MPLS:
				return EOPNOTSUPP; /* tunnels and ESP: not emulated */
			default:
				if (st & IBV_FLOW_SPEC_INNER)
					return EOPNOTSUPP; /* inner (tunnelled) headers: not emulated */
				return EINVAL;
			}
			/* spec_filter_size(): bytes of the mask beyond what the kernel knows must be zero */
			size_t actual = fsz;
			if (fsz > real) {
				if (nonzero(mask + real, fsz - real))
					return EINVAL;
				actual = real;
			}
			if (actual == 0)
				return EINVAL;
			int err = apply_filter(st, val, mask, actual, r, &l3);
			if (err)
				return err;
		}
		left -= ssz;
		s += ssz;
	}
	if (left || i != nspecs)
		return EINVAL;
	if (type > EMU_FLOW_SNIFFER)
		return EINVAL;

	/* mlx5_ib_create_flow() */
	if (priority > LAST_PRIO)
		return ENOMEM;
	if (flags & ~(uint32_t)(IBV_FLOW_ATTR_FLAGS_DONT_TRAP | IBV_FLOW_ATTR_FLAGS_EGRESS))
		return EINVAL;
	if ((flags & IBV_FLOW_ATTR_FLAGS_EGRESS) && (type == EMU_FLOW_ALL_DEFAULT || type == EMU_FLOW_MC_DEFAULT))
		return EINVAL;
	if (flags & IBV_FLOW_ATTR_FLAGS_EGRESS)
		return EOPNOTSUPP; /* egress rules carry packet-reformat / ESP actions: not emulated */
	if (port != 1)
		return EINVAL;
	if (r->has_tag && (type == EMU_FLOW_ALL_DEFAULT || type == EMU_FLOW_MC_DEFAULT))
		return EINVAL; /* "Flow tag ... isn't allowed in leftovers" */
	/* An IP spec implies the ethertype match; an explicit full ethertype mask that contradicts it is invalid
	 * (mlx5 is_valid_ethertype()). */
	if (l3) {
		uint16_t et = l3 == 4 ? 0x0800 : 0x86dd;
		if (r->ethertype_m == 0xffff && r->ethertype != et)
			return EINVAL;
		r->ip_version = (uint8_t)l3;
		r->ethertype = et;
		r->ethertype_m = 0xffff;
		r->fields |= EMU_FM_ETHERTYPE;
	}
	r->type = (uint8_t)type;
	r->priority = priority;
	r->dont_trap = (flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP) != 0;
	return 0;
}
