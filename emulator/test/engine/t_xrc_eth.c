/* SPDX-License-Identifier: Apache-2.0 */
/* t_xrc in RoCE mode. */
#include "t_xrc.c"
