/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libmlx5_raw.h - the raw Ethernet part of libmlx5_loop.c: libmlx5 on raw packet QPs, called and timed from C.
 * Same QPs, frames and completers as the Java raw benchmarks (src/main/java/io/mlx5j/bench: EmulatedRawQp,
 * RawWorkload, RawRecvCompleter, IbvRecvWrs), so each row here pairs with one there:
 *
 *   c.IbvRawPostSendBench.udpSge / udpInline   ibv_post_send of a 106-byte UDP frame given as two pieces (42-byte
 *                                              header, 64-byte payload), IBV_SEND_IP_CSUM, payload by SGE / inline
 *   c.IbvRawWrBench.udpSge / udpInline         the same through ibv_wr_start, ibv_wr_send, ibv_wr_set_sge_list /
 *                                              ibv_wr_set_inline_data_list, ibv_wr_complete
 *   c.IbvRawPollCqBench.recv1 / recv16         ibv_poll_cq of 1 / 16 raw receive CQEs + ibv_post_recv of the buffers
 *   c.IbvRawCqExBench.recv1Ts / recv16Ts       ibv_start_poll (+ ibv_next_poll), ibv_wc_read_byte_len, _wc_flags,
 *                                              _completion_ts, ibv_end_poll, ibv_post_recv; an ibv_cq_ex with
 *                                              completion timestamps
 *   c.IbvRawCqExBench.recv1Wallclock           the same reading ibv_wc_read_completion_wallclock_ns, on a CQ that also
 *                                              has IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK
 *
 * Each benchmark gets a raw packet QP of its own (send CQ, receive CQ, 256 send and receive WQEs, all receive
 * buffers posted), as each JMH benchmark does in its own fork. Needs an Ethernet port (mlx5emu --link eth) and
 * CAP_NET_RAW; on an InfiniBand port the rows are skipped.
 */
#ifndef LIBMLX5_RAW_H
#define LIBMLX5_RAW_H

#define RAW_MAX_WR 256
#define RAW_MAX_INLINE 128
#define RAW_HDR 42
#define RAW_PAYLOAD 64
#define RAW_FRAME (RAW_HDR + RAW_PAYLOAD)
#define RAW_HEADER_OFFSET 0
#define RAW_PAYLOAD_OFFSET 4096
#define RAW_RECV_OFFSET (64 * 1024)
#define RAW_RECV_BUF 2048
#define RAW_MR_BYTES (RAW_RECV_OFFSET + RAW_MAX_WR * RAW_RECV_BUF)
#define RAW_TICKS_PER_FRAME 157

/* Stands in for the NIC on a raw QP's receive CQ (see RawRecvCompleter.java for the fields and their sources). */
struct raw_completer {
	uint8_t *buf;
	uint32_t cqe_size, mask, log_cnt, uidx, producer;
	uint64_t ticks;
};

static inline void raw_complete(struct raw_completer *c, uint16_t wqe_counter, uint32_t byte_cnt)
{
	uint32_t pi = c->producer;
	struct mlx5_cqe64 *cqe = (struct mlx5_cqe64 *)(c->buf + (size_t)(pi & c->mask) * c->cqe_size +
						       c->cqe_size - sizeof(struct mlx5_cqe64));
	c->ticks += RAW_TICKS_PER_FRAME;
	cqe->hds_ip_ext = MLX5_CQE_L3_OK | MLX5_CQE_L4_OK;
	cqe->l4_hdr_type_etc = 2 << 4 | MLX5_CQE_L3_HDR_TYPE_IPV4 << 2; /* L4 UDP (PRM CQE_L4_HDR_TYPE_UDP), L3 IPv4 */
	cqe->srqn_uidx = htobe32(c->uidx & 0xffffff);
	cqe->byte_cnt = htobe32(byte_cnt);
	cqe->timestamp = htobe64(c->ticks);
	cqe->sop_drop_qpn = 0; /* no flow tag */
	cqe->wqe_counter = htobe16(wqe_counter);
	__atomic_store_n(&cqe->op_own, (uint8_t)(MLX5_CQE_RESP_SEND << 4 | ((pi >> c->log_cnt) & 1)), __ATOMIC_RELEASE);
	c->producer = pi + 1;
}

