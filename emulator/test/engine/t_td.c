/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_td - thread domains: libmlx5 gives each ibv_td a dedicated BlueFlame register on a dynamic UAR page, which it
 * maps with MLX5_IB_MMAP_ALLOC_WC (the context has static bfregs, so libmlx5 uses the legacy mmap, not the UAR
 * ioctl) and names in CREATE_QP with MLX5_QP_FLAG_BFREG_INDEX. Checked here:
 *  - two thread domains share the first dynamic page (bfregs 0 and 1: 0x800 and 0xa00), a third gets the next
 *    page; the QP of each is registered on that page and libmlx5's mlx5dv_qp.bf.reg is that register;
 *  - traffic through those registers: RDMA WRITE and SEND, inline (BlueFlame copies) and by SGE, several ring
 *    wraps, exact completions and bytes, in both directions against a QP of the plain PD;
 *  - the kernel's mmap rules (Linux uar_mmap): a dynamic page already allocated, or past the 512 dynamic pages
 *    (MLX5_MAX_DYN_BFREGS 1024, 2 per page), is EINVAL; an unused one maps.
 */
#include <errno.h>
#include <sys/mman.h>

#include <rdma/mlx5-abi.h>

#include "etest.h"
#include "mlx5emu_debug.h"

#define MSG 64
#define ROUNDS 200 /* > 3 x the 64-entry send queue */

static int (*debug_qp)(uint32_t, struct mlx5emu_debug_qp *);

struct td_qp {
	struct ibv_td *td;
	struct ibv_pd *parent;
	struct ibv_qp *qp;
	struct mlx5emu_debug_qp dbg;
	void *bf_reg;
};

static void td_qp_create(struct td_qp *t, struct ibv_cq *cq)
{
	struct ibv_td_init_attr ta = {0};
	t->td = ibv_alloc_td(t_ctx, &ta);
	CHECK(t->td, "ibv_alloc_td: %s", strerror(errno));
	struct ibv_parent_domain_init_attr pa = {.pd = t_pd, .td = t->td};
	t->parent = ibv_alloc_parent_domain(t_ctx, &pa);
	CHECK(t->parent, "ibv_alloc_parent_domain: %s", strerror(errno));
	struct ibv_qp_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_RC;
	a.send_cq = cq;
	a.recv_cq = cq;
	a.cap.max_send_wr = 64;
	a.cap.max_recv_wr = 64;
	a.cap.max_send_sge = 2;
	a.cap.max_recv_sge = 2;
	a.cap.max_inline_data = 128;
	a.sq_sig_all = 1;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = t->parent;
	t->qp = ibv_create_qp_ex(t_ctx, &a);
	CHECK(t->qp, "create_qp_ex in a thread domain: %s", strerror(errno));
	CHECK(debug_qp(t->qp->qp_num, &t->dbg) == 0, "debug_qp");
	struct mlx5dv_qp dv;
	struct mlx5dv_obj obj = {.qp = {.in = t->qp, .out = &dv}};
	CHECK(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP) == 0, "init_obj");
	t->bf_reg = dv.bf.reg;
	CHECK(dv.bf.size == 256, "a dedicated register does BlueFlame: bf.size %u", dv.bf.size);
}

static void td_qp_destroy(struct td_qp *t)
{
	CHECK(ibv_destroy_qp(t->qp) == 0, "destroy qp");
	CHECK(ibv_dealloc_pd(t->parent) == 0, "dealloc parent domain");
	CHECK(ibv_dealloc_td(t->td) == 0, "dealloc td");
}

/* ALLOC_WC page offset for dynamic index k (rdma-core mlx5.c get_uar_mmap_offset: command in bits 8-15, index
 * bits 0-7 and, above 255, bits 16 and up) */
static off_t alloc_wc_offset(uint32_t k)
{
	uint64_t pgoff = (uint64_t)(k & 0xff) | (uint64_t)MLX5_IB_MMAP_ALLOC_WC << 8 | (uint64_t)(k >> 8) << 16;
	return (off_t)(pgoff * 4096);
}

