/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libmlx5_dc.h - the DC initiator row of libmlx5_loop.c (c.DciPostBench.libmlx5RdmaWrite): a DCI of the geometry of
 * a (create_qp: max_send_wr 256, one SGE, max_inline_data 64, send_ops_flags RDMA_WRITE | SEND) made by
 * mlx5dv_create_qp (MLX5DV_QP_INIT_ATTR_MASK_DC, MLX5DV_DCTYPE_DCI) on its own 256-entry CQ, brought to RTS as
 * QueuePair.activateDc does (INIT: port; RTR: path MTU; RTS: the RTS attributes). Per op one RDMA WRITE of
 * WRITE_BYTES by ibv_wr_start, ibv_wr_rdma_write, mlx5dv_wr_set_dc_addr (an AH of port 1, two DCT numbers and DC keys
 * alternately), ibv_wr_set_sge, ibv_wr_complete: 2 WQEBBs (ctrl, datagram, raddr, data: 96 bytes) and one BlueFlame
 * doorbell each. Pairs with io.mlx5j.bench.DciPostBench: the same DCI, targets, WQEs and synthetic completions, the
 * C code without any FFM call. No DCT needs to exist: the engine is off, nothing is sent.
 * Included once, by libmlx5_loop.c, after its completer and env functions.
 */
#ifndef LIBMLX5_DC_H
#define LIBMLX5_DC_H

#define DCI_WRITE_WQEBB 2

/* The two targets of DciPostBench (DCTN, DC_KEY), in the same order: WQE i names target i & 1. */
static const uint32_t DC_DCTN[2] = { 0x00abcd, 0x001234 };
static const uint64_t DC_KEY[2] = { 0x1122334455667788ull, 0x0badc0ffee0ddf00ull };

struct dc_bench {
	struct ibv_cq *cq;
	struct ibv_qp *dci;
	struct ibv_qp_ex *qx;
	struct mlx5dv_qp_ex *mx;
	struct ibv_ah *ah;
	struct completer c;
	uint32_t cur_post; /* the DCI's sq.cur_post in WQEBBs */
	uint32_t lkey, rkey;
	uint64_t src, raddr;
};

static void dc_modify(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask, const char *what)
{
	int rc = ibv_modify_qp(qp, attr, mask);
	if (rc)
		die(what, rc);
}

static void dc_open(struct dc_bench *d, struct env *e)
{
	d->cq = ibv_create_cq(e->ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!d->cq)
		die("ibv_create_cq (DCI)", errno);
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = d->cq,
		.recv_cq = d->cq,
		.cap = { .max_send_wr = MAX_SEND_WR, .max_send_sge = 1, .max_inline_data = MAX_INLINE },
		.qp_type = IBV_QPT_DRIVER,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = e->pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND,
	};
	struct mlx5dv_qp_init_attr dv = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
		.dc_init_attr = { .dc_type = MLX5DV_DCTYPE_DCI },
	};
	d->dci = mlx5dv_create_qp(e->ctx, &attr, &dv);
	if (!d->dci)
		die("mlx5dv_create_qp (DCI)", errno);
	struct ibv_port_attr port;
	int rc = ibv_query_port(e->ctx, 1, &port);
	if (rc)
		die("ibv_query_port", rc);
	/* DciPostBench's activateDc(1, 0, activeMtu, null): the attributes a DCI takes, no destination, no access */
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1 };
	dc_modify(d->dci, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT, "DCI RESET->INIT");
	struct ibv_qp_attr rtr = { .qp_state = IBV_QPS_RTR, .path_mtu = port.active_mtu };
	dc_modify(d->dci, &rtr, IBV_QP_STATE | IBV_QP_PATH_MTU, "DCI INIT->RTR");
	struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS, .sq_psn = 0, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
				   .max_rd_atomic = 1 };
	dc_modify(d->dci, &rts, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					IBV_QP_MAX_QP_RD_ATOMIC, "DCI RTR->RTS");
	d->qx = ibv_qp_to_qp_ex(d->dci);
	if (!d->qx)
		die("ibv_qp_to_qp_ex (DCI)", errno);
	d->mx = mlx5dv_qp_ex_from_ibv_qp_ex(d->qx);
	if (!d->mx)
		die("mlx5dv_qp_ex_from_ibv_qp_ex", errno);
	/* the AH of DciPostBench: on Ethernet RoCE v2 to GID index 1, hop limit 64; on InfiniBand the port's LID */
	struct ibv_ah_attr ah = { .dlid = port.lid, .port_num = 1 };
	if (e->eth) {
		union ibv_gid gid;
		if ((rc = ibv_query_gid(e->ctx, 1, 1, &gid)))
			die("ibv_query_gid", rc);
		ah.is_global = 1;
		ah.grh = (struct ibv_global_route){ .dgid = gid, .sgid_index = 1, .hop_limit = 64 };
	}
	d->ah = ibv_create_ah(e->pd, &ah);
	if (!d->ah)
		die("ibv_create_ah", errno);
	completer_init(&d->c, d->cq, d->dci->qp_num, emulator_uidx(d->dci->qp_num));
	d->cur_post = 0;
	d->lkey = e->mr->lkey;
	d->rkey = e->mr->rkey;
	d->src = (uintptr_t)e->mem + WRITE_SRC;
	d->raddr = (uintptr_t)e->mem + WRITE_DST;
}

static void dc_close(struct dc_bench *d)
{
	ibv_destroy_ah(d->ah);
	ibv_destroy_qp(d->dci);
	ibv_destroy_cq(d->cq);
}

static void dc_rdma_write(struct bench *b)
{
	struct dc_bench *d = b->dc;
	struct ibv_qp_ex *qx = d->qx;
	for (int i = 1; i <= BATCH; i++) {
		int t = i & 1;
		ibv_wr_start(qx);
		wr_ids(qx, i == BATCH);
		ibv_wr_rdma_write(qx, d->rkey, d->raddr);
		mlx5dv_wr_set_dc_addr(d->mx, d->ah, DC_DCTN[t], DC_KEY[t]);
		ibv_wr_set_sge(qx, d->lkey, d->src, WRITE_BYTES);
		wr_done(qx);
	}
	d->cur_post += BATCH * DCI_WRITE_WQEBB;
	complete(&d->c, (uint16_t)(d->cur_post - DCI_WRITE_WQEBB), MLX5_OPCODE_RDMA_WRITE);
	int n = ibv_poll_cq(d->cq, 1, b->wc);
	if (n != 1 || b->wc[0].wr_id != SIGNALED_WR_ID || b->wc[0].status != IBV_WC_SUCCESS) {
		fprintf(stderr, "libmlx5_loop: DCI ibv_poll_cq returned %d (wr_id 0x%llx, status %d): ring out of step\n",
			n, (unsigned long long)b->wc[0].wr_id, n > 0 ? (int)b->wc[0].status : -1);
		exit(1);
	}
}

#endif
