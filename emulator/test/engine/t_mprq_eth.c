/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_mprq_eth.c - striding RQ (multi-packet RQ): mlx5dv_create_wq with MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ behind an
 * RSS QP, WQEs written as struct mlx5_mprq_wqe through mlx5dv_init_obj (libmlx5's ibv_post_wq_recv does not build
 * them), and the CQEs read raw. libmlx5 v44 has no decoder for these CQEs, so the judge is a decoder written here
 * from DPDK's mlx5 PMD (drivers/net/mlx5/mlx5_rx.c mlx5_rx_burst_mprq and the MLX5_MPRQ_* masks in mlx5_prm.h):
 * byte_cnt = length [15:0] | strides consumed [29:16] | filler [31], wqe_counter = stride index, wqe_id = WQE
 * index, packet at stride * stride_size (+2 with the two-byte shift); a WQE is done when its strides are consumed.
 */
#include "rss_common.h"

#include <stddef.h>

#define LOG_STRIDE 6            /* 64-byte strides */
#define LOG_NSTRIDES 3          /* 8 strides per WQE */
#define NSTRIDES (1u << LOG_NSTRIDES)
#define STRIDE (1u << LOG_STRIDE)
#define NWQE 8

/* the offsets the decoder reads, as rdma-core names them (wqe_id, byte_cnt, wqe_counter, op_own) */
_Static_assert(offsetof(struct mlx5_cqe64, wqe_id) == 2 && offsetof(struct mlx5_cqe64, byte_cnt) == 44 &&
	       offsetof(struct mlx5_cqe64, wqe_counter) == 60 && offsetof(struct mlx5_cqe64, op_own) == 63, "CQE layout");

struct dec_state { uint32_t cq_ci, rq_ci, consumed; };

/* One step of the decoder: returns 0 when no CQE is there, 1 for a filler, 2 for a packet (*len, *data). */
static int decode(struct t_rawcq *rc, volatile __be32 *cq_dbrec, struct dec_state *s, uint8_t *const *bufs,
		  uint32_t *len, const uint8_t **data, int shift)
{
	const uint8_t *c = (const uint8_t *)t_cqe64(rc, s->cq_ci);
	uint32_t log_cnt = (uint32_t)__builtin_ctz(rc->cqe_cnt);
	uint8_t op_own = c[63];
	if ((op_own & 1) != ((s->cq_ci >> log_cnt) & 1) || (op_own >> 4) == 0xf)
		return 0;
	udma_from_device_barrier(); /* else the CQE's body could be read from before the engine's op_own store */
	CHECK((op_own >> 4) == MLX5_CQE_RESP_SEND, "CQE opcode %d", op_own >> 4);
	uint32_t bc = be32toh(*(const uint32_t *)(c + 44));
	uint32_t strides = (bc & 0x3fff0000) >> 16, l = bc & 0xffff;
	uint16_t stride_idx = be16toh(*(const uint16_t *)(c + 60)), wqe_id = be16toh(*(const uint16_t *)(c + 2));
	CHECK(strides > 0, "zero strides");
	CHECK(wqe_id == (s->rq_ci & (NWQE - 1)) || wqe_id == (uint16_t)s->rq_ci, "wqe_id %u, decoder at WQE %u", wqe_id, s->rq_ci);
	CHECK(stride_idx == s->consumed, "stride index %u, decoder at stride %u", stride_idx, s->consumed);
	int ret;
	if (bc & 0x80000000u) {
		ret = 1;
	} else {
		*len = l;
		*data = bufs[s->rq_ci % NWQE] + (size_t)stride_idx * STRIDE + (shift ? 2 : 0);
		ret = 2;
	}
	s->consumed += strides;
	CHECK(s->consumed <= NSTRIDES, "consumed %u strides of %u", s->consumed, NSTRIDES);
	if (s->consumed == NSTRIDES) {
		s->consumed = 0;
		s->rq_ci++;
	}
	s->cq_ci++;
	cq_dbrec[0] = htobe32(s->cq_ci & 0xffffff);
	return ret;
}

static int next_cqe(struct t_rawcq *rc, volatile __be32 *dbrec, struct dec_state *s, uint8_t *const *bufs,
		    uint32_t *len, const uint8_t **data, int shift)
{
	uint64_t end = t_ms() + 5000;
	int r;
	while (!(r = decode(rc, dbrec, s, bufs, len, data, shift)) && t_ms() < end) {
		ibv_poll_cq(g_txcq, 0, NULL); /* lend the engine a cycle */
		usleep(100);
	}
	return r;
}

