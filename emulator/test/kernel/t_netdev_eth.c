/* SPDX-License-Identifier: Apache-2.0 */
/* The emulated network interface of an Ethernet port and the RDMA netlink family, as DPDK's mlx5 driver reads them
 * (drivers/common/mlx5/linux/mlx5_nl.c, drivers/net/mlx5/linux/mlx5_ethdev_os.c):
 *   - if_nametoindex / if_indextoname and ioctl(SIOCGIFINDEX, SIOCGIFNAME, SIOCGIFHWADDR, SIOCGIFMTU, SIOCGIFFLAGS,
 *     SIOCSIFFLAGS, SIOCSIFMTU, SIOCETHTOOL) on mlx5emu0: ifindex 0x4d4500, MAC 98:03:9b:4d:45:00, MTU 1500, UP and
 *     RUNNING, 100 Gb/s; the same requests on lo still reach the kernel (ifindex 1), a name past the devices is
 *     ENODEV; /sys/class/net/mlx5emu0 holds the same ifindex and MAC;
 *   - NETLINK_RDMA: getsockname gives AF_NETLINK and a port id, RDMA_NLDEV_CMD_GET dumps one device (name, index,
 *     one port, node GUID in host order) and NLMSG_DONE in one datagram, whose length MSG_PEEK | MSG_TRUNC reports;
 *     PORT_GET of device 0 port 1 with NLM_F_ACK answers the port state and the interface index and name, then an
 *     ACK in a second datagram; a port taken down answers DOWN and drops IFF_RUNNING; an unknown command
 *     EOPNOTSUPP; every answer comes from port id 0 and echoes the request's sequence number. */
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <rdma/rdma_netlink.h>

#include "common.h"

#define IFX0 0x4d4500u

static int g_sock;

static int ifreq_ioctl(unsigned long req, const char *name, struct ifreq *ifr)
{
	memset(ifr, 0, sizeof *ifr);
	snprintf(ifr->ifr_name, sizeof ifr->ifr_name, "%s", name);
	return ioctl(g_sock, req, ifr);
}

