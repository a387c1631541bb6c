/* SPDX-License-Identifier: Apache-2.0 */
/* RoCE run of t_ud_uc_srq.c: the Makefile runs test programs named *_eth with --link eth. */
#include "engine/t_ud_uc_srq.c"
