/* SPDX-License-Identifier: Apache-2.0 */
/* XRC domains: OPEN_XRCD, CLOSE_XRCD, OPEN_QP, and the XRC TGT QPs of CREATE_QP (cmd_qp.c hands them here).
 *
 * Semantics of the Linux kernel (drivers/infiniband/core/uverbs_cmd.c ib_uverbs_open_xrcd(),
 * ib_uverbs_dealloc_xrcd(), create_qp(), ib_uverbs_open_qp(); uverbs_std_types.c uverbs_free_xrcd()):
 *  - OPEN_XRCD with fd -1 makes a private domain. With a file descriptor, the domain belongs to that file's inode,
 *    per device: every open of the same inode, in any process, gets the same domain. A bad fd is EBADF; an inode
 *    without a domain and no O_CREAT in oflags is EAGAIN; an inode with one and O_EXCL is EINVAL.
 *  - CLOSE_XRCD of a handle through which SRQs or QPs were created that still exist is EBUSY; otherwise the handle
 *    goes, and the domain with the last handle of every process.
 *  - An XRC TGT QP is the kernel's own QP (ib_create_qp() without driver data): the driver's request and
 *    response are not used, and pd_handle names the XRCD.
 * The inode table is fabric-wide (/<fabric>-xrcd, as every process of a fabric sees one set of devices); an entry
 * counts the handles of each process, and those of a process that died without closing them no longer count. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "../emu_shm.h"
#include "engine_hooks.h"
#include "uverbs.h"

struct emu_xrcd {
	struct emu_xrcd *next;
	struct emu_ctx  *ctx;
	uint32_t         handle;
	uint32_t         xrcdn;
	int              shared;      /* in the inode table (opened through a file) */
	uint64_t         ino_dev, ino;
	int              refcnt;      /* SRQs and QPs created or opened through this handle (uxrcd->refcnt) */
};

/* ---- the fabric-wide inode table ---- */

#define XRCD_MAGIC   0x3164637278356d6cull /* "ml5xrcd1" */
#define XRCD_ENTRIES 256
#define XRCD_HOLDERS 32

struct xrcd_entry {
	uint32_t xrcdn;               /* 0 = free */
	int32_t  dev_index;
	uint64_t ino_dev, ino;
	struct { int32_t pid; uint32_t count; } holder[XRCD_HOLDERS];
};

struct xrcd_file {
	_Atomic uint64_t magic;
	pthread_mutex_t  lock;        /* process-shared, robust */
	uint32_t         next_xrcdn;
	uint32_t         reserved;
	struct xrcd_entry e[XRCD_ENTRIES];
};

static _Atomic(struct xrcd_file *) g_file;
static pthread_mutex_t g_map_lock = PTHREAD_MUTEX_INITIALIZER;

static void xfile_init(void *file)
{
	((struct xrcd_file *)file)->next_xrcdn = 1;
}

static struct xrcd_file *xfile(void)
{
	struct xrcd_file *f = atomic_load_explicit(&g_file, memory_order_acquire);
	if (f)
		return f;
	pthread_mutex_lock(&g_map_lock);
	f = atomic_load_explicit(&g_file, memory_order_acquire);
	if (!f) {
		f = emu_shm_shared_file("-xrcd", sizeof(struct xrcd_file), XRCD_MAGIC, offsetof(struct xrcd_file, lock),
					xfile_init);
		if (f)
			atomic_store_explicit(&g_file, f, memory_order_release);
	}
	pthread_mutex_unlock(&g_map_lock);
	return f;
}

static void xlock(struct xrcd_file *f)
{
	emu_shm_robust_lock(&f->lock); /* a holder died: every write below is complete or harmless */
}

static int pid_gone(int32_t pid)
{
	return pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH);
}

/* Whether an entry still has a live holder; drops the dead ones. Under the lock. */
static int entry_live(struct xrcd_entry *e)
{
	int live = 0;
	for (int i = 0; i < XRCD_HOLDERS; i++) {
		if (e->holder[i].pid && pid_gone(e->holder[i].pid))
			e->holder[i].pid = 0, e->holder[i].count = 0;
		if (e->holder[i].pid)
			live = 1;
	}
	if (!live)
		e->xrcdn = 0;
	return live;
}

static struct xrcd_entry *entry_find(struct xrcd_file *f, int dev, uint64_t ino_dev, uint64_t ino)
{
	for (int i = 0; i < XRCD_ENTRIES; i++) {
		struct xrcd_entry *e = &f->e[i];
		if (e->xrcdn && e->dev_index == dev && e->ino_dev == ino_dev && e->ino == ino && entry_live(e))
			return e;
	}
	return NULL;
}