static void one_way(struct ibv_qp *from, struct ibv_qp *to, struct ibv_cq *cq, uint8_t *src, struct ibv_mr *smr,
		    uint8_t *dst, struct ibv_mr *dmr, int round)
{
	int inl = round % 2;
	memset(src, (uint8_t)round, MSG);
	src[0] = (uint8_t)(round >> 8);
	t_post_recv(to, 1000 + (uint64_t)round, dst + MSG, MSG, dmr->lkey);
	struct ibv_sge sge = {.addr = (uintptr_t)src, .length = MSG, .lkey = smr->lkey};
	struct ibv_send_wr w = {0};
	w.wr_id = (uint64_t)round;
	w.sg_list = &sge;
	w.num_sge = 1;
	w.opcode = IBV_WR_RDMA_WRITE;
	w.send_flags = inl ? IBV_SEND_INLINE : 0;
	w.wr.rdma.remote_addr = (uintptr_t)dst;
	w.wr.rdma.rkey = dmr->rkey;
	t_post_send(from, &w);
	struct ibv_wc wc[2];
	CHECK(t_poll(cq, wc, 1, 5000) == 1, "write completion, round %d", round);
	CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RDMA_WRITE && wc[0].wr_id == (uint64_t)round,
	      "write wc status %d opcode %d wr_id %llu", wc[0].status, wc[0].opcode, (unsigned long long)wc[0].wr_id);
	CHECK(memcmp(dst, src, MSG) == 0, "written bytes, round %d", round);
	w.opcode = IBV_WR_SEND;
	w.wr_id = 500 + (uint64_t)round;
	t_post_send(from, &w);
	int got = 0, send_ok = 0, recv_ok = 0;
	uint64_t until = t_ms() + 5000;
	while (got < 2 && t_ms() < until) {
		int n = ibv_poll_cq(cq, 2 - got, wc);
		CHECK(n >= 0, "poll");
		for (int i = 0; i < n; i++) {
			CHECK(wc[i].status == IBV_WC_SUCCESS, "send/recv wc status %d", wc[i].status);
			if (wc[i].opcode == IBV_WC_SEND && wc[i].wr_id == 500 + (uint64_t)round)
				send_ok = 1;
			if (wc[i].opcode == IBV_WC_RECV && wc[i].wr_id == 1000 + (uint64_t)round && wc[i].byte_len == MSG &&
			    wc[i].qp_num == to->qp_num)
				recv_ok = 1;
		}
		got += n;
	}
	CHECK(send_ok && recv_ok, "send %d recv %d, round %d", send_ok, recv_ok, round);
	CHECK(memcmp(dst + MSG, src, MSG) == 0, "sent bytes, round %d", round);
}

