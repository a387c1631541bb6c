/* SPDX-License-Identifier: Apache-2.0 */
/* Weak no-op engine hooks: the kernel part links and runs before (or without) the device engine.
 * The engine's strong definitions in src/engine/ override these at link time. */
#include "engine_hooks.h"

#define WEAK __attribute__((weak))

WEAK void emu_engine_ctx_opened(struct emu_ctx *ctx) { (void)ctx; }
WEAK void emu_engine_ctx_closing(struct emu_ctx *ctx) { (void)ctx; }
WEAK void emu_engine_cq_created(struct emu_cq *cq) { (void)cq; }
WEAK void emu_engine_cq_destroying(struct emu_cq *cq) { (void)cq; }
WEAK void emu_engine_cq_resized(struct emu_cq *cq) { (void)cq; }
WEAK uint32_t emu_engine_cq_unpolled(struct emu_cq *cq) { (void)cq; return 0; }
WEAK void emu_engine_qp_created(struct emu_qp *qp) { (void)qp; }
WEAK void emu_engine_qp_destroying(struct emu_qp *qp) { (void)qp; }
WEAK void emu_engine_qp_modified(struct emu_qp *qp, int old_state, int attr_mask)
{
	(void)qp; (void)old_state; (void)attr_mask;
}
WEAK void emu_engine_srq_created(struct emu_srq *srq) { (void)srq; }
WEAK void emu_engine_srq_destroying(struct emu_srq *srq) { (void)srq; }
WEAK void emu_engine_srq_modified(struct emu_srq *srq) { (void)srq; }
WEAK void emu_engine_mr_registered(struct emu_mr *mr) { (void)mr; }
WEAK void emu_engine_mr_deregistering(struct emu_mr *mr) { (void)mr; }
WEAK void emu_engine_uar_mapped(struct emu_ctx *ctx, int page_index, void *user_va)
{
	(void)ctx; (void)page_index; (void)user_va;
}
WEAK void emu_engine_spin_lock_taking(void) {}
