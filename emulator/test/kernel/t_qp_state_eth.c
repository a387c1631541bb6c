/* SPDX-License-Identifier: Apache-2.0 */
#include "t_qp_state.c"
