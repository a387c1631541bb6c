/* SPDX-License-Identifier: Apache-2.0 */
/* Layer 1 of the uverbs "kernel" (src/kernel), objects and handle lookups: the object model (emu_objects.h,
 * shared with the engine), the process's contexts, the fabric registry, handles, and the engine's hooks. Calls
 * only layer 0 (libc.h, uaccess.h). The layers above include this through uverbs.h and dispatch.h. Not for the
 * engine: it uses emu_objects.h. */
#ifndef MLX5EMU_KERNEL_H
#define MLX5EMU_KERNEL_H

#include <stddef.h>
#include <sys/types.h>

#include "emu_objects.h"
#include "libc.h"
#include "uaccess.h"

/* Closes *fd if open and marks it closed. */
static inline void emu_close_fd(int *fd)
{
	if (*fd >= 0)
		emu_real_close(*fd);
	*fd = -1;
}

/* Bytes of the UAR memfd and of K's alias: the static pages, then room for every dynamic one (sparse until
 * used). */
static inline size_t emu_uar_file_len(const struct emu_ctx *ctx)
{
	return ctx->num_uar_pages ? (size_t)(ctx->num_uar_pages + EMU_DYN_UAR_PAGES) * EMU_UAR_PAGE_SIZE : 0;
}

/* objects.c */
void emu_ctx_link(struct emu_ctx *ctx);
void emu_ctx_unlink(struct emu_ctx *ctx);
void emu_objects_after_fork_child(void);

/* registry.c */
int emu_reg_attach(void);                  /* map (create if needed) the fabric registry; 0 or errno */
void emu_reg_detach_process(void);         /* at exit: free this process's entries */
void emu_reg_after_fork_child(void);
uint32_t emu_reg_alloc_cqn(void);
uint32_t emu_reg_alloc_srqn(void);
uint32_t emu_reg_alloc_pdn(void);
uint32_t emu_reg_alloc_mkey(void);
int emu_reg_qp_alloc(struct emu_qp *qp);   /* assigns qp->qpn and qp->reg_slot; 0 or errno */
void emu_reg_qp_update(const struct emu_qp *qp);
void emu_reg_qp_free(const struct emu_qp *qp);

/* async_event.c: a context's async event file (the queue behind its async fd; see there). */
int emu_async_open(struct emu_ctx *ctx);    /* GET_CONTEXT, once the pipe exists: 0 or errno */
void emu_async_release(struct emu_ctx *ctx); /* the context goes: its events too; the fd then reads EIO */
int emu_async_is_fd(int fd);                 /* fd is a program's async fd (lock-free; for the interposers) */
ssize_t emu_async_read(int fd, void *buf, size_t count);
void emu_async_fd_closing(int fd);           /* before the real close of an async fd */
void emu_async_fd_dup(int oldfd, int newfd); /* newfd is now a duplicate of oldfd */
void emu_async_prune(struct emu_ctx *ctx);   /* DESTROY_QP/CQ/SRQ, once unlinked: its unread events go with it */

/* port.c: port up/down (see there; emu_ports_down() is in emu_objects.h for the engine). */
int emu_port_is_down(int dev_index);
void emu_port_watch_start(void);             /* GET_CONTEXT: this process hears of port changes from now on */
void emu_port_after_fork_child(void);
int mlx5emu_port_set(int dev_index, int port, int up);

/* handles.c: a context's next object handle; object lookups by handle within one context (under emu_lock). */
uint32_t emu_ctx_new_handle(struct emu_ctx *ctx);
struct emu_pd *emu_pd_by_handle(struct emu_ctx *ctx, uint32_t h);
struct emu_cq *emu_cq_by_handle(struct emu_ctx *ctx, uint32_t h);
struct emu_qp *emu_qp_by_handle(struct emu_ctx *ctx, uint32_t h);
/* Put a QP on its context's list and handle table, or take it off both (callers hold emu_lock). */
void emu_ctx_link_qp(struct emu_ctx *ctx, struct emu_qp *qp);
void emu_ctx_unlink_qp(struct emu_ctx *ctx, struct emu_qp *qp);
struct emu_srq *emu_srq_by_handle(struct emu_ctx *ctx, uint32_t h);

/* xrc_dir.c: the fabric-wide XRC directories (every XRC SRQ and XRC TGT QP with its domain and process). An XRC SRQ
 * in at create and out at destroy (the engine's emu_xrc_srq_owner finds it); a TGT QP likewise, and whether a live
 * process other than this one has TGT QP qpn in domain xrcdn (OPEN_QP). Not under emu_lock. */
void emu_xrc_srq_publish(const struct emu_srq *srq);
void emu_xrc_srq_withdraw(const struct emu_srq *srq);
struct ib_uverbs_query_qp_resp;
void emu_xrc_tgt_publish(const struct emu_qp *qp, const struct ib_uverbs_query_qp_resp *attr);
void emu_xrc_tgt_withdraw(uint32_t qpn);
int emu_xrc_tgt_elsewhere(uint32_t qpn, uint32_t xrcdn);
/* A TGT QP's attributes as QUERY_QP answers them, for the processes that opened it: at every MODIFY_QP (snapshot),
 * and what such a process's QUERY_QP gets (query: 0 when no live process has the QP in that domain). */
void emu_xrc_tgt_snapshot(uint32_t qpn, const struct ib_uverbs_query_qp_resp *attr);
int emu_xrc_tgt_query(uint32_t qpn, uint32_t xrcdn, struct ib_uverbs_query_qp_resp *attr);

#endif
