/* SPDX-License-Identifier: Apache-2.0 */
/*
 * xrc_test.h - the XRC set-up of the XRC engine tests (t_xrc, t_xrc_2proc): a domain opened through the file g_path,
 * XRC SRQs, TGT and INI QPs, their connection, and posts and completions checked field by field.
 */
#ifndef MLX5EMU_XRC_TEST_H
#define MLX5EMU_XRC_TEST_H

#include <fcntl.h>
#include <poll.h>

#include "etest.h"

static char g_path[64];

static inline struct ibv_xrcd *open_xrcd(int fd, int oflags)
{
	struct ibv_xrcd_init_attr a = { .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
					.fd = fd, .oflags = oflags };
	struct ibv_xrcd *x = ibv_open_xrcd(t_ctx, &a);
	CHECK(x, "open_xrcd: %s", strerror(errno));
	return x;
}

static inline struct ibv_srq *xsrq(struct ibv_xrcd *x, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.attr.max_wr = 32;
	a.attr.max_sge = 2;
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_XRCD;
	a.srq_type = IBV_SRQT_XRC;
	a.pd = t_pd;
	a.cq = cq;
	a.xrcd = x;
	struct ibv_srq *s = ibv_create_srq_ex(t_ctx, &a);
	CHECK(s, "create XRC SRQ: %s", strerror(errno));
	return s;
}

static inline struct ibv_qp *tgt_qp(struct ibv_xrcd *x)
{
	struct ibv_qp_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_XRC_RECV;
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	a.xrcd = x;
	struct ibv_qp *qp = ibv_create_qp_ex(t_ctx, &a);
	CHECK(qp, "create TGT: %s", strerror(errno));
	return qp;
}

static inline struct ibv_qp *ini_qp(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_XRC_SEND;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = t_pd;
	a.send_cq = cq;
	a.sq_sig_all = 1;
	a.cap.max_send_wr = 32;
	a.cap.max_send_sge = 2;
	a.cap.max_inline_data = 64;
	struct ibv_qp *qp = ibv_create_qp_ex(t_ctx, &a);
	CHECK(qp, "create INI: %s", strerror(errno));
	return qp;
}

/* Both XRC QP types take the RC attribute masks; uverbs drops what each type ignores (modify_qp_mask). */
static inline void connect_xrc(struct ibv_qp *qp, uint32_t remote)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0, "init");
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = remote;
	a.rq_psn = 0x200;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	t_ah_attr(&a.ah_attr);
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) == 0, "rtr: %s", strerror(errno));
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x200;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC) == 0, "rts: %s", strerror(errno));
}

static inline void post_srq(struct ibv_srq *s, uint64_t id, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad;
	CHECK(ibv_post_srq_recv(s, &wr, &bad) == 0, "post_srq_recv");
}

static inline void send_xrc(struct ibv_qp *qp, uint32_t srqn, enum ibv_wr_opcode op, uint64_t id, void *addr,
		     uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_send_wr wr;
	memset(&wr, 0, sizeof wr);
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.qp_type.xrc.remote_srqn = srqn;
	wr.imm_data = htobe32(0x1234u + (uint32_t)id);
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	t_post_send(qp, &wr);
}

static inline void expect_send_ok(struct ibv_cq *cq, uint64_t id, enum ibv_wc_opcode op)
{
	struct ibv_wc wc;
	CHECK(t_poll(cq, &wc, 1, 5000) == 1, "send completion %lu", (unsigned long)id);
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == id && wc.opcode == op, "send wc: status %d id %lu opcode %d",
	      wc.status, (unsigned long)wc.wr_id, wc.opcode);
}

static inline void expect_recv(struct ibv_cq *cq, uint64_t id, uint32_t tgt_qpn, struct ibv_srq *srq,
			       enum ibv_wc_opcode op, uint32_t len, int imm)
{
	struct ibv_wc wc;
	CHECK(t_poll(cq, &wc, 1, 5000) == 1, "recv completion %lu", (unsigned long)id);
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == id && wc.opcode == op && wc.byte_len == len,
	      "recv wc: status %d id %lu opcode %d len %u", wc.status, (unsigned long)wc.wr_id, wc.opcode, wc.byte_len);
	CHECK(wc.qp_num == tgt_qpn, "recv wc on QP 0x%x, the TGT QP is 0x%x", wc.qp_num, tgt_qpn);
	CHECK(!imm || ((wc.wc_flags & IBV_WC_WITH_IMM) && wc.imm_data != 0), "immediate: flags 0x%x", wc.wc_flags);
	(void)srq;
}

#endif
