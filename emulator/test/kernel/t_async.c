/* SPDX-License-Identifier: Apache-2.0 */
/* The async event file and the port control: `mlx5emu port DEV PORT down|up` from another process raises
 * IBV_EVENT_PORT_ERR / IBV_EVENT_PORT_ACTIVE on every context of the device, changes QUERY_PORT and the sysfs tree;
 * the async fd reads one event per read(), is EAGAIN when empty and non-blocking, EINVAL for a short read, readable
 * for poll exactly while an event waits, and EIO once its context is gone. Each case runs under its own alarm. */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "common.h"

/* Per case: a case that hangs is killed by SIGALRM and the test fails. */
#define CASE_SECONDS 30

static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* The launcher's control subcommand, as a separate process (the tests run in emulator/, the launcher's directory). */
static void port_cmd(const char *dev, const char *state)
{
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		execl("./mlx5emu", "mlx5emu", "port", dev, "1", state, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	REQUIRE(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "mlx5emu port %s 1 %s: status 0x%x",
		dev, state, st);
}

static void sysfs_text(const char *attr, char *out, size_t n)
{
	char path[512];
	snprintf(path, sizeof path, "%s/class/infiniband/mlx5_0/ports/1/%s", getenv("SYSFS_PATH"), attr);
	FILE *f = fopen(path, "r");
	REQUIRE(f, "open %s", path);
	size_t got = fread(out, 1, n - 1, f);
	out[got] = 0;
	fclose(f);
}

static void expect_port_event(struct ibv_context *ctx, enum ibv_event_type type, const char *what)
{
	CHECK(readable(ctx->async_fd, 5000), "%s: async fd not readable within 5 s", what);
	struct ibv_async_event ev;
	memset(&ev, 0, sizeof ev);
	CHECK(ibv_get_async_event(ctx, &ev) == 0, "%s: ibv_get_async_event: %s", what, strerror(errno));
	CHECK(ev.event_type == type && ev.element.port_num == 1, "%s: event %d port %d", what, ev.event_type,
	      ev.element.port_num);
	ibv_ack_async_event(&ev);
}

static void expect_port(struct ibv_context *ctx, enum ibv_port_state state, uint8_t phys, const char *sys_state,
			const char *sys_phys)
{
	struct ibv_port_attr pa;
	CHECK_ERR(ibv_query_port(ctx, 1, &pa), 0);
	CHECK(pa.state == state && pa.phys_state == phys, "port state %d phys %u, want %d %u", pa.state, pa.phys_state,
	      state, phys);
	char s[64], p[64];
	sysfs_text("state", s, sizeof s);
	sysfs_text("phys_state", p, sizeof p);
	CHECK(strcmp(s, sys_state) == 0 && strcmp(p, sys_phys) == 0, "sysfs state '%s' phys_state '%s'", s, p);
}

/* An empty non-blocking async fd: EAGAIN, not readable. */
static void case_empty(struct ibv_context *ctx)
{
	alarm(CASE_SECONDS);
	int fl = fcntl(ctx->async_fd, F_GETFL);
	CHECK(fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK) == 0, "O_NONBLOCK");
	struct ibv_async_event ev;
	errno = 0;
	CHECK(ibv_get_async_event(ctx, &ev) == -1 && errno == EAGAIN, "empty: errno %d", errno);
	CHECK(!readable(ctx->async_fd, 0), "empty fd readable");
	CHECK(fcntl(ctx->async_fd, F_SETFL, fl) == 0, "blocking again");
}

