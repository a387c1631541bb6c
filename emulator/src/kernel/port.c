/* SPDX-License-Identifier: Apache-2.0 */
/* Port state (layer 1): the link of each emulated port, up or down, fabric-wide in the registry, as a cable that
 * every process of the fabric sees pulled at once. mlx5emu_port_set (the launcher's `mlx5emu port DEV PORT up|down`)
 * changes it; QUERY_PORT and the sysfs tree's ports/1/state and phys_state report it; the engine sends and receives
 * nothing on a down port; and every context of every process on that device gets IBV_EVENT_PORT_ERR or
 * IBV_EVENT_PORT_ACTIVE on its async fd, as Linux mlx5_ib raises them for a port change event of the device
 * (drivers/infiniband/hw/mlx5/main.c, handle_port_change: PORT_CHANGE_SUBTYPE_DOWN and _ACTIVE).
 *
 * Delivery: the setter bumps registry->port_seq and wakes it as a futex shared between processes; in each process
 * that opened a context a watcher thread waits on that word, compares the down mask with what it last saw, queues the
 * events (async_event.c) and brings its own sysfs tree up to date. A process with no context has nobody to tell. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "kernel.h"

static pthread_mutex_t g_watch_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_watching;
static uint32_t g_seen; /* the down mask this process's contexts were last told about */

uint32_t emu_ports_down(void)
{
	struct emu_registry *r = emu_registry();
	return r ? atomic_load_explicit(&r->ports_down, memory_order_relaxed) : 0;
}

int emu_port_is_down(int dev_index)
{
	return dev_index >= 0 && dev_index < 32 && (emu_ports_down() >> dev_index & 1);
}

/* Rewrites one attribute file of SYSFS_PATH's tree when it says something else, through a rename so that a reader
 * sees the old text or the new one, never an empty file. */
static void sysfs_put(const char *root, int dev, const char *attr, const char *text)
{
	char path[PATH_MAX], tmp[PATH_MAX], cur[64];
	if (snprintf(path, sizeof path, "%s/class/infiniband/mlx5_%d/ports/1/%s", root, dev, attr) >= (int)sizeof path ||
	    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof tmp)
		return;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return; /* no tree for this device (a surefire run without one, or another fabric's tree) */
	ssize_t n = read(fd, cur, sizeof cur - 1);
	close(fd);
	size_t len = strlen(text);
	if (n == (ssize_t)len && memcmp(cur, text, len) == 0)
		return;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	int ok = write(fd, text, len) == (ssize_t)len;
	close(fd);
	if (!ok || rename(tmp, path) != 0)
		unlink(tmp);
}

/* The state files of device dev in this process's tree, as the kernel's sysfs shows them (ib_port_state and
 * ib_port_phys_state strings): "4: ACTIVE" / "5: LinkUp" up, "1: DOWN" / "3: Disabled" down (a port disabled by
 * its administrator, as `ibportstate disable` or `ip link set down` leave it). */
static void sysfs_sync(int dev, int down)
{
	const char *root = getenv("SYSFS_PATH");
	if (!root || !*root)
		return;
	sysfs_put(root, dev, "state", down ? "1: DOWN\n" : "4: ACTIVE\n");
	sysfs_put(root, dev, "phys_state", down ? "3: Disabled\n" : "5: LinkUp\n");
}

/* Tells this process's contexts on the devices whose bit differs between g_seen and now. */
static void announce(uint32_t now)
{
	uint32_t changed = now ^ g_seen;
	g_seen = now;
	for (int dev = 0; dev < emu_num_devices(); dev++) {
		if (!(changed >> dev & 1))
			continue;
		uint32_t type = (now >> dev & 1) ? IBV_EVENT_PORT_ERR : IBV_EVENT_PORT_ACTIVE;
		emu_lock();
		for (struct emu_ctx *c = emu_contexts(); c; c = c->next)
			if (c->dev_index == dev && c->have_context)
				emu_async_post(c, type, 1, 0);
		emu_unlock();
		sysfs_sync(dev, (int)(now >> dev & 1));
		if (emu_log_enabled)
			emu_log("port 1 of mlx5_%d is %s", dev, (now >> dev & 1) ? "down" : "up");
	}
}

static void *watcher(void *arg)
{
	struct emu_registry *r = arg;
	for (;;) {
		uint32_t seq = atomic_load(&r->port_seq);
		uint32_t now = atomic_load(&r->ports_down);
		pthread_mutex_lock(&g_watch_lock);
		if (now != g_seen)
			announce(now);
		pthread_mutex_unlock(&g_watch_lock);
		/* a change after the load of seq changed seq too: the wait then returns at once (EAGAIN) */
		syscall(SYS_futex, &r->port_seq, FUTEX_WAIT, seq, NULL, NULL, 0);
	}
	return NULL;
}

void emu_port_watch_start(void)
{
	struct emu_registry *r = emu_registry();
	if (!r)
		return;
	pthread_mutex_lock(&g_watch_lock);
	if (!g_watching) {
		g_seen = atomic_load(&r->ports_down);
		for (int dev = 0; dev < emu_num_devices(); dev++)
			if (g_seen >> dev & 1)
				sysfs_sync(dev, 1); /* a tree written by a launcher after the port went down */
		/* the watcher takes none of the program's signals */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		pthread_t t;
		pthread_attr_t a;
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&a, 64 * 1024);
		g_watching = pthread_create(&t, &a, watcher, r) == 0;
		pthread_attr_destroy(&a);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!g_watching)
			emu_log("no port watcher thread: port events will not reach this process");
	}
	pthread_mutex_unlock(&g_watch_lock);
}

/* A fork child has no watcher (threads do not survive fork): its first context starts one. */
void emu_port_after_fork_child(void)
{
	pthread_mutex_init(&g_watch_lock, NULL);
	g_watching = 0;
}

int mlx5emu_port_set(int dev_index, int port, int up)
{
	if (dev_index < 0 || dev_index >= emu_num_devices() || port != 1)
		return EINVAL;
	int rc = emu_reg_attach();
	if (rc)
		return rc;
	struct emu_registry *r = emu_registry();
	uint32_t bit = 1u << dev_index;
	if (up)
		atomic_fetch_and(&r->ports_down, ~bit);
	else
		atomic_fetch_or(&r->ports_down, bit);
	atomic_fetch_add(&r->port_seq, 1);
	syscall(SYS_futex, &r->port_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	sysfs_sync(dev_index, !up);
	return 0;
}
