/* SPDX-License-Identifier: Apache-2.0 */
/* The LD_PRELOAD surface: libc entry points interposed so that /dev/infiniband/uverbsN behaves like the uverbs
 * character device, and libmlx5's spinlock, so that polling threads lend the engine their cycles (at the end).
 * Everything that is not ours goes straight to the real libc function (dlsym RTLD_NEXT) after
 * one table lookup, because a whole JVM runs under this library.
 *
 * What libibverbs 44 / libmlx5 44 on Debian 12 call (nm -D: open, openat, stat@GLIBC_2.33, fstat@GLIBC_2.33,
 * ioctl, write, read, mmap, munmap, close, socket): we interpose open/openat (and their 64/_2 aliases, which other
 * callers may use), stat/stat64/lstat/lstat64 and access/faccessat/eaccess (the cdev path; UCX checks
 * access(R_OK|W_OK)), fstat/fstat64 (command fds only), ioctl, write, read (async event fds only), mmap/mmap64,
 * close, dup/dup2/dup3, fcntl(F_DUPFD*), and socket (NETLINK_RDMA fails so libibverbs uses sysfs). Path calls
 * (open*, stat*, fstatat*, statx, access*, opendir, readlink, realpath) also see /sys/class/infiniband* as the
 * emulated sysfs tree.
 *
 * The command fd is a memfd holding the context's UAR pages at the offsets libmlx5 maps them from, so a program
 * whose mmap bypasses libc (UCX's memory hooks issue the raw system call) still maps the very pages the engine
 * watches. fstat of it answers as /dev/null (1:3), the character device the sysfs tree promises. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "engine_hooks.h"
#include "kernel.h"
#include "libc.h"
#include "dispatch.h"
#include "ucma.h"
#include "netdev.h"
#include "netlink.h"
#include "../emu_counters.h"

#define CDEV_PREFIX "/dev/infiniband/uverbs"

/* ---- fd table: fd -> context (NULL = not ours). One pointer per fd, read without a lock on the fast path. ---- */

#define FD_TABLE_SIZE 65536
static struct emu_ctx *_Atomic g_fds[FD_TABLE_SIZE];

static struct emu_ctx *emu_fd_ctx(int fd)
{
	if (fd < 0 || fd >= FD_TABLE_SIZE)
		return NULL;
	return atomic_load_explicit(&g_fds[fd], memory_order_acquire);
}

/* The context of fd with a reference held (so a concurrent close of the last fd cannot free it under a running
 * command, as the kernel's file reference guarantees), or NULL. Release with emu_ctx_put(). */
static struct emu_ctx *fd_ctx_get(int fd)
{
	if (!emu_fd_ctx(fd))
		return NULL;
	emu_lock();
	struct emu_ctx *ctx = emu_fd_ctx(fd);
	if (ctx)
		ctx->fd_refs++;
	emu_unlock();
	return ctx;
}

static void fd_set_ctx(int fd, struct emu_ctx *ctx)
{
	if (fd >= 0 && fd < FD_TABLE_SIZE)
		atomic_store_explicit(&g_fds[fd], ctx, memory_order_release);
}

/* Drops one fd reference of ctx; the last one destroys the context (like the release of the uverbs file). */
static void fd_drop(int fd)
{
	emu_lock();
	struct emu_ctx *ctx = emu_fd_ctx(fd);
	if (ctx)
		fd_set_ctx(fd, NULL);
	emu_unlock();
	if (ctx)
		emu_ctx_put(ctx);
}

static void fd_dup_to(int oldfd, int newfd)
{
	struct emu_ctx *ctx = emu_fd_ctx(oldfd);
	if (!ctx || newfd < 0)
		return;
	if (newfd >= FD_TABLE_SIZE) {
		emu_log("fd %d beyond the emulator's fd table; the duplicate is not a uverbs fd", newfd);
		return;
	}
	emu_ctx_get(ctx);
	fd_set_ctx(newfd, ctx);
}

/* ---- open ---- */

/* "/dev/infiniband/uverbsN" -> N, else -1 */
static int cdev_index(const char *path)
{
	if (!path || strncmp(path, CDEV_PREFIX, sizeof(CDEV_PREFIX) - 1) != 0)
		return -1;
	const char *p = path + sizeof(CDEV_PREFIX) - 1;
	if (*p < '0' || *p > '9')
		return -1;
	int n = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		/* any path may come through open(): a long digit string must not overflow n (undefined behaviour),
		 * and no device has such a number, so the path is not ours */
		if (n > (INT_MAX - 9) / 10)
			return -1;
		n = n * 10 + (*p - '0');
	}
	if (*p)
		return -1;
	return n;
}

