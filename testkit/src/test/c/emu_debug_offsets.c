/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Prints "<struct>.<member> <offsetof> <sizeof>" and "<struct> <sizeof> 0" for the emulator's test introspection
 * structs (emulator/src/mlx5emu_debug.h); DebugStructLayoutTest compares every line with EmulatedDevice's Java
 * layouts. The functions EmulatedDevice binds are checked here against their declarations, with the types its
 * FunctionDescriptors assume: a changed signature stops the compile (-Werror), not a test run.
 */
#include <stddef.h>
#include <stdio.h>

#include "mlx5emu_debug.h"

#define M(T, m) printf("%s.%s %zu %zu\n", #T, #m, offsetof(struct mlx5emu_debug_##T, m), \
		       sizeof(((struct mlx5emu_debug_##T *)0)->m))
#define S(T) printf("%s %zu 0\n", #T, sizeof(struct mlx5emu_debug_##T))

_Static_assert(__builtin_types_compatible_p(__typeof__(mlx5emu_debug_qp),
					   int(uint32_t, struct mlx5emu_debug_qp *)), "mlx5emu_debug_qp");
_Static_assert(__builtin_types_compatible_p(__typeof__(mlx5emu_debug_cq),
					   int(uint32_t, struct mlx5emu_debug_cq *)), "mlx5emu_debug_cq");
_Static_assert(__builtin_types_compatible_p(__typeof__(mlx5emu_debug_srq),
					   int(uint32_t, struct mlx5emu_debug_srq *)), "mlx5emu_debug_srq");
_Static_assert(__builtin_types_compatible_p(__typeof__(mlx5emu_debug_mr),
					   int(uint32_t, struct mlx5emu_debug_mr *)), "mlx5emu_debug_mr");
_Static_assert(__builtin_types_compatible_p(__typeof__(mlx5emu_debug_live), int(struct mlx5emu_debug_live *)),
	       "mlx5emu_debug_live");
_Static_assert(__builtin_types_compatible_p(__typeof__(mlx5emu_debug_cm_listeners), int(uint16_t, uint16_t)),
	       "mlx5emu_debug_cm_listeners");

int main(void)
{
	S(qp);
	M(qp, qpn);
	M(qp, type);
	M(qp, state);
	M(qp, uidx);
	M(qp, create_flags);
	M(qp, bfreg_index);
	M(qp, uar_page);
	M(qp, bf_offset);
	M(qp, uar_page_user_va);
	M(qp, uar_page_alias_va);
	M(qp, buf);
	M(qp, sq_buf);
	M(qp, rq_buf);
	M(qp, dbrec);
	M(qp, sq_wqe_cnt);
	M(qp, rq_wqe_cnt);
	M(qp, rq_wqe_shift);
	M(qp, send_cqn);
	M(qp, recv_cqn);
	M(qp, srqn);
	M(qp, pdn);
	M(qp, dest_qp_num);
	M(qp, qkey);
	M(qp, rq_psn);
	M(qp, sq_psn);
	M(qp, path_mtu);
	M(qp, attr_mask_seen);
	M(qp, max_rd_atomic);
	M(qp, max_dest_rd_atomic);
	M(qp, timeout);
	M(qp, retry_cnt);
	M(qp, rnr_retry);
	M(qp, min_rnr_timer);
	M(qp, dlid);
	M(qp, is_global);
	M(qp, sgid_index);
	M(qp, dgid);
	M(qp, dmac);
	S(cq);
	M(cq, cqn);
	M(cq, cqe_cnt);
	M(cq, cqe_size);
	M(cq, flags);
	M(cq, buf);
	M(cq, dbrec);
	M(cq, user_handle);
	M(cq, comp_fd);
	S(srq);
	M(srq, srqn);
	M(srq, wqe_cnt);
	M(srq, wqe_shift);
	M(srq, uidx);
	M(srq, srq_limit);
	M(srq, max_sge);
	M(srq, buf);
	M(srq, dbrec);
	S(mr);
	M(mr, lkey);
	M(mr, rkey);
	M(mr, access);
	M(mr, pdn);
	M(mr, addr);
	M(mr, length);
	S(live);
	M(live, contexts);
	M(live, pds);
	M(live, mrs);
	M(live, cqs);
	M(live, qps);
	M(live, srqs);
	M(live, ahs);
	M(live, channels);
	return 0;
}
