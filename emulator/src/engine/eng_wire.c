/*
 * eng_wire.c - shared-memory rings between engines (protocol described in eng_wire.h).
 */
#include "engine/eng_wire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDR_COMMIT 1ull
#define HDR_PAD    2ull
#define REC_ALIGN  64u

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

static void inbox_name(char *buf, size_t n, const char *fabric, int pid)
{
	snprintf(buf, n, "/%s-eng-%d", fabric, pid);
}

/* A process killed by a signal never runs its exit path, so its 16 MiB inbox stays in /dev/shm. Each new engine
 * removes the inboxes of this fabric whose process no longer exists (kill(pid, 0) says ESRCH; EPERM means alive). */
static void reap_stale_inboxes(const char *fabric)
{
	char prefix[300];
	int plen = snprintf(prefix, sizeof prefix, "%s-eng-", fabric);
	if (plen <= 0 || (size_t)plen >= sizeof prefix)
		return;
	DIR *d = opendir("/dev/shm");
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		if (strncmp(e->d_name, prefix, (size_t)plen) != 0)
			continue;
		char *end;
		long pid = strtol(e->d_name + plen, &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX)
			continue;
		if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			char name[300];
			inbox_name(name, sizeof name, fabric, (int)pid);
			shm_unlink(name);
		}
	}
	closedir(d);
}

struct eng_inbox *eng_inbox_create(const char *fabric, int pid)
{
	char name[300];
	reap_stale_inboxes(fabric);
	inbox_name(name, sizeof name, fabric, pid);
	shm_unlink(name); /* a stale file of a dead process that had our pid */
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, sizeof(struct eng_inbox)) != 0) {
		close(fd);
		shm_unlink(name);
		return NULL;
	}
	void *p = mmap(NULL, sizeof(struct eng_inbox), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		shm_unlink(name);
		return NULL;
	}
	struct eng_inbox *ib = p;
	ib->pid = pid;
	atomic_thread_fence(memory_order_release);
	ib->magic = ENG_WIRE_MAGIC;
	return ib;
}

void eng_inbox_destroy(struct eng_inbox *ib, const char *fabric, int pid)
{
	char name[300];
	inbox_name(name, sizeof name, fabric, pid);
	shm_unlink(name);
	if (ib)
		munmap(ib, sizeof(struct eng_inbox));
}

struct eng_inbox *eng_inbox_open(const char *fabric, int pid)
{
	char name[300];
	inbox_name(name, sizeof name, fabric, pid);
	int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct eng_inbox)) {
		close(fd);
		return NULL;
	}
	void *p = mmap(NULL, sizeof(struct eng_inbox), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	struct eng_inbox *ib = p;
	if (ib->magic != ENG_WIRE_MAGIC || ib->pid != pid) {
		munmap(p, sizeof(struct eng_inbox));
		return NULL;
	}
	return ib;
}

void eng_inbox_unmap(struct eng_inbox *ib)
{
	if (ib)
		munmap(ib, sizeof(struct eng_inbox));
}
