/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_maps.c - where this process maps one page of a file, read from /proc/self/maps (layer 0 of src/engine/LAYERS).
 *
 * Why: the doorbell watcher write-protects the program's mapping of each UAR page (eng_dbfault.c), and learns its
 * address from the mmap this library interposes. A program whose mmap bypasses libc (UCX's memory hooks turn
 * libmlx5's mmap of the command fd into the system call) maps the same memfd pages where the library never sees it;
 * the engine then could only poll those pages (a doorbell waited for an engine thread to get a CPU: 4 ms per UCX
 * rc_mlx5 round trip on a 2-core machine). The kernel's list of mappings names them all: a line is
 * "start-end perms offset major:minor inode [path]" (proc(5)); the mappings of a file are the lines of its device
 * and inode, and file offset off is mapped at start + (off - offset) by a line whose [offset, offset + end - start)
 * holds it.
 *
 * No allocation (the caller may hold the engine lock while a program's thread is blocked in a doorbell fault): the
 * file is read in fixed chunks with read(2), and a line longer than the buffer (a path of several KiB) is skipped,
 * which cannot hide a memfd mapping (its path is "/memfd:NAME (deleted)").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "engine/eng_internal.h"

/* Parses one hexadecimal field ending in stop; returns the position after stop, or NULL. */
static const char *hex_field(const char *p, const char *end, char stop, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;
	for (; p < end && *p != stop; p++, digits++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
		if (d < 0 || digits >= 16)
			return NULL;
		v = v << 4 | (uint64_t)d;
	}
	if (p == end || !digits)
		return NULL;
	*out = v;
	return p + 1;
}

static const char *dec_field(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
		if (digits >= 20)
			return NULL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (!digits)
		return NULL;
	*out = v;
	return p;
}

/* One line (without its newline): whether it maps a part of the file (dev, ino), and which. */
static int maps_line(const char *p, const char *end, dev_t dev, ino_t ino, struct eng_map *m)
{
	uint64_t start, stop, offset, major, minor, inode;
	if (!(p = hex_field(p, end, '-', &start)) || !(p = hex_field(p, end, ' ', &stop)))
		return 0;
	while (p < end && *p != ' ') /* perms */
		p++;
	if (p == end || !(p = hex_field(p + 1, end, ' ', &offset)) || !(p = hex_field(p, end, ':', &major)) ||
	    !(p = hex_field(p, end, ' ', &minor)) || !dec_field(p, end, &inode))
		return 0;
	if (stop <= start || inode != (uint64_t)ino || major != major(dev) || minor != minor(dev))
		return 0;
	m->start = (uintptr_t)start;
	m->len = (size_t)(stop - start);
	m->offset = offset;
	return 1;
}

int eng_maps_of(int fd, struct eng_map *out, int max)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return -1;
	int maps = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (maps < 0)
		return -1;
	char buf[8192];
	size_t have = 0;
	int found = 0, skipping = 0;
	for (;;) {
		ssize_t n = read(maps, buf + have, sizeof buf - have);
		if (n < 0 && errno == EINTR)
			continue;
		int eof = n <= 0;
		if (!eof)
			have += (size_t)n;
		size_t at = 0;
		while (at < have) {
			char *nl = memchr(buf + at, '\n', have - at);
			if (!nl && !eof)
				break; /* the rest of this line is still to be read */
			const char *end = nl ? nl : buf + have;
			struct eng_map m;
			if (!skipping && maps_line(buf + at, end, st.st_dev, st.st_ino, &m)) {
				if (found < max)
					out[found] = m;
				found++;
			}
			skipping = 0;
			at = nl ? (size_t)(nl - buf) + 1 : have;
		}
		if (eof)
			break;
		if (at == 0 && have == sizeof buf) { /* a line longer than the buffer: skip the rest of it */
			have = 0;
			skipping = 1;
			continue;
		}
		memmove(buf, buf + at, have - at);
		have -= at;
	}
	close(maps);
	return found;
}
