/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine_hooks.h - calls from the uverbs "kernel" (src/kernel, "K" below) into the device engine
 * (src/engine, "E"). The kernel part owns this file. K provides __attribute__((weak)) no-op definitions
 * (src/kernel/hooks_weak.c); E's strong definitions in src/engine/ replace them at link time.
 *
 * Calling conventions (see also the locking rules in emu_objects.h):
 *  - Every hook runs on the application thread that issued the uverbs command, WITHOUT emu_lock held.
 *  - *_created / emu_engine_mr_registered: the object is complete and findable through emu_find_*().
 *  - *_destroying / emu_engine_mr_deregistering / emu_engine_ctx_closing: the object is already unlinked;
 *    K frees it (and, for a context, unmaps its UAR alias and closes its pipes) right after the hook returns.
 *    When a context closes with live objects, K calls the destroying hook of each object first
 *    (QPs, then SRQs, then CQs, then MRs), then emu_engine_ctx_closing.
 *  - emu_engine_ctx_opened and emu_engine_ctx_closing come in pairs: closing only for a context whose GET_CONTEXT
 *    succeeded (opened ran); the close of a file whose GET_CONTEXT failed calls no hook.
 *  - emu_engine_qp_modified: the transition was validated and every attribute in attr_mask (IBV_QP_* bits)
 *    applied to the struct emu_qp and to the registry entry; old_state is the state before the command.
 *  - emu_engine_cq_resized: cq->buf / cq->cqe_cnt / cq->cqe_size already describe the new ring, and
 *    cq->old_buf / old_cqe_cnt / old_cqe_size the old one (valid during the hook only). As the HCA does, the
 *    engine must write a CQE with opcode MLX5_CQE_RESIZE_CQ (0x5, owner bit of the old ring's pass) at the old
 *    ring's producer position before returning, and produce every later CQE into the new ring at the same
 *    producer index: libmlx5 (mlx5_cq_resize_copy_cqes, run right after the command returns) copies the
 *    unpolled CQEs up to that resize CQE into the new ring itself.
 *  - emu_engine_uar_mapped: the user mmapped UAR page page_index at user_va. Watch doorbells through
 *    ctx->uar_alias + page_index * EMU_UAR_PAGE_SIZE (same physical page, stays mapped until ctx close).
 *    K also calls it with user_va NULL for every page right after GET_CONTEXT (a raw mmap system call of the
 *    command fd maps the pages without K seeing it); a page may therefore be announced twice.
 *  - emu_engine_srq_modified: srq->srq_limit was (re)armed.
 *  - The engine starts its thread(s) lazily and stops them at process exit or when the last context closes.
 *  - At process exit K calls no hooks (destructor order between K and E is unspecified); it only drops this
 *    process's fabric registry entries. Contexts closed by the program (ibv_close_device) get every hook.
 *
 * Refinements since the contract (signatures unchanged):
 *  - struct emu_cq carries old_buf/old_cqe_cnt/old_cqe_size during emu_engine_cq_resized (see above).
 *  - Completion-channel and async write ends are O_NONBLOCK and K keeps a duplicate of each read end, so engine
 *    writes never block and never raise SIGPIPE, even after the application closed its fd.
 *  - An SRQ's ring (srq->wqe_cnt) includes libmlx5's wait queue: libmlx5 allocates 2 * max_wr + 1 WQEs and
 *    links free WQEs through next_wqe_index, so consume SRQ WQEs by following those links, as the HCA does.
 *  - uar_page/bf_offset of a QP follow the kernel's static bfreg allocation; bfreg 0 (page 0, 0x800) is shared
 *    by several QPs and libmlx5 never BlueFlames through it (buf_size 0): expect 8-byte doorbells there.
 */
#ifndef MLX5EMU_ENGINE_HOOKS_H
#define MLX5EMU_ENGINE_HOOKS_H

#include "emu_objects.h"

void emu_engine_ctx_opened(struct emu_ctx *ctx);
void emu_engine_ctx_closing(struct emu_ctx *ctx);

void emu_engine_cq_created(struct emu_cq *cq);
void emu_engine_cq_destroying(struct emu_cq *cq);
void emu_engine_cq_resized(struct emu_cq *cq);
/* CQEs written to cq and not yet consumed (producer index minus the consumer index in the doorbell record). */
uint32_t emu_engine_cq_unpolled(struct emu_cq *cq);

void emu_engine_qp_created(struct emu_qp *qp);
void emu_engine_qp_destroying(struct emu_qp *qp);
void emu_engine_qp_modified(struct emu_qp *qp, int old_state, int attr_mask);

void emu_engine_srq_created(struct emu_srq *srq);
void emu_engine_srq_destroying(struct emu_srq *srq);
void emu_engine_srq_modified(struct emu_srq *srq);

void emu_engine_mr_registered(struct emu_mr *mr);
void emu_engine_mr_deregistering(struct emu_mr *mr);

void emu_engine_uar_mapped(struct emu_ctx *ctx, int page_index, void *user_va);

/* Any thread of the program is about to take a pthread spinlock (interpose.c says why the engine wants to know);
 * unlike the hooks above it runs on every ibv_poll_cq and ibv_post_*, and with any lock of the program held. */
void emu_engine_spin_lock_taking(void);

#endif