int main(void)
{
	t_open();
	debug_qp = (int (*)(uint32_t, struct mlx5emu_debug_qp *))dlsym(RTLD_DEFAULT, "mlx5emu_debug_qp");
	CHECK(debug_qp, "mlx5emu_debug_qp not found (run under mlx5emu)");
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 256, NULL, NULL, 0);
	CHECK(cq, "cq");

	/* a QP on the plain PD uses a static register */
	struct ibv_qp *plain = t_qp(IBV_QPT_RC, cq, cq, NULL, 1);
	struct mlx5emu_debug_qp pd;
	CHECK(debug_qp(plain->qp_num, &pd) == 0, "debug_qp plain");

	struct td_qp t[3];
	for (int i = 0; i < 3; i++)
		td_qp_create(&t[i], cq);
	/* one dynamic page holds two registers: TD 0 and 1 share it, TD 2 opens the next (libmlx5 maps dynamic
	 * pages in order from index 0, which follow the static pages) */
	CHECK(t[0].dbg.uar_page > pd.uar_page, "TD page %u after the static page %u", t[0].dbg.uar_page, pd.uar_page);
	CHECK(t[1].dbg.uar_page == t[0].dbg.uar_page && t[2].dbg.uar_page == t[0].dbg.uar_page + 1,
	      "TD pages %u %u %u", t[0].dbg.uar_page, t[1].dbg.uar_page, t[2].dbg.uar_page);
	CHECK(t[0].dbg.bf_offset == 0x800 && t[1].dbg.bf_offset == 0xa00 && t[2].dbg.bf_offset == 0x800,
	      "TD registers 0x%x 0x%x 0x%x", t[0].dbg.bf_offset, t[1].dbg.bf_offset, t[2].dbg.bf_offset);
	for (int i = 0; i < 3; i++) {
		CHECK(t[i].dbg.create_flags & MLX5_QP_FLAG_BFREG_INDEX, "TD QP %d created with a bfreg index", i);
		CHECK(t[i].dbg.uar_page_user_va != 0 &&
			      (uint8_t *)t[i].bf_reg == (uint8_t *)(uintptr_t)t[i].dbg.uar_page_user_va + t[i].dbg.bf_offset,
		      "TD QP %d: libmlx5's register %p is the emulator's page 0x%llx + 0x%x", i, t[i].bf_reg,
		      (unsigned long long)t[i].dbg.uar_page_user_va, t[i].dbg.bf_offset);
	}

	/* traffic through each TD's register, both ways against the plain QP, across several ring wraps */
	uint8_t *abuf, *bbuf;
	struct ibv_mr *amr = t_mr(4096, T_ALL_ACCESS, (void **)&abuf);
	struct ibv_mr *bmr = t_mr(4096, T_ALL_ACCESS, (void **)&bbuf);
	for (int i = 0; i < 3; i++) {
		struct ibv_qp_attr reset = {.qp_state = IBV_QPS_RESET};
		CHECK(ibv_modify_qp(plain, &reset, IBV_QP_STATE) == 0, "reset plain");
		t_connect(t[i].qp, plain->qp_num, &t_default_conn, 1);
		t_connect(plain, t[i].qp->qp_num, &t_default_conn, 1);
		for (int r = 0; r < ROUNDS; r++) {
			one_way(t[i].qp, plain, cq, abuf, amr, bbuf, bmr, r);
			if (r % 8 == 0)
				one_way(plain, t[i].qp, cq, bbuf + 2048, bmr, abuf + 2048, amr, r);
		}
	}

	/* the mmap rules, on the context's command fd as libmlx5 uses it */
	int fd = t_ctx->cmd_fd;
	void *p = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, fd, alloc_wc_offset(0));
	CHECK(p == MAP_FAILED && errno == EINVAL, "dynamic page 0 again: %p errno %d", p, errno);
	p = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, fd, alloc_wc_offset(512));
	CHECK(p == MAP_FAILED && errno == EINVAL, "dynamic page 512 (past MLX5_MAX_DYN_BFREGS): %p errno %d", p, errno);
	p = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, fd, alloc_wc_offset(300));
	CHECK(p != MAP_FAILED, "dynamic page 300 (extended index): errno %d", errno);
	CHECK(munmap(p, 4096) == 0, "munmap");
	p = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, fd, alloc_wc_offset(300));
	CHECK(p == MAP_FAILED && errno == EINVAL, "page 300 stays allocated after munmap: %p errno %d", p, errno);

	for (int i = 0; i < 3; i++)
		td_qp_destroy(&t[i]);
	CHECK(ibv_destroy_qp(plain) == 0, "destroy plain");
	CHECK(ibv_dereg_mr(amr) == 0 && ibv_dereg_mr(bmr) == 0, "dereg");
	free(abuf);
	free(bbuf);
	CHECK(ibv_destroy_cq(cq) == 0, "destroy cq");
	CHECK(ibv_dealloc_pd(t_pd) == 0, "dealloc pd");
	CHECK(ibv_close_device(t_ctx) == 0, "close");
	printf("t_td: 3 thread domains on dynamic UAR pages, %d rounds each, mmap rules: ok\n", ROUNDS);
	return 0;
}
