/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_frame.c - Ethernet frames: header parsing, flow-rule matching, checksums as a ConnectX computes them
 * (IPv4 header checksum, TCP/UDP checksums over the IPv4 or IPv6 pseudo-header: RFC 791, 768, 793, 8200),
 * and the receive-side checks that become the CQE's L3_OK/L4_OK bits. Pure functions over bytes (fuzzed through
 * fuzz/wqe_parse.c and fuzz/flow_spec.c).
 */
#include "engine/eng_frame.h"

#include <string.h>

static uint16_t rd_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

int emu_frame_parse(const uint8_t *f, size_t len, struct emu_frame_info *fi)
{
	memset(fi, 0, sizeof(*fi));
	if (len < 14)
		return -1;
	memcpy(fi->dmac, f, 6);
	memcpy(fi->smac, f + 6, 6);
	size_t off = 12;
	uint16_t et = rd_be16(f + off);
	if (et == 0x8100 && len >= 18) {
		fi->has_vlan = 1;
		fi->vlan_tci = rd_be16(f + 14);
		off += 4;
		et = rd_be16(f + off);
	}
	off += 2;
	fi->ethertype = et;
	if (et == 0x0800 && len >= off + 20 && (f[off] >> 4) == 4) {
		size_t ihl = (size_t)(f[off] & 0xf) * 4;
		if (ihl < 20 || len < off + ihl)
			return 0;
		fi->ip_version = 4;
		fi->l3_off = off;
		fi->l3_len = ihl;
		fi->tos = f[off + 1];
		fi->ttl = f[off + 8];
		fi->ip_proto = f[off + 9];
		memcpy(fi->src_ip, f + off + 12, 4);
		memcpy(fi->dst_ip, f + off + 16, 4);
		size_t tot = rd_be16(f + off + 2);
		fi->ip_total = tot > len - off ? len - off : tot;
		uint16_t frag = rd_be16(f + off + 6);
		fi->ip_frag = (frag & 0x2000) || (frag & 0x1fff);
	} else if (et == 0x86dd && len >= off + 40 && (f[off] >> 4) == 6) {
		fi->ip_version = 6;
		fi->l3_off = off;
		fi->l3_len = 40;
		uint32_t w = (uint32_t)f[off] << 24 | (uint32_t)f[off + 1] << 16 | (uint32_t)f[off + 2] << 8 | f[off + 3];
		fi->tos = (uint8_t)(w >> 20);
		fi->flow_label = w & 0xfffff;
		fi->ip_proto = f[off + 6];
		fi->ttl = f[off + 7];
		memcpy(fi->src_ip, f + off + 8, 16);
		memcpy(fi->dst_ip, f + off + 24, 16);
		size_t tot = 40 + (size_t)rd_be16(f + off + 4);
		fi->ip_total = tot > len - off ? len - off : tot;
	} else {
		return 0;
	}
	if (fi->ip_frag)
		return 0;
	size_t l4 = fi->l3_off + fi->l3_len;
	size_t end = fi->l3_off + fi->ip_total;
	if (fi->ip_proto == 17 && end >= l4 + 8) {
		fi->l4_off = l4;
		fi->l4_payload = end - l4 - 8;
	} else if (fi->ip_proto == 6 && end >= l4 + 20) {
		size_t doff = (size_t)(f[l4 + 12] >> 4) * 4;
		if (doff < 20 || end < l4 + doff)
			return 0;
		fi->l4_off = l4;
		fi->tcp_flags = f[l4 + 13];
		fi->l4_payload = end - l4 - doff;
	} else {
		return 0;
	}
	fi->sport = rd_be16(f + l4);
	fi->dport = rd_be16(f + l4 + 2);
	return 0;
}

static int masked_eq(const uint8_t *a, const uint8_t *b, const uint8_t *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((a[i] & m[i]) != (b[i] & m[i]))
			return 0;
	return 1;
}

int emu_flow_match(const struct emu_flow_rule *r, const struct emu_frame_info *fi)
{
	uint32_t f = r->fields;
	if ((f & EMU_FM_DMAC) && !masked_eq(fi->dmac, r->dmac, r->dmac_m, 6))
		return 0;
	if ((f & EMU_FM_SMAC) && !masked_eq(fi->smac, r->smac, r->smac_m, 6))
		return 0;
	if ((f & EMU_FM_ETHERTYPE) && (fi->ethertype & r->ethertype_m) != (r->ethertype & r->ethertype_m))
		return 0;
	if ((f & EMU_FM_VLAN) && (!fi->has_vlan || (fi->vlan_tci & r->vlan_m) != (r->vlan & r->vlan_m)))
		return 0;
	if (r->ip_version && fi->ip_version != r->ip_version)
		return 0;
	if ((f & EMU_FM_IP_PROTO) && (!fi->ip_version || (fi->ip_proto & r->ip_proto_m) != (r->ip_proto & r->ip_proto_m)))
		return 0;
	size_t alen = r->ip_version == 6 ? 16 : 4;
	if ((f & (EMU_FM_IP4_SRC | EMU_FM_IP6_SRC)) && !masked_eq(fi->src_ip, r->src_ip, r->src_ip_m, alen))
		return 0;
	if ((f & (EMU_FM_IP4_DST | EMU_FM_IP6_DST)) && !masked_eq(fi->dst_ip, r->dst_ip, r->dst_ip_m, alen))
		return 0;
	if ((f & (EMU_FM_IP4_TOS | EMU_FM_IP6_TCLASS)) && (fi->tos & r->tos_m) != (r->tos & r->tos_m))
		return 0;
	if ((f & (EMU_FM_IP4_TTL | EMU_FM_IP6_HOPLIM)) && (fi->ttl & r->ttl_m) != (r->ttl & r->ttl_m))
		return 0;
	if ((f & EMU_FM_IP6_FLOW) && (fi->flow_label & r->flow_label_m) != (r->flow_label & r->flow_label_m))
		return 0;
	if ((f & (EMU_FM_SPORT | EMU_FM_DPORT)) && !fi->l4_off)
		return 0;
	if ((f & EMU_FM_SPORT) && (fi->sport & r->sport_m) != (r->sport & r->sport_m))
		return 0;
	if ((f & EMU_FM_DPORT) && (fi->dport & r->dport_m) != (r->dport & r->dport_m))
		return 0;
	return 1;
}

