/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the uverbs "kernel": arbitrary write() commands (legacy and extended) and mmap offsets on
 * one context, built without the LD_PRELOAD interposers. Response pointers and the mlx5 buffer addresses are
 * redirected into scratch memory often enough that the handlers past the header checks are reached; every
 * input ends with the context's teardown, so LeakSanitizer checks the cleanup paths too.
 * Input: a sequence of records [u8 kind][u16 len][len bytes]; kind bit 0 = send as is (no patching),
 * kind bit 1 = an mmap at the offset in the first 8 bytes (byte 8: bit 0 = two pages, bit 1 = read-only, as the
 * clock pages must be mapped, bit 2 = private), kind bit 2 = skip the initial valid GET_CONTEXT. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "kernel/dispatch.h"

/* What libc.c (the libc passthrough) provides in the real library; fuzz targets are linked without it. */
ssize_t emu_real_write(int fd, const void *buf, size_t count) { return write(fd, buf, count); }
int emu_real_close(int fd) { return close(fd); }
void *emu_real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

/* Big enough for any response a header can ask for: (u16 + u16) * 8 bytes. */
#define SCRATCH (1u << 20)
static uint8_t *g_resp;
static uint8_t *g_ring;

static char g_fabric[64];
static void drop_fabric(void)
{
	char n[80];
	snprintf(n, sizeof(n), "/dev/shm/%s", g_fabric);
	unlink(n);
	snprintf(n, sizeof(n), "/dev/shm/%s-cm", g_fabric); /* the CM directory ATTACH_MCAST maps */
	unlink(n);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(g_fabric, sizeof(g_fabric), "mlx5emu-fuzz-%d", (int)getpid());
	setenv("MLX5EMU_FABRIC", g_fabric, 1);
	emu_log_enabled = getenv("MLX5EMU_LOG") != NULL; /* what each seed reaches (the interposers read it otherwise) */
	atexit(drop_fabric);
	g_resp = mmap(NULL, SCRATCH + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	g_ring = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g_resp == MAP_FAILED || g_ring == MAP_FAILED)
		abort();
	return 0;
}

static int has_response(uint32_t c)
{
	switch (c) {
	case IB_USER_VERBS_CMD_GET_CONTEXT: case IB_USER_VERBS_CMD_QUERY_DEVICE: case IB_USER_VERBS_CMD_QUERY_PORT:
	case IB_USER_VERBS_CMD_ALLOC_PD: case IB_USER_VERBS_CMD_CREATE_AH: case IB_USER_VERBS_CMD_REG_MR:
	case IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL: case IB_USER_VERBS_CMD_CREATE_CQ:
	case IB_USER_VERBS_CMD_RESIZE_CQ: case IB_USER_VERBS_CMD_DESTROY_CQ: case IB_USER_VERBS_CMD_CREATE_QP:
	case IB_USER_VERBS_CMD_QUERY_QP: case IB_USER_VERBS_CMD_DESTROY_QP: case IB_USER_VERBS_CMD_CREATE_SRQ:
	case IB_USER_VERBS_CMD_QUERY_SRQ: case IB_USER_VERBS_CMD_DESTROY_SRQ: case IB_USER_VERBS_CMD_CREATE_XSRQ:
		return 1;
	default:
		return 0;
	}
}

