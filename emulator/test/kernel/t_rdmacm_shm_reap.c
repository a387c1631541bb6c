/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A process killed by a signal never reaches cm_wire_fini, so its rdma_cm mailbox (/dev/shm/<fabric>-cm-<pid>)
 * stays behind. The next process to open rdma_cm on the fabric removes the mailboxes whose process is gone, as
 * the next engine does with engine inboxes (test/engine/t_shm_reap.c); a live process's mailbox stays.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <rdma/rdma_cma.h>

#include "common.h"

static void mbox_path(char *buf, size_t n, int pid)
{
	const char *f = getenv("MLX5EMU_FABRIC");
	char def[64];
	if (!f || !*f) {
		snprintf(def, sizeof def, "mlx5emu-%u", (unsigned)getuid());
		f = def;
	}
	snprintf(buf, n, "/dev/shm/%s-cm-%d", f, pid);
}

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

int main(void)
{
	char dead[512], live[512], own[512];
	pid_t child = fork();
	REQUIRE(child >= 0, "fork");
	if (child == 0) {
		/* opening the channel creates the process's mailbox */
		if (!rdma_create_event_channel())
			_exit(2);
		raise(SIGKILL);
		_exit(3);
	}
	int st;
	REQUIRE(waitpid(child, &st, 0) == child && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
		"child killed (status 0x%x)", st);
	mbox_path(dead, sizeof dead, child);
	REQUIRE(exists(dead), "the killed process's mailbox %s is there before the next open", dead);

	/* a live process's mailbox (a stand-in file for a process that sleeps) must survive the reaping */
	pid_t sleeper = fork();
	REQUIRE(sleeper >= 0, "fork");
	if (sleeper == 0) {
		pause();
		_exit(0);
	}
	mbox_path(live, sizeof live, sleeper);
	int fd = open(live, O_RDWR | O_CREAT | O_EXCL, 0600);
	REQUIRE(fd >= 0, "create %s: %s", live, strerror(errno));
	close(fd);

	struct rdma_event_channel *ch = rdma_create_event_channel();
	REQUIRE(ch, "rdma_create_event_channel: %s", strerror(errno));
	CHECK(!exists(dead), "stale mailbox %s removed when the next process opened rdma_cm", dead);
	CHECK(exists(live), "the live process's mailbox %s is kept", live);
	mbox_path(own, sizeof own, getpid());
	CHECK(exists(own), "our own mailbox %s exists", own);
	rdma_destroy_event_channel(ch);

	unlink(live);
	kill(sleeper, SIGKILL);
	waitpid(sleeper, &st, 0);
	return test_done("t_rdmacm_shm_reap");
}
