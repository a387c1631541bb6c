/* SPDX-License-Identifier: Apache-2.0 */
/* rdma_cm commands on addresses: BIND_IP, BIND, RESOLVE_IP, RESOLVE_ADDR, RESOLVE_ROUTE, QUERY_ROUTE,
 * QUERY, and the address helpers the other handlers share. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucma_cmd.h"

/* ---- command helpers ---- */

size_t emu_ucma_addr_size(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET: return sizeof(struct sockaddr_in);
	case AF_INET6: return sizeof(struct sockaddr_in6);
	case 27 /* AF_IB */: return 48; /* sizeof(struct sockaddr_ib) */
	default: return 0;
	}
}

static void to_storage(struct sockaddr_in6 *dst, const void *src)
{
	memset(dst, 0, sizeof(*dst));
	const struct sockaddr *sa = src;
	if (sa->sa_family == AF_INET)
		memcpy(dst, src, sizeof(struct sockaddr_in));
	else if (sa->sa_family == AF_INET6)
		memcpy(dst, src, sizeof(struct sockaddr_in6));
}

const char *emu_ucma_addr_str(const struct sockaddr_in6 *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	if (a->sin6_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, ip, sizeof(ip));
	else if (a->sin6_family == AF_INET6)
		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
	snprintf(buf, len, "%s%s%s:%u", a->sin6_family == AF_INET6 ? "[" : "", ip,
		 a->sin6_family == AF_INET6 ? "]" : "", emu_cm_addr_port((const struct sockaddr *)a));
	return buf;
}

/* rdma_bind_addr(): state IDLE only; an address must belong to a port (EADDRNOTAVAIL when no interface has
 * it; ENODEV when it is a loopback address, which the host has, but no RDMA port owns); AF_IB is not
 * emulated (EAFNOSUPPORT), so librdmacm keeps to the IP commands (ucma_set_af_ib_support). */
int emu_ucma_bind(struct ucma_id *id, const struct sockaddr *addr)
{
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return EAFNOSUPPORT;
	if (id->state != S_IDLE)
		return EINVAL;
	int dev = -1;
	if (!emu_cm_addr_any(addr)) {
		dev = emu_cm_addr_device(addr);
		if (dev < 0)
			return emu_cm_loopback_addr(addr) ? ENODEV : EADDRNOTAVAIL;
	}
	struct sockaddr_in6 a;
	to_storage(&a, addr);
	int afonly = addr->sa_family == AF_INET ? 1 : (id->afonly_set ? id->afonly : 0);
	int slot = cm_dir_bind(id->ps, (struct sockaddr *)&a, id->reuse, afonly, id->handle, id->cookie);
	if (slot < 0)
		return -slot;
	id->dir_slot = slot;
	id->afonly = (uint8_t)afonly;
	id->src = a;
	id->dev = dev;
	id->state = S_ADDR_BOUND;
	if (emu_log_enabled) {
		char b[80];
		emu_log("rdma_cm: t=%llu id %u bound to %s (ps 0x%x, device %d)",
			(unsigned long long)(emu_ucma_now_ns() / 1000), id->handle, emu_ucma_addr_str(&a, b, sizeof(b)),
			id->ps, dev);
	}
	return 0;
}

int emu_ucma_is_mcast_addr(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 28) == 0xe;
	if (sa->sa_family == AF_INET6)
		return ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr[0] == 0xff;
	return 0;
}

