/* SPDX-License-Identifier: Apache-2.0 */
/* rdma_set_option(RDMA_OPTION_ID_TOS) through the unmodified librdmacm 44: where the type of service ends up, as
 * Linux drivers/infiniband/core/cma.c puts it (see path_tclass/path_sl in src/kernel/ucma_path.c):
 *
 *  - RoCE: the route's path record carries the TOS as its traffic class (cma_resolve_iboe_route), SL 0
 *    (iboe_tos_to_sl of a netdev with no VLAN and no traffic classes); without the option, the port's default
 *    TOS 0. The QP that rdma_create_qp + rdma_connect / rdma_accept move to RTR gets it as the GRH traffic class
 *    (ib_init_ah_attr_from_path), on both sides: the passive side takes it from the REQ's primary path.
 *  - IB, IPv4: the TOS is only the PathRecord query's QoS class; the SM (no QoS policy) answers traffic class 0
 *    and SL 0, and the QP's address vector has no GRH inside the subnet.
 *  - IB, IPv6: the path's traffic class is the one in the source address' sin6_flowinfo, TOS or not; on RoCE
 *    flowinfo does not set it.
 *  - A TOS set after the route was resolved changes nothing (the path record was filled then).
 *  - A multicast group's address vector keeps traffic class 0 whatever the id's TOS.
 * The QPs' attributes are read back with ibv_query_qp (QUERY_QP: what ibv_modify_qp carried). Runs on IB and, as
 * t_rdmacm_tos_eth, on RoCE. */
#include <poll.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

#include "common.h"

#define TOS 0x88 /* DSCP 34 (AF41) << 2 */
#define FLOW_TCLASS 0x42

static int g_eth;

static struct sockaddr_storage addr_of(const char *ip, int port, uint32_t flowinfo)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *s = (void *)&ss;
		s->sin6_family = AF_INET6;
		s->sin6_port = htons((uint16_t)port);
		s->sin6_flowinfo = htonl(flowinfo);
		inet_pton(AF_INET6, ip, &s->sin6_addr);
	} else {
		struct sockaddr_in *s = (void *)&ss;
		s->sin_family = AF_INET;
		s->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, ip, &s->sin_addr);
	}
	return ss;
}

static void expect_event(struct rdma_event_channel *ch, int want, struct rdma_cm_event *copy)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	REQUIRE(poll(&p, 1, 10000) == 1, "no rdma_cm event within 10 s (want %s)", rdma_event_str(want));
	struct rdma_cm_event *ev;
	REQUIRE(rdma_get_cm_event(ch, &ev) == 0, "rdma_get_cm_event: %s", strerror(errno));
	CHECK((int)ev->event == want, "event %s (status %d), want %s", rdma_event_str(ev->event), ev->status,
	      rdma_event_str(want));
	if (copy)
		*copy = *ev;
	rdma_ack_cm_event(ev);
}

static void set_tos(struct rdma_cm_id *id, uint8_t tos)
{
	CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)) == 0, "set TOS: %s",
	      strerror(errno));
}

/* A fresh id with address and route resolved from src to dst (TOS set first when tos >= 0). */
static struct rdma_cm_id *routed(struct rdma_event_channel *ch, const struct sockaddr_storage *src,
				 const struct sockaddr_storage *dst, int tos)
{
	struct rdma_cm_id *id;
	REQUIRE(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0, "rdma_create_id");
	if (tos >= 0)
		set_tos(id, (uint8_t)tos);
	REQUIRE(rdma_resolve_addr(id, (struct sockaddr *)src, (struct sockaddr *)dst, 2000) == 0,
		"rdma_resolve_addr: %s", strerror(errno));
	expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL);
	REQUIRE(rdma_resolve_route(id, 2000) == 0, "rdma_resolve_route: %s", strerror(errno));
	expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL);
	REQUIRE(id->route.num_paths == 1 && id->route.path_rec, "one path record");
	return id;
}

/* The RTR address vector of a connected QP as the kernel keeps it: is_global, traffic class, SL. */
static void qp_av(struct ibv_qp *qp, uint8_t out[3])
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr init;
	memset(&a, 0, sizeof(a));
	REQUIRE(ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV, &init) == 0, "ibv_query_qp");
	CHECK(a.qp_state == IBV_QPS_RTS, "QP state %d, want RTS", a.qp_state);
	out[0] = a.ah_attr.is_global;
	out[1] = a.ah_attr.grh.traffic_class;
	out[2] = a.ah_attr.sl;
}

