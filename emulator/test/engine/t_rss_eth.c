/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_rss_eth.c - RSS on the emulated Ethernet port: frames steered to an RSS QP are hashed with Toeplitz over the
 * selected fields, the indirection table picks the WQ, and the completion arrives on that WQ.
 * Judges: libmlx5's ibv_poll_cq decodes the completions (it finds the WQ and the wr_id through the CQE's user
 * index), and the hash in each CQE (rx_hash_res, bytes 12..15, and rx_hash_type, byte 16, as DPDK's struct mlx5_cqe
 * and Linux mlx5/device.h CQE_RSS_* define them) equals a Toeplitz hash computed here by an implementation of the
 * test's own, itself checked first against a Microsoft RSS verification vector.
 */
#include "rss_common.h"

static uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Reference Toeplitz, written differently from the engine's: the key as a bit string, for every set input bit i
 * XOR in key bits i..i+31. */
static uint32_t ref_toeplitz(const uint8_t *key, const uint8_t *in, size_t n)
{
	uint32_t h = 0;
	for (size_t i = 0; i < n * 8; i++) {
		if (!((in[i / 8] >> (7 - i % 8)) & 1))
			continue;
		uint32_t v = 0;
		for (size_t j = 0; j < 32; j++)
			v = v << 1 | ((key[(i + j) / 8] >> (7 - (i + j) % 8)) & 1u);
		h ^= v;
	}
	return h;
}

#define NWQ 4
#define SLOTS 64
#define FR 256

