/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_direct.c - direct placement (src/engine/eng_direct.c): an RC RDMA WRITE of one packet, with nothing of its QP
 * in flight, is written into the responder's memory by the requester's own engine pass, and completes there.
 * Judged by what the responder process reads in its memory and by libmlx5's ibv_poll_cq on the requester:
 * - every WRITE lands byte for byte, pipelined WRITEs to one address leave the last one's bytes, and the counter
 *   of placements (mlx5emu_direct_placements) counts exactly the single-packet WRITEs;
 * - a WRITE of more than one packet (over 64 KiB) takes the wire, and a SEND after the placed WRITEs completes
 *   (the responder took the placed packets in order: its expected PSN moved past them);
 * - what the responder's checks refuse is never placed: an MR without remote write access, an address past the
 *   MR's end, an MR deregistered by the responder (each IBV_WC_REM_ACCESS_ERR, counter unchanged);
 * - a stopped responder (SIGSTOP) still gets a WRITE placed and the WRITE completes, as a NIC answers while its
 *   host's process is stopped (what its engine must execute waits: t_rc_timer).
 * The responder is a second process (forked before either opens the device, so each has its own engine).
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "etest.h"

#define NQP 4
#define BUF (1u << 20)

struct info {
	uint32_t qpn[NQP];
	uint32_t rkey_rw, rkey_ro;
	uint64_t addr_rw, addr_ro;
};

static int to_child[2], to_parent[2];

static uint8_t pattern(uint32_t i, uint32_t j) { return (uint8_t)(i * 31 + j * 7 + 1); }

/* WRITE i: length and offset in the responder's buffer (no two overlap) */
static uint32_t w_len(uint32_t i) { return 1 + (i * 37) % 4096; }
static uint32_t w_off(uint32_t i) { return i * 4096 + (i % 8); }
#define NW 200

static void child(void)
{
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cq, "child cq");
	uint8_t *rw, *ro;
	struct ibv_mr *mr_rw = t_mr(BUF, T_ALL_ACCESS, (void **)&rw);
	struct ibv_mr *mr_ro = t_mr(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, (void **)&ro);
	struct ibv_qp *qp[NQP];
	struct info me = { .rkey_rw = mr_rw->rkey, .rkey_ro = mr_ro->rkey, .addr_rw = (uintptr_t)rw,
			   .addr_ro = (uintptr_t)ro };
	for (int i = 0; i < NQP; i++) {
		qp[i] = t_qp(IBV_QPT_RC, cq, cq, NULL, 0);
		me.qpn[i] = qp[i]->qp_num;
	}
	t_xwrite(to_parent[1], &me, sizeof me);
	struct info peer;
	t_xread(to_child[0], &peer, sizeof peer);
	for (int i = 0; i < NQP; i++)
		t_connect(qp[i], peer.qpn[i], &t_default_conn, 1);
	t_post_recv(qp[0], 77, ro, 64, mr_ro->lkey);
	t_xwrite(to_parent[1], "r", 1);
	char c;
	/* "v": check the WRITEs (the program never calls the library meanwhile: placement needs none of its threads) */
	t_xread(to_child[0], &c, 1);
	CHECK(c == 'v', "step v");
	for (uint32_t i = 0; i < NW; i++)
		for (uint32_t j = 0; j < w_len(i); j++)
			CHECK(rw[w_off(i) + j] == pattern(i, j), "WRITE %u byte %u: 0x%02x, expected 0x%02x", i, j,
			      rw[w_off(i) + j], pattern(i, j));
	for (uint32_t j = 0; j < 100000; j++)
		CHECK(rw[NW * 4096 + 8192 + j] == (uint8_t)(j * 3), "big WRITE byte %u", j);
	uint64_t last;
	memcpy(&last, rw + BUF - 8, 8);
	CHECK(last == 31, "pipelined WRITEs to one address: 0x%llx, expected the last (31)", (unsigned long long)last);
	struct ibv_wc wc;
	CHECK(t_poll(cq, &wc, 1, 5000) == 1 && wc.wr_id == 77 && wc.status == IBV_WC_SUCCESS && wc.byte_len == 16,
	      "SEND after the placed WRITEs: status %d byte_len %u", wc.status, wc.byte_len);
	t_xwrite(to_parent[1], "v", 1);
	/* "d": deregister the MR, then the parent writes to its old key */
	t_xread(to_child[0], &c, 1);
	CHECK(c == 'd', "step d");
	for (uint32_t j = 0; j < 8; j++)
		CHECK(rw[BUF - 64 + j] == 0x5a, "the WRITE to the stopped process: byte %u is 0x%02x", j, rw[BUF - 64 + j]);
	uint8_t before[64];
	memcpy(before, rw, 64);
	CHECK(ibv_dereg_mr(mr_rw) == 0, "dereg");
	t_xwrite(to_parent[1], "d", 1);
	t_xread(to_child[0], &c, 1);
	CHECK(memcmp(before, rw, 64) == 0, "a WRITE through a deregistered MR landed");
	_exit(0);
}

static struct ibv_qp *qp[NQP];
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t *buf;
static struct info peer;

static void write_one(int q, uint64_t id, uint32_t off, uint32_t len, uint32_t rkey, uint64_t raddr,
		      enum ibv_wc_status want)
{
	struct ibv_sge s = { (uintptr_t)buf + off, len, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED };
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	t_post_send(qp[q], &wr);
	struct ibv_wc wc;
	CHECK(t_poll(cq, &wc, 1, 5000) == 1, "WRITE %llu: no completion", (unsigned long long)id);
	CHECK(wc.wr_id == id && wc.status == want && (want != IBV_WC_SUCCESS || wc.opcode == IBV_WC_RDMA_WRITE),
	      "WRITE %llu: wr_id %llu status %d (%s), expected %d", (unsigned long long)id, (unsigned long long)wc.wr_id,
	      wc.status, ibv_wc_status_str(wc.status), want);
}

