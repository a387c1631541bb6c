/* SPDX-License-Identifier: Apache-2.0 */
/* The async event file of a context (layer 1): the queue behind the fd GET_CONTEXT answers as async_fd, with the
 * semantics of Linux's uverbs async file (drivers/infiniband/core/uverbs_main.c, ib_uverbs_async_handler and
 * ib_uverbs_event_read; uverbs_std_types_async_fd.c):
 *  - one struct ib_uverbs_async_event_desc per read(); a read shorter than that is EINVAL (once an event is there);
 *    an empty queue blocks, or is EAGAIN when the fd is O_NONBLOCK; poll/epoll see POLLIN while an event waits;
 *  - an event counts towards its object's events_reported when it is READ, not when it is raised, and the events of
 *    an object destroyed before they were read vanish with it. libibverbs' ibv_destroy_qp/cq/srq wait until the
 *    program has acknowledged events_reported events, so counting an event nobody read would hang them forever;
 *  - once the program closed the async fd, events are dropped (is_closed); once the context is gone, read is EIO.
 * A pipe would give neither of the last two, so the queue lives here and read() of the async fd is interposed
 * (interpose.c). The pipe GET_CONTEXT made stays the fd the program holds, as the readiness signal for poll: it holds
 * one byte while the queue is not empty, and none otherwise. Everything below runs under emu_lock. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "kernel.h"

/* Linux queues without a bound (kmalloc per event); a program that never reads its async fd would then grow the
 * heap for ever here. Past this many unread events new ones are dropped, and said so in the log. */
#define ASYNC_MAX_QUEUED 65536

struct async_entry {
	struct async_entry *next;
	struct ib_uverbs_async_event_desc desc;
	uint32_t obj_handle;
};

struct emu_async_queue {
	struct emu_ctx *ctx;          /* NULL once the context is gone: reads are EIO */
	struct async_entry *head, *tail;
	uint32_t queued;
	int fd_refs;                  /* the program's fds for this file: the async fd and its duplicates */
	int closed;                   /* every such fd is closed: events are dropped (Linux is_closed) */
	int signalled;                /* the pipe holds its readiness byte */
};

/* fd -> queue, for the program's async fds; one pointer per fd, read without a lock on read()'s fast path */
#define ASYNC_FD_TABLE 65536
static struct emu_async_queue *_Atomic g_async_fds[ASYNC_FD_TABLE];

static struct emu_async_queue *fd_queue(int fd)
{
	if (fd < 0 || fd >= ASYNC_FD_TABLE)
		return NULL;
	return atomic_load_explicit(&g_async_fds[fd], memory_order_acquire);
}

static void fd_set_queue(int fd, struct emu_async_queue *q)
{
	atomic_store_explicit(&g_async_fds[fd], q, memory_order_release);
}

int emu_async_is_fd(int fd)
{
	return fd_queue(fd) != NULL;
}

/* The pipe's byte follows the queue: written when the first event arrives, read when the last one leaves. K's
 * descriptors are used, never the program's (it may have closed or reused that number). */
/* Only the process that opened the context touches its pipe: a fork child's copy of the queue shares the pipe with
 * the parent, and reading the byte there would hide the parent's events from its poll. */
static int owns_pipe(const struct emu_async_queue *q)
{
	return q->ctx && q->ctx->owner_pid == getpid();
}

static void signal_ready(struct emu_async_queue *q)
{
	if (q->signalled || !owns_pipe(q) || q->ctx->async_write_fd < 0)
		return;
	char b = 1;
	if (emu_real_write(q->ctx->async_write_fd, &b, 1) == 1)
		q->signalled = 1;
}

static void clear_ready(struct emu_async_queue *q)
{
	if (!q->signalled || !owns_pipe(q) || q->ctx->async_keep_fd < 0)
		return;
	/* The byte is known to be there (written under this lock), so the read returns at once even on a blocking
	 * fd; poll first all the same, in case a program read the pipe with a call that is not interposed. */
	struct pollfd p = { .fd = q->ctx->async_keep_fd, .events = POLLIN };
	char b;
	if (poll(&p, 1, 0) == 1 && (p.revents & POLLIN))
		(void)!read(q->ctx->async_keep_fd, &b, 1);
	q->signalled = 0;
}

