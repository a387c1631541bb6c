/* SPDX-License-Identifier: Apache-2.0 */
/* The CM "wire" between processes of one fabric.
 *
 * - The directory, /dev/shm/<fabric>-cm: every bound rdma_cm id (port space, address, port, owner pid and id),
 *   so ports are unique fabric-wide (one host: every emulated port shares the loopback addresses' port space,
 *   as rdma_cm ports are per network namespace) and a REQ finds its listener. Entries of dead processes are
 *   ignored and reclaimed.
 * - A mailbox per process, /dev/shm/<fabric>-cm-<pid>: a ring of struct cm_msg under a robust process-shared
 *   mutex plus a futex word the owner's CM thread sleeps on. A message to a process that is gone, or whose ring
 *   is full, is lost, as a MAD can be: the sender's timers decide what happens then, as on a fabric.
 * Callers serialize: everything here runs under the ucma lock (emu_ucma_lock, ucma_state.h). */
#include <errno.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "emu_shm.h"
#include "ucma.h"

#define DIR_MAGIC   0x32444d43554d45ULL /* "EMUCMD2" */
#define MBOX_MAGIC  0x32424d43554d45ULL /* "EMUCMB2": 4096 slots (a build of 128 reads another layout) */
#define DIR_SLOTS   2048
/* A client of 1,024 connections sends its 1,024 REQs in one burst, and the REQ is sent once (no MAD retries):
 * with 128 slots ucmatose -c 1024 lost some 125 REQs to a full ring and failed with UNREACHABLE after the CM
 * timeout. The ring lives in a sparse /dev/shm file: untouched slots cost no memory. */
#define MBOX_SLOTS  4096
#define PORT_LO     32768               /* Linux ip_local_port_range default: 32768..60999 */
#define PORT_HI     60999

struct cm_dir_entry {
	int32_t  pid;                    /* 0 = free */
	uint32_t id;
	uint64_t cookie;
	uint16_t ps;
	uint16_t port;
	uint8_t  state;                  /* enum cm_dir_state */
	uint8_t  reuse, afonly;
	uint8_t  family;
	uint8_t  addr[16];
};

/* One QP attached to a multicast group (ATTACH_MCAST); the engine sends a UD message for QPN 0xffffff to each. */
struct cm_mc_entry {
	int32_t  pid;                    /* 0 = free */
	uint32_t qpn;
	uint8_t  gid[16];
};

struct cm_dir {
	uint64_t         magic;          /* emu_shm_publish */
	pthread_mutex_t  lock;
	uint32_t         next_port;
	struct cm_dir_entry e[DIR_SLOTS];
	struct cm_mc_entry  mc[EMU_MCAST_ATTACH_MAX];
};

struct cm_mbox {
	uint64_t         magic;          /* emu_shm_publish */
	int32_t          pid;
	pthread_mutex_t  lock;
	_Atomic uint32_t futex;          /* bumped by every sender */
	uint32_t         head, tail;     /* head: next to read; tail: next to write */
	struct cm_msg    ring[MBOX_SLOTS];
};

static struct cm_dir *g_dir;
static pthread_mutex_t g_map_lock = PTHREAD_MUTEX_INITIALIZER; /* the engine may map the directory too */
static struct cm_mbox *g_self;
static char g_self_name[256];

#define PEER_CACHE 32
static struct { int32_t pid; struct cm_mbox *mb; } g_peers[PEER_CACHE];

int cm_pid_dead(int32_t pid)
{
	return pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH);
}

/* A directory left by a process of another emulator version (its format differs: another size or magic) is
 * replaced, once: processes of two versions could not have talked anyway, and without this every later run on the
 * same fabric name would fail with EIO (or SIGBUS, reading past a shorter file). */
