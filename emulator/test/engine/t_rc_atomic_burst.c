/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RDMA READ, READ, FETCH_ADD, CMP_SWAP posted back to back through libmlx5 (one BlueFlame doorbell per WR) on an
 * RC QP with sq_sig_all, many rounds: every WR must complete, in order, with the right data and old values.
 *
 * Regression: an engine pass took its clock once, a response handled in the same pass stamped the QP's progress
 * time with a later clock, and the retransmission timer compared them unsigned, so the QP "timed out" right after
 * making progress and resent from the oldest unfinished WR. When that was the FETCH_ADD with the CMP_SWAP after
 * it already executed, the responder (which saved only the last atomic's result) dropped the duplicate
 * FETCH_ADD, the resent CMP_SWAP was answered and reset the retry count, and the FETCH_ADD never completed: no
 * CQE at all, no error. Both halves are checked here: no WR may stall, and the remote word must show each atomic
 * executed exactly once.
 */
#include "etest.h"

enum { ROUNDS = 300 };

int main(void)
{
	t_open();
	struct ibv_cq *cqa = ibv_create_cq(t_ctx, 256, NULL, NULL, 0);
	struct ibv_cq *cqb = ibv_create_cq(t_ctx, 256, NULL, NULL, 0);
	CHECK(cqa && cqb, "cq");
	struct ibv_qp *a = t_qp(IBV_QPT_RC, cqa, cqa, NULL, 1);
	struct ibv_qp *b = t_qp(IBV_QPT_RC, cqb, cqb, NULL, 1);
	t_connect(a, b->qp_num, &t_default_conn, 1);
	t_connect(b, a->qp_num, &t_default_conn, 1);
	uint8_t *ba, *bb;
	struct ibv_mr *ma = t_mr(1 << 16, T_ALL_ACCESS, (void **)&ba);
	struct ibv_mr *mb = t_mr(1 << 16, T_ALL_ACCESS, (void **)&bb);
	for (int i = 0; i < 300; i++)
		bb[0x600 + i] = (uint8_t)(i * 13 + 1);
	uint64_t *word = (uint64_t *)(void *)(bb + 0x7000);

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t start = 1000 + (uint64_t)r;
		/* host order, as mlx5 8-byte atomics; release: the word is set before the posts that act on it */
		__atomic_store_n(word, start, __ATOMIC_RELEASE);
		memset(ba, 0, 0x4000);
		struct ibv_sge s[4] = { { (uintptr_t)ba + 0x2000, 16, ma->lkey }, { (uintptr_t)ba + 0x2100, 300, ma->lkey },
					{ (uintptr_t)ba + 0x3000, 8, ma->lkey }, { (uintptr_t)ba + 0x3008, 8, ma->lkey } };
		struct ibv_send_wr wr[4];
		memset(wr, 0, sizeof wr);
		for (int i = 0; i < 4; i++) {
			wr[i].wr_id = 0xa06 + (uint64_t)i;
			wr[i].sg_list = &s[i];
			wr[i].num_sge = 1;
		}
		wr[0].opcode = IBV_WR_RDMA_READ;
		wr[0].wr.rdma.remote_addr = (uintptr_t)bb + 0x600;
		wr[0].wr.rdma.rkey = mb->rkey;
		wr[1].opcode = IBV_WR_RDMA_READ;
		wr[1].wr.rdma.remote_addr = (uintptr_t)bb + 0x600;
		wr[1].wr.rdma.rkey = mb->rkey;
		wr[2].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr[2].wr.atomic.remote_addr = (uintptr_t)word;
		wr[2].wr.atomic.rkey = mb->rkey;
		wr[2].wr.atomic.compare_add = 5;
		wr[3].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr[3].wr.atomic.remote_addr = (uintptr_t)word;
		wr[3].wr.atomic.rkey = mb->rkey;
		wr[3].wr.atomic.compare_add = start + 5;
		wr[3].wr.atomic.swap = 7;
		/* Even rounds: one ibv_post_send per WR, as the Java parity test does (a BlueFlame doorbell each). Odd
		 * rounds: the READs as one list, then the atomics as one list; the lent engine pass of the second post
		 * starts the READs, so the READ responses and both atomic requests meet in one later pass, which is
		 * what made the old engine resend from the FETCH_ADD after the CMP_SWAP had executed. */
		if (r % 2 == 0) {
			for (int i = 0; i < 4; i++)
				t_post_send(a, &wr[i]);
		} else {
			wr[0].next = &wr[1];
			wr[2].next = &wr[3];
			t_post_send(a, &wr[0]);
			t_post_send(a, &wr[2]);
		}
		struct ibv_wc wc[4];
		int got = t_poll(cqa, wc, 4, 10000);
		CHECK(got == 4, "round %d: only %d of 4 CQEs within 10 s", r, got);
		for (int i = 0; i < 4; i++)
			CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == 0xa06 + (uint64_t)i, "round %d: wc %d status %d "
			      "wr_id 0x%llx", r, i, wc[i].status, (unsigned long long)wc[i].wr_id);
		CHECK(wc[0].opcode == IBV_WC_RDMA_READ && wc[1].opcode == IBV_WC_RDMA_READ &&
		      wc[2].opcode == IBV_WC_FETCH_ADD && wc[3].opcode == IBV_WC_COMP_SWAP, "round %d: opcodes", r);
		CHECK(memcmp(ba + 0x2000, bb + 0x600, 16) == 0, "round %d: READ (scatter-to-CQE) data", r);
		CHECK(memcmp(ba + 0x2100, bb + 0x600, 300) == 0, "round %d: READ data", r);
		uint64_t fa_old, cs_old;
		memcpy(&fa_old, ba + 0x3000, 8);
		memcpy(&cs_old, ba + 0x3008, 8);
		CHECK(fa_old == start, "round %d: FETCH_ADD old value %llu", r, (unsigned long long)fa_old);
		CHECK(cs_old == start + 5, "round %d: CMP_SWAP old value %llu", r, (unsigned long long)cs_old);
		/* acquire: the word as the responder's atomics left it, read after their completions */
		CHECK(__atomic_load_n(word, __ATOMIC_ACQUIRE) == 7, "round %d: remote word %llu", r,
		      (unsigned long long)*word);
	}
	CHECK(ibv_destroy_qp(a) == 0 && ibv_destroy_qp(b) == 0, "destroy qp");
	CHECK(ibv_dereg_mr(ma) == 0 && ibv_dereg_mr(mb) == 0, "dereg");
	CHECK(ibv_destroy_cq(cqa) == 0 && ibv_destroy_cq(cqb) == 0, "destroy cq");
	CHECK(t_violations() == 0, "strict violations");
	printf("t_rc_atomic_burst: %d rounds of READ, READ, FETCH_ADD, CMP_SWAP ok\n", ROUNDS);
	return 0;
}