struct raw_qp {
	struct ibv_pd *pd;
	uint8_t *mem;
	struct ibv_mr *mr;
	struct ibv_cq *scq, *rcq;
	struct ibv_cq_ex *rcqx; /* the receive CQ when it is an ibv_cq_ex, else NULL */
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct completer sc;     /* send CQEs (the RC completer: requester CQEs are the same on raw QPs) */
	struct raw_completer rc; /* receive CQEs */
	uint32_t cur_post;       /* mirror of libmlx5's sq.cur_post in WQEBBs */
	uint32_t sge_wqebb, inline_wqebb;
	uint32_t next;           /* the receive slot the next frame lands in */
	struct ibv_sge sgl[2];
	struct ibv_data_buf bufs[2];
	struct ibv_send_wr sge_u, sge_s, inl_u, inl_s;
	struct ibv_sge rsge[RAW_MAX_WR];
	struct ibv_recv_wr single[RAW_MAX_WR], group[RAW_MAX_WR];
	struct ibv_wc wc[16];
};

/* one QP per benchmark (a receive benchmark's slots must start at 0, as in its own JMH fork) */
struct raw_bench {
	struct raw_qp send, poll1, poll16, ts1, ts16, wall;
};

/* The frame's header: Ethernet II to the multicast MAC of 239.1.2.3, IPv4 (DF, TTL 64, UDP, checksum), UDP port
 * 31001 to 31001, lengths for the 64-byte payload: the bytes UdpHeaderTemplate builds in EmulatedRawQp. */
static void raw_header(uint8_t *h)
{
	static const uint8_t eth[14] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03, 0x98, 0x03, 0x9b, 0x4d, 0x45, 0x00,
					 0x08, 0x00 };
	memcpy(h, eth, sizeof eth);
	uint8_t *ip = h + 14;
	const uint16_t total = 20 + 8 + RAW_PAYLOAD, udp = 8 + RAW_PAYLOAD;
	const uint8_t iph[20] = { 0x45, 0, total >> 8, total & 0xff, 0, 1, 0x40, 0, 64, 17, 0, 0,
				  10, 0, 0, 1, 239, 1, 2, 3 };
	memcpy(ip, iph, sizeof iph);
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
	const uint8_t udph[8] = { 31001 >> 8, 31001 & 0xff, 31001 >> 8, 31001 & 0xff, udp >> 8, udp & 0xff, 0, 0 };
	memcpy(h + 34, udph, sizeof udph);
}

/* RawWorkload.libmlx5Wqebb: ctrl 16 + Ethernet segment (16, 32 with the 18-byte minimum inline header) + the rest
 * as an inline segment or two data segments (rdma-core v44 providers/mlx5/qp.c, IBV_QPT_RAW_PACKET). */
static uint32_t raw_wqebb(int min_inline, int inl)
{
	uint32_t eseg = min_inline ? 32 : 16;
	uint32_t rest = inl ? (uint32_t)((4 + RAW_FRAME - min_inline + 15) & ~15) : 2 * 16;
	return (16 + eseg + rest + 63) / 64;
}

static void raw_fill_send_wr(struct ibv_send_wr *wr, struct ibv_sge *sgl, unsigned flags, int signaled)
{
	memset(wr, 0, sizeof *wr);
	wr->wr_id = signaled ? SIGNALED_WR_ID : UNSIGNALED_WR_ID;
	wr->sg_list = sgl;
	wr->num_sge = 2;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = flags | IBV_SEND_IP_CSUM | (signaled ? IBV_SEND_SIGNALED : 0);
}

