/* SPDX-License-Identifier: Apache-2.0 */
/* Commands from many threads on one context: objects stay consistent (unique handles and numbers, exact live
 * counts), and a destroy racing a modify of the same QP answers 0, EBUSY or EINVAL, never a crash (ASan). */
#include <pthread.h>

#include "common.h"

static struct ibv_context *g_ctx;
static struct ibv_pd *g_pd;
static struct ibv_cq *g_cq;
enum { THREADS = 4, ROUNDS = 40 };

static void *churn(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		struct ibv_cq *cq = ibv_create_cq(g_ctx, 16, NULL, NULL, 0);
		struct ibv_qp *qp = cq ? make_qp(g_pd, cq, i % 2 ? IBV_QPT_RC : IBV_QPT_UD, NULL) : NULL;
		if (!qp)
			return (void *)1;
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 1,
					 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
		int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			   (i % 2 ? IBV_QP_ACCESS_FLAGS : IBV_QP_QKEY);
		if (ibv_modify_qp(qp, &a, mask) || ibv_destroy_qp(qp) || ibv_destroy_cq(cq))
			return (void *)2;
	}
	return NULL;
}

static volatile int g_stop;
static uint32_t g_handle;
static int g_bad_rc;

static void *modifier(void *arg)
{
	(void)arg;
	struct ib_uverbs_modify_qp m;
	memset(&m, 0, sizeof(m));
	m.qp_handle = g_handle;
	m.attr_mask = IBV_QP_STATE;
	m.qp_state = IBV_QPS_RESET;
	while (!g_stop) {
		int rc = raw_cmd(g_ctx, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0);
		if (rc != 0 && rc != EINVAL)
			g_bad_rc = rc;
		if (rc == EINVAL)
			break; /* destroyed */
	}
	return NULL;
}

int main(void)
{
	struct debug_api dbg = debug_api();
	g_ctx = open_dev(0);
	g_pd = ibv_alloc_pd(g_ctx);
	g_cq = ibv_create_cq(g_ctx, 16, NULL, NULL, 0);
	REQUIRE(g_pd && g_cq, "pd/cq");

	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, churn, NULL);
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		CHECK(r == NULL, "thread %d failed at step %ld", i, (long)(intptr_t)r);
	}
	struct mlx5emu_debug_live l;
	dbg.live(&l);
	CHECK(l.qps == 0 && l.cqs == 1 && l.pds == 1, "after churn: %u qps %u cqs %u pds", l.qps, l.cqs, l.pds);

	/* destroy racing modify on one QP, through raw commands (libmlx5's own structures are not thread-safe
	 * against destroy, the kernel's objects are) */
	for (int round = 0; round < 20; round++) {
		struct ibv_qp *qp = make_qp(g_pd, g_cq, IBV_QPT_RC, NULL);
		REQUIRE(qp, "qp");
		g_handle = qp->handle;
		g_stop = 0;
		pthread_t m;
		pthread_create(&m, NULL, modifier, NULL);
		struct ib_uverbs_destroy_qp_resp dr;
		struct ib_uverbs_destroy_qp dq = { .response = (uintptr_t)&dr, .qp_handle = qp->handle };
		int rc;
		while ((rc = raw_cmd(g_ctx, IB_USER_VERBS_CMD_DESTROY_QP, &dq, sizeof(dq), sizeof(dr))) == EBUSY)
			;
		CHECK(rc == 0, "destroy: %d", rc);
		g_stop = 1;
		pthread_join(m, NULL);
		CHECK(g_bad_rc == 0, "modify returned %d", g_bad_rc);
	}
	dbg.live(&l);
	CHECK(l.qps == 0, "%u qps left", l.qps);
	CHECK_ERR(ibv_destroy_cq(g_cq), 0);
	CHECK_ERR(ibv_dealloc_pd(g_pd), 0);
	CHECK_ERR(ibv_close_device(g_ctx), 0);
	return test_done("t_threads");
}
