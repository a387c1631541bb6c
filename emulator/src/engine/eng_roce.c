/* SPDX-License-Identifier: Apache-2.0 */
/* RoCE v1/v2 framing of engine packets for the pcap tap: see eng_roce.h. */
#include "engine/eng_roce.h"

#include <string.h>

#include <infiniband/mlx5dv.h>

/* IBA 9.2 table 38: opcodes within a transport */
enum {
	BTH_SEND_FIRST = 0x00, BTH_SEND_MIDDLE, BTH_SEND_LAST, BTH_SEND_LAST_IMM, BTH_SEND_ONLY, BTH_SEND_ONLY_IMM,
	BTH_WRITE_FIRST, BTH_WRITE_MIDDLE, BTH_WRITE_LAST, BTH_WRITE_LAST_IMM, BTH_WRITE_ONLY, BTH_WRITE_ONLY_IMM,
	BTH_READ_REQ, BTH_READ_RESP_FIRST, BTH_READ_RESP_MIDDLE, BTH_READ_RESP_LAST, BTH_READ_RESP_ONLY,
	BTH_ACK, BTH_ATOMIC_ACK, BTH_CMP_SWAP, BTH_FETCH_ADD,
	BTH_SEND_LAST_INV = 0x16, BTH_SEND_ONLY_INV = 0x17,
};
/* IBA 9.2 table 38 and Annex A14 (XRC): the transport in the opcode's top three bits */
enum { TR_RC = 0x00, TR_UC = 0x20, TR_UD = 0x60, TR_XRC = 0xa0 };

uint8_t eng_roce_opcode(const struct pkt *p)
{
	int first = (p->flags & PF_FIRST) != 0, last = (p->flags & PF_LAST) != 0;
	int imm = (p->flags & PF_IMM) != 0;
	/* An XRC connection (INI to TGT) uses the XRC opcodes both ways, requests and responses: the RC ones with the
	 * transport bits 101 (0xA0..0xB7); only its requests carry the XRCETH (ext_headers). */
	uint8_t tr = p->xrc ? TR_XRC : p->qp_type == EMU_QPT_UD ? TR_UD : p->qp_type == EMU_QPT_UC ? TR_UC : TR_RC;
	switch (p->type) {
	case PKT_SEND:
		if (p->flags & PF_INV)
			return (uint8_t)(tr | (first && last ? BTH_SEND_ONLY_INV : last ? BTH_SEND_LAST_INV
									  : first ? BTH_SEND_FIRST : BTH_SEND_MIDDLE));
		if (first && last)
			return (uint8_t)(tr | (imm ? BTH_SEND_ONLY_IMM : BTH_SEND_ONLY));
		if (last)
			return (uint8_t)(tr | (imm ? BTH_SEND_LAST_IMM : BTH_SEND_LAST));
		return (uint8_t)(tr | (first ? BTH_SEND_FIRST : BTH_SEND_MIDDLE));
	case PKT_WRITE:
		if (first && last)
			return (uint8_t)(tr | (imm ? BTH_WRITE_ONLY_IMM : BTH_WRITE_ONLY));
		if (last)
			return (uint8_t)(tr | (imm ? BTH_WRITE_LAST_IMM : BTH_WRITE_LAST));
		return (uint8_t)(tr | (first ? BTH_WRITE_FIRST : BTH_WRITE_MIDDLE));
	case PKT_READ_REQ:
		return (uint8_t)(tr | BTH_READ_REQ);
	case PKT_ATOMIC_REQ:
		/* masked atomics (mlx5 opmod 0x8/0x9) have no IBA opcode: shown as the base operation */
		return (uint8_t)(tr | ((p->opcode == MLX5_OPCODE_ATOMIC_CS || p->opcode == MLX5_OPCODE_ATOMIC_MASKED_CS)
				       ? BTH_CMP_SWAP : BTH_FETCH_ADD));
	case PKT_READ_RESP:
		first = p->offset == 0;
		if (first && last)
			return (uint8_t)(tr | BTH_READ_RESP_ONLY);
		return (uint8_t)(tr | (last ? BTH_READ_RESP_LAST : first ? BTH_READ_RESP_FIRST : BTH_READ_RESP_MIDDLE));
	case PKT_ATOMIC_RESP:
		return (uint8_t)(tr | BTH_ATOMIC_ACK);
	default:
		return (uint8_t)(tr | BTH_ACK);
	}
}

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t eng_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	if (!crc_table[1])
		crc_init(); /* idempotent: racing threads write the same values */
	for (size_t i = 0; i < n; i++)
		crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return crc;
}

