/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rss_common.h - helpers of the RSS and striding-RQ engine tests (t_rss_eth.c, t_mprq_eth.c): a raw packet QP that
 * sends frames through libmlx5, receive WQs behind an indirection table and an RSS QP, and a steering rule to it.
 */
#ifndef MLX5EMU_RSS_COMMON_H
#define MLX5EMU_RSS_COMMON_H

#include <errno.h>
#include <arpa/inet.h>
#include "etest.h"

static const uint8_t MAC_RSS[6] = { 0x02, 0, 0, 0, 0, 0x77 };

static struct ibv_qp *g_tx;
static struct ibv_cq *g_txcq;
static struct ibv_mr *g_txmr;
static uint8_t *g_txbuf;

static inline void tx_init(void)
{
	g_txcq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_qp_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.send_cq = a.recv_cq = g_txcq;
	a.cap.max_send_wr = 64;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = 64;
	a.pd = t_pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	g_tx = ibv_create_qp_ex(t_ctx, &a);
	CHECK(g_tx, "raw qp: errno %d", errno);
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	CHECK(ibv_modify_qp(g_tx, &at, IBV_QP_STATE | IBV_QP_PORT) == 0, "INIT");
	at.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(g_tx, &at, IBV_QP_STATE) == 0, "RTR");
	at.qp_state = IBV_QPS_RTS;
	CHECK(ibv_modify_qp(g_tx, &at, IBV_QP_STATE) == 0, "RTS");
	g_txmr = t_mr(1 << 16, IBV_ACCESS_LOCAL_WRITE, (void **)&g_txbuf);
}

static inline void send_frame(const uint8_t *fr, size_t len)
{
	memcpy(g_txbuf, fr, len);
	struct ibv_sge sge = { (uintptr_t)g_txbuf, (uint32_t)len, g_txmr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	t_post_send(g_tx, &wr);
	struct ibv_wc wc;
	CHECK(t_poll(g_txcq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS, "send completion %d", wc.status);
}

/* Ethernet/IPv4/(UDP 17 | TCP 6 | other) frame of len bytes to MAC_RSS. */
static inline size_t ip4_frame(uint8_t *fr, size_t len, uint8_t proto, const uint8_t src[4], const uint8_t dst[4],
			uint16_t sport, uint16_t dport)
{
	memset(fr, 0, len);
	memcpy(fr, MAC_RSS, 6);
	fr[6] = 0x02; fr[11] = 0x01;
	fr[12] = 0x08; fr[13] = 0x00;
	uint8_t *ip = fr + 14;
	size_t iplen = len - 14;
	ip[0] = 0x45; ip[2] = (uint8_t)(iplen >> 8); ip[3] = (uint8_t)iplen; ip[8] = 64; ip[9] = proto;
	memcpy(ip + 12, src, 4);
	memcpy(ip + 16, dst, 4);
	uint8_t *l4 = ip + 20;
	l4[0] = (uint8_t)(sport >> 8); l4[1] = (uint8_t)sport; l4[2] = (uint8_t)(dport >> 8); l4[3] = (uint8_t)dport;
	if (proto == 17) {
		l4[4] = (uint8_t)((iplen - 20) >> 8); l4[5] = (uint8_t)(iplen - 20);
	} else if (proto == 6) {
		l4[12] = 0x50;
	}
	for (size_t i = 14 + 20 + 20; i < len; i++)
		fr[i] = (uint8_t)(i * 13 + sport);
	return len;
}

static inline struct ibv_wq *make_wq(struct ibv_cq *cq, uint32_t max_wr, struct mlx5dv_wq_init_attr *dv)
{
	struct ibv_wq_init_attr a = { .wq_type = IBV_WQT_RQ, .max_wr = max_wr, .max_sge = 1, .pd = t_pd, .cq = cq };
	struct ibv_wq *w = dv ? mlx5dv_create_wq(t_ctx, &a, dv) : ibv_create_wq(t_ctx, &a);
	CHECK(w, "create wq: errno %d", errno);
	struct ibv_wq_attr m = { .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY };
	CHECK(ibv_modify_wq(w, &m) == 0, "wq RDY");
	return w;
}

static inline struct ibv_qp *make_rss_qp(struct ibv_rwq_ind_table *t, uint64_t fields, uint8_t *key)
{
	struct ibv_qp_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH;
	a.pd = t_pd;
	a.rwq_ind_tbl = t;
	a.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	a.rx_hash_conf.rx_hash_key_len = 40;
	a.rx_hash_conf.rx_hash_key = key;
	a.rx_hash_conf.rx_hash_fields_mask = fields;
	struct ibv_qp *qp = ibv_create_qp_ex(t_ctx, &a);
	CHECK(qp, "rss qp: errno %d", errno);
	return qp;
}

/* A NORMAL rule sending every frame to MAC_RSS to qp. */
static inline struct ibv_flow *flow_to(struct ibv_qp *qp)
{
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} f;
	_Static_assert(sizeof(struct ibv_flow_attr) == offsetof(__typeof__(f), eth), "specs follow the attr");
	memset(&f, 0, sizeof f);
	f.attr.type = IBV_FLOW_ATTR_NORMAL;
	f.attr.size = sizeof f;
	f.attr.num_of_specs = 1;
	f.attr.port = 1;
	f.eth.type = IBV_FLOW_SPEC_ETH;
	f.eth.size = sizeof f.eth;
	memcpy(f.eth.val.dst_mac, MAC_RSS, 6);
	memset(f.eth.mask.dst_mac, 0xff, 6);
	struct ibv_flow *fl = ibv_create_flow(qp, &f.attr);
	CHECK(fl, "create_flow: errno %d", errno);
	return fl;
}

#endif
