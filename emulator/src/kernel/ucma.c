/* SPDX-License-Identifier: Apache-2.0 */
/* /dev/infiniband/rdma_cm: the ucma write() ABI (rdma/rdma_user_cm.h, ABI version 4) and the connection manager
 * behind it, for an unmodified librdmacm 44.
 *
 * Semantics follow Linux drivers/infiniband/core/ucma.c (command checks, errnos, event queue, events_reported),
 * cma.c (id states, which event each CM message gives, private data sizes, reject reasons) and cm.c (what a
 * destroyed or dying id sends to its peer). The IB CM's messages travel between processes through cm_wire.c.
 *
 * This file (layer 3 of LAYERS) is the device file: open, close, fork, and the write() decoder with its dispatch
 * table. The handlers are ucma_cmd_*.c (ucma_cmd.h), the state machine's CM thread ucma_cm.c, both at layer 2;
 * the ids, event queues and path facts they share are ucma_id.c and ucma_path.c (ucma_state.h, layer 1).
 *
 * The channel fd is an eventfd: readable (poll, epoll) exactly while events are queued, so GET_EVENT waits on it
 * and honours O_NONBLOCK set with fcntl, as the kernel's ucma_get_event does with its wait queue. A CM thread per
 * process (running while a channel is open) takes mail, fires timers and watches connected peers: a peer process
 * that died is answered as its kernel would have answered while closing its ids (DREQ, REJ). */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_user_cm.h>

#include "ucma.h"
#include "ucma_cmd.h"

static pthread_t g_thread;
static int g_thread_running, g_join_pending;

#define FD_MAP 65536
static _Atomic unsigned char g_is_ucma[FD_MAP];

int emu_ucma_is_fd(int fd)
{
	return fd >= 0 && fd < FD_MAP && atomic_load_explicit(&g_is_ucma[fd], memory_order_relaxed);
}

/* ---- open / close ---- */

/* fork: the child gets no CM thread and no mailbox of ours; its inherited channels are forgotten (inert, as the
 * emulator's inherited uverbs fds are), and it may open rdma_cm itself. */
static void atfork_prepare(void) { pthread_mutex_lock(&emu_ucma_lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&emu_ucma_lock); }
static void atfork_child(void)
{
	pthread_mutex_init(&emu_ucma_lock, NULL);
	for (int fd = 0; fd < FD_MAP; fd++)
		atomic_store(&g_is_ucma[fd], 0);
	emu_ucma_files = NULL; /* the parent's objects stay allocated in the child's copy, unreachable */
	emu_ucma_ids = NULL;
	emu_ucma_ids_cap = 0;
	emu_ucma_mcs = NULL;
	emu_ucma_mcs_cap = 0;
	emu_ucma_nfiles = 0;
	g_thread_running = 0;
	emu_ucma_thread_stop = 0;
	g_join_pending = 0;
}

static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;
static void register_atfork(void) { pthread_atfork(atfork_prepare, atfork_parent, atfork_child); }

int emu_ucma_open(int flags)
{
	pthread_once(&g_atfork_once, register_atfork);
	if ((flags & O_ACCMODE) != O_RDWR) {
		errno = EACCES;
		return -1;
	}
	int fd = eventfd(0, ((flags & O_CLOEXEC) ? EFD_CLOEXEC : 0) | ((flags & O_NONBLOCK) ? EFD_NONBLOCK : 0));
	if (fd < 0)
		return -1;
	if (fd >= FD_MAP) {
		emu_real_close(fd);
		errno = EMFILE;
		return -1;
	}
	struct ucma_file *f = calloc(1, sizeof(*f));
	if (!f) {
		emu_real_close(fd);
		errno = ENOMEM;
		return -1;
	}
	f->fd = fd;
	f->refs = 1;
	pthread_cond_init(&f->cond, NULL);
	pthread_mutex_lock(&emu_ucma_lock);
	int err = cm_wire_init();
	if (!err && !g_thread_running) {
		emu_ucma_thread_stop = 0;
		err = pthread_create(&g_thread, NULL, emu_ucma_cm_thread, NULL);
		if (!err)
			g_thread_running = 1;
	}
	if (err) {
		pthread_mutex_unlock(&emu_ucma_lock);
		pthread_cond_destroy(&f->cond);
		free(f);
		emu_real_close(fd);
		errno = err;
		return -1;
	}
	f->next = emu_ucma_files;
	emu_ucma_files = f;
	emu_ucma_nfiles++;
	atomic_store(&g_is_ucma[fd], 1);
	pthread_mutex_unlock(&emu_ucma_lock);
	if (emu_log_enabled)
		emu_log("open %s -> fd %d", EMU_UCMA_PATH, fd);
	return fd;
}

