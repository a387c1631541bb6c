/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_wire.c - shared-memory rings between engines (protocol described in eng_wire.h).
 */
#include "engine/eng_wire.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "emu_barrier.h"
#include "emu_shm.h"

#define HDR_COMMIT 1ull
#define HDR_PAD    2ull
#define HDR_RESV   4ull /* reserved, not committed: the producer's pid is in bits 32-62 (eng_ring_skip_abandoned) */
#define REC_ALIGN  64u

int eng_wire_pid;

static inline _Atomic uint64_t *hdr_at(struct eng_ring *r, uint64_t pos)
{
	return (_Atomic uint64_t *)(void *)(r->data + (pos & (ENG_RING_BYTES - 1)));
}

void *eng_ring_reserve(struct eng_ring *r, size_t len, uint64_t *tok)
{
	uint64_t need = (8 + len + REC_ALIGN - 1) & ~(uint64_t)(REC_ALIGN - 1);
	if (need > ENG_RING_BYTES / 4)
		return NULL;
	for (;;) {
		uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
		uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
		uint64_t pos = t & (ENG_RING_BYTES - 1);
		uint64_t pad = pos + need > ENG_RING_BYTES ? ENG_RING_BYTES - pos : 0;
		if (t + pad + need - h > ENG_RING_BYTES)
			return NULL;
		if (!atomic_compare_exchange_weak_explicit(&r->tail, &t, t + pad + need, memory_order_acq_rel,
							   memory_order_relaxed))
			continue;
		if (pad) {
			atomic_store_explicit(hdr_at(r, t), pad | HDR_PAD | HDR_COMMIT, memory_order_release);
			t += pad;
		}
		/* who holds the record until it is committed: a producer killed before that must not block the ring */
		atomic_store_explicit(hdr_at(r, t), (uint64_t)(uint32_t)eng_wire_pid << 32 | need | HDR_RESV,
				      memory_order_relaxed);
		*tok = (t & (ENG_RING_BYTES - 1)) | (need << 32);
		return r->data + (t & (ENG_RING_BYTES - 1)) + 8;
	}
}

void eng_ring_commit(struct eng_ring *r, uint64_t tok)
{
	uint64_t pos = tok & 0xffffffffu, need = tok >> 32;
	atomic_store_explicit(hdr_at(r, pos), need | HDR_COMMIT, memory_order_release);
}

void eng_ring_cancel(struct eng_ring *r, uint64_t tok)
{
	/* a reservation given back: committed as padding, which the consumer skips */
	uint64_t pos = tok & 0xffffffffu, need = tok >> 32;
	atomic_store_explicit(hdr_at(r, pos), need | HDR_PAD | HDR_COMMIT, memory_order_release);
}

int eng_ring_skip_abandoned(struct eng_ring *r, int (*gone)(int pid))
{
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (h == atomic_load_explicit(&r->tail, memory_order_acquire))
		return 0;
	uint64_t w = atomic_load_explicit(hdr_at(r, h), memory_order_acquire);
	if ((w & (HDR_COMMIT | HDR_RESV)) != HDR_RESV)
		return 0;
	int pid = (int)(w >> 32);
	if (pid <= 0 || pid == eng_wire_pid || !gone(pid))
		return 0;
	/* As eng_ring_cancel would have: padding the consumer skips. A compare-and-swap, not a store, although a
	 * producer that is gone cannot commit any more. */
	uint64_t need = w & 0xffffffffull & ~(uint64_t)(REC_ALIGN - 1);
	return atomic_compare_exchange_strong_explicit(hdr_at(r, h), &w, need | HDR_PAD | HDR_COMMIT,
						       memory_order_release, memory_order_relaxed);
}

void *eng_ring_peek(struct eng_ring *r, size_t *len)
{
	for (;;) {
		uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
		if (h == atomic_load_explicit(&r->tail, memory_order_acquire))
			return NULL;
		uint64_t w = atomic_load_explicit(hdr_at(r, h), memory_order_acquire);
		if (!(w & HDR_COMMIT))
			return NULL; /* reserved, not yet written */
		uint64_t rec = w & ~(uint64_t)(REC_ALIGN - 1);
		if (w & HDR_PAD) {
			for (uint64_t o = 0; o < rec; o += REC_ALIGN)
				atomic_store_explicit(hdr_at(r, h + o), 0, memory_order_relaxed);
			atomic_store_explicit(&r->head, h + rec, memory_order_release);
			continue;
		}
		*len = rec - 8;
		return r->data + (h & (ENG_RING_BYTES - 1)) + 8;
	}
}