static void netdev_checks(void)
{
	struct ifreq ifr;
	char name[IF_NAMESIZE];
	CHECK(if_nametoindex("mlx5emu0") == IFX0, "if_nametoindex %u", if_nametoindex("mlx5emu0"));
	CHECK(if_indextoname(IFX0, name) && strcmp(name, "mlx5emu0") == 0, "if_indextoname");
	errno = 0;
	CHECK(if_nametoindex("mlx5emu1") == 0 && errno == ENODEV, "mlx5emu1 (one device): errno %d", errno);
	CHECK(if_nametoindex("lo") == 1, "lo is the kernel's: %u", if_nametoindex("lo"));

	CHECK(ifreq_ioctl(SIOCGIFINDEX, "mlx5emu0", &ifr) == 0 && ifr.ifr_ifindex == (int)IFX0, "SIOCGIFINDEX");
	CHECK(ifreq_ioctl(SIOCGIFINDEX, "lo", &ifr) == 0 && ifr.ifr_ifindex == 1, "SIOCGIFINDEX lo: %d", ifr.ifr_ifindex);
	memset(&ifr, 0, sizeof ifr);
	ifr.ifr_ifindex = (int)IFX0;
	CHECK(ioctl(g_sock, SIOCGIFNAME, &ifr) == 0 && strcmp(ifr.ifr_name, "mlx5emu0") == 0, "SIOCGIFNAME");
	CHECK(ifreq_ioctl(SIOCGIFHWADDR, "mlx5emu0", &ifr) == 0, "SIOCGIFHWADDR: %s", strerror(errno));
	static const uint8_t mac[6] = { 0x98, 0x03, 0x9b, 0x4d, 0x45, 0x00 };
	CHECK(ifr.ifr_hwaddr.sa_family == ARPHRD_ETHER && memcmp(ifr.ifr_hwaddr.sa_data, mac, 6) == 0, "MAC");
	CHECK(ifreq_ioctl(SIOCGIFMTU, "mlx5emu0", &ifr) == 0 && ifr.ifr_mtu == 1500, "MTU %d", ifr.ifr_mtu);
	CHECK(ifreq_ioctl(SIOCGIFFLAGS, "mlx5emu0", &ifr) == 0, "SIOCGIFFLAGS");
	CHECK((ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING) && !(ifr.ifr_flags & IFF_PROMISC),
	      "flags 0x%x", ifr.ifr_flags);
	ifr.ifr_flags |= IFF_PROMISC;
	CHECK(ioctl(g_sock, SIOCSIFFLAGS, &ifr) == 0, "SIOCSIFFLAGS");
	CHECK(ifreq_ioctl(SIOCGIFFLAGS, "mlx5emu0", &ifr) == 0 && (ifr.ifr_flags & IFF_PROMISC), "promisc kept");
	ifr.ifr_mtu = 1500;
	CHECK(ioctl(g_sock, SIOCSIFMTU, &ifr) == 0, "SIOCSIFMTU to the fabric's MTU");
	ifr.ifr_mtu = 9000;
	CHECK(ioctl(g_sock, SIOCSIFMTU, &ifr) == -1 && errno == EOPNOTSUPP, "SIOCSIFMTU 9000: errno %d", errno);
	CHECK(ifreq_ioctl(SIOCGIFMTU, "mlx5emu7", &ifr) == -1 && errno == ENODEV, "mlx5emu7: errno %d", errno);

	struct ethtool_cmd ec = { .cmd = ETHTOOL_GSET };
	ifreq_ioctl(0, "mlx5emu0", &ifr);
	ifr.ifr_data = (void *)&ec;
	CHECK(ioctl(g_sock, SIOCETHTOOL, &ifr) == 0, "ETHTOOL_GSET: %s", strerror(errno));
	CHECK(ethtool_cmd_speed(&ec) == 100000 && ec.duplex == DUPLEX_FULL, "speed %u duplex %u",
	      ethtool_cmd_speed(&ec), ec.duplex);
	uint32_t gls[32] = { ETHTOOL_GLINKSETTINGS };
	ifr.ifr_data = (void *)gls;
	CHECK(ioctl(g_sock, SIOCETHTOOL, &ifr) == -1 && errno == EOPNOTSUPP, "GLINKSETTINGS: errno %d", errno);

	/* the statistics DPDK's xstats read: count, mlx5e's names, values */
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	ifr.ifr_data = (void *)&di;
	CHECK(ioctl(g_sock, SIOCETHTOOL, &ifr) == 0 && di.n_stats == 6 && strcmp(di.driver, "mlx5_core") == 0 &&
	      strcmp(di.bus_info, "e0000:00:00.0") == 0, "GDRVINFO: %u stats, %s, %s", di.n_stats, di.driver, di.bus_info);
	/* ethtool_gstrings and ethtool_stats end in flexible arrays: headers at the start of plain buffers */
	uint64_t gsbuf[(sizeof(struct ethtool_gstrings) + 6 * ETH_GSTRING_LEN) / 8 + 1];
	struct ethtool_gstrings *gs = (struct ethtool_gstrings *)gsbuf;
	memset(gsbuf, 0, sizeof gsbuf);
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = 6;
	ifr.ifr_data = (void *)gs;
	const char *names = (const char *)gs->data;
	CHECK(ioctl(g_sock, SIOCETHTOOL, &ifr) == 0 && gs->len == 6 && strcmp(names, "rx_vport_unicast_packets") == 0 &&
	      strcmp(names + 5 * ETH_GSTRING_LEN, "tx_packets_phy") == 0, "GSTRINGS: %u, %s", gs->len, names);
	uint64_t stbuf[sizeof(struct ethtool_stats) / 8 + 6];
	struct ethtool_stats *st = (struct ethtool_stats *)stbuf;
	for (size_t i = 0; i < sizeof stbuf / 8; i++)
		stbuf[i] = 1;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = 6;
	ifr.ifr_data = (void *)st;
	CHECK(ioctl(g_sock, SIOCETHTOOL, &ifr) == 0 && st->n_stats == 6 && st->data[4] == 0 && st->data[5] == 0,
	      "GSTATS on a fresh fabric: %llu %llu", (unsigned long long)st->data[4], (unsigned long long)st->data[5]);

	char buf[64] = "";
	FILE *f = fopen("/sys/class/net/mlx5emu0/address", "r");
	CHECK(f && fgets(buf, sizeof buf, f) && strcmp(buf, "98:03:9b:4d:45:00\n") == 0, "sysfs address '%s'", buf);
	if (f)
		fclose(f);
	f = fopen("/sys/class/net/mlx5emu0/ifindex", "r");
	unsigned idx = 0;
	CHECK(f && fscanf(f, "%u", &idx) == 1 && idx == IFX0, "sysfs ifindex %u", idx);
	if (f)
		fclose(f);
}