uint16_t eng_roce_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn)
{
	uint32_t fl = flow_label & 0xfffff;
	if (!fl) {
		uint64_t v = (uint64_t)lqpn * rqpn;
		v ^= v >> 20;
		v ^= v >> 40;
		fl = (uint32_t)(v & 0xfffff);
	}
	uint32_t lo = fl & 0x03fff, hi = fl & 0xfc000;
	lo ^= hi >> 14;
	return (uint16_t)(lo | 0xc000);
}

static void put16(uint8_t *b, uint32_t v) { b[0] = (uint8_t)(v >> 8); b[1] = (uint8_t)v; }
static void put32(uint8_t *b, uint32_t v) { put16(b, v >> 16); put16(b + 2, v); }
static void put64(uint8_t *b, uint64_t v) { put32(b, (uint32_t)(v >> 32)); put32(b + 4, (uint32_t)v); }

static int gid_is_v4(const uint8_t *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return memcmp(g, pfx, 12) == 0;
}

/* AETH syndrome (IBA 9.7.5.1): ACK 000 + credit count (0x1f: none advertised), RNR NAK 001 + timer,
 * NAK 011 + code (1 invalid request, 2 remote access error, 3 remote operational error). */
static uint8_t aeth_syndrome(const struct pkt *p)
{
	switch (p->syndrome) {
	case NAK_RNR:         return (uint8_t)(0x20 | (p->rnr_timer & 0x1f));
	case NAK_REM_INV_REQ: return 0x61;
	case NAK_REM_ACCESS:  return 0x62;
	case NAK_REM_OP:      return 0x63;
	default:              return 0x1f;
	}
}

/* Transport headers after the BTH; returns their length. */
static size_t ext_headers(const struct pkt *p, uint8_t op, uint8_t *h)
{
	size_t n = 0;
	uint8_t base = op & 0x1f;
	int ud = (op & 0xe0) == TR_UD;
	if (ud) { /* DETH: Q_Key, source QP */
		put32(h, p->qkey);
		put32(h + 4, p->src_qpn & 0xffffff);
		n += 8;
	}
	if ((op & 0xe0) == TR_XRC && (p->type == PKT_SEND || p->type == PKT_WRITE || p->type == PKT_READ_REQ ||
				       p->type == PKT_ATOMIC_REQ)) { /* XRCETH (Annex A14): reserved 8, XRC SRQ 24 */
		put32(h, p->xrc_srqn & 0xffffff);
		n += 4;
	}
	if (p->type == PKT_WRITE && (base == BTH_WRITE_FIRST || base == BTH_WRITE_ONLY || base == BTH_WRITE_ONLY_IMM)) {
		put64(h + n, p->raddr); /* RETH: VA, R_Key, DMA length */
		put32(h + n + 8, p->rkey);
		put32(h + n + 12, p->msg_len);
		n += 16;
	} else if (p->type == PKT_READ_REQ) {
		put64(h + n, p->raddr);
		put32(h + n + 8, p->rkey);
		put32(h + n + 12, p->msg_len);
		n += 16;
	} else if (p->type == PKT_ATOMIC_REQ) { /* AtomicETH: VA, R_Key, swap/add, compare */
		put64(h + n, p->raddr);
		put32(h + n + 8, p->rkey);
		put64(h + n + 12, p->swap_add);
		put64(h + n + 20, p->compare);
		n += 28;
	} else if (p->type == PKT_ACK || p->type == PKT_ATOMIC_RESP ||
		   (p->type == PKT_READ_RESP && base != BTH_READ_RESP_MIDDLE)) {
		h[n] = aeth_syndrome(p); /* AETH: syndrome, MSN (not modelled: 0) */
		put32(h + n, (uint32_t)h[n] << 24);
		n += 4;
		if (p->type == PKT_ATOMIC_RESP) { /* AtomicAckETH: the original remote data, as stored (big-endian) */
			memset(h + n, 0, 8);
			memcpy(h + n + (p->len == 4 ? 4 : 0), p->data, p->len <= 8 ? p->len : 8);
			n += 8;
		}
	}
	if ((p->flags & PF_IMM) && (p->flags & PF_LAST) && (p->type == PKT_SEND || p->type == PKT_WRITE)) {
		put32(h + n, p->imm); /* ImmDt: the value of the WQE's big-endian imm field */
		n += 4;
	} else if ((p->flags & PF_INV) && (p->flags & PF_LAST)) {
		put32(h + n, p->imm); /* IETH: the R_Key to invalidate */
		n += 4;
	}
	return n;
}

