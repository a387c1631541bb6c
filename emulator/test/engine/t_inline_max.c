/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Inline data up to what a ConnectX-5 allows: libmlx5 sizes send WQEs against the max_sq_desc_sz the kernel
 * answers (1024 bytes on ConnectX-4/5). An RC QP made with ibv_create_qp reserves libmlx5's worst-case overhead
 * of every RC opcode (providers/mlx5/verbs.c _sq_overhead: ctrl 16 + UMR ctrl 48 + mkey context 64 + 64 for
 * LOCAL_INV/BIND_MW = 192), so it may ask for 1024 - 192 - 4 (inline header) = 828 bytes and 829 is refused by
 * libmlx5 itself; with the old 512-byte limit even pyverbs' 512-byte QPs failed. An inline SEND and an inline
 * RDMA WRITE of 828 bytes arrive intact.
 */
#include <errno.h>

#include "etest.h"

static struct ibv_qp *mkqp(struct ibv_cq *cq, uint32_t inl)
{
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof a);
	a.send_cq = a.recv_cq = cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 16;
	a.cap.max_recv_wr = 16;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = inl;
	struct ibv_qp *qp = ibv_create_qp(t_pd, &a);
	if (qp)
		CHECK(a.cap.max_inline_data >= inl, "granted inline %u < %u", a.cap.max_inline_data, inl);
	return qp;
}

int main(void)
{
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cq, "cq");
	errno = 0;
	CHECK(!mkqp(cq, 829), "829 bytes of inline data exceed a 1024-byte WQE");
	struct ibv_qp *q512 = mkqp(cq, 512);
	CHECK(q512, "512 bytes of inline data: %s", strerror(errno));
	ibv_destroy_qp(q512);
	struct ibv_qp *a = mkqp(cq, 828), *b = mkqp(cq, 828);
	CHECK(a && b, "828 bytes of inline data: %s", strerror(errno));
	t_connect(a, b->qp_num, &t_default_conn, 1);
	t_connect(b, a->qp_num, &t_default_conn, 1);
	uint8_t *buf;
	struct ibv_mr *mr = t_mr(8192, T_ALL_ACCESS, (void **)&buf);
	for (int i = 0; i < 828; i++)
		buf[i] = (uint8_t)(i * 13 + 5);
	t_post_recv(b, 7, buf + 4096, 2048, mr->lkey);
	struct ibv_sge s = { (uintptr_t)buf, 828, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE };
	t_post_send(a, &wr);
	struct ibv_wc wc[2];
	CHECK(t_poll(cq, wc, 2, 5000) == 2, "send + recv completions");
	for (int i = 0; i < 2; i++) {
		CHECK(wc[i].status == IBV_WC_SUCCESS, "wc %d status %d", i, wc[i].status);
		if (wc[i].opcode == IBV_WC_RECV)
			CHECK(wc[i].byte_len == 828, "recv byte_len %u", wc[i].byte_len);
	}
	CHECK(memcmp(buf + 4096, buf, 828) == 0, "828 inline bytes arrived");
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)buf + 6000;
	wr.wr.rdma.rkey = mr->rkey;
	t_post_send(a, &wr);
	CHECK(t_poll(cq, wc, 1, 5000) == 1 && wc[0].status == IBV_WC_SUCCESS, "write completion");
	CHECK(memcmp(buf + 6000, buf, 828) == 0, "828 inline bytes written");

	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	free(buf);
	printf("t_inline_max: ok\n");
	return 0;
}
