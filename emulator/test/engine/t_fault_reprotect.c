/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A program that never calls the library after its doorbell (UCX rc_mlx5, ib_write_lat between its polls) gets every
 * doorbell through a write fault, not only the first: the doorbell fault thread protects the page again once the
 * faulting store landed (eng_core.c doorbell_fault_idle). Before, that was left to the engine thread when it next
 * woke (up to its 500 us idle step): the next doorbell landed on the still open page unseen, and UCX put_lat, whose
 * requester places its WRITEs itself so that nothing wakes that thread, took 140 to 290 us per iteration.
 *
 * Here the engine thread is held (mlx5emu_debug_hold_engine), so only the fault thread can execute anything. NOP WQEs
 * are written through mlx5dv and rung with an 8-byte store through the library's BlueFlame register, and their CQEs
 * are read from CQ memory: no verb is called, so no pass is lent. Each NOP must complete and each must fault. Without
 * the fault thread's re-protection the second NOP is never seen (nothing scans the open page) and the test fails.
 * The first NOP runs with the engine thread free: where doorbells do not fault (no userfaultfd), the test skips.
 */
#include "etest.h"
#include "mlx5emu_debug.h"

#define NOPS 8

static unsigned long doorbell_faults(void)
{
	unsigned long (*f)(void) = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "mlx5emu_doorbell_faults");
	CHECK(f, "mlx5emu_doorbell_faults not found (not running under the emulator?)");
	return f();
}

/* The CQE for the n-th completion (n < cqe_cnt) once the device wrote it, read from memory only. */
static int cqe_ready(const struct mlx5dv_cq *cq, uint32_t n, uint8_t *opcode)
{
	const volatile uint8_t *cqe = (const volatile uint8_t *)cq->buf + (size_t)n * cq->cqe_size;
	if (cq->cqe_size == 128)
		cqe += 64;
	uint8_t op_own = cqe[63];
	udma_from_device_barrier(); /* where libmlx5 has it; nothing of the CQE but op_own is read here */
	if ((op_own >> 4) == MLX5_CQE_INVALID || (op_own & 1) != 0)
		return 0;
	*opcode = op_own >> 4;
	return 1;
}

int main(void)
{
	void (*hold)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "mlx5emu_debug_hold_engine");
	CHECK(hold, "mlx5emu_debug_hold_engine not found");
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct ibv_cq *pcq = ibv_create_cq(t_ctx, 16, NULL, NULL, 0);
	CHECK(cq && pcq, "cq");
	struct ibv_qp *qp, *peer;
	t_rc_loop(cq, pcq, &qp, &peer);

	struct mlx5dv_qp dv;
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o;
	memset(&o, 0, sizeof o);
	o.qp.in = qp;
	o.qp.out = &dv;
	o.cq.in = cq;
	o.cq.out = &dcq;
	CHECK(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ) == 0, "init_obj");
	CHECK(dcq.cqe_cnt > NOPS && dv.sq.wqe_cnt > NOPS, "rings too small");

	/* NOP 0 with the engine thread running: whether doorbells fault here at all (not without userfaultfd, nor with
	 * MLX5EMU_DOORBELL_FAULT=0; the engine thread then polls, and held, it would execute nothing) */
	usleep(20 * 1000); /* idle: the pages are protected */
	unsigned long before = doorbell_faults();
	uint8_t *sq = dv.sq.buf;
	for (uint32_t i = 0; i < NOPS; i++) {
		if (i == 1) {
			if (doorbell_faults() == before) {
				printf("t_fault_reprotect: doorbells do not fault here: skipped\n");
				return 0;
			}
			hold(1);
			usleep(20 * 1000); /* what NOP 0 left open has been protected by the fault thread by now */
		}
		unsigned long f0 = doorbell_faults();
		uint8_t *w = sq + (size_t)i * 64;
		memset(w, 0, 64);
		*(uint32_t *)(void *)w = htobe32(i << 8 | MLX5_OPCODE_NOP);
		*(uint32_t *)(void *)(w + 4) = htobe32(qp->qp_num << 8 | 1);
		w[11] = MLX5_WQE_CTRL_CQ_UPDATE;
		udma_to_device_barrier(); /* else the engine could read the NOP before its bytes */
		dv.dbrec[MLX5_SND_DBR] = htobe32(i + 1);
		mmio_wc_start(); /* else the doorbell (a write fault) could be taken before the record is seen */
		*(volatile uint64_t *)(void *)((uint8_t *)dv.bf.reg + (i & 1) * dv.bf.size) = *(uint64_t *)(void *)w;
		uint8_t opcode = 0;
		uint64_t end = t_ms() + 3000;
		while (!cqe_ready(&dcq, i, &opcode) && t_ms() < end)
			;
		CHECK(t_ms() < end || cqe_ready(&dcq, i, &opcode),
		      "NOP %u never completed with the engine thread held (%lu faults so far)", i,
		      doorbell_faults() - before);
		CHECK(opcode == MLX5_CQE_REQ, "NOP %u: CQE opcode %u", i, opcode);
		if (i > 0)
			CHECK(doorbell_faults() == f0 + 1, "NOP %u: %lu doorbell faults, expected 1", i,
			      doorbell_faults() - f0);
		usleep(2000); /* the program spins elsewhere; the store landed long ago */
	}
	hold(0);
	/* the CQEs through libmlx5 as well (this lends passes again, which is fine now) */
	struct ibv_wc wc[NOPS];
	CHECK(t_poll(cq, wc, NOPS, 5000) == NOPS, "libmlx5 polled fewer than %d NOP completions", NOPS);
	for (int i = 0; i < NOPS; i++)
		CHECK(wc[i].status == IBV_WC_SUCCESS, "wc %d: status %d", i, wc[i].status);
	CHECK(t_violations() == 0, "%lu strict violations", t_violations());

	t_close_pair(qp, peer, cq, pcq);
	printf("t_fault_reprotect: %d doorbells of a program that lends no pass, each through a fault\n", NOPS);
	return 0;
}