static int do_resolve_addr(struct ucma_id *id, const struct sockaddr *src, const struct sockaddr *dst,
			   uint32_t timeout_ms)
{
	if (dst->sa_family != AF_INET && dst->sa_family != AF_INET6)
		return dst->sa_family == 27 ? EAFNOSUPPORT : EINVAL;
	if (id->state == S_IDLE) {
		/* cma_bind_addr(): the source address, or the wildcard of the destination's family */
		struct sockaddr_in6 any;
		memset(&any, 0, sizeof(any));
		any.sin6_family = dst->sa_family;
		int err = emu_ucma_bind(id, src && src->sa_family ? src : (struct sockaddr *)&any);
		if (err)
			return err;
	}
	if (id->src.sin6_family != dst->sa_family)
		return EINVAL;
	if (id->state != S_ADDR_BOUND)
		return EINVAL;
	to_storage(&id->dst, dst);
	struct sockaddr_in6 d = id->dst;
	if (emu_cm_addr_any((struct sockaddr *)&d)) {
		/* cma_resolve_loopback(): the wildcard means this host */
		if (id->dev >= 0)
			d = id->src;
		else
			to_storage(&d, emu_cm_ip(0, 0));
		emu_cm_addr_set_port((struct sockaddr *)&d, emu_cm_addr_port((struct sockaddr *)&id->dst));
	}
	int dst_dev = emu_cm_addr_device((struct sockaddr *)&d);
	int mcast = emu_ucma_is_mcast_addr((struct sockaddr *)&d);
	if (mcast) {
		/* a multicast destination resolves on the source's port (the group MAC needs no neighbour) */
		dst_dev = id->dev >= 0 ? id->dev : 0;
		if (id->dev < 0) {
			for (int k = 0; k < emu_cm_ip_count(dst_dev); k++)
				if (emu_cm_ip(dst_dev, k)->sa_family == d.sin6_family) {
					uint16_t port = emu_cm_addr_port((struct sockaddr *)&id->src);
					to_storage(&id->src, emu_cm_ip(dst_dev, k));
					emu_cm_addr_set_port((struct sockaddr *)&id->src, port);
					id->dev = dst_dev;
					break;
				}
			if (id->dev < 0)
				dst_dev = -1;
		}
	}
	id->state = S_ADDR_QUERY;
	if (dst_dev < 0) {
		/* no port answers for the address: the neighbour never resolves */
		emu_ucma_set_timer(id, T_ADDR, (uint64_t)timeout_ms * 1000000ull);
		return 0;
	}
	if (id->dev < 0) {
		/* bound to the wildcard: the route's source is the destination itself (loopback) */
		uint16_t port = emu_cm_addr_port((struct sockaddr *)&id->src);
		id->src = d;
		emu_cm_addr_set_port((struct sockaddr *)&id->src, port);
		id->dev = dst_dev;
	}
	if (mcast) {
		id->dst = d;
		emu_ucma_set_timer(id, T_ADDR_DONE, emu_ucma_resolve_ns());
		cm_wake_self();
		return 0;
	}
	id->peer_lid = emu_port_info(dst_dev)->lid;
	if (emu_ucma_eth(id))
		emu_cm_addr_gid((struct sockaddr *)&d, id->peer_gid);
	else
		memcpy(id->peer_gid, emu_port_info(dst_dev)->gid[0].raw, 16);
	id->peer_mtu = emu_ucma_port_mtu(id);
	id->dst = d;
	emu_ucma_set_timer(id, T_ADDR_DONE, emu_ucma_resolve_ns());
	cm_wake_self();
	return 0;
}

int emu_ucma_cmd_bind_ip(struct ucmd *c)
{
	IN(struct rdma_ucm_bind_ip, cmd);
	int err;
	if (!emu_ucma_addr_size((struct sockaddr *)&cmd.addr) || cmd.addr.sin6_family == 27)
		return EINVAL; /* rdma_addr_size_in6 */
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	return id ? emu_ucma_bind(id, (struct sockaddr *)&cmd.addr) : err;
}

int emu_ucma_cmd_bind(struct ucmd *c)
{
	IN(struct rdma_ucm_bind, cmd);
	int err;
	if (cmd.reserved || !cmd.addr_size || cmd.addr_size != emu_ucma_addr_size((struct sockaddr *)&cmd.addr))
		return EINVAL;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	return id ? emu_ucma_bind(id, (struct sockaddr *)&cmd.addr) : err;
}

int emu_ucma_cmd_resolve_ip(struct ucmd *c)
{
	IN(struct rdma_ucm_resolve_ip, cmd);
	int err;
	if ((cmd.src_addr.sin6_family && !emu_ucma_addr_size((struct sockaddr *)&cmd.src_addr)) ||
	    !emu_ucma_addr_size((struct sockaddr *)&cmd.dst_addr))
		return EINVAL;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	return do_resolve_addr(id, (struct sockaddr *)&cmd.src_addr, (struct sockaddr *)&cmd.dst_addr, cmd.timeout_ms);
}

int emu_ucma_cmd_resolve_addr(struct ucmd *c)
{
	IN(struct rdma_ucm_resolve_addr, cmd);
	int err;
	if (cmd.reserved || (cmd.src_size && cmd.src_size != emu_ucma_addr_size((struct sockaddr *)&cmd.src_addr)) ||
	    !cmd.dst_size || cmd.dst_size != emu_ucma_addr_size((struct sockaddr *)&cmd.dst_addr))
		return EINVAL;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	return do_resolve_addr(id, cmd.src_size ? (struct sockaddr *)&cmd.src_addr : NULL,
			       (struct sockaddr *)&cmd.dst_addr, cmd.timeout_ms);
}

int emu_ucma_cmd_resolve_route(struct ucmd *c)
{
	IN(struct rdma_ucm_resolve_route, cmd);
	int err;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (id->state != S_ADDR_RESOLVED)
		return EINVAL;
	/* the emulated SM (IB) or the IP route (RoCE) always answers */
	id->route_tclass = emu_ucma_path_tclass(id);
	id->route_tclass_set = 1;
	id->state = S_ROUTE_QUERY;
	emu_ucma_set_timer(id, T_ROUTE_DONE, emu_ucma_resolve_ns());
	cm_wake_self();
	return 0;
}

