/* SPDX-License-Identifier: Apache-2.0 */
/* QP state transition rules (see qp_state.c). */
#ifndef MLX5EMU_QP_STATE_H
#define MLX5EMU_QP_STATE_H

#include <stdint.h>

/* 1 if moving a QP of qp_type (IBV_QPT_RC/UC/UD) from cur to next with attribute mask (IBV_QP_*) is legal. */
int emu_qp_transition_ok(int cur, int next, int qp_type, uint32_t mask);
/* The attributes that transition requires (0 for an invalid transition). */
uint32_t emu_qp_transition_required(int cur, int next, int qp_type);

#endif
