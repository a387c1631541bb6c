/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_port_counters.c - the port counters the emulator keeps (src/emu_counters.h), read as a user reads them on Linux:
 * `cat /sys/class/infiniband/mlx5_0/ports/1/{counters,hw_counters}/NAME` (a child process, so through the
 * interposed open of another program). After a known traffic pattern each counter moved by exactly the expected
 * amount: an RC pair of this process does 3 RDMA WRITEs, 2 RDMA READs and 1 FETCH_ADD (rx_write_requests +3,
 * rx_read_requests +2, rx_atomic_requests +1, as the responder's port counts them: drivers/infiniband/hw/mlx5/
 * counters.c basic_q_cnts); a UD QP sends 3 messages of 32 bytes to itself, 2 before any receive is posted
 * (out_of_buffer +2) and 1 after (port_xmit_packets, port_rcv_packets, unicast_* +3; port_xmit_data and
 * port_rcv_data +24: 96 bytes in 4-byte words, the unit of the IBA's PortXmitData). Deltas, not absolute values: the
 * counters belong to the fabric, which outlives a process, as a NIC's outlive a program.
 */
#include "etest.h"

static uint64_t cat_counter(const char *dir, const char *name)
{
	char cmd[256], line[64] = "";
	snprintf(cmd, sizeof cmd, "cat /sys/class/infiniband/mlx5_0/ports/1/%s/%s", dir, name);
	FILE *f = popen(cmd, "r");
	CHECK(f, "popen %s", cmd);
	CHECK(fgets(line, sizeof line, f) != NULL, "%s printed nothing", cmd);
	CHECK(pclose(f) == 0, "%s failed", cmd);
	char *end = NULL;
	unsigned long long v = strtoull(line, &end, 10);
	CHECK(end != line && *end == '\n', "%s printed '%s'", cmd, line);
	return v;
}

/* Waits (5 s at most) until dir/name has moved by want since base, then checks that it stays there. */
static void expect_delta(const char *dir, const char *name, uint64_t base, uint64_t want)
{
	uint64_t end = t_ms() + 5000, v = cat_counter(dir, name);
	while (v - base < want && t_ms() < end) {
		usleep(10000);
		v = cat_counter(dir, name);
	}
	usleep(50000);
	v = cat_counter(dir, name);
	CHECK(v - base == want, "%s/%s moved by %llu, expected %llu", dir, name, (unsigned long long)(v - base),
	      (unsigned long long)want);
	printf("  %s/%s +%llu\n", dir, name, (unsigned long long)want);
}

static void rc_requests(void)
{
	uint64_t w0 = cat_counter("hw_counters", "rx_write_requests");
	uint64_t r0 = cat_counter("hw_counters", "rx_read_requests");
	uint64_t a0 = cat_counter("hw_counters", "rx_atomic_requests");
	struct ibv_cq *cqa = ibv_create_cq(t_ctx, 64, NULL, NULL, 0), *cqb = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cqa && cqb, "cq");
	struct ibv_qp *a, *b;
	t_rc_loop(cqa, cqb, &a, &b);
	void *buf;
	struct ibv_mr *mr = t_mr(1 << 16, T_ALL_ACCESS, &buf);
	struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_send_wr wr;
	struct ibv_wc wc[8];
	for (int i = 0; i < 6; i++) {
		memset(&wr, 0, sizeof wr);
		wr.wr_id = (uint64_t)i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (i < 3) {
			wr.opcode = IBV_WR_RDMA_WRITE;
		} else if (i < 5) {
			wr.opcode = IBV_WR_RDMA_READ;
		} else {
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			sge.length = 8;
			wr.wr.atomic.remote_addr = (uintptr_t)buf + 8192;
			wr.wr.atomic.rkey = mr->rkey;
			wr.wr.atomic.compare_add = 1;
		}
		if (i < 5) {
			wr.wr.rdma.remote_addr = (uintptr_t)buf + 4096;
			wr.wr.rdma.rkey = mr->rkey;
		}
		t_post_send(a, &wr);
		CHECK(t_poll(cqa, wc, 1, 10000) == 1 && wc[0].status == IBV_WC_SUCCESS, "completion of WR %d", i);
	}
	expect_delta("hw_counters", "rx_write_requests", w0, 3);
	expect_delta("hw_counters", "rx_read_requests", r0, 2);
	expect_delta("hw_counters", "rx_atomic_requests", a0, 1);
	CHECK(ibv_dereg_mr(mr) == 0, "dereg");
	free(buf);
	CHECK(ibv_destroy_qp(a) == 0 && ibv_destroy_qp(b) == 0, "destroy qp");
	CHECK(ibv_destroy_cq(cqa) == 0 && ibv_destroy_cq(cqb) == 0, "destroy cq");
}