static int map_dir(void)
{
	char name[256];
	emu_shm_name(name, sizeof(name), "-cm");
	for (int attempt = 0;; attempt++) {
		void *p;
		int created;
		int err = emu_shm_create_or_attach(name, sizeof(struct cm_dir), 1, &p, &created);
		if (err == ESTALE) {
			if (attempt > 0)
				return EIO;
			shm_unlink(name); /* another version's directory */
			continue;
		}
		if (err)
			return err;
		struct cm_dir *d = p;
		if (created) {
			emu_shm_robust_init(&d->lock);
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			d->next_port = PORT_LO + (uint32_t)(ts.tv_nsec % (PORT_HI - PORT_LO + 1));
			emu_shm_publish(d, DIR_MAGIC);
		} else if (!emu_shm_wait_published(d, DIR_MAGIC)) {
			munmap(p, sizeof(struct cm_dir));
			if (attempt > 0)
				return EIO;
			shm_unlink(name); /* same size, another version's magic */
			continue;
		}
		g_dir = d;
		return 0;
	}
}

/* A process killed by a signal never reaches cm_wire_fini, so its mailbox stays in /dev/shm. Each process that
 * creates its mailbox first removes this fabric's mailboxes whose process is gone, as each new engine does with the
 * engine inboxes (eng_wire.c reap_stale_inboxes). */
static void reap_dead_mboxes(void)
{
	char prefix[256];
	emu_shm_name(prefix, sizeof(prefix), "-cm-");
	emu_shm_reap_dead(prefix + 1); /* without the shm name's leading '/', as /dev/shm lists it */
}

/* A mailbox left by a dead process that had our pid is reused (EMU_SHM_TRUNCATE): a peer that still maps it finds
 * the pid alive and the magic valid again, and its messages reach this process. */
static int create_mbox(void)
{
	char suffix[32];
	snprintf(suffix, sizeof(suffix), "-cm-%d", (int)getpid());
	emu_shm_name(g_self_name, sizeof(g_self_name), suffix);
	void *p;
	int err = emu_shm_create(g_self_name, sizeof(struct cm_mbox), EMU_SHM_TRUNCATE, &p);
	if (err)
		return err;
	struct cm_mbox *mb = p;
	emu_shm_robust_init(&mb->lock);
	mb->pid = (int32_t)getpid();
	emu_shm_publish(mb, MBOX_MAGIC);
	g_self = mb;
	return 0;
}

int cm_wire_init(void)
{
	if (g_self && g_self->pid == (int32_t)getpid())
		return 0;
	g_self = NULL; /* after fork: the parent's mailbox is not ours */
	memset(g_peers, 0, sizeof(g_peers));
	int err = cm_dir_ready();
	if (!err) {
		reap_dead_mboxes();
		err = create_mbox();
	}
	return err;
}

int cm_dir_ready(void)
{
	int err = 0;
	pthread_mutex_lock(&g_map_lock);
	if (!g_dir)
		err = map_dir();
	pthread_mutex_unlock(&g_map_lock);
	return err;
}

/* ---- this process's leftovers ---- */

/* The pid whose directory entries this image has reclaimed (0: none yet). An image starts from 0 after exec; a fork
 * child has its parent's pid here, not its own. */
static int32_t g_claimed_pid;

/* Entries (bound ids, multicast attachments) that hold this process's pid before this image made any: the image
 * before an exec, whose rdma_cm file the kernel would have closed with it (librdmacm opens it O_CLOEXEC), or a
 * killed process whose pid this one got. Left there, they keep their ports bound (a server that re-execs itself
 * got EADDRINUSE) and catch REQs for a listener that no longer exists. Called under the directory lock by
 * everything that adds an entry, so that no entry of this image is ever taken for one. */
static void claim_pid_locked(void)
{
	int32_t me = (int32_t)getpid();
	if (g_claimed_pid == me)
		return;
	for (int i = 0; i < DIR_SLOTS; i++)
		if (g_dir->e[i].pid == me) {
			g_dir->e[i].state = CM_DIR_FREE;
			g_dir->e[i].pid = 0;
		}
	for (int i = 0; i < EMU_MCAST_ATTACH_MAX; i++)
		if (g_dir->mc[i].pid == me)
			g_dir->mc[i].pid = 0;
	g_claimed_pid = me;
}

/* ---- multicast attachments ---- */

