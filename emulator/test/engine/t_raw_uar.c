/*
 * A program whose mmap bypasses libc (UCX's memory hooks issue the mmap system call itself) still gets the UAR
 * page the engine watches: the command fd is the file holding the UAR pages. Here a NOP WQE is written into the
 * send ring through mlx5dv and its doorbell rung only through a second mapping of the same UAR page made with
 * syscall(SYS_mmap), the way UCX rings doorbells through its own mapping; it must complete. The same test checks
 * what UCX asks of the device node first: access(R_OK | W_OK), and fstat of the command fd as a character device.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <errno.h>
#include <fcntl.h>

#include "etest.h"
#include "mlx5emu_debug.h"

int main(void)
{
	CHECK(access("/dev/infiniband/uverbs0", R_OK | W_OK) == 0, "access(uverbs0, R_OK|W_OK): %s", strerror(errno));
	errno = 0;
	CHECK(access("/dev/infiniband/uverbs0", X_OK) < 0 && errno == EACCES, "X_OK: errno %d", errno);
	errno = 0;
	CHECK(faccessat(AT_FDCWD, "/dev/infiniband/uverbs7", R_OK, 0) < 0 && errno == ENOENT, "absent device: errno %d",
	      errno);
	t_open();
	struct stat st;
	CHECK(fstat(t_ctx->cmd_fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3),
	      "command fd is the character device 1:3 the sysfs tree names");

	struct ibv_cq *cq = ibv_create_cq(t_ctx, 16, NULL, NULL, 0);
	struct ibv_cq *pcq = ibv_create_cq(t_ctx, 16, NULL, NULL, 0);
	CHECK(cq && pcq, "cq");
	struct ibv_qp *qp = t_qp(IBV_QPT_RC, cq, cq, NULL, 0);
	struct ibv_qp *peer = t_qp(IBV_QPT_RC, pcq, pcq, NULL, 0);
	t_connect(qp, peer->qp_num, &t_default_conn, 1);
	t_connect(peer, qp->qp_num, &t_default_conn, 1);

	int (*dbg_qp)(uint32_t, struct mlx5emu_debug_qp *) =
		(int (*)(uint32_t, struct mlx5emu_debug_qp *))dlsym(RTLD_DEFAULT, "mlx5emu_debug_qp");
	CHECK(dbg_qp, "mlx5emu_debug_qp");
	struct mlx5emu_debug_qp d;
	CHECK(dbg_qp(qp->qp_num, &d) == 0, "debug qp");

	/* the raw system call, as UCX's hooked mmap does it: libmlx5's offset for UAR page i is i pages */
	long ps = sysconf(_SC_PAGESIZE);
	uint8_t *raw = (uint8_t *)syscall(SYS_mmap, NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_SHARED, t_ctx->cmd_fd,
					  (off_t)d.uar_page * ps);
	CHECK(raw != MAP_FAILED, "raw mmap of the command fd: %s", strerror(errno));

	struct mlx5dv_qp dv;
	struct mlx5dv_obj o;
	memset(&o, 0, sizeof o);
	o.qp.in = qp;
	o.qp.out = &dv;
	CHECK(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP) == 0, "init_obj");
	CHECK(((uintptr_t)dv.bf.reg & (uintptr_t)(ps - 1)) == d.bf_offset, "bf offset");

	/* two NOPs, each rung through the raw mapping only (alternating BlueFlame halves, as libmlx5 does) */
	uint8_t *sq = dv.sq.buf;
	for (uint32_t i = 0; i < 2; i++) {
		uint8_t *w = sq + (size_t)i * 64;
		memset(w, 0, 64);
		*(uint32_t *)(void *)w = htobe32(i << 8 | MLX5_OPCODE_NOP);
		*(uint32_t *)(void *)(w + 4) = htobe32(qp->qp_num << 8 | 1);
		w[11] = MLX5_WQE_CTRL_CQ_UPDATE;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		dv.dbrec[MLX5_SND_DBR] = htobe32(i + 1);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		*(volatile uint64_t *)(void *)(raw + d.bf_offset + (i & 1) * dv.bf.size) = *(uint64_t *)(void *)w;
		struct ibv_wc wc;
		CHECK(t_poll(cq, &wc, 1, 5000) == 1, "NOP %u rung through the raw mapping never completed", i);
		CHECK(wc.status == IBV_WC_SUCCESS, "NOP %u status %d", i, wc.status);
	}
	syscall(SYS_munmap, raw, (size_t)ps);

	ibv_destroy_qp(qp);
	ibv_destroy_qp(peer);
	ibv_destroy_cq(cq);
	ibv_destroy_cq(pcq);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("t_raw_uar: doorbells through a raw mmap of the command fd ok\n");
	return 0;
}
