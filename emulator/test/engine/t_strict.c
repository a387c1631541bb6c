/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine as a validator (MLX5EMU_STRICT=1): raw WQEs written through mlx5dv, each broken rule counted once
 * and completed as hardware would (LOC_QP_OP_ERR). Also opcodes libibverbs cannot post: NOP and the masked
 * atomics (PRM "Atomic Operations" layouts, opmod 0x8 = 32-bit, 0x9 = 64-bit).
 */
#include "etest.h"
#include "mlx5emu_debug.h"

struct raw {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	uint8_t *sq;
	uint32_t cnt, pi, bf_off;
	volatile uint32_t *dbrec;
	uint8_t *bf;
};

static struct ibv_qp *peer;
static struct ibv_cq *peer_cq;

static void raw_make(struct raw *r, enum ibv_qp_type type)
{
	memset(r, 0, sizeof *r);
	r->cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	r->qp = t_qp(type, r->cq, r->cq, NULL, 0);
	if (type == IBV_QPT_UD) {
		t_ud_up(r->qp, 1);
	} else {
		peer_cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
		peer = t_qp(type, peer_cq, peer_cq, NULL, 0);
		t_connect(r->qp, peer->qp_num, &t_default_conn, 1);
		t_connect(peer, r->qp->qp_num, &t_default_conn, 1);
	}
	struct mlx5dv_qp dv;
	struct mlx5dv_obj o;
	memset(&o, 0, sizeof o);
	o.qp.in = r->qp;
	o.qp.out = &dv;
	CHECK(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP) == 0, "init_obj");
	r->sq = dv.sq.buf;
	r->cnt = dv.sq.wqe_cnt;
	r->dbrec = dv.dbrec;
	r->bf = dv.bf.reg;
}

static void raw_free(struct raw *r)
{
	ibv_destroy_qp(r->qp);
	ibv_destroy_cq(r->cq);
	if (peer) {
		ibv_destroy_qp(peer);
		ibv_destroy_cq(peer_cq);
		peer = NULL;
	}
}

/* ctrl segment: opmod_idx_opcode, qpn_ds, fm_ce_se (CQ update), imm */
static void ctrl(uint8_t *w, uint8_t opmod, uint16_t idx, uint8_t opcode, uint32_t qpn, uint8_t ds)
{
	memset(w, 0, 16);
	*(uint32_t *)(void *)w = htobe32((uint32_t)opmod << 24 | (uint32_t)idx << 8 | opcode);
	*(uint32_t *)(void *)(w + 4) = htobe32(qpn << 8 | ds);
	w[11] = MLX5_WQE_CTRL_CQ_UPDATE;
}

/* Copy a flat WQE of nbytes into the ring at pi, update the record (unless skip_rec), ring the 8-byte doorbell. */
static void raw_post_db(struct raw *r, const uint8_t *wqe, size_t nbytes, int skip_rec, int ring_db)
{
	size_t ring = (size_t)r->cnt * 64;
	for (size_t i = 0; i < nbytes; i++)
		r->sq[((size_t)(r->pi & (r->cnt - 1)) * 64 + i) % ring] = wqe[i];
	r->pi += (uint32_t)((nbytes + 63) / 64);
	udma_to_device_barrier(); /* else the engine could read the record's WQEs before their bytes */
	if (!skip_rec)
		r->dbrec[MLX5_SND_DBR] = htobe32(r->pi & 0xffff);
	mmio_wc_start(); /* else the doorbell could reach the engine before the record it executes up to */
	if (!ring_db)
		return;
	*(volatile uint64_t *)(void *)(r->bf + r->bf_off) = *(const uint64_t *)(const void *)wqe;
	r->bf_off ^= 256;
}

static void raw_post(struct raw *r, const uint8_t *wqe, size_t nbytes, int skip_rec)
{
	raw_post_db(r, wqe, nbytes, skip_rec, 1);
}

/* Wait (up to 5 s) for the violation count to reach n. */
static unsigned long wait_violations(unsigned long n)
{
	for (int i = 0; i < 5000 && t_violations() < n; i++)
		usleep(1000);
	return t_violations();
}

static int one(struct raw *r, struct ibv_wc *wc)
{
	return t_poll(r->cq, wc, 1, 5000) == 1;
}