int cm_mcast_attach(const uint8_t gid[16], uint32_t qpn)
{
	if (cm_dir_ready())
		return ENOMEM;
	int rc = ENOMEM, free_slot = -1;
	emu_shm_robust_lock(&g_dir->lock);
	claim_pid_locked();
	for (int i = 0; i < EMU_MCAST_ATTACH_MAX; i++) {
		struct cm_mc_entry *m = &g_dir->mc[i];
		if (m->pid && (m->pid == (int32_t)getpid() || !cm_pid_dead(m->pid))) {
			if (m->qpn == qpn && memcmp(m->gid, gid, 16) == 0) {
				rc = 0; /* already attached */
				free_slot = -1;
				break;
			}
		} else if (free_slot < 0) {
			free_slot = i;
		}
	}
	if (free_slot >= 0) {
		struct cm_mc_entry *m = &g_dir->mc[free_slot];
		memcpy(m->gid, gid, 16);
		m->qpn = qpn;
		m->pid = (int32_t)getpid();
		rc = 0;
	}
	pthread_mutex_unlock(&g_dir->lock);
	return rc;
}

int cm_mcast_detach(const uint8_t gid[16], uint32_t qpn)
{
	if (cm_dir_ready())
		return EINVAL;
	int rc = EINVAL;
	emu_shm_robust_lock(&g_dir->lock);
	for (int i = 0; i < EMU_MCAST_ATTACH_MAX; i++) {
		struct cm_mc_entry *m = &g_dir->mc[i];
		if (m->pid == (int32_t)getpid() && m->qpn == qpn && (!gid || memcmp(m->gid, gid, 16) == 0)) {
			m->pid = 0;
			rc = 0;
		}
	}
	pthread_mutex_unlock(&g_dir->lock);
	return rc;
}

int emu_mcast_members(const uint8_t gid[16], uint32_t *qpns, int max)
{
	if (cm_dir_ready())
		return 0;
	int n = 0;
	emu_shm_robust_lock(&g_dir->lock);
	for (int i = 0; i < EMU_MCAST_ATTACH_MAX && n < max; i++) {
		struct cm_mc_entry *m = &g_dir->mc[i];
		if (m->pid && memcmp(m->gid, gid, 16) == 0 && (m->pid == (int32_t)getpid() || !cm_pid_dead(m->pid)))
			qpns[n++] = m->qpn;
	}
	pthread_mutex_unlock(&g_dir->lock);
	return n;
}

void cm_wire_fini(void)
{
	if (g_self && g_self->pid == (int32_t)getpid())
		shm_unlink(g_self_name);
}

/* ---- directory ---- */

static void entry_addr(const struct cm_dir_entry *e, struct sockaddr_in6 *s)
{
	memset(s, 0, sizeof(*s));
	s->sin6_family = e->family;
	if (e->family == AF_INET)
		memcpy(&((struct sockaddr_in *)s)->sin_addr, e->addr, 4);
	else
		memcpy(&s->sin6_addr, e->addr, 16);
	emu_cm_addr_set_port((struct sockaddr *)s, e->port);
}

/* Do two bound addresses of one port overlap? A wildcard covers its family; an IPv6 wildcard without
 * AFONLY covers IPv4 as well (the kernel's cma_addr_cmp / cma_any_addr rules, simplified to what ports see). */
static int overlap(const struct sockaddr *a, int a_afonly, const struct sockaddr *b, int b_afonly)
{
	if (a->sa_family != b->sa_family) {
		const struct sockaddr *v6 = a->sa_family == AF_INET6 ? a : b;
		int v6_afonly = a->sa_family == AF_INET6 ? a_afonly : b_afonly;
		return emu_cm_addr_any(v6) && !v6_afonly;
	}
	return emu_cm_addr_any(a) || emu_cm_addr_any(b) || emu_cm_addr_equal(a, b);
}

static int entry_live(struct cm_dir_entry *e)
{
	if (!e->pid)
		return 0;
	if (e->pid != (int32_t)getpid() && cm_pid_dead(e->pid)) {
		e->pid = 0; /* its owner was killed without cleaning up */
		e->state = CM_DIR_FREE;
		return 0;
	}
	return 1;
}

/* cma_check_port(): the port is taken unless both sides set REUSEADDR and the other is not listening. */
static int port_conflict(uint16_t ps, uint16_t port, const struct sockaddr *a, int reuse, int afonly, int listening,
			 int skip)
{
	for (int i = 0; i < DIR_SLOTS; i++) {
		struct cm_dir_entry *e = &g_dir->e[i];
		if (i == skip || !e->pid || e->ps != ps || e->port != port || !entry_live(e))
			continue;
		if (!listening && reuse && e->reuse && e->state != CM_DIR_LISTEN)
			continue;
		if (listening && e->state != CM_DIR_LISTEN && reuse && e->reuse)
			continue;
		struct sockaddr_in6 ea;
		entry_addr(e, &ea);
		if (overlap(a, afonly, (struct sockaddr *)&ea, e->afonly))
			return 1;
	}
	return 0;
}

