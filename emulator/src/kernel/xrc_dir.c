/* SPDX-License-Identifier: Apache-2.0 */
/* The fabric-wide XRC directories (/<fabric>-xrcdir): every XRC SRQ and every XRC TGT QP with its domain and
 * process. On Linux these are the device's own tables: an XRC domain shared through a file is one domain of the
 * device, a TGT QP's request finds the SRQ its XRCETH names wherever it was created, and ib_open_qp() finds a TGT QP
 * of the domain in xrcd->tgt_qps whoever created it. Here each process has its own objects, so the engine of a TGT
 * QP asks the SRQ directory which process serves an SRQ of its domain (engine/eng_xrcfwd.c), and OPEN_QP asks the
 * TGT QP directory whether another process has that QP in that domain (cmd_xrcd.c). SRQNs and QPNs are fabric-
 * unique; an entry of a process that died is dropped when met. Also: a TGT QP's events for the handles opened on it.
 * Layer 1: the engine calls emu_xrc_srq_owner and emu_xrc_tgt_event. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "../emu_shm.h"
#include "kernel.h"

#define XRCDIR_MAGIC 0x3172696463727878ull /* "xxcrdir1" */
#define XRCDIR_SRQS  1024
#define XRCDIR_TGTS  1024

struct xrcdir_file {
	_Atomic uint64_t magic;
	pthread_mutex_t  lock;        /* process-shared, robust */
	struct { uint32_t srqn, xrcdn; int32_t pid, proc_slot; } srq[XRCDIR_SRQS]; /* srqn 0 = free */
	struct {
		uint32_t qpn, xrcdn;  /* qpn 0 = free */
		int32_t  pid, reserved;
		struct ib_uverbs_query_qp_resp attr; /* as QUERY_QP answers, since its last change */
	} tgt[XRCDIR_TGTS];
};

static _Atomic(struct xrcdir_file *) g_dir;
static pthread_mutex_t g_map_lock = PTHREAD_MUTEX_INITIALIZER;

static struct xrcdir_file *dir(void)
{
	struct xrcdir_file *f = atomic_load_explicit(&g_dir, memory_order_acquire);
	if (f)
		return f;
	pthread_mutex_lock(&g_map_lock);
	f = atomic_load_explicit(&g_dir, memory_order_acquire);
	if (!f) {
		f = emu_shm_shared_file("-xrcdir", sizeof(struct xrcdir_file), XRCDIR_MAGIC,
					offsetof(struct xrcdir_file, lock), NULL);
		if (f)
			atomic_store_explicit(&g_dir, f, memory_order_release);
	}
	pthread_mutex_unlock(&g_map_lock);
	return f;
}

static struct xrcdir_file *dir_lock(void)
{
	struct xrcdir_file *f = dir();
	if (f)
		emu_shm_robust_lock(&f->lock); /* every write below is complete or harmless */
	return f;
}

static int gone(int32_t pid)
{
	return pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH);
}

void emu_xrc_srq_publish(const struct emu_srq *srq)
{
	struct xrcdir_file *f = srq->srq_type == IBV_SRQT_XRC ? dir_lock() : NULL;
	if (!f)
		return;
	int freei = -1;
	for (int i = 0; i < XRCDIR_SRQS; i++) {
		if (f->srq[i].srqn && gone(f->srq[i].pid))
			f->srq[i].srqn = 0; /* its process died without destroying it */
		if (!f->srq[i].srqn && freei < 0)
			freei = i;
	}
	if (freei >= 0) { /* a full directory only means another process's TGT QP cannot deliver into this SRQ */
		f->srq[freei].xrcdn = srq->xrcdn;
		f->srq[freei].pid = (int32_t)getpid();
		f->srq[freei].proc_slot = emu_reg_self_slot();
		f->srq[freei].srqn = srq->srqn;
	}
	pthread_mutex_unlock(&f->lock);
}

void emu_xrc_srq_withdraw(const struct emu_srq *srq)
{
	struct xrcdir_file *f = srq->srq_type == IBV_SRQT_XRC ? dir_lock() : NULL;
	if (!f)
		return;
	for (int i = 0; i < XRCDIR_SRQS; i++)
		if (f->srq[i].srqn == srq->srqn && f->srq[i].pid == (int32_t)getpid())
			f->srq[i].srqn = 0;
	pthread_mutex_unlock(&f->lock);
}

