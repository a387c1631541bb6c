/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_lend.c - cycles lent through mlx5emu_lend (src/engine/eng_core.c), as mlx5j's CqPoller lends its empty polls:
 * - mlx5emu_lend_enabled() answers 1 under the running engine, 0 with MLX5EMU_LEND=0 or MLX5EMU_ENGINE=off (the
 *   test re-runs itself so; mlx5j reads it once to decide whether its polls call mlx5emu_lend at all);
 * - a program that posts an RDMA WRITE and then only calls mlx5emu_lend, never ibv_poll_cq, sees the bytes land by
 *   reading its memory;
 * - while a thread keeps lending, even with pauses of 200 us between doorbells, the UAR page opened by the first
 *   doorbell fault stays open: later doorbells are taken by the lent passes, not by write faults (each fault is a
 *   page-table change and a thread wake-up). Before doorbell pages stayed open for lending threads, the engine
 *   protected the page again after 100 us without a poller, so nearly every doorbell of this loop faulted; a few may
 *   still fault on a loaded machine (a pause that overran 1 ms), so the test allows one in ten.
 */
#include <sys/wait.h>

#include "etest.h"

#define ROUNDS 200

static void *sym(const char *name)
{
	void *f = dlsym(RTLD_DEFAULT, name);
	CHECK(f, "%s not found (not running under the emulator?)", name);
	return f;
}

static int lend_enabled(void) { return ((int (*)(void))sym("mlx5emu_lend_enabled"))(); }
static void lend(void) { ((void (*)(void))sym("mlx5emu_lend"))(); }
static unsigned long doorbell_faults(void) { return ((unsigned long (*)(void))sym("mlx5emu_doorbell_faults"))(); }

/* Re-run this program with one more environment variable; its "enabled" mode prints nothing and exits with
 * mlx5emu_lend_enabled()'s answer. */
static int enabled_with(const char *var, const char *value, char **argv)
{
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		setenv(var, value, 1);
		execl("/proc/self/exe", argv[0], "enabled", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "child");
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "enabled") == 0)
		return lend_enabled();
	CHECK(lend_enabled() == 1, "mlx5emu_lend_enabled() is %d under the running engine", lend_enabled());
	CHECK(enabled_with("MLX5EMU_LEND", "0", argv) == 0, "MLX5EMU_LEND=0 still enables lending");
	CHECK(enabled_with("MLX5EMU_ENGINE", "off", argv) == 0, "MLX5EMU_ENGINE=off still enables lending");

	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 256, NULL, NULL, 0);
	CHECK(cq, "cq");
	struct ibv_qp *a, *b;
	t_rc_loop(cq, cq, &a, &b);
	uint8_t *dst;
	struct ibv_mr *mr = t_mr(4096, T_ALL_ACCESS, (void **)&dst);
	volatile uint64_t *landed = (volatile uint64_t *)dst;

	unsigned long faults = 0, extra_lends = 0;
	for (uint64_t r = 0; r <= ROUNDS; r++) {
		uint64_t v = 0x1000 + r * 0x10001;
		struct ibv_sge sge = { (uintptr_t)&v, sizeof v, 0 };
		struct ibv_send_wr wr, *bad;
		memset(&wr, 0, sizeof wr);
		wr.wr_id = r;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = (uintptr_t)dst;
		wr.wr.rdma.rkey = mr->rkey;
		unsigned long before = doorbell_faults();
		CHECK(ibv_post_send(a, &wr, &bad) == 0, "post round %lu", (unsigned long)r);
		uint64_t deadline = t_ms() + 2000;
		lend();
		while (*landed != v) {
			CHECK(t_ms() < deadline, "round %lu: WRITE not landed after 2 s of lending (holds 0x%lx)",
			      (unsigned long)r, (unsigned long)*landed);
			extra_lends++;
			lend();
		}
		if (r > 0) /* round 0 opens the page: its doorbell faults by design */
			faults += doorbell_faults() - before;
		struct ibv_wc wc;
		CHECK(t_poll(cq, &wc, 1, 2000) == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == r,
		      "round %lu: completion", (unsigned long)r);
		struct timespec pause = { 0, 200000 };
		nanosleep(&pause, NULL);
	}
	CHECK(faults <= ROUNDS / 10, "%lu of %d doorbells faulted while this thread kept lending (at most %d allowed)",
	      faults, ROUNDS, ROUNDS / 10);
	printf("t_lend: ok (%lu of %d doorbells faulted, %lu extra lends)\n", faults, ROUNDS, extra_lends);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_dereg_mr(mr);
	free(dst);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	return 0;
}