static int holder_add(struct xrcd_entry *e, int32_t pid)
{
	int freei = -1;
	for (int i = 0; i < XRCD_HOLDERS; i++) {
		if (e->holder[i].pid == pid) {
			e->holder[i].count++;
			return 0;
		}
		if (!e->holder[i].pid && freei < 0)
			freei = i;
	}
	if (freei < 0)
		return ENOMEM;
	e->holder[freei].pid = pid;
	e->holder[freei].count = 1;
	return 0;
}

static uint32_t alloc_xrcdn(struct xrcd_file *f)
{
	uint32_t n = f->next_xrcdn++ & 0xffffff;
	if (!n)
		n = f->next_xrcdn++ & 0xffffff;
	return n;
}

/* Drops this process's hold of the domain of x (a handle of a shared domain). */
static void table_release(const struct emu_xrcd *x)
{
	struct xrcd_file *f = xfile();
	if (!f || !x->shared)
		return;
	xlock(f);
	struct xrcd_entry *e = entry_find(f, x->ctx->dev_index, x->ino_dev, x->ino);
	if (e && e->xrcdn == x->xrcdn) {
		for (int i = 0; i < XRCD_HOLDERS; i++)
			if (e->holder[i].pid == (int32_t)getpid()) {
				if (--e->holder[i].count == 0)
					e->holder[i].pid = 0;
				break;
			}
		entry_live(e);
	}
	pthread_mutex_unlock(&f->lock);
}

/* ---- handles ---- */

static struct emu_xrcd *xrcd_by_handle(struct emu_ctx *ctx, uint32_t h)
{
	for (struct emu_xrcd *x = ctx->xrcds; x; x = x->next)
		if (x->handle == h)
			return x;
	return NULL;
}

struct emu_xrcd *emu_xrcd_get(struct emu_ctx *ctx, uint32_t handle)
{
	struct emu_xrcd *x = xrcd_by_handle(ctx, handle);
	if (x)
		x->refcnt++;
	return x;
}

void emu_xrcd_put(struct emu_xrcd *x)
{
	if (x)
		x->refcnt--;
}

uint32_t emu_xrcd_num(const struct emu_xrcd *x)
{
	return x->xrcdn;
}

int emu_cmd_open_xrcd(struct emu_cmd *cmd)
{
	struct ib_uverbs_open_xrcd req;
	struct ib_uverbs_open_xrcd_resp r;
	struct emu_ctx *ctx = cmd->ctx;

	memcpy(&req, cmd->in, sizeof(req));
	struct emu_xrcd *x = calloc(1, sizeof(*x));
	if (!x)
		return ENOMEM;
	x->ctx = ctx;
	int fd = (int)req.fd;
	struct xrcd_file *f = NULL;
	if (fd != -1) {
		struct stat st;
		if (fcntl(fd, F_GETFD) < 0 || fstat(fd, &st) < 0) {
			free(x);
			return EBADF;
		}
		if (!(f = xfile())) {
			free(x);
			return ENOMEM;
		}
		x->shared = 1;
		x->ino_dev = (uint64_t)st.st_dev;
		x->ino = (uint64_t)st.st_ino;
		xlock(f);
		struct xrcd_entry *e = entry_find(f, ctx->dev_index, x->ino_dev, x->ino);
		int err = 0;
		if (!e && !(req.oflags & O_CREAT))
			err = EAGAIN; /* no domain for this inode, and no O_CREAT */
		else if (e && (req.oflags & O_EXCL))
			err = EINVAL;
		if (!err && !e) {
			for (int i = 0; i < XRCD_ENTRIES && !e; i++)
				if (!f->e[i].xrcdn || !entry_live(&f->e[i])) {
					e = &f->e[i];
					memset(e, 0, sizeof(*e));
					e->dev_index = ctx->dev_index;
					e->ino_dev = x->ino_dev;
					e->ino = x->ino;
					e->xrcdn = alloc_xrcdn(f);
				}
			if (!e)
				err = ENOMEM;
		}
		if (!err)
			err = holder_add(e, (int32_t)getpid());
		if (!err)
			x->xrcdn = e->xrcdn;
		else if (e && !entry_live(e))
			e->xrcdn = 0;
		pthread_mutex_unlock(&f->lock);
		if (err) {
			free(x);
			return err;
		}
	} else {
		if (!(f = xfile())) {
			free(x);
			return ENOMEM;
		}
		xlock(f);
		x->xrcdn = alloc_xrcdn(f);
		pthread_mutex_unlock(&f->lock);
	}
	emu_lock();
	x->handle = emu_ctx_new_handle(ctx);
	emu_unlock();
	memset(&r, 0, sizeof(r));
	r.xrcd_handle = x->handle;
	int err = emu_cmd_respond(cmd, &r, sizeof(r));
	if (err) {
		table_release(x);
		free(x);
		return err;
	}
	emu_lock();
	x->next = ctx->xrcds;
	ctx->xrcds = x;
	emu_unlock();
	if (emu_log_enabled)
		emu_log("xrcd handle %u: xrcdn 0x%x%s", x->handle, x->xrcdn, x->shared ? " (inode)" : "");
	return 0;
}