static void check_av(const char *who, const uint8_t av[3], uint8_t want_tclass)
{
	if (g_eth) {
		CHECK(av[0] == 1, "%s: RoCE QP without GRH", who);
		CHECK(av[1] == want_tclass, "%s: GRH traffic class 0x%x, want 0x%x", who, av[1], want_tclass);
	} else {
		/* IB inside the subnet: no GRH (hop limit 0 in the path), so no traffic class either */
		CHECK(av[0] == 0 && av[1] == 0, "%s: IB QP is_global %u traffic class 0x%x, want neither", who, av[0],
		      av[1]);
	}
	CHECK(av[2] == 0, "%s: SL %u, want 0", who, av[2]);
}

static struct ibv_qp_init_attr rc_attr(void)
{
	struct ibv_qp_init_attr qa = { .cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1,
						.max_recv_sge = 1 }, .qp_type = IBV_QPT_RC };
	return qa;
}

/* role "server": accept one connection with a QP of its own (librdmacm moves it to RTR/RTS), report the QP's
 * address vector through the pipe, wait for DISCONNECTED. The listener sets a TOS of its own (0x20), which must
 * not matter: the passive side's path comes from the REQ. */
static int server(int port, int ready)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *l;
	REQUIRE(ch && rdma_create_id(ch, &l, NULL, RDMA_PS_TCP) == 0, "rdma_create_id");
	set_tos(l, 0x20);
	struct sockaddr_storage a = addr_of("127.0.0.1", port, 0);
	REQUIRE(rdma_bind_addr(l, (struct sockaddr *)&a) == 0, "bind: %s", strerror(errno));
	REQUIRE(rdma_listen(l, 1) == 0, "listen: %s", strerror(errno));
	REQUIRE(write(ready, "r", 1) == 1, "ready");
	struct rdma_cm_event e;
	expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, &e);
	struct rdma_cm_id *c = e.id;
	REQUIRE(c->route.path_rec, "the request's path");
	uint8_t report[5] = { c->route.path_rec->traffic_class, c->route.path_rec->sl };
	struct ibv_qp_init_attr qa = rc_attr();
	REQUIRE(rdma_create_qp(c, NULL, &qa) == 0, "rdma_create_qp: %s", strerror(errno));
	struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1, .rnr_retry_count = 7 };
	REQUIRE(rdma_accept(c, &cp) == 0, "rdma_accept: %s", strerror(errno));
	expect_event(ch, RDMA_CM_EVENT_ESTABLISHED, NULL);
	qp_av(c->qp, report + 2);
	REQUIRE(write(ready, report, sizeof(report)) == (ssize_t)sizeof(report), "report");
	expect_event(ch, RDMA_CM_EVENT_DISCONNECTED, NULL);
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
	return g_failures ? 1 : 0;
}

/* A connection with TOS set at the active side: its path record and both QPs. late: the TOS is set only after
 * the route was resolved, when the path record already holds its traffic class (the default, 0). */
static void test_connection(int port, int late)
{
	int p[2];
	REQUIRE(pipe(p) == 0, "pipe");
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		char portbuf[16], fdbuf[16];
		close(p[0]);
		snprintf(portbuf, sizeof(portbuf), "%d", port);
		snprintf(fdbuf, sizeof(fdbuf), "%d", p[1]);
		execl("/proc/self/exe", "t_rdmacm_tos", "server", portbuf, fdbuf, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char c;
	REQUIRE(read(p[0], &c, 1) == 1, "server did not come up");

	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_storage dst = addr_of("127.0.0.1", port, 0);
	struct rdma_cm_id *id = routed(ch, NULL, &dst, late ? -1 : TOS);
	if (late)
		set_tos(id, TOS);
	uint8_t want = g_eth && !late ? TOS : 0;
	CHECK(id->route.path_rec->traffic_class == want, "active path traffic class 0x%x, want 0x%x",
	      id->route.path_rec->traffic_class, want);
	CHECK(id->route.path_rec->sl == 0, "active path SL %u", id->route.path_rec->sl);
	struct ibv_qp_init_attr qa = rc_attr();
	REQUIRE(rdma_create_qp(id, NULL, &qa) == 0, "rdma_create_qp: %s", strerror(errno));
	struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
				      .rnr_retry_count = 7 };
	REQUIRE(rdma_connect(id, &cp) == 0, "rdma_connect: %s", strerror(errno));
	expect_event(ch, RDMA_CM_EVENT_ESTABLISHED, NULL);
	uint8_t av[3];
	qp_av(id->qp, av);
	check_av("active QP", av, want);

	uint8_t peer[5];
	REQUIRE(read(p[0], peer, sizeof(peer)) == (ssize_t)sizeof(peer), "server report");
	CHECK(peer[0] == want, "passive path traffic class 0x%x, want the REQ's 0x%x", peer[0], want);
	CHECK(peer[1] == 0, "passive path SL %u", peer[1]);
	check_av("passive QP", peer + 2, want);

	CHECK(rdma_disconnect(id) == 0, "rdma_disconnect: %s", strerror(errno));
	expect_event(ch, RDMA_CM_EVENT_DISCONNECTED, NULL);
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	int st;
	REQUIRE(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "server failed (status 0x%x)", st);
	close(p[0]);
}

