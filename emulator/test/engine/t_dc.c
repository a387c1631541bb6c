/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_dc.c - DC transport: DCIs and DCTs through mlx5dv_create_qp (MLX5DV_QP_INIT_ATTR_MASK_DC), their creation and
 * modify checks with Linux mlx5's errnos (drivers/infiniband/hw/mlx5/qp.c check_qp_attr, modify_dci_qp_is_ok,
 * mlx5_ib_modify_dct), then traffic between two processes: one DCI addresses two DCTs of the peer in turn (SEND,
 * RDMA WRITE, RDMA READ, FETCH_ADD through mlx5dv_wr_set_dc_addr), its completions come in posting order, the peer
 * receives through its SRQ with the DCT number as the completion's QP number and the DCI as source QP; two DCIs
 * write to one DCT alternately (the DCT keeps a responder state per DCI); a wrong DC
 * access key and a DCT that does not exist both end the DCI's WQE in RETRY_EXC_ERR (vendor syndrome 0x81) and
 * deliver nothing. Before the emulator had DC, the first mlx5dv_create_qp failed with EOPNOTSUPP.
 */
#include <errno.h>
#include <sys/wait.h>

#include "etest.h"

#define DC_KEY0 0x1122334455667788ull
#define DC_KEY1 0x0badc0de0badc0deull
#define MSG     256
#define NOPS    8

/* What the DCT side tells the DCI side. */
struct dc_info {
	uint32_t dctn[2];
	uint64_t key[2];
	uint64_t addr;
	uint32_t rkey;
};

static struct ibv_qp *create_dc(struct ibv_cq *cq, struct ibv_srq *srq, int dct, uint64_t key, uint32_t max_recv_wr)
{
	struct ibv_qp_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_DRIVER;
	a.send_cq = cq;
	a.recv_cq = cq;
	a.srq = srq;
	a.pd = t_pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.cap.max_send_wr = dct ? 0 : 32;
	a.cap.max_send_sge = dct ? 0 : 1;
	a.cap.max_recv_wr = max_recv_wr;
	a.cap.max_recv_sge = max_recv_wr ? 1 : 0;
	if (!dct) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ |
				   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	}
	struct mlx5dv_qp_init_attr dv;
	memset(&dv, 0, sizeof dv);
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	dv.dc_init_attr.dc_type = dct ? MLX5DV_DCTYPE_DCT : MLX5DV_DCTYPE_DCI;
	dv.dc_init_attr.dct_access_key = key;
	return mlx5dv_create_qp(t_ctx, &a, &dv);
}

static int modify(struct ibv_qp *qp, enum ibv_qp_state st, int mask, int access)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = st;
	a.port_num = 1;
	a.qp_access_flags = access;
	a.path_mtu = IBV_MTU_1024;
	a.min_rnr_timer = 1;
	a.timeout = 1;         /* 8 us: the engine waits at least 20 ms per try */
	a.retry_cnt = 2;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	a.sq_psn = 0x42;
	a.dest_qp_num = 1;
	t_ah_attr(&a.ah_attr);
	errno = 0;
	int r = ibv_modify_qp(qp, &a, mask);
	return r ? (errno ? errno : r) : 0;
}

#define DCT_INIT (IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT)
#define DCT_RTR  (IBV_QP_STATE | IBV_QP_MIN_RNR_TIMER | IBV_QP_AV | IBV_QP_PATH_MTU)
#define DCI_INIT (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT)
#define DCI_RTR  (IBV_QP_STATE | IBV_QP_PATH_MTU)
#define DCI_RTS  (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC | \
		  IBV_QP_SQ_PSN)
#define REMOTE   (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static void dct_up(struct ibv_qp *q)
{
	CHECK(modify(q, IBV_QPS_INIT, DCT_INIT, REMOTE) == 0, "dct init");
	CHECK(modify(q, IBV_QPS_RTR, DCT_RTR, 0) == 0, "dct rtr");
}

static void dci_up(struct ibv_qp *q)
{
	CHECK(modify(q, IBV_QPS_INIT, DCI_INIT, 0) == 0, "dci init");
	CHECK(modify(q, IBV_QPS_RTR, DCI_RTR, 0) == 0, "dci rtr");
	CHECK(modify(q, IBV_QPS_RTS, DCI_RTS, 0) == 0, "dci rts");
}