static uint32_t payload_len(const struct pkt *p)
{
	return (p->type == PKT_SEND || p->type == PKT_WRITE || p->type == PKT_READ_RESP) ? p->len : 0;
}

uint32_t eng_roce_icrc(const uint8_t *l3, size_t len, size_t ip_len, int v2)
{
	size_t fixed = ip_len + (v2 ? 8 : 0) + 12; /* IP or GRH, UDP, BTH: the part with masked fields */
	if (len < fixed)
		return 0;
	uint8_t masked[40 + 8 + 12];
	memcpy(masked, l3, fixed);
	if (ip_len == 40) { /* IPv6 / GRH: traffic class, flow label, hop limit */
		masked[0] |= 0x0f;
		masked[1] = masked[2] = masked[3] = 0xff;
		masked[7] = 0xff;
	} else { /* IPv4: TOS, TTL, header checksum */
		masked[1] = 0xff;
		masked[8] = 0xff;
		masked[10] = masked[11] = 0xff;
	}
	if (v2)
		masked[ip_len + 6] = masked[ip_len + 7] = 0xff; /* UDP checksum */
	masked[fixed - 12 + 4] = 0xff;                       /* BTH resv8a */
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint32_t crc = eng_crc32(0xffffffffu, lrh, 8);
	crc = eng_crc32(crc, masked, fixed);
	crc = eng_crc32(crc, l3 + fixed, len - fixed);
	return ~crc;
}

uint8_t eng_roce_l3_type(const struct pkt *p)
{
	const struct pkt_eth *e = &p->eth;
	if (!e->roce_v2)
		return MLX5_CQE_L3_HDR_TYPE_NONE;
	return gid_is_v4(e->sgid) && gid_is_v4(e->dgid) ? MLX5_CQE_L3_HDR_TYPE_IPV4 : MLX5_CQE_L3_HDR_TYPE_IPV6;
}

size_t eng_roce_l3(const struct pkt *p, size_t ib_len, uint8_t *l3)
{
	const struct pkt_eth *e = &p->eth;
	int v4 = e->roce_v2 && gid_is_v4(e->sgid) && gid_is_v4(e->dgid);
	size_t l3_payload = ib_len + (e->roce_v2 ? 8 : 0);
	if (!e->roce_v2 || !v4) { /* IPv6 header, or the identical GRH of RoCE v1 (next header 0x1B = BTH) */
		put32(l3, 6u << 28 | (uint32_t)e->tclass << 20 | (e->flow_label & 0xfffff));
		put16(l3 + 4, l3_payload > 0xffff ? 0xffff : (uint32_t)l3_payload);
		l3[6] = e->roce_v2 ? 17 : 0x1b;
		l3[7] = e->hop_limit;
		memcpy(l3 + 8, e->sgid, 16);
		memcpy(l3 + 24, e->dgid, 16);
		return 40;
	}
	size_t tot = 20 + l3_payload;
	l3[0] = 0x45;
	l3[1] = e->tclass;
	put16(l3 + 2, tot > 0xffff ? 0xffff : (uint32_t)tot);
	put16(l3 + 4, 0);
	put16(l3 + 6, 0x4000); /* DF, as RoCE v2 senders set it */
	l3[8] = e->hop_limit;
	l3[9] = 17;
	put16(l3 + 10, 0);
	memcpy(l3 + 12, e->sgid + 12, 4);
	memcpy(l3 + 16, e->dgid + 12, 4);
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)l3[i] << 8 | l3[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(l3 + 10, ~sum & 0xffff);
	return 20;
}

