/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_dbfault.c - doorbells noticed the moment they are written, through write faults on the UAR pages.
 *
 * Why: a program that spins on completion memory (perftest's ib_write_lat, UCX rc_mlx5, mlx5j's CqPoller) never
 * calls the library after its doorbell store, so only a polling engine thread could see that store; on a 2-core
 * machine whose cores both spin, such a thread gets a CPU at the next scheduler tick (4 ms here). Instead, the
 * application's mapping of every UAR page is write-protected through userfaultfd (UFFDIO_REGISTER_MODE_WP, shmem
 * needs UFFD_FEATURE_WP_HUGETLBFS_SHMEM, Linux 5.19+). A doorbell store then blocks the storing thread and wakes
 * the thread of this file on the CPU that thread just left, with no timer and no inter-processor interrupt:
 * measured here 9-11 us from the store to the store completing, with both cores busy. The fault thread executes
 * what the QPs of that page have in their doorbell records (eng_doorbell_fault: the driver updates the record
 * before the doorbell store, mlx5 post_send), then write-enables the page and wakes the storing thread, whose
 * store then lands and is taken by the engine like any doorbell (its WQEs are already executed, so it only
 * checks the BlueFlame copy). The engine write-protects the page again once it took that store (eng_core.c), so
 * the next doorbell faults too.
 *
 * Nothing here reads or writes application memory; the engine still reads the registers through K's alias of the
 * same memfd pages. With MLX5EMU_DOORBELL_FAULT=0, or without userfaultfd (older kernel, seccomp), the engine polls the
 * pages as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/userfaultfd.h>

#include "engine/eng_internal.h"

static int uffd = -1, stop_fd = -1;
static pthread_t fault_thr;
static void (*on_fault)(void *page); /* the engine's handler (eng_doorbell_fault): this file is below it */
static long (*on_idle)(void);        /* between faults (eng_doorbell_fault_idle): ns to wait, -1 for a fault */
static _Atomic unsigned long faults;

/* Number of doorbell stores of this process that were noticed through a write fault (tests, diagnostics). */
__attribute__((visibility("default"))) unsigned long mlx5emu_doorbell_faults(void)
{
	return atomic_load(&faults);
}

static int wp(void *va, int protect)
{
	struct uffdio_writeprotect w = {
		.range = { .start = (uintptr_t)va, .len = EMU_UAR_PAGE_SIZE },
		.mode = protect ? UFFDIO_WRITEPROTECT_MODE_WP : 0, /* un-protecting also wakes the faulting threads */
	};
	return ioctl(uffd, UFFDIO_WRITEPROTECT, &w);
}

int eng_dbfault_watch(void *user_va)
{
	if (uffd < 0 || !user_va)
		return -1;
	struct uffdio_register r = {
		.range = { .start = (uintptr_t)user_va, .len = EMU_UAR_PAGE_SIZE },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};
	if (ioctl(uffd, UFFDIO_REGISTER, &r) != 0)
		return -1;
	return wp(user_va, 1);
}

int eng_dbfault_protect(void *user_va)
{
	/* Fails harmlessly (ENOENT) when the program unmapped the page: the range is then no longer ours. */
	return uffd >= 0 && user_va ? wp(user_va, 1) : -1;
}

void eng_dbfault_resolve(void *user_va)
{
	if (wp(user_va, 0) != 0) {
		/* The range went away under us (munmap): the thread must still never stay blocked. */
		struct uffdio_range r = { .start = (uintptr_t)user_va, .len = EMU_UAR_PAGE_SIZE };
		ioctl(uffd, UFFDIO_WAKE, &r);
	}
}

static void *fault_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "mlx5emu-dbell");
	eng_thread_sched_setup();
	struct pollfd pf[2] = { { .fd = uffd, .events = POLLIN }, { .fd = stop_fd, .events = POLLIN } };
	long wait_ns = -1;
	for (;;) {
		struct timespec ts = { wait_ns / 1000000000L, wait_ns % 1000000000L };
		if (ppoll(pf, 2, wait_ns < 0 ? NULL : &ts, NULL) < 0 && errno != EINTR)
			break;
		if (pf[1].revents)
			break;
		struct uffd_msg m[16];
		ssize_t n;
		while ((n = read(uffd, m, sizeof m)) > 0) {
			for (size_t i = 0; i < (size_t)n / sizeof m[0]; i++) {
				if (m[i].event != UFFD_EVENT_PAGEFAULT)
					continue;
				uintptr_t page = (uintptr_t)m[i].arg.pagefault.address & ~(uintptr_t)(EMU_UAR_PAGE_SIZE - 1);
				atomic_fetch_add(&faults, 1);
				on_fault((void *)page); /* resolves the fault too */
			}
		}
		wait_ns = on_idle();
	}
	return NULL;
}

int eng_dbfault_start(void (*handler)(void *page), long (*idle)(void))
{
	/* On unless MLX5EMU_DOORBELL_FAULT=0. (It was opt-in while the BlueFlame check raced with the fault path:
	 * the check waited under G.lock for copy stores that could only land through a fault; eng_bf.c.) */
	const char *s = getenv("MLX5EMU_DOORBELL_FAULT");
	if (s && strcmp(s, "0") == 0)
		return -1;
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_WP_HUGETLBFS_SHMEM };
	if (ioctl(fd, UFFDIO_API, &api) != 0 || !(api.ioctls & (1ull << _UFFDIO_REGISTER))) {
		close(fd);
		return -1;
	}
	stop_fd = eventfd(0, EFD_CLOEXEC);
	if (stop_fd < 0) {
		close(fd);
		return -1;
	}
	uffd = fd;
	on_fault = handler;
	on_idle = idle;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old); /* signals stay with the application's threads */
	int rc = pthread_create(&fault_thr, NULL, fault_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(uffd);
		close(stop_fd);
		uffd = stop_fd = -1;
		return -1;
	}
	return 0;
}

void eng_dbfault_stop(void)
{
	if (uffd < 0)
		return;
	uint64_t one = 1;
	if (write(stop_fd, &one, sizeof one) != sizeof one)
		abort(); /* an eventfd write of 1 cannot fail */
	pthread_join(fault_thr, NULL);
	/* Closing the descriptor removes every registration and wakes any thread still blocked on a fault. */
	close(uffd);
	close(stop_fd);
	uffd = stop_fd = -1;
}

void eng_dbfault_forget(void)
{
	/* fork child: the thread does not exist there, and UAR mappings are not inherited (MADV_DONTFORK) */
	if (uffd >= 0) {
		close(uffd);
		close(stop_fd);
	}
	uffd = stop_fd = -1;
}
