/* SPDX-License-Identifier: Apache-2.0 */
/* rdma_cm across exec: the process keeps its pid, but its rdma_cm file goes with the image before (librdmacm opens
 * /dev/infiniband/rdma_cm with O_CLOEXEC, and the kernel's close of it destroys every id and frees their ports).
 * The first image listens on a port and holds an ephemeral one, then execs this program again; the new image must
 * bind and listen on the same port, be the only listener there, and get the CONNECT_REQUEST of another process
 * (which it rejects: the consumer reject reaches the connecting side).
 * The connecting process is this program again, forked and exec'd: the image after exec has threads (the CM thread,
 * the engine), and a fork child of a threaded process may call only async-signal-safe functions until it execs.
 * A bare fork child that opened rdma_cm hung in 1 of ~20 runs on a loaded machine: under AddressSanitizer its first
 * calloc waited forever on an allocator lock that a parent thread held at the fork. */
#include <poll.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

#include "common.h"

#define PORT 7471

static struct sockaddr_in addr(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	return a;
}

/* The next event within 5 s, acked; its type and status (and the id, for a CONNECT_REQUEST). */
static int next_event(struct rdma_event_channel *ch, int *status, struct rdma_cm_id **id)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	int n = poll(&p, 1, 5000);
	REQUIRE(n == 1, "no rdma_cm event within 5 s (poll returned %d: %s)", n, n < 0 ? strerror(errno) : "timeout");
	struct rdma_cm_event *ev;
	REQUIRE(rdma_get_cm_event(ch, &ev) == 0, "rdma_get_cm_event: %s", strerror(errno));
	int type = ev->event;
	*status = ev->status;
	if (id)
		*id = ev->id;
	rdma_ack_cm_event(ev);
	return type;
}

static struct rdma_cm_id *listener(struct rdma_event_channel *ch, const char *who)
{
	struct rdma_cm_id *l;
	REQUIRE(rdma_create_id(ch, &l, NULL, RDMA_PS_TCP) == 0, "rdma_create_id");
	struct sockaddr_in a = addr(PORT);
	REQUIRE(rdma_bind_addr(l, (struct sockaddr *)&a) == 0, "%s: bind 127.0.0.1:%d: %s", who, PORT, strerror(errno));
	REQUIRE(rdma_listen(l, 4) == 0, "%s: rdma_listen: %s", who, strerror(errno));
	return l;
}

/* Another process connects to the port: REJECTED, status 28 (IB_CM_REJ_CONSUMER_DEFINED) from the listener. */
static int connecting_peer(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id;
	REQUIRE(ch && rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0, "peer id");
	struct sockaddr_in dst = addr(PORT);
	int status;
	REQUIRE(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) == 0, "resolve_addr: %s", strerror(errno));
	REQUIRE(next_event(ch, &status, NULL) == RDMA_CM_EVENT_ADDR_RESOLVED, "ADDR_RESOLVED");
	REQUIRE(rdma_resolve_route(id, 2000) == 0, "resolve_route: %s", strerror(errno));
	REQUIRE(next_event(ch, &status, NULL) == RDMA_CM_EVENT_ROUTE_RESOLVED, "ROUTE_RESOLVED");
	struct rdma_conn_param cp = { .qp_num = 0x100, .retry_count = 7 };
	REQUIRE(rdma_connect(id, &cp) == 0, "rdma_connect: %s", strerror(errno));
	int type = next_event(ch, &status, NULL);
	CHECK(type == RDMA_CM_EVENT_REJECTED && status == 28, "peer: %s status %d, want REJECTED 28 (the listener's)",
	      rdma_event_str(type), status);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return g_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "peer") == 0)
		return connecting_peer();
	struct rdma_event_channel *ch = rdma_create_event_channel();
	REQUIRE(ch, "rdma_create_event_channel: %s", strerror(errno));
	if (argc == 1) { /* the image before: a listener and an ephemeral port, closed by no one */
		listener(ch, "first image");
		struct rdma_cm_id *eph;
		REQUIRE(rdma_create_id(ch, &eph, NULL, RDMA_PS_TCP) == 0, "rdma_create_id");
		struct sockaddr_in a = addr(0);
		REQUIRE(rdma_bind_addr(eph, (struct sockaddr *)&a) == 0, "bind an ephemeral port: %s", strerror(errno));
		execl("/proc/self/exe", argv[0], "after-exec", (char *)NULL);
		REQUIRE(0, "exec: %s", strerror(errno));
	}
	struct rdma_cm_id *l = listener(ch, "image after exec");
	int (*listeners)(uint16_t, uint16_t);
	*(void **)&listeners = dlsym(RTLD_DEFAULT, "mlx5emu_debug_cm_listeners");
	REQUIRE(listeners, "mlx5emu_debug_cm_listeners not exported");
	CHECK(listeners(RDMA_PS_TCP, PORT) == 1, "%d listeners on port %d, want this image's one",
	      listeners(RDMA_PS_TCP, PORT), PORT);
	pid_t peer = fork();
	REQUIRE(peer >= 0, "fork");
	if (peer == 0) {
		execl("/proc/self/exe", argv[0], "peer", (char *)NULL);
		_exit(127);
	}
	int status;
	struct rdma_cm_id *req;
	int type = next_event(ch, &status, &req);
	CHECK(type == RDMA_CM_EVENT_CONNECT_REQUEST, "listener: %s, want CONNECT_REQUEST", rdma_event_str(type));
	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		CHECK(rdma_reject(req, NULL, 0) == 0, "rdma_reject: %s", strerror(errno));
		rdma_destroy_id(req);
	}
	int st;
	REQUIRE(waitpid(peer, &st, 0) == peer, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "connecting peer failed: status 0x%x", st);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
	return test_done("t_rdmacm_exec");
}