int main(void)
{
	t_open();
	uint8_t *ba, *bb;
	struct ibv_mr *ma = t_mr(1 << 16, T_ALL_ACCESS, (void **)&ba);
	struct ibv_mr *mb = t_mr(1 << 16, T_ALL_ACCESS, (void **)&bb);
	struct ibv_wc wc;
	uint8_t w[256];
	struct raw r;
	unsigned long v = t_violations();

	/* NOP, then masked CS 64 and masked FA 32: no violation. */
	raw_make(&r, IBV_QPT_RC);
	ctrl(w, 0, 0, MLX5_OPCODE_NOP, r.qp->qp_num, 1);
	raw_post(&r, w, 16, 0);
	CHECK(one(&r, &wc) && wc.status == IBV_WC_SUCCESS, "nop %d", wc.status);
	uint64_t *rem = (uint64_t *)(void *)bb, *loc = (uint64_t *)(void *)ba;
	*rem = 0x1122334455667788ull; /* 8-byte atomics work on host-order words (t_atomic_order.c says why) */
	ctrl(w, 0x9, 1, MLX5_OPCODE_ATOMIC_MASKED_CS, r.qp->qp_num, 4); /* ctrl + raddr + 32 B masked + ... */
	ctrl(w, 0x9, 1, MLX5_OPCODE_ATOMIC_MASKED_CS, r.qp->qp_num, 5);
	*(uint64_t *)(void *)(w + 16) = htobe64((uintptr_t)rem);
	*(uint32_t *)(void *)(w + 24) = htobe32(mb->rkey);
	*(uint64_t *)(void *)(w + 32) = htobe64(0xaa00000000000000ull); /* swap */
	*(uint64_t *)(void *)(w + 40) = htobe64(0x0000000000007788ull); /* compare */
	*(uint64_t *)(void *)(w + 48) = htobe64(0xff00000000000000ull); /* swap mask */
	*(uint64_t *)(void *)(w + 56) = htobe64(0x000000000000ffffull); /* compare mask */
	*(uint32_t *)(void *)(w + 64) = htobe32(8);
	*(uint32_t *)(void *)(w + 68) = htobe32(ma->lkey);
	*(uint64_t *)(void *)(w + 72) = htobe64((uintptr_t)loc);
	raw_post(&r, w, 80, 0);
	CHECK(one(&r, &wc) && wc.status == IBV_WC_SUCCESS, "masked cs %d", wc.status);
	CHECK(*loc == 0x1122334455667788ull && *rem == 0xaa22334455667788ull, "masked cs values %llx",
	      (unsigned long long)*rem);
	uint32_t *rem32 = (uint32_t *)(void *)(bb + 64), *loc32 = (uint32_t *)(void *)(ba + 64);
	*rem32 = htobe32(0x00ff00ff); /* 4-byte atomics stay big-endian: the host-endian mode is for 8-byte ones */
	ctrl(w, 0x8, 3, MLX5_OPCODE_ATOMIC_MASKED_FA, r.qp->qp_num, 4);
	*(uint64_t *)(void *)(w + 16) = htobe64((uintptr_t)rem32);
	*(uint32_t *)(void *)(w + 24) = htobe32(mb->rkey);
	memset(w + 28, 0, 20);
	*(uint32_t *)(void *)(w + 32) = htobe32(0x00010001); /* add 1 to each 16-bit field */
	*(uint32_t *)(void *)(w + 36) = htobe32(0x80008000); /* field boundaries: bits 15 and 31 */
	*(uint32_t *)(void *)(w + 48) = htobe32(4);
	*(uint32_t *)(void *)(w + 52) = htobe32(ma->lkey);
	*(uint64_t *)(void *)(w + 56) = htobe64((uintptr_t)loc32);
	raw_post(&r, w, 64, 0);
	CHECK(one(&r, &wc) && wc.status == IBV_WC_SUCCESS, "masked fa %d", wc.status);
	CHECK(be32toh(*loc32) == 0x00ff00ff && be32toh(*rem32) == 0x01000100, "masked fa values %x", be32toh(*rem32));
	CHECK(t_violations() == v, "no violation for valid WQEs");
	raw_free(&r);

	/* ds that does not match the segments: a WRITE with ds 1 */
	raw_make(&r, IBV_QPT_RC);
	ctrl(w, 0, 0, MLX5_OPCODE_RDMA_WRITE, r.qp->qp_num, 1);
	raw_post(&r, w, 16, 0);
	CHECK(one(&r, &wc) && wc.status == IBV_WC_LOC_QP_OP_ERR, "bad ds %d", wc.status);
	CHECK(t_violations() == ++v, "bad ds counted");
	raw_free(&r);

	/* ctrl qpn that is not this QP */
	raw_make(&r, IBV_QPT_RC);
	ctrl(w, 0, 0, MLX5_OPCODE_NOP, r.qp->qp_num, 1);
	raw_post(&r, w, 16, 1); /* record not updated: doorbell beyond what was written */
	v++;
	CHECK(wait_violations(v) == v, "doorbell beyond the record counted");
	CHECK(t_poll(r.cq, &wc, 1, 50) == 0, "nothing executes past the record");
	ctrl(w, 0, 1, MLX5_OPCODE_NOP, r.qp->qp_num ^ 0x10, 1); /* written, not rung */
	raw_post_db(&r, w, 16, 0, 0);
	ctrl(w, 0, 2, MLX5_OPCODE_NOP, r.qp->qp_num, 1);
	raw_post(&r, w, 16, 0); /* this doorbell covers all three */
	CHECK(one(&r, &wc) && wc.status == IBV_WC_SUCCESS, "the NOP the record now covers");
	CHECK(one(&r, &wc) && wc.status == IBV_WC_LOC_QP_OP_ERR, "foreign qpn %d", wc.status);
	CHECK(t_violations() == ++v, "foreign qpn counted");
	raw_free(&r);

	/* A record ahead of the device only until its doorbell store, in a pass whose time was read before a later
	 * pass ran (a lender reads it before its trylock, the doorbell fault thread before it gets the lock): no
	 * "doorbell was never rung" report. The first pass is a slow one (its time is 150 ms past any pass so far) and
	 * sees the record ahead; the second runs with a time 1 s before that. */
	int (*pass_at)(int64_t) = (int (*)(int64_t))dlsym(RTLD_DEFAULT, "mlx5emu_debug_pass_at");
	CHECK(pass_at, "mlx5emu_debug_pass_at not found");
	raw_make(&r, IBV_QPT_RC);
	ctrl(w, 0, 0, MLX5_OPCODE_NOP, r.qp->qp_num, 1);
	raw_post_db(&r, w, 16, 0, 0); /* the record, and the doorbell not yet */
	pass_at(150000000);
	pass_at(-1000000000);
	*(volatile uint64_t *)(void *)(r.bf + r.bf_off) = *(const uint64_t *)(const void *)w;
	r.bf_off ^= 256;
	CHECK(one(&r, &wc) && wc.status == IBV_WC_SUCCESS, "nop rung after the record %d", wc.status);
	CHECK(t_violations() == v, "a record ahead for microseconds reported as never rung (%lu)", t_violations());
	raw_free(&r);

	/* inline segment overflowing the WQE */
	raw_make(&r, IBV_QPT_RC);
	ctrl(w, 0, 0, MLX5_OPCODE_SEND, r.qp->qp_num, 2);
	*(uint32_t *)(void *)(w + 16) = htobe32(MLX5_INLINE_SEG | 60);
	raw_post(&r, w, 32, 0);
	CHECK(one(&r, &wc) && wc.status == IBV_WC_LOC_QP_OP_ERR, "inline overflow %d", wc.status);
	CHECK(t_violations() == ++v, "inline overflow counted");
	raw_free(&r);

	/* opcode invalid for the QP type: RDMA WRITE on UD */
	raw_make(&r, IBV_QPT_UD);
	ctrl(w, 0, 0, MLX5_OPCODE_RDMA_WRITE, r.qp->qp_num, 6);
	raw_post(&r, w, 96, 0);
	CHECK(one(&r, &wc) && wc.status == IBV_WC_LOC_QP_OP_ERR, "ud write %d", wc.status);
	CHECK(t_violations() == ++v, "opcode for qp type counted");
	raw_free(&r);

	/* BlueFlame copy that differs from the ring */
	raw_make(&r, IBV_QPT_RC);
	ctrl(w, 0, 0, MLX5_OPCODE_NOP, r.qp->qp_num, 4);
	memset(w + 16, 0x11, 48);
	size_t ring = (size_t)r.cnt * 64;
	(void)ring;
	memcpy(r.sq, w, 64);
	r.pi = 1;
	r.dbrec[MLX5_SND_DBR] = htobe32(1);
	mmio_wc_start(); /* else the BlueFlame doorbell could reach the engine before the record */
	w[40] ^= 0xff; /* the copy disagrees with the ring */
	for (int i = 7; i >= 0; i--) /* body first, first 8 bytes (the doorbell) last */
		*(volatile uint64_t *)(void *)(r.bf + i * 8) = *(const uint64_t *)(const void *)(w + i * 8);
	CHECK(one(&r, &wc) && wc.status == IBV_WC_SUCCESS, "nop via bf %d", wc.status);
	/* reported once the copy had time to settle (eng_bf.c), which may be after the completion */
	CHECK(wait_violations(v + 1) == v + 1, "BlueFlame mismatch counted");
	v++;
	raw_free(&r);

	/* WQE slot reused before its completion could be seen: unsignaled NOPs past the ring size */
	raw_make(&r, IBV_QPT_RC);
	for (uint32_t i = 0; i <= r.cnt; i++) {
		ctrl(w, 0, (uint16_t)i, MLX5_OPCODE_NOP, r.qp->qp_num, 1);
		w[11] = 0; /* no CQE */
		raw_post(&r, w, 16, 0);
		usleep(200);
	}
	v++;
	CHECK(wait_violations(v) == v, "slot reuse counted (%lu)", t_violations());
	raw_free(&r);

	ibv_dereg_mr(ma);
	ibv_dereg_mr(mb);
	free(ba);
	free(bb);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("t_strict: ok (%lu violations, all expected)\n", v);
	return 0;
}
