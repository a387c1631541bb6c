/* SPDX-License-Identifier: Apache-2.0 */
/* t_xrc_2proc in RoCE mode. */
#include "t_xrc_2proc.c"
