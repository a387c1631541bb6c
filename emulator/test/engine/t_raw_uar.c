/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A program whose mmap bypasses libc (UCX's memory hooks issue the mmap system call itself) still gets the UAR
 * page the engine watches: the command fd is the file holding the UAR pages. Here a NOP WQE is written into the
 * send ring through mlx5dv and its doorbell rung only through a second mapping of the same UAR page made with
 * syscall(SYS_mmap), the way UCX rings doorbells through its own mapping; it must complete. The same test checks
 * what UCX asks of the device node first: access(R_OK | W_OK), and fstat of the command fd as a character device.
 * And the doorbells of such a mapping: the engine finds it in /proc/self/maps once a doorbell came through it and
 * write-protects it too, so that the next doorbell faults like one through the library's own mapping (eng_doorbell.c
 * eng_adopt_mappings: UCX's rc_mlx5 took 4 ms per round trip while the engine had to poll). A page mapped a third
 * time stays polled, and the engine thread then gives up its priority: it starts at nice -19 where allowed, keeps
 * it while every doorbell faults, and goes back to nice 0 once a doorbell came through a mapping it can only poll
 * (eng_base.c eng_thread_sched_polling: at nice -19 its polling starved UCX's rc_mlx5, 142 ms per am_lat round
 * trip).
 */
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <errno.h>
#include <fcntl.h>

#include "etest.h"
#include "mlx5emu_debug.h"

/* The nice value of this process's engine thread ("mlx5emu-engine"), from /proc/self/task/<tid>/stat; -100 while
 * there is none (the thread names itself when it starts, which may be after the context was opened). */
static int engine_nice_once(void)
{
	DIR *d = opendir("/proc/self/task");
	CHECK(d, "opendir /proc/self/task");
	int nice = 100;
	struct dirent *e;
	while (nice == 100 && (e = readdir(d))) {
		char path[300], buf[512];
		snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		int match = fgets(buf, sizeof buf, f) && strcmp(buf, "mlx5emu-engine\n") == 0;
		fclose(f);
		if (!match)
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
		f = fopen(path, "re");
		CHECK(f, "%s", path);
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = 0;
		/* after "pid (comm) ": state, then fields 4..19; nice is field 19 */
		const char *p = strrchr(buf, ')');
		CHECK(p, "stat format");
		p += 2;
		for (int field = 3; field < 19; field++) {
			p = strchr(p, ' ');
			CHECK(p, "stat field %d", field);
			p++;
		}
		nice = atoi(p);
	}
	closedir(d);
	return nice == 100 ? -100 : nice;
}

static int engine_nice(void)
{
	uint64_t end = t_ms() + 2000;
	int nice;
	while ((nice = engine_nice_once()) == -100 && t_ms() < end)
		usleep(1000);
	CHECK(nice != -100, "no mlx5emu-engine thread in this process");
	return nice;
}

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

	/* a doorbell through the library's own (watched) mapping keeps the engine's priority */
	unsigned long (*faults)(void) = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "mlx5emu_doorbell_faults");
	CHECK(faults, "mlx5emu_doorbell_faults not found");
	unsigned long faults0 = faults();
	int nice0 = engine_nice();
	void *buf;
	struct ibv_mr *mr = t_mr(4096, T_ALL_ACCESS, &buf);
	struct ibv_sge sge = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED };
	wr.wr.rdma.remote_addr = (uintptr_t)buf + 64;
	wr.wr.rdma.rkey = mr->rkey;
	t_post_send(peer, &wr); /* the peer's ring: qp's stays empty for the NOPs below */
	struct ibv_wc wc0;
	CHECK(t_poll(pcq, &wc0, 1, 5000) == 1 && wc0.status == IBV_WC_SUCCESS, "RDMA WRITE through libmlx5");
	usleep(200 * 1000); /* the engine thread runs its own passes once the poller is quiet */
	if (faults() > faults0) /* the doorbell faulted: no userfaultfd (or MLX5EMU_DOORBELL_FAULT=0) means polling */
		CHECK(engine_nice() == nice0, "the engine left nice %d after a doorbell through the watched mapping", nice0);

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

	/* NOPs, each rung through one raw mapping only (alternating BlueFlame halves, as libmlx5 does) */
	uint8_t *sq = dv.sq.buf;
	uint32_t nops = 0;
#define RING_NOPS(map, count) \
	for (uint32_t k = 0; k < (count); k++, nops++) { \
		uint8_t *w = sq + (size_t)nops * 64; \
		memset(w, 0, 64); \
		*(uint32_t *)(void *)w = htobe32(nops << 8 | MLX5_OPCODE_NOP); \
		*(uint32_t *)(void *)(w + 4) = htobe32(qp->qp_num << 8 | 1); \
		w[11] = MLX5_WQE_CTRL_CQ_UPDATE; \
		udma_to_device_barrier(); /* else the engine could read the NOP before its bytes */ \
		dv.dbrec[MLX5_SND_DBR] = htobe32(nops + 1); \
		mmio_wc_start(); /* else the doorbell could reach the engine before the record */ \
		*(volatile uint64_t *)(void *)((map) + d.bf_offset + (nops & 1) * dv.bf.size) = *(uint64_t *)(void *)w; \
		struct ibv_wc wc; \
		CHECK(t_poll(cq, &wc, 1, 5000) == 1, "NOP %u rung through a raw mapping never completed", nops); \
		CHECK(wc.status == IBV_WC_SUCCESS, "NOP %u status %d", nops, wc.status); \
	}
	/* the first is found by the engine's scan; the mapping is then watched, and the second faults */
	RING_NOPS(raw, 1);
	unsigned long faults1 = faults();
	RING_NOPS(raw, 3);
	int faulting = faults() > faults0;
	if (faulting) {
		CHECK(faults() > faults1, "a doorbell through the raw mapping did not fault after the engine saw it");
		CHECK(engine_nice() == nice0, "the engine left nice %d for doorbells that fault", nice0);
	}

	/* a third mapping of the page: more than the engine watches, so it polls the page from now on (once the engine
	 * has protected the page again: while a poller lends passes, a page opened by a fault stays open, and a store
	 * to an open page proves nothing about its mappings) */
	usleep(200 * 1000);
	uint8_t *raw2 = (uint8_t *)syscall(SYS_mmap, NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_SHARED,
					   t_ctx->cmd_fd, (off_t)d.uar_page * ps);
	CHECK(raw2 != MAP_FAILED, "second raw mmap of the command fd: %s", strerror(errno));
	RING_NOPS(raw2, 2);
	RING_NOPS(raw, 2);
#undef RING_NOPS
	syscall(SYS_munmap, raw, (size_t)ps);
	syscall(SYS_munmap, raw2, (size_t)ps);
	if (nice0 < 0) { /* allowed to raise its priority (root, CAP_SYS_NICE): it gives that up now */
		uint64_t end = t_ms() + 2000;
		while (engine_nice() != 0 && t_ms() < end)
			usleep(1000);
		CHECK(engine_nice() == 0, "the engine kept nice %d after doorbells it could only poll", engine_nice());
	} else {
		printf("t_raw_uar: engine at nice %d from the start (not allowed to raise it): priority not checked\n", nice0);
	}
	if (!faulting)
		printf("t_raw_uar: doorbells do not fault here: the watched-mapping checks are skipped\n");
	ibv_dereg_mr(mr);
	free(buf);

	t_close_pair(qp, peer, cq, pcq);
	printf("t_raw_uar: doorbells through a raw mmap of the command fd ok\n");
	return 0;
}
