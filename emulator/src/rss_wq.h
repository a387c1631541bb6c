/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rss_wq.h - receive work queues (ibv_create_wq / mlx5dv_create_wq, with or without the striding "multi-packet"
 * layout), receive WQ indirection tables (ibv_create_rwq_ind_table) and the RSS settings of an RSS QP
 * (ibv_create_qp_ex with IBV_QP_INIT_ATTR_RX_HASH), shared by the uverbs "kernel" (src/kernel/cmd_wq.c) and the
 * engine. Locking as in emu_objects.h: lists and mutable fields under emu_lock; hooks called without it.
 */
#ifndef MLX5EMU_RSS_WQ_H
#define MLX5EMU_RSS_WQ_H

#include <stdint.h>

#include "emu_objects.h"

/* enum ibv_wq_state */
enum { EMU_WQS_RESET = 0, EMU_WQS_RDY = 1, EMU_WQS_ERR = 2 };

/* Striding RQ limits (Linux mlx5_ib.h MLX5_MIN/MAX_SINGLE_STRIDE_LOG_NUM_BYTES 6..13 and
 * MLX5_MIN/MAX_SINGLE_WQE_LOG_NUM_STRIDES 9..16; ConnectX-5 has ext_stride_num_range, which lowers the
 * minimum number of strides to 2^3, MLX5_EXT_MIN_SINGLE_WQE_LOG_NUM_STRIDES). */
#define EMU_MPRQ_MIN_LOG_STRIDE_BYTES 6
#define EMU_MPRQ_MAX_LOG_STRIDE_BYTES 13
#define EMU_MPRQ_MIN_LOG_STRIDES      3
#define EMU_MPRQ_MAX_LOG_STRIDES      16
/* log_max_rqt_size: largest indirection table, 2^11 entries (reported as max_rwq_indirection_table_size) */
#define EMU_LOG_MAX_RQT_SIZE          11

struct emu_wq {
	struct emu_wq  *next;
	struct emu_ctx *ctx;
	struct emu_pd  *pd;
	struct emu_cq  *cq;
	uint32_t        handle;
	uint32_t        wqn;          /* fabric-unique (the RQ number space) */
	int             state;        /* EMU_WQS_* */
	uint32_t        create_flags; /* IBV_WQ_FLAGS_* */
	uint64_t        buf;          /* VA of the WQE ring */
	uint32_t        wqe_cnt;      /* power of 2 */
	uint32_t        wqe_shift;    /* log2 stride */
	uint64_t        dbrec;        /* VA: be32 [0] = receive counter */
	uint32_t        uidx;         /* user index (goes into CQEs, cqe_version 1) */
	uint32_t        max_wr, max_sge;
	/* striding RQ (mlx5_ib_create_wq with MLX5_IB_CREATE_WQ_STRIDING_RQ); is_mprq 0 for a plain RQ */
	uint8_t         is_mprq;
	uint8_t         log_stride_bytes;  /* single_stride_log_num_of_bytes */
	uint8_t         log_num_strides;   /* single_wqe_log_num_of_strides */
	uint8_t         two_byte_shift;    /* two_byte_shift_en: packets start 2 bytes into their first stride */
	int             ind_refs;     /* indirection tables holding it (destroy is then EBUSY) */
	uint64_t        user_handle;
	void           *engine;       /* [engine] */
};

struct emu_rwq_ind_tbl {
	struct emu_rwq_ind_tbl *next;
	struct emu_ctx *ctx;
	uint32_t        handle;
	uint32_t        ind_tbl_num;  /* RQT number */
	uint32_t        log_size;
	struct emu_wq **wqs;          /* 1 << log_size entries */
	int             qp_refs;      /* RSS QPs using it (destroy is then EBUSY) */
};

/* An RSS QP's TIR: indirection table + hash. Hangs off emu_qp (found with emu_qp_rss). */
struct emu_rss_qp {
	struct emu_qp          *qp;
	struct emu_rwq_ind_tbl *ind_tbl;
	uint64_t                fields_mask;   /* IBV_RX_HASH_* / MLX5_RX_HASH_* */
	uint8_t                 function;      /* MLX5_RX_HASH_FUNC_TOEPLITZ */
	uint8_t                 key_len;
	uint8_t                 key[40];
	uint32_t                dbrec[2];      /* the QP's doorbell record: an RSS QP has no rings, the engine reads 0 */
};

/* The RSS settings of qp, or NULL when it is not an RSS QP (call under emu_lock or from a QP hook). */
const struct emu_rss_qp *emu_qp_rss(const struct emu_qp *qp);
/* WQ lookup by number in this process (under emu_lock), or NULL. */
struct emu_wq *emu_find_wq(uint32_t wqn);

/* Engine hooks (weak no-ops in src/kernel/hooks_wq_weak.c), called without emu_lock held, like engine_hooks.h. */
void emu_engine_wq_created(struct emu_wq *wq);
void emu_engine_wq_modified(struct emu_wq *wq, int old_state);
void emu_engine_wq_destroying(struct emu_wq *wq);

#endif