static void run(int shift, int bad_bcount)
{
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	struct mlx5dv_wq_init_attr dv = { .comp_mask = MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ };
	dv.striding_rq_attrs.single_stride_log_num_of_bytes = LOG_STRIDE;
	dv.striding_rq_attrs.single_wqe_log_num_of_strides = LOG_NSTRIDES;
	dv.striding_rq_attrs.two_byte_shift_en = (uint8_t)shift;
	struct ibv_wq *wq = make_wq(cq, NWQE, &dv);
	struct ibv_wq *tbl[1] = { wq };
	struct ibv_rwq_ind_table_init_attr ta = { .log_ind_tbl_size = 0, .ind_tbl = tbl };
	struct ibv_rwq_ind_table *t = ibv_create_rwq_ind_table(t_ctx, &ta);
	CHECK(t, "table");
	uint8_t key[40] = { 0 };
	struct ibv_qp *qp = make_rss_qp(t, 0, key);
	struct ibv_flow *fl = flow_to(qp);

	/* the WQ's ring through mlx5dv: one mlx5_mprq_wqe per WQE, each owning NSTRIDES * STRIDE bytes */
	struct mlx5dv_rwq rwq;
	struct mlx5dv_obj o;
	memset(&o, 0, sizeof o);
	o.rwq.in = wq;
	o.rwq.out = &rwq;
	CHECK(mlx5dv_init_obj(&o, MLX5DV_OBJ_RWQ) == 0, "init_obj rwq");
	CHECK(rwq.wqe_cnt == NWQE && rwq.stride >= sizeof(struct mlx5_mprq_wqe), "rwq %u x %u", rwq.wqe_cnt, rwq.stride);
	uint8_t *mem;
	struct ibv_mr *mr = t_mr((size_t)NWQE * NSTRIDES * STRIDE, IBV_ACCESS_LOCAL_WRITE, (void **)&mem);
	memset(mem, 0xee, (size_t)NWQE * NSTRIDES * STRIDE);
	uint8_t *bufs[NWQE];
	for (int i = 0; i < NWQE; i++) {
		bufs[i] = mem + (size_t)i * NSTRIDES * STRIDE;
		struct mlx5_mprq_wqe *w = (void *)((uint8_t *)rwq.buf + (size_t)i * rwq.stride);
		memset(w, 0, sizeof *w);
		w->dseg.byte_count = htobe32(NSTRIDES * STRIDE - (bad_bcount && i == 0 ? STRIDE : 0));
		w->dseg.lkey = htobe32(mr->lkey);
		w->dseg.addr = htobe64((uintptr_t)bufs[i]);
	}
	udma_to_device_barrier(); /* else the engine could take a striding WQE before its bytes */
	rwq.dbrec[0] = htobe32(NWQE);

	struct t_rawcq rc;
	t_rawcq(cq, &rc);
	struct mlx5dv_cq dcq;
	memset(&o, 0, sizeof o);
	o.cq.in = cq;
	o.cq.out = &dcq;
	CHECK(mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ) == 0, "init_obj cq");
	struct dec_state s = { 0, 0, 0 };

	/* sizes chosen to fill WQE 0 exactly (1 + 2 + 5 strides), then leave 4 strides of WQE 1 that a 5-stride frame
	 * does not fit: a filler consumes them and the frame goes to stride 0 of WQE 2 */
	const size_t sizes[] = { 60, 100, 300, 200, 300, 60, 60 };
	const int fillers_before[] = { 0, 0, 0, 0, 1, 0, 0 };
	uint8_t fr[512];
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		uint8_t src[4] = { 10, 1, 1, (uint8_t)k }, dst[4] = { 10, 1, 2, 2 };
		size_t len = ip4_frame(fr, sizes[k], 17, src, dst, (uint16_t)(4000 + k), 9);
		send_frame(fr, len);
		uint32_t l = 0;
		const uint8_t *data = NULL;
		for (int f = 0; f < fillers_before[k]; f++) {
			uint32_t at_wqe = s.rq_ci, at_stride = s.consumed;
			CHECK(next_cqe(&rc, dcq.dbrec, &s, bufs, &l, &data, shift) == 1, "frame %zu: filler expected", k);
			CHECK(at_wqe == 1 && at_stride == 4 && s.rq_ci == 2 && s.consumed == 0,
			      "filler at WQE %u stride %u", at_wqe, at_stride);
		}
		uint32_t at_wqe = s.rq_ci, at_stride = s.consumed;
		CHECK(next_cqe(&rc, dcq.dbrec, &s, bufs, &l, &data, shift) == 2, "frame %zu: packet CQE expected", k);
		CHECK(l == len && memcmp(data, fr, len) == 0, "frame %zu: %u bytes at WQE %u stride %u", k, l, at_wqe,
		      at_stride);
		if (shift) /* the two bytes before the packet are not written */
			CHECK(data[-1] == 0xee && data[-2] == 0xee, "frame %zu: shift bytes written", k);
	}
	/* where the decoder ended: WQE 2 holds the 300-byte frame (5 strides) and two 60-byte frames (1 stride each) */
	CHECK(s.rq_ci == 2 && s.consumed == 7, "decoder at WQE %u stride %u", s.rq_ci, s.consumed);

	CHECK(ibv_destroy_flow(fl) == 0, "destroy flow");
	CHECK(ibv_destroy_qp(qp) == 0, "destroy qp");
	CHECK(ibv_destroy_rwq_ind_table(t) == 0, "destroy table");
	CHECK(ibv_destroy_wq(wq) == 0, "destroy wq");
	CHECK(ibv_destroy_cq(cq) == 0, "destroy cq");
	CHECK(ibv_dereg_mr(mr) == 0, "dereg");
	free(mem);
}

int main(void)
{
	t_open();
	CHECK(t_port.link_layer == IBV_LINK_LAYER_ETHERNET, "needs --link eth");
	tx_init();
	run(0, 0);
	run(1, 0);
	CHECK(t_violations() == 0, "strict violations");
	/* strict mode: a WQE whose data segment does not cover its strides is one violation (the frame still lands) */
	run(0, 1);
	CHECK(t_violations() == 1, "%lu strict violations, 1 expected (WQE 0's byte_count)", t_violations());
	printf("t_mprq_eth: stride placement, consumed strides, filler CQEs, with and without the two-byte shift\n");
	return 0;
}