void eng_ring_pop(struct eng_ring *r)
{
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t w = atomic_load_explicit(hdr_at(r, h), memory_order_relaxed);
	uint64_t rec = w & ~(uint64_t)(REC_ALIGN - 1);
	/* Clear every slot a future header could occupy (see eng_wire.h). */
	for (uint64_t o = 0; o < rec; o += REC_ALIGN)
		atomic_store_explicit(hdr_at(r, h + o), 0, memory_order_relaxed);
	atomic_store_explicit(&r->head, h + rec, memory_order_release);
}

/*
 * Kicks held back from owners that poll. With a high-priority engine thread (eng_base.c), a futex wake preempts
 * whatever runs on the woken CPU, often the very poller that would have taken the packet itself in its next
 * pass, a microsecond later: ib_send_lat went from 3 us to 18 us typical. So a producer whose target's owner ran
 * a pass in the last ENG_POLL_FRESH_NS leaves the wake-up here; the producer's next passes deliver it after
 * ENG_KICK_DEFER_NS if the packet is still there, and a thread about to stop running passes delivers all.
 * Only touched under G.lock (every producer runs inside an engine pass).
 */
#define ENG_POLL_FRESH_NS 3000ull
#define ENG_KICK_DEFER_NS 3000ull
#define ENG_DEFER_MAX 16
static struct {
	struct eng_inbox *ib;
	uint64_t due;
} deferred[ENG_DEFER_MAX];
static _Atomic int ndeferred; /* read without G.lock by eng_inbox_deferred_pending only */

static uint64_t wire_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Wake the inbox's engine thread if it is still announced as sleeping. The first producer to find it so takes the
 * announcement down and makes the system call; the others, committing packets before that thread even runs again,
 * see it awake and make none. Measured why: in ib_write_bw -s 8 the client committed a packet every 1-2 us while a
 * wake-up took the server's engine 50-150 us on the 2-core test VM, a futex wake per packet meanwhile; in the slow
 * runs (0.35-0.45 M msg/s, half the fast ones) those system calls were a quarter of the client thread's time.
 * No wake-up is lost: the sleeper reads wake_seq before it announces itself, and looks at the rings after. */
static void wake(struct eng_inbox *ib)
{
	if (!atomic_exchange_explicit(&ib->sleeping, 0, memory_order_acq_rel))
		return;
	atomic_fetch_add_explicit(&ib->wake_seq, 1, memory_order_release);
	/* not FUTEX_PRIVATE_FLAG: the word lives in a file mapped by several processes */
	syscall(SYS_futex, &ib->wake_seq, FUTEX_WAKE, 1, NULL, NULL, 0);
}

uint64_t eng_ring_used(struct eng_ring *r)
{
	return atomic_load_explicit(&r->tail, memory_order_relaxed) - atomic_load_explicit(&r->head, memory_order_relaxed);
}

static int ring_busy(struct eng_ring *r)
{
	return atomic_load_explicit(&r->head, memory_order_acquire) != atomic_load_explicit(&r->tail, memory_order_acquire);
}

void eng_inbox_kick(struct eng_inbox *ib)
{
	/* Dekker with eng_inbox_wait: the commit (release store) and this load are ordered by the fence, as are the
	 * sleeper's store of sleeping and its look at the rings; one of the two sides sees the other. Without it this
	 * side could read sleeping == 0 while the sleeper reads empty rings, and the packet would wait a whole sleep. */
	sleep_wake_barrier();
	if (!atomic_load_explicit(&ib->sleeping, memory_order_relaxed))
		return;
	uint64_t now = wire_now_ns();
	if (now - atomic_load_explicit(&ib->poll_ns, memory_order_relaxed) < ENG_POLL_FRESH_NS) {
		for (int i = 0; i < ndeferred; i++)
			if (deferred[i].ib == ib)
				return; /* already held back: keep its first due time */
		if (ndeferred < ENG_DEFER_MAX) {
			deferred[ndeferred].ib = ib;
			deferred[ndeferred++].due = now + ENG_KICK_DEFER_NS;
			return;
		}
	}
	wake(ib);
}

