/* SPDX-License-Identifier: Apache-2.0 */
/* The libc passthrough (layer 0): resolution of the real libc entry points, for the interposers (interpose.c)
 * and for the emulator's own writes, closes and maps. */
#include <dlfcn.h>

#include "libc.h"

struct emu_libc emu_libc;
pthread_once_t emu_libc_once = PTHREAD_ONCE_INIT;

static void *must_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	return p;
}

void emu_libc_resolve(void)
{
	emu_libc.open = (open_fn)must_sym("open");
	emu_libc.open64 = (open_fn)must_sym("open64");
	emu_libc.openat = (openat_fn)must_sym("openat");
	emu_libc.openat64 = (openat_fn)must_sym("openat64");
	emu_libc.write = (write_fn)must_sym("write");
	emu_libc.read = (read_fn)must_sym("read");
	emu_libc.close = (close_fn)must_sym("close");
	emu_libc.ioctl = (ioctl_fn)must_sym("ioctl");
	emu_libc.mmap = (mmap_fn)must_sym("mmap");
	emu_libc.mmap64 = (mmap_fn)must_sym("mmap64");
	emu_libc.dup = (dup_fn)must_sym("dup");
	emu_libc.dup2 = (dup2_fn)must_sym("dup2");
	emu_libc.dup3 = (dup3_fn)must_sym("dup3");
	emu_libc.fcntl = (fcntl_fn)must_sym("fcntl");
	emu_libc.fcntl64 = (fcntl_fn)must_sym("fcntl64");
	emu_libc.socket = (socket_fn)must_sym("socket");
	emu_libc.stat = (stat_fn)must_sym("stat");
	emu_libc.stat64 = (stat_fn)must_sym("stat64");
	emu_libc.lstat = (stat_fn)must_sym("lstat");
	emu_libc.lstat64 = (stat_fn)must_sym("lstat64");
	emu_libc.fstatat = (fstatat_fn)must_sym("fstatat");
	emu_libc.fstatat64 = (fstatat_fn)must_sym("fstatat64");
	emu_libc.statx = (statx_fn)must_sym("statx");
	emu_libc.opendir = (opendir_fn)must_sym("opendir");
	emu_libc.readlink = (readlink_fn)must_sym("readlink");
	emu_libc.realpath = (realpath_fn)must_sym("realpath");
	emu_libc.fstat = (fstat_fn)must_sym("fstat");
	emu_libc.fstat64 = (fstat_fn)must_sym("fstat64");
	emu_libc.access = (access_fn)must_sym("access");
	emu_libc.eaccess = (access_fn)must_sym("eaccess");
	emu_libc.faccessat = (faccessat_fn)must_sym("faccessat");
	emu_libc.pthread_spin_lock = (spin_lock_fn)must_sym("pthread_spin_lock");
	emu_libc.fopen = (fopen_fn)must_sym("fopen");
	emu_libc.fopen64 = (fopen_fn)must_sym("fopen64");
	emu_libc.scandir = (scandir_fn)must_sym("scandir");
	emu_libc.scandir64 = (scandir64_fn)must_sym("scandir64");
	emu_libc.sendmsg = (sendmsg_fn)must_sym("sendmsg");
	emu_libc.recvmsg = (recvmsg_fn)must_sym("recvmsg");
	emu_libc.sendto = (sendto_fn)must_sym("sendto");
	emu_libc.recvfrom = (recvfrom_fn)must_sym("recvfrom");
	emu_libc.send = (send_fn)must_sym("send");
	emu_libc.recv = (recv_fn)must_sym("recv");
	emu_libc.bind = (bind_fn)must_sym("bind");
	emu_libc.getsockname = (getsockname_fn)must_sym("getsockname");
	emu_libc.setsockopt = (setsockopt_fn)must_sym("setsockopt");
	emu_libc.if_nametoindex = (if_nametoindex_fn)must_sym("if_nametoindex");
	emu_libc.if_indextoname = (if_indextoname_fn)must_sym("if_indextoname");
	if (!emu_libc.fopen64)
		emu_libc.fopen64 = emu_libc.fopen;
	if (!emu_libc.open64)
		emu_libc.open64 = emu_libc.open;
	if (!emu_libc.openat64)
		emu_libc.openat64 = emu_libc.openat;
	if (!emu_libc.mmap64)
		emu_libc.mmap64 = emu_libc.mmap;
	if (!emu_libc.fcntl64)
		emu_libc.fcntl64 = emu_libc.fcntl;
	if (!emu_libc.stat64)
		emu_libc.stat64 = emu_libc.stat;
	if (!emu_libc.lstat64)
		emu_libc.lstat64 = emu_libc.lstat;
	if (!emu_libc.fstatat64)
		emu_libc.fstatat64 = emu_libc.fstatat;
	if (!emu_libc.fstat64)
		emu_libc.fstat64 = emu_libc.fstat;
	if (!emu_libc.eaccess)
		emu_libc.eaccess = emu_libc.access;
}

ssize_t emu_real_write(int fd, const void *buf, size_t count) { return REAL(write)(fd, buf, count); }
int emu_real_close(int fd) { return REAL(close)(fd); }
void *emu_real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return REAL(mmap)(addr, len, prot, flags, fd, off);
}