int main(void)
{
	/* Counted placements need every allowed WRITE placed: by default a WRITE takes the wire while the responder's
	 * engine is awake, and a placed one wakes that engine when a CPU is idle, which depends on the machine's load
	 * (eng_direct.c). The checks that decide whether a WRITE may be placed at all are the same in both modes. */
	setenv("MLX5EMU_DIRECT", "always", 1);
	pid_t pid = t_fork_peer(to_child, to_parent, child);
	t_xread(to_parent[0], &peer, sizeof peer);
	t_open();
	cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cq, "cq");
	mr = t_mr(BUF, T_ALL_ACCESS, (void **)&buf);
	struct info me = { 0 };
	for (int i = 0; i < NQP; i++) {
		qp[i] = t_qp(IBV_QPT_RC, cq, cq, NULL, 0);
		me.qpn[i] = qp[i]->qp_num;
	}
	for (int i = 0; i < NQP; i++)
		t_connect(qp[i], peer.qpn[i], &t_default_conn, 1);
	t_xwrite(to_child[1], &me, sizeof me);
	char r;
	t_xread(to_parent[0], &r, 1);

	/* single-packet WRITEs, one at a time: each placed */
	unsigned long p0 = t_direct_placements();
	for (uint32_t i = 0; i < NW; i++) {
		for (uint32_t j = 0; j < w_len(i); j++)
			buf[j] = pattern(i, j);
		write_one(0, i, 0, w_len(i), peer.rkey_rw, peer.addr_rw + w_off(i), IBV_WC_SUCCESS);
	}
	CHECK(t_direct_placements() - p0 == NW, "%lu WRITEs placed, expected %u", t_direct_placements() - p0, NW);

	/* more than one packet (ENG_CHUNK is 64 KiB): the wire */
	for (uint32_t j = 0; j < 100000; j++)
		buf[j] = (uint8_t)(j * 3);
	write_one(0, 500, 0, 100000, peer.rkey_rw, peer.addr_rw + NW * 4096 + 8192, IBV_WC_SUCCESS);
	CHECK(t_direct_placements() - p0 == NW, "the 100000-byte WRITE was placed");

	/* 32 pipelined WRITEs of 8 bytes to one address: all placed, in order */
	for (uint64_t i = 0; i < 32; i++)
		memcpy(buf + 4096 + i * 8, &i, 8);
	for (uint64_t i = 0; i < 32; i++) {
		struct ibv_sge s = { (uintptr_t)buf + 4096 + i * 8, 8, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 600 + i, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = peer.addr_rw + BUF - 8;
		wr.wr.rdma.rkey = peer.rkey_rw;
		t_post_send(qp[0], &wr);
	}
	struct ibv_wc wc;
	for (uint64_t i = 0; i < 32; i++) {
		CHECK(t_poll(cq, &wc, 1, 5000) == 1 && wc.wr_id == 600 + i && wc.status == IBV_WC_SUCCESS,
		      "pipelined WRITE %llu: wr_id %llu status %d", (unsigned long long)i, (unsigned long long)wc.wr_id,
		      wc.status);
	}
	CHECK(t_direct_placements() - p0 == NW + 32, "%lu placed, expected %u", t_direct_placements() - p0, NW + 32);

	/* a SEND behind them takes the wire and is received: the responder's PSN moved past the placed packets */
	{
		struct ibv_sge s = { (uintptr_t)buf, 16, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 700, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		t_post_send(qp[0], &wr);
		CHECK(t_poll(cq, &wc, 1, 5000) == 1 && wc.wr_id == 700 && wc.status == IBV_WC_SUCCESS,
		      "SEND after placed WRITEs: status %d", wc.status);
	}
	t_xwrite(to_child[1], "v", 1);
	t_xread(to_parent[0], &r, 1);

	/* refused by the responder's checks: never placed, REM_ACCESS_ERR as on the wire */
	unsigned long p1 = t_direct_placements();
	write_one(1, 800, 0, 64, peer.rkey_ro, peer.addr_ro, IBV_WC_REM_ACCESS_ERR);
	write_one(2, 801, 0, 64, peer.rkey_rw, peer.addr_rw + BUF - 32, IBV_WC_REM_ACCESS_ERR);
	CHECK(t_direct_placements() == p1, "a refused WRITE was placed");

	/* into a stopped responder: placed, and complete */
	{
		int st;
		CHECK(kill(pid, SIGSTOP) == 0, "SIGSTOP");
		CHECK(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st), "child stopped");
		memset(buf, 0x5a, 8);
		write_one(0, 803, 0, 8, peer.rkey_rw, peer.addr_rw + BUF - 64, IBV_WC_SUCCESS);
		CHECK(t_direct_placements() == p1 + 1, "the WRITE to a stopped process was not placed");
		CHECK(kill(pid, SIGCONT) == 0, "SIGCONT");
		p1++;
	}

	/* through an MR the responder deregistered */
	memset(buf, 0xee, 64);
	t_xwrite(to_child[1], "d", 1);
	t_xread(to_parent[0], &r, 1);
	write_one(3, 802, 0, 64, peer.rkey_rw, peer.addr_rw, IBV_WC_REM_ACCESS_ERR);
	CHECK(t_direct_placements() == p1, "a WRITE through a deregistered MR was placed");
	t_xwrite(to_child[1], "q", 1);

	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: status 0x%x", st);
	printf("t_direct: ok (%lu WRITEs placed)\n", t_direct_placements() - p0);
	return 0;
}
