/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_objects.c - the engine's object tables: QP, CQ and MR lookups, processes and their inboxes on the fabric
 * (layer 1 of src/engine/LAYERS).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "engine/eng_internal.h"

/* ---------------- lookups ---------------- */

struct eng_qp *eng_find_qp(uint32_t qpn)
{
	struct eng_qp *qp = G.qp_by_slot[qpn & (EMU_REG_QP_SLOTS - 1)];
	return qp && qp->qpn == qpn ? qp : NULL;
}

struct eng_cq *eng_find_cq(uint32_t cqn)
{
	for (struct eng_cq *c = G.cqs; c; c = c->next)
		if (c->c->cqn == cqn)
			return c;
	return NULL;
}


struct eng_mr *eng_mr_check(uint32_t key, struct emu_pd *pd, uint64_t addr, uint64_t len, uint32_t access)
{
	for (struct eng_mr *m = G.mr_hash[eng_mr_bucket(key)]; m; m = m->next) {
		if (m->key != key)
			continue;
		if (pd && m->pd != pd)
			return NULL;
		if ((m->access & access) != access)
			return NULL;
		if (addr < m->addr || len > m->len || addr - m->addr > m->len - len)
			return NULL;
		return m;
	}
	return NULL;
}

/* Is process pid alive? (Signal 0 checks existence only; EPERM still means it exists.) */
int eng_pid_alive(int pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

/* The state letter of /proc/<pid>/stat ("R", "S", "T", "Z", ...), or 0 when it cannot be read. */
static char pid_state(int pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *p = strrchr(buf, ')'); /* "pid (comm) S ...": comm may contain spaces and parentheses */
	return p && p[1] == ' ' ? p[2] : 0;
}

int eng_pid_running(int pid)
{
	if (!eng_pid_alive(pid))
		return 0;
	char st = pid_state(pid); /* 0: no procfs, alive is all we know */
	return st != 'T' && st != 't' && st != 'Z' && st != 'X';
}

int eng_pid_gone(int pid)
{
	if (!eng_pid_alive(pid))
		return 1;
	char st = pid_state(pid);
	return st == 'Z' || st == 'X';
}

/* Consistent copy of the registry entry of qpn (seqlock protocol of emu_objects.h); only the fields the engine
 * needs. Returns 0 if the entry holds qpn. */
static int reg_qp_read(uint32_t qpn, struct emu_reg_qp *out)
{
	struct emu_registry *r = emu_registry();
	if (!r)
		return -1;
	struct emu_reg_qp *e = &r->qps[qpn & (EMU_REG_QP_SLOTS - 1)];
	for (int spins = 0; spins < 1000000; spins++) {
		uint32_t s1 = atomic_load(&e->seq);
		if (s1 & 1)
			continue;
		out->qpn = e->qpn;
		out->pid = e->pid;
		out->proc_slot = e->proc_slot;
		out->lid = e->lid;
		seq_read_retry_barrier(); /* else the fields could be read after the check and torn by a writer */
		if (atomic_load(&e->seq) == s1)
			return out->qpn == qpn && qpn ? 0 : -1;
	}
	return -1;
}

/* ---------------- other processes' inboxes ---------------- */

uint32_t eng_live_inbox_id(int slot, int pid)
{
	struct emu_registry *r = emu_registry();
	if (!r || slot < 0 || slot >= EMU_REG_MAX_PROCS)
		return 0;
	uint32_t id = atomic_load(&r->procs[slot].inbox);
	/* the owner after the id: a slot that changed hands in between shows the new owner's pid */
	return atomic_load(&r->procs[slot].pid) == pid ? id : 0;
}

uint32_t eng_inbox_id_of_pid(int pid)
{
	for (int i = 0; i < EMU_REG_MAX_PROCS; i++) {
		uint32_t id = eng_live_inbox_id(i, pid);
		if (id)
			return id;
	}
	return 0;
}

struct eng_inbox *eng_peer_cached(struct eng_peer *cache, int n, int pid, uint32_t id, int *freeslot)
{
	*freeslot = -1;
	for (int i = 0; i < n; i++) {
		if (cache[i].ib && cache[i].pid == pid && cache[i].id == id)
			return cache[i].ib;
		if (!cache[i].ib && *freeslot < 0)
			*freeslot = i;
	}
	return NULL;
}

int eng_peer_stale(const struct eng_peer *e)
{
	return !eng_pid_alive(e->pid) || eng_live_inbox_id(e->slot, e->pid) != e->id;
}

/* Unmap G.peers[i]; the QPs that send through it look their peer up again. */
static void drop_peer(int i)
{
	for (struct eng_qp *qp = G.qps; qp; qp = qp->next)
		if (qp->peer == G.peers[i].ib)
			qp->peer = NULL;
	eng_xrc_proxy_drop_peer(G.peers[i].ib);
	eng_inbox_unmap(G.peers[i].ib);
	memset(&G.peers[i], 0, sizeof G.peers[i]);
}

struct eng_inbox *eng_peer_inbox(uint32_t qpn, int *pid, uint16_t *lid)
{
	struct emu_reg_qp e;
	if (reg_qp_read(qpn, &e) != 0 || (e.pid != G.pid && !eng_pid_alive(e.pid))) {
		if (emu_log_enabled)
			emu_log("engine: QP 0x%06x is not in the fabric registry (or its process is gone)", qpn);
		return NULL;
	}
	if (pid)
		*pid = e.pid;
	if (lid)
		*lid = e.lid;
	if (e.pid == G.pid) /* a QP of this process's image before an exec is nobody's now */
		return e.proc_slot == emu_reg_self_slot() ? G.inbox : NULL;
	return eng_pid_inbox(e.pid, e.proc_slot);
}

struct eng_inbox *eng_pid_inbox(int pid, int proc_slot)
{
	/* The inbox its process has now, not the one it had when we first sent to it: a process that closed its last
	 * context and opened another, or a process that got the pid of a dead one, has a new inbox under the old name
	 * (eng_wire.h). */
	uint32_t id = eng_live_inbox_id(proc_slot, pid);
	if (!id) {
		if (emu_log_enabled)
			emu_log("engine: process %d has no inbox", pid);
		return NULL;
	}
	int freeslot;
	struct eng_inbox *ib = eng_peer_cached(G.peers, ENG_MAX_PEERS, pid, id, &freeslot);
	if (ib)
		return ib;
	errno = 0;
	ib = eng_inbox_open(G.fabric, pid, id);
	if (!ib) {
		if (emu_log_enabled)
			emu_log("engine: no inbox %u of process %d: %s", id, pid,
				errno ? strerror(errno) : "another one under its name");
		return NULL;
	}
	if (freeslot < 0) { /* evict one */
		freeslot = (int)(eng_now_ns() % ENG_MAX_PEERS);
		drop_peer(freeslot);
	}
	G.peers[freeslot] = (struct eng_peer){ .pid = pid, .id = id, .slot = proc_slot, .ib = ib };
	return ib;
}

/* Drop cached mappings of processes that are gone, so a vanished peer looks like a silent link, and of inboxes
 * their processes replaced (each mapping holds 16 MiB of /dev/shm after its file is unlinked). */
void eng_reap_peers(void)
{
	for (int i = 0; i < ENG_MAX_PEERS; i++)
		if (G.peers[i].ib && eng_peer_stale(&G.peers[i]))
			drop_peer(i);
}

void eng_qp_set_error(struct eng_qp *qp)
{
	if (qp->state == EMU_QPS_ERR)
		return;
	qp->state = EMU_QPS_ERR;
	if (qp->xproxy)
		return; /* a stand-in has no queues to flush and no K object (eng_xrcfwd.c): its TGT QP goes to error */
	eng_qp_mark_busy(qp);
	qp->flushing = 1;
	qp->last_wqe_due = eng_qp_takes_srq_wqes(qp); /* eng_flush_qp raises it */
	emu_lock();
	if (qp->q)
		qp->q->state = EMU_QPS_ERR; /* so that ibv_query_qp reports what the device did */
	emu_unlock();
	if (qp->xrc == EMU_QPT_XRC_TGT)
		emu_xrc_tgt_state(qp->qpn, EMU_QPS_ERR); /* and where other processes that opened it look */
}

/* The link of QP n that is at the same place in it as k is in qp (both lists use the one code). */
static struct eng_qp_link *link_of(struct eng_qp *n, const struct eng_qp *qp, const struct eng_qp_link *k)
{
	return (struct eng_qp_link *)((char *)n + ((const char *)k - (const char *)qp));
}

void eng_qp_list_add(struct eng_qp_list *l, struct eng_qp *qp, struct eng_qp_link *k)
{
	if (k->on)
		return;
	k->on = 1;
	k->next = NULL;
	k->prev = l->tail;
	if (l->tail)
		link_of(l->tail, qp, k)->next = qp;
	else
		l->head = qp;
	l->tail = qp;
}

void eng_qp_list_del(struct eng_qp_list *l, struct eng_qp *qp, struct eng_qp_link *k)
{
	if (!k->on)
		return;
	if (k->prev)
		link_of(k->prev, qp, k)->next = k->next;
	else
		l->head = k->next;
	if (k->next)
		link_of(k->next, qp, k)->prev = k->prev;
	else
		l->tail = k->prev;
	k->on = 0;
	k->next = k->prev = NULL;
}

int eng_qp_busy(const struct eng_qp *qp)
{
	return qp->state == EMU_QPS_ERR || qp->sq_next != qp->sq_pi || qp->infl_head != qp->infl_tail ||
	       qp->cur_valid || qp->rnr_until;
}