static void free_entries(struct emu_async_queue *q)
{
	for (struct async_entry *e = q->head, *n; e; e = n) {
		n = e->next;
		free(e);
	}
	q->head = q->tail = NULL;
	q->queued = 0;
	clear_ready(q);
}

int emu_async_open(struct emu_ctx *ctx)
{
	int fd = ctx->async_read_fd;
	if (fd < 0 || fd >= ASYNC_FD_TABLE)
		return EMFILE;
	struct emu_async_queue *q = calloc(1, sizeof *q);
	if (!q)
		return ENOMEM;
	q->ctx = ctx;
	q->fd_refs = 1;
	emu_lock();
	ctx->async_q = q;
	fd_set_queue(fd, q);
	emu_unlock();
	return 0;
}

/* The queue goes when both its context and the program's last fd for it are gone. */
static void maybe_free(struct emu_async_queue *q)
{
	if (!q->ctx && q->fd_refs == 0)
		free(q);
}

void emu_async_release(struct emu_ctx *ctx)
{
	emu_lock();
	struct emu_async_queue *q = ctx->async_q;
	if (q) {
		free_entries(q);
		q->ctx = NULL;
		ctx->async_q = NULL;
		/* a GET_CONTEXT that failed never gave the program its fd: forget the number before it is closed */
		if (!ctx->have_context && ctx->async_read_fd >= 0 && fd_queue(ctx->async_read_fd) == q) {
			fd_set_queue(ctx->async_read_fd, NULL);
			q->fd_refs--;
		}
		maybe_free(q);
	}
	emu_unlock();
}

void emu_async_fd_closing(int fd)
{
	if (!fd_queue(fd))
		return;
	emu_lock();
	struct emu_async_queue *q = fd_queue(fd);
	if (q) {
		fd_set_queue(fd, NULL);
		if (--q->fd_refs == 0) {
			q->closed = 1;
			free_entries(q);
			maybe_free(q);
		}
	}
	emu_unlock();
}

void emu_async_fd_dup(int oldfd, int newfd)
{
	if (newfd < 0 || !fd_queue(oldfd))
		return;
	emu_lock();
	struct emu_async_queue *q = fd_queue(oldfd);
	if (q && newfd < ASYNC_FD_TABLE && !fd_queue(newfd)) {
		q->fd_refs++;
		fd_set_queue(newfd, q);
	} else if (q) {
		emu_log("fd %d beyond the emulator's fd table; the duplicate of async fd %d is a bare pipe", newfd, oldfd);
	}
	emu_unlock();
}

/* What an event type names (ibv_get_async_event's switch, libibverbs 44 verbs.c): a QP, a CQ, an SRQ, or nothing
 * with a counter (port and device events carry the port number). */
static uint32_t *event_counter(struct emu_ctx *ctx, uint32_t type, uint32_t handle)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR: {
		struct emu_cq *cq = emu_cq_by_handle(ctx, handle);
		return cq ? &cq->async_events : NULL;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct emu_qp *qp = emu_qp_by_handle(ctx, handle);
		return qp ? &qp->async_events : NULL;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct emu_srq *srq = emu_srq_by_handle(ctx, handle);
		return srq ? &srq->async_events : NULL;
	}
	default:
		return NULL;
	}
}

static int names_object(uint32_t type)
{
	return type == IBV_EVENT_CQ_ERR || (type >= IBV_EVENT_QP_FATAL && type <= IBV_EVENT_PATH_MIG_ERR) ||
	       type == IBV_EVENT_QP_LAST_WQE_REACHED || type == IBV_EVENT_SRQ_ERR ||
	       type == IBV_EVENT_SRQ_LIMIT_REACHED;
}