int emu_ucma_cmd_query_route(struct ucmd *c)
{
	IN(struct rdma_ucm_query, cmd);
	struct rdma_ucm_query_route_resp resp;
	int err;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	memset(&resp, 0, sizeof(resp));
	memcpy(&resp.src_addr, &id->src, sizeof(resp.src_addr));
	memcpy(&resp.dst_addr, &id->dst, sizeof(resp.dst_addr));
	if (id->dev >= 0) {
		const struct emu_port_info *p = emu_ucma_id_port(id);
		resp.node_guid = htobe64(p->node_guid);
		resp.ibdev_index = (uint32_t)id->dev;
		resp.port_num = 1;
		if (id->route) {
			resp.num_paths = 1;
			emu_ucma_fill_path(id, &resp.ib_route[0]);
		} else {
			/* ucma_copy_ib_route / ucma_copy_iboe_route without a path: the GIDs and the P_Key */
			emu_ucma_local_gid(id, resp.ib_route[0].sgid);
			if (id->state == S_ADDR_RESOLVED)
				memcpy(resp.ib_route[0].dgid, id->peer_gid, 16);
			resp.ib_route[0].pkey = htons(0xffff);
		}
	}
	return respond(cmd.response, &resp, sizeof(resp));
}

/* SA PathRecord wire format (IBA 15.2.5.16) as struct ib_path_rec_data carries it for QUERY PATH */
static void pack_path(const struct ib_user_path_rec *p, uint8_t out[64])
{
	memset(out, 0, 64);
	memcpy(out + 8, p->dgid, 16);
	memcpy(out + 24, p->sgid, 16);
	memcpy(out + 40, &p->dlid, 2);
	memcpy(out + 42, &p->slid, 2);
	uint32_t fl = htonl(p->hop_limit);
	memcpy(out + 44, &fl, 4);
	out[48] = p->traffic_class;
	out[49] = (uint8_t)(0x80 | 1);
	memcpy(out + 50, &p->pkey, 2);
	out[53] = p->sl & 0xf;
	out[54] = (uint8_t)(p->mtu_selector << 6 | p->mtu);
	out[55] = (uint8_t)(p->rate_selector << 6 | p->rate);
	out[56] = (uint8_t)(p->packet_life_time_selector << 6 | p->packet_life_time);
}

int emu_ucma_cmd_query(struct ucmd *c)
{
	IN(struct rdma_ucm_query, cmd);
	int err;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	switch (cmd.option) {
	case RDMA_USER_CM_QUERY_ADDR: {
		struct rdma_ucm_query_addr_resp resp;
		if (c->out_len < sizeof(resp))
			return ENOSPC;
		memset(&resp, 0, sizeof(resp));
		resp.src_size = (uint16_t)emu_ucma_addr_size((struct sockaddr *)&id->src);
		memcpy(&resp.src_addr, &id->src, resp.src_size);
		resp.dst_size = (uint16_t)emu_ucma_addr_size((struct sockaddr *)&id->dst);
		memcpy(&resp.dst_addr, &id->dst, resp.dst_size);
		if (id->dev >= 0) {
			resp.node_guid = htobe64(emu_ucma_id_port(id)->node_guid);
			resp.ibdev_index = (uint32_t)id->dev;
			resp.port_num = 1;
			resp.pkey = htons(0xffff);
		}
		return respond(cmd.response, &resp, sizeof(resp));
	}
	case RDMA_USER_CM_QUERY_PATH: {
		uint8_t buf[sizeof(struct rdma_ucm_query_path_resp) + sizeof(struct ib_path_rec_data)];
		struct rdma_ucm_query_path_resp *resp = (void *)buf;
		if (c->out_len < sizeof(*resp))
			return ENOSPC;
		memset(buf, 0, sizeof(buf));
		size_t len = sizeof(*resp);
		if (id->route && c->out_len >= sizeof(buf)) {
			struct ib_user_path_rec p;
			emu_ucma_fill_path(id, &p);
			resp->num_paths = 1;
			resp->path_data[0].flags = 1 | 2 | 8 | 32; /* GMP | PRIMARY | BIDIRECTIONAL (ib_user_sa.h) */
			pack_path(&p, (uint8_t *)resp->path_data[0].path_rec);
			len = sizeof(buf);
		}
		return respond(cmd.response, buf, len);
	}
	case RDMA_USER_CM_QUERY_GID: {
		struct rdma_ucm_query_addr_resp resp;
		if (c->out_len < sizeof(resp))
			return ENOSPC;
		memset(&resp, 0, sizeof(resp));
		if (id->dev >= 0) {
			/* sockaddr_ib: family, pkey, flowinfo, then the GID at offset 8 */
			resp.src_size = resp.dst_size = 48;
			((uint16_t *)&resp.src_addr)[0] = 27;
			((uint16_t *)&resp.dst_addr)[0] = 27;
			emu_ucma_local_gid(id, (uint8_t *)&resp.src_addr + 8);
			memcpy((uint8_t *)&resp.dst_addr + 8, id->peer_gid, 16);
			resp.node_guid = htobe64(emu_ucma_id_port(id)->node_guid);
			resp.port_num = 1;
		}
		return respond(cmd.response, &resp, sizeof(resp));
	}
	default:
		return ENOSYS;
	}
}
