/* SPDX-License-Identifier: Apache-2.0 */
#include "t_context.c"