int cm_dir_bind(uint16_t ps, struct sockaddr *addr, int reuse, int afonly, uint32_t id, uint64_t cookie)
{
	int slot = -1, rc = 0;
	uint16_t port = emu_cm_addr_port(addr);

	emu_shm_robust_lock(&g_dir->lock);
	claim_pid_locked();
	for (int i = 0; i < DIR_SLOTS && slot < 0; i++)
		if (!g_dir->e[i].pid || !entry_live(&g_dir->e[i]))
			slot = i;
	if (slot < 0) {
		rc = -EADDRNOTAVAIL;
		goto out;
	}
	if (port == 0) {
		uint32_t range = PORT_HI - PORT_LO + 1, n;
		for (n = 0; n < range; n++) {
			uint16_t cand = (uint16_t)(PORT_LO + (g_dir->next_port + n) % range);
			if (!port_conflict(ps, cand, addr, 0, afonly, 0, -1)) {
				port = cand;
				break;
			}
		}
		if (n == range) {
			rc = -EADDRNOTAVAIL;
			goto out;
		}
		g_dir->next_port = (g_dir->next_port + n + 1) % range;
	} else if (port_conflict(ps, port, addr, reuse, afonly, 0, -1)) {
		rc = -EADDRINUSE;
		goto out;
	}
	struct cm_dir_entry *e = &g_dir->e[slot];
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->cookie = cookie;
	e->ps = ps;
	e->port = port;
	e->state = CM_DIR_BOUND;
	e->reuse = (uint8_t)!!reuse;
	e->afonly = (uint8_t)!!afonly;
	e->family = (uint8_t)addr->sa_family;
	if (addr->sa_family == AF_INET)
		memcpy(e->addr, &((struct sockaddr_in *)addr)->sin_addr, 4);
	else
		memcpy(e->addr, &((struct sockaddr_in6 *)addr)->sin6_addr, 16);
	e->pid = (int32_t)getpid();
	emu_cm_addr_set_port(addr, port);
	rc = slot;
out:
	pthread_mutex_unlock(&g_dir->lock);
	return rc;
}

int cm_dir_listen(int slot)
{
	int rc = 0;
	emu_shm_robust_lock(&g_dir->lock);
	struct cm_dir_entry *e = &g_dir->e[slot];
	struct sockaddr_in6 a;
	entry_addr(e, &a);
	if (port_conflict(e->ps, e->port, (struct sockaddr *)&a, e->reuse, e->afonly, 1, slot))
		rc = EADDRINUSE;
	else
		e->state = CM_DIR_LISTEN;
	pthread_mutex_unlock(&g_dir->lock);
	return rc;
}

void cm_dir_release(int slot)
{
	if (slot < 0 || slot >= DIR_SLOTS || !g_dir)
		return;
	emu_shm_robust_lock(&g_dir->lock);
	if (g_dir->e[slot].pid == (int32_t)getpid()) {
		g_dir->e[slot].state = CM_DIR_FREE;
		g_dir->e[slot].pid = 0;
	}
	pthread_mutex_unlock(&g_dir->lock);
}

int cm_dir_count_listeners(uint16_t ps, uint16_t port)
{
	if (cm_dir_ready())
		return -1;
	int n = 0;
	emu_shm_robust_lock(&g_dir->lock);
	for (int i = 0; i < DIR_SLOTS; i++) {
		struct cm_dir_entry *e = &g_dir->e[i];
		if (e->pid && e->state == CM_DIR_LISTEN && e->ps == ps && e->port == port && entry_live(e))
			n++;
	}
	pthread_mutex_unlock(&g_dir->lock);
	return n;
}

