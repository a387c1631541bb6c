/* SPDX-License-Identifier: Apache-2.0 */
/* The QP state machine for RC, UC and UD: every transition of the IB specification with its required attributes
 * (each one left out in turn must fail with EINVAL), attributes a transition does not allow, transitions that do
 * not exist, and out-of-range values, exactly where Linux returns EINVAL. The expected masks below are written
 * from the IBA specification (vol 1, table 91 "QP state transition properties"), independently of the emulator's
 * table. */
#include "common.h"
#include "emu_objects.h"

static int (*reg_qp_get)(uint32_t, struct emu_reg_qp *);
static int g_eth;
static union ibv_gid g_gid;

static void full_attr(struct ibv_qp *qp, struct ibv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	a->pkey_index = 0;
	a->port_num = 1;
	a->qkey = 0x11111111;
	a->path_mtu = IBV_MTU_1024;
	a->dest_qp_num = qp->qp_num;
	a->rq_psn = 0x123;
	a->max_dest_rd_atomic = 4;
	a->min_rnr_timer = 12;
	a->ah_attr.dlid = 1;
	a->ah_attr.port_num = 1;
	if (g_eth) {
		a->ah_attr.is_global = 1;
		a->ah_attr.grh.dgid = g_gid;
		a->ah_attr.grh.sgid_index = 1;
		a->ah_attr.grh.hop_limit = 64;
	}
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->sq_psn = 0x456;
	a->max_rd_atomic = 4;
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	REQUIRE(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) == 0, "query_qp");
	return a.qp_state;
}

static const char *tname(enum ibv_qp_type t) { return t == IBV_QPT_RC ? "RC" : t == IBV_QPT_UC ? "UC" : "UD"; }

/* Moves qp to `to` with exactly `mask` (plus IBV_QP_STATE); expects `want`; the state must follow. */
static void modify(struct ibv_qp *qp, enum ibv_qp_state to, int mask, int want, const char *why)
{
	struct ibv_qp_attr a;
	full_attr(qp, &a);
	a.qp_state = to;
	int before = qp_state(qp);
	int rc = ibv_modify_qp(qp, &a, mask | IBV_QP_STATE);
	CHECK(rc == want, "%s %s: %d -> %d mask 0x%x: got %d (%s), want %d", tname(qp->qp_type), why, before, to, mask,
	      rc, strerror(rc), want);
	int after = qp_state(qp);
	CHECK(after == (rc == 0 ? (int)to : before), "%s %s: state %d after rc %d", tname(qp->qp_type), why, after, rc);
	struct emu_reg_qp e;
	CHECK(reg_qp_get(qp->qp_num, &e) == 0 && e.state == after && e.pid == getpid(),
	      "registry entry of qpn 0x%x disagrees (state %d)", qp->qp_num, e.state);
}

/* Every required bit left out in turn fails; then the full mask succeeds. */
static void transition(struct ibv_qp *qp, enum ibv_qp_state to, int req, int extra_bad)
{
	for (int bit = 1; bit < (1 << 21); bit <<= 1)
		if (req & bit)
			modify(qp, to, req & ~bit, EINVAL, "missing required attribute");
	if (extra_bad)
		modify(qp, to, req | extra_bad, EINVAL, "attribute not allowed here");
	modify(qp, to, req, 0, "legal");
}

