/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libmlx5_striding.h - the striding RQ part of libmlx5_loop.c: the C counterpart of StridingRecvBench.recv1.
 *
 *   c.IbvStridingRecvBench.recv1   one frame received on a striding (multi-packet) WQ, the way a C program on
 *                                  libmlx5 v44 has to do it
 *
 * What libmlx5 v44 offers for a striding WQ (rdma-core v44.12 providers/mlx5), and so what this row does:
 *   - creating it: mlx5dv_create_wq with MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ (verbs.c mlx5_create_wq), then
 *     ibv_modify_wq to RDY; mlx5dv_init_obj(MLX5DV_OBJ_RWQ) hands out the ring and its doorbell record;
 *   - posting: nothing usable. mlx5_post_wq_recv (qp.c), behind ibv_post_wq_recv, writes the scatter entry at the
 *     start of the WQE (get_wq_recv_wqe), where a striding WQE has its 16-byte next segment; the data segment the
 *     device reads (struct mlx5_mprq_wqe, mlx5dv.h) stays unwritten. So this program builds the WQE itself with the
 *     header's struct mlx5_mprq_wqe and mlx5dv_set_data_seg and publishes it in the doorbell record, as DPDK's mlx5
 *     PMD does for its MPRQ and as mlx5j's StridingRecvQueue does (WqRecvParityTest judges that layout);
 *   - polling: ibv_start_poll / ibv_next_poll / ibv_end_poll on an ibv_cq_ex work, but have no striding decoder
 *     (cq.c): every RESP_SEND CQE of an RWQ advances libmlx5's rq.tail and reports wrid[tail] (handle_responder /
 *     handle_responder_lazy), so wr_id is meaningless after the first frame; ibv_wc_read_byte_len returns the whole
 *     byte_cnt word (length | consumed strides << 16 | filler << 31); and no reader returns wqe_counter, the stride
 *     index the frame starts at. A filler CQE comes out as an ordinary completion. This program therefore decodes
 *     length, stride count and filler from byte_len, keeps the stride cursor and the WQE index itself (the device
 *     fills strides in order, so the cursor equals the stride index mlx5j reads from the CQE, but it cannot be
 *     checked against the CQE here), and reads the timestamp with ibv_wc_read_completion_ts.
 *
 * The same work as StridingRecvBench.recv1: a 1023-entry CQ, a WQ of 16 WQEs of 32 strides of 64 bytes with the
 * two-byte shift, each WQE's buffer 2 KiB apart in one registered 1 MiB area; per op one frame of 1..4 strides
 * (cycling), preceded by a filler CQE for the strides left when the frame does not fit; the CQEs written as that
 * benchmark's Injector writes them (the 64 bytes zeroed; L2/L3/L4 OK, UDP over IPv4, byte_cnt, timestamp 1000 +
 * CQE number, flow tag 0x77 in sop_drop_qpn, wqe_counter = stride index, op_own stored last with release), plus the
 * WQ's user index in srqn_uidx, which libmlx5 needs to find the WQ (cqe_version 1) and mlx5j does not read; one poll
 * call (start, next for a filler, end) per frame; a WQE whose strides are all consumed is posted again at once with
 * the same buffer (doorbell record), as StridingRecvQueue.of(wq, true) recycles it; the result is the frame's address
 * plus its timestamp. What differs: libmlx5 is called per CQE through its function pointers, and the stride index is
 * the program's cursor instead of a field read and checked.
 */
#ifndef LIBMLX5_STRIDING_H
#define LIBMLX5_STRIDING_H

#define STR_WQES 16
#define STR_LOG_STRIDE_BYTES 6
#define STR_LOG_STRIDES 5
#define STR_STRIDE_BYTES (1u << STR_LOG_STRIDE_BYTES)
#define STR_STRIDES (1u << STR_LOG_STRIDES)
#define STR_SHIFT 2 /* two_byte_shift_en: the device writes each frame 2 bytes into its first stride */
#define STR_CQE 1023
#define STR_MR_BYTES (1u << 20)
#define STR_FILLER 0x80000000u
/* consumed strides, byte_cnt[29:16] shifted down (DPDK mlx5_prm.h: MLX5_MPRQ_STRIDE_NUM_MASK 0x3fff0000, shift 16) */
#define STR_STRIDES_MASK 0x3fffu

struct striding {
	uint8_t *mem;
	struct ibv_mr *mr;
	struct ibv_cq_ex *cqx;
	struct ibv_wq *wq;
	uint8_t *ring;          /* the WQ's ring (mlx5dv_rwq.buf), WQEs of wqe_bytes */
	__be32 *dbrec;
	uint32_t wqe_bytes, wqe_mask;
	uint32_t head, tail;    /* WQEs posted, released */
	uint32_t cursor;        /* strides of the oldest WQE consumed */
	uint32_t frame;         /* frames injected: decides the next frame's stride count */
	uint64_t addr[STR_WQES];
	/* the injector (StridingRecvBench.Injector) */
	uint8_t *cq_buf;
	uint32_t cqe_size, cq_mask, uidx, produced;
};