static struct ucma_file *file_get(int fd)
{
	struct ucma_file *f;
	for (f = emu_ucma_files; f; f = f->next)
		if (f->fd == fd && !f->closed)
			break;
	if (f)
		f->refs++;
	return f;
}

/* The last reference of a closed file: ucma_close destroys every id of the file (listeners first, so their
 * queued requests go with them). A GET_EVENT blocked in another thread holds a reference, as the kernel's
 * write() holds the file, so the ids live until it returns. */
static void file_release(struct ucma_file *f)
{
	for (uint32_t h = 0; h < emu_ucma_ids_cap; h++)
		if (emu_ucma_ids[h] && emu_ucma_ids[h]->file == f && emu_ucma_ids[h]->state == S_LISTEN)
			emu_ucma_id_destroy(emu_ucma_ids[h]);
	for (uint32_t h = 0; h < emu_ucma_ids_cap; h++)
		if (emu_ucma_ids[h] && emu_ucma_ids[h]->file == f)
			emu_ucma_id_destroy(emu_ucma_ids[h]);
	for (struct ucma_event *e = f->head, *n; e; e = n) {
		n = e->next;
		free(e);
	}
	for (struct ucma_file **pp = &emu_ucma_files; *pp; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	pthread_cond_destroy(&f->cond);
	free(f);
	if (--emu_ucma_nfiles == 0 && g_thread_running) {
		emu_ucma_thread_stop = 1;
		g_thread_running = 0;
		g_join_pending = 1;
	}
}

static void file_put(struct ucma_file *f)
{
	if (--f->refs == 0)
		file_release(f);
}

/* After dropping emu_ucma_lock: the CM thread stops with the last file. */
static void maybe_join(void)
{
	pthread_mutex_lock(&emu_ucma_lock);
	int join = g_join_pending && !g_thread_running;
	pthread_t t = g_thread;
	g_join_pending = 0;
	pthread_mutex_unlock(&emu_ucma_lock);
	if (join) {
		cm_wake_self();
		pthread_join(t, NULL);
	}
}

void emu_ucma_close(int fd)
{
	pthread_mutex_lock(&emu_ucma_lock);
	struct ucma_file *f = file_get(fd);
	if (f) {
		f->closed = 1;
		atomic_store(&g_is_ucma[fd], 0);
		f->refs--;       /* the open reference */
		file_put(f);     /* ours */
	}
	pthread_mutex_unlock(&emu_ucma_lock);
	maybe_join();
}

__attribute__((destructor)) static void ucma_fini(void)
{
	cm_wire_fini();
}

static const struct {
	const char *name;
	int (*fn)(struct ucmd *);
} g_cmds[] = {
	[RDMA_USER_CM_CMD_CREATE_ID] = { "CREATE_ID", emu_ucma_cmd_create_id },
	[RDMA_USER_CM_CMD_DESTROY_ID] = { "DESTROY_ID", emu_ucma_cmd_destroy_id },
	[RDMA_USER_CM_CMD_BIND_IP] = { "BIND_IP", emu_ucma_cmd_bind_ip },
	[RDMA_USER_CM_CMD_RESOLVE_IP] = { "RESOLVE_IP", emu_ucma_cmd_resolve_ip },
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE] = { "RESOLVE_ROUTE", emu_ucma_cmd_resolve_route },
	[RDMA_USER_CM_CMD_QUERY_ROUTE] = { "QUERY_ROUTE", emu_ucma_cmd_query_route },
	[RDMA_USER_CM_CMD_CONNECT] = { "CONNECT", emu_ucma_cmd_connect },
	[RDMA_USER_CM_CMD_LISTEN] = { "LISTEN", emu_ucma_cmd_listen },
	[RDMA_USER_CM_CMD_ACCEPT] = { "ACCEPT", emu_ucma_cmd_accept },
	[RDMA_USER_CM_CMD_REJECT] = { "REJECT", emu_ucma_cmd_reject },
	[RDMA_USER_CM_CMD_DISCONNECT] = { "DISCONNECT", emu_ucma_cmd_disconnect },
	[RDMA_USER_CM_CMD_INIT_QP_ATTR] = { "INIT_QP_ATTR", emu_ucma_cmd_init_qp_attr },
	[RDMA_USER_CM_CMD_GET_EVENT] = { "GET_EVENT", emu_ucma_cmd_get_event },
	[RDMA_USER_CM_CMD_GET_OPTION] = { "GET_OPTION", NULL },
	[RDMA_USER_CM_CMD_SET_OPTION] = { "SET_OPTION", emu_ucma_cmd_set_option },
	[RDMA_USER_CM_CMD_NOTIFY] = { "NOTIFY", emu_ucma_cmd_notify },
	[RDMA_USER_CM_CMD_JOIN_IP_MCAST] = { "JOIN_IP_MCAST", emu_ucma_cmd_join_ip },
	[RDMA_USER_CM_CMD_LEAVE_MCAST] = { "LEAVE_MCAST", emu_ucma_cmd_leave },
	[RDMA_USER_CM_CMD_MIGRATE_ID] = { "MIGRATE_ID", emu_ucma_cmd_migrate_id },
	[RDMA_USER_CM_CMD_QUERY] = { "QUERY", emu_ucma_cmd_query },
	[RDMA_USER_CM_CMD_BIND] = { "BIND", emu_ucma_cmd_bind },
	[RDMA_USER_CM_CMD_RESOLVE_ADDR] = { "RESOLVE_ADDR", emu_ucma_cmd_resolve_addr },
	[RDMA_USER_CM_CMD_JOIN_MCAST] = { "JOIN_MCAST", emu_ucma_cmd_join },
};