/* Creation and modify rules, in this process alone. */
static void check_commands(void)
{
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 16, NULL, NULL, 0);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(t_pd, &sa);
	CHECK(cq && srq, "cq, srq");

	/* a DCT without an SRQ, a DCI with receive WRs: check_qp_attr() */
	errno = 0;
	CHECK(!create_dc(cq, NULL, 1, DC_KEY0, 0) && errno == EINVAL, "DCT without SRQ: errno %d", errno);
	errno = 0;
	CHECK(!create_dc(cq, NULL, 0, 0, 4) && errno == EINVAL, "DCI with a receive queue: errno %d", errno);

	struct ibv_qp *dct = create_dc(cq, srq, 1, DC_KEY0, 0);
	CHECK(dct, "create DCT: errno %d", errno);
	CHECK(dct->qp_num == 0, "a DCT has no number before RTR, got 0x%x", dct->qp_num);
	/* mlx5_ib_modify_dct: exact masks, RESET->INIT->RTR only */
	CHECK(modify(dct, IBV_QPS_INIT, DCT_INIT & ~IBV_QP_ACCESS_FLAGS, 0) == EINVAL, "DCT init without access");
	CHECK(modify(dct, IBV_QPS_INIT, DCT_INIT | IBV_QP_QKEY, REMOTE) == EINVAL, "DCT init with a Q_Key");
	CHECK(modify(dct, IBV_QPS_INIT, DCT_INIT, REMOTE) == 0, "DCT init");
	CHECK(modify(dct, IBV_QPS_RTR, DCT_RTR | IBV_QP_DEST_QPN, 0) == EINVAL, "DCT rtr with a destination");
	CHECK(modify(dct, IBV_QPS_RTR, DCT_RTR & ~IBV_QP_MIN_RNR_TIMER, 0) == EINVAL, "DCT rtr without rnr timer");
	CHECK(modify(dct, IBV_QPS_RTR, DCT_RTR, 0) == 0, "DCT rtr");
	CHECK(dct->qp_num != 0, "the DCT number comes with RTR");
	CHECK(modify(dct, IBV_QPS_RTS, DCI_RTS, 0) == EINVAL, "DCT to RTS");
	CHECK(modify(dct, IBV_QPS_ERR, IBV_QP_STATE, 0) == EINVAL, "DCT to ERR");

	struct ibv_qp *dci = create_dc(cq, srq, 0, 0, 0);
	CHECK(dci && dci->qp_num, "create DCI: errno %d", errno);
	/* modify_dci_qp_is_ok(): no access flags, no destination, the RTS attributes all required */
	CHECK(modify(dci, IBV_QPS_INIT, DCI_INIT | IBV_QP_ACCESS_FLAGS, 0) == EINVAL, "DCI init with access flags");
	CHECK(modify(dci, IBV_QPS_INIT, DCI_INIT, 0) == 0, "DCI init");
	CHECK(modify(dci, IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PORT, 0) == 0, "DCI init to init");
	CHECK(modify(dci, IBV_QPS_RTR, DCI_RTR | IBV_QP_DEST_QPN, 0) == EINVAL, "DCI rtr with a destination");
	CHECK(modify(dci, IBV_QPS_RTR, DCI_RTR | IBV_QP_AV, 0) == 0, "DCI rtr with an AV");
	CHECK(modify(dci, IBV_QPS_RTS, DCI_RTS & ~IBV_QP_SQ_PSN, 0) == EINVAL, "DCI rts without sq_psn");
	CHECK(modify(dci, IBV_QPS_RTS, DCI_RTS, 0) == 0, "DCI rts");
	CHECK(modify(dci, IBV_QPS_RESET, IBV_QP_STATE, 0) == 0, "DCI reset");
	CHECK(modify(dci, IBV_QPS_RESET, IBV_QP_STATE | IBV_QP_PORT, 0) == EINVAL, "DCI reset with a port");
	CHECK(ibv_destroy_qp(dci) == 0 && ibv_destroy_qp(dct) == 0, "destroy DC QPs");
	CHECK(ibv_destroy_srq(srq) == 0 && ibv_destroy_cq(cq) == 0, "destroy srq, cq");
}

static int to_child[2], to_parent[2];

