/* SPDX-License-Identifier: Apache-2.0 */
/* The emulator's /dev/shm files (layer 0): see emu_shm.h. Knows nothing of what the files hold beyond their size
 * and the magic in their first 8 bytes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu_barrier.h"
#include "emu_shm.h"

static void fabric_name(char *buf, size_t len, const char *lead, const char *suffix)
{
	const char *n = getenv("MLX5EMU_FABRIC");
	if (n && *n && !strchr(n, '/'))
		snprintf(buf, len, "%s%s%s", lead, n, suffix);
	else
		snprintf(buf, len, "%smlx5emu-%u%s", lead, (unsigned)getuid(), suffix);
}

void emu_shm_fabric(char *buf, size_t len) { fabric_name(buf, len, "", ""); }
void emu_shm_name(char *buf, size_t len, const char *suffix) { fabric_name(buf, len, "/", suffix); }

static void *map_fd(int fd, size_t size)
{
	return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

int emu_shm_create_or_attach(const char *name, size_t size, int exact_size, void **addr, int *created)
{
	struct stat st;
	*created = 0;
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		*created = 1;
		if (ftruncate(fd, (off_t)size) < 0) {
			int e = errno;
			close(fd);
			shm_unlink(name);
			errno = e;
			return e;
		}
	} else if (errno == EEXIST) {
		fd = shm_open(name, O_RDWR | O_CLOEXEC, 0600);
		if (fd < 0)
			return errno;
		/* the creator may still be sizing it */
		for (int i = 0; i < EMU_SHM_WAIT_MS; i++) {
			if (fstat(fd, &st) == 0 && st.st_size >= (off_t)size)
				break;
			usleep(1000);
		}
		if (exact_size && (fstat(fd, &st) != 0 || st.st_size != (off_t)size)) {
			close(fd);
			errno = ESTALE;
			return ESTALE;
		}
	} else {
		return errno;
	}
	void *p = map_fd(fd, size);
	close(fd);
	if (p == MAP_FAILED)
		return errno;
	*addr = p;
	return 0;
}

int emu_shm_create(const char *name, size_t size, enum emu_shm_stale stale, void **addr)
{
	int flags = O_RDWR | O_CREAT | O_CLOEXEC;
	if (stale == EMU_SHM_REPLACE) {
		shm_unlink(name);
		flags |= O_EXCL;
	} else {
		flags |= O_TRUNC;
	}
	int fd = shm_open(name, flags, 0600);
	if (fd < 0)
		return errno;
	int e = 0;
	void *p = MAP_FAILED;
	if (ftruncate(fd, (off_t)size) < 0 || (p = map_fd(fd, size)) == MAP_FAILED)
		e = errno;
	close(fd);
	if (e) {
		shm_unlink(name);
		errno = e;
		return e;
	}
	*addr = p;
	return 0;
}

void *emu_shm_attach(const char *name, size_t size, uint64_t magic)
{
	int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)size) {
		close(fd);
		return NULL;
	}
	void *p = map_fd(fd, size);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	if (published_u64(p) != magic) { /* else the contents could be read before their creator's stores */
		munmap(p, size);
		return NULL;
	}
	return p;
}

void emu_shm_publish(void *addr, uint64_t magic)
{
	publish_u64(addr, magic); /* else another process could see the magic before the contents it vouches for */
}

int emu_shm_wait_published(const void *addr, uint64_t magic)
{
	/* acquire (published_u64): once the magic is seen, the creator's initialisation is too */
	const uint64_t *m = addr;
	for (int i = 0; i < EMU_SHM_WAIT_MS && published_u64(m) != magic; i++)
		usleep(1000);
	return published_u64(m) == magic;
}

void emu_shm_reap_dead(const char *prefix)
{
	size_t plen = strlen(prefix);
	DIR *d = opendir("/dev/shm");
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		if (strncmp(e->d_name, prefix, plen) != 0)
			continue;
		char *end;
		long pid = strtol(e->d_name + plen, &end, 10);
		if (end == e->d_name + plen || *end || pid <= 0 || pid > INT32_MAX || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			char name[300];
			snprintf(name, sizeof name, "/%s", e->d_name);
			shm_unlink(name);
		}
	}
	closedir(d);
}

void emu_shm_robust_init(void *pthread_mutex)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(pthread_mutex, &a);
	pthread_mutexattr_destroy(&a);
}

void emu_shm_robust_lock(void *pthread_mutex)
{
	if (pthread_mutex_lock(pthread_mutex) == EOWNERDEAD)
		pthread_mutex_consistent(pthread_mutex);
}

void *emu_shm_shared_file(const char *suffix, size_t size, uint64_t magic, size_t lock_offset,
			  void (*init)(void *file))
{
	char name[128];
	emu_shm_name(name, sizeof name, suffix);
	void *p = NULL;
	int created = 0;
	int err = emu_shm_create_or_attach(name, size, 1, &p, &created);
	if (err == ESTALE) { /* another layout: start afresh, its processes keep their unlinked copy */
		shm_unlink(name);
		err = emu_shm_create_or_attach(name, size, 1, &p, &created);
	}
	if (err)
		return NULL;
	if (created) {
		emu_shm_robust_init((char *)p + lock_offset);
		if (init)
			init(p);
		emu_shm_publish(p, magic);
		return p;
	}
	if (emu_shm_wait_published(p, magic))
		return p;
	munmap(p, size);
	errno = ETIMEDOUT;
	return NULL;
}
