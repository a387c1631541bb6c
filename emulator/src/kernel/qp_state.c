/* SPDX-License-Identifier: Apache-2.0 */
/* The QP state machine: which transitions exist and which attributes each one requires or allows, per QP type.
 * This is the IB specification's table (IBA vol 1, 10.3 and 11.2.5.2) as the Linux kernel enforces it in
 * ib_modify_qp_is_ok() (drivers/infiniband/core/verbs.c), restricted to the QP types the emulator serves (XRC INI and TGT as its
 * IB_QPT_XRC_INI / IB_QPT_XRC_TGT columns). */
#include <infiniband/verbs.h>

#include "qp_state.h"

struct transition {
	unsigned char valid;
	uint32_t req[6];   /* indexed by type_index(): RC, UC, UD, RAW (raw packet), XRC INI, XRC TGT */
	uint32_t opt[6];
};

enum { RC, UC, UD, RAW, INI, TGT };

#define RESET IBV_QPS_RESET
#define INIT IBV_QPS_INIT
#define RTR IBV_QPS_RTR
#define RTS IBV_QPS_RTS
#define SQD IBV_QPS_SQD
#define SQE IBV_QPS_SQE
#define ERR IBV_QPS_ERR

/* Shorthands for the attribute masks. */
#define PKEY IBV_QP_PKEY_INDEX
#define PORT IBV_QP_PORT
#define QKEY IBV_QP_QKEY
#define ACC IBV_QP_ACCESS_FLAGS
#define AV IBV_QP_AV
#define MTU IBV_QP_PATH_MTU
#define DQPN IBV_QP_DEST_QPN
#define RQPSN IBV_QP_RQ_PSN
#define SQPSN IBV_QP_SQ_PSN
#define DRDA IBV_QP_MAX_DEST_RD_ATOMIC
#define RDA IBV_QP_MAX_QP_RD_ATOMIC
#define RNRT IBV_QP_MIN_RNR_TIMER
#define ALT IBV_QP_ALT_PATH
#define TMO IBV_QP_TIMEOUT
#define RETRY IBV_QP_RETRY_CNT
#define RNR IBV_QP_RNR_RETRY
#define CUR IBV_QP_CUR_STATE
#define MIG IBV_QP_PATH_MIG_STATE
#define SQDN IBV_QP_EN_SQD_ASYNC_NOTIFY
#define RATE IBV_QP_RATE_LIMIT

