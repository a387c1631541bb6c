/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_wq.c - receive WQs and RSS QPs in the engine (see eng_wq.h).
 *
 * Plain WQ: a WQE is data segments like a QP's RQ (libmlx5 mlx5_post_wq_recv), the CQE carries the WQ's user
 * index (libmlx5 finds the WQ and its wr_id through it) and wqe_counter = the WQE index.
 *
 * Striding WQ (multi-packet RQ): a WQE is struct mlx5_mprq_wqe (mlx5dv.h: a 16-byte next segment, then one data
 * segment for a buffer of 2^log_num_strides strides of 2^log_stride_bytes). Packets are placed at the next free
 * stride, 2 bytes into it with two_byte_shift_en, and use whole strides. The CQE's byte_cnt holds the packet
 * length in bits 15:0, the strides consumed in bits 29:16 and the filler flag in bit 31; wqe_counter holds the first
 * stride's index and wqe_id the WQE's index (DPDK drivers/net/mlx5 mlx5_rx.c, mlx5_rx_burst_mprq, and its
 * MLX5_MPRQ_* masks). A packet that does not fit in the strides left in the WQE gets a filler CQE that consumes
 * them, and goes to stride 0 of the next WQE. libmlx5 v44 has no decoder for these CQEs (cq.c): applications
 * read them through mlx5dv, as DPDK does.
 */
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "rss_wq.h"
#include "engine/eng_frame.h"
#include "engine/eng_internal.h"
#include "engine/eng_rss.h"
#include "engine/eng_wq.h"

#define MPRQ_FILLER (1u << 31)

struct eng_wq {
	struct emu_wq *w;
	uint8_t *buf;
	uint32_t cnt, shift;
	volatile uint32_t *dbrec;
	uint32_t ci;        /* WQEs consumed (16-bit compare with the doorbell record) */
	uint32_t stride;    /* striding: next free stride of WQE ci */
	int state;
};

void emu_engine_wq_created(struct emu_wq *w)
{
	struct eng_wq *e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->w = w;
	e->buf = (uint8_t *)(uintptr_t)w->buf;
	e->cnt = w->wqe_cnt;
	e->shift = w->wqe_shift;
	e->dbrec = (volatile uint32_t *)(uintptr_t)w->dbrec;
	e->state = EMU_WQS_RESET;
	pthread_mutex_lock(&G.lock);
	w->engine = e;
	pthread_mutex_unlock(&G.lock);
}

void emu_engine_wq_modified(struct emu_wq *w, int old_state)
{
	pthread_mutex_lock(&G.lock);
	struct eng_wq *e = w->engine;
	if (e) {
		emu_lock();
		e->state = w->state;
		emu_unlock();
		if (e->state == EMU_WQS_RESET || old_state == EMU_WQS_RESET) {
			e->ci = 0; /* libmlx5 zeroes the doorbell record when it takes the WQ out of RESET */
			e->stride = 0;
		}
	}
	pthread_mutex_unlock(&G.lock);
}

void emu_engine_wq_destroying(struct emu_wq *w)
{
	pthread_mutex_lock(&G.lock);
	free(w->engine);
	w->engine = NULL;
	pthread_mutex_unlock(&G.lock);
}

static uint32_t avail(const struct eng_wq *e)
{
	/* the striding WQEs counted here are read after the record: none still being written is taken */
	uint32_t pi = udma_device_load_dbrec(e->dbrec);
	return (pi - e->ci) & 0xffff;
}

static uint32_t strides_for(const struct emu_wq *w, size_t len)
{
	size_t sz = (size_t)1 << w->log_stride_bytes, need = len + (w->two_byte_shift ? 2 : 0);
	return (uint32_t)((need + sz - 1) / sz);
}

/* The WQ the frame hashes to, its hash and hash type. */
static struct eng_wq *pick(const struct eng_qp *qp, const uint8_t *f, size_t len, uint32_t *hash, uint8_t *type)
{
	const struct emu_rss_qp *r = qp->q->rss;
	*hash = eng_rss_hash_frame(r->key, r->fields_mask, f, len, type);
	struct emu_wq *w = r->ind_tbl->wqs[*hash & ((1u << r->ind_tbl->log_size) - 1)];
	return w->engine;
}

