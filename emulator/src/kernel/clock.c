/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clock.c - the device clock's two user-visible pages (the model is described in emu_clock.h).
 *
 * Page 0, the internal timer. On hardware libmlx5 maps the page of the initialization segment that holds
 * internal_timer_h/_l and reads it as MMIO: high word, low word, high word again, retrying once if the high word
 * changed (rdma-core v44 providers/mlx5/verbs.c mlx5_read_clock). Nothing traps such reads, so here the counter is
 * memory that someone must keep current. Choice: the device engine writes it, as the timer value of now, on every
 * engine pass and right before it writes a CQE (emu_clock_publish); one aligned 8-byte store of the big-endian
 * value updates both words at once, and a compare-and-swap keeps it monotonic when the engine thread and a
 * lent-cycles pass race. Consequences: while the engine is busy the page is current to the microsecond; while it
 * idles the page lags by at most one idle sleep step (0.5 ms, plus scheduling delay on a loaded machine); a page
 * read made after a CQE became visible is never earlier than that CQE's timestamp. No thread spins for the clock.
 *
 * Page 1, the clock info (struct mlx5_ib_clock_info, rdma-core kernel-headers/rdma/mlx5-abi.h), written as the
 * mlx5 driver writes it (Linux drivers/net/ethernet/mellanox/mlx5/core/lib/clock.c mlx5_update_clock_info_page):
 * sign gets MLX5_IB_CLOCK_INFO_KERNEL_UPDATING while cycles/nsec/frac/mult change and ends 2 higher, so readers
 * (libmlx5 mlx5dv_get_clock_info) retry or see a consistent copy. nsec + frac / 2^shift is the CLOCK_REALTIME of
 * the timer value `cycles` (kept to the 41-bit mask, like the kernel's timecounter), so mlx5dv_ts_to_ns(ts) =
 * realtime offset + floor(ts * mult / 2^shift), exact for every ts (see emu_clock.h).
 *
 * One pair of pages per process, in a memfd that lives until exit: every context of every device maps the same
 * pages, as every context of a real HCA maps the same initialization segment. A fork child gets none (the alias is
 * MADV_DONTFORK and the child forgets it) and makes its own when it opens a device.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <rdma/mlx5-abi.h>

#include "emu_barrier.h"
#include "emu_clock.h"
#include "kernel.h"

#define PAGE 4096u
#define NSEC_PER_SEC 1000000000ull
/* Debian's kernels are built with CONFIG_HZ=250; the driver stores the overflow period in jiffies (below). */
#define KERNEL_HZ 250u
/* A measured CLOCK_REALTIME - CLOCK_MONOTONIC that differs by more than this from the published one is a step
 * of the wall clock (the measurement itself is good to a few tens of ns). */
#define STEP_NS 200
/* Rebase the clock info this often: far inside the overflow period (~1100 s for these mult/shift), so that
 * (ts - cycles) * mult never overflows 64 bits for a fresh timestamp. */
#define REBASE_NS (10ull * NSEC_PER_SEC)

static struct {
	pthread_mutex_t lock;
	pid_t pid;                   /* process that made the pages (0: none) */
	int memfd;
	uint8_t *alias;              /* the library's writable view of both pages */
	_Atomic(_Atomic uint64_t *) timer; /* big-endian 64-bit counter in page 0 (NULL: no pages) */
	int64_t offset_ns;           /* CLOCK_REALTIME - CLOCK_MONOTONIC the clock info was computed with */
	uint64_t base_mono;          /* CLOCK_MONOTONIC of the last rebase */
	int atfork_done;
} CK = { .lock = PTHREAD_MUTEX_INITIALIZER, .memfd = -1 };

uint32_t emu_clock_mult(void)
{
	/* clocksource_khz2mult(): ((NSEC_PER_MSEC << shift) + khz / 2) / khz */
	return (uint32_t)((((uint64_t)1000000 << EMU_CLOCK_SHIFT) + EMU_CLOCK_KHZ / 2) / EMU_CLOCK_KHZ);
}

uint64_t emu_clock_ticks(uint64_t mono_ns)
{
	return (uint64_t)(((unsigned __int128)mono_ns << EMU_CLOCK_SHIFT) / emu_clock_mult());
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t emu_clock_now(void) { return emu_clock_ticks(mono_ns()); }

uint64_t emu_clock_publish(uint64_t ticks)
{
	_Atomic uint64_t *p = atomic_load_explicit(&CK.timer, memory_order_acquire);
	if (!p)
		return ticks;
	uint64_t cur = atomic_load_explicit(p, memory_order_relaxed);
	for (;;) {
		uint64_t shown = be64toh(cur);
		if (shown >= ticks)
			return shown;
		if (atomic_compare_exchange_weak_explicit(p, &cur, htobe64(ticks), memory_order_release,
							  memory_order_relaxed))
			return ticks;
	}
}

uint64_t emu_clock_real_time_format(uint64_t ticks)
{
	/* the inverse of emu_clock_ticks, then the wall-clock offset the clock-info page publishes (relaxed: a
	 * rebase racing with a CQE moves it by at most the step the wall clock took) */
	uint64_t mono = (uint64_t)(((unsigned __int128)ticks * emu_clock_mult()) >> EMU_CLOCK_SHIFT);
	uint64_t rt = mono + (uint64_t)__atomic_load_n(&CK.offset_ns, __ATOMIC_RELAXED);
	return ((rt / NSEC_PER_SEC) << 32) | (rt % NSEC_PER_SEC);
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC: a realtime read between two monotonic reads, the tightest of up to 16 tries
 * (it stops at a pair closer than 200 ns). Returns the gap of the pair used: the offset is good to half of it. */
static uint64_t measure_offset(int64_t *off_out, uint64_t *mono_out)
{
	uint64_t best_gap = UINT64_MAX;
	for (int i = 0; i < 16 && best_gap > 200; i++) {
		struct timespec a, r, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &b);
		uint64_t ma = (uint64_t)a.tv_sec * NSEC_PER_SEC + (uint64_t)a.tv_nsec;
		uint64_t mb = (uint64_t)b.tv_sec * NSEC_PER_SEC + (uint64_t)b.tv_nsec;
		int64_t rn = (int64_t)r.tv_sec * (int64_t)NSEC_PER_SEC + r.tv_nsec;
		if (mb - ma < best_gap) {
			best_gap = mb - ma;
			*mono_out = ma + (mb - ma) / 2;
			*off_out = rn - (int64_t)*mono_out;
		}
	}
	return best_gap;
}

static struct mlx5_ib_clock_info *info_page(void) { return (struct mlx5_ib_clock_info *)(void *)(CK.alias + PAGE); }

/* mlx5_update_clock_info_page: mark updating, write, publish. Caller holds CK.lock (one writer). */
static void info_rebase(int64_t offset, uint64_t mono)
{
	struct mlx5_ib_clock_info *ci = info_page();
	_Atomic uint32_t *sign = (_Atomic uint32_t *)(void *)&ci->sign;
	uint64_t cycles = emu_clock_ticks(mono);
	unsigned __int128 at = (unsigned __int128)cycles * emu_clock_mult(); /* monotonic ns << shift at `cycles` */
	uint64_t nsec = (uint64_t)(at >> EMU_CLOCK_SHIFT) + (uint64_t)offset;
	uint64_t frac = (uint64_t)at & ((1ull << EMU_CLOCK_SHIFT) - 1);

	uint32_t s = atomic_load_explicit(sign, memory_order_relaxed);
	atomic_store_explicit(sign, s | MLX5_IB_CLOCK_INFO_KERNEL_UPDATING, memory_order_relaxed);
	/* else a reader of the fields below could miss the mark and take a half-written page as whole */
	seq_write_begin_barrier();
	/* relaxed: atomic only so that a racing reader's load is not torn; sign orders them (the barrier above, the
	 * release store below) */
	__atomic_store_n(&ci->cycles, cycles & ((1ull << EMU_CLOCK_MASK_BITS) - 1), __ATOMIC_RELAXED);
	__atomic_store_n(&ci->nsec, nsec, __ATOMIC_RELAXED);
	__atomic_store_n(&ci->frac, frac, __ATOMIC_RELAXED);
	__atomic_store_n(&ci->mult, emu_clock_mult(), __ATOMIC_RELAXED);
	atomic_store_explicit(sign, (s & ~(uint32_t)MLX5_IB_CLOCK_INFO_KERNEL_UPDATING) + 2 *
			      MLX5_IB_CLOCK_INFO_KERNEL_UPDATING, memory_order_release);
	CK.offset_ns = offset;
	CK.base_mono = mono;
}

/* mlx5_init_overflow_period: the largest cycle count whose product with mult fits 63 bits, or a third of the
 * mask, in ns, then divided by NSEC_PER_SEC / HZ: the driver stores jiffies in a field libmlx5 hands out as
 * max_clock_info_update_nsec; the emulator reports what that driver reports. */
static uint64_t overflow_period(void)
{
	uint64_t cycles = (~0ull >> 1) / emu_clock_mult();
	uint64_t mask = (1ull << EMU_CLOCK_MASK_BITS) - 1;
	if (cycles > mask / 3)
		cycles = mask / 3;
	uint64_t ns = (cycles * emu_clock_mult()) >> EMU_CLOCK_SHIFT;
	return ns / (NSEC_PER_SEC / KERNEL_HZ);
}

static void forget_in_child(void)
{
	/* The child has no alias (MADV_DONTFORK); its inherited memfd would let it scribble on the parent's pages. */
	atomic_store(&CK.timer, NULL);
	CK.alias = NULL;
	CK.pid = 0;
	if (CK.memfd >= 0)
		emu_real_close(CK.memfd);
	CK.memfd = -1;
	pthread_mutex_init(&CK.lock, NULL);
}

int emu_clock_setup(void)
{
	int err = 0;
	pthread_mutex_lock(&CK.lock);
	if (CK.alias && CK.pid == getpid())
		goto out;
	if (!CK.atfork_done) {
		if ((err = pthread_atfork(NULL, NULL, forget_in_child)))
			goto out;
		CK.atfork_done = 1;
	}
	int fd = memfd_create("mlx5emu-clock", MFD_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	uint8_t *p = MAP_FAILED;
	if (ftruncate(fd, 2 * PAGE) < 0 ||
	    (p = emu_real_mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		err = errno;
		emu_real_close(fd);
		goto out;
	}
	madvise(p, 2 * PAGE, MADV_DONTFORK);
	CK.memfd = fd;
	CK.alias = p;
	CK.pid = getpid();
	struct mlx5_ib_clock_info *ci = info_page();
	ci->shift = EMU_CLOCK_SHIFT;
	ci->mask = (1ull << EMU_CLOCK_MASK_BITS) - 1;
	ci->overflow_period = overflow_period();
	uint64_t mono;
	int64_t off;
	measure_offset(&off, &mono);
	info_rebase(off, mono);
	_Atomic uint64_t *timer = (_Atomic uint64_t *)(void *)(p + EMU_CLOCK_TIMER_OFFSET);
	atomic_store(timer, htobe64(emu_clock_ticks(mono)));
	atomic_store_explicit(&CK.timer, timer, memory_order_release);
out:
	pthread_mutex_unlock(&CK.lock);
	return err;
}

void emu_clock_ucontext_resp(struct mlx5_ib_alloc_ucontext_resp *r, size_t drv_out_len)
{
	/* mlx5_ib_alloc_ucontext: each field only when the response has room for it; with 4 KiB pages the core
	 * clock is offered at offsetof(struct mlx5_init_seg, internal_timer_h) % PAGE_SIZE */
	if (drv_out_len >= offsetof(struct mlx5_ib_alloc_ucontext_resp, clock_info_versions) +
			   sizeof(r->clock_info_versions))
		r->clock_info_versions = 1u << MLX5_IB_CLOCK_INFO_V1;
	if (drv_out_len >= offsetof(struct mlx5_ib_alloc_ucontext_resp, hca_core_clock_offset) +
			   sizeof(r->hca_core_clock_offset)) {
		r->comp_mask |= MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_CORE_CLOCK_OFFSET;
		r->hca_core_clock_offset = EMU_CLOCK_TIMER_OFFSET;
	}
}

void emu_clock_maintain(void)
{
	if (!atomic_load_explicit(&CK.timer, memory_order_acquire))
		return;
	pthread_mutex_lock(&CK.lock);
	if (CK.alias) {
		uint64_t mono;
		int64_t off;
		uint64_t gap = measure_offset(&off, &mono);
		int64_t d = off - CK.offset_ns;
		if ((d > STEP_NS || d < -STEP_NS) && gap < STEP_NS)
			info_rebase(off, mono);            /* the wall clock was stepped (a clean measurement says so) */
		else if (mono - CK.base_mono >= REBASE_NS)
			info_rebase(CK.offset_ns, mono);   /* same offset: the conversion stays continuous */
		emu_clock_publish(emu_clock_now()); /* fresh: mono may be older if this thread was preempted above */
	}
	pthread_mutex_unlock(&CK.lock);
}

void *emu_clock_mmap(void *addr, size_t len, int prot, int flags, uint32_t cmd, uint32_t idx, int *err)
{
	/* Linux mlx5_ib_mmap: MLX5_IB_MMAP_CORE_CLOCK needs one page, not writable (EPERM), and clears VM_MAYWRITE;
	 * mlx5_ib_mmap_clock_info_page: one shared page (EINVAL), index MLX5_IB_CLOCK_INFO_V1 (EOPNOTSUPP), neither
	 * writable nor executable (EPERM), VM_MAYWRITE cleared. A read-only fd gives the same "never writable". */
	int info = cmd == MLX5_IB_MMAP_CLOCK_INFO;
	*err = 0;
	if (len != PAGE || (info && !(flags & MAP_SHARED)))
		*err = EINVAL;
	else if (info && idx != MLX5_IB_CLOCK_INFO_V1)
		*err = EOPNOTSUPP;
	else if ((prot & PROT_WRITE) || (info && (prot & PROT_EXEC)))
		*err = EPERM;
	else if (emu_clock_setup())
		*err = ENOMEM;
	if (*err)
		return MAP_FAILED;
	pthread_mutex_lock(&CK.lock);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", CK.memfd);
	pthread_mutex_unlock(&CK.lock);
	int ro = open(path, O_RDONLY | O_CLOEXEC);
	if (ro < 0) {
		*err = errno;
		return MAP_FAILED;
	}
	void *p = emu_real_mmap(addr, len, prot, flags, ro, info ? PAGE : 0);
	if (p == MAP_FAILED)
		*err = errno;
	else if (!info)
		madvise(p, len, MADV_DONTFORK); /* rdma_user_mmap_io: VM_DONTCOPY, like the UAR pages */
	emu_real_close(ro);
	if (!info)
		emu_clock_publish(emu_clock_now());
	return p;
}