/* ---- checksums (one's complement sum, RFC 1071) ---- */

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static uint32_t pseudo_sum(const uint8_t *f, const struct emu_frame_info *fi, size_t l4len)
{
	uint32_t s = 0;
	if (fi->ip_version == 4) {
		s = sum16(f + fi->l3_off + 12, 8, 0);
	} else {
		s = sum16(f + fi->l3_off + 8, 32, 0);
		s += (uint32_t)(l4len >> 16);
	}
	s += (uint32_t)(l4len & 0xffff);
	s += fi->ip_proto;
	return s;
}

static size_t l4_len(const struct emu_frame_info *fi)
{
	return fi->l3_off + fi->ip_total - fi->l4_off;
}

int eng_frame_csum(uint8_t *f, size_t len, int l3, int l4)
{
	struct emu_frame_info fi;
	if (emu_frame_parse(f, len, &fi) != 0 || !fi.ip_version)
		return -1;
	if (l3 && fi.ip_version == 4) {
		uint8_t *ip = f + fi.l3_off;
		ip[10] = ip[11] = 0;
		uint16_t c = (uint16_t)~fold(sum16(ip, fi.l3_len, 0));
		ip[10] = (uint8_t)(c >> 8);
		ip[11] = (uint8_t)c;
	}
	if (l4 && fi.l4_off) {
		uint8_t *h = f + fi.l4_off;
		size_t n = l4_len(&fi);
		size_t at = fi.ip_proto == 17 ? 6 : 16;
		h[at] = h[at + 1] = 0;
		uint16_t c = (uint16_t)~fold(sum16(h, n, pseudo_sum(f, &fi, n)));
		if (fi.ip_proto == 17 && c == 0)
			c = 0xffff; /* a computed UDP checksum of zero goes out as all ones (RFC 768) */
		h[at] = (uint8_t)(c >> 8);
		h[at + 1] = (uint8_t)c;
	}
	return 0;
}

uint8_t eng_frame_rx_ok(const uint8_t *f, const struct emu_frame_info *fi)
{
	uint8_t ok = 0;
	if (!fi->ip_version)
		return 0;
	if (fi->ip_version == 4) {
		if (fold(sum16(f + fi->l3_off, fi->l3_len, 0)) == 0xffff)
			ok |= ENG_CQE_L3_OK;
	} else {
		ok |= ENG_CQE_L3_OK; /* IPv6 has no header checksum */
	}
	if (fi->l4_off) {
		const uint8_t *h = f + fi->l4_off;
		size_t n = l4_len(fi);
		if (fi->ip_proto == 17 && fi->ip_version == 4 && h[6] == 0 && h[7] == 0)
			ok |= ENG_CQE_L4_OK; /* UDP over IPv4 without a checksum */
		else if (fold(sum16(h, n, pseudo_sum(f, fi, n))) == 0xffff)
			ok |= ENG_CQE_L4_OK;
	}
	return ok;
}

uint16_t eng_frame_rx_csum(const uint8_t *f, size_t len, const struct emu_frame_info *fi)
{
	size_t l2 = fi->has_vlan ? 18 : 14;
	return len > l2 ? fold(sum16(f + l2, len - l2, 0)) : 0;
}

uint8_t eng_frame_hdr_types(const struct emu_frame_info *fi)
{
	/* PRM CQE l4_hdr_type_etc: [6:4] l4_hdr_type (0 none, 1 TCP without ACK, 2 UDP, 3 TCP ACK without data,
	 * 4 TCP ACK with data), [3:2] l3_hdr_type (0 none, 1 IPv6, 2 IPv4), [0] cvlan stripped (set by the caller). */
	uint8_t l3 = fi->ip_version == 4 ? 2 : fi->ip_version == 6 ? 1 : 0, l4 = 0;
	if (fi->l4_off) {
		if (fi->ip_proto == 17)
			l4 = 2;
		else if (!(fi->tcp_flags & 0x10))
			l4 = 1;
		else
			l4 = fi->l4_payload ? 4 : 3;
	}
	return (uint8_t)(l4 << 4 | l3 << 2);
}