static int open_cdev(int index, int flags)
{
	if (index >= emu_num_devices()) {
		errno = ENOENT;
		return -1;
	}
	if ((flags & O_ACCMODE) != O_RDWR) {
		errno = EACCES; /* libibverbs opens O_RDWR; anything else is not a verbs user */
		return -1;
	}
	/* The command fd is a memfd that will hold the UAR pages (see the top of this file); the context keeps a
	 * duplicate of it, which stays valid however the program closes or dups its own. */
	char name[32];
	snprintf(name, sizeof name, "mlx5emu-uverbs%d", index);
	int fd = memfd_create(name, (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -1;
	if (fd >= FD_TABLE_SIZE) {
		REAL(close)(fd);
		errno = EMFILE;
		return -1;
	}
	int uar_fd = REAL(fcntl)(fd, F_DUPFD_CLOEXEC, 0);
	struct emu_ctx *ctx = uar_fd < 0 ? NULL : emu_ctx_open(fd, index);
	if (!ctx) {
		int e = errno;
		REAL(close)(fd);
		if (uar_fd >= 0)
			REAL(close)(uar_fd);
		errno = e;
		return -1;
	}
	ctx->uar_memfd = uar_fd;
	fd_set_ctx(fd, ctx);
	return fd;
}

/* /dev/infiniband/rdma_cm: the rdma_cm channel (ucma.c) */
static int is_ucma_path(const char *path)
{
	return path && strcmp(path, EMU_UCMA_PATH) == 0;
}

/* ---- sysfs by absolute path. libibverbs and librdmacm find the emulated devices through SYSFS_PATH, but other
 * programs read /sys directly: rdma-core's pyverbs tests `ls` <dev>/device/net to find the device's network
 * interface and its address, UCX resolves class/infiniband/<dev> to the PCI function, DPDK scans
 * /sys/bus/pci/devices, reads each function's files and probes whatever a driver claims (its virtio driver would
 * take over the host's own virtio disk). So every path below is answered from the emulated tree, as if it were
 * mounted there: the RDMA classes, the emulated network interfaces, and the buses and PCI hierarchy whole, so that
 * a program under the emulator sees the emulated PCI functions and never one of the host's (test/kernel/t_pci_tree
 * checks it). /proc/bus/pci (lspci's fallback) maps to a path the tree never has: ENOENT. The rest of /sys
 * (CPUs, NUMA nodes, the host's network interfaces) stays the real one. ---- */

struct sysfs_redirect {
	const char *prefix;
	int whole_name; /* 1: the prefix must end at a '/' or the end; 0: any name that starts with it */
};

static const struct sysfs_redirect sysfs_redirects[] = {
	{"/sys/class/infiniband", 1},
	{"/sys/class/infiniband_verbs", 1},
	{"/sys/class/infiniband_mad", 1},
	{"/sys/class/misc/rdma_cm", 1},
	{"/sys/class/net/" EMU_NETDEV_PREFIX, 0},
	{"/sys/class/pci_bus", 1},
	{"/sys/bus/pci", 1},
	{"/sys/bus/pci_express", 1},
	{"/sys/bus/auxiliary", 1},
	{"/sys/bus/vmbus", 1},
	{"/sys/bus/platform", 1},
	{"/sys/bus/fsl-mc", 1},
	{"/sys/devices/pci", 0},
	{"/sys/devices/platform", 1},
	{"/sys/devices/virtual/net/" EMU_NETDEV_PREFIX, 0},
	{"/proc/bus/pci", 1},
};

/* path with every run of '/' made one, every "/./" dropped and, with dotdot, every "/../" taken back lexically,
 * into out (PATH_MAX bytes); 0, or -1 if too long. "/sys//bus/pci", "/sys/./bus/pci" and "/sys/bus/../bus/pci" name
 * /sys/bus/pci to the kernel and must not slip past the prefixes. */
static int sysfs_squeeze(const char *path, char *out, int dotdot)
{
	size_t o = 0;
	for (const char *p = path; *p;) {
		if (*p == '/' && o > 0 && out[o - 1] == '/') {
			p++;
			continue;
		}
		if (*p == '.' && o > 0 && out[o - 1] == '/' && (p[1] == '/' || p[1] == '\0')) {
			p++;
			continue;
		}
		if (dotdot && *p == '.' && p[1] == '.' && o > 0 && out[o - 1] == '/' && (p[2] == '/' || p[2] == '\0')) {
			/* drop the last component: out ends in '/', go back to the '/' before it (the root stays) */
			if (o > 1) {
				o--;
				while (o > 0 && out[o - 1] != '/')
					o--;
			}
			p += 2;
			continue;
		}
		if (o + 1 >= PATH_MAX)
			return -1;
		out[o++] = *p++;
	}
	out[o] = '\0';
	return 0;
}

/* The path to use for `path`: itself, or its counterpart under SYSFS_PATH written into buf (PATH_MAX bytes). */
static const char *sysfs_redirect(const char *norm, const char *root, char *buf)
{
	if (strncmp(norm, "/sys/", 5) != 0 && strncmp(norm, "/proc/bus/", 10) != 0)
		return NULL;
	for (size_t i = 0; i < sizeof sysfs_redirects / sizeof sysfs_redirects[0]; i++) {
		const struct sysfs_redirect *r = &sysfs_redirects[i];
		size_t n = strlen(r->prefix);
		if (strncmp(norm, r->prefix, n) != 0 || (r->whole_name && norm[n] != '\0' && norm[n] != '/'))
			continue;
		/* /sys/X keeps "/X" under the root; /proc/bus/pci becomes <root>/proc/bus/pci, which the tree lacks */
		const char *rest = strncmp(norm, "/sys/", 5) == 0 ? norm + 4 : norm;
		int len = snprintf(buf, PATH_MAX, "%s%s", root, rest);
		return len > 0 && len < PATH_MAX ? buf : NULL;
	}
	return NULL;
}

/* The path to use for `path`: itself, or its counterpart under SYSFS_PATH written into buf (PATH_MAX bytes). A ".."
 * after a redirected prefix is left to the kernel inside the tree (it may follow a symlink there, as
 * <dev>/device/.. does); only a path that reaches a redirected prefix through ".." is taken lexically. The host's
 * own class links (/sys/class/net/eth0/device) still lead into its tree: the rule covers the bus and PCI views. */
static const char *sysfs_path(const char *path, char *buf)
{
	if (!path || path[0] != '/' || (path[1] != 's' && path[1] != 'p' && path[1] != '/' && path[1] != '.'))
		return path;
	const char *root = getenv("SYSFS_PATH");
	if (!root || !*root)
		return path;
	char norm[PATH_MAX];
	const char *r = NULL;
	if (!sysfs_squeeze(path, norm, 0))
		r = sysfs_redirect(norm, root, buf);
	if (!r && strstr(path, "/..") && !sysfs_squeeze(path, norm, 1))
		r = sysfs_redirect(norm, root, buf);
	return r ? r : path;
}

/* A port counter file of the emulated tree (<root>/.../infiniband/mlx5_N/ports/1/{counters,hw_counters}/NAME, as
 * the launcher writes it, reached through /sys/class or SYSFS_PATH): its device and counter (emu_counters.h) into
 * *dev and *cnt, or 0 when path is any other file. */
static int counter_file(const char *path, int *dev, int *cnt)
{
	const char *root = getenv("SYSFS_PATH");
	size_t rl = root ? strlen(root) : 0;
	if (!path || !rl || strncmp(path, root, rl) != 0)
		return 0;
	const char *ib = strstr(path + rl, "/infiniband/mlx5_");
	if (!ib)
		return 0;
	int d, port, used = 0;
	char dir[16];
	if (sscanf(ib, "/infiniband/mlx5_%d/ports/%d/%15[a-z_]/%n", &d, &port, dir, &used) != 3 || !used || port != 1)
		return 0;
	const char *name = ib + used;
	if (strchr(name, '/'))
		return 0;
	int c = emu_port_counter_lookup(dir, name);
	if (c < 0 || d < 0 || d >= emu_num_devices())
		return 0;
	*dev = d;
	*cnt = c;
	return 1;
}

/* An open for reading of a port counter file answers with a fresh in-memory file holding the live value, as sysfs
 * computes the text at open; *served says whether it did. */
static int open_counter(const char *path, int flags, int *served)
{
	int dev, cnt;
	*served = (flags & O_ACCMODE) == O_RDONLY && counter_file(path, &dev, &cnt);
	if (!*served)
		return -1;
	char text[32];
	int len = snprintf(text, sizeof text, "%llu\n",
			   (unsigned long long)emu_port_counter_read(dev, (enum emu_port_counter)cnt));
	int fd = memfd_create("mlx5emu-counter", flags & O_CLOEXEC ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -1;
	if (REAL(write)(fd, text, (size_t)len) != len || lseek(fd, 0, SEEK_SET) != 0) {
		int e = errno;
		REAL(close)(fd);
		errno = e ? e : EIO;
		return -1;
	}
	return fd;
}

static int mode_arg(int flags, va_list ap)
{
	if (flags & (O_CREAT | __O_TMPFILE))
		return va_arg(ap, int);
	return 0;
}

/* Opens of the character devices this library serves: sets *served and returns the descriptor (or -1 with errno)
 * for /dev/infiniband/uverbsN and rdma_cm; leaves *served at 0 for every other path. */
static int open_served(const char *path, int flags, int *served)
{
	int idx = cdev_index(path);
	*served = idx >= 0 || is_ucma_path(path);
	if (idx >= 0)
		return open_cdev(idx, flags);
	return *served ? emu_ucma_open(flags) : -1;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_arg(flags, ap);
	va_end(ap);
	int served, fd = open_served(path, flags, &served);
	if (served)
		return fd;
	char buf[PATH_MAX];
	const char *real = sysfs_path(path, buf);
	fd = open_counter(real, flags, &served);
	if (served)
		return fd;
	return REAL(open)(real, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_arg(flags, ap);
	va_end(ap);
	int served, fd = open_served(path, flags, &served);
	if (served)
		return fd;
	char buf[PATH_MAX];
	const char *real = sysfs_path(path, buf);
	fd = open_counter(real, flags, &served);
	if (served)
		return fd;
	return REAL(open64)(real, flags, mode);
}

int __open_2(const char *path, int flags) { return open(path, flags); }
int __open64_2(const char *path, int flags) { return open64(path, flags); }

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_arg(flags, ap);
	va_end(ap);
	int served, fd = open_served(path, flags, &served);
	if (served)
		return fd;
	char buf[PATH_MAX];
	const char *real = sysfs_path(path, buf);
	fd = open_counter(real, flags, &served);
	if (served)
		return fd;
	return REAL(openat)(dirfd, real, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_arg(flags, ap);
	va_end(ap);
	int served, fd = open_served(path, flags, &served);
	if (served)
		return fd;
	char buf[PATH_MAX];
	const char *real = sysfs_path(path, buf);
	fd = open_counter(real, flags, &served);
	if (served)
		return fd;
	return REAL(openat64)(dirfd, real, flags, mode);
}

int __openat_2(int dirfd, const char *path, int flags) { return openat(dirfd, path, flags); }
int __openat64_2(int dirfd, const char *path, int flags) { return openat64(dirfd, path, flags); }

/* ---- stat: libibverbs' try_access_device() stats /dev/infiniband/uverbsN; answer with /dev/null's stat ---- */

static int stat_cdev(const char *path, struct stat *st, stat_fn fn)
{
	int idx = cdev_index(path);
	if (idx < 0) {
		char buf[PATH_MAX];
		return fn(sysfs_path(path, buf), st);
	}
	if (idx >= emu_num_devices()) {
		errno = ENOENT;
		return -1;
	}
	return fn("/dev/null", st);
}

int stat(const char *path, struct stat *st) { return stat_cdev(path, st, REAL(stat)); }
int stat64(const char *path, struct stat64 *st) { return stat_cdev(path, (struct stat *)st, REAL(stat64)); }
int lstat(const char *path, struct stat *st) { return stat_cdev(path, st, REAL(lstat)); }
int lstat64(const char *path, struct stat64 *st) { return stat_cdev(path, (struct stat *)st, REAL(lstat64)); }

/* fstatat, statx, opendir, readlink, realpath: only the sysfs redirection (absolute paths; dirfd is then ignored
 * by the kernel too). Python's os.stat uses stat64/fstatat64, coreutils' ls statx and opendir. */
int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	char buf[PATH_MAX];
	return REAL(fstatat)(dirfd, sysfs_path(path, buf), st, flags);
}

int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	char buf[PATH_MAX];
	return REAL(fstatat64)(dirfd, sysfs_path(path, buf), (struct stat *)st, flags);
}

int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *st)
{
	char buf[PATH_MAX];
	return REAL(statx)(dirfd, sysfs_path(path, buf), flags, mask, st);
}

DIR *opendir(const char *path)
{
	char buf[PATH_MAX];
	return REAL(opendir)(sysfs_path(path, buf));
}

ssize_t readlink(const char *path, char *out, size_t size)
{
	char buf[PATH_MAX];
	return REAL(readlink)(sysfs_path(path, buf), out, size);
}

char *realpath(const char *path, char *resolved)
{
	char buf[PATH_MAX];
	return REAL(realpath)(sysfs_path(path, buf), resolved);
}

/* fopen and scandir open through glibc's internal entry points, which no interposer sees: DPDK reads every sysfs
 * file with fopen. A port counter opened for reading is the live value, as with open(). */
static FILE *do_fopen(fopen_fn fn, const char *path, const char *mode)
{
	char buf[PATH_MAX];
	const char *real = sysfs_path(path, buf);
	if (mode && mode[0] == 'r' && !strchr(mode, '+')) {
		int served, fd = open_counter(real, O_RDONLY | (strchr(mode, 'e') ? O_CLOEXEC : 0), &served);
		if (served) {
			FILE *f = fd < 0 ? NULL : fdopen(fd, mode);
			if (!f && fd >= 0) {
				int e = errno;
				REAL(close)(fd);
				errno = e;
			}
			return f;
		}
	}
	return fn(real, mode);
}

FILE *fopen(const char *path, const char *mode) { return do_fopen(REAL(fopen), path, mode); }
FILE *fopen64(const char *path, const char *mode) { return do_fopen(REAL(fopen64), path, mode); }

int scandir(const char *dir, struct dirent ***list, int (*filter)(const struct dirent *),
	    int (*cmp)(const struct dirent **, const struct dirent **))
{
	char buf[PATH_MAX];
	return REAL(scandir)(sysfs_path(dir, buf), list, filter, cmp);
}

int scandir64(const char *dir, struct dirent64 ***list, int (*filter)(const struct dirent64 *),
	      int (*cmp)(const struct dirent64 **, const struct dirent64 **))
{
	char buf[PATH_MAX];
	return REAL(scandir64)(sysfs_path(dir, buf), list, filter, cmp);
}

/* A command fd is a character device 1:3 to fstat (ibv_import_device checks S_ISCHR and st_rdev), and so is
 * the rdma_cm channel (an eventfd), which librdmacm's open_cdev() wants to be a character device. */
int fstat(int fd, struct stat *st)
{
	if (__builtin_expect(emu_fd_ctx(fd) == NULL && !emu_ucma_is_fd(fd), 1))
		return REAL(fstat)(fd, st);
	return REAL(stat)("/dev/null", st);
}

int fstat64(int fd, struct stat64 *st)
{
	if (__builtin_expect(emu_fd_ctx(fd) == NULL && !emu_ucma_is_fd(fd), 1))
		return REAL(fstat64)(fd, (struct stat *)st);
	return REAL(stat64)("/dev/null", (struct stat *)st);
}

/* access() of the cdev: read and write allowed (crw-rw-rw- as udev's rdma rules make it), execute not. */
static int access_cdev(int idx, int mode)
{
	if (idx >= emu_num_devices()) {
		errno = ENOENT;
		return -1;
	}
	if (mode & X_OK) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

int access(const char *path, int mode)
{
	int idx = cdev_index(path);
	char buf[PATH_MAX];
	return idx < 0 ? REAL(access)(sysfs_path(path, buf), mode) : access_cdev(idx, mode);
}

int eaccess(const char *path, int mode)
{
	int idx = cdev_index(path);
	char buf[PATH_MAX];
	return idx < 0 ? REAL(eaccess)(sysfs_path(path, buf), mode) : access_cdev(idx, mode);
}

int euidaccess(const char *path, int mode) { return eaccess(path, mode); }

int faccessat(int dirfd, const char *path, int mode, int flags)
{
	int idx = cdev_index(path); /* an absolute path: dirfd does not matter */
	char buf[PATH_MAX];
	return idx < 0 ? REAL(faccessat)(dirfd, sysfs_path(path, buf), mode, flags) : access_cdev(idx, mode);
}

/* ---- the async event fd: read() takes one event from the context's queue (async_event.c) ---- */

ssize_t read(int fd, void *buf, size_t count)
{
	if (__builtin_expect(!emu_async_is_fd(fd), 1))
		return REAL(read)(fd, buf, count);
	return emu_async_read(fd, buf, count);
}

/* ---- the command channel ---- */

ssize_t write(int fd, const void *buf, size_t count)
{
	if (__builtin_expect(emu_ucma_is_fd(fd), 0))
		return emu_ucma_write(fd, buf, count);
	if (__builtin_expect(emu_fd_ctx(fd) == NULL, 1))
		return REAL(write)(fd, buf, count);
	struct emu_ctx *ctx = fd_ctx_get(fd);
	if (!ctx)
		return REAL(write)(fd, buf, count);
	ssize_t r = emu_uverbs_write(ctx, buf, count);
	int e = errno;
	emu_ctx_put(ctx);
	errno = e;
	return r;
}

/*
 * The ioctl ABI answers as a kernel that has the uverbs ioctl framework and one of its methods: Linux
 * ib_uverbs_ioctl() (drivers/infiniband/core/uverbs_ioctl.c) refuses other requests (ENOTTY), a header it cannot
 * read (EFAULT), a length that is not the header plus num_attrs attributes or beyond a page (EINVAL), reserved
 * fields (EPROTONOSUPPORT), and then looks the method up: DEVICE / QUERY_PORT_SPEED (rdma-core 65's
 * ibv_query_port_speed, which has no write() command) is served; for any other uapi_get_method() gives
 * EPROTONOSUPPORT. libibverbs (cmd_fallback.c) then marks that method unsupported and uses write() where a write
 * command exists, and other verbs that exist only as ioctls fail with EOPNOTSUPP/EPROTONOSUPPORT, as on a kernel
 * without them.
 */
int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	struct emu_ctx *ctx = emu_fd_ctx(fd);
	if (__builtin_expect(ctx == NULL, 1)) {
		/* the interface requests (0x89xx) naming an emulated interface are answered here (netdev.c) */
		if (__builtin_expect((request & ~0xffUL) == 0x8900UL, 0)) {
			int served, r = emu_netdev_ioctl(request, arg, &served);
			if (served)
				return r;
		}
		return REAL(ioctl)(fd, request, arg);
	}
	struct ib_uverbs_ioctl_hdr hdr;
	int err;
	if (request != RDMA_VERBS_IOCTL)
		err = ENOTTY;
	else if (emu_copy_from_user(&hdr, (uint64_t)(uintptr_t)arg, sizeof hdr))
		err = EFAULT;
	else if (hdr.length > EMU_UAR_PAGE_SIZE ||
		 hdr.length != sizeof hdr + (size_t)hdr.num_attrs * sizeof(struct ib_uverbs_attr))
		err = EINVAL;
	else if (hdr.reserved1 || hdr.reserved2)
		err = EPROTONOSUPPORT;
	else if (hdr.object_id == UVERBS_OBJECT_DEVICE && hdr.method_id == UVERBS_METHOD_QUERY_PORT_SPEED_ID) {
		struct emu_ctx *held = fd_ctx_get(fd);
		err = held ? emu_ioctl_query_port_speed(held, (uint64_t)(uintptr_t)arg + sizeof hdr, hdr.num_attrs) : EBADF;
		if (held)
			emu_ctx_put(held);
	} else
		err = EPROTONOSUPPORT;
	if (emu_log_enabled)
		emu_log("ioctl fd=%d req=0x%lx object %u method %u -> %s", fd, request,
			err == ENOTTY || err == EFAULT ? 0u : hdr.object_id, err == ENOTTY || err == EFAULT ? 0u : hdr.method_id,
			strerror(err));
	if (!err)
		return 0;
	errno = err;
	return -1;
}

static void *do_mmap(mmap_fn fn, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (__builtin_expect(emu_fd_ctx(fd) == NULL, 1))
		return fn(addr, len, prot, flags, fd, off);
	struct emu_ctx *ctx = fd_ctx_get(fd);
	if (!ctx)
		return fn(addr, len, prot, flags, fd, off);
	void *p = emu_ctx_mmap(ctx, addr, len, prot, flags, off);
	int e = errno;
	emu_ctx_put(ctx);
	errno = e;
	return p;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return do_mmap(REAL(mmap), addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return do_mmap(REAL(mmap64), addr, len, prot, flags, fd, off);
}

int close(int fd)
{
	if (__builtin_expect(emu_ucma_is_fd(fd), 0))
		emu_ucma_close(fd);
	if (__builtin_expect(emu_async_is_fd(fd), 0))
		emu_async_fd_closing(fd);
	if (__builtin_expect(emu_netlink_is_fd(fd), 0))
		emu_netlink_close(fd);
	if (__builtin_expect(emu_fd_ctx(fd) == NULL, 1))
		return REAL(close)(fd);
	/* Forget the fd before the real close, so a concurrent open() reusing the number is never ours. */
	fd_drop(fd);
	return REAL(close)(fd);
}

int dup(int oldfd)
{
	int fd = REAL(dup)(oldfd);
	if (fd >= 0 && emu_fd_ctx(oldfd))
		fd_dup_to(oldfd, fd);
	if (fd >= 0 && emu_async_is_fd(oldfd))
		emu_async_fd_dup(oldfd, fd);
	if (fd >= 0 && emu_netlink_is_fd(oldfd))
		emu_netlink_dup(oldfd, fd);
	return fd;
}

/* An async fd as either end of dup2/dup3: newfd stops being what it was (closed), then becomes oldfd's. */
static void async_dup_over(int oldfd, int newfd)
{
	if (emu_async_is_fd(newfd))
		emu_async_fd_closing(newfd);
	emu_async_fd_dup(oldfd, newfd);
	if (emu_netlink_is_fd(newfd))
		emu_netlink_close(newfd);
	emu_netlink_dup(oldfd, newfd);
}

static int dup_is_ours(int oldfd, int newfd)
{
	return emu_fd_ctx(oldfd) || emu_fd_ctx(newfd) || emu_async_is_fd(oldfd) || emu_async_is_fd(newfd) ||
	       emu_netlink_is_fd(oldfd) || emu_netlink_is_fd(newfd);
}

int dup2(int oldfd, int newfd)
{
	if (!dup_is_ours(oldfd, newfd))
		return REAL(dup2)(oldfd, newfd);
	if (oldfd == newfd)
		return REAL(dup2)(oldfd, newfd);
	int fd = REAL(dup2)(oldfd, newfd);
	if (fd >= 0) {
		fd_drop(newfd); /* dup2 closed whatever newfd was */
		fd_dup_to(oldfd, newfd);
		async_dup_over(oldfd, newfd);
	}
	return fd;
}

int dup3(int oldfd, int newfd, int flags)
{
	if (!dup_is_ours(oldfd, newfd))
		return REAL(dup3)(oldfd, newfd, flags);
	int fd = REAL(dup3)(oldfd, newfd, flags);
	if (fd >= 0) {
		fd_drop(newfd);
		fd_dup_to(oldfd, newfd);
		async_dup_over(oldfd, newfd);
	}
	return fd;
}

static int do_fcntl(fcntl_fn fn, int fd, int cmd, va_list ap)
{
	/* every fcntl argument is an int or a pointer; pass it on as a pointer-sized value */
	void *arg = va_arg(ap, void *);
	int r = fn(fd, cmd, arg);
	if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && emu_fd_ctx(fd))
		fd_dup_to(fd, r);
	if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && emu_async_is_fd(fd))
		emu_async_fd_dup(fd, r);
	if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && emu_netlink_is_fd(fd))
		emu_netlink_dup(fd, r);
	return r;
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	int r = do_fcntl(REAL(fcntl), fd, cmd, ap);
	va_end(ap);
	return r;
}

