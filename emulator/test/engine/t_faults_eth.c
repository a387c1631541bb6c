/* SPDX-License-Identifier: Apache-2.0 */
/* t_faults on RoCE ports (a UD message is limited to the 1024-byte active MTU there); see t_faults.c. */
#define T_FAULTS_ETH 1
#include "engine/t_faults.c"