static const struct transition table[ERR + 1][ERR + 1] = {
	[RESET] = {
		[RESET] = { 1, { 0 }, { 0 } },
		[INIT] = { 1, { [RC] = PKEY | PORT | ACC, [UC] = PKEY | PORT | ACC, [UD] = PKEY | PORT | QKEY,
				[RAW] = PORT, [INI] = PKEY | PORT | ACC, [TGT] = PKEY | PORT | ACC }, { 0 } },
	},
	[INIT] = {
		[RESET] = { 1, { 0 }, { 0 } },
		[ERR] = { 1, { 0 }, { 0 } },
		[INIT] = { 1, { 0 }, { [RC] = PKEY | PORT | ACC, [UC] = PKEY | PORT | ACC, [UD] = PKEY | PORT | QKEY,
				       [RAW] = PORT, [INI] = PKEY | PORT | ACC, [TGT] = PKEY | PORT | ACC } },
		[RTR] = { 1,
			{ [RC] = AV | MTU | DQPN | RQPSN | DRDA | RNRT, [UC] = AV | MTU | DQPN | RQPSN, [UD] = 0,
			  [INI] = AV | MTU | DQPN | RQPSN, [TGT] = AV | MTU | DQPN | RQPSN | DRDA | RNRT },
			{ [RC] = ALT | ACC | PKEY, [UC] = ALT | ACC | PKEY, [UD] = PKEY | QKEY, [INI] = ALT | ACC | PKEY,
			  [TGT] = ALT | ACC | PKEY } },
	},
	[RTR] = {
		[RESET] = { 1, { 0 }, { 0 } },
		[ERR] = { 1, { 0 }, { 0 } },
		[RTS] = { 1,
			{ [RC] = TMO | RETRY | RNR | SQPSN | RDA, [UC] = SQPSN, [UD] = SQPSN,
			  [INI] = TMO | RETRY | RNR | SQPSN | RDA, [TGT] = TMO | SQPSN },
			{ [RC] = CUR | ALT | ACC | RNRT | MIG, [UC] = CUR | ALT | ACC | MIG, [UD] = CUR | QKEY,
			  [RAW] = RATE, [INI] = CUR | ALT | ACC | MIG, [TGT] = CUR | ALT | ACC | RNRT | MIG } },
	},
	[RTS] = {
		[RESET] = { 1, { 0 }, { 0 } },
		[ERR] = { 1, { 0 }, { 0 } },
		[RTS] = { 1, { 0 }, { [RC] = CUR | ACC | ALT | MIG | RNRT, [UC] = CUR | ACC | ALT | MIG, [UD] = CUR | QKEY,
				      [RAW] = RATE, [INI] = CUR | ACC | ALT | MIG, [TGT] = CUR | ACC | ALT | MIG | RNRT } },
		[SQD] = { 1, { 0 }, { [RC] = SQDN, [UC] = SQDN, [UD] = SQDN, [INI] = SQDN } },
	},
	[SQD] = {
		[RESET] = { 1, { 0 }, { 0 } },
		[ERR] = { 1, { 0 }, { 0 } },
		[RTS] = { 1, { 0 }, { [RC] = CUR | ALT | ACC | RNRT | MIG, [UC] = CUR | ALT | ACC | MIG, [UD] = CUR | QKEY,
				      [INI] = CUR | ALT | ACC | MIG, [TGT] = CUR | ALT | ACC | RNRT | MIG } },
		[SQD] = { 1, { 0 },
			{ [RC] = PORT | AV | TMO | RETRY | RNR | RDA | DRDA | ALT | ACC | PKEY | RNRT | MIG,
			  [UC] = AV | ALT | ACC | PKEY | MIG, [UD] = PKEY | QKEY,
			  [INI] = PORT | AV | TMO | RETRY | RNR | RDA | ALT | ACC | PKEY | MIG,
			  [TGT] = PORT | AV | TMO | DRDA | ALT | ACC | PKEY | RNRT | MIG } },
	},
	[SQE] = {
		[RESET] = { 1, { 0 }, { 0 } },
		[ERR] = { 1, { 0 }, { 0 } },
		/* RC has no SQE state; its entry stays empty as in the kernel's table */
		[RTS] = { 1, { 0 }, { [UC] = CUR | ACC, [UD] = CUR | QKEY } },
	},
	[ERR] = {
		[RESET] = { 1, { 0 }, { 0 } },
		[ERR] = { 1, { 0 }, { 0 } },
	},
};

static int type_index(int qp_type)
{
	switch (qp_type) {
	case IBV_QPT_RC: return RC;
	case IBV_QPT_UC: return UC;
	case IBV_QPT_UD: return UD;
	case IBV_QPT_RAW_PACKET: return RAW;
	case IBV_QPT_XRC_SEND: return INI;
	case IBV_QPT_XRC_RECV: return TGT;
	default: return -1;
	}
}

int emu_qp_transition_ok(int cur, int next, int qp_type, uint32_t mask)
{
	int t = type_index(qp_type);
	if (t < 0 || cur < RESET || cur > ERR || next < RESET || next > ERR)
		return 0;
	if ((mask & CUR) && cur != RTR && cur != RTS && cur != SQD && cur != SQE)
		return 0;
	const struct transition *tr = &table[cur][next];
	if (!tr->valid)
		return 0;
	uint32_t req = tr->req[t], opt = tr->opt[t];
	if ((mask & req) != req)
		return 0;
	if (mask & ~(req | opt | IBV_QP_STATE))
		return 0;
	return 1;
}

uint32_t emu_qp_transition_required(int cur, int next, int qp_type)
{
	int t = type_index(qp_type);
	if (t < 0 || cur < RESET || cur > ERR || next < RESET || next > ERR || !table[cur][next].valid)
		return 0;
	return table[cur][next].req[t];
}