int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	int r = do_fcntl(REAL(fcntl64), fd, cmd, ap);
	va_end(ap);
	return r;
}

/* ---- NETLINK_RDMA (netlink.c): the RDMA netlink family answers for the emulated devices; the host's RDMA
 * devices are never visible. libibverbs discovers devices through it (then reads the tree), DPDK's mlx5 driver
 * asks it for ports and their network interfaces, iproute2's `rdma` lists them. ---- */

int socket(int domain, int type, int protocol)
{
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		int fd = emu_netlink_socket(type);
		if (emu_log_enabled)
			emu_log("socket(AF_NETLINK, NETLINK_RDMA) -> emulated fd %d", fd);
		return fd;
	}
	return REAL(socket)(domain, type, protocol);
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	if (__builtin_expect(!emu_netlink_is_fd(fd), 1))
		return REAL(bind)(fd, addr, len);
	struct sockaddr_nl sa;
	if (!addr || len < sizeof sa) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&sa, addr, sizeof sa);
	if (sa.nl_family != AF_NETLINK) {
		errno = EINVAL;
		return -1;
	}
	return 0; /* the port id stays the one autobind gave; groups: the family has no multicast events here */
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	if (__builtin_expect(!emu_netlink_is_fd(fd), 1))
		return REAL(getsockname)(fd, addr, len);
	struct sockaddr_nl sa;
	emu_netlink_sockname(fd, &sa);
	if (!addr || !len) {
		errno = EFAULT;
		return -1;
	}
	memcpy(addr, &sa, *len < sizeof sa ? *len : sizeof sa);
	*len = sizeof sa;
	return 0;
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	if (__builtin_expect(!emu_netlink_is_fd(fd), 1))
		return REAL(setsockopt)(fd, level, name, val, len);
	return 0; /* buffer sizes, NETLINK_EXT_ACK, NETLINK_CAP_ACK, ...: accepted, the answers are small */
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	if (__builtin_expect(!emu_netlink_is_fd(fd), 1))
		return REAL(sendmsg)(fd, msg, flags);
	uint8_t buf[4096];
	size_t n = 0;
	for (size_t i = 0; msg && i < msg->msg_iovlen; i++) {
		size_t l = msg->msg_iov[i].iov_len;
		if (n + l > sizeof buf) {
			errno = EMSGSIZE;
			return -1;
		}
		if (emu_copy_from_user(buf + n, (uint64_t)(uintptr_t)msg->msg_iov[i].iov_base, l)) {
			errno = EFAULT;
			return -1;
		}
		n += l;
	}
	return emu_netlink_send(fd, buf, n);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tolen)
{
	if (__builtin_expect(!emu_netlink_is_fd(fd), 1))
		return REAL(sendto)(fd, buf, len, flags, to, tolen);
	return emu_netlink_send(fd, buf, len);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	if (__builtin_expect(!emu_netlink_is_fd(fd), 1))
		return REAL(send)(fd, buf, len, flags);
	return emu_netlink_send(fd, buf, len);
}