static void xrcd_unlink(struct emu_ctx *ctx, struct emu_xrcd *x)
{
	for (struct emu_xrcd **p = &ctx->xrcds; *p; p = &(*p)->next)
		if (*p == x) {
			*p = x->next;
			break;
		}
}

int emu_cmd_close_xrcd(struct emu_cmd *cmd)
{
	struct ib_uverbs_close_xrcd req;
	int err = 0;

	memcpy(&req, cmd->in, sizeof(req));
	emu_lock();
	struct emu_xrcd *x = xrcd_by_handle(cmd->ctx, req.xrcd_handle);
	if (!x)
		err = EINVAL;
	else if (x->refcnt)
		err = EBUSY; /* uverbs_free_xrcd: ib_destroy_usecnt(&uxrcd->refcnt) */
	else
		xrcd_unlink(cmd->ctx, x);
	emu_unlock();
	if (err)
		return err;
	table_release(x);
	free(x);
	return 0;
}

void emu_destroy_all_xrcds(struct emu_ctx *ctx)
{
	for (;;) {
		emu_lock();
		struct emu_xrcd *x = ctx->xrcds;
		if (x)
			ctx->xrcds = x->next;
		emu_unlock();
		if (!x)
			break;
		table_release(x);
		free(x);
	}
}

/* ---- XRC TGT QPs ---- */

int emu_xrc_create_tgt(struct emu_cmd *cmd, uint32_t xrcd_handle, uint64_t user_handle,
		       struct ib_uverbs_create_qp_resp *out)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct emu_qp *qp = calloc(1, sizeof(*qp));
	if (!qp)
		return ENOMEM;
	emu_lock();
	struct emu_xrcd *x = emu_xrcd_get(ctx, xrcd_handle);
	if (x)
		qp->handle = emu_ctx_new_handle(ctx);
	emu_unlock();
	if (!x) {
		free(qp);
		return EINVAL;
	}
	qp->ctx = ctx;
	qp->xrcd = x;
	qp->xrcdn = x->xrcdn;
	qp->type = EMU_QPT_XRC_TGT;
	qp->state = EMU_QPS_RESET;
	qp->uidx = 0xffffff;
	qp->dbrec = (uint64_t)(uintptr_t)qp->kdbrec;
	/* no doorbell register of its own: the kernel QP has no send queue (bfreg 0 is not counted for it) */
	qp->uar_page = 0;
	qp->bf_offset = EMU_BF_OFFSET;
	qp->user_handle = user_handle;
	qp->port_num = 1;
	int err = emu_reg_qp_alloc(qp);
	if (err) {
		emu_lock();
		emu_xrcd_put(x);
		emu_unlock();
		free(qp);
		return err;
	}
	out->qp_handle = qp->handle;
	out->qpn = qp->qpn;
	emu_lock();
	emu_ctx_link_qp(ctx, qp);
	emu_unlock();
	if (emu_log_enabled)
		emu_log("qp handle %u: qpn 0x%x XRC TGT in xrcdn 0x%x", qp->handle, qp->qpn, qp->xrcdn);
	emu_engine_qp_created(qp);
	struct ib_uverbs_query_qp_resp snap;
	emu_lock();
	emu_qp_query_fill(qp, &snap);
	emu_unlock();
	emu_xrc_tgt_publish(qp, &snap);
	return 0;
}

void emu_xrcd_srq_release(struct emu_ctx *ctx, struct emu_srq *srq)
{
	emu_xrc_srq_withdraw(srq);
	emu_xrcd_release(ctx, srq->xrcd);
}

/* OPEN_QP, as ib_uverbs_open_qp() and ib_open_qp(): the XRCD handle (EINVAL), the type XRC TGT (EINVAL), a TGT QP
 * of that domain with that number (EINVAL: the domain's tgt_qps has no such QP), in this process or another one
 * that shares the domain. The answer is a new handle (the kernel's open QP: another ib_qp on the same real QP),
 * which counts on its XRCD handle as the QP's creator's does (CLOSE_XRCD is EBUSY while it exists). */
