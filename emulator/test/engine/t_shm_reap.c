/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A process killed by a signal leaves its engine inbox (/dev/shm/<fabric>-eng-<pid>, 16 MiB) behind, since no exit
 * path runs. The next engine to start on the fabric removes inboxes whose process is gone; live ones stay.
 */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "etest.h"

static void inbox_path(char *buf, size_t n, int pid)
{
	const char *f = getenv("MLX5EMU_FABRIC");
	char def[64];
	if (!f || !*f) {
		snprintf(def, sizeof def, "mlx5emu-%u", (unsigned)getuid());
		f = def;
	}
	snprintf(buf, n, "/dev/shm/%s-eng-%d", f, pid);
}

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

int main(void)
{
	char path[512];
	pid_t child = fork();
	CHECK(child >= 0, "fork");
	if (child == 0) {
		t_open(); /* the engine starts with the first context and creates its inbox */
		struct ibv_cq *cq = ibv_create_cq(t_ctx, 4, NULL, NULL, 0);
		(void)cq;
		raise(SIGKILL);
		_exit(3);
	}
	int st;
	CHECK(waitpid(child, &st, 0) == child && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "child killed");
	inbox_path(path, sizeof path, child);
	CHECK(exists(path), "the killed process's inbox %s is there before the next start", path);
	t_open();
	struct ibv_cq *cq = ibv_create_cq(t_ctx, 4, NULL, NULL, 0);
	CHECK(cq, "cq");
	CHECK(!exists(path), "stale inbox %s removed when the next engine started", path);
	char own[512];
	inbox_path(own, sizeof own, getpid());
	CHECK(exists(own), "our own inbox %s exists", own);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	CHECK(!exists(own), "closing the last context removes our inbox");
	printf("t_shm_reap: ok\n");
	return 0;
}