/* Routes without a connection: no TOS (the default), IPv6 with a flow-info traffic class, with and without TOS. */
static void test_routes(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_storage d4 = addr_of("127.0.0.1", 4791, 0);
	struct rdma_cm_id *id = routed(ch, NULL, &d4, -1);
	CHECK(id->route.path_rec->traffic_class == 0, "no TOS: traffic class 0x%x, want 0",
	      id->route.path_rec->traffic_class);
	rdma_destroy_id(id);

	struct sockaddr_storage s6 = addr_of("::1", 0, FLOW_TCLASS << 20), d6 = addr_of("::1", 4791, 0);
	id = routed(ch, &s6, &d6, -1);
	uint8_t want = g_eth ? 0 : FLOW_TCLASS;
	CHECK(id->route.path_rec->traffic_class == want, "IPv6, flow info 0x%x, no TOS: traffic class 0x%x, want 0x%x",
	      FLOW_TCLASS << 20, id->route.path_rec->traffic_class, want);
	rdma_destroy_id(id);
	id = routed(ch, &s6, &d6, TOS);
	want = g_eth ? TOS : FLOW_TCLASS;
	CHECK(id->route.path_rec->traffic_class == want, "IPv6, flow info 0x%x, TOS 0x%x: traffic class 0x%x, want 0x%x",
	      FLOW_TCLASS << 20, TOS, id->route.path_rec->traffic_class, want);
	CHECK(id->route.path_rec->sl == 0, "IPv6 path SL %u", id->route.path_rec->sl);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

/* A multicast group's address vector: traffic class 0 whatever the id's TOS. */
static void test_multicast(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id;
	REQUIRE(rdma_create_id(ch, &id, NULL, RDMA_PS_UDP) == 0, "create");
	set_tos(id, TOS);
	struct sockaddr_storage src = addr_of("127.0.0.1", 0, 0), grp = addr_of("239.9.9.10", 0, 0);
	REQUIRE(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&grp, 2000) == 0, "resolve: %s",
		strerror(errno));
	expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL);
	REQUIRE(rdma_join_multicast(id, (struct sockaddr *)&grp, NULL) == 0, "join: %s", strerror(errno));
	struct rdma_cm_event e;
	expect_event(ch, RDMA_CM_EVENT_MULTICAST_JOIN, &e);
	CHECK(e.param.ud.ah_attr.is_global && e.param.ud.ah_attr.grh.traffic_class == 0,
	      "group address vector traffic class 0x%x, want 0", e.param.ud.ah_attr.grh.traffic_class);
	CHECK(e.param.ud.ah_attr.sl == 0, "group SL %u", e.param.ud.ah_attr.sl);
	CHECK(rdma_leave_multicast(id, (struct sockaddr *)&grp) == 0, "leave: %s", strerror(errno));
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 4 && !strcmp(argv[1], "server"))
		return server(atoi(argv[2]), atoi(argv[3]));
	struct ibv_device **devs = ibv_get_device_list(NULL);
	REQUIRE(devs && devs[0], "no device");
	struct ibv_context *ctx = ibv_open_device(devs[0]);
	struct ibv_port_attr pa;
	REQUIRE(ctx && ibv_query_port(ctx, 1, &pa) == 0, "query port");
	g_eth = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	ibv_close_device(ctx);
	ibv_free_device_list(devs);
	test_routes();
	test_multicast();
	test_connection(24000 + (int)(getpid() % 1000) * 4, 0);
	test_connection(24000 + (int)(getpid() % 1000) * 4 + 1, 1);
	return test_done(argv[0]);
}
