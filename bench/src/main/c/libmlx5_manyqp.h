/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libmlx5_manyqp.h - the many-QP rows of libmlx5_loop.c (c.IbvManyQpBench.postPoll1, params qps = 1, 64, 1024): N RC
 * QPs of the geometry of a (create_qp) on one 256-entry CQ, each connected to one twin; per op one signaled RDMA
 * WRITE (1 SGE) by ibv_post_send on the next QP round-robin, its requester CQE from the synthetic completer (that QP's
 * qpn and user index), one ibv_poll_cq. Pairs with io.mlx5j.bench.Mlx5jManyQpBench / EmulatedQps: the cost of N send
 * rings, doorbell records, BlueFlame registers (libmlx5 locks the shared ones) and struct mlx5_qp in the cache.
 * Included once, by libmlx5_loop.c, after its completer and env functions.
 */
#ifndef LIBMLX5_MANYQP_H
#define LIBMLX5_MANYQP_H

struct manyqp {
	struct ibv_cq *cq, *twin_cq;
	struct ibv_qp *twin;
	struct ibv_qp **qp;
	uint32_t *uidx;
	uint16_t *cur_post; /* per QP, the wqe_counter of its next WQE (1 WQEBB per WRITE) */
	uint32_t n, next;
	uint64_t wr_id;
	struct completer c;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
};

static struct manyqp *manyqp_open(struct env *e, uint32_t n)
{
	struct manyqp *m = calloc(1, sizeof *m);
	if (!m)
		die("calloc", ENOMEM);
	m->qp = calloc(n, sizeof *m->qp);
	m->uidx = calloc(n, sizeof *m->uidx);
	m->cur_post = calloc(n, sizeof *m->cur_post);
	if (!m->qp || !m->uidx || !m->cur_post)
		die("calloc", ENOMEM);
	m->n = n;
	m->cq = ibv_create_cq(e->ctx, CQ_DEPTH, NULL, NULL, 0);
	m->twin_cq = ibv_create_cq(e->ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!m->cq || !m->twin_cq)
		die("ibv_create_cq", errno);
	m->twin = create_qp(e, m->twin_cq);
	struct ibv_port_attr port;
	int rc = ibv_query_port(e->ctx, 1, &port);
	if (rc)
		die("ibv_query_port", rc);
	union ibv_gid gid;
	if (e->eth && (rc = ibv_query_gid(e->ctx, 1, 1, &gid)))
		die("ibv_query_gid", rc);
	for (uint32_t i = 0; i < n; i++) {
		m->qp[i] = create_qp(e, m->cq);
		connect_qp(m->qp[i], m->twin->qp_num, port.lid, port.active_mtu, 100, 200, e->eth ? &gid : NULL);
		m->uidx[i] = emulator_uidx(m->qp[i]->qp_num);
	}
	completer_init(&m->c, m->cq, m->qp[0]->qp_num, m->uidx[0]);
	uint64_t base = (uintptr_t)e->mem;
	m->sge = (struct ibv_sge){ .addr = base + WRITE_SRC, .length = WRITE_BYTES, .lkey = e->mr->lkey };
	fill_wr(&m->wr, IBV_WR_RDMA_WRITE, &m->sge, 0, base + WRITE_DST, e->mr->rkey, 1);
	return m;
}

static void manyqp_close(struct manyqp *m)
{
	for (uint32_t i = 0; i < m->n; i++)
		ibv_destroy_qp(m->qp[i]);
	ibv_destroy_qp(m->twin);
	ibv_destroy_cq(m->cq);
	ibv_destroy_cq(m->twin_cq);
	free(m->qp);
	free(m->uidx);
	free(m->cur_post);
	free(m);
}

static void many_post_poll1(struct bench *b)
{
	struct manyqp *m = b->many;
	uint32_t q = m->next;
	m->next = q + 1 == m->n ? 0 : q + 1;
	m->wr.wr_id = ++m->wr_id;
	post(m->qp[q], &m->wr);
	m->c.qpn = m->qp[q]->qp_num;
	m->c.uidx = m->uidx[q];
	complete(&m->c, m->cur_post[q]++, MLX5_OPCODE_RDMA_WRITE);
	int got = ibv_poll_cq(m->cq, 1, b->wc);
	if (got != 1 || b->wc[0].wr_id != m->wr_id || b->wc[0].status != IBV_WC_SUCCESS) {
		fprintf(stderr, "libmlx5_loop: ibv_poll_cq returned %d (wr_id %llu, want %llu on QP %u)\n", got,
			got > 0 ? (unsigned long long)b->wc[0].wr_id : 0ull, (unsigned long long)m->wr_id, q);
		exit(1);
	}
}

#endif
