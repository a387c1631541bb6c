/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_direct_stream.c - direct placement in its default mode (src/engine/eng_direct.c) is for request and response:
 * after a WRITE is placed, the QP's next WRITEs take the wire until the peer answers.
 * - Into a stopped responder (SIGSTOP: its engine cannot run, so every allowed WRITE would be placed), 16 WRITEs
 *   posted back to back: the first is placed and completes; the other 15 wait on the wire (no completion, nothing
 *   placed, for 100 ms); after SIGCONT all 15 complete in order and the responder reads all 16 values.
 * - The responder then answers with a SEND, and is stopped again: the next WRITE is placed and completes.
 * Why: placing costs a system call per WRITE (process_vm_writev), while one wake-up of the responder's engine
 * serves every packet of a stream; ib_write_bw -s 8 ran at half the message rate with every WRITE placed.
 * Judged by libmlx5's ibv_poll_cq on the requester, the responder's memory, and mlx5emu_direct_placements.
 */
#include <signal.h>
#include <sys/wait.h>

#include "etest.h"

#define NW 16
/* ACK timeout 4.096 us * 2^18 = 1.07 s: the requester does not even retransmit while the responder is stopped. */
static const struct t_conn conn = { 18, 7, 7, 1 };

struct info {
	uint32_t qpn, rkey;
	uint64_t addr;
};

static int to_child[2], to_parent[2];

static void child(void)
{
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cq, "child cq");
	uint64_t *mem;
	struct ibv_mr *mr = t_mr(4096, T_ALL_ACCESS, (void **)&mem);
	struct ibv_qp *qp = t_qp(IBV_QPT_RC, cq, cq, NULL, 0);
	struct info me = { qp->qp_num, mr->rkey, (uintptr_t)mem }, peer;
	t_xwrite(to_parent[1], &me, sizeof me);
	t_xread(to_child[0], &peer, sizeof peer);
	t_connect(qp, peer.qpn, &conn, 1);
	t_xwrite(to_parent[1], "r", 1);
	char c;
	t_xread(to_child[0], &c, 1);
	CHECK(c == 'v', "step v");
	for (uint64_t i = 0; i < NW; i++)
		CHECK(mem[i] == 1000 + i, "WRITE %llu: 0x%llx, expected %llu", (unsigned long long)i,
		      (unsigned long long)mem[i], (unsigned long long)(1000 + i));
	/* the answer: a SEND (taken from the wire by the requester's engine) */
	struct ibv_sge s = { (uintptr_t)mem, 8, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	t_post_send(qp, &wr);
	struct ibv_wc wc;
	CHECK(t_poll(cq, &wc, 1, 5000) == 1 && wc.wr_id == 9 && wc.status == IBV_WC_SUCCESS, "answer: status %d",
	      wc.status);
	t_xwrite(to_parent[1], "a", 1);
	t_xread(to_child[0], &c, 1);
	CHECK(c == 'w', "step w");
	CHECK(mem[NW] == 2000, "the WRITE after the answer: 0x%llx", (unsigned long long)mem[NW]);
	_exit(0);
}

static void stop(pid_t pid)
{
	int st;
	CHECK(kill(pid, SIGSTOP) == 0, "SIGSTOP");
	CHECK(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st), "child stopped");
	usleep(2000); /* its engine's last "awake" time goes stale (ENG_AWAKE_FRESH_NS) */
}

int main(void)
{
	unsetenv("MLX5EMU_DIRECT");
	pid_t pid = t_fork_peer(to_child, to_parent, child);
	struct info peer;
	t_xread(to_parent[0], &peer, sizeof peer);
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cq, "cq");
	uint64_t *buf;
	struct ibv_mr *mr = t_mr(4096, T_ALL_ACCESS, (void **)&buf);
	struct ibv_qp *qp = t_qp(IBV_QPT_RC, cq, cq, NULL, 0);
	t_connect(qp, peer.qpn, &conn, 1);
	struct info me = { qp->qp_num, mr->rkey, (uintptr_t)buf };
	t_xwrite(to_child[1], &me, sizeof me);
	char r;
	t_xread(to_parent[0], &r, 1);

	stop(pid);
	unsigned long p0 = t_direct_placements();
	for (uint64_t i = 0; i < NW; i++) {
		buf[i] = 1000 + i;
		struct ibv_sge s = { (uintptr_t)&buf[i], 8, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = i, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = peer.addr + i * 8;
		wr.wr.rdma.rkey = peer.rkey;
		t_post_send(qp, &wr);
	}
	struct ibv_wc wc[NW];
	int got = t_poll(cq, wc, NW, 100);
	CHECK(got == 1 && wc[0].wr_id == 0 && wc[0].status == IBV_WC_SUCCESS,
	      "stopped responder: %d completions in 100 ms (first wr_id %llu status %d), expected only the placed WRITE 0",
	      got, got ? (unsigned long long)wc[0].wr_id : 0ull, got ? (int)wc[0].status : -1);
	CHECK(t_direct_placements() - p0 == 1, "%lu of a stream of %d WRITEs placed, expected the first only", t_direct_placements() - p0,
	      NW);
	CHECK(kill(pid, SIGCONT) == 0, "SIGCONT");
	for (int i = 1; i < NW; i++)
		CHECK(t_poll(cq, wc, 1, 5000) == 1 && wc[0].wr_id == (uint64_t)i && wc[0].status == IBV_WC_SUCCESS,
		      "after SIGCONT, WRITE %d: wr_id %llu status %d", i, (unsigned long long)wc[0].wr_id, wc[0].status);
	CHECK(t_direct_placements() - p0 == 1, "a WRITE behind the placed one was placed");
	/* the responder answers (its SEND needs a receive here), then stops: placement is wanted again */
	t_post_recv(qp, 50, buf + 64, 64, mr->lkey);
	t_xwrite(to_child[1], "v", 1);
	t_xread(to_parent[0], &r, 1);
	CHECK(r == 'a', "step a");
	CHECK(t_poll(cq, wc, 1, 5000) == 1 && wc[0].wr_id == 50 && wc[0].status == IBV_WC_SUCCESS, "the answer: status %d",
	      wc[0].status);
	stop(pid);
	unsigned long p1 = t_direct_placements();
	buf[NW] = 2000;
	struct ibv_sge s = { (uintptr_t)&buf[NW], 8, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 60, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED };
	wr.wr.rdma.remote_addr = peer.addr + NW * 8;
	wr.wr.rdma.rkey = peer.rkey;
	t_post_send(qp, &wr);
	CHECK(t_poll(cq, wc, 1, 100) == 1 && wc[0].wr_id == 60 && wc[0].status == IBV_WC_SUCCESS,
	      "the WRITE after the answer, to the stopped responder: no completion in 100 ms");
	CHECK(t_direct_placements() - p1 == 1, "the WRITE after the answer was not placed");
	CHECK(kill(pid, SIGCONT) == 0, "SIGCONT");
	t_xwrite(to_child[1], "w", 1);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: status 0x%x", st);
	printf("t_direct_stream: ok\n");
	return 0;
}
