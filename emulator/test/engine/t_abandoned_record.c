/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_abandoned_record.c - a peer killed in the middle of putting a packet into this process's rings (its record
 * reserved, never committed) must not wedge this process's device: hardware drops a frame cut off on the wire and
 * goes on. The single consumer of a ring stops at the first uncommitted record, so before the fix every packet
 * behind that record, of every QP of the process, waited forever, and a requester whose own engine held the
 * packet never even timed out (eng_req.c check_timeout: "our own engine is behind"). This is how a CI run lost
 * the first SEND of two rdma_cm tests in one JVM after an rping client was killed.
 * - A child reserves a record in our request ring and dies (SIGKILL, left a zombie): a loopback SEND and its
 *   receive complete within 2 s, with the data.
 * - The same in the response ring, the child reaped: a loopback RDMA WRITE (its ACK comes through that ring)
 *   completes within 2 s.
 * - A child that reserves and stays alive may still commit its record, so it is not skipped: the SEND behind it
 *   does not complete in 300 ms; once the child is killed, it does.
 * Judged by libmlx5's ibv_poll_cq and the receiver's memory; the record is made by the engine's own producer
 * code through mlx5emu_debug_abandon_reservation.
 */
#include <signal.h>
#include <sys/wait.h>

#include "etest.h"

static struct ibv_qp *a, *b;
static struct ibv_cq *cqa, *cqb;
static struct ibv_mr *mr;
static uint8_t *buf;

/* Fork a child that reserves a record in our request (resp = 0) or response ring; it then dies (die) or waits. */
static pid_t abandon(int resp, int die)
{
	int ready[2];
	CHECK(pipe(ready) == 0, "pipe");
	pid_t parent = getpid(), pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		int (*f)(int, int, uint32_t) =
			(int (*)(int, int, uint32_t))dlsym(RTLD_DEFAULT, "mlx5emu_debug_abandon_reservation");
		char ok = f && f((int)parent, resp, 64) == 0;
		if (write(ready[1], &ok, 1) != 1)
			_exit(2);
		if (die)
			raise(SIGKILL);
		for (;;)
			pause();
	}
	close(ready[1]);
	char ok = 0;
	t_xread(ready[0], &ok, 1);
	close(ready[0]);
	CHECK(ok, "the child could not reserve a record in our %s ring", resp ? "response" : "request");
	return pid;
}

static void zombie(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	CHECK(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0 && si.si_code == CLD_KILLED, "child not killed");
}

static void reap(pid_t pid)
{
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "child not killed");
}

static void post_send(uint64_t id, uint8_t fill)
{
	memset(buf, fill, 64);
	memset(buf + 1024, 0, 64);
	t_post_recv(b, id, buf + 1024, 64, mr->lkey);
	struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND };
	t_post_send(a, &wr);
}

/* The SEND id: one completion on each side within ms, the data in place. */
static void expect_send(uint64_t id, uint8_t fill, int ms)
{
	struct ibv_wc wc[2];
	CHECK(t_poll(cqa, wc, 1, ms) == 1, "no send completion for %llu in %d ms", (unsigned long long)id, ms);
	CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == id && wc[0].opcode == IBV_WC_SEND, "send wc %s",
	      ibv_wc_status_str(wc[0].status));
	CHECK(t_poll(cqb, wc, 1, ms) == 1, "no receive completion for %llu", (unsigned long long)id);
	CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == id && wc[0].byte_len == 64, "recv wc %s len %u",
	      ibv_wc_status_str(wc[0].status), wc[0].byte_len);
	for (int i = 0; i < 64; i++)
		CHECK(buf[1024 + i] == fill, "byte %d: 0x%02x, sent 0x%02x", i, buf[1024 + i], fill);
	CHECK(ibv_poll_cq(cqa, 2, wc) == 0 && ibv_poll_cq(cqb, 2, wc) == 0, "a completion too many");
}

int main(void)
{
	t_open();
	cqa = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	cqb = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cqa && cqb, "cq");
	t_rc_loop(cqa, cqb, &a, &b);
	mr = t_mr(4096, T_ALL_ACCESS, (void **)&buf);

	post_send(1, 0x11);
	expect_send(1, 0x11, 2000);

	/* request ring, producer dead (a zombie: it will never run again) */
	pid_t dead = abandon(0, 1);
	zombie(dead);
	post_send(2, 0x22);
	expect_send(2, 0x22, 2000);
	reap(dead);

	/* response ring, producer dead and reaped: the WRITE's ACK comes through that ring */
	dead = abandon(1, 1);
	reap(dead);
	memset(buf, 0x33, 64);
	struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE };
	wr.wr.rdma.remote_addr = (uintptr_t)buf + 2048;
	wr.wr.rdma.rkey = mr->rkey;
	t_post_send(a, &wr);
	struct ibv_wc wc;
	CHECK(t_poll(cqa, &wc, 1, 2000) == 1, "no completion for the WRITE behind an abandoned response record");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 3, "write wc %s", ibv_wc_status_str(wc.status));
	CHECK(memcmp(buf, buf + 2048, 64) == 0, "WRITE data");

	/* request ring, producer alive: it may still commit, so the packet behind it waits */
	pid_t alive = abandon(0, 0);
	post_send(4, 0x44);
	CHECK(t_poll(cqa, &wc, 1, 300) == 0, "a SEND passed a record its live producer may still commit");
	CHECK(kill(alive, SIGKILL) == 0, "kill");
	reap(alive);
	expect_send(4, 0x44, 2000);

	CHECK(t_violations() == 0, "strict violations");
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_dereg_mr(mr);
	free(buf);
	ibv_destroy_cq(cqa);
	ibv_destroy_cq(cqb);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("PASS\n");
	return 0;
}