static void walk(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type t)
{
	struct ibv_qp *qp = make_qp(pd, cq, t, NULL);
	REQUIRE(qp, "create %s: %s", tname(t), strerror(errno));
	CHECK(qp_state(qp) == IBV_QPS_RESET, "new QP not in RESET");
	int rc_ = t == IBV_QPT_RC, ud = t == IBV_QPT_UD;

	/* transitions that do not exist from RESET */
	modify(qp, IBV_QPS_RTR, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN, EINVAL, "RESET->RTR");
	modify(qp, IBV_QPS_RTS, IBV_QP_SQ_PSN, EINVAL, "RESET->RTS");
	modify(qp, IBV_QPS_ERR, 0, EINVAL, "RESET->ERR");
	modify(qp, IBV_QPS_RESET, 0, 0, "RESET->RESET");
	/* CUR_STATE is only for RTR/RTS/SQD/SQE */
	modify(qp, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS) |
	       IBV_QP_CUR_STATE, EINVAL, "CUR_STATE from RESET");
	/* out-of-range values at RESET->INIT */
	int init_req = IBV_QP_PKEY_INDEX | IBV_QP_PORT | (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
	{
		struct ibv_qp_attr a;
		full_attr(qp, &a);
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 2;
		CHECK_ERR(ibv_modify_qp(qp, &a, init_req | IBV_QP_STATE), EINVAL);
		full_attr(qp, &a);
		a.qp_state = IBV_QPS_INIT;
		a.pkey_index = 200;
		CHECK_ERR(ibv_modify_qp(qp, &a, init_req | IBV_QP_STATE), EINVAL);
	}

	transition(qp, IBV_QPS_INIT, init_req, IBV_QP_DEST_QPN);
	modify(qp, IBV_QPS_INIT, IBV_QP_PKEY_INDEX, 0, "INIT->INIT");
	modify(qp, IBV_QPS_RTS, IBV_QP_SQ_PSN, EINVAL, "INIT->RTS");

	int rtr_req = ud ? 0 : IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      (rc_ ? IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : 0);
	if (!ud) {
		/* bad values at INIT->RTR */
		struct ibv_qp_attr a;
		full_attr(qp, &a);
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = 6;
		CHECK_ERR(ibv_modify_qp(qp, &a, rtr_req | IBV_QP_STATE), EINVAL);
		full_attr(qp, &a);
		a.qp_state = IBV_QPS_RTR;
		a.ah_attr.port_num = 2;
		CHECK_ERR(ibv_modify_qp(qp, &a, rtr_req | IBV_QP_STATE), EINVAL);
		if (rc_) {
			full_attr(qp, &a);
			a.qp_state = IBV_QPS_RTR;
			a.max_dest_rd_atomic = 17;
			CHECK_ERR(ibv_modify_qp(qp, &a, rtr_req | IBV_QP_STATE), EINVAL);
		}
	}
	transition(qp, IBV_QPS_RTR, rtr_req, ud ? IBV_QP_AV : IBV_QP_SQ_PSN);
	CHECK(qp_state(qp) == IBV_QPS_RTR, "in RTR");
	modify(qp, IBV_QPS_INIT, IBV_QP_PKEY_INDEX, EINVAL, "RTR->INIT");

	int rts_req = IBV_QP_SQ_PSN | (rc_ ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					       IBV_QP_MAX_QP_RD_ATOMIC : 0);
	if (rc_) {
		struct ibv_qp_attr a;
		full_attr(qp, &a);
		a.qp_state = IBV_QPS_RTS;
		a.max_rd_atomic = 17;
		CHECK_ERR(ibv_modify_qp(qp, &a, rts_req | IBV_QP_STATE), EINVAL);
	}
	transition(qp, IBV_QPS_RTS, rts_req, IBV_QP_PATH_MTU);

	/* what the QP now reports */
	struct ibv_qp_attr q;
	struct ibv_qp_init_attr qi;
	CHECK_ERR(ibv_query_qp(qp, &q, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_DEST_QPN, &qi), 0);
	CHECK(q.qp_state == IBV_QPS_RTS && q.sq_psn == 0x456, "query: state %d sq_psn 0x%x", q.qp_state, q.sq_psn);
	if (!ud)
		CHECK(q.dest_qp_num == qp->qp_num && q.rq_psn == 0x123 && q.path_mtu == IBV_MTU_1024,
		      "query: dest 0x%x rq_psn 0x%x mtu %d", q.dest_qp_num, q.rq_psn, q.path_mtu);
	if (rc_)
		CHECK(q.timeout == 14 && q.retry_cnt == 7 && q.rnr_retry == 7 && q.max_rd_atomic == 4 &&
		      q.max_dest_rd_atomic == 4 && q.min_rnr_timer == 12, "query: RC timers");
	if (ud)
		CHECK(q.qkey == 0x11111111, "query: qkey 0x%x", q.qkey);

	/* RTS->RTS with an optional attribute; with CUR_STATE naming the real state; with a wrong one */
	modify(qp, IBV_QPS_RTS, ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS, 0, "RTS->RTS");
	{
		struct ibv_qp_attr a;
		full_attr(qp, &a);
		a.qp_state = IBV_QPS_RTS;
		a.cur_qp_state = IBV_QPS_RTS;
		CHECK_ERR(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE), 0);
		a.cur_qp_state = IBV_QPS_SQD;
		CHECK_ERR(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE), EINVAL);
	}
	modify(qp, IBV_QPS_RTR, 0, EINVAL, "RTS->RTR");
	modify(qp, IBV_QPS_SQD, IBV_QP_EN_SQD_ASYNC_NOTIFY, 0, "RTS->SQD");
	modify(qp, IBV_QPS_RTS, 0, 0, "SQD->RTS");
	modify(qp, IBV_QPS_ERR, 0, 0, "RTS->ERR");
	modify(qp, IBV_QPS_INIT, init_req, EINVAL, "ERR->INIT");
	modify(qp, IBV_QPS_ERR, 0, 0, "ERR->ERR");
	modify(qp, IBV_QPS_RESET, 0, 0, "ERR->RESET");
	/* a reset QP starts over */
	modify(qp, IBV_QPS_INIT, init_req, 0, "RESET->INIT again");
	modify(qp, IBV_QPS_ERR, 0, 0, "INIT->ERR");

	/* raw: a state beyond ERR, and a handle that does not exist */
	struct ib_uverbs_modify_qp m;
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp->handle;
	m.attr_mask = IBV_QP_STATE;
	m.qp_state = 9;
	CHECK_ERR(raw_cmd(qp->context, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0), EINVAL);
	m.qp_state = IBV_QPS_RESET;
	m.qp_handle = 0xdead;
	CHECK_ERR(raw_cmd(qp->context, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0), EINVAL);

	uint32_t qpn = qp->qp_num;
	CHECK_ERR(ibv_destroy_qp(qp), 0);
	struct emu_reg_qp e;
	CHECK(reg_qp_get(qpn, &e) == -1, "qpn 0x%x still in the registry", qpn);
}

