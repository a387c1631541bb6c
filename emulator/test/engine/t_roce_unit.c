/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit test of the pcap tap's RoCE framing (src/engine/eng_roce.c). The ICRC is checked against a packet captured
 * on a real ConnectX-4 Lx (a RoCE v2 CNP over IPv4, published as a regression vector in Scapy's
 * test/contrib/roce.uts, "RoCE CNP captured on ConnectX-4 Lx"): our masking, seed and byte order must reproduce the
 * hardware's ICRC bytes. Then frames built from engine packets are checked field by field against the IBA layouts,
 * and each frame's ICRC against a recomputation over the frame's own bytes.
 */
#include "etest.h"
#include "engine/eng_roce.c"

static const uint8_t cnp_cx4lx[74] = {
	0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32, 0x08, 0x00, 0x45, 0xc2,
	0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00,
	0x12, 0x01, 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff, 0xff, 0x40, 0x00,
	0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0xfd, 0x00, 0x2a,
};

static uint32_t le32(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }
static uint32_t rd32(const uint8_t *b) { return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]; }

int main(void)
{
	/* the hardware vector: ICRC over IPv4 + UDP + BTH + 16 bytes of CNP padding */
	uint32_t icrc = eng_roce_icrc(cnp_cx4lx + 14, sizeof cnp_cx4lx - 14 - 4, 20, 1);
	CHECK(icrc == le32(cnp_cx4lx + 70), "ICRC 0x%08x, the ConnectX-4 Lx wrote 0x%08x", icrc, le32(cnp_cx4lx + 70));

	static union { struct pkt p; uint8_t b[sizeof(struct pkt) + 256]; } u;
	struct pkt *p = &u.p;
	uint8_t f[512];

	/* RC SEND ONLY with immediate, RoCE v2 over IPv6, 5-byte payload (3 bytes of pad) */
	memset(&u, 0, sizeof u);
	p->type = PKT_SEND;
	p->qp_type = EMU_QPT_RC;
	p->flags = PF_FIRST | PF_LAST | PF_IMM | PF_SOLICITED;
	p->dst_qpn = 0x123456;
	p->psn = 0xabcdef;
	p->imm = 0x01020304;
	p->len = 5;
	memcpy(p->data, "hello", 5);
	p->eth.valid = 1;
	p->eth.roce_v2 = 1;
	memcpy(p->eth.dmac, "\x02\x00\x00\x00\x00\x02", 6);
	memcpy(p->eth.smac, "\x02\x00\x00\x00\x00\x01", 6);
	p->eth.sgid[0] = 0xfe; p->eth.sgid[1] = 0x80; p->eth.sgid[15] = 1;
	p->eth.dgid[0] = 0xfe; p->eth.dgid[1] = 0x80; p->eth.dgid[15] = 2;
	p->eth.hop_limit = 64;
	p->eth.tclass = 0x20;
	p->eth.flow_label = 0x12345;
	p->eth.udp_sport = 0xc001;
	size_t n = eng_roce_frame(p, f, sizeof f);
	CHECK(n == 14 + 40 + 8 + 12 + 4 + 8 + 4, "frame length %zu", n);
	CHECK(f[12] == 0x86 && f[13] == 0xdd, "ethertype");
	const uint8_t *ip6 = f + 14, *udp = ip6 + 40, *bth = udp + 8;
	CHECK(rd32(ip6) == (6u << 28 | 0x20u << 20 | 0x12345), "IPv6 version/tclass/flow label 0x%08x", rd32(ip6));
	CHECK(ip6[4] == 0 && ip6[5] == 8 + 12 + 4 + 8 + 4 && ip6[6] == 17 && ip6[7] == 64, "IPv6 length/next/hop");
	CHECK(udp[0] == 0xc0 && udp[1] == 0x01 && udp[2] == 0x12 && udp[3] == 0xb7 && udp[5] == 36 && !udp[6] && !udp[7],
	      "UDP ports/length/checksum");
	CHECK(bth[0] == 0x05 && bth[1] == (0x80 | 3 << 4) && bth[2] == 0xff && bth[3] == 0xff, "BTH opcode/SE/pad/pkey");
	CHECK(rd32(bth + 4) == 0x123456 && rd32(bth + 8) == (0x80000000u | 0xabcdef), "BTH QPN, AckReq, PSN");
	CHECK(rd32(bth + 12) == 0x01020304 && memcmp(bth + 16, "hello\0\0\0", 8) == 0, "ImmDt, payload, pad");
	CHECK(le32(f + n - 4) == eng_roce_icrc(f + 14, n - 14 - 4, 40, 1), "ICRC");

	/* UD SEND ONLY over RoCE v1 (GRH, ethertype 0x8915): DETH */
	memset(&u, 0, sizeof u);
	p->type = PKT_SEND;
	p->qp_type = EMU_QPT_UD;
	p->flags = PF_FIRST | PF_LAST;
	p->dst_qpn = 0x42;
	p->src_qpn = 0x77;
	p->qkey = 0x11111111;
	p->len = 4;
	p->eth.valid = 1;
	p->eth.hop_limit = 1;
	n = eng_roce_frame(p, f, sizeof f);
	CHECK(n == 14 + 40 + 12 + 8 + 4 + 4 && f[12] == 0x89 && f[13] == 0x15, "RoCE v1 frame %zu", n);
	CHECK(f[14 + 6] == 0x1b && f[14 + 40] == 0x64, "GRH next header BTH, UD SEND ONLY");
	CHECK(rd32(f + 14 + 52) == 0x11111111 && rd32(f + 14 + 56) == 0x77, "DETH");
	CHECK(le32(f + n - 4) == eng_roce_icrc(f + 14, n - 14 - 4, 40, 0), "v1 ICRC");

	/* RDMA READ request (RETH) and response (AETH), RC ACK / NAK syndromes, atomics over IPv4-mapped GIDs */
	memset(&u, 0, sizeof u);
	p->eth.valid = 1;
	p->eth.roce_v2 = 1;
	p->eth.sgid[10] = p->eth.sgid[11] = 0xff; p->eth.sgid[12] = 10; p->eth.sgid[15] = 1;
	p->eth.dgid[10] = p->eth.dgid[11] = 0xff; p->eth.dgid[12] = 10; p->eth.dgid[15] = 2;
	p->type = PKT_READ_REQ;
	p->flags = PF_FIRST | PF_LAST;
	p->raddr = 0x1122334455667788ull;
	p->rkey = 0xabcd;
	p->msg_len = 4096;
	n = eng_roce_frame(p, f, sizeof f);
	const uint8_t *ip4 = f + 14;
	CHECK(f[12] == 0x08 && ip4[0] == 0x45 && ip4[9] == 17 && (ip4[6] & 0x40), "IPv4 with DF for IPv4-mapped GIDs");
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)ip4[i] << 8 | ip4[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	CHECK(sum == 0xffff, "IPv4 header checksum");
	bth = f + 14 + 20 + 8;
	CHECK(bth[0] == 12 && rd32(bth + 12) == 0x11223344 && rd32(bth + 16) == 0x55667788 && rd32(bth + 20) == 0xabcd &&
	      rd32(bth + 24) == 4096, "READ request with RETH");
	CHECK(le32(f + n - 4) == eng_roce_icrc(f + 14, n - 14 - 4, 20, 1), "IPv4 ICRC");
	p->type = PKT_READ_RESP;
	p->flags = PF_LAST;
	p->offset = 0;
	p->len = 8;
	n = eng_roce_frame(p, f, sizeof f);
	CHECK(bth[0] == 16 && bth[12] == 0x1f && n == 14 + 20 + 8 + 12 + 4 + 8 + 4, "READ RESPONSE ONLY with AETH");
	p->offset = 8;
	p->flags = 0;
	eng_roce_frame(p, f, sizeof f);
	CHECK(bth[0] == 14, "READ RESPONSE MIDDLE (no AETH)");
	p->type = PKT_ACK;
	p->syndrome = NAK_RNR;
	p->rnr_timer = 14;
	eng_roce_frame(p, f, sizeof f);
	CHECK(bth[0] == 17 && bth[12] == (0x20 | 14), "RNR NAK syndrome");
	p->syndrome = NAK_REM_ACCESS;
	eng_roce_frame(p, f, sizeof f);
	CHECK(bth[12] == 0x62, "remote access NAK");
	p->type = PKT_ATOMIC_REQ;
	p->opcode = MLX5_OPCODE_ATOMIC_FA;
	p->flags = PF_FIRST | PF_LAST;
	p->swap_add = 5;
	eng_roce_frame(p, f, sizeof f);
	CHECK(bth[0] == 20 && rd32(bth + 24) == 0 && rd32(bth + 28) == 5, "FETCH_ADD with AtomicETH");
	CHECK(eng_roce_udp_sport(0x12345, 0, 0) == (0xc000 | ((0x12345 & 0x3fff) ^ (0x12345 >> 14))), "sport from flow label");
	printf("t_roce_unit: ICRC equals a ConnectX-4 Lx capture; frames field by field\n");
	return 0;
}
