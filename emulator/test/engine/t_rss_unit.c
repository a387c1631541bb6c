/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit test of the engine's Toeplitz RSS (src/engine/eng_rss.c) against the published Microsoft RSS verification
 * suite ("Verifying the RSS Hash Calculation": the 40-byte key and the expected IPv4/IPv6 2-tuple and 4-tuple
 * hashes, also printed in the Intel 82599 datasheet 7.1.2.8.3). The vectors and the key are data from that
 * document; the frames around them are built here, and the expected rss_hash_type bits follow Linux
 * include/linux/mlx5/device.h (CQE_RSS_SRC/DST_HTYPE_*).
 */
#include "etest.h"
#include "engine/eng_rss.c"

#include <arpa/inet.h>

static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct vec { const char *dst; uint16_t dport; const char *src; uint16_t sport; uint32_t h_ip, h_l4; };

static const struct vec v4[] = {
	{ "161.142.100.80", 1766, "66.9.149.187", 2794, 0x323e8fc2, 0x51ccc178 },
	{ "65.69.140.83", 4739, "199.92.111.2", 14230, 0xd718262a, 0xc626b0ea },
	{ "12.22.207.184", 38024, "24.19.198.95", 12898, 0xd2d0a5de, 0x5c2b394a },
	{ "209.142.163.6", 2217, "38.27.205.30", 48228, 0x82989176, 0xafc7327f },
	{ "202.188.127.2", 1303, "153.39.163.191", 44251, 0x5d1809c5, 0x10e828a2 },
};
static const struct vec v6[] = {
	{ "3ffe:2501:200:3::1", 1766, "3ffe:2501:200:1fff::7", 2794, 0x2cc18cd5, 0x40207d3d },
	{ "ff02::1", 4739, "3ffe:501:8::260:97ff:fe40:efab", 14230, 0x0f0c461c, 0xdde51bbf },
	{ "fe80::200:f8ff:fe21:67cf", 38024, "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 44251, 0x4b61e985, 0x02d1feef },
};

/* Ethernet (+ optional VLAN tag) / IPv4 or IPv6 / TCP or UDP frame with the given addresses and ports. */
static size_t frame(uint8_t *f, int ipv6, int vlan, uint8_t proto, const char *src, const char *dst,
		    uint16_t sport, uint16_t dport, uint16_t frag)
{
	memset(f, 0, 128);
	size_t o = 12;
	if (vlan) {
		f[o] = 0x81; f[o + 1] = 0x00; f[o + 3] = 7;
		o += 4;
	}
	f[o] = ipv6 ? 0x86 : 0x08;
	f[o + 1] = ipv6 ? 0xdd : 0x00;
	o += 2;
	if (ipv6) {
		f[o] = 0x60;
		f[o + 6] = proto;
		CHECK(inet_pton(AF_INET6, src, f + o + 8) == 1, "%s", src);
		CHECK(inet_pton(AF_INET6, dst, f + o + 24) == 1, "%s", dst);
		o += 40;
	} else {
		f[o] = 0x45;
		f[o + 6] = (uint8_t)(frag >> 8);
		f[o + 7] = (uint8_t)frag;
		f[o + 9] = proto;
		CHECK(inet_pton(AF_INET, src, f + o + 12) == 1, "%s", src);
		CHECK(inet_pton(AF_INET, dst, f + o + 16) == 1, "%s", dst);
		o += 20;
	}
	f[o] = (uint8_t)(sport >> 8); f[o + 1] = (uint8_t)sport;
	f[o + 2] = (uint8_t)(dport >> 8); f[o + 3] = (uint8_t)dport;
	return o + 20;
}

int main(void)
{
	uint8_t f[128], t;
	uint64_t ip4 = ENG_RX_HASH_SRC_IPV4 | ENG_RX_HASH_DST_IPV4;
	uint64_t ip6 = ENG_RX_HASH_SRC_IPV6 | ENG_RX_HASH_DST_IPV6;
	uint64_t tcp = ENG_RX_HASH_SRC_PORT_TCP | ENG_RX_HASH_DST_PORT_TCP;
	uint64_t udp = ENG_RX_HASH_SRC_PORT_UDP | ENG_RX_HASH_DST_PORT_UDP;

	for (size_t i = 0; i < sizeof v4 / sizeof v4[0]; i++) {
		/* the raw Toeplitz function over the tuple in the suite's order */
		uint8_t in[12];
		CHECK(inet_pton(AF_INET, v4[i].src, in) == 1 && inet_pton(AF_INET, v4[i].dst, in + 4) == 1, "addr");
		in[8] = (uint8_t)(v4[i].sport >> 8); in[9] = (uint8_t)v4[i].sport;
		in[10] = (uint8_t)(v4[i].dport >> 8); in[11] = (uint8_t)v4[i].dport;
		CHECK(eng_toeplitz(ms_key, 40, in, 8) == v4[i].h_ip, "v4[%zu] 2-tuple 0x%08x", i, eng_toeplitz(ms_key, 40, in, 8));
		CHECK(eng_toeplitz(ms_key, 40, in, 12) == v4[i].h_l4, "v4[%zu] 4-tuple", i);
		/* the same through frames */
		size_t n = frame(f, 0, 0, 6, v4[i].src, v4[i].dst, v4[i].sport, v4[i].dport, 0);
		CHECK(eng_rss_hash_frame(ms_key, ip4 | tcp, f, n, &t) == v4[i].h_l4 && t == 0x55, "v4[%zu] tcp frame t=%x", i, t);
		CHECK(eng_rss_hash_frame(ms_key, ip4, f, n, &t) == v4[i].h_ip && t == 0x05, "v4[%zu] ip frame", i);
		/* TCP fields selected, UDP frame: addresses only */
		n = frame(f, 0, 1, 17, v4[i].src, v4[i].dst, v4[i].sport, v4[i].dport, 0);
		CHECK(eng_rss_hash_frame(ms_key, ip4 | tcp, f, n, &t) == v4[i].h_ip && t == 0x05, "v4[%zu] tcp vs udp", i);
		CHECK(eng_rss_hash_frame(ms_key, ip4 | udp, f, n, &t) == v4[i].h_l4 && t == 0xa5, "v4[%zu] udp vlan", i);
		/* a non-first fragment has no ports */
		n = frame(f, 0, 0, 17, v4[i].src, v4[i].dst, v4[i].sport, v4[i].dport, 0x0010);
		CHECK(eng_rss_hash_frame(ms_key, ip4 | udp, f, n, &t) == v4[i].h_ip && t == 0x05, "v4[%zu] fragment", i);
		/* IPv6 fields selected, IPv4 frame: nothing hashed */
		CHECK(eng_rss_hash_frame(ms_key, ip6 | udp, f, n, &t) == 0 && t == 0, "v4[%zu] wrong l3", i);
	}
	for (size_t i = 0; i < sizeof v6 / sizeof v6[0]; i++) {
		uint8_t in[36];
		CHECK(inet_pton(AF_INET6, v6[i].src, in) == 1 && inet_pton(AF_INET6, v6[i].dst, in + 16) == 1, "addr");
		in[32] = (uint8_t)(v6[i].sport >> 8); in[33] = (uint8_t)v6[i].sport;
		in[34] = (uint8_t)(v6[i].dport >> 8); in[35] = (uint8_t)v6[i].dport;
		CHECK(eng_toeplitz(ms_key, 40, in, 32) == v6[i].h_ip, "v6[%zu] 2-tuple 0x%08x", i, eng_toeplitz(ms_key, 40, in, 32));
		CHECK(eng_toeplitz(ms_key, 40, in, 36) == v6[i].h_l4, "v6[%zu] 4-tuple", i);
		size_t n = frame(f, 1, 0, 6, v6[i].src, v6[i].dst, v6[i].sport, v6[i].dport, 0);
		CHECK(eng_rss_hash_frame(ms_key, ip6 | tcp, f, n, &t) == v6[i].h_l4 && t == 0x5a, "v6[%zu] tcp frame", i);
		CHECK(eng_rss_hash_frame(ms_key, ip6, f, n, &t) == v6[i].h_ip && t == 0x0a, "v6[%zu] ip frame", i);
	}
	/* single fields: only the source address, only the destination port */
	size_t n = frame(f, 0, 0, 17, "66.9.149.187", "161.142.100.80", 2794, 1766, 0);
	uint8_t src[4] = { 66, 9, 149, 187 }, dport[2] = { 1766 >> 8, 1766 & 0xff };
	CHECK(eng_rss_hash_frame(ms_key, ENG_RX_HASH_SRC_IPV4, f, n, &t) == eng_toeplitz(ms_key, 40, src, 4) && t == 0x01,
	      "src ip only");
	CHECK(eng_rss_hash_frame(ms_key, ENG_RX_HASH_DST_IPV4 | ENG_RX_HASH_DST_PORT_UDP, f, n, &t) != 0 && t == 0x84,
	      "dst ip + dst port type");
	uint8_t dd[6] = { 161, 142, 100, 80, dport[0], dport[1] };
	CHECK(eng_rss_hash_frame(ms_key, ENG_RX_HASH_DST_IPV4 | ENG_RX_HASH_DST_PORT_UDP, f, n, &t) ==
	      eng_toeplitz(ms_key, 40, dd, 6), "dst ip + dst port value");
	/* truncated frames never read past the end */
	for (size_t cut = 0; cut < n; cut++)
		(void)eng_rss_hash_frame(ms_key, ip4 | udp, f, cut, &t);
	printf("t_rss_unit: %zu IPv4 and %zu IPv6 Microsoft vectors OK\n", sizeof v4 / sizeof v4[0], sizeof v6 / sizeof v6[0]);
	return 0;
}
