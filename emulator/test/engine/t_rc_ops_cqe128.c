/* SPDX-License-Identifier: Apache-2.0 */
/* t_rc_ops.c with 128-byte CQEs (MLX5_CQE_SIZE=128): owner bit, fields and SCATTER_64 in the second layout. */
#define T_CQE128 1
#include "engine/t_rc_ops.c"
