/* SPDX-License-Identifier: Apache-2.0 */
/* Toeplitz RSS over Ethernet frames: see eng_rss.h. */
#include "engine/eng_rss.h"

#include <string.h>

uint32_t eng_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *in, size_t in_len)
{
	if (key_len < in_len + 4)
		in_len = key_len >= 4 ? key_len - 4 : 0;
	/* window = the 32 key bits starting at the current input bit; slide it one bit per input bit */
	uint32_t window = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 | (uint32_t)key[2] << 8 | key[3];
	uint32_t hash = 0;
	for (size_t i = 0; i < in_len; i++) {
		uint8_t next = key[i + 4];
		for (int b = 7; b >= 0; b--) {
			if (in[i] & (1u << b))
				hash ^= window;
			window = window << 1 | ((next >> b) & 1u);
		}
	}
	return hash;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t eng_rss_hash_frame(const uint8_t *key, uint64_t fields, const uint8_t *frame, size_t len,
			    uint8_t *hash_type)
{
	uint8_t in[36];
	size_t n = 0;
	uint8_t type = 0;
	*hash_type = 0;
	if (len < 14)
		return 0;
	size_t off = 12;
	uint16_t ethertype = be16(frame + off);
	/* up to two VLAN tags (802.1Q 0x8100, 802.1ad 0x88a8) */
	for (int t = 0; t < 2 && (ethertype == 0x8100 || ethertype == 0x88a8); t++) {
		off += 4;
		if (len < off + 2)
			return 0;
		ethertype = be16(frame + off);
	}
	off += 2;

	int want_v4 = (fields & (ENG_RX_HASH_SRC_IPV4 | ENG_RX_HASH_DST_IPV4)) != 0;
	int want_v6 = (fields & (ENG_RX_HASH_SRC_IPV6 | ENG_RX_HASH_DST_IPV6)) != 0;
	int want_tcp = (fields & (ENG_RX_HASH_SRC_PORT_TCP | ENG_RX_HASH_DST_PORT_TCP)) != 0;
	int want_udp = (fields & (ENG_RX_HASH_SRC_PORT_UDP | ENG_RX_HASH_DST_PORT_UDP)) != 0;
	int src_ip = (fields & (ENG_RX_HASH_SRC_IPV4 | ENG_RX_HASH_SRC_IPV6)) != 0;
	int dst_ip = (fields & (ENG_RX_HASH_DST_IPV4 | ENG_RX_HASH_DST_IPV6)) != 0;
	int src_port = (fields & (ENG_RX_HASH_SRC_PORT_TCP | ENG_RX_HASH_SRC_PORT_UDP)) != 0;
	int dst_port = (fields & (ENG_RX_HASH_DST_PORT_TCP | ENG_RX_HASH_DST_PORT_UDP)) != 0;

	uint8_t proto;
	size_t l4;
	int l4_ok = 1;
	uint8_t ipt;
	if (ethertype == 0x0800 && want_v4) {
		if (len < off + 20 || (frame[off] >> 4) != 4)
			return 0;
		size_t ihl = (size_t)(frame[off] & 0xf) * 4;
		if (ihl < 20 || len < off + ihl)
			return 0;
		proto = frame[off + 9];
		if (be16(frame + off + 6) & 0x3fff) /* MF or a fragment offset: no L4 header to hash */
			l4_ok = 0;
		ipt = ENG_CQE_RSS_IPV4;
		if (src_ip) {
			memcpy(in + n, frame + off + 12, 4);
			n += 4;
			type |= ipt;
		}
		if (dst_ip) {
			memcpy(in + n, frame + off + 16, 4);
			n += 4;
			type |= (uint8_t)(ipt << 2);
		}
		l4 = off + ihl;
	} else if (ethertype == 0x86dd && want_v6) {
		if (len < off + 40 || (frame[off] >> 4) != 6)
			return 0;
		proto = frame[off + 6]; /* extension headers are not walked: their packets hash on addresses only */
		ipt = ENG_CQE_RSS_IPV6;
		if (src_ip) {
			memcpy(in + n, frame + off + 8, 16);
			n += 16;
			type |= ipt;
		}
		if (dst_ip) {
			memcpy(in + n, frame + off + 24, 16);
			n += 16;
			type |= (uint8_t)(ipt << 2);
		}
		l4 = off + 40;
	} else {
		return 0;
	}

	uint8_t l4t = 0;
	if (l4_ok && want_tcp && proto == 6 && len >= l4 + 20)
		l4t = ENG_CQE_RSS_TCP;
	else if (l4_ok && want_udp && proto == 17 && len >= l4 + 8)
		l4t = ENG_CQE_RSS_UDP;
	if (l4t) {
		if (src_port) {
			memcpy(in + n, frame + l4, 2);
			n += 2;
			type |= (uint8_t)(l4t << 4);
		}
		if (dst_port) {
			memcpy(in + n, frame + l4 + 2, 2);
			n += 2;
			type |= (uint8_t)(l4t << 6);
		}
	}
	*hash_type = type;
	return eng_toeplitz(key, ENG_RSS_KEY_LEN, in, n);
}