/* The DCT side: two DCTs with different keys on one SRQ and CQ, one MR both serve. */
static void dct_side(void)
{
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(t_pd, &sa);
	CHECK(cq && srq, "cq, srq");
	void *buf;
	struct ibv_mr *mr = t_mr(64 * 1024, REMOTE, &buf);
	uint8_t *b = buf;
	for (int i = 0; i < 4096; i++)
		b[32768 + i] = (uint8_t)(i * 7 + 3); /* what the DCI READs */
	for (int i = 0; i < 8; i++) {
		struct ibv_sge sge = { (uintptr_t)(b + i * MSG), MSG, mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 100 + (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *bad;
		CHECK(ibv_post_srq_recv(srq, &wr, &bad) == 0, "post srq recv");
	}
	struct ibv_qp *dct[2];
	struct dc_info info = { .key = { DC_KEY0, DC_KEY1 }, .addr = (uintptr_t)buf, .rkey = mr->rkey };
	for (int i = 0; i < 2; i++) {
		dct[i] = create_dc(cq, srq, 1, info.key[i], 0);
		CHECK(dct[i], "DCT %d: errno %d", i, errno);
		dct_up(dct[i]);
		info.dctn[i] = dct[i]->qp_num;
	}
	t_xwrite(to_parent[1], &info, sizeof info);
	uint32_t dci_qpn;
	t_xread(to_child[0], &dci_qpn, sizeof dci_qpn); /* the DCI side is done */

	/* The DCI's SENDs (ops 0 and 3 of check_traffic, to DCT 0 then DCT 1): SRQ WQEs in order, nothing else. */
	struct ibv_wc wc[4];
	int n = t_poll(cq, wc, 4, 2000);
	CHECK(n == 2, "%d receive completions, expected 2", n);
	for (int i = 0; i < 2; i++) {
		CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].opcode == IBV_WC_RECV, "recv %d: status %d opcode %d", i,
		      wc[i].status, wc[i].opcode);
		CHECK(wc[i].wr_id == 100 + (uint64_t)i, "recv %d: wr_id %llu", i, (unsigned long long)wc[i].wr_id);
		CHECK(wc[i].qp_num == info.dctn[i], "recv %d: qp_num 0x%x, DCT 0x%x", i, wc[i].qp_num, info.dctn[i]);
		CHECK(wc[i].src_qp == dci_qpn, "recv %d: src_qp 0x%x, DCI 0x%x", i, wc[i].src_qp, dci_qpn);
		CHECK(wc[i].byte_len == MSG, "recv %d: byte_len %u", i, wc[i].byte_len);
		for (int k = 0; k < MSG; k++)
			CHECK(b[i * MSG + k] == (uint8_t)(0x10 * (i * 3) + k), "recv %d byte %d", i, k);
	}
	/* the WRITEs (ops 1 and 4) at 16 KiB + op * MSG, the FETCH_ADDs (ops 5 and 7) on the word at 40960 */
	for (int op = 1; op <= 4; op += 3)
		for (int k = 0; k < MSG; k++)
			CHECK(b[16384 + op * MSG + k] == (uint8_t)(0x10 * op + k), "write %d byte %d", op, k);
	/* two DCIs writing to DCT 0 in turn: each connection keeps its own PSNs */
	for (int k = 0; k < 4; k++)
		for (int which = 0; which < 2; which++)
			for (int j = 0; j < 64; j++)
				CHECK(b[20480 + k * 128 + which * 64 + j] == (uint8_t)(0xa0 + k * 2 + which),
				      "interleaved write %d of DCI %d byte %d", k, which, j);
	uint64_t word;
	memcpy(&word, b + 40960, 8);
	CHECK(word == 5 + 7, "fetch_add word %llu", (unsigned long long)word);
	char ok = 1;
	t_xwrite(to_parent[1], &ok, 1);
	for (int i = 0; i < 2; i++)
		CHECK(ibv_destroy_qp(dct[i]) == 0, "destroy DCT");
	CHECK(ibv_destroy_srq(srq) == 0 && ibv_destroy_cq(cq) == 0 && ibv_dereg_mr(mr) == 0, "teardown");
	free(buf);
	CHECK(ibv_dealloc_pd(t_pd) == 0 && ibv_close_device(t_ctx) == 0, "close");
}

