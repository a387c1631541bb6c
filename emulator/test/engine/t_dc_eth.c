/* SPDX-License-Identifier: Apache-2.0 */
/* RoCE run of t_dc.c: the Makefile runs test programs named *_eth with --link eth. */
#include "engine/t_dc.c"