int emu_cmd_open_qp(struct emu_cmd *cmd)
{
	struct ib_uverbs_open_qp req;
	struct ib_uverbs_create_qp_resp r;
	struct emu_ctx *ctx = cmd->ctx;

	memcpy(&req, cmd->in, sizeof(req));
	uint32_t qpn = req.qpn & 0xffffff;
	emu_lock();
	struct emu_xrcd *x = xrcd_by_handle(ctx, req.pd_handle);
	struct emu_qp *qp = x ? emu_find_qp(qpn) : NULL;
	int mine = qp != NULL, found = qp && qp->type == EMU_QPT_XRC_TGT && x && qp->xrcdn == x->xrcdn;
	uint32_t xrcdn = x ? x->xrcdn : 0;
	emu_unlock();
	if (!x || req.qp_type != IBV_QPT_XRC_RECV)
		return EINVAL;
	if (!found && (mine || !qpn || !emu_xrc_tgt_elsewhere(qpn, xrcdn)))
		return EINVAL;
	struct emu_qp *h = calloc(1, sizeof(*h));
	if (!h)
		return ENOMEM;
	emu_lock();
	x = emu_xrcd_get(ctx, req.pd_handle); /* the handle may have gone meanwhile */
	if (x)
		h->handle = emu_ctx_new_handle(ctx);
	emu_unlock();
	if (!x) {
		free(h);
		return EINVAL;
	}
	h->ctx = ctx;
	h->xrcd = x;
	h->xrcdn = xrcdn;
	h->type = EMU_QPT_XRC_TGT;
	h->xrc_open = 1;
	h->open_qpn = qpn;
	h->user_handle = req.user_handle;
	h->port_num = 1;
	h->reg_slot = -1;
	memset(&r, 0, sizeof(r));
	r.qp_handle = h->handle;
	r.qpn = qpn;
	int err = emu_cmd_respond(cmd, &r, sizeof(r));
	if (err) {
		emu_xrcd_release(ctx, x);
		free(h);
		return err;
	}
	emu_lock();
	emu_ctx_link_qp(ctx, h);
	emu_unlock();
	if (emu_log_enabled)
		emu_log("qp handle %u: opens XRC TGT QP 0x%x of xrcdn 0x%x%s", h->handle, qpn, xrcdn,
			found ? "" : " (another process's)");
	return 0;
}

struct emu_qp *emu_xrc_open_target(const struct emu_qp *h)
{
	struct emu_qp *qp = emu_find_qp(h->open_qpn);
	return qp && qp->type == EMU_QPT_XRC_TGT && qp->xrcdn == h->xrcdn ? qp : NULL;
}

/* Whether qp (unlinked, its handle going) is a TGT QP that an opened handle of its context keeps: that handle becomes
 * the QP's own (the QP takes its handle, user handle and XRCD hold, and the opened handle goes), as the kernel's
 * real QP lives while any ib_qp opened on it does. Only within the context: the engine files a QP under its context
 * (the doorbell-page buckets), so the QP cannot move to another one; opened handles in other contexts then name a
 * QP that is gone. Under emu_lock. */
static int tgt_hand_over(struct emu_qp *qp)
{
	struct emu_ctx *c = qp->ctx;
	for (struct emu_qp *h = c->qps; h; h = h->next)
		if (h->xrc_open && h->open_qpn == qp->qpn && h->xrcdn == qp->xrcdn) {
			emu_ctx_unlink_qp(c, h);
			emu_xrcd_put(qp->xrcd);
			qp->xrcd = h->xrcd;
			qp->handle = h->handle;
			qp->user_handle = h->user_handle;
			qp->async_events = h->async_events;
			emu_ctx_link_qp(c, qp);
			free(h);
			return 1;
		}
	return 0;
}

int emu_xrc_tgt_closing(struct emu_qp *qp)
{
	if (qp->xrc_open) { /* an opened handle: only the handle goes */
		emu_xrcd_release(qp->ctx, qp->xrcd);
		free(qp);
		return 1;
	}
	if (qp->type != EMU_QPT_XRC_TGT)
		return 0;
	emu_lock();
	int kept = tgt_hand_over(qp);
	emu_unlock();
	if (kept) {
		if (emu_log_enabled)
			emu_log("XRC TGT QP 0x%x lives on as handle %u", qp->qpn, qp->handle);
		return 1;
	}
	emu_xrc_tgt_withdraw(qp->qpn);
	return 0;
}

void emu_xrcd_release(struct emu_ctx *ctx, struct emu_xrcd *x)
{
	(void)ctx;
	if (!x)
		return;
	emu_lock();
	emu_xrcd_put(x);
	emu_unlock();
}

uint32_t emu_xrc_modify_mask(int qp_type, uint32_t mask)
{
	if (qp_type == EMU_QPT_XRC_INI)
		return mask & ~(uint32_t)(IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (qp_type == EMU_QPT_XRC_TGT)
		return mask & ~(uint32_t)(IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY);
	return mask;
}