static void str_write_wqe(struct striding *s, uint32_t slot, uint64_t addr)
{
	struct mlx5_mprq_wqe *w = (struct mlx5_mprq_wqe *)(s->ring + (size_t)slot * s->wqe_bytes);
	memset(w, 0, s->wqe_bytes); /* next segment unused on a cyclic WQ; no further data segments */
	mlx5dv_set_data_seg(&w->dseg, STR_STRIDES * STR_STRIDE_BYTES, s->mr->lkey, addr);
	s->addr[slot] = addr;
}

static inline void str_ring(struct striding *s)
{
	/* the WQE before the counter that publishes it (mlx5_post_wq_recv: udma_to_device_barrier, then the record) */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*s->dbrec = htobe32(s->head & 0xffff);
}

static void str_open(struct striding *s, struct env *e)
{
	memset(s, 0, sizeof *s);
	if (posix_memalign((void **)&s->mem, 4096, STR_MR_BYTES))
		die("posix_memalign", ENOMEM);
	memset(s->mem, 0, STR_MR_BYTES);
	s->mr = ibv_reg_mr(e->pd, s->mem, STR_MR_BYTES, IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr)
		die("ibv_reg_mr (striding)", errno);
	struct ibv_cq_init_attr_ex ca = { .cqe = STR_CQE,
					  .wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };
	s->cqx = ibv_create_cq_ex(e->ctx, &ca);
	if (!s->cqx)
		die("ibv_create_cq_ex (striding)", errno);

	/* The WQ's user index, which no API returns: libmlx5 gives every QP and WQ the lowest free index
	 * (mlx5.c get_free_uidx / mlx5_store_uidx) and frees it on destroy (mlx5_clear_uidx), so a QP created and
	 * destroyed just before the WQ shows the index the WQ then gets; the emulator reports that QP's. */
	struct ibv_qp *probe = create_qp(e, e->cq_a);
	s->uidx = emulator_uidx(probe->qp_num);
	int rc = ibv_destroy_qp(probe);
	if (rc)
		die("ibv_destroy_qp (uidx probe)", rc);

	struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ, .max_wr = STR_WQES, .max_sge = 1, .pd = e->pd,
				       .cq = ibv_cq_ex_to_cq(s->cqx) };
	struct mlx5dv_wq_init_attr dv = {
		.comp_mask = MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ,
		.striding_rq_attrs = { .single_stride_log_num_of_bytes = STR_LOG_STRIDE_BYTES,
				       .single_wqe_log_num_of_strides = STR_LOG_STRIDES, .two_byte_shift_en = 1 },
	};
	s->wq = mlx5dv_create_wq(e->ctx, &wa, &dv);
	if (!s->wq)
		die("mlx5dv_create_wq (striding)", errno);
	/* and the check: index u is now taken, by the WQ (a second probe would get u again if the WQ had not) */
	probe = create_qp(e, e->cq_a);
	uint32_t after = emulator_uidx(probe->qp_num);
	if ((rc = ibv_destroy_qp(probe)))
		die("ibv_destroy_qp (uidx probe)", rc);
	if (after == s->uidx) {
		fprintf(stderr, "libmlx5_loop: the striding WQ did not get user index %u\n", s->uidx);
		exit(1);
	}
	struct ibv_wq_attr ma = { .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY };
	if ((rc = ibv_modify_wq(s->wq, &ma)))
		die("ibv_modify_wq (striding, RDY)", rc);
	struct mlx5dv_rwq rwq;
	struct mlx5dv_obj obj = { .rwq = { .in = s->wq, .out = &rwq } };
	if ((rc = mlx5dv_init_obj(&obj, MLX5DV_OBJ_RWQ)))
		die("mlx5dv_init_obj(RWQ)", rc);
	if (rwq.wqe_cnt != STR_WQES || rwq.stride < sizeof(struct mlx5_mprq_wqe)) {
		fprintf(stderr, "libmlx5_loop: striding WQ of %u WQEs of %u bytes, want %u of >= %zu\n", rwq.wqe_cnt,
			rwq.stride, STR_WQES, sizeof(struct mlx5_mprq_wqe));
		exit(1);
	}
	s->ring = rwq.buf;
	s->dbrec = rwq.dbrec;
	s->wqe_bytes = rwq.stride;
	s->wqe_mask = rwq.wqe_cnt - 1;
	for (uint32_t i = 0; i < STR_WQES; i++)
		str_write_wqe(s, i, (uintptr_t)s->mem + (uint64_t)i * STR_STRIDES * STR_STRIDE_BYTES);
	s->head = STR_WQES;
	str_ring(s);

	struct completer tmp;
	completer_init(&tmp, ibv_cq_ex_to_cq(s->cqx), 0, s->uidx);
	s->cq_buf = tmp.buf;
	s->cqe_size = tmp.cqe_size;
	s->cq_mask = tmp.mask;
}