static void post_dc(struct ibv_qp *dci, struct ibv_ah *ah, uint32_t dctn, uint64_t key, int op, uint64_t wr_id,
		    void *local, uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(dci);
	struct mlx5dv_qp_ex *mx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);
	ibv_wr_start(qx);
	qx->wr_id = wr_id;
	qx->wr_flags = IBV_SEND_SIGNALED;
	switch (op) {
	case IBV_WR_SEND:
		ibv_wr_send(qx);
		break;
	case IBV_WR_RDMA_WRITE:
		ibv_wr_rdma_write(qx, rkey, raddr);
		break;
	case IBV_WR_RDMA_READ:
		ibv_wr_rdma_read(qx, rkey, raddr);
		break;
	default:
		ibv_wr_atomic_fetch_add(qx, rkey, raddr, wr_id); /* ops 5 and 7: adds 5, then 7 */
	}
	mlx5dv_wr_set_dc_addr(mx, ah, dctn, key);
	ibv_wr_set_sge(qx, lkey, (uintptr_t)local, len);
	CHECK(ibv_wr_complete(qx) == 0, "wr_complete");
}

static void check_traffic(void)
{
	pid_t pid = t_fork_peer(to_child, to_parent, dct_side);
	t_open();
	check_commands();
	struct dc_info info;
	t_xread(to_parent[0], &info, sizeof info);
	CHECK(info.dctn[0] && info.dctn[1] && info.dctn[0] != info.dctn[1], "DCT numbers 0x%x 0x%x", info.dctn[0],
	      info.dctn[1]);

	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cq, "cq");
	struct ibv_qp *dci = create_dc(cq, NULL, 0, 0, 0);
	CHECK(dci, "DCI: errno %d", errno);
	dci_up(dci);
	struct ibv_ah_attr aa;
	t_ah_attr(&aa);
	struct ibv_ah *ah = ibv_create_ah(t_pd, &aa);
	CHECK(ah, "ah");
	void *lbuf;
	struct ibv_mr *mr = t_mr((NOPS + 8) * 4096, IBV_ACCESS_LOCAL_WRITE, &lbuf);
	uint8_t *l = lbuf;

	/* One DCI, two DCTs in turn: every op changes the target, so the DCI reconnects before each WQE. */
	static const int ops[NOPS] = { IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_SEND, IBV_WR_RDMA_WRITE,
				       IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_RDMA_READ, IBV_WR_ATOMIC_FETCH_AND_ADD };
	for (int op = 0; op < NOPS; op++) {
		uint8_t *loc = l + op * 4096;
		uint32_t len = MSG;
		uint64_t raddr = 0;
		if (ops[op] == IBV_WR_SEND || ops[op] == IBV_WR_RDMA_WRITE) {
			for (int k = 0; k < MSG; k++)
				loc[k] = (uint8_t)(0x10 * op + k);
			raddr = info.addr + 16384 + (uint64_t)op * MSG;
		} else if (ops[op] == IBV_WR_RDMA_READ) {
			raddr = info.addr + 32768 + (uint64_t)op * 64;
		} else {
			len = 8;
			raddr = info.addr + 40960;
		}
		int t = op & 1;
		post_dc(dci, ah, info.dctn[t], info.key[t], ops[op], (uint64_t)op, loc, len, mr->lkey, raddr, info.rkey);
	}
	struct ibv_wc wc[NOPS];
	int n = t_poll(cq, wc, NOPS, 5000);
	CHECK(n == NOPS, "%d of %d DCI completions", n, NOPS);
	static const enum ibv_wc_opcode wop[NOPS] = { IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_SEND,
						       IBV_WC_RDMA_WRITE, IBV_WC_FETCH_ADD, IBV_WC_RDMA_READ,
						       IBV_WC_FETCH_ADD };
	for (int i = 0; i < NOPS; i++) {
		CHECK(wc[i].wr_id == (uint64_t)i, "completion %d is WR %llu: the DCI must keep its order", i,
		      (unsigned long long)wc[i].wr_id);
		CHECK(wc[i].status == IBV_WC_SUCCESS, "WR %d: status %s", i, ibv_wc_status_str(wc[i].status));
		CHECK(wc[i].opcode == wop[i], "WR %d: opcode %d", i, wc[i].opcode);
		CHECK(wc[i].qp_num == dci->qp_num, "WR %d: qp_num 0x%x", i, wc[i].qp_num);
	}
	for (int op = 2; op <= 6; op += 4)
		for (int k = 0; k < MSG; k++)
			CHECK(l[op * 4096 + k] == (uint8_t)((op * 64 + k) * 7 + 3), "READ %d byte %d", op, k);
	uint64_t old5, old7;
	memcpy(&old5, l + 5 * 4096, 8);
	memcpy(&old7, l + 7 * 4096, 8);
	CHECK(old5 == 0 && old7 == 5, "FETCH_ADD old values %llu %llu", (unsigned long long)old5,
	      (unsigned long long)old7);

	/* A second DCI, its PSNs starting where the first one's started, and the first one WRITE to DCT 0 alternately:
	 * a DCT with one PSN for all its DCIs would take the second one's requests for duplicates and drop their data. */
	struct ibv_qp *dcib = create_dc(cq, NULL, 0, 0, 0);
	CHECK(dcib, "DCI B");
	dci_up(dcib);
	for (int k = 0; k < 4; k++)
		for (int which = 0; which < 2; which++) {
			uint8_t *loc = l + (NOPS + k * 2 + which) * 4096;
			memset(loc, 0xa0 + k * 2 + which, 64);
			post_dc(which ? dcib : dci, ah, info.dctn[0], info.key[0], IBV_WR_RDMA_WRITE,
				20 + (uint64_t)(k * 2 + which), loc, 64, mr->lkey,
				info.addr + 20480 + (uint64_t)(k * 128 + which * 64), info.rkey);
		}
	n = t_poll(cq, wc, NOPS, 5000);
	CHECK(n == NOPS, "interleaved writes: %d of %d completions", n, NOPS);
	uint64_t next[2] = { 20, 21 };
	for (int i = 0; i < NOPS; i++) {
		int which = wc[i].qp_num == dcib->qp_num;
		CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].opcode == IBV_WC_RDMA_WRITE, "interleaved %d: %s", i,
		      ibv_wc_status_str(wc[i].status));
		CHECK(wc[i].wr_id == next[which], "DCI %d completed WR %llu, expected %llu", which,
		      (unsigned long long)wc[i].wr_id, (unsigned long long)next[which]);
		next[which] += 2;
	}

	/* A wrong DC access key: DCT 0 drops the request, the DCI retries and gives up (retry_cnt 2). */
	post_dc(dci, ah, info.dctn[0], info.key[0] ^ 1, IBV_WR_SEND, 50, l, MSG, mr->lkey, 0, 0);
	n = t_poll(cq, wc, 1, 5000);
	CHECK(n == 1 && wc[0].wr_id == 50, "wrong key: %d completions", n);
	CHECK(wc[0].status == IBV_WC_RETRY_EXC_ERR && wc[0].vendor_err == 0x81, "wrong key: status %s vendor 0x%x",
	      ibv_wc_status_str(wc[0].status), wc[0].vendor_err);

	/* No such DCT: nobody answers, the same error. */
	struct ibv_qp *dci2 = create_dc(cq, NULL, 0, 0, 0);
	CHECK(dci2, "DCI 2");
	dci_up(dci2);
	post_dc(dci2, ah, 0xfffff0, DC_KEY0, IBV_WR_RDMA_WRITE, 60, l, MSG, mr->lkey, info.addr, info.rkey);
	n = t_poll(cq, wc, 1, 5000);
	CHECK(n == 1 && wc[0].wr_id == 60, "missing DCT: %d completions", n);
	CHECK(wc[0].status == IBV_WC_RETRY_EXC_ERR && wc[0].vendor_err == 0x81, "missing DCT: status %s vendor 0x%x",
	      ibv_wc_status_str(wc[0].status), wc[0].vendor_err);

	uint32_t q = dci->qp_num;
	t_xwrite(to_child[1], &q, sizeof q);
	char ok = 0;
	t_xread(to_parent[0], &ok, 1);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "DCT side failed");
	CHECK(ibv_destroy_qp(dci) == 0 && ibv_destroy_qp(dci2) == 0 && ibv_destroy_qp(dcib) == 0, "destroy DCIs");
	CHECK(ibv_destroy_ah(ah) == 0, "destroy ah");
	CHECK(ibv_destroy_cq(cq) == 0 && ibv_dereg_mr(mr) == 0, "teardown");
	free(lbuf);
	CHECK(ibv_dealloc_pd(t_pd) == 0 && ibv_close_device(t_ctx) == 0, "close");
	CHECK(t_violations() == 0, "strict reports: %lu", t_violations());
}

int main(void)
{
	check_traffic();
	printf("PASS t_dc\n");
	return 0;
}
