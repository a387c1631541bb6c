/* SPDX-License-Identifier: Apache-2.0 */
/* IP addresses of the emulated ports, as rdma_cm resolves them.
 *
 * Each port owns a few loopback-range addresses (there is no real netdev behind it): by default mlx5_0 owns
 * 127.0.0.1 and ::1 and mlx5_N (N > 0) owns 127.0.0.(N+1); the launcher's --ip adds more and passes the whole
 * list in MLX5EMU_IPS ("N=ADDR N=ADDR ...", N the device index). Every process of a fabric must see the same
 * list, exactly like the launcher's sysfs tree, whose RoCE GID tables carry these addresses: the kernel's GID
 * cache adds one RoCE v1 and one RoCE v2 entry per address of the netdev (IPv4 as ::ffff:a.b.c.d), after the
 * two link-local entries. On InfiniBand ports addresses do not change the GID table (IPoIB). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucma.h"

#define MAX_IPS_PER_DEV ((EMU_PORT_GIDS - 2) / 2)

struct dev_ips {
	int n;
	struct sockaddr_in6 a[MAX_IPS_PER_DEV]; /* sin6_family AF_INET: a sockaddr_in in the same storage */
};

static struct dev_ips g_ips[EMU_MAX_DEVICES];
static pthread_once_t g_ips_once = PTHREAD_ONCE_INIT;
static int g_ndev; /* set before g_ips_once runs: ports_init (objects.c) calls us while its own once runs */

int emu_cm_loopback_addr(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return 0;
}

static void add_ip(int dev, const char *text)
{
	struct dev_ips *d = &g_ips[dev];
	struct sockaddr_in6 s;

	memset(&s, 0, sizeof(s));
	if (inet_pton(AF_INET, text, &((struct sockaddr_in *)&s)->sin_addr) == 1)
		s.sin6_family = AF_INET;
	else if (inet_pton(AF_INET6, text, &s.sin6_addr) == 1)
		s.sin6_family = AF_INET6;
	else
		return;
	if (!emu_cm_loopback_addr((struct sockaddr *)&s) || d->n == MAX_IPS_PER_DEV)
		return;
	for (int i = 0; i < d->n; i++)
		if (emu_cm_addr_equal((struct sockaddr *)&d->a[i], (struct sockaddr *)&s))
			return;
	d->a[d->n++] = s;
}

static void ips_init(void)
{
	const char *env = getenv("MLX5EMU_IPS");
	int ndev = g_ndev;

	if (!env) {
		add_ip(0, "127.0.0.1");
		add_ip(0, "::1");
		for (int d = 1; d < ndev; d++) {
			char a[32];
			snprintf(a, sizeof(a), "127.0.0.%d", d + 1);
			add_ip(d, a);
		}
		return;
	}
	char *copy = strdup(env), *save = NULL;
	if (!copy)
		return;
	for (char *tok = strtok_r(copy, " ,;", &save); tok; tok = strtok_r(NULL, " ,;", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = 0;
		int dev = atoi(tok);
		if (dev >= 0 && dev < ndev && dev < EMU_MAX_DEVICES)
			add_ip(dev, eq + 1);
	}
	free(copy);
}

static void ips_ready(void)
{
	if (!g_ndev)
		g_ndev = emu_num_devices();
	pthread_once(&g_ips_once, ips_init);
}

int emu_cm_ip_count(int dev)
{
	ips_ready();
	return dev >= 0 && dev < EMU_MAX_DEVICES ? g_ips[dev].n : 0;
}

const struct sockaddr *emu_cm_ip(int dev, int k)
{
	ips_ready();
	return (const struct sockaddr *)&g_ips[dev].a[k];
}

int emu_cm_addr_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_ANY);
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return 0;
}

int emu_cm_addr_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return 0;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
			      16) == 0;
	return 0;
}

uint16_t emu_cm_addr_port(const struct sockaddr *sa)
{
	/* sin_port and sin6_port sit at the same offset */
	return ntohs(((const struct sockaddr_in *)sa)->sin_port);
}

void emu_cm_addr_set_port(struct sockaddr *sa, uint16_t port)
{
	((struct sockaddr_in *)sa)->sin_port = htons(port);
}

int emu_cm_addr_device(const struct sockaddr *sa)
{
	for (int d = 0; d < emu_num_devices(); d++)
		for (int k = 0; k < emu_cm_ip_count(d); k++)
			if (emu_cm_addr_equal(emu_cm_ip(d, k), sa))
				return d;
	return -1;
}

/* rdma_ip2gid(): IPv4 as an IPv4-mapped IPv6 address, IPv6 as is */
void emu_cm_addr_gid(const struct sockaddr *sa, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (sa->sa_family == AF_INET) {
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

void emu_cm_add_roce_gids(struct emu_port_info *p, int ndev)
{
	if (!g_ndev)
		g_ndev = ndev;
	pthread_once(&g_ips_once, ips_init);
	for (int k = 0; k < g_ips[p->dev_index].n && p->num_gids + 2 <= EMU_PORT_GIDS; k++) {
		for (int type = 0; type < 2; type++) {
			emu_cm_addr_gid((const struct sockaddr *)&g_ips[p->dev_index].a[k], p->gid[p->num_gids].raw);
			p->gid_type[p->num_gids] = (uint8_t)type;
			p->num_gids++;
		}
	}
}

int emu_cm_gid_index(const struct emu_port_info *p, const uint8_t gid[16], int type)
{
	for (int i = 0; i < p->num_gids; i++)
		if (p->gid_type[i] == type && memcmp(p->gid[i].raw, gid, 16) == 0)
			return i;
	return -1;
}