enum eng_rx_wait eng_rss_ready(const struct eng_qp *qp, const uint8_t *f, size_t len)
{
	uint32_t h;
	uint8_t t;
	struct eng_wq *e = pick(qp, f, len, &h, &t);
	if (!e || e->state != EMU_WQS_RDY)
		return ENG_RX_READY; /* dropped at delivery: nothing to wait for */
	uint32_t n = avail(e), cqes = 1;
	if (!n)
		return ENG_RX_NO_WQE;
	if (e->w->is_mprq) {
		if (len >= 14 && f[12] == 0x81 && f[13] == 0x00 && (e->w->create_flags & IBV_WQ_FLAGS_CVLAN_STRIPPING))
			len -= 4; /* placed without its 802.1Q tag */
		uint32_t need = strides_for(e->w, len), total = 1u << e->w->log_num_strides;
		if (need > total)
			return ENG_RX_READY; /* dropped at delivery */
		if (e->stride + need > total) {
			if (n < 2)
				return ENG_RX_NO_WQE; /* a filler ends WQE ci, the frame needs the next one */
			cqes = 2;
		}
	}
	/* A driver may repost a WQE before it stores the CQ consumer index that frees the CQEs of the WQE's strides:
	 * DPDK 22.11's vectorized striding-RQ Rx stores the RQ doorbell record in rxq_copy_mprq_mbuf_v and the CQ's
	 * only after, in mlx5_rx_burst_mprq_vec, and sizes the CQ for exactly the strides posted (mlx5_rxq_cqe_num).
	 * A ConnectX, which learns of the WQE by reading the record over PCIe, sees the two stores nanoseconds apart
	 * on the PMD's dedicated core; this engine runs while the PMD's thread is descheduled between them (measured
	 * under testpmd.sh: the CQ record 1 to 10 CQEs behind for up to over 4 ms) and would overrun the CQ. So the
	 * frame waits for the free slot as it waits for a WQE, bounded alike; after that it overruns the CQ. */
	return eng_cq_has_room(e->w->cq->engine, cqes) ? ENG_RX_READY : ENG_RX_NO_CQE;
}

static void wq_error(struct eng_wq *e, struct eng_cq *cq, uint8_t synd)
{
	struct eng_cqe_info ci = { .opcode = MLX5_CQE_RESP_ERR, .syndrome = synd, .wqe_counter = (uint16_t)e->ci,
				   .srqn_uidx = e->w->uidx };
	if (cq)
		eng_write_cqe(cq, &ci, 1);
	e->state = EMU_WQS_ERR; /* the RQ moves to error, as a QP's receive queue does */
	emu_lock();
	e->w->state = EMU_WQS_ERR;
	emu_unlock();
}

/* Copy the frame to dst, without its 802.1Q tag when stripping. */
static void put_frame(uint8_t *dst, const uint8_t *f, size_t out, int strip)
{
	if (!strip) {
		memcpy(dst, f, out);
		return;
	}
	memcpy(dst, f, 12);
	memcpy(dst + 12, f + 16, out - 12);
}

