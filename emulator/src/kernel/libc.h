/* SPDX-License-Identifier: Apache-2.0 */
/* Layer 0 of the kernel, the libc passthrough: the real libc entry points behind the interposers, found with
 * dlsym(RTLD_NEXT) so that the emulator's own calls (and every call on a file that is not ours) reach libc
 * itself. Knows nothing of contexts or objects. */
#ifndef MLX5EMU_LIBC_H
#define MLX5EMU_LIBC_H

#include <dirent.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*read_fn)(int, void *, size_t);
typedef int (*close_fn)(int);
typedef int (*ioctl_fn)(int, unsigned long, ...);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*dup_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);
typedef int (*fcntl_fn)(int, int, ...);
typedef int (*socket_fn)(int, int, int);
typedef int (*stat_fn)(const char *, struct stat *);
typedef int (*fstat_fn)(int, struct stat *);
typedef int (*access_fn)(const char *, int);
typedef int (*faccessat_fn)(int, const char *, int, int);
typedef int (*fstatat_fn)(int, const char *, struct stat *, int);
typedef int (*statx_fn)(int, const char *, int, unsigned int, struct statx *);
typedef DIR *(*opendir_fn)(const char *);
typedef ssize_t (*readlink_fn)(const char *, char *, size_t);
typedef char *(*realpath_fn)(const char *, char *);
typedef int (*spin_lock_fn)(pthread_spinlock_t *);
typedef FILE *(*fopen_fn)(const char *, const char *);
typedef int (*scandir_fn)(const char *, struct dirent ***, int (*)(const struct dirent *),
			  int (*)(const struct dirent **, const struct dirent **));
typedef int (*scandir64_fn)(const char *, struct dirent64 ***, int (*)(const struct dirent64 *),
			    int (*)(const struct dirent64 **, const struct dirent64 **));
typedef ssize_t (*sendmsg_fn)(int, const struct msghdr *, int);
typedef ssize_t (*recvmsg_fn)(int, struct msghdr *, int);
typedef ssize_t (*sendto_fn)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
typedef ssize_t (*recvfrom_fn)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
typedef ssize_t (*send_fn)(int, const void *, size_t, int);
typedef ssize_t (*recv_fn)(int, void *, size_t, int);
typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);
typedef int (*getsockname_fn)(int, struct sockaddr *, socklen_t *);
typedef int (*setsockopt_fn)(int, int, int, const void *, socklen_t);
typedef unsigned int (*if_nametoindex_fn)(const char *);
typedef char *(*if_indextoname_fn)(unsigned int, char[16]);

struct emu_libc {
	open_fn open, open64;
	openat_fn openat, openat64;
	write_fn write;
	read_fn read;
	close_fn close;
	ioctl_fn ioctl;
	mmap_fn mmap, mmap64;
	dup_fn dup;
	dup2_fn dup2;
	dup3_fn dup3;
	fcntl_fn fcntl, fcntl64;
	socket_fn socket;
	stat_fn stat, stat64, lstat, lstat64;
	fstatat_fn fstatat, fstatat64;
	statx_fn statx;
	opendir_fn opendir;
	readlink_fn readlink;
	realpath_fn realpath;
	fstat_fn fstat, fstat64;
	access_fn access, eaccess;
	faccessat_fn faccessat;
	spin_lock_fn pthread_spin_lock;
	fopen_fn fopen, fopen64;
	scandir_fn scandir;
	scandir64_fn scandir64;
	sendmsg_fn sendmsg;
	recvmsg_fn recvmsg;
	sendto_fn sendto;
	recvfrom_fn recvfrom;
	send_fn send;
	recv_fn recv;
	bind_fn bind;
	getsockname_fn getsockname;
	setsockopt_fn setsockopt;
	if_nametoindex_fn if_nametoindex;
	if_indextoname_fn if_indextoname;
};
extern struct emu_libc emu_libc;

/* Constructors of other libraries may call us before ours ran: resolve on first use as well. */
extern pthread_once_t emu_libc_once;
void emu_libc_resolve(void);
#define REAL(fn) (pthread_once(&emu_libc_once, emu_libc_resolve), emu_libc.fn)

ssize_t emu_real_write(int fd, const void *buf, size_t count);
int emu_real_close(int fd);
void *emu_real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);

#endif
