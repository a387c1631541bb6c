/* SPDX-License-Identifier: Apache-2.0 */
/*
 * flow_rule.h - one steering rule of ibv_create_flow as the emulated ConnectX holds it, the parser that turns the
 * uverbs EX_CREATE_FLOW payload into it, and the flow object shared by the uverbs "kernel" (src/kernel/cmd_flow.c)
 * and the engine (src/engine/eng_steer.c).
 *
 * Sources: the write ABI is include/uapi/rdma/ib_user_verbs.h (struct ib_uverbs_create_flow, ib_uverbs_flow_attr,
 * ib_uverbs_flow_spec_*); the core checks are Linux drivers/infiniband/core/uverbs_cmd.c ib_uverbs_ex_create_flow()
 * and kern_spec_to_ib_spec(); the driver checks and the meaning of each rule type are mlx5_ib's fs.c
 * (mlx5_ib_create_flow(), parse_flow_attr(), create_leftovers_rule(), create_sniffer_rule()).
 */
#ifndef MLX5EMU_FLOW_RULE_H
#define MLX5EMU_FLOW_RULE_H

#include <stddef.h>
#include <stdint.h>

/* Rule types (enum ibv_flow_attr_type) */
enum { EMU_FLOW_NORMAL = 0, EMU_FLOW_ALL_DEFAULT = 1, EMU_FLOW_MC_DEFAULT = 2, EMU_FLOW_SNIFFER = 3 };

/* Which fields a rule matches (a bit is set when the rule's mask for that field is not all-zero). */
enum {
	EMU_FM_DMAC = 1u << 0, EMU_FM_SMAC = 1u << 1, EMU_FM_ETHERTYPE = 1u << 2, EMU_FM_VLAN = 1u << 3,
	EMU_FM_IP4_SRC = 1u << 4, EMU_FM_IP4_DST = 1u << 5, EMU_FM_IP_PROTO = 1u << 6, EMU_FM_IP4_TOS = 1u << 7,
	EMU_FM_IP4_TTL = 1u << 8, EMU_FM_IP6_SRC = 1u << 9, EMU_FM_IP6_DST = 1u << 10, EMU_FM_IP6_FLOW = 1u << 11,
	EMU_FM_IP6_TCLASS = 1u << 12, EMU_FM_IP6_HOPLIM = 1u << 13, EMU_FM_SPORT = 1u << 14, EMU_FM_DPORT = 1u << 15,
};

/* Values and masks in wire order (network byte order for multi-byte fields), as the specs carry them. */
struct emu_flow_rule {
	uint8_t  type;          /* EMU_FLOW_* */
	uint8_t  dont_trap;     /* IBV_FLOW_ATTR_FLAGS_DONT_TRAP: copy, then keep looking at lower priorities */
	uint16_t priority;      /* 0 (highest) .. 15 */
	uint32_t fields;        /* EMU_FM_* */
	uint8_t  drop;          /* IBV_FLOW_SPEC_ACTION_DROP */
	uint8_t  has_tag;
	uint32_t tag;           /* IBV_FLOW_SPEC_ACTION_TAG tag_id (24 bits) */
	/* L2 */
	uint8_t  dmac[6], dmac_m[6], smac[6], smac_m[6];
	uint16_t ethertype, ethertype_m, vlan, vlan_m;       /* host order */
	/* L3: ip_version 0 = any, 4 or 6 (implied by an IPV4/IPV6 spec, as mlx5 adds the ethertype match) */
	uint8_t  ip_version;
	uint8_t  ip_proto, ip_proto_m;                        /* IPv4 proto / IPv6 next header; TCP/UDP imply it */
	uint8_t  tos, tos_m, ttl, ttl_m;                      /* IPv4 tos / ttl; IPv6 traffic class / hop limit */
	uint8_t  src_ip[16], src_ip_m[16], dst_ip[16], dst_ip_m[16]; /* IPv4 in the first 4 bytes */
	uint32_t flow_label, flow_label_m;                    /* host order, 20 bits */
	/* L4 */
	uint16_t sport, sport_m, dport, dport_m;              /* host order */
};

/* Parse the core part of an EX_CREATE_FLOW request (struct ib_uverbs_create_flow followed by the specs), in_len
 * bytes, into *r and *qp_handle. Returns 0 or the errno the Linux kernel (core + mlx5_ib) gives for that payload,
 * in the kernel's order of checks except the ones that need objects (QP lookup, CAP_NET_RAW), which the caller
 * does. Pure: touches nothing but its arguments, so it is fuzzed (fuzz/flow_spec.c). */
int emu_flow_parse(const uint8_t *in, size_t in_len, uint32_t *qp_handle, struct emu_flow_rule *r);

/* A frame's headers as the steering logic and the receive CQE need them. */
struct emu_frame_info {
	uint8_t  dmac[6], smac[6];
	uint16_t ethertype;     /* after an 802.1Q tag */
	int      has_vlan;
	uint16_t vlan_tci;
	size_t   l3_off;        /* 0 when no IP header */
	int      ip_version;    /* 0, 4, 6 */
	int      ip_frag;       /* IPv4 fragment (MF or offset): no L4 parsing, as hardware */
	uint8_t  ip_proto, tos, ttl;
	uint8_t  src_ip[16], dst_ip[16];
	uint32_t flow_label;
	size_t   l3_len;        /* IP header length */
	size_t   ip_total;      /* IP packet length from its header, bounded by the frame */
	size_t   l4_off;        /* 0 when no TCP/UDP header in the frame */
	uint16_t sport, dport;
	uint8_t  tcp_flags;
	size_t   l4_payload;    /* TCP/UDP payload bytes */
};

/* Parse the headers of a frame (pure, bounds-checked). Returns 0 if it has at least an Ethernet header. */
int emu_frame_parse(const uint8_t *f, size_t len, struct emu_frame_info *fi);

/* Does the rule's match (not its type) accept the frame? */
int emu_flow_match(const struct emu_flow_rule *r, const struct emu_frame_info *fi);

/* The flow object: created by K on EX_CREATE_FLOW, handed to the engine with the hooks below. */
struct emu_qp;
struct emu_ctx;
struct emu_flow {
	struct emu_flow *next;
	struct emu_ctx  *ctx;
	struct emu_qp   *qp;
	uint32_t         handle;
	int              dev_index;  /* the port (device) of the QP */
	struct emu_flow_rule rule;
	void            *engine;     /* [engine] */
};

/* Engine hooks (weak no-ops in src/kernel/hooks_flow_weak.c), called without emu_lock held, like engine_hooks.h. */
void emu_engine_flow_created(struct emu_flow *f);
void emu_engine_flow_destroying(struct emu_flow *f);

#endif