/* Down and up from another process, seen by both contexts on the device, by QUERY_PORT and in sysfs. */
static void case_port(struct ibv_context *a, struct ibv_context *b)
{
	alarm(CASE_SECONDS);
	expect_port(a, IBV_PORT_ACTIVE, 5, "4: ACTIVE\n", "5: LinkUp\n");
	port_cmd("mlx5_0", "down");
	expect_port_event(a, IBV_EVENT_PORT_ERR, "down, first context");
	expect_port_event(b, IBV_EVENT_PORT_ERR, "down, second context");
	expect_port(a, IBV_PORT_DOWN, 3, "1: DOWN\n", "3: Disabled\n");
	CHECK(!readable(a->async_fd, 100), "one event per change");
	port_cmd("0", "up");
	expect_port_event(a, IBV_EVENT_PORT_ACTIVE, "up, first context");
	expect_port_event(b, IBV_EVENT_PORT_ACTIVE, "up, second context");
	expect_port(b, IBV_PORT_ACTIVE, 5, "4: ACTIVE\n", "5: LinkUp\n");
	/* the same state again changes nothing: no event */
	port_cmd("mlx5_0", "up");
	CHECK(!readable(a->async_fd, 200), "an up port set up again raised an event");
}

/* Raw read() of the async fd: a short buffer is EINVAL and leaves the event queued; a duplicate reads the same
 * queue; the byte that makes the fd readable goes with the last event. */
static void case_read(struct ibv_context *ctx)
{
	alarm(CASE_SECONDS);
	port_cmd("mlx5_0", "down");
	CHECK(readable(ctx->async_fd, 5000), "event for the raw reads");
	char small[8];
	errno = 0;
	CHECK(read(ctx->async_fd, small, sizeof small) == -1 && errno == EINVAL, "short read: errno %d", errno);
	int dup_fd = dup(ctx->async_fd);
	CHECK(dup_fd >= 0, "dup");
	struct ib_uverbs_async_event_desc d;
	CHECK(read(dup_fd, &d, sizeof d) == (ssize_t)sizeof d, "read through the duplicate: %s", strerror(errno));
	CHECK(d.event_type == IBV_EVENT_PORT_ERR && d.element == 1 && d.reserved == 0, "desc %u %llu %u", d.event_type,
	      (unsigned long long)d.element, d.reserved);
	CHECK(!readable(ctx->async_fd, 0), "readable after its only event was read");
	close(dup_fd);
	port_cmd("mlx5_0", "up");
	expect_port_event(ctx, IBV_EVENT_PORT_ACTIVE, "after the duplicate was closed");
}

/* A blocked ibv_get_async_event returns when the event comes. */
static void case_blocking(struct ibv_context *ctx)
{
	alarm(CASE_SECONDS);
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		usleep(200 * 1000); /* the parent is in ibv_get_async_event by then */
		execl("./mlx5emu", "mlx5emu", "port", "mlx5_0", "1", "down", (char *)NULL);
		_exit(127);
	}
	struct ibv_async_event ev;
	CHECK(ibv_get_async_event(ctx, &ev) == 0 && ev.event_type == IBV_EVENT_PORT_ERR, "blocking read");
	ibv_ack_async_event(&ev);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "port down: 0x%x", st);
	port_cmd("mlx5_0", "up");
	expect_port_event(ctx, IBV_EVENT_PORT_ACTIVE, "up after the blocking read");
}

/* A duplicate of the async fd outlives the context: it reads EIO, as the kernel's closed event queue does. */
static void case_context_gone(struct ibv_context *ctx)
{
	alarm(CASE_SECONDS);
	int fd = dup(ctx->async_fd);
	CHECK(fd >= 0, "dup");
	CHECK(ibv_close_device(ctx) == 0, "close");
	struct ib_uverbs_async_event_desc d;
	errno = 0;
	CHECK(read(fd, &d, sizeof d) == -1 && errno == EIO, "read after close: errno %d", errno);
	close(fd);
}

int main(void)
{
	struct ibv_context *a = open_dev(0), *b = open_dev(0);
	REQUIRE(a && b, "two contexts");
	case_empty(a);
	case_port(a, b);
	case_read(a);
	case_blocking(a);
	case_context_gone(b);
	alarm(0);
	CHECK(ibv_close_device(a) == 0, "close");
	return test_done("t_async");
}
