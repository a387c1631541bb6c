/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ibv_resize_cq against the completions still in the CQ: a size that cannot hold them fails with EINVAL (what a
 * ConnectX gives and rdma-core's pyverbs test_resize_cq expects), a larger one keeps every completion, and the
 * same rounded size is a no-op.
 */
#include <errno.h>

#include "etest.h"

int main(void)
{
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 7, NULL, NULL, 0); /* 8 entries, cqe 7 */
	struct ibv_cq *pcq = ibv_create_cq(t_ctx, 16, NULL, NULL, 0);
	CHECK(cq && pcq && cq->cqe == 7, "cq");
	struct ibv_qp *a, *b;
	t_rc_loop(cq, pcq, &a, &b);
	uint8_t *buf;
	struct ibv_mr *mr = t_mr(4096, T_ALL_ACCESS, (void **)&buf);
	struct t_rawcq raw;
	t_rawcq(cq, &raw);

	/* six unpolled completions */
	for (int i = 0; i < 6; i++) {
		struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = (uint64_t)i, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = (uintptr_t)buf + 1024;
		wr.wr.rdma.rkey = mr->rkey;
		t_post_send(a, &wr);
	}
	uint64_t end = t_ms() + 5000;
	for (uint32_t i = 0; i < 6; i++) {
		struct mlx5_cqe64 *c = t_cqe64(&raw, i);
		/* acquire: the owner check and udma_from_device_barrier in one load, before the CQE's body is read */
		while ((__atomic_load_n(&c->op_own, __ATOMIC_ACQUIRE) >> 4) == MLX5_CQE_INVALID) {
			CHECK(t_ms() < end, "CQE %u never written", i);
			usleep(100);
		}
	}

	CHECK(ibv_resize_cq(cq, 1) == EINVAL, "resize to 1 below 6 unpolled CQEs must be EINVAL");
	CHECK(ibv_resize_cq(cq, 3) == EINVAL, "resize to 3 (4 entries) below 6 unpolled CQEs must be EINVAL");
	CHECK(cq->cqe == 7, "a failed resize keeps the size (%d)", cq->cqe);
	CHECK(ibv_resize_cq(cq, 6) == 0 && cq->cqe == 7, "same rounded size: no-op");
	CHECK(ibv_resize_cq(cq, 15) == 0 && cq->cqe == 15, "grow to 15: cqe %d", cq->cqe);
	struct ibv_wc wc[8];
	CHECK(t_poll(cq, wc, 6, 5000) == 6, "the six completions survive the resize");
	for (int i = 0; i < 6; i++)
		CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == (uint64_t)i && wc[i].opcode == IBV_WC_RDMA_WRITE,
		      "wc %d: status %d wr_id %llu", i, wc[i].status, (unsigned long long)wc[i].wr_id);
	CHECK(ibv_resize_cq(cq, 1) == 0 && cq->cqe == 1, "an empty CQ shrinks: cqe %d", cq->cqe);

	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_cq(cq);
	ibv_destroy_cq(pcq);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	free(buf);
	printf("t_cq_resize: ok\n");
	return 0;
}