static void raw_qp_open(struct raw_qp *r, struct env *e, uint64_t recv_wc_flags)
{
	memset(r, 0, sizeof *r);
	r->pd = e->pd;
	if (posix_memalign((void **)&r->mem, 4096, RAW_MR_BYTES))
		die("posix_memalign", ENOMEM);
	memset(r->mem, 0, RAW_MR_BYTES);
	raw_header(r->mem + RAW_HEADER_OFFSET);
	for (int i = 0; i < RAW_PAYLOAD; i++)
		r->mem[RAW_PAYLOAD_OFFSET + i] = (uint8_t)i;
	r->mr = ibv_reg_mr(e->pd, r->mem, RAW_MR_BYTES, IBV_ACCESS_LOCAL_WRITE);
	if (!r->mr)
		die("ibv_reg_mr (raw)", errno);
	r->scq = ibv_create_cq(e->ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!r->scq)
		die("ibv_create_cq (raw send)", errno);
	if (recv_wc_flags) {
		struct ibv_cq_init_attr_ex ca = { .cqe = CQ_DEPTH, .wc_flags = recv_wc_flags };
		r->rcqx = ibv_create_cq_ex(e->ctx, &ca);
		if (!r->rcqx)
			die("ibv_create_cq_ex (raw receive)", errno);
		r->rcq = ibv_cq_ex_to_cq(r->rcqx);
	} else {
		r->rcq = ibv_create_cq(e->ctx, CQ_DEPTH, NULL, NULL, 0);
		if (!r->rcq)
			die("ibv_create_cq (raw receive)", errno);
	}
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = r->scq,
		.recv_cq = r->rcq,
		.cap = { .max_send_wr = RAW_MAX_WR, .max_recv_wr = RAW_MAX_WR, .max_send_sge = 2, .max_recv_sge = 1,
			 .max_inline_data = RAW_MAX_INLINE },
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = e->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	r->qp = ibv_create_qp_ex(e->ctx, &attr);
	if (!r->qp)
		die("ibv_create_qp_ex (raw packet; needs CAP_NET_RAW)", errno);
	r->qpx = ibv_qp_to_qp_ex(r->qp);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int rc = ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_PORT);
	if (rc)
		die("raw RESET->INIT", rc);
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	if ((rc = ibv_modify_qp(r->qp, &a, IBV_QP_STATE)))
		die("raw INIT->RTR", rc);
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
	if ((rc = ibv_modify_qp(r->qp, &a, IBV_QP_STATE)))
		die("raw RTR->RTS", rc);

	uint32_t uidx = emulator_uidx(r->qp->qp_num);
	completer_init(&r->sc, r->scq, r->qp->qp_num, uidx);
	struct completer tmp;
	completer_init(&tmp, r->rcq, r->qp->qp_num, uidx);
	r->rc = (struct raw_completer){ .buf = tmp.buf, .cqe_size = tmp.cqe_size, .mask = tmp.mask,
					.log_cnt = tmp.log_cnt, .uidx = uidx, .ticks = 1ull << 40 };
	const char *mode = getenv("MLX5EMU_ETH_MIN_INLINE");
	int min_inline = mode && strcmp(mode, "l2") == 0 ? 18 : 0;
	r->sge_wqebb = raw_wqebb(min_inline, 0);
	r->inline_wqebb = raw_wqebb(min_inline, 1);

	uint64_t base = (uintptr_t)r->mem;
	r->sgl[0] = (struct ibv_sge){ .addr = base + RAW_HEADER_OFFSET, .length = RAW_HDR, .lkey = r->mr->lkey };
	r->sgl[1] = (struct ibv_sge){ .addr = base + RAW_PAYLOAD_OFFSET, .length = RAW_PAYLOAD, .lkey = r->mr->lkey };
	r->bufs[0] = (struct ibv_data_buf){ .addr = r->mem + RAW_HEADER_OFFSET, .length = RAW_HDR };
	r->bufs[1] = (struct ibv_data_buf){ .addr = r->mem + RAW_PAYLOAD_OFFSET, .length = RAW_PAYLOAD };
	raw_fill_send_wr(&r->sge_u, r->sgl, 0, 0);
	raw_fill_send_wr(&r->sge_s, r->sgl, 0, 1);
	raw_fill_send_wr(&r->inl_u, r->sgl, IBV_SEND_INLINE, 0);
	raw_fill_send_wr(&r->inl_s, r->sgl, IBV_SEND_INLINE, 1);

	/* every buffer slot: one WR alone, and one linked into its aligned group of 16 (IbvRecvWrs.java) */
	for (uint32_t s = 0; s < RAW_MAX_WR; s++) {
		r->rsge[s] = (struct ibv_sge){ .addr = base + RAW_RECV_OFFSET + (uint64_t)s * RAW_RECV_BUF,
					       .length = RAW_RECV_BUF, .lkey = r->mr->lkey };
		r->single[s] = (struct ibv_recv_wr){ .wr_id = s, .sg_list = &r->rsge[s], .num_sge = 1 };
		r->group[s] = (struct ibv_recv_wr){ .wr_id = s, .sg_list = &r->rsge[s], .num_sge = 1,
						    .next = (s & 15) != 15 ? &r->group[s + 1] : NULL };
		struct ibv_recv_wr *bad;
		if ((rc = ibv_post_recv(r->qp, &r->single[s], &bad)))
			die("ibv_post_recv (raw setup)", rc);
	}
}