static const char *const port_names[] = { "port_xmit_packets", "port_rcv_packets", "unicast_xmit_packets",
					   "unicast_rcv_packets", "port_xmit_data", "port_rcv_data" };

static void ud_traffic(void)
{
	uint64_t base[6], oob0 = cat_counter("hw_counters", "out_of_buffer");
	for (int i = 0; i < 6; i++)
		base[i] = cat_counter("counters", port_names[i]);
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	CHECK(cq, "cq");
	struct ibv_qp *qp = t_qp(IBV_QPT_UD, cq, cq, NULL, 1);
	t_ud_up(qp, 0x1234);
	struct ibv_ah_attr aa;
	t_ah_attr(&aa);
	struct ibv_ah *ah = ibv_create_ah(t_pd, &aa);
	CHECK(ah, "ah");
	void *buf;
	struct ibv_mr *mr = t_mr(1 << 16, T_ALL_ACCESS, &buf);
	struct ibv_sge sge = { (uintptr_t)buf, 32, mr->lkey };
	struct ibv_send_wr wr;
	struct ibv_wc wc[4];
	for (int i = 0; i < 3; i++) {
		if (i == 2) {
			/* the third finds a receive: no drop */
			expect_delta("hw_counters", "out_of_buffer", oob0, 2);
			t_post_recv(qp, 100, (uint8_t *)buf + 4096, 4096, mr->lkey);
		}
		memset(&wr, 0, sizeof wr);
		wr.wr_id = (uint64_t)i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qp->qp_num;
		wr.wr.ud.remote_qkey = 0x1234;
		t_post_send(qp, &wr);
		CHECK(t_poll(cq, wc, 1, 10000) == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_SEND,
		      "send %d", i);
	}
	CHECK(t_poll(cq, wc, 1, 10000) == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RECV &&
	      wc[0].byte_len == 40 + 32, "the receive of the third message");
	expect_delta("hw_counters", "out_of_buffer", oob0, 2);
	for (int i = 0; i < 4; i++)
		expect_delta("counters", port_names[i], base[i], 3);
	for (int i = 4; i < 6; i++)
		expect_delta("counters", port_names[i], base[i], 3 * 32 / 4);
	CHECK(ibv_destroy_ah(ah) == 0, "destroy ah");
	CHECK(ibv_dereg_mr(mr) == 0, "dereg");
	free(buf);
	CHECK(ibv_destroy_qp(qp) == 0, "destroy qp");
	CHECK(ibv_destroy_cq(cq) == 0, "destroy cq");
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	t_open();
	/* the listing a user sees: the launcher's files, one per counter the emulator keeps */
	CHECK(system("ls /sys/class/infiniband/mlx5_0/ports/1/hw_counters | tr '\\n' ' ' | "
		     "grep -qx 'out_of_buffer rx_atomic_requests rx_read_requests rx_write_requests '") == 0,
	      "hw_counters lists the four queue counters");
	rc_requests();
	ud_traffic();
	CHECK(ibv_dealloc_pd(t_pd) == 0 && ibv_close_device(t_ctx) == 0, "close");
	printf("t_port_counters: ok\n");
	return 0;
}
