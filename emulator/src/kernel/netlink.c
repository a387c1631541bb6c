/* SPDX-License-Identifier: Apache-2.0 */
/* The RDMA netlink family (NETLINK_RDMA) of the emulated devices, as Linux's drivers/infiniband/core/nldev.c answers
 * it: RDMA_NLDEV_CMD_GET and RDMA_NLDEV_CMD_PORT_GET (one device or port, or a dump of all) and
 * RDMA_NLDEV_CMD_GET_CHARDEV for the "uverbs" client. DPDK's mlx5 driver asks it for a device's port count, port
 * state and network interface (drivers/common/mlx5/linux/mlx5_nl.c), iproute2's `rdma dev` / `rdma link` list it,
 * and libibverbs discovers devices through it. Any other command is refused with EOPNOTSUPP, as by a kernel
 * without it. Attribute numbers and types: include/uapi/rdma/rdma_netlink.h.
 *
 * A socket(AF_NETLINK, *, NETLINK_RDMA) is one end of an AF_UNIX datagram pair; the library keeps the other end
 * and writes each reply there as the kernel queues it (a dump and its NLMSG_DONE in one datagram, a single answer
 * and then its ACK in two), so poll, blocking and non-blocking reads, MSG_PEEK and MSG_TRUNC behave as on a netlink
 * socket. sendmsg/sendto/send carry requests in; recvmsg/recvfrom report the kernel (port id 0) as the sender;
 * bind, getsockname and setsockopt answer as a netlink socket would. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_netlink.h>

#include "kernel.h"
#include "netdev.h"
#include "netlink.h"
#include "../emu_profile.h"

#define NL_FDS 65536
struct nl_sock_state {
	_Atomic int peer;       /* our end of the pair + 1; 0 = fd is not an emulated netlink socket */
	_Atomic uint32_t portid; /* the socket's netlink port id (getsockname, nlmsg_pid of its requests) */
};
static struct nl_sock_state g_nl[NL_FDS];
static _Atomic uint32_t g_nl_next_portid;

int emu_netlink_is_fd(int fd)
{
	return fd >= 0 && fd < NL_FDS && atomic_load_explicit(&g_nl[fd].peer, memory_order_acquire) != 0;
}

int emu_netlink_socket(int type)
{
	int sv[2];
	int flags = (type & SOCK_CLOEXEC) ? SOCK_CLOEXEC : 0;
	if (socketpair(AF_UNIX, SOCK_DGRAM | flags, 0, sv) < 0)
		return -1;
	if (sv[0] >= NL_FDS) {
		emu_real_close(sv[0]);
		emu_real_close(sv[1]);
		errno = EMFILE;
		return -1;
	}
	/* our end never blocks: a reader that does not read loses replies, as an overrun netlink socket does */
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	fcntl(sv[1], F_SETFD, FD_CLOEXEC);
	if (type & SOCK_NONBLOCK)
		fcntl(sv[0], F_SETFL, O_NONBLOCK);
	/* the first netlink socket of a process gets the pid as port id, the next ones unique negative ids (Linux
	 * netlink_autobind) */
	uint32_t n = atomic_fetch_add(&g_nl_next_portid, 1);
	atomic_store(&g_nl[sv[0]].portid, n == 0 ? (uint32_t)getpid() : (uint32_t)-(int32_t)(4096 + n));
	atomic_store_explicit(&g_nl[sv[0]].peer, sv[1] + 1, memory_order_release);
	return sv[0];
}

void emu_netlink_close(int fd)
{
	if (!emu_netlink_is_fd(fd))
		return;
	int peer = atomic_exchange(&g_nl[fd].peer, 0) - 1;
	if (peer >= 0)
		emu_real_close(peer);
}

void emu_netlink_dup(int oldfd, int newfd)
{
	/* the duplicate shares the socket; replies go to the shared peer end */
	if (!emu_netlink_is_fd(oldfd) || newfd < 0 || newfd >= NL_FDS)
		return;
	int peer = atomic_load(&g_nl[oldfd].peer) - 1;
	int copy = fcntl(peer, F_DUPFD_CLOEXEC, 0);
	if (copy < 0)
		return;
	atomic_store(&g_nl[newfd].portid, atomic_load(&g_nl[oldfd].portid));
	atomic_store(&g_nl[newfd].peer, copy + 1);
}

void emu_netlink_sockname(int fd, struct sockaddr_nl *sa)
{
	memset(sa, 0, sizeof *sa);
	sa->nl_family = AF_NETLINK;
	sa->nl_pid = atomic_load(&g_nl[fd].portid);
}