int main(void)
{
	*(void **)&reg_qp_get = dlsym(RTLD_DEFAULT, "emu_reg_qp_get");
	REQUIRE(reg_qp_get, "emu_reg_qp_get not found: not under ./mlx5emu?");
	struct ibv_context *ctx = open_dev(0);
	g_eth = is_eth(ctx);
	REQUIRE(ibv_query_gid(ctx, 1, g_eth ? 1 : 0, &g_gid) == 0, "gid");
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	REQUIRE(pd && cq, "pd/cq");

	walk(pd, cq, IBV_QPT_RC);
	walk(pd, cq, IBV_QPT_UC);
	walk(pd, cq, IBV_QPT_UD);

	if (g_eth) {
		/* RoCE: a connected QP's path needs a GRH, and a valid source GID index */
		struct ibv_qp *qp = make_qp(pd, cq, IBV_QPT_RC, NULL);
		REQUIRE(qp, "qp");
		struct ibv_qp_attr a;
		full_attr(qp, &a);
		a.qp_state = IBV_QPS_INIT;
		CHECK_ERR(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
		int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		full_attr(qp, &a);
		a.qp_state = IBV_QPS_RTR;
		a.ah_attr.is_global = 0;
		CHECK_ERR(ibv_modify_qp(qp, &a, rtr), EINVAL);
		full_attr(qp, &a);
		a.qp_state = IBV_QPS_RTR;
		a.ah_attr.grh.sgid_index = 7;
		CHECK_ERR(ibv_modify_qp(qp, &a, rtr), EINVAL);
		full_attr(qp, &a);
		a.qp_state = IBV_QPS_RTR;
		CHECK_ERR(ibv_modify_qp(qp, &a, rtr), 0);
		struct mlx5emu_debug_qp d;
		struct debug_api dbg = debug_api();
		REQUIRE(dbg.qp(qp->qp_num, &d) == 0, "debug qp");
		const uint8_t mac[6] = { 0x98, 0x03, 0x9b, 0x4d, 0x45, 0x00 };
		CHECK(memcmp(d.dmac, mac, 6) == 0 && d.is_global && d.sgid_index == 1, "RoCE path: dmac from the GID");
		CHECK_ERR(ibv_destroy_qp(qp), 0);
	}
	CHECK_ERR(ibv_destroy_cq(cq), 0);
	CHECK_ERR(ibv_dealloc_pd(pd), 0);
	CHECK_ERR(ibv_close_device(ctx), 0);
	return test_done(g_eth ? "t_qp_state (RoCE)" : "t_qp_state (IB)");
}