int cm_dir_find_listener(uint16_t ps, const struct sockaddr *dst, struct cm_dir_hit *hit)
{
	int best = -1, best_exact = 0;
	uint16_t port = emu_cm_addr_port(dst);

	emu_shm_robust_lock(&g_dir->lock);
	for (int i = 0; i < DIR_SLOTS; i++) {
		struct cm_dir_entry *e = &g_dir->e[i];
		if (!e->pid || e->state != CM_DIR_LISTEN || e->ps != ps || e->port != port || !entry_live(e))
			continue;
		struct sockaddr_in6 ea;
		entry_addr(e, &ea);
		int exact = emu_cm_addr_equal((struct sockaddr *)&ea, dst);
		if (!exact && !overlap((struct sockaddr *)&ea, e->afonly, dst, 0))
			continue;
		if (exact && dst->sa_family != ea.sin6_family)
			continue;
		if (best < 0 || (exact && !best_exact)) {
			best = i;
			best_exact = exact;
		}
	}
	if (best >= 0) {
		hit->pid = g_dir->e[best].pid;
		hit->id = g_dir->e[best].id;
		hit->cookie = g_dir->e[best].cookie;
	}
	pthread_mutex_unlock(&g_dir->lock);
	return best >= 0 ? 0 : -1;
}

/* ---- mailboxes ---- */

static long futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

static struct cm_mbox *peer_mbox(int32_t pid)
{
	if (g_self && pid == g_self->pid)
		return g_self;
	int free_slot = -1;
	for (int i = 0; i < PEER_CACHE; i++) {
		if (g_peers[i].pid == pid && g_peers[i].mb) {
			if (!cm_pid_dead(pid) && g_peers[i].mb->pid == pid)
				return g_peers[i].mb;
			munmap(g_peers[i].mb, sizeof(struct cm_mbox));
			g_peers[i].pid = 0;
			g_peers[i].mb = NULL;
			return NULL;
		}
		if (!g_peers[i].mb && free_slot < 0)
			free_slot = i;
	}
	if (cm_pid_dead(pid))
		return NULL;
	char name[256], suffix[32];
	snprintf(suffix, sizeof(suffix), "-cm-%d", (int)pid);
	emu_shm_name(name, sizeof(name), suffix);
	struct cm_mbox *mb = emu_shm_attach(name, sizeof(struct cm_mbox), MBOX_MAGIC);
	if (!mb)
		return NULL;
	if (mb->pid != pid) {
		munmap(mb, sizeof(struct cm_mbox));
		return NULL;
	}
	if (free_slot < 0) { /* evict one; a later send maps it again */
		free_slot = (int)(pid % PEER_CACHE);
		munmap(g_peers[free_slot].mb, sizeof(struct cm_mbox));
	}
	g_peers[free_slot].pid = pid;
	g_peers[free_slot].mb = mb;
	return mb;
}

int cm_send(int32_t pid, const struct cm_msg *m)
{
	struct cm_mbox *mb = peer_mbox(pid);
	if (!mb)
		return -1;
	int rc = -1;
	emu_shm_robust_lock(&mb->lock);
	if (mb->tail - mb->head < MBOX_SLOTS) {
		mb->ring[mb->tail % MBOX_SLOTS] = *m;
		mb->tail++;
		rc = 0;
	}
	pthread_mutex_unlock(&mb->lock);
	atomic_fetch_add(&mb->futex, 1);
	futex(&mb->futex, FUTEX_WAKE, 1, NULL);
	return rc;
}

void cm_wake_self(void)
{
	if (!g_self)
		return;
	atomic_fetch_add(&g_self->futex, 1);
	futex(&g_self->futex, FUTEX_WAKE, 1, NULL);
}

int cm_recv(struct cm_msg *m, int timeout_ms)
{
	struct cm_mbox *mb = g_self;
	if (!mb)
		return 0;
	uint32_t seen = atomic_load(&mb->futex);
	for (int pass = 0; pass < 2; pass++) {
		int got = 0;
		emu_shm_robust_lock(&mb->lock);
		if (mb->head != mb->tail) {
			*m = mb->ring[mb->head % MBOX_SLOTS];
			mb->head++;
			got = 1;
		}
		pthread_mutex_unlock(&mb->lock);
		if (got || pass || timeout_ms <= 0)
			return got;
		struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
		futex(&mb->futex, FUTEX_WAIT, seen, &ts);
	}
	return 0;
}