/* ---- message building ---- */

struct nl_buf {
	uint8_t data[16384];
	size_t len;
	int overflow;
};

static struct nlmsghdr *nl_msg_start(struct nl_buf *b, uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid)
{
	if (b->len + NLMSG_HDRLEN > sizeof b->data) {
		b->overflow = 1;
		return NULL;
	}
	struct nlmsghdr *h = (struct nlmsghdr *)(b->data + b->len);
	memset(h, 0, NLMSG_HDRLEN);
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = seq;
	h->nlmsg_pid = pid;
	h->nlmsg_len = NLMSG_HDRLEN;
	b->len += NLMSG_HDRLEN;
	return h;
}

static void nl_put(struct nl_buf *b, struct nlmsghdr *h, uint16_t type, const void *v, size_t n)
{
	size_t total = NLA_HDRLEN + NLA_ALIGN(n);
	if (!h || b->len + total > sizeof b->data) {
		b->overflow = 1;
		return;
	}
	struct nlattr *a = (struct nlattr *)(b->data + b->len);
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + n);
	memcpy((uint8_t *)a + NLA_HDRLEN, v, n);
	memset((uint8_t *)a + NLA_HDRLEN + n, 0, NLA_ALIGN(n) - n);
	b->len += total;
	h->nlmsg_len += (uint32_t)total;
}

static void nl_u8(struct nl_buf *b, struct nlmsghdr *h, uint16_t t, uint8_t v) { nl_put(b, h, t, &v, 1); }
static void nl_u32(struct nl_buf *b, struct nlmsghdr *h, uint16_t t, uint32_t v) { nl_put(b, h, t, &v, 4); }
static void nl_u64(struct nl_buf *b, struct nlmsghdr *h, uint16_t t, uint64_t v) { nl_put(b, h, t, &v, 8); }
static void nl_str(struct nl_buf *b, struct nlmsghdr *h, uint16_t t, const char *s)
{
	nl_put(b, h, t, s, strlen(s) + 1);
}

static void nl_error(struct nl_buf *b, const struct nlmsghdr *req, int err)
{
	struct nlmsghdr *h = nl_msg_start(b, NLMSG_ERROR, NLM_F_CAPPED, req->nlmsg_seq, req->nlmsg_pid);
	if (!h || b->len + sizeof(struct nlmsgerr) > sizeof b->data) {
		b->overflow = 1;
		return;
	}
	struct nlmsgerr *e = (struct nlmsgerr *)(b->data + b->len);
	memset(e, 0, sizeof *e);
	e->error = -err;
	e->msg = *req;
	e->msg.nlmsg_len = NLMSG_HDRLEN; /* capped: the request's header only */
	b->len += sizeof *e;
	h->nlmsg_len += (uint32_t)sizeof *e;
}

/* GUIDs and the subnet prefix go out in host order: nldev.c puts be64_to_cpu() of the device's big-endian GUID */

/* RDMA_NLDEV_CMD_GET: fill_dev_info() */
static void dev_msg(struct nl_buf *b, const struct nlmsghdr *req, uint16_t flags, int dev)
{
	const struct emu_port_info *p = emu_port_info(dev);
	const struct emu_profile *prof = emu_profile();
	char name[16], fw[32];
	struct nlmsghdr *h = nl_msg_start(b, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), flags,
					  req->nlmsg_seq, req->nlmsg_pid);
	snprintf(name, sizeof name, "mlx5_%d", dev);
	snprintf(fw, sizeof fw, "%u.%u.%u", prof->fw_major, prof->fw_minor, prof->fw_sub);
	nl_u32(b, h, RDMA_NLDEV_ATTR_DEV_INDEX, (uint32_t)dev);
	nl_str(b, h, RDMA_NLDEV_ATTR_DEV_NAME, name);
	nl_u32(b, h, RDMA_NLDEV_ATTR_PORT_INDEX, 1); /* for CMD_GET: the number of ports */
	nl_u64(b, h, RDMA_NLDEV_ATTR_CAP_FLAGS, 0);
	nl_str(b, h, RDMA_NLDEV_ATTR_FW_VERSION, fw);
	nl_u64(b, h, RDMA_NLDEV_ATTR_NODE_GUID, p->node_guid);
	nl_u64(b, h, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, p->node_guid);
	nl_u8(b, h, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1); /* RDMA_NODE_IB_CA */
	nl_str(b, h, RDMA_NLDEV_ATTR_DEV_PROTOCOL, p->link_layer == EMU_LINK_ETH ? "roce" : "ib");
	nl_u8(b, h, RDMA_NLDEV_ATTR_DEV_DIM, 0);
}

