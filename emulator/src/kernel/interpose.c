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
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "engine_hooks.h"
#include "kernel.h"
#include "libc.h"
#include "dispatch.h"
#include "ucma.h"
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
 * programs read /sys/class/infiniband* directly: rdma-core's pyverbs tests `ls` <dev>/device/net to find the
 * device's network interface and its address, UCX resolves class/infiniband/<dev> to the PCI function. Paths
 * under the RDMA classes are answered from the emulated tree, as if it were mounted there; the rest of /sys stays
 * the real one. ---- */

static const char *const sysfs_rdma_classes[] = {"/sys/class/infiniband", "/sys/class/infiniband_verbs",
						 "/sys/class/misc/rdma_cm"};

/* The path to use for `path`: itself, or its counterpart under SYSFS_PATH written into buf (PATH_MAX bytes). */
static const char *sysfs_path(const char *path, char *buf)
{
	if (!path || strncmp(path, "/sys/class/", 11) != 0)
		return path;
	const char *root = getenv("SYSFS_PATH");
	if (!root || !*root)
		return path;
	for (size_t i = 0; i < sizeof sysfs_rdma_classes / sizeof sysfs_rdma_classes[0]; i++) {
		size_t n = strlen(sysfs_rdma_classes[i]);
		if (strncmp(path, sysfs_rdma_classes[i], n) == 0 && (path[n] == '\0' || path[n] == '/')) {
			int len = snprintf(buf, PATH_MAX, "%s%s", root, path + 4); /* keeps "/class/..." */
			return len > 0 && len < PATH_MAX ? buf : path;
		}
	}
	return path;
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
	if (__builtin_expect(ctx == NULL, 1))
		return REAL(ioctl)(fd, request, arg);
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
	return fd;
}

/* An async fd as either end of dup2/dup3: newfd stops being what it was (closed), then becomes oldfd's. */
static void async_dup_over(int oldfd, int newfd)
{
	if (emu_async_is_fd(newfd))
		emu_async_fd_closing(newfd);
	emu_async_fd_dup(oldfd, newfd);
}

int dup2(int oldfd, int newfd)
{
	if (!emu_fd_ctx(oldfd) && !emu_fd_ctx(newfd) && !emu_async_is_fd(oldfd) && !emu_async_is_fd(newfd))
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
	if (!emu_fd_ctx(oldfd) && !emu_fd_ctx(newfd) && !emu_async_is_fd(oldfd) && !emu_async_is_fd(newfd))
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

/* libibverbs prefers netlink (NETLINK_RDMA) for device discovery; refusing it makes it read our sysfs tree. */
int socket(int domain, int type, int protocol)
{
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		if (emu_log_enabled)
			emu_log("socket(AF_NETLINK, NETLINK_RDMA) -> EPROTONOSUPPORT (sysfs discovery)");
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return REAL(socket)(domain, type, protocol);
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
