/* SPDX-License-Identifier: Apache-2.0 */
/* Weak no-op flow hooks (see flow_rule.h): the kernel part links and runs without the engine (fuzzers). */
#include "flow_rule.h"

__attribute__((weak)) void emu_engine_flow_created(struct emu_flow *f) { (void)f; }
__attribute__((weak)) void emu_engine_flow_destroying(struct emu_flow *f) { (void)f; }