int emu_xrc_srq_owner(uint32_t srqn, uint32_t xrcdn, int32_t *pid, int *proc_slot)
{
	struct xrcdir_file *f = srqn ? dir_lock() : NULL;
	int found = 0;
	if (!f)
		return 0;
	for (int i = 0; i < XRCDIR_SRQS && !found; i++)
		if (f->srq[i].srqn == srqn && f->srq[i].xrcdn == xrcdn && !gone(f->srq[i].pid)) {
			*pid = f->srq[i].pid;
			*proc_slot = f->srq[i].proc_slot;
			found = 1;
		}
	pthread_mutex_unlock(&f->lock);
	return found;
}

void emu_xrc_tgt_publish(const struct emu_qp *qp, const struct ib_uverbs_query_qp_resp *attr)
{
	struct xrcdir_file *f = dir_lock();
	if (!f)
		return;
	int freei = -1;
	for (int i = 0; i < XRCDIR_TGTS; i++) {
		if (f->tgt[i].qpn && gone(f->tgt[i].pid))
			f->tgt[i].qpn = 0;
		if (!f->tgt[i].qpn && freei < 0)
			freei = i;
	}
	if (freei >= 0) { /* a full directory only means other processes cannot open this QP */
		f->tgt[freei].xrcdn = qp->xrcdn;
		f->tgt[freei].pid = (int32_t)getpid();
		f->tgt[freei].attr = *attr;
		f->tgt[freei].qpn = qp->qpn;
	}
	pthread_mutex_unlock(&f->lock);
}

void emu_xrc_tgt_withdraw(uint32_t qpn)
{
	struct xrcdir_file *f = dir_lock();
	if (!f)
		return;
	for (int i = 0; i < XRCDIR_TGTS; i++)
		if (f->tgt[i].qpn == qpn && f->tgt[i].pid == (int32_t)getpid())
			f->tgt[i].qpn = 0;
	pthread_mutex_unlock(&f->lock);
}

int emu_xrc_tgt_elsewhere(uint32_t qpn, uint32_t xrcdn)
{
	struct xrcdir_file *f = qpn ? dir_lock() : NULL;
	int found = 0;
	if (!f)
		return 0;
	for (int i = 0; i < XRCDIR_TGTS && !found; i++)
		found = f->tgt[i].qpn == qpn && f->tgt[i].xrcdn == xrcdn && f->tgt[i].pid != (int32_t)getpid() &&
			!gone(f->tgt[i].pid);
	pthread_mutex_unlock(&f->lock);
	return found;
}

void emu_xrc_tgt_snapshot(uint32_t qpn, const struct ib_uverbs_query_qp_resp *attr)
{
	struct xrcdir_file *f = dir_lock();
	if (!f)
		return;
	for (int i = 0; i < XRCDIR_TGTS; i++)
		if (f->tgt[i].qpn == qpn && f->tgt[i].pid == (int32_t)getpid())
			f->tgt[i].attr = *attr;
	pthread_mutex_unlock(&f->lock);
}

void emu_xrc_tgt_state(uint32_t qpn, int state)
{
	struct xrcdir_file *f = dir_lock();
	if (!f)
		return;
	for (int i = 0; i < XRCDIR_TGTS; i++)
		if (f->tgt[i].qpn == qpn && f->tgt[i].pid == (int32_t)getpid())
			f->tgt[i].attr.qp_state = f->tgt[i].attr.cur_qp_state = (uint8_t)state;
	pthread_mutex_unlock(&f->lock);
}

int emu_xrc_tgt_query(uint32_t qpn, uint32_t xrcdn, struct ib_uverbs_query_qp_resp *attr)
{
	struct xrcdir_file *f = qpn ? dir_lock() : NULL;
	int found = 0;
	if (!f)
		return 0;
	for (int i = 0; i < XRCDIR_TGTS && !found; i++)
		if (f->tgt[i].qpn == qpn && f->tgt[i].xrcdn == xrcdn && !gone(f->tgt[i].pid)) {
			*attr = f->tgt[i].attr;
			found = 1;
		}
	pthread_mutex_unlock(&f->lock);
	return found;
}

void emu_xrc_tgt_event(const struct emu_qp *qp, uint32_t type)
{
	struct { struct emu_ctx *ctx; uint64_t user_handle; uint32_t handle; } to[16];
	int n = 0;
	emu_lock();
	for (struct emu_ctx *c = emu_contexts(); c; c = c->next)
		for (struct emu_qp *h = c->qps; h && n < 16; h = h->next)
			if (h->xrc_open && h->open_qpn == qp->qpn && h->xrcdn == qp->xrcdn) {
				to[n].ctx = c;
				to[n].user_handle = h->user_handle;
				to[n++].handle = h->handle;
			}
	emu_unlock();
	for (int i = 0; i < n; i++)
		emu_async_post(to[i].ctx, type, to[i].user_handle, to[i].handle);
}
