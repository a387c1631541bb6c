/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mlx5emu_debug.h - introspection exported by libmlx5emu.so for tests: what the emulated "kernel" registered for
 * an object, so a test can compare it with what libmlx5 (mlx5dv_init_obj) or the application sees.
 * Resolve the functions with dlsym(RTLD_DEFAULT, "mlx5emu_debug_qp") etc. (the library is LD_PRELOADed).
 * Each returns 0 and fills *out, or -1 if no live object of this process has that number.
 */
#ifndef MLX5EMU_DEBUG_H
#define MLX5EMU_DEBUG_H

#include <stdint.h>

struct mlx5emu_debug_qp {
	uint32_t qpn, type, state, uidx;
	uint32_t create_flags;     /* MLX5_QP_FLAG_* from mlx5_ib_create_qp */
	uint32_t bfreg_index;      /* as answered in mlx5_ib_create_qp_resp */
	uint32_t uar_page, bf_offset;
	uint64_t uar_page_user_va; /* where the process mapped that UAR page (0 if not mapped) */
	uint64_t uar_page_alias_va;/* the emulator's own mapping of the same page (what the engine watches) */
	uint64_t buf, sq_buf, rq_buf, dbrec;
	uint32_t sq_wqe_cnt, rq_wqe_cnt, rq_wqe_shift;
	uint32_t send_cqn, recv_cqn, srqn, pdn;
	uint32_t dest_qp_num, qkey, rq_psn, sq_psn, path_mtu, attr_mask_seen;
	uint32_t max_rd_atomic, max_dest_rd_atomic, timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint16_t dlid;
	uint8_t is_global, sgid_index;
	uint8_t dgid[16];
	uint8_t dmac[6];
};

struct mlx5emu_debug_cq {
	uint32_t cqn, cqe_cnt, cqe_size, flags;
	uint64_t buf, dbrec, user_handle;
	int32_t comp_fd;           /* write end of the channel, -1 if none */
};

struct mlx5emu_debug_srq {
	uint32_t srqn, wqe_cnt, wqe_shift, uidx, srq_limit, max_sge;
	uint64_t buf, dbrec;
};

struct mlx5emu_debug_mr {
	uint32_t lkey, rkey, access, pdn;
	uint64_t addr, length;
};

/* Live objects of this process (contexts opened by this process only). */
struct mlx5emu_debug_live {
	uint32_t contexts, pds, mrs, cqs, qps, srqs, ahs, channels;
};

int mlx5emu_debug_qp(uint32_t qpn, struct mlx5emu_debug_qp *out);
int mlx5emu_debug_cq(uint32_t cqn, struct mlx5emu_debug_cq *out);
int mlx5emu_debug_srq(uint32_t srqn, struct mlx5emu_debug_srq *out);
int mlx5emu_debug_mr(uint32_t lkey, struct mlx5emu_debug_mr *out);
int mlx5emu_debug_live(struct mlx5emu_debug_live *out);
/* Listeners on the whole fabric (every process) for an rdma_cm port space (RDMA_PS_TCP...) and port, without
 * binding anything: a test can wait for another program to listen without racing its bind. -1 if the fabric's
 * directory cannot be mapped. */
int mlx5emu_debug_cm_listeners(uint16_t port_space, uint16_t port);
/* What a peer killed in the middle of sending leaves behind: reserve a record of len bytes in the request ring (resp:
 * the response ring) of process pid's engine on this fabric and never commit it. The caller is expected to die
 * next. 0, or -1 if that inbox cannot be opened or the ring is full. */
int mlx5emu_debug_abandon_reservation(int pid, int resp, uint32_t len);

/* Hold this process's engine thread (hold 1: it runs no pass and protects no page until released with 0), so that
 * a test can check what the doorbell fault thread does alone. Returns once the thread is held: a pass it was
 * running has finished. */
void mlx5emu_debug_hold_engine(int hold);

/* The engine passes this process ran and the QPs they visited (the requester's and the ACK walk's), so that a test
 * can check that a pass visits only the QPs with work, not every QP of the process. */
void mlx5emu_debug_pass_visits(uint64_t *passes, uint64_t *visits);

/* Run one engine pass in this thread at the monotonic time now + offset_ns, as a thread that read its time before it
 * got the engine's lock would (offset_ns < 0), or with the clock ahead (> 0), so that a test can check that the
 * passes hold up against a time that is not the latest. Returns whether the pass did work. */
int mlx5emu_debug_pass_at(int64_t offset_ns);

#endif