/* the sender of every answer is the kernel: port id 0 */
static void netlink_from(void *name, socklen_t *namelen)
{
	if (!name || !namelen)
		return;
	struct sockaddr_nl sa;
	memset(&sa, 0, sizeof sa);
	sa.nl_family = AF_NETLINK;
	memcpy(name, &sa, *namelen < sizeof sa ? *namelen : sizeof sa);
	*namelen = sizeof sa;
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	if (__builtin_expect(!emu_netlink_is_fd(fd), 1))
		return REAL(recvmsg)(fd, msg, flags);
	void *name = msg->msg_name;
	socklen_t namelen = msg->msg_namelen;
	msg->msg_name = NULL;
	msg->msg_namelen = 0;
	ssize_t r = REAL(recvmsg)(fd, msg, flags);
	int e = errno;
	msg->msg_name = name;
	msg->msg_namelen = namelen;
	if (r >= 0)
		netlink_from(msg->msg_name, &msg->msg_namelen);
	errno = e;
	return r;
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fromlen)
{
	if (__builtin_expect(!emu_netlink_is_fd(fd), 1))
		return REAL(recvfrom)(fd, buf, len, flags, from, fromlen);
	ssize_t r = REAL(recvfrom)(fd, buf, len, flags, NULL, NULL);
	if (r >= 0)
		netlink_from(from, fromlen);
	return r;
}