/* Point response and ring/doorbell addresses at scratch memory, as a real library would. */
static void patch(uint8_t *cmd, size_t len)
{
	struct ib_uverbs_cmd_hdr h;
	uint64_t resp = (uintptr_t)g_resp, ring = (uintptr_t)g_ring;
	if (len < sizeof(h))
		return;
	memcpy(&h, cmd, sizeof(h));
	uint32_t c = h.command & IB_USER_VERBS_CMD_COMMAND_MASK;
	if (h.command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		if (len >= sizeof(h) + sizeof(struct ib_uverbs_ex_cmd_hdr)) {
			uint64_t r;
			memcpy(&r, cmd + sizeof(h), 8);
			if (r)
				memcpy(cmd + sizeof(h), &resp, 8);
		}
		/* EX_CREATE_WQ: the mlx5 data after the core request starts with buf_addr and db_addr */
		size_t at = sizeof(h) + sizeof(struct ib_uverbs_ex_cmd_hdr) + (size_t)h.in_words * 8;
		if (c == IB_USER_VERBS_EX_CMD_CREATE_WQ && len >= at + 16) {
			uint64_t db = ring + SCRATCH - 64;
			memcpy(cmd + at, &ring, 8);
			memcpy(cmd + at + 8, &db, 8);
		}
		return;
	}
	if (has_response(c) && len >= sizeof(h) + 8)
		memcpy(cmd + sizeof(h), &resp, 8);
	size_t drv = 0;
	switch (c) {
	case IB_USER_VERBS_CMD_CREATE_CQ: drv = sizeof(struct ib_uverbs_create_cq); break;
	case IB_USER_VERBS_CMD_CREATE_QP: drv = sizeof(struct ib_uverbs_create_qp); break;
	case IB_USER_VERBS_CMD_CREATE_SRQ: drv = sizeof(struct ib_uverbs_create_srq); break;
	case IB_USER_VERBS_CMD_RESIZE_CQ: drv = sizeof(struct ib_uverbs_resize_cq); break;
	default: return;
	}
	size_t at = sizeof(h) + drv;
	if (len >= at + 8)
		memcpy(cmd + at, &ring, 8);
	uint64_t db = ring + SCRATCH - 64;
	if (c != IB_USER_VERBS_CMD_RESIZE_CQ && len >= at + 16)
		memcpy(cmd + at + 8, &db, 8);
}

static void get_context(struct emu_ctx *ctx)
{
	struct {
		struct ib_uverbs_cmd_hdr h;
		uint64_t response; /* struct ib_uverbs_get_context is only this, plus driver data */
		struct mlx5_ib_alloc_ucontext_req_v2 d;
	} g;
	memset(&g, 0, sizeof(g));
	g.h.command = IB_USER_VERBS_CMD_GET_CONTEXT;
	g.h.in_words = sizeof(g) / 4;
	g.h.out_words = (sizeof(struct ib_uverbs_get_context_resp) + sizeof(struct mlx5_ib_alloc_ucontext_resp)) / 4;
	g.response = (uintptr_t)g_resp;
	g.d.total_num_bfregs = 16;
	g.d.num_low_latency_bfregs = 4;
	g.d.max_cqe_version = 1;
	emu_uverbs_write(ctx, &g, sizeof(g));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t cmd[65536 + 16];
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct emu_ctx *ctx = emu_ctx_open(fd, 0);
	if (!ctx) {
		close(fd);
		return 0;
	}
	if (!(size && (data[0] & 4)))
		get_context(ctx);
	size_t pos = 0;
	while (pos + 3 <= size) {
		uint8_t kind = data[pos];
		size_t len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8;
		pos += 3;
		if (len > size - pos)
			len = size - pos;
		memcpy(cmd, data + pos, len);
		pos += len;
		if (kind & 2) {
			uint64_t off = 0;
			memcpy(&off, cmd, len < 8 ? len : 8);
			uint8_t how = len >= 9 ? cmd[8] : 0;
			size_t mlen = how & 1 ? 8192 : 4096;
			void *p = emu_ctx_mmap(ctx, NULL, mlen, how & 2 ? PROT_READ : PROT_WRITE,
					       how & 4 ? MAP_PRIVATE : MAP_SHARED, (off_t)(off & 0xffffffffffffULL));
			if (p != MAP_FAILED)
				munmap(p, mlen);
			continue;
		}
		if (!(kind & 1))
			patch(cmd, len);
		emu_uverbs_write(ctx, cmd, len);
	}
	emu_ctx_put(ctx); /* the last reference: tears every object down */
	close(fd);
	return 0;
}