/* ---- netlink ---- */

static uint32_t g_seq = 100;

static void nl_send(int fd, uint16_t type, uint16_t flags, const uint32_t *dev, const uint32_t *port)
{
	uint8_t buf[64];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	memset(buf, 0, sizeof buf);
	h->nlmsg_len = NLMSG_HDRLEN;
	h->nlmsg_type = type;
	h->nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags);
	h->nlmsg_seq = ++g_seq;
	const uint32_t *v[2] = { dev, port };
	const uint16_t t[2] = { RDMA_NLDEV_ATTR_DEV_INDEX, RDMA_NLDEV_ATTR_PORT_INDEX };
	for (int i = 0; i < 2; i++) {
		if (!v[i])
			continue;
		struct nlattr *a = (struct nlattr *)(buf + h->nlmsg_len);
		a->nla_type = t[i];
		a->nla_len = NLA_HDRLEN + 4;
		memcpy((uint8_t *)a + NLA_HDRLEN, v[i], 4);
		h->nlmsg_len += NLA_HDRLEN + 4;
	}
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct iovec iov = { buf, h->nlmsg_len };
	struct msghdr m = { .msg_name = &to, .msg_namelen = sizeof to, .msg_iov = &iov, .msg_iovlen = 1 };
	CHECK(sendmsg(fd, &m, 0) == (ssize_t)h->nlmsg_len, "sendmsg: %s", strerror(errno));
}

/* One datagram into buf; its length, after checking the sender. */
static ssize_t nl_recv(int fd, uint8_t *buf, size_t len)
{
	struct sockaddr_nl from;
	memset(&from, 0xff, sizeof from);
	struct iovec iov = { buf, len };
	struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT);
	CHECK(n > 0, "recvmsg: %s", strerror(errno));
	CHECK(m.msg_namelen == sizeof from && from.nl_family == AF_NETLINK && from.nl_pid == 0, "sender");
	return n;
}

struct attrs {
	int64_t dev, port, ndev, state;
	uint64_t guid;
	char name[32], ndev_name[32];
};

static void parse(const struct nlmsghdr *h, struct attrs *a)
{
	memset(a, 0, sizeof *a);
	a->dev = a->port = a->ndev = a->state = -1;
	const uint8_t *p = (const uint8_t *)h + NLMSG_HDRLEN, *end = (const uint8_t *)h + h->nlmsg_len;
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *na = (const struct nlattr *)p;
		const uint8_t *v = p + NLA_HDRLEN;
		uint32_t u32;
		memcpy(&u32, v, 4);
		switch (na->nla_type) {
		case RDMA_NLDEV_ATTR_DEV_INDEX: a->dev = u32; break;
		case RDMA_NLDEV_ATTR_PORT_INDEX: a->port = u32; break;
		case RDMA_NLDEV_ATTR_NDEV_INDEX: a->ndev = u32; break;
		case RDMA_NLDEV_ATTR_PORT_STATE: a->state = v[0]; break;
		case RDMA_NLDEV_ATTR_NODE_GUID: memcpy(&a->guid, v, 8); break;
		case RDMA_NLDEV_ATTR_DEV_NAME: snprintf(a->name, sizeof a->name, "%s", (const char *)v); break;
		case RDMA_NLDEV_ATTR_NDEV_NAME: snprintf(a->ndev_name, sizeof a->ndev_name, "%s", (const char *)v); break;
		default: break;
		}
		p += NLA_ALIGN(na->nla_len);
	}
}

static void port_get(int fd, int64_t want_state)
{
	uint8_t buf[4096];
	uint32_t dev = 0, port = 1;
	nl_send(fd, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET), NLM_F_ACK, &dev, &port);
	ssize_t n = nl_recv(fd, buf, sizeof buf);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	CHECK(n > 0 && NLMSG_OK(h, (size_t)n) && h->nlmsg_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET)
	      && h->nlmsg_seq == g_seq && !(h->nlmsg_flags & NLM_F_MULTI) && NLMSG_ALIGN(h->nlmsg_len) == (size_t)n,
	      "PORT_GET answer alone in its datagram");
	struct attrs a;
	parse(h, &a);
	CHECK(a.dev == 0 && a.port == 1 && a.state == want_state && a.ndev == IFX0 && strcmp(a.ndev_name, "mlx5emu0") == 0,
	      "PORT_GET: dev %lld port %lld state %lld ndev %lld %s", (long long)a.dev, (long long)a.port,
	      (long long)a.state, (long long)a.ndev, a.ndev_name);
	n = nl_recv(fd, buf, sizeof buf);
	struct nlmsgerr *e = NLMSG_DATA(h);
	CHECK(n > 0 && h->nlmsg_type == NLMSG_ERROR && e->error == 0 && h->nlmsg_seq == g_seq, "ACK after PORT_GET");
}

