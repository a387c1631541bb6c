/* SPDX-License-Identifier: Apache-2.0 */
/* Process-local object bookkeeping: the global lock, the context list, lookups for the engine,
 * the static per-device port facts and the command log. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "ucma.h"

static pthread_mutex_t g_lock;
static pthread_once_t g_lock_once = PTHREAD_ONCE_INIT;
static struct emu_ctx *g_contexts;
int emu_log_enabled;

static void lock_init(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&g_lock, &a);
	pthread_mutexattr_destroy(&a);
}

void emu_lock(void)
{
	pthread_once(&g_lock_once, lock_init);
	pthread_mutex_lock(&g_lock);
}

void emu_unlock(void)
{
	pthread_mutex_unlock(&g_lock);
}

/* After fork the child must not inherit a lock held by a thread that no longer exists. */
void emu_objects_after_fork_child(void)
{
	lock_init();
	g_contexts = NULL; /* inherited contexts stay allocated but inert; see kernel.h */
}

struct emu_ctx *emu_contexts(void)
{
	return g_contexts;
}

void emu_ctx_link(struct emu_ctx *ctx)
{
	emu_lock();
	ctx->next = g_contexts;
	g_contexts = ctx;
	emu_unlock();
}

void emu_ctx_unlink(struct emu_ctx *ctx)
{
	emu_lock();
	for (struct emu_ctx **p = &g_contexts; *p; p = &(*p)->next) {
		if (*p == ctx) {
			*p = ctx->next;
			break;
		}
	}
	emu_unlock();
}

#define FIND_IN_CONTEXTS(type, list, field, value)                     \
	for (struct emu_ctx *c = g_contexts; c; c = c->next)            \
		for (type *o = c->list; o; o = o->next)                 \
			if (o->field == (value))                        \
				return o;                               \
	return NULL

struct emu_qp *emu_find_qp(uint32_t qpn) { FIND_IN_CONTEXTS(struct emu_qp, qps, qpn, qpn); }
struct emu_cq *emu_find_cq(uint32_t cqn) { FIND_IN_CONTEXTS(struct emu_cq, cqs, cqn, cqn); }
struct emu_srq *emu_find_srq(uint32_t srqn) { FIND_IN_CONTEXTS(struct emu_srq, srqs, srqn, srqn); }
struct emu_mr *emu_find_mr_lkey(uint32_t lkey) { FIND_IN_CONTEXTS(struct emu_mr, mrs, lkey, lkey); }
struct emu_mr *emu_find_mr_rkey(uint32_t rkey) { FIND_IN_CONTEXTS(struct emu_mr, mrs, rkey, rkey); }

/* ---- static device facts ---- */

static struct emu_port_info g_ports[EMU_MAX_DEVICES];
static int g_num_devices;
static pthread_once_t g_ports_once = PTHREAD_ONCE_INIT;

/* Must match the launcher's sysfs writer (mlx5emu): OUI 98:03:9b, then "ME", then the device index. */
/* Without MLX5EMU_LINK / MLX5EMU_DEVICES (e.g. only SYSFS_PATH and LD_PRELOAD were set, as in a Maven surefire
 * configuration), read both from the sysfs tree the launcher wrote, so library and tree cannot disagree. */
static int tree_is_eth(void)
{
	const char *root = getenv("SYSFS_PATH");
	char path[4096], buf[32] = { 0 };
	if (!root)
		return 0;
	snprintf(path, sizeof(path), "%s/class/infiniband/mlx5_0/ports/1/link_layer", root);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return strncmp(buf, "Ethernet", 8) == 0;
}

static int tree_devices(void)
{
	const char *root = getenv("SYSFS_PATH");
	char path[4096];
	int n = 0;
	if (!root)
		return 1;
	for (; n < EMU_MAX_DEVICES; n++) {
		snprintf(path, sizeof(path), "%s/class/infiniband_verbs/uverbs%d/ibdev", root, n);
		if (access(path, F_OK) != 0)
			break;
	}
	return n ? n : 1;
}

static void ports_init(void)
{
	const char *link = getenv("MLX5EMU_LINK");
	const char *n = getenv("MLX5EMU_DEVICES");
	int eth = link ? (strcmp(link, "eth") == 0 || strcmp(link, "roce") == 0) : tree_is_eth();

	g_num_devices = n ? atoi(n) : tree_devices();
	if (g_num_devices < 1)
		g_num_devices = 1;
	if (g_num_devices > EMU_MAX_DEVICES)
		g_num_devices = EMU_MAX_DEVICES;
	for (int i = 0; i < g_num_devices; i++) {
		struct emu_port_info *p = &g_ports[i];
		uint8_t mac[6] = { 0x98, 0x03, 0x9b, 0x4d, 0x45, (uint8_t)i };

		p->dev_index = i;
		p->link_layer = eth ? EMU_LINK_ETH : EMU_LINK_IB;
		memcpy(p->mac, mac, 6);
		/* node GUID from the MAC as mlx5 does for Ethernet ports: OUI, 0x03, 0x00, low 3 bytes */
		p->node_guid = 0x98039b0300000000ULL | ((uint64_t)0x4d << 16) | ((uint64_t)0x45 << 8) | (uint64_t)i;
		p->port_guid = p->node_guid;
		p->lid = eth ? 0 : (uint16_t)(i + 1);
		memset(p->gid, 0, sizeof(p->gid));
		p->gid[0].raw[0] = 0xfe;
		p->gid[0].raw[1] = 0x80;
		if (eth) {
			/* link-local IPv6 from the MAC (modified EUI-64) */
			p->gid[0].raw[8] = mac[0] ^ 0x02;
			p->gid[0].raw[9] = mac[1];
			p->gid[0].raw[10] = mac[2];
			p->gid[0].raw[11] = 0xff;
			p->gid[0].raw[12] = 0xfe;
			p->gid[0].raw[13] = mac[3];
			p->gid[0].raw[14] = mac[4];
			p->gid[0].raw[15] = mac[5];
			p->gid[1] = p->gid[0];
			p->gid_type[0] = 0; /* RoCE v1 */
			p->gid_type[1] = 1; /* RoCE v2 */
			p->num_gids = 2;
			emu_cm_add_roce_gids(p, g_num_devices); /* ::ffff:a.b.c.d entries of the port's addresses */
		} else {
			for (int b = 0; b < 8; b++)
				p->gid[0].raw[8 + b] = (uint8_t)(p->port_guid >> (56 - 8 * b));
			p->num_gids = 1;
		}
	}
}

const struct emu_port_info *emu_port_info(int dev_index)
{
	pthread_once(&g_ports_once, ports_init);
	if (dev_index < 0 || dev_index >= g_num_devices)
		return NULL;
	return &g_ports[dev_index];
}

int emu_num_devices(void)
{
	pthread_once(&g_ports_once, ports_init);
	return g_num_devices;
}

void emu_log(const char *fmt, ...)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "mlx5emu[%d]: ", (int)getpid());
	va_list ap;

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	emu_real_write(2, line, (size_t)n);
}