int main(void)
{
	t_open();
	CHECK(t_port.link_layer == IBV_LINK_LAYER_ETHERNET, "needs --link eth");
	/* the reference against the first Microsoft vector: 66.9.149.187:2794 -> 161.142.100.80:1766 */
	uint8_t v[12] = { 66, 9, 149, 187, 161, 142, 100, 80, 2794 >> 8, 2794 & 0xff, 1766 >> 8, 1766 & 0xff };
	CHECK(ref_toeplitz(ms_key, v, 12) == 0x51ccc178 && ref_toeplitz(ms_key, v, 8) == 0x323e8fc2, "reference");
	tx_init();

	struct ibv_cq *cq = ibv_create_cq(t_ctx, 1024, NULL, NULL, 0);
	struct ibv_wq *wq[NWQ];
	uint8_t *buf;
	struct ibv_mr *mr = t_mr((size_t)NWQ * SLOTS * FR, IBV_ACCESS_LOCAL_WRITE, (void **)&buf);
	for (int i = 0; i < NWQ; i++) {
		wq[i] = make_wq(cq, SLOTS, NULL);
		for (int s = 0; s < SLOTS; s++) {
			struct ibv_sge sge = { (uintptr_t)(buf + ((size_t)i * SLOTS + s) * FR), FR, mr->lkey };
			struct ibv_recv_wr wr = { .wr_id = (uint64_t)(i * 1000 + s), .sg_list = &sge, .num_sge = 1 }, *bad;
			CHECK(ibv_post_wq_recv(wq[i], &wr, &bad) == 0, "post_wq_recv");
		}
	}
	/* 8 entries, each WQ twice, not in order */
	const int map[8] = { 0, 1, 2, 3, 3, 2, 1, 0 };
	struct ibv_wq *tbl[8];
	for (int i = 0; i < 8; i++)
		tbl[i] = wq[map[i]];
	struct ibv_rwq_ind_table_init_attr ta = { .log_ind_tbl_size = 3, .ind_tbl = tbl };
	struct ibv_rwq_ind_table *t = ibv_create_rwq_ind_table(t_ctx, &ta);
	CHECK(t, "ind table: errno %d", errno);
	uint64_t fields = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 | IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;
	struct ibv_qp *rqp = make_rss_qp(t, fields, ms_key);
	struct ibv_flow *fl = flow_to(rqp);

	struct t_rawcq rc;
	t_rawcq(cq, &rc);
	int per_wq[NWQ] = { 0 }, used[NWQ] = { 0 };
	uint32_t ncqe = 0;
	uint8_t fr[FR];
	/* 24 flows, each sent twice: the second copy must land on the same WQ with the same hash */
	for (int k = 0; k < 48; k++) {
		int flow_id = k % 24;
		uint8_t src[4] = { 10, 0, (uint8_t)flow_id, 1 }, dst[4] = { 192, 168, 1, (uint8_t)(flow_id * 7) };
		uint16_t sport = (uint16_t)(1000 + flow_id * 111), dport = (uint16_t)(5000 + flow_id);
		int tcp = flow_id == 23, other = flow_id == 22;
		size_t len = ip4_frame(fr, 100 + (size_t)flow_id, tcp ? 6 : other ? 47 : 17, src, dst, sport, dport);
		send_frame(fr, len);
		/* expected: the reference hash over the fields the frame has (TCP frame: addresses only) */
		uint8_t in[12];
		memcpy(in, src, 4);
		memcpy(in + 4, dst, 4);
		in[8] = (uint8_t)(sport >> 8); in[9] = (uint8_t)sport; in[10] = (uint8_t)(dport >> 8); in[11] = (uint8_t)dport;
		uint32_t want = ref_toeplitz(ms_key, in, (tcp || other) ? 8 : 12);
		uint8_t want_type = (tcp || other) ? 0x05 : 0xa5; /* IPv4 src|dst (1 | 1 << 2), UDP sport|dport (2 << 4 | 2 << 6) */
		int want_wq = map[want & 7];

		struct ibv_wc wc;
		CHECK(t_poll(cq, &wc, 1, 5000) == 1, "frame %d: no completion", k);
		CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV && wc.byte_len == len,
		      "frame %d: status %d opcode %d len %u", k, wc.status, wc.opcode, wc.byte_len);
		int got_wq = (int)(wc.wr_id / 1000), slot = (int)(wc.wr_id % 1000);
		CHECK(got_wq == want_wq, "frame %d: on WQ %d, hash 0x%08x says WQ %d", k, got_wq, want, want_wq);
		CHECK(slot == per_wq[got_wq], "frame %d: WQ %d slot %d, expected %d", k, got_wq, slot, per_wq[got_wq]);
		CHECK(memcmp(buf + ((size_t)got_wq * SLOTS + slot) * FR, fr, len) == 0, "frame %d: payload", k);
		per_wq[got_wq]++;
		used[got_wq] = 1;
		const uint8_t *c = (const uint8_t *)t_cqe64(&rc, ncqe++);
		uint32_t h = (uint32_t)c[12] << 24 | (uint32_t)c[13] << 16 | (uint32_t)c[14] << 8 | c[15];
		CHECK(h == want && c[16] == want_type, "frame %d: CQE hash 0x%08x type 0x%02x, want 0x%08x 0x%02x", k, h,
		      c[16], want, want_type);
		CHECK((c[63] >> 4) == MLX5_CQE_RESP_SEND, "frame %d: CQE opcode %d", k, c[63] >> 4);
	}
	int spread = 0;
	for (int i = 0; i < NWQ; i++)
		spread += used[i];
	CHECK(spread == NWQ, "24 flows used only %d of %d WQs", spread, NWQ);

	/* a WQ that is not ready drops what hashes to it; the others keep receiving */
	struct ibv_wq_attr m = { .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_ERR };
	CHECK(ibv_modify_wq(wq[0], &m) == 0, "wq 0 to ERR");
	int dropped = 0, delivered = 0;
	for (int k = 0; k < 24; k++) {
		uint8_t src[4] = { 10, 0, (uint8_t)k, 1 }, dst[4] = { 192, 168, 1, (uint8_t)(k * 7) };
		uint16_t sport = (uint16_t)(1000 + k * 111), dport = (uint16_t)(5000 + k);
		if (k == 22 || k == 23)
			continue;
		size_t len = ip4_frame(fr, 100 + (size_t)k, 17, src, dst, sport, dport);
		uint8_t in[12];
		memcpy(in, src, 4);
		memcpy(in + 4, dst, 4);
		in[8] = (uint8_t)(sport >> 8); in[9] = (uint8_t)sport; in[10] = (uint8_t)(dport >> 8); in[11] = (uint8_t)dport;
		int want_wq = map[ref_toeplitz(ms_key, in, 12) & 7];
		send_frame(fr, len);
		struct ibv_wc wc;
		int n = t_poll(cq, &wc, 1, want_wq == 0 ? 100 : 5000);
		if (want_wq == 0) {
			CHECK(n == 0, "frame %d to a WQ in ERR completed", k);
			dropped++;
		} else {
			CHECK(n == 1 && (int)(wc.wr_id / 1000) == want_wq, "frame %d after WQ 0 left RDY", k);
			delivered++;
			ncqe++;
		}
	}
	CHECK(dropped > 0 && delivered > 0, "dropped %d delivered %d", dropped, delivered);

	CHECK(ibv_modify_wq(wq[0], &(struct ibv_wq_attr){ .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RESET }) == 0 &&
	      ibv_modify_wq(wq[0], &(struct ibv_wq_attr){ .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY }) == 0,
	      "wq 0 back to RDY");
	for (int s = 0; s < SLOTS; s++) { /* RESET emptied it: post again */
		struct ibv_sge sge = { (uintptr_t)(buf + (size_t)s * FR), FR, mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = (uint64_t)s, .sg_list = &sge, .num_sge = 1 }, *bad;
		CHECK(ibv_post_wq_recv(wq[0], &wr, &bad) == 0, "post_wq_recv");
	}
	CHECK(ibv_destroy_flow(fl) == 0, "destroy flow");
	CHECK(ibv_destroy_qp(rqp) == 0, "destroy rss qp");

	/* IPv6 + TCP ports on a second RSS QP over the same table */
	rqp = make_rss_qp(t, IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6 | IBV_RX_HASH_SRC_PORT_TCP |
				     IBV_RX_HASH_DST_PORT_TCP, ms_key);
	fl = flow_to(rqp);
	int used6[NWQ] = { 0 };
	for (int k = 0; k < 16; k++) {
		size_t len = 14 + 40 + 20 + 10;
		memset(fr, 0, len);
		memcpy(fr, MAC_RSS, 6);
		fr[6] = 0x02;
		fr[12] = 0x86; fr[13] = 0xdd;
		uint8_t *ip6 = fr + 14;
		ip6[0] = 0x60; ip6[5] = 30; ip6[6] = 6; ip6[7] = 64;
		ip6[8] = 0xfe; ip6[9] = 0x80; ip6[23] = (uint8_t)k;             /* fe80::k */
		ip6[24] = 0x20; ip6[25] = 0x01; ip6[39] = (uint8_t)(k * 3 + 1); /* 2001::3k+1 */
		uint8_t *tcp = ip6 + 40;
		tcp[0] = 0x12; tcp[1] = (uint8_t)k; tcp[2] = 0x00; tcp[3] = 80; tcp[12] = 0x50;
		uint8_t in[36];
		memcpy(in, ip6 + 8, 32);
		memcpy(in + 32, tcp, 4);
		uint32_t want = ref_toeplitz(ms_key, in, 36);
		int want_wq = map[want & 7];
		send_frame(fr, len);
		struct ibv_wc wc;
		CHECK(t_poll(cq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS && wc.byte_len == len, "v6 frame %d", k);
		CHECK((int)(wc.wr_id / 1000) == want_wq, "v6 frame %d: WQ %d, want %d", k, (int)(wc.wr_id / 1000), want_wq);
		used6[want_wq] = 1;
		const uint8_t *c = (const uint8_t *)t_cqe64(&rc, ncqe++);
		uint32_t h = (uint32_t)c[12] << 24 | (uint32_t)c[13] << 16 | (uint32_t)c[14] << 8 | c[15];
		/* IPv6 src|dst (2 | 2 << 2), TCP sport|dport (1 << 4 | 1 << 6) */
		CHECK(h == want && c[16] == 0x5a, "v6 frame %d: CQE hash 0x%08x type 0x%02x, want 0x%08x 0x5a", k, h, c[16], want);
	}
	CHECK(used6[0] + used6[1] + used6[2] + used6[3] >= 2, "16 IPv6 flows on one WQ");
	CHECK(ibv_destroy_flow(fl) == 0, "destroy flow");
	CHECK(ibv_destroy_qp(rqp) == 0, "destroy rss qp");
	CHECK(ibv_destroy_rwq_ind_table(t) == 0, "destroy table");
	for (int i = 0; i < NWQ; i++)
		CHECK(ibv_destroy_wq(wq[i]) == 0, "destroy wq");
	CHECK(ibv_destroy_cq(cq) == 0, "destroy cq");
	CHECK(ibv_dereg_mr(mr) == 0, "dereg");
	free(buf);
	CHECK(t_violations() == 0, "strict violations");
	printf("t_rss_eth: 48 IPv4 + 16 IPv6 frames on %d WQs, hashes equal the reference, stable per flow\n", NWQ);
	return 0;
}