/* RDMA_NLDEV_CMD_PORT_GET: fill_port_info(); the network interface only on Ethernet (netdev.h) */
static void port_msg(struct nl_buf *b, const struct nlmsghdr *req, uint16_t flags, int dev)
{
	const struct emu_port_info *p = emu_port_info(dev);
	char name[16];
	int up = !emu_port_is_down(dev);
	struct nlmsghdr *h = nl_msg_start(b, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET), flags,
					  req->nlmsg_seq, req->nlmsg_pid);
	snprintf(name, sizeof name, "mlx5_%d", dev);
	nl_u32(b, h, RDMA_NLDEV_ATTR_DEV_INDEX, (uint32_t)dev);
	nl_str(b, h, RDMA_NLDEV_ATTR_DEV_NAME, name);
	nl_u32(b, h, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	nl_u64(b, h, RDMA_NLDEV_ATTR_CAP_FLAGS, 0);
	if (p->link_layer == EMU_LINK_IB) {
		nl_u64(b, h, RDMA_NLDEV_ATTR_SUBNET_PREFIX, 0xfe80000000000000ULL);
		nl_u32(b, h, RDMA_NLDEV_ATTR_LID, p->lid);
		nl_u32(b, h, RDMA_NLDEV_ATTR_SM_LID, 1);
		nl_u8(b, h, RDMA_NLDEV_ATTR_LMC, 0);
	}
	nl_u8(b, h, RDMA_NLDEV_ATTR_PORT_STATE, up ? 4 : 1);      /* IB_PORT_ACTIVE : IB_PORT_DOWN */
	nl_u8(b, h, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, up ? 5 : 3); /* LinkUp : Disabled */
	if (dev < emu_netdev_count()) {
		emu_netdev_name(dev, name);
		nl_u32(b, h, RDMA_NLDEV_ATTR_NDEV_INDEX, emu_netdev_ifindex(dev));
		nl_str(b, h, RDMA_NLDEV_ATTR_NDEV_NAME, name);
	}
}

/* RDMA_NLDEV_CMD_GET_CHARDEV for "uverbs": /dev/infiniband/uverbsN, ABI 1, dev_t 1:3 (the tree's "dev" file) */
static void chardev_msg(struct nl_buf *b, const struct nlmsghdr *req, int dev)
{
	char name[24];
	struct nlmsghdr *h = nl_msg_start(b, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET_CHARDEV), 0,
					  req->nlmsg_seq, req->nlmsg_pid);
	snprintf(name, sizeof name, "uverbs%d", dev);
	nl_u64(b, h, RDMA_NLDEV_ATTR_CHARDEV, (1ULL << 8) | 3); /* new_encode_dev(MKDEV(1, 3)) */
	nl_u64(b, h, RDMA_NLDEV_ATTR_CHARDEV_ABI, 1);
	nl_str(b, h, RDMA_NLDEV_ATTR_CHARDEV_NAME, name);
	nl_u32(b, h, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, RDMA_DRIVER_MLX5);
}

/* the u32 / string attribute `type` of a request, or -1 / NULL */
static int64_t req_u32(const struct nlmsghdr *req, uint16_t type)
{
	const uint8_t *p = (const uint8_t *)req + NLMSG_HDRLEN, *end = (const uint8_t *)req + req->nlmsg_len;
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == type && a->nla_len >= NLA_HDRLEN + 4) {
			uint32_t v;
			memcpy(&v, p + NLA_HDRLEN, 4);
			return v;
		}
		p += NLA_ALIGN(a->nla_len);
	}
	return -1;
}

static const char *req_str(const struct nlmsghdr *req, uint16_t type)
{
	const uint8_t *p = (const uint8_t *)req + NLMSG_HDRLEN, *end = (const uint8_t *)req + req->nlmsg_len;
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == type && a->nla_len > NLA_HDRLEN &&
		    memchr(p + NLA_HDRLEN, '\0', a->nla_len - NLA_HDRLEN))
			return (const char *)p + NLA_HDRLEN;
		p += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

static void queue(int peer, struct nl_buf *b)
{
	if (b->len && !b->overflow)
		(void)send(peer, b->data, b->len, MSG_DONTWAIT);
	b->len = 0;
	b->overflow = 0;
}