/* ---- the emulated network interfaces by name and index (netdev.c); glibc's own versions ask the kernel through
 * an internal socket and ioctl this library cannot see. ---- */

unsigned int if_nametoindex(const char *name)
{
	if (name && strncmp(name, EMU_NETDEV_PREFIX, sizeof EMU_NETDEV_PREFIX - 1) == 0) {
		int dev = emu_netdev_by_name(name);
		if (dev < 0) {
			errno = ENODEV;
			return 0;
		}
		return emu_netdev_ifindex(dev);
	}
	return REAL(if_nametoindex)(name);
}

char *if_indextoname(unsigned int ifindex, char name[IF_NAMESIZE])
{
	int dev = emu_netdev_by_ifindex(ifindex);
	if (dev < 0)
		return REAL(if_indextoname)(ifindex, name);
	char n[16];
	emu_netdev_name(dev, n);
	memcpy(name, n, IF_NAMESIZE);
	return name;
}

/* ---- pthread_spin_lock: cycles lent to the engine ---- */

/* libmlx5 takes its CQ or QP spinlock (pthread_spin_lock) in every ibv_poll_cq and ibv_post_*, so this is where a
 * program that busy-polls can run an engine pass first, if the engine is free (emu_engine_spin_lock_taking). Why:
 * on a 2-core machine two processes that busy-poll their CQs keep both cores, and the scheduler then runs the
 * engine threads only at time-slice boundaries (measured 4-12 ms per hop, 14 ms per ibv_rc_pingpong round trip).
 * A NIC does not need the host CPU; the emulator borrows the cycles the poller would spend spinning anyway. The lock
 * itself is still glibc's. */
int pthread_spin_lock(pthread_spinlock_t *l)
{
	emu_engine_spin_lock_taking();
	return REAL(pthread_spin_lock)(l);
}

/* ---- process lifetime ---- */

static void atfork_prepare(void) { emu_lock(); }
static void atfork_parent(void) { emu_unlock(); }
static void atfork_child(void)
{
	/* The child inherits copies of our contexts but not their engine nor registry entries (as with
	 * VM_DONTCOPY UAR mappings, the doorbell pages are not inherited either): mark them foreign. */
	emu_objects_after_fork_child();
	emu_reg_after_fork_child();
	emu_port_after_fork_child();
}

__attribute__((constructor)) static void emu_init(void)
{
	pthread_once(&emu_libc_once, emu_libc_resolve);
	const char *log = getenv("MLX5EMU_LOG");
	emu_log_enabled = log && *log && strcmp(log, "0") != 0;
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

__attribute__((destructor)) static void emu_fini(void)
{
	/* Memory goes with the process; what outlives it is our share of the fabric registry. */
	emu_reg_detach_process();
}
