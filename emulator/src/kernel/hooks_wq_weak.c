/* SPDX-License-Identifier: Apache-2.0 */
/* Weak no-op engine hooks for WQs (rss_wq.h); the engine's strong definitions replace them. */
#include "rss_wq.h"

__attribute__((weak)) void emu_engine_wq_created(struct emu_wq *wq) { (void)wq; }
__attribute__((weak)) void emu_engine_wq_modified(struct emu_wq *wq, int old_state) { (void)wq; (void)old_state; }
__attribute__((weak)) void emu_engine_wq_destroying(struct emu_wq *wq) { (void)wq; }