void emu_async_post(struct emu_ctx *ctx, uint32_t event_type, uint64_t element, uint32_t obj_handle)
{
	if (!ctx)
		return;
	emu_lock();
	struct emu_async_queue *q = ctx->async_q;
	if (!q || q->closed) {
		emu_unlock();
		return;
	}
	if (q->queued >= ASYNC_MAX_QUEUED) {
		emu_unlock();
		emu_log("async event %u dropped: %u unread events on async fd %d", event_type, ASYNC_MAX_QUEUED,
			ctx->async_read_fd);
		return;
	}
	struct async_entry *e = calloc(1, sizeof *e);
	if (e) {
		e->desc.element = element;
		e->desc.event_type = event_type;
		e->obj_handle = obj_handle;
		if (q->tail)
			q->tail->next = e;
		else
			q->head = e;
		q->tail = e;
		q->queued++;
		signal_ready(q);
	}
	emu_unlock();
	if (emu_log_enabled)
		emu_log("async event %u element 0x%llx on async fd %d%s", event_type, (unsigned long long)element,
			ctx->async_read_fd, e ? "" : " lost (no memory)");
}

/* Takes the first event of q that still names a live object (or none), counting it; NULL when none is left.
 * Events of objects destroyed meanwhile are dropped on the way, as the kernel dropped them at the destroy. */
static struct async_entry *take(struct emu_async_queue *q)
{
	while (q->head) {
		struct async_entry *e = q->head;
		q->head = e->next;
		if (!q->head)
			q->tail = NULL;
		q->queued--;
		if (!names_object(e->desc.event_type)) {
			e->next = NULL;
			return e;
		}
		uint32_t *counter = event_counter(q->ctx, e->desc.event_type, e->obj_handle);
		if (counter) {
			(*counter)++;
			e->next = NULL;
			return e;
		}
		free(e);
	}
	return NULL;
}

void emu_async_prune(struct emu_ctx *ctx)
{
	emu_lock();
	struct emu_async_queue *q = ctx->async_q;
	if (q) {
		struct async_entry **pp = &q->head, *last = NULL;
		while (*pp) {
			struct async_entry *e = *pp;
			if (names_object(e->desc.event_type) && !event_counter(ctx, e->desc.event_type, e->obj_handle)) {
				*pp = e->next;
				q->queued--;
				free(e);
			} else {
				last = e;
				pp = &e->next;
			}
		}
		q->tail = last;
		if (!q->head)
			clear_ready(q);
	}
	emu_unlock();
}

ssize_t emu_async_read(int fd, void *buf, size_t count)
{
	for (;;) {
		emu_lock();
		struct emu_async_queue *q = fd_queue(fd);
		if (!q) { /* closed by another thread meanwhile */
			emu_unlock();
			errno = EBADF;
			return -1;
		}
		if (!q->ctx || q->ctx->owner_pid != getpid()) {
			emu_unlock();
			errno = EIO;
			return -1;
		}
		if (q->head && count < sizeof(struct ib_uverbs_async_event_desc)) {
			emu_unlock();
			errno = EINVAL;
			return -1;
		}
		struct async_entry *e = take(q);
		if (!q->head)
			clear_ready(q);
		emu_unlock();
		if (e) {
			int err = emu_copy_to_user((uint64_t)(uintptr_t)buf, &e->desc, sizeof e->desc);
			free(e);
			if (err) { /* as the kernel: the event is consumed, the copy failed */
				errno = EFAULT;
				return -1;
			}
			return (ssize_t)sizeof(struct ib_uverbs_async_event_desc);
		}
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0 && (fl & O_NONBLOCK)) {
			errno = EAGAIN;
			return -1;
		}
		/* Wait for the byte (or the hang-up when the context goes); a signal restarts the wait, as read() of the
		 * uverbs file restarts under SA_RESTART, which is what libibverbs' callers run with. */
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return -1;
	}
}