/* ucma_write(): header checks, then the handler; a request shorter than the command's struct reads as zeros
 * beyond what was written, as the kernel's copy of the fixed-size struct would see the caller's bytes. */
ssize_t emu_ucma_write(int fd, const void *buf, size_t len)
{
	struct rdma_ucm_cmd_hdr hdr;
	uint8_t in[1024];
	int err;

	if (len < sizeof(hdr)) {
		errno = EINVAL;
		return -1;
	}
	if (emu_copy_from_user(&hdr, (uint64_t)(uintptr_t)buf, sizeof(hdr))) {
		errno = EFAULT;
		return -1;
	}
	if (hdr.cmd >= sizeof(g_cmds) / sizeof(g_cmds[0]) || hdr.in + sizeof(hdr) > len) {
		errno = EINVAL;
		return -1;
	}
	if (!g_cmds[hdr.cmd].fn) {
		errno = ENOSYS;
		return -1;
	}
	size_t in_len = hdr.in < sizeof(in) ? hdr.in : sizeof(in);
	memset(in, 0, sizeof(in));
	if (in_len && emu_copy_from_user(in, (uint64_t)(uintptr_t)buf + sizeof(hdr), in_len)) {
		errno = EFAULT;
		return -1;
	}
	pthread_mutex_lock(&emu_ucma_lock);
	struct ucma_file *f = file_get(fd);
	if (!f) {
		pthread_mutex_unlock(&emu_ucma_lock);
		errno = EBADF;
		return -1;
	}
	struct ucmd c = { f, in, in_len, hdr.out };
	err = g_cmds[hdr.cmd].fn(&c);
	file_put(f);
	pthread_mutex_unlock(&emu_ucma_lock);
	maybe_join();
	if (emu_log_enabled)
		emu_log("rdma_cm fd=%d %s in=%u out=%u -> %s", fd, g_cmds[hdr.cmd].name, hdr.in, hdr.out,
			err ? strerror(err) : "ok");
	if (err) {
		errno = err;
		return -1;
	}
	return (ssize_t)len;
}
