/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Doorbells noticed through write faults (src/engine/eng_dbfault.c): a program that rings a doorbell and then
 * spins on memory without calling the library again (ib_write_lat, UCX, mlx5j's CqPoller) gets its WQEs executed.
 * Each round lets the engine go idle (it then write-protects the UAR pages), posts an RDMA WRITE and a SEND, and
 * waits for the written bytes by reading memory only; then the completions are checked with ibv_poll_cq. With
 * MLX5EMU_DOORBELL_FAULT=1 (set here) at least one doorbell must have arrived as a fault (the engine may still be
 * awake for some, on a loaded machine); with MLX5EMU_DOORBELL_FAULT=0 (the test re-runs itself so) none may, and everything
 * works the same by polling. A second thread rings another QP's doorbells at the same time, so that faults,
 * re-protection and BlueFlame copies of two threads interleave; no doorbell may be lost or reported by the
 * strict checks.
 */
#include <pthread.h>
#include <sys/wait.h>

#include "etest.h"

#define ROUNDS 60

static unsigned long doorbell_faults(void)
{
	unsigned long (*f)(void) = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "mlx5emu_doorbell_faults");
	CHECK(f, "mlx5emu_doorbell_faults not found (not running under the emulator?)");
	return f();
}

struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	volatile uint8_t *buf;
};

static void pair_up(struct pair *p)
{
	p->cq = ibv_create_cq(t_ctx, 256, NULL, NULL, 0);
	CHECK(p->cq, "cq");
	p->a = t_qp(IBV_QPT_RC, p->cq, p->cq, NULL, 1);
	p->b = t_qp(IBV_QPT_RC, p->cq, p->cq, NULL, 1);
	t_connect(p->a, p->b->qp_num, &t_default_conn, 1);
	t_connect(p->b, p->a->qp_num, &t_default_conn, 1);
	void *buf;
	p->mr = t_mr(8192, T_ALL_ACCESS, &buf);
	p->buf = buf;
}

/* One WRITE of 8 bytes (inline, so libmlx5 copies it through BlueFlame) of the value r, then a SEND; waits on
 * memory for the written value with no library call, then for both send completions and the receive. */
static void round_trip(struct pair *p, uint32_t r)
{
	uint64_t v = 0x5a5a000000000000ull | r;
	t_post_recv(p->b, 100 + r, (void *)(uintptr_t)(p->buf + 4096), 64, p->mr->lkey);
	memcpy((void *)(uintptr_t)(p->buf + 1024), &v, 8);
	struct ibv_sge s = { (uintptr_t)(p->buf + 1024), 8, p->mr->lkey };
	struct ibv_send_wr w = { .wr_id = r, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_INLINE };
	w.wr.rdma.remote_addr = (uintptr_t)(p->buf + 2048);
	w.wr.rdma.rkey = p->mr->rkey;
	t_post_send(p->a, &w);
	uint64_t end = t_ms() + 10000;
	uint64_t got = 0;
	while (t_ms() < end) {
		memcpy(&got, (const void *)(uintptr_t)(p->buf + 2048), 8);
		if (got == v)
			break;
		__builtin_ia32_pause();
	}
	CHECK(got == v, "round %u: the written value never arrived while the program only read memory", r);
	w.opcode = IBV_WR_SEND;
	w.wr_id = 1000 + r;
	t_post_send(p->a, &w);
	struct ibv_wc wc[4];
	int n = t_poll(p->cq, wc, 3, 10000);
	CHECK(n == 3, "round %u: %d of 3 completions", r, n);
	for (int i = 0; i < 3; i++) {
		CHECK(wc[i].status == IBV_WC_SUCCESS, "round %u: wc %d status %d", r, i, wc[i].status);
		if (wc[i].opcode == IBV_WC_RECV)
			CHECK(wc[i].wr_id == 100 + r && wc[i].byte_len == 8, "round %u: recv wr_id %llu len %u", r,
			      (unsigned long long)wc[i].wr_id, wc[i].byte_len);
	}
	CHECK(memcmp((const void *)(uintptr_t)(p->buf + 4096), &v, 8) == 0, "round %u: sent bytes", r);
}

static struct pair side;
static volatile int stop_side;

static void *side_thread(void *arg)
{
	(void)arg;
	for (uint32_t r = 0; !stop_side; r++)
		round_trip(&side, r);
	return NULL;
}

int main(int argc, char **argv)
{
	int polling = argc > 1 && strcmp(argv[1], "polling") == 0;
	if (!polling) {
		/* the same test with the faults switched off, as a separate process (the setting is read at start) */
		pid_t pid = fork();
		CHECK(pid >= 0, "fork");
		if (pid == 0) {
			setenv("MLX5EMU_DOORBELL_FAULT", "0", 1);
			execl("/proc/self/exe", argv[0], "polling", (char *)NULL);
			_exit(127);
		}
		int st;
		CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "polling run failed");
		setenv("MLX5EMU_DOORBELL_FAULT", "1", 1); /* the default, whatever the caller's environment says */
	}
	t_open();
	struct pair main_pair;
	pair_up(&main_pair);
	pair_up(&side);
	unsigned long before = doorbell_faults();
	for (uint32_t r = 0; r < ROUNDS / 2; r++) {
		usleep(3000); /* let the engine go to sleep: it protects the pages first */
		round_trip(&main_pair, r);
	}
	pthread_t t;
	CHECK(pthread_create(&t, NULL, side_thread, NULL) == 0, "thread");
	for (uint32_t r = ROUNDS / 2; r < ROUNDS; r++) {
		usleep(1000);
		round_trip(&main_pair, r);
	}
	stop_side = 1;
	pthread_join(t, NULL);
	unsigned long faults = doorbell_faults() - before;
	if (polling)
		CHECK(faults == 0, "%lu doorbells faulted with MLX5EMU_DOORBELL_FAULT=0", faults);
	else
		CHECK(faults > 0, "no doorbell of %d idle rounds arrived through a write fault", ROUNDS / 2);
	CHECK(t_violations() == 0, "%lu strict violations", t_violations());
	printf("t_doorbell_fault%s: ok (%lu doorbells through faults)\n", polling ? " (polling)" : "", faults);
	return 0;
}