static void str_close(struct striding *s)
{
	ibv_destroy_wq(s->wq);
	ibv_destroy_cq(ibv_cq_ex_to_cq(s->cqx));
	ibv_dereg_mr(s->mr);
	free(s->mem);
}

/* StridingRecvBench.Injector.put, plus srqn_uidx */
static inline void str_put(struct striding *s, uint32_t stride_index, uint32_t byte_cnt)
{
	uint32_t pi = s->produced;
	uint8_t *slot = s->cq_buf + (size_t)(pi & s->cq_mask) * s->cqe_size;
	struct mlx5_cqe64 *cqe = (struct mlx5_cqe64 *)(slot + s->cqe_size - sizeof(struct mlx5_cqe64));
	memset(cqe, 0, sizeof *cqe);
	cqe->hds_ip_ext = MLX5_CQE_L2_OK | MLX5_CQE_L3_OK | MLX5_CQE_L4_OK;
	cqe->l4_hdr_type_etc = 2 << 4 | MLX5_CQE_L3_HDR_TYPE_IPV4 << 2; /* L4 UDP (PRM CQE_L4_HDR_TYPE_UDP), L3 IPv4 */
	cqe->srqn_uidx = htobe32(s->uidx & 0xffffff);
	cqe->byte_cnt = htobe32(byte_cnt);
	cqe->timestamp = htobe64(1000ull + pi);
	cqe->sop_drop_qpn = htobe32(0x77);
	cqe->wqe_counter = htobe16((uint16_t)stride_index);
	__atomic_store_n(&cqe->op_own, (uint8_t)(MLX5_CQE_RESP_SEND << 4 | ((pi / (s->cq_mask + 1)) & 1)),
			 __ATOMIC_RELEASE);
	s->produced = pi + 1;
}

/* All strides of the oldest WQE consumed: post it again with the same buffer (StridingRecvQueue, recycling). */
static inline void str_release(struct striding *s)
{
	uint32_t slot = s->tail & s->wqe_mask;
	s->tail++;
	s->cursor = 0;
	uint32_t to = s->head & s->wqe_mask;
	if (to != slot)
		str_write_wqe(s, to, s->addr[slot]);
	s->head++;
	str_ring(s);
}

static void str_bad(const char *what, uint32_t byte_len, int status)
{
	fprintf(stderr, "libmlx5_loop: striding %s: byte_len 0x%08x status %d\n", what, byte_len, status);
	exit(1);
}

static volatile uint64_t str_sink;

static void str_recv1(struct bench *b)
{
	struct striding *s = b->str;
	const uint32_t strides = 1 + (s->frame++ & 3);
	const int filler = s->cursor + strides > STR_STRIDES;
	if (filler)
		str_put(s, s->cursor, STR_FILLER | (STR_STRIDES - s->cursor) << 16);
	str_put(s, filler ? 0 : s->cursor, (strides * STR_STRIDE_BYTES - STR_SHIFT) | strides << 16);

	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	int rc = ibv_start_poll(s->cqx, &attr);
	if (rc)
		die("ibv_start_poll (striding)", rc);
	uint32_t bl = ibv_wc_read_byte_len(s->cqx);
	if (bl & STR_FILLER) {
		/* the rest of the WQE is skipped: it is done */
		if (s->cqx->status != IBV_WC_SUCCESS || ((bl >> 16) & STR_STRIDES_MASK) != STR_STRIDES - s->cursor)
			str_bad("filler", bl, s->cqx->status);
		str_release(s);
		if ((rc = ibv_next_poll(s->cqx)))
			die("ibv_next_poll (striding)", rc);
		bl = ibv_wc_read_byte_len(s->cqx);
	}
	const uint32_t n = (bl >> 16) & STR_STRIDES_MASK;
	if (s->cqx->status != IBV_WC_SUCCESS || (bl & STR_FILLER) || n != strides ||
	    (bl & 0xffff) != strides * STR_STRIDE_BYTES - STR_SHIFT || s->cursor + n > STR_STRIDES)
		str_bad("frame", bl, s->cqx->status);
	const uint64_t frame = s->addr[s->tail & s->wqe_mask] + (uint64_t)s->cursor * STR_STRIDE_BYTES + STR_SHIFT;
	const uint64_t ts = ibv_wc_read_completion_ts(s->cqx);
	ibv_end_poll(s->cqx);
	s->cursor += n;
	if (s->cursor == STR_STRIDES)
		str_release(s);
	str_sink = frame + ts;
}

#endif