void eng_rss_deliver(struct eng_qp *qp, const uint8_t *f, size_t len, const struct emu_frame_info *fi, uint32_t tag)
{
	uint32_t hash;
	uint8_t htype;
	struct eng_wq *e = pick(qp, f, len, &hash, &htype);
	if (!e || e->state != EMU_WQS_RDY || !avail(e))
		return; /* an RQ that is not ready or has no WQE drops the packet */
	struct emu_wq *w = e->w;
	struct eng_cq *cq = w->cq->engine;
	if (!cq)
		return;
	int strip = fi->has_vlan && (w->create_flags & IBV_WQ_FLAGS_CVLAN_STRIPPING);
	size_t out = strip ? len - 4 : len;
	struct eng_cqe_info ci = {
		.opcode = MLX5_CQE_RESP_SEND, .srqn_uidx = w->uidx,
		.qpn = tag & 0xffffff, /* the flow tag, as for a raw QP's receive (eng_eth.c) */
		.hds_ip_ext = (uint8_t)(ENG_CQE_L2_OK | eng_frame_rx_ok(f, fi)),
		.l4_hdr_type_etc = (uint8_t)(eng_frame_hdr_types(fi) | (strip ? 1 : 0)),
		.vlan_info = strip ? fi->vlan_tci : 0,
		.rss_hash = hash, .rss_hash_type = htype,
		.check_sum = eng_frame_rx_csum(f, len, fi),
	};
	uint8_t *wqe = e->buf + ((size_t)(e->ci & (e->cnt - 1)) << e->shift);

	if (!w->is_mprq) {
		struct eng_sge sge[ENG_MAX_RSGE];
		uint32_t n = eng_rwqe_parse(wqe, (size_t)1 << e->shift, 0, sge, ENG_MAX_RSGE, NULL);
		uint64_t cap = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (sge[i].len && !eng_mr_check(sge[i].lkey, w->pd, sge[i].addr, sge[i].len, IBV_ACCESS_LOCAL_WRITE)) {
				wq_error(e, cq, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
				return;
			}
			cap += sge[i].len;
		}
		if (out > cap) {
			wq_error(e, cq, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
			return;
		}
		size_t pos = 0;
		for (uint32_t i = 0; i < n && pos < out; i++) {
			size_t take = sge[i].len < out - pos ? sge[i].len : out - pos;
			for (size_t k = 0; k < take; k++, pos++)
				((uint8_t *)(uintptr_t)sge[i].addr)[k] = f[strip && pos >= 12 ? pos + 4 : pos];
		}
		ci.wqe_counter = (uint16_t)e->ci;
		ci.byte_cnt = (uint32_t)out;
		e->ci++;
		eng_write_cqe(cq, &ci, 0);
		return;
	}

	ci.mprq = 1;
	uint32_t total = 1u << w->log_num_strides, need = strides_for(w, out);
	size_t ssz = (size_t)1 << w->log_stride_bytes;
	if (need > total || out > 0xffff) {
		if (emu_log_enabled)
			emu_log("engine: %zu-byte frame larger than a striding WQE of WQ 0x%x: dropped", out, w->wqn);
		return;
	}
	if (e->stride + need > total) {
		/* filler: the rest of this WQE is consumed without data */
		struct eng_cqe_info fc = ci;
		fc.byte_cnt = MPRQ_FILLER | (total - e->stride) << 16;
		fc.wqe_counter = (uint16_t)e->stride;
		fc.wqe_id = (uint16_t)e->ci;
		fc.rss_hash = 0;
		fc.rss_hash_type = 0;
		eng_write_cqe(cq, &fc, 0);
		e->ci++;
		e->stride = 0;
		if (!avail(e))
			return; /* no next WQE: the packet is dropped */
		wqe = e->buf + ((size_t)(e->ci & (e->cnt - 1)) << e->shift);
	}
	/* mlx5_mprq_wqe: the data segment after the 16-byte next segment describes the whole stride buffer */
	uint32_t bcount = eng_be32(wqe + 16);
	uint32_t lkey = eng_be32(wqe + 16 + 4);
	uint64_t addr = eng_be64(wqe + 16 + 8);
	if (e->stride == 0 && bcount != total * ssz)
		eng_strict(w->wqn, e->ci & 0xffff, "(a WQ) striding WQE data segment of %u bytes, not the %u strides of %zu bytes "
			   "the WQ was created with", bcount, total, ssz);
	if (!eng_mr_check(lkey, w->pd, addr, (uint64_t)total * ssz, IBV_ACCESS_LOCAL_WRITE)) {
		wq_error(e, cq, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		return;
	}
	uint8_t *dst = (uint8_t *)(uintptr_t)(addr + e->stride * ssz + (w->two_byte_shift ? 2 : 0));
	put_frame(dst, f, out, strip);
	ci.byte_cnt = (uint32_t)out | need << 16;
	ci.wqe_counter = (uint16_t)e->stride;
	ci.wqe_id = (uint16_t)e->ci;
	eng_write_cqe(cq, &ci, 0);
	e->stride += need;
	if (e->stride == total) {
		e->ci++;
		e->stride = 0;
	}
}
