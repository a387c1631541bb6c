/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_base.c - what every layer of the engine uses: the global state G, the clock, strict-mode reports, the
 * scheduling of the device threads (layer 0 of src/engine/LAYERS).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine/eng_internal.h"

struct eng_global G = { .lock = PTHREAD_MUTEX_INITIALIZER };

uint64_t eng_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t eng_pass_ns(void)
{
	return G.pass_ns;
}

int eng_runnable_threads(void)
{
	static _Atomic int fd = -2;
	int f = atomic_load(&fd);
	if (f == -2) {
		int mine = open("/proc/loadavg", O_RDONLY | O_CLOEXEC), expected = -2;
		if (atomic_compare_exchange_strong(&fd, &expected, mine)) {
			f = mine;
		} else {
			if (mine >= 0)
				close(mine);
			f = expected;
		}
	}
	char buf[128];
	ssize_t n = f >= 0 ? pread(f, buf, sizeof buf - 1, 0) : -1;
	if (n <= 0)
		return -1;
	buf[n] = 0;
	unsigned running = 0;
	if (sscanf(buf, "%*s %*s %*s %u/", &running) != 1)
		return -1;
	return (int)running;
}

long eng_cpus(void)
{
	static _Atomic long n;
	long v = atomic_load_explicit(&n, memory_order_relaxed);
	if (!v) {
		v = sysconf(_SC_NPROCESSORS_ONLN);
		if (v < 1)
			v = 1;
		atomic_store_explicit(&n, v, memory_order_relaxed);
	}
	return v;
}

int eng_core_spare(uint64_t now)
{
	static _Atomic uint64_t checked;
	static _Atomic int spare;
	if (now - atomic_load_explicit(&checked, memory_order_relaxed) > 200000ull) {
		atomic_store_explicit(&checked, now, memory_order_relaxed);
		int running = eng_runnable_threads();
		atomic_store_explicit(&spare, running >= 0 && running < eng_cpus(), memory_order_relaxed);
	}
	return atomic_load_explicit(&spare, memory_order_relaxed);
}

/* Number of driver-rule violations seen by this process (strict mode prints each one). */
__attribute__((visibility("default"))) unsigned long mlx5emu_strict_violations(void)
{
	return atomic_load(&G.violations);
}

void eng_strict(uint32_t qpn, uint32_t wqe, const char *fmt, ...)
{
	atomic_fetch_add(&G.violations, 1);
	if (!G.strict)
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "mlx5emu[%d] STRICT: QP 0x%06x WQE %u: %s\n", (int)getpid(), qpn, wqe, msg);
}

/*
 * Scheduling of the device threads (the engine thread and the doorbell fault thread). On Linux 6.6+ (EEVDF) a
 * SCHED_OTHER thread may ask for a short time slice (sched_attr.sched_runtime, honoured since 6.12): a woken
 * thread with a shorter slice than the running one preempts it (PREEMPT_SHORT), and it is placed on the waker's
 * CPU when the waker is about to sleep. Measured here with both cores spinning: a futex ping-pong between two
 * such threads takes 5.5 us per round trip (p99 11 us), against 6 us but p99 0.5 ms with the default slice and
 * 40 us with SCHED_FIFO, which the kernel places on the task's previous CPU and wakes by inter-processor
 * interrupt (about 20 us in this virtual machine).
 *
 * A short slice is not enough when the device threads run a lot: a thread that used more than its fair share is
 * not eligible when it wakes and waits for the spinning program's slice to end (ib_write_lat -s 8: p99 1 to 2 ms,
 * engine threads runnable for up to 3.8 ms in perf sched). So they also ask for nice -19 (MLX5EMU_ENGINE_NICE,
 * default -19, 0 turns it off), as a NIC does not wait for the host's CPU: ib_write_lat p99 then 40 to 250 us.
 * That needs CAP_SYS_NICE or RLIMIT_NICE; without it the thread keeps nice 0, as before. Still not real time:
 * a device thread that spins at nice -19 only takes most of a CPU, never all of it. The engine never spins long
 * (eng_core.c), and producers defer their wake-ups of an engine whose program polls (eng_wire.c).
 */
struct eng_sched_attr { /* struct sched_attr, include/uapi/linux/sched/types.h (SCHED_ATTR_SIZE_VER0 = 48) */
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

/*
 * The engine thread of a process whose doorbells arrive on pages it can only poll (a UAR mapping the library never
 * saw: UCX maps its pages with a raw mmap system call; or no userfaultfd) gives up nice -19: to notice those
 * doorbells it wakes every microsecond or two after traffic, and at nice -19 each wake-up took the core from the
 * program it polls for, whose next doorbell then waited for the engine to sleep again. UCX's rc_mlx5 am_lat between
 * two processes: 142 ms per round trip at nice -19, 4 ms at nice 0.
 */
void eng_thread_sched_polling(void)
{
	struct eng_sched_attr a = { .size = sizeof a, .sched_policy = SCHED_OTHER, .sched_runtime = 100000 };
	if (getpriority(PRIO_PROCESS, 0) < 0) /* this thread: Linux's "process" here is the calling thread */
		(void)syscall(SYS_sched_setattr, 0, &a, 0);
}

void eng_thread_sched_setup(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* short sleeps must stay short */
	struct eng_sched_attr a = { .size = sizeof a, .sched_policy = SCHED_OTHER, .sched_runtime = 100000 };
	const char *e = getenv("MLX5EMU_ENGINE_NICE");
	a.sched_nice = e && *e ? atoi(e) : -19;
	if (a.sched_nice < -20 || a.sched_nice > 19)
		a.sched_nice = 0;
	if (syscall(SYS_sched_setattr, 0, &a, 0) != 0 && a.sched_nice < 0) {
		a.sched_nice = 0;
		(void)syscall(SYS_sched_setattr, 0, &a, 0);
	}
}
