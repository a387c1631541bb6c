/* SPDX-License-Identifier: Apache-2.0 */
/* The fabric registry: one /dev/shm file per fabric (env MLX5EMU_FABRIC, default "mlx5emu-<uid>") shared by
 * every process on the emulated fabric, so QPNs, CQNs, SRQNs, PDNs and memory keys are unique fabric-wide
 * and a QP can be found by number from any process. Layout: struct emu_registry in emu_objects.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu_barrier.h"
#include "emu_shm.h"
#include "kernel.h"

static struct emu_registry *g_reg;
static int g_self_slot = -1;
static pthread_mutex_t g_attach_lock = PTHREAD_MUTEX_INITIALIZER;

struct emu_registry *emu_registry(void) { return g_reg; }
int emu_reg_self_slot(void) { return g_self_slot; }

static void reg_lock(void)
{
	int rc = pthread_mutex_lock(&g_reg->lock);
	if (rc == EOWNERDEAD) /* a process died holding it; entries are written under a seqlock, so it is safe */
		pthread_mutex_consistent(&g_reg->lock);
}

static void reg_unlock(void)
{
	pthread_mutex_unlock(&g_reg->lock);
}

static int pid_dead(int32_t pid)
{
	return pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH);
}

/* Reclaims entries of processes that exited without cleaning up (killed), and those of stale_pid (0: none).
 * Called under reg_lock. */
static void reap_dead(int32_t stale_pid)
{
	for (int i = 0; i < EMU_REG_MAX_PROCS; i++) {
		int32_t pid = atomic_load(&g_reg->procs[i].pid);
		if (pid && (pid == stale_pid || pid_dead(pid))) {
			atomic_store(&g_reg->procs[i].alive, 0);
			atomic_store(&g_reg->procs[i].inbox, 0);
			atomic_store(&g_reg->procs[i].pid, 0);
		}
	}
	for (int i = 0; i < EMU_REG_QP_SLOTS; i++) {
		struct emu_reg_qp *e = &g_reg->qps[i];
		if (e->qpn && (e->pid == stale_pid || pid_dead(e->pid))) {
			atomic_fetch_add(&e->seq, 1);
			e->qpn = 0;
			atomic_fetch_add(&e->seq, 1);
		}
	}
}

/* Any size will do: a registry of another layout is told by its header (version, size) once published. */
static int map_registry(void)
{
	char name[256];
	emu_shm_name(name, sizeof name, "");
	void *p;
	int created;
	int err = emu_shm_create_or_attach(name, sizeof(struct emu_registry), 0, &p, &created);
	if (err)
		return err;
	struct emu_registry *r = p;
	if (created) {
		pthread_mutexattr_t a;
		pthread_mutexattr_init(&a);
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
		pthread_mutex_init(&r->lock, &a);
		pthread_mutexattr_destroy(&a);
		r->version = EMU_REG_VERSION;
		r->size = sizeof(struct emu_registry);
		atomic_store(&r->next_qp_gen, 1);
		atomic_store(&r->next_cqn, 0x400);
		atomic_store(&r->next_srqn, 0x100);
		atomic_store(&r->next_pdn, 0x10);
		atomic_store(&r->next_mkey, 0x100);
		emu_shm_publish(r, EMU_REG_MAGIC);
	} else if (!emu_shm_wait_published(r, EMU_REG_MAGIC) || r->version != EMU_REG_VERSION ||
		   r->size != sizeof(struct emu_registry)) {
		munmap(p, sizeof(struct emu_registry));
		emu_log("fabric registry %s has a different layout; remove it or set MLX5EMU_FABRIC", name);
		return EPROTO;
	}
	g_reg = r;
	return 0;
}

int emu_reg_attach(void)
{
	int rc = 0;

	pthread_mutex_lock(&g_attach_lock);
	if (!g_reg)
		rc = map_registry();
	if (!rc && g_self_slot < 0) {
		reg_lock();
		/* Entries with this pid that this image did not make are stale: the image before an exec (it never
		 * reached emu_reg_detach_process), or a killed process whose pid this one got. Peers would otherwise take
		 * them for live QPs of this process. */
		reap_dead((int32_t)getpid());
		for (int i = 0; i < EMU_REG_MAX_PROCS; i++) {
			int32_t zero = 0;
			if (atomic_compare_exchange_strong(&g_reg->procs[i].pid, &zero, (int32_t)getpid())) {
				atomic_store(&g_reg->procs[i].inbox, 0);
				for (int w = 0; w < 6; w++)
					atomic_store(&g_reg->procs[i].engine_word[w], 0);
				atomic_store(&g_reg->procs[i].alive, 1);
				g_self_slot = i;
				break;
			}
		}
		reg_unlock();
		if (g_self_slot < 0)
			rc = EAGAIN;
	}
	pthread_mutex_unlock(&g_attach_lock);
	return rc;
}

void emu_reg_detach_process(void)
{
	if (!g_reg || g_self_slot < 0)
		return;
	reg_lock();
	int32_t me = (int32_t)getpid();
	for (int i = 0; i < EMU_REG_QP_SLOTS; i++) {
		struct emu_reg_qp *e = &g_reg->qps[i];
		if (e->qpn && e->pid == me) {
			atomic_fetch_add(&e->seq, 1);
			e->qpn = 0;
			atomic_fetch_add(&e->seq, 1);
		}
	}
	atomic_store(&g_reg->procs[g_self_slot].alive, 0);
	atomic_store(&g_reg->procs[g_self_slot].pid, 0);
	g_self_slot = -1;
	reg_unlock();
}

