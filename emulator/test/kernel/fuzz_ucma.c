/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the rdma_cm "kernel" (src/kernel/ucma*.c): arbitrary ucma write() commands on one channel,
 * built without the LD_PRELOAD interposers. Response pointers (and SET_OPTION's optval) of the commands that
 * carry one are redirected into scratch memory, so handlers run to the end instead of stopping at EFAULT, and a
 * random value can never make the handler write into the fuzzer's own memory. The channel is non-blocking, so
 * GET_EVENT never waits. Every input ends with the close of the channel: LeakSanitizer checks the teardown of
 * ids, listeners, queued events and the CM thread's stop.
 * Input: records [u16 len][len bytes], each one write() of those bytes. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/rdma_user_cm.h>

#include "kernel/ucma.h"
#include "kernel/uverbs.h"

/* What libc.c (the libc passthrough) provides in the real library; fuzz targets are linked without it. */
ssize_t emu_real_write(int fd, const void *buf, size_t count) { return write(fd, buf, count); }
int emu_real_close(int fd) { return close(fd); }
void *emu_real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

#define SCRATCH 65536
static uint8_t *g_scratch;
static char g_fabric[64];

static void drop_fabric(void)
{
	char n[96];
	snprintf(n, sizeof(n), "/dev/shm/%s-cm", g_fabric);
	unlink(n);
	snprintf(n, sizeof(n), "/dev/shm/%s-cm-%d", g_fabric, (int)getpid());
	unlink(n);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(g_fabric, sizeof(g_fabric), "mlx5emu-fuzz-ucma-%d", (int)getpid());
	setenv("MLX5EMU_FABRIC", g_fabric, 1);
	setenv("MLX5EMU_CM_TIMEOUT_MS", "1", 1);
	atexit(drop_fabric);
	g_scratch = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g_scratch == MAP_FAILED)
		abort();
	return 0;
}

/* Offset (after the header) of the u64 user pointer each command carries, or -1. */
static int pointer_offset(uint32_t cmd)
{
	switch (cmd) {
	case RDMA_USER_CM_CMD_CREATE_ID:
		return 8;
	case RDMA_USER_CM_CMD_DESTROY_ID:
	case RDMA_USER_CM_CMD_BIND_IP:
	case RDMA_USER_CM_CMD_QUERY_ROUTE:
	case RDMA_USER_CM_CMD_INIT_QP_ATTR:
	case RDMA_USER_CM_CMD_GET_EVENT:
	case RDMA_USER_CM_CMD_SET_OPTION:
	case RDMA_USER_CM_CMD_JOIN_IP_MCAST:
	case RDMA_USER_CM_CMD_MIGRATE_ID:
	case RDMA_USER_CM_CMD_QUERY:
	case RDMA_USER_CM_CMD_JOIN_MCAST:
		return 0;
	default:
		return -1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = emu_ucma_open(O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uint8_t buf[2048];
	while (size >= 2) {
		size_t len = (size_t)(data[0] | data[1] << 8);
		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		if (len > sizeof(buf))
			len = sizeof(buf);
		memcpy(buf, data, len);
		data += len;
		size -= len;
		if (len >= sizeof(struct rdma_ucm_cmd_hdr)) {
			struct rdma_ucm_cmd_hdr h;
			memcpy(&h, buf, sizeof(h));
			int off = pointer_offset(h.cmd);
			if (off >= 0 && len >= sizeof(h) + (size_t)off + 8) {
				uint64_t p = (uint64_t)(uintptr_t)g_scratch;
				memcpy(buf + sizeof(h) + off, &p, 8);
			}
			/* MIGRATE_ID names a channel by fd: keep it on ours (or a closed one) */
			if (h.cmd == RDMA_USER_CM_CMD_MIGRATE_ID && len >= sizeof(h) + 16) {
				uint32_t f = (buf[sizeof(h) + 12] & 1) ? (uint32_t)fd : 0x7fff;
				memcpy(buf + sizeof(h) + 12, &f, 4);
			}
		}
		emu_ucma_write(fd, buf, len);
	}
	emu_ucma_close(fd);
	close(fd);
	return 0;
}
