/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Byte order of 8-byte atomics, derived from what the Linux mlx5 driver does to a real ConnectX, not from the engine:
 * mlx5_core (drivers/net/ethernet/mellanox/mlx5/core/main.c, handle_hca_cap_atomic()) switches the HCA to
 * atomic_req_8B_endianness_mode = host endianness, and mlx5_ib reports IBV_ATOMIC_HCA only in that mode. So the
 * responder's word is a host-order uint64_t, the operands are the host values the WR carries, and the old value
 * lands in the requester's buffer in host order: FETCH_ADD 1 on a word holding 0 returns 0 and leaves 1, as a
 * program reading the word with a plain uint64_t load sees it. The engine before this test byte-swapped the word
 * (big-endian atomics) and fails every check below.
 */
#include "etest.h"

static struct ibv_qp *qa;
static struct ibv_cq *cqa;
static struct ibv_mr *ma, *mb;

static uint64_t atomic(enum ibv_wr_opcode op, uint64_t *local, uint64_t *remote, uint64_t compare_add, uint64_t swap)
{
	struct ibv_sge s = { (uintptr_t)local, 8, ma->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = op, .send_flags = IBV_SEND_SIGNALED };
	wr.wr.atomic.remote_addr = (uintptr_t)remote;
	wr.wr.atomic.rkey = mb->rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	*local = 0xdeadbeefdeadbeefull;
	t_post_send(qa, &wr);
	struct ibv_wc wc;
	CHECK(t_poll(cqa, &wc, 1, 5000) == 1, "atomic completion");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.byte_len == 8 &&
	      wc.opcode == (op == IBV_WR_ATOMIC_FETCH_AND_ADD ? IBV_WC_FETCH_ADD : IBV_WC_COMP_SWAP),
	      "status %d opcode %d len %u", wc.status, wc.opcode, wc.byte_len);
	return __atomic_load_n(local, __ATOMIC_ACQUIRE); /* the old value the completion says was written */
}

int main(void)
{
	t_open();
	struct ibv_device_attr da;
	CHECK(ibv_query_device(t_ctx, &da) == 0, "query_device");
	CHECK(da.atomic_cap == IBV_ATOMIC_HCA, "the device claims IBV_ATOMIC_HCA (host-endian mode), got %d", da.atomic_cap);
	cqa = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_cq *cqb = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cqa && cqb, "cq");
	qa = t_qp(IBV_QPT_RC, cqa, cqa, NULL, 0);
	struct ibv_qp *qb = t_qp(IBV_QPT_RC, cqb, cqb, NULL, 0);
	t_connect(qa, qb->qp_num, &t_default_conn, 1);
	t_connect(qb, qa->qp_num, &t_default_conn, 1);
	uint8_t *ba, *bb;
	ma = t_mr(4096, T_ALL_ACCESS, (void **)&ba);
	mb = t_mr(4096, T_ALL_ACCESS, (void **)&bb);
	uint64_t *local = (uint64_t *)(void *)ba, *word = (uint64_t *)(void *)bb;

	/* FETCH_ADD 1 on 0: returns 0, leaves host-order 1 */
	*word = 0;
	CHECK(atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, local, word, 1, 0) == 0, "old value %#llx", (unsigned long long)*local);
	CHECK(*word == 1, "word after FETCH_ADD 1 on 0: %#llx, expected host-order 1", (unsigned long long)*word);

	/* the carry runs through the host-order integer: 0xffffffff + 1 = 0x100000000 */
	*word = 0xffffffffull;
	CHECK(atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, local, word, 1, 0) == 0xffffffffull, "old %#llx",
	      (unsigned long long)*local);
	CHECK(*word == 0x100000000ull, "carry in host order: %#llx", (unsigned long long)*word);

	/* 2^64 wrap: -1 + 2 = 1 */
	*word = UINT64_MAX;
	CHECK(atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, local, word, 2, 0) == UINT64_MAX, "old %#llx", (unsigned long long)*local);
	CHECK(*word == 1, "wrap: %#llx", (unsigned long long)*word);

	/* CMP_SWAP compares host-order words: 42 matches a word holding host-order 42 */
	*word = 42;
	CHECK(atomic(IBV_WR_ATOMIC_CMP_AND_SWP, local, word, 42, 0x0102030405060708ull) == 42, "old %#llx",
	      (unsigned long long)*local);
	CHECK(*word == 0x0102030405060708ull, "swapped word %#llx", (unsigned long long)*word);

	/* ... and 42 does not match a word holding the big-endian bytes of 42 */
	*word = htobe64(42);
	CHECK(atomic(IBV_WR_ATOMIC_CMP_AND_SWP, local, word, 42, 7) == htobe64(42), "old %#llx",
	      (unsigned long long)*local);
	CHECK(*word == htobe64(42), "a failed compare leaves the word: %#llx", (unsigned long long)*word);

	/* a counter shared by host code and remote FETCH_ADDs: the host's own increments and the HCA's add up */
	*word = 0;
	for (int i = 0; i < 10; i++) {
		__atomic_fetch_add(word, 1, __ATOMIC_SEQ_CST); /* an atomic, not a barrier: the host's own increment */
		CHECK(atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, local, word, 1, 0) == (uint64_t)(2 * i + 1), "round %d: old %#llx",
		      i, (unsigned long long)*local);
	}
	CHECK(*word == 20, "shared counter %llu", (unsigned long long)*word);

	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_destroy_cq(cqa);
	ibv_destroy_cq(cqb);
	ibv_dereg_mr(ma);
	ibv_dereg_mr(mb);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	free(ba);
	free(bb);
	printf("t_atomic_order: 8-byte atomics in host order ok\n");
	return 0;
}