void eng_inbox_kick_deferred(uint64_t now, int all)
{
	for (int i = 0; i < ndeferred;) {
		struct eng_inbox *ib = deferred[i].ib;
		int busy = ring_busy(&ib->req) || ring_busy(&ib->resp);
		/* Held while its owner still polls, too: a thread that lends a pass every microsecond or two (ib_write_bw's
		 * client between posts and polls) takes the packet itself, and a woken engine thread only competes with
		 * it and the other engines for the two cores (measured: 6700 wake-ups a second of ib_write_bw's client
		 * engine, each of which made the server's engine stop spinning and sleep). */
		uint64_t polled = atomic_load_explicit(&ib->poll_ns, memory_order_relaxed);
		int still_polled = polled <= now && now - polled < ENG_POLL_FRESH_NS;
		if (busy && !all && (now < deferred[i].due || still_polled)) {
			i++;
			continue;
		}
		if (busy)
			wake(ib);
		deferred[i] = deferred[--ndeferred];
	}
}

int eng_inbox_deferred_pending(void)
{
	return atomic_load_explicit(&ndeferred, memory_order_relaxed) != 0;
}

void eng_inbox_forget_deferred(void)
{
	ndeferred = 0;
}

/* An inbox about to be unmapped must not stay in the deferred list. */
static void forget_deferred_inbox(struct eng_inbox *ib)
{
	for (int i = 0; i < ndeferred;)
		if (deferred[i].ib == ib)
			deferred[i] = deferred[--ndeferred];
		else
			i++;
}

int eng_inbox_wait(struct eng_inbox *ib, long ns)
{
	uint32_t seq = atomic_load_explicit(&ib->wake_seq, memory_order_acquire);
	atomic_store_explicit(&ib->sleeping, 1, memory_order_relaxed);
	sleep_wake_barrier(); /* the other half of eng_inbox_kick's: sleeping is visible before the rings are looked at */
	if (!ring_busy(&ib->req) && !ring_busy(&ib->resp)) {
		struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
		syscall(SYS_futex, &ib->wake_seq, FUTEX_WAIT, seq, &ts, NULL, 0);
	}
	atomic_store_explicit(&ib->sleeping, 0, memory_order_relaxed);
	return ring_busy(&ib->req) || ring_busy(&ib->resp);
}

static void inbox_name(char *buf, size_t n, const char *fabric, int pid)
{
	snprintf(buf, n, "/%s-eng-%d", fabric, pid);
}

/* A process killed by a signal never runs its exit path, so its 16 MiB inbox stays in /dev/shm. Each new engine
 * removes the inboxes of this fabric whose process no longer exists. */
static void reap_stale_inboxes(const char *fabric)
{
	char prefix[300];
	int plen = snprintf(prefix, sizeof prefix, "%s-eng-", fabric);
	if (plen <= 0 || (size_t)plen >= sizeof prefix)
		return;
	emu_shm_reap_dead(prefix);
}

/* A stale file of a dead process that had our pid is replaced, not reused (EMU_SHM_REPLACE). */
struct eng_inbox *eng_inbox_create(const char *fabric, int pid, uint32_t id)
{
	char name[300];
	reap_stale_inboxes(fabric);
	inbox_name(name, sizeof name, fabric, pid);
	void *p;
	if (emu_shm_create(name, sizeof(struct eng_inbox), EMU_SHM_REPLACE, &p) != 0)
		return NULL;
	struct eng_inbox *ib = p;
	ib->pid = pid;
	ib->id = id;
	emu_shm_publish(ib, ENG_WIRE_MAGIC);
	return ib;
}

void eng_inbox_destroy(struct eng_inbox *ib, const char *fabric, int pid)
{
	char name[300];
	inbox_name(name, sizeof name, fabric, pid);
	shm_unlink(name);
	if (ib) {
		forget_deferred_inbox(ib);
		munmap(ib, sizeof(struct eng_inbox));
	}
}

struct eng_inbox *eng_inbox_open(const char *fabric, int pid, uint32_t id)
{
	char name[300];
	inbox_name(name, sizeof name, fabric, pid);
	struct eng_inbox *ib = emu_shm_attach(name, sizeof(struct eng_inbox), ENG_WIRE_MAGIC);
	if (ib && (ib->pid != pid || ib->id != id)) {
		munmap(ib, sizeof(struct eng_inbox));
		return NULL;
	}
	return ib;
}

void eng_inbox_unmap(struct eng_inbox *ib)
{
	if (ib) {
		forget_deferred_inbox(ib);
		munmap(ib, sizeof(struct eng_inbox));
	}
}