size_t eng_roce_frame(const struct pkt *p, uint8_t *out, size_t cap)
{
	const struct pkt_eth *e = &p->eth;
	if (!e->valid)
		return 0;
	uint8_t op = eng_roce_opcode(p);
	uint8_t ext[64];
	size_t ext_len = ext_headers(p, op, ext);
	uint32_t pay = payload_len(p);
	uint32_t pad = (4 - (pay & 3)) & 3;
	size_t ib_len = 12 + ext_len + pay + pad + 4; /* BTH .. ICRC */
	int v4 = e->roce_v2 && gid_is_v4(e->sgid) && gid_is_v4(e->dgid);
	size_t l3_len = e->roce_v2 ? (v4 ? 20 : 40) + 8 : 40;
	size_t total = 14 + l3_len + ib_len;
	if (cap < total)
		return 0;

	uint8_t *b = out;
	memcpy(b, e->dmac, 6);
	memcpy(b + 6, e->smac, 6);
	put16(b + 12, !e->roce_v2 ? 0x8915 : v4 ? 0x0800 : 0x86dd);
	uint8_t *l3 = b + 14, *bth;
	size_t l3_payload = ib_len + (e->roce_v2 ? 8 : 0);
	size_t ip_len = eng_roce_l3(p, ib_len, l3);
	if (e->roce_v2) {
		uint8_t *udp = l3 + ip_len;
		put16(udp, e->udp_sport);
		put16(udp + 2, ENG_ROCE_UDP_PORT);
		put16(udp + 4, l3_payload > 0xffff ? 0xffff : (uint32_t)l3_payload);
		put16(udp + 6, 0); /* RoCE v2 senders leave the UDP checksum 0; the ICRC protects the packet */
		bth = udp + 8;
	} else {
		bth = l3 + 40;
	}
	/* BTH: opcode | SE M PadCnt TVer | P_Key | resv8 | DestQP | A resv7 | PSN */
	int se = (p->flags & PF_SOLICITED) && (p->flags & PF_LAST) && p->type == PKT_SEND;
	int ack_req = ((op & 0xe0) == TR_RC || (op & 0xe0) == TR_XRC) && (p->flags & PF_LAST) &&
		      (p->type == PKT_SEND || p->type == PKT_WRITE || p->type == PKT_READ_REQ || p->type == PKT_ATOMIC_REQ);
	bth[0] = op;
	bth[1] = (uint8_t)((se ? 0x80 : 0) | pad << 4);
	put16(bth + 2, 0xffff);
	put32(bth + 4, p->dst_qpn & 0xffffff);
	put32(bth + 8, (ack_req ? 0x80000000u : 0) | (p->psn & 0xffffff));
	memcpy(bth + 12, ext, ext_len);
	uint8_t *pl = bth + 12 + ext_len;
	if (pay)
		memcpy(pl, p->data, pay);
	memset(pl + pay, 0, pad);

	uint32_t crc = eng_roce_icrc(l3, (size_t)(pl + pay + pad - l3), ip_len, e->roce_v2);
	uint8_t *icrc = pl + pay + pad;
	icrc[0] = (uint8_t)crc;
	icrc[1] = (uint8_t)(crc >> 8);
	icrc[2] = (uint8_t)(crc >> 16);
	icrc[3] = (uint8_t)(crc >> 24);
	return total;
}