/* The child of a fork owns nothing in the registry; it registers itself when it opens a device. */
void emu_reg_after_fork_child(void)
{
	pthread_mutex_init(&g_attach_lock, NULL);
	g_self_slot = -1;
}

uint32_t emu_reg_alloc_cqn(void) { return atomic_fetch_add(&g_reg->next_cqn, 1) & 0xffffff; }
uint32_t emu_reg_alloc_srqn(void) { return atomic_fetch_add(&g_reg->next_srqn, 1) & 0xffffff; }
uint32_t emu_reg_alloc_pdn(void) { return atomic_fetch_add(&g_reg->next_pdn, 1) & 0xffffff; }

/* mkey = 24-bit index << 8 | 8-bit tag; index never 0 and wraps within 24 bits. */
uint32_t emu_reg_alloc_mkey(void)
{
	uint32_t idx = atomic_fetch_add(&g_reg->next_mkey, 1) & 0xffffff;
	if (idx == 0)
		idx = atomic_fetch_add(&g_reg->next_mkey, 1) & 0xffffff;
	return (idx << 8) | ((idx * 0x9du) & 0xff);
}

static void fill_entry(struct emu_reg_qp *e, const struct emu_qp *qp)
{
	const struct emu_port_info *p = qp->ctx->port;
	e->pid = (int32_t)getpid();
	e->proc_slot = g_self_slot;
	e->dev_index = (uint32_t)qp->ctx->dev_index;
	e->port = 1;
	e->type = (uint8_t)qp->type;
	e->state = (uint8_t)qp->state;
	e->link_layer = (uint8_t)p->link_layer;
	e->lid = p->lid;
	e->qkey = qp->qkey;
	e->dest_qp_num = qp->dest_qp_num;
	e->srqn = qp->srq ? qp->srq->srqn : 0;
	memcpy(e->gid, p->gid[0].raw, 16);
}

int emu_reg_qp_alloc(struct emu_qp *qp)
{
	static _Atomic uint32_t hint = 2;
	int rc = ENOMEM;

	reg_lock();
	for (int pass = 0; pass < 2 && rc; pass++) {
		if (pass)
			reap_dead(0);
		for (uint32_t n = 0; n < EMU_REG_QP_SLOTS; n++) {
			uint32_t slot = (atomic_fetch_add(&hint, 1) + n) & (EMU_REG_QP_SLOTS - 1);
			struct emu_reg_qp *e = &g_reg->qps[slot];
			if (slot < 2 || e->qpn)
				continue;
			uint32_t gen = atomic_fetch_add(&g_reg->next_qp_gen, 1) & 0xfff;
			if (gen == 0)
				gen = 1;
			qp->qpn = (gen << EMU_REG_SLOT_BITS) | slot;
			qp->reg_slot = (int)slot;
			atomic_fetch_add(&e->seq, 1);
			fill_entry(e, qp);
			atomic_store(&e->engine_word, 0);
			e->qpn = qp->qpn;
			atomic_fetch_add(&e->seq, 1);
			rc = 0;
			break;
		}
	}
	reg_unlock();
	return rc;
}

void emu_reg_qp_update(const struct emu_qp *qp)
{
	struct emu_reg_qp *e = &g_reg->qps[qp->reg_slot];
	reg_lock();
	if (e->qpn == qp->qpn) {
		atomic_fetch_add(&e->seq, 1);
		fill_entry(e, qp);
		atomic_fetch_add(&e->seq, 1);
	}
	reg_unlock();
}

void emu_reg_qp_free(const struct emu_qp *qp)
{
	struct emu_reg_qp *e = &g_reg->qps[qp->reg_slot];
	reg_lock();
	if (e->qpn == qp->qpn) {
		atomic_fetch_add(&e->seq, 1);
		e->qpn = 0;
		atomic_fetch_add(&e->seq, 1);
	}
	reg_unlock();
}

int emu_reg_qp_get(uint32_t qpn, struct emu_reg_qp *out)
{
	if (!g_reg)
		return -1;
	struct emu_reg_qp *e = &g_reg->qps[qpn & (EMU_REG_QP_SLOTS - 1)];
	for (int spins = 0;; spins++) {
		uint32_t s1 = atomic_load(&e->seq);
		if (s1 & 1) {
			if (spins > 1000000)
				return -1; /* the writer died mid-update; treat the entry as gone */
			continue;
		}
		/* copy field by field: the struct has atomics, and a torn copy is rejected by the seq check */
		out->qpn = e->qpn;
		out->pid = e->pid;
		out->proc_slot = e->proc_slot;
		out->dev_index = e->dev_index;
		out->port = e->port;
		out->type = e->type;
		out->state = e->state;
		out->link_layer = e->link_layer;
		out->lid = e->lid;
		out->reserved = 0;
		out->qkey = e->qkey;
		out->dest_qp_num = e->dest_qp_num;
		out->srqn = e->srqn;
		memcpy(out->gid, e->gid, 16);
		atomic_store(&out->engine_word, atomic_load(&e->engine_word));
		seq_read_retry_barrier(); /* else the fields could be read after the check and torn by a writer */
		if (atomic_load(&e->seq) == s1)
			break;
	}
	atomic_store(&out->seq, 0);
	if (out->qpn != qpn || qpn == 0)
		return -1;
	/* a process killed without cleaning up leaves its entries behind: they are not live QPs */
	if (out->pid != (int32_t)getpid() && pid_dead(out->pid))
		return -1;
	return 0;
}