static void netlink_checks(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	REQUIRE(fd >= 0, "socket(NETLINK_RDMA): %s", strerror(errno));
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	CHECK(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "bind");
	socklen_t sl = sizeof sa;
	memset(&sa, 0, sizeof sa);
	CHECK(getsockname(fd, (struct sockaddr *)&sa, &sl) == 0 && sl == sizeof sa && sa.nl_family == AF_NETLINK &&
	      sa.nl_pid != 0, "getsockname");
	int sz = 1 << 20;
	CHECK(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz) == 0, "SO_RCVBUF");

	uint8_t buf[4096];
	nl_send(fd, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), NLM_F_DUMP | NLM_F_ACK, NULL, NULL);
	struct iovec iov = { NULL, 0 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t peek = recvmsg(fd, &m, MSG_PEEK | MSG_TRUNC);
	ssize_t n = nl_recv(fd, buf, sizeof buf);
	CHECK(peek == n && n > 0, "MSG_PEEK | MSG_TRUNC: %zd, datagram %zd", peek, n);
	int devs = 0, done = 0;
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
		CHECK(h->nlmsg_seq == g_seq && (h->nlmsg_flags & NLM_F_MULTI), "dump message seq/flags");
		if (h->nlmsg_type == NLMSG_DONE) {
			done++;
			continue;
		}
		struct attrs a;
		parse(h, &a);
		CHECK(h->nlmsg_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET) && a.dev == 0 &&
		      strcmp(a.name, "mlx5_0") == 0 && a.port == 1 && a.guid == 0x98039b03004d4500ULL,
		      "GET: dev %lld %s ports %lld guid 0x%llx", (long long)a.dev, a.name, (long long)a.port,
		      (unsigned long long)a.guid);
		devs++;
	}
	CHECK(devs == 1 && done == 1, "dump: %d devices, %d DONE", devs, done);

	port_get(fd, 4); /* IB_PORT_ACTIVE */
	int (*port_set)(int, int, int);
	*(void **)&port_set = dlsym(RTLD_DEFAULT, "mlx5emu_port_set");
	REQUIRE(port_set, "mlx5emu_port_set");
	CHECK(port_set(0, 1, 0) == 0, "port down");
	port_get(fd, 1); /* IB_PORT_DOWN */
	struct ifreq ifr;
	CHECK(ifreq_ioctl(SIOCGIFFLAGS, "mlx5emu0", &ifr) == 0 && !(ifr.ifr_flags & IFF_RUNNING), "no carrier");
	CHECK(port_set(0, 1, 1) == 0, "port up");
	port_get(fd, 4);

	nl_send(fd, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_GET), NLM_F_ACK, NULL, NULL);
	n = nl_recv(fd, buf, sizeof buf);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nlmsgerr *e = NLMSG_DATA(h);
	CHECK(n > 0 && h->nlmsg_type == NLMSG_ERROR && e->error == -EOPNOTSUPP && h->nlmsg_seq == g_seq,
	      "unknown command: error %d", e->error);
	CHECK(recv(fd, buf, sizeof buf, MSG_DONTWAIT) == -1 && errno == EAGAIN, "nothing more queued");
	int d = dup(fd);
	CHECK(d >= 0 && close(fd) == 0, "dup, close");
	nl_send(d, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), NLM_F_DUMP, NULL, NULL);
	CHECK(nl_recv(d, buf, sizeof buf) > 0, "the duplicate answers after the original's close");
	close(d);
}

int main(void)
{
	g_sock = socket(AF_INET, SOCK_DGRAM, 0);
	REQUIRE(g_sock >= 0, "socket");
	netdev_checks();
	netlink_checks();
	close(g_sock);
	return test_done("t_netdev_eth");
}