static void raw_qp_close(struct raw_qp *r)
{
	ibv_destroy_qp(r->qp);
	ibv_destroy_cq(r->scq);
	ibv_destroy_cq(r->rcq);
	ibv_dereg_mr(r->mr);
	free(r->mem);
}

static void raw_open(struct raw_bench *rb, struct env *e)
{
	const uint64_t ts = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	raw_qp_open(&rb->send, e, 0);
	raw_qp_open(&rb->poll1, e, 0);
	raw_qp_open(&rb->poll16, e, 0);
	raw_qp_open(&rb->ts1, e, ts);
	raw_qp_open(&rb->ts16, e, ts);
	raw_qp_open(&rb->wall, e, ts | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
}

static void raw_close(struct raw_bench *rb)
{
	raw_qp_close(&rb->send);
	raw_qp_close(&rb->poll1);
	raw_qp_close(&rb->poll16);
	raw_qp_close(&rb->ts1);
	raw_qp_close(&rb->ts16);
	raw_qp_close(&rb->wall);
}

/* ---------------------------------------------------------------- send: 64 frames, the last signaled, its CQE */

static inline void raw_send_done(struct raw_qp *r, uint32_t wqebb)
{
	r->cur_post += BATCH * wqebb;
	complete(&r->sc, (uint16_t)(r->cur_post - wqebb), MLX5_OPCODE_SEND);
	int n = ibv_poll_cq(r->scq, 1, r->wc);
	if (n != 1 || r->wc[0].wr_id != SIGNALED_WR_ID || r->wc[0].status != IBV_WC_SUCCESS) {
		fprintf(stderr, "libmlx5_loop: raw send: ibv_poll_cq returned %d (wr_id 0x%llx): ring out of step "
				"(libmlx5 wrote %u WQEBBs per frame?)\n",
			n, (unsigned long long)r->wc[0].wr_id, wqebb);
		exit(1);
	}
}

static void raw_post_cycle(struct raw_qp *r, struct ibv_send_wr *u, struct ibv_send_wr *s, uint32_t wqebb)
{
	for (int i = 1; i < BATCH; i++)
		post(r->qp, u);
	post(r->qp, s);
	raw_send_done(r, wqebb);
}

static void raw_ps_sge(struct bench *b) { raw_post_cycle(&b->raw->send, &b->raw->send.sge_u, &b->raw->send.sge_s,
							 b->raw->send.sge_wqebb); }
static void raw_ps_inline(struct bench *b) { raw_post_cycle(&b->raw->send, &b->raw->send.inl_u,
							    &b->raw->send.inl_s, b->raw->send.inline_wqebb); }

static void raw_wr_cycle(struct raw_qp *r, int inl)
{
	struct ibv_qp_ex *qx = r->qpx;
	for (int i = 1; i <= BATCH; i++) {
		int signaled = i == BATCH;
		ibv_wr_start(qx);
		qx->wr_id = signaled ? SIGNALED_WR_ID : UNSIGNALED_WR_ID;
		qx->wr_flags = IBV_SEND_IP_CSUM | (signaled ? IBV_SEND_SIGNALED : 0);
		ibv_wr_send(qx);
		if (inl)
			ibv_wr_set_inline_data_list(qx, 2, r->bufs);
		else
			ibv_wr_set_sge_list(qx, 2, r->sgl);
		wr_done(qx);
	}
	raw_send_done(r, inl ? r->inline_wqebb : r->sge_wqebb);
}

static void raw_wr_sge(struct bench *b) { raw_wr_cycle(&b->raw->send, 0); }
static void raw_wr_inline(struct bench *b) { raw_wr_cycle(&b->raw->send, 1); }

/* ---------------------------------------------------------------- receive: poll, check, repost */

static void raw_bad(const char *what, uint32_t slot, uint64_t wr_id, int status, uint32_t len, unsigned flags)
{
	fprintf(stderr, "libmlx5_loop: %s: expected the %d-byte frame of receive %u with IBV_WC_IP_CSUM_OK, got wr_id "
			"%llu status %d byte_len %u wc_flags 0x%x\n",
		what, RAW_FRAME, slot, (unsigned long long)wr_id, status, len, flags);
	exit(1);
}

static inline void raw_check_wc(const struct ibv_wc *wc, uint32_t slot)
{
	if (wc->wr_id != slot || wc->status != IBV_WC_SUCCESS || wc->byte_len != RAW_FRAME ||
	    !(wc->wc_flags & IBV_WC_IP_CSUM_OK))
		raw_bad("ibv_poll_cq", slot, wc->wr_id, wc->status, wc->byte_len, wc->wc_flags);
}

static inline void raw_repost(struct raw_qp *r, struct ibv_recv_wr *wr)
{
	struct ibv_recv_wr *bad;
	int rc = ibv_post_recv(r->qp, wr, &bad);
	if (rc)
		die("ibv_post_recv", rc);
}

static volatile uint64_t raw_sink;

static void raw_poll_cycle(struct raw_qp *r, int n)
{
	uint32_t first = r->next;
	for (int i = 0; i < n; i++)
		raw_complete(&r->rc, (uint16_t)(first + i), RAW_FRAME);
	int got = ibv_poll_cq(r->rcq, n, r->wc);
	if (got != n) {
		fprintf(stderr, "libmlx5_loop: raw ibv_poll_cq returned %d of %d\n", got, n);
		exit(1);
	}
	uint64_t sum = 0;
	for (int i = 0; i < n; i++) {
		raw_check_wc(&r->wc[i], first + (uint32_t)i);
		sum += r->wc[i].byte_len;
	}
	raw_repost(r, n == 1 ? &r->single[first] : &r->group[first]);
	r->next = (first + (uint32_t)n) & (RAW_MAX_WR - 1);
	raw_sink = sum;
}

static void raw_poll1(struct bench *b) { raw_poll_cycle(&b->raw->poll1, 1); }
static void raw_poll16(struct bench *b) { raw_poll_cycle(&b->raw->poll16, 16); }

static inline uint64_t raw_read(struct ibv_cq_ex *cq, uint32_t slot, int wallclock)
{
	uint32_t len = ibv_wc_read_byte_len(cq);
	unsigned flags = ibv_wc_read_wc_flags(cq);
	uint64_t stamp = wallclock ? ibv_wc_read_completion_wallclock_ns(cq) : ibv_wc_read_completion_ts(cq);
	if (cq->wr_id != slot || cq->status != IBV_WC_SUCCESS || len != RAW_FRAME || !(flags & IBV_WC_IP_CSUM_OK))
		raw_bad("ibv_start_poll", slot, cq->wr_id, cq->status, len, flags);
	return stamp;
}

static void raw_ex_cycle(struct raw_qp *r, int n, int wallclock)
{
	uint32_t first = r->next;
	for (int i = 0; i < n; i++)
		raw_complete(&r->rc, (uint16_t)(first + i), RAW_FRAME);
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	int rc = ibv_start_poll(r->rcqx, &attr);
	uint64_t sum = 0;
	for (int i = 0;; i++) {
		if (rc) {
			fprintf(stderr, "libmlx5_loop: ibv_start_poll/ibv_next_poll: %d at frame %d of %d\n", rc, i, n);
			exit(1);
		}
		sum += raw_read(r->rcqx, first + (uint32_t)i, wallclock);
		if (i == n - 1)
			break;
		rc = ibv_next_poll(r->rcqx);
	}
	ibv_end_poll(r->rcqx);
	raw_repost(r, n == 1 ? &r->single[first] : &r->group[first]);
	r->next = (first + (uint32_t)n) & (RAW_MAX_WR - 1);
	raw_sink = sum;
}

static void raw_ex1(struct bench *b) { raw_ex_cycle(&b->raw->ts1, 1, 0); }
static void raw_ex16(struct bench *b) { raw_ex_cycle(&b->raw->ts16, 16, 0); }
static void raw_ex1_wall(struct bench *b) { raw_ex_cycle(&b->raw->wall, 1, 1); }

#endif
