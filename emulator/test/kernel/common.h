/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the kernel-part tests. Each test is one program run under ./mlx5emu that exits 0 on pass. */
#ifndef MLX5EMU_TEST_COMMON_H
#define MLX5EMU_TEST_COMMON_H

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>
#include <rdma/ib_user_verbs.h>

#include "mlx5emu_debug.h"

static int g_failures;

#define CHECK(cond, ...)                                                                  \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
			fprintf(stderr, __VA_ARGS__);                                     \
			fprintf(stderr, "\n");                                            \
			g_failures++;                                                     \
		}                                                                         \
	} while (0)

/* Fatal: stop the test here. */
#define REQUIRE(cond, ...)                                                                \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "FATAL %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
			fprintf(stderr, __VA_ARGS__);                                     \
			fprintf(stderr, "\n");                                            \
			exit(2);                                                          \
		}                                                                         \
	} while (0)

/* An errno-returning verb call must fail with exactly this errno. */
#define CHECK_ERR(expr, want)                                                             \
	do {                                                                              \
		int rc_ = (expr);                                                         \
		CHECK(rc_ == (want), "%s returned %d (%s), want %d (%s)", #expr, rc_,     \
		      strerror(rc_), (want), strerror(want));                             \
	} while (0)

static inline int test_done(const char *name)
{
	if (g_failures) {
		fprintf(stderr, "%s: %d failure(s)\n", name, g_failures);
		return 1;
	}
	printf("%s: ok\n", name);
	return 0;
}

/* The debug API of the preloaded emulator. */
struct debug_api {
	int (*qp)(uint32_t, struct mlx5emu_debug_qp *);
	int (*cq)(uint32_t, struct mlx5emu_debug_cq *);
	int (*srq)(uint32_t, struct mlx5emu_debug_srq *);
	int (*mr)(uint32_t, struct mlx5emu_debug_mr *);
	int (*live)(struct mlx5emu_debug_live *);
};

static inline struct debug_api debug_api(void)
{
	struct debug_api d;
	*(void **)&d.qp = dlsym(RTLD_DEFAULT, "mlx5emu_debug_qp");
	*(void **)&d.cq = dlsym(RTLD_DEFAULT, "mlx5emu_debug_cq");
	*(void **)&d.srq = dlsym(RTLD_DEFAULT, "mlx5emu_debug_srq");
	*(void **)&d.mr = dlsym(RTLD_DEFAULT, "mlx5emu_debug_mr");
	*(void **)&d.live = dlsym(RTLD_DEFAULT, "mlx5emu_debug_live");
	REQUIRE(d.qp && d.cq && d.srq && d.mr && d.live, "libmlx5emu.so is not preloaded (run under ./mlx5emu)");
	return d;
}

static inline struct ibv_context *open_dev(int index)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	REQUIRE(list && n > index, "device list has %d devices, need index %d", n, index);
	struct ibv_context *ctx = ibv_open_device(list[index]);
	REQUIRE(ctx, "ibv_open_device: %s", strerror(errno));
	ibv_free_device_list(list);
	return ctx;
}

/* CAP_NET_RAW in the effective set (raw packet QPs and flows need it), read from /proc like the kernel's view. */
static inline int emu_test_cap_net_raw(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long eff = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff >> 13) & 1; /* CAP_NET_RAW = 13 */
}

static inline int is_eth(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;
	REQUIRE(ibv_query_port(ctx, 1, &pa) == 0, "query_port");
	return pa.link_layer == IBV_LINK_LAYER_ETHERNET;
}

/* Sends one raw legacy uverbs command on the context's command fd: header + payload. Returns 0 or errno. */
static inline int raw_cmd(struct ibv_context *ctx, uint32_t command, const void *payload, size_t len,
			  size_t out_bytes)
{
	uint8_t buf[1024];
	struct ib_uverbs_cmd_hdr h = { .command = command, .in_words = (uint16_t)((sizeof(h) + len) / 4),
				       .out_words = (uint16_t)(out_bytes / 4) };
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), payload, len);
	ssize_t n = write(ctx->cmd_fd, buf, sizeof(h) + len);
	if (n < 0)
		return errno;
	return n == (ssize_t)(sizeof(h) + len) ? 0 : EIO;
}

/* A legacy command with driver data: the core request, then the mlx5 request right behind it, as libmlx5 lays
 * them out. Two arguments rather than one struct around both: a struct ending in a flexible array member
 * (driver_data[]) cannot be a member of another struct in ISO C. Returns 0 or errno. */
static inline int raw_cmd_udata(struct ibv_context *ctx, uint32_t command, const void *core, size_t core_len,
				const void *drv, size_t drv_len, size_t out_bytes)
{
	uint8_t payload[512];
	REQUIRE(core_len + drv_len <= sizeof(payload), "raw command of %zu bytes", core_len + drv_len);
	memcpy(payload, core, core_len);
	memcpy(payload + core_len, drv, drv_len);
	return raw_cmd(ctx, command, payload, core_len + drv_len, out_bytes);
}

/* A reset RC/UC/UD QP on fresh CQs. */
static inline struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type type,
				     struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof(a));
	a.send_cq = cq;
	a.recv_cq = cq;
	a.srq = srq;
	a.qp_type = type;
	a.cap.max_send_wr = 16;
	a.cap.max_recv_wr = srq ? 0 : 16;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = srq ? 0 : 1;
	a.cap.max_inline_data = 64;
	return ibv_create_qp(pd, &a);
}

#endif