/* One request: its answer datagrams onto peer. */
static void nl_request(int peer, const struct nlmsghdr *req)
{
	static _Thread_local struct nl_buf b;
	b.len = 0;
	b.overflow = 0;
	if (!(req->nlmsg_flags & NLM_F_REQUEST))
		return;
	int client = RDMA_NL_GET_CLIENT(req->nlmsg_type), op = RDMA_NL_GET_OP(req->nlmsg_type);
	int ndev = emu_num_devices();
	int dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	if (client != RDMA_NL_NLDEV ||
	    (op != RDMA_NLDEV_CMD_GET && op != RDMA_NLDEV_CMD_PORT_GET && op != RDMA_NLDEV_CMD_GET_CHARDEV) ||
	    (op == RDMA_NLDEV_CMD_GET_CHARDEV && dump)) {
		nl_error(&b, req, EOPNOTSUPP);
		queue(peer, &b);
		return;
	}
	if (dump) {
		/* a port dump may name one device (nldev_port_get_dumpit) */
		int64_t only = op == RDMA_NLDEV_CMD_PORT_GET ? req_u32(req, RDMA_NLDEV_ATTR_DEV_INDEX) : -1;
		for (int d = 0; d < ndev; d++) {
			if (only >= 0 && only != d)
				continue;
			if (op == RDMA_NLDEV_CMD_GET)
				dev_msg(&b, req, NLM_F_MULTI, d);
			else
				port_msg(&b, req, NLM_F_MULTI, d);
		}
		struct nlmsghdr *h = nl_msg_start(&b, NLMSG_DONE, NLM_F_MULTI, req->nlmsg_seq, req->nlmsg_pid);
		if (h && b.len + 4 <= sizeof b.data) {
			memset(b.data + b.len, 0, 4); /* the dump's final status, 0 */
			b.len += 4;
			h->nlmsg_len += 4;
		}
		queue(peer, &b);
		return;
	}
	int64_t dev = req_u32(req, RDMA_NLDEV_ATTR_DEV_INDEX);
	if (dev < 0 || dev >= ndev) {
		nl_error(&b, req, dev < 0 ? EINVAL : ENODEV);
		queue(peer, &b);
		return;
	}
	if (op == RDMA_NLDEV_CMD_GET) {
		dev_msg(&b, req, 0, (int)dev);
	} else if (op == RDMA_NLDEV_CMD_PORT_GET) {
		if (req_u32(req, RDMA_NLDEV_ATTR_PORT_INDEX) != 1) {
			nl_error(&b, req, EINVAL);
			queue(peer, &b);
			return;
		}
		port_msg(&b, req, 0, (int)dev);
	} else {
		const char *type = req_str(req, RDMA_NLDEV_ATTR_CHARDEV_TYPE);
		if (!type || strcmp(type, "uverbs") != 0) {
			nl_error(&b, req, type ? EOPNOTSUPP : EINVAL);
			queue(peer, &b);
			return;
		}
		chardev_msg(&b, req, (int)dev);
	}
	queue(peer, &b);
	if (req->nlmsg_flags & NLM_F_ACK) {
		nl_error(&b, req, 0);
		queue(peer, &b);
	}
}

ssize_t emu_netlink_send(int fd, const void *buf, size_t len)
{
	int peer = atomic_load(&g_nl[fd].peer) - 1;
	if (peer < 0) {
		errno = EBADF;
		return -1;
	}
	if (emu_log_enabled)
		emu_log("netlink(RDMA) fd=%d request of %zu bytes", fd, len);
	uint8_t copy[4096];
	size_t n = len < sizeof copy ? len : sizeof copy;
	if (emu_copy_from_user(copy, (uint64_t)(uintptr_t)buf, n)) {
		errno = EFAULT;
		return -1;
	}
	/* every complete message of the datagram, as netlink_rcv_skb walks them */
	size_t off = 0;
	while (off + NLMSG_HDRLEN <= n) {
		struct nlmsghdr *h = (struct nlmsghdr *)(copy + off);
		if (h->nlmsg_len < NLMSG_HDRLEN || off + h->nlmsg_len > n)
			break;
		if (h->nlmsg_pid == 0)
			h->nlmsg_pid = atomic_load(&g_nl[fd].portid);
		nl_request(peer, h);
		off += NLMSG_ALIGN(h->nlmsg_len);
	}
	return (ssize_t)len;
}
