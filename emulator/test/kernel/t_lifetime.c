/* SPDX-License-Identifier: Apache-2.0 */
/* Object lifetime: a context lives while any fd refers to it (dup, dup2, fcntl), everything it owns is freed when
 * the last one closes, a fork child's inherited fds are inert and its exit does not disturb the parent, and a
 * process's fabric registry entries disappear when it exits or is killed. */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "common.h"
#include "emu_objects.h"

static struct debug_api dbg;
static int (*reg_qp_get)(uint32_t, struct emu_reg_qp *);

static struct mlx5emu_debug_live live(void)
{
	struct mlx5emu_debug_live l;
	dbg.live(&l);
	return l;
}

static int query_device_raw(int fd)
{
	struct ib_uverbs_query_device_resp r;
	struct ib_uverbs_query_device q = { .response = (uintptr_t)&r };
	struct {
		struct ib_uverbs_cmd_hdr h;
		struct ib_uverbs_query_device q;
	} c = { { IB_USER_VERBS_CMD_QUERY_DEVICE, sizeof(c) / 4, sizeof(r) / 4 }, q };
	if (write(fd, &c, sizeof(c)) != (ssize_t)sizeof(c))
		return errno;
	return r.vendor_part_id == 4119 ? 0 : EIO;
}

static void check_dup(void)
{
	struct ibv_context *ctx = open_dev(0);
	int d1 = dup(ctx->cmd_fd);
	int d2 = fcntl(ctx->cmd_fd, F_DUPFD_CLOEXEC, 100);
	int d3 = dup2(ctx->cmd_fd, 200);
	REQUIRE(d1 >= 0 && d2 >= 100 && d3 == 200, "dups");
	CHECK(live().contexts == 1, "one context, four fds");
	CHECK_ERR(ibv_close_device(ctx), 0);
	CHECK(live().contexts == 1, "context must outlive the original fd");
	CHECK_ERR(query_device_raw(d1), 0);
	CHECK_ERR(query_device_raw(d2), 0);
	close(d1);
	CHECK_ERR(query_device_raw(d3), 0);
	/* dup2 of something else over a uverbs fd drops that reference */
	int nul = open("/dev/null", O_RDWR);
	CHECK(dup2(nul, d3) == d3, "dup2 over");
	CHECK(live().contexts == 1, "d2 still holds it");
	errno = 0;
	CHECK(write(d3, "x", 1) == 1, "fd %d is /dev/null again, not a uverbs fd", d3);
	close(d2);
	CHECK(live().contexts == 0, "last fd closed, context still alive");
	close(d3);
	close(nul);
}

/* Closing a device with live objects frees them all, including their registry entries. */
static void check_close_frees(void)
{
	struct ibv_context *ctx = open_dev(0);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	static char buf[8192];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, ch, 0);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);
	struct ibv_qp *qp1 = make_qp(pd, cq, IBV_QPT_RC, NULL);
	struct ibv_qp *qp2 = make_qp(pd, cq, IBV_QPT_UD, srq);
	REQUIRE(pd && mr && ch && cq && srq && qp1 && qp2, "objects: %s", strerror(errno));
	uint32_t qpn = qp1->qp_num;
	struct mlx5emu_debug_live l = live();
	CHECK(l.pds == 1 && l.mrs == 1 && l.cqs == 1 && l.qps == 2 && l.srqs == 1 && l.channels == 1, "live set");
	struct emu_reg_qp e;
	CHECK(reg_qp_get(qpn, &e) == 0, "registered");
	/* close the command fd underneath libibverbs, as a crashing-but-not-exiting process would */
	close(ctx->cmd_fd);
	l = live();
	CHECK(l.contexts == 0 && l.pds == 0 && l.mrs == 0 && l.cqs == 0 && l.qps == 0 && l.srqs == 0,
	      "objects survived the close: %u ctx %u qps", l.contexts, l.qps);
	CHECK(reg_qp_get(qpn, &e) == -1, "registry entry survived the close");
	/* libibverbs' own memory is not ours to free; its later commands just fail */
	CHECK(ibv_destroy_qp(qp1) != 0, "destroy on a closed context must fail");
}

static void check_fork(void)
{
	struct ibv_context *ctx = open_dev(0);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp = make_qp(pd, cq, IBV_QPT_RC, NULL);
	REQUIRE(qp, "qp");
	int fds[2];
	REQUIRE(pipe(fds) == 0, "pipe");
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		int bad = 0;
		/* the inherited fd is inert: its objects are the parent's */
		if (query_device_raw(ctx->cmd_fd) != EIO)
			bad |= 1;
		if (live().contexts != 0)
			bad |= 2;
		/* the child can open its own device and build its own objects */
		struct ibv_context *c2 = open_dev(0);
		struct ibv_pd *p2 = ibv_alloc_pd(c2);
		struct ibv_cq *q2 = ibv_create_cq(c2, 16, NULL, NULL, 0);
		struct ibv_qp *child_qp = make_qp(p2, q2, IBV_QPT_UD, NULL);
		if (!child_qp)
			bad |= 4;
		uint32_t qpn = child_qp ? child_qp->qp_num : 0;
		if (write(fds[1], &qpn, 4) != 4)
			bad |= 8;
		close(ctx->cmd_fd); /* closing the inherited fd must not touch the parent's QP */
		/* exit without cleanup: the destructor must drop this process's registry entries */
		exit(bad);
	}
	close(fds[1]);
	uint32_t child_qpn = 0;
	CHECK(read(fds[0], &child_qpn, 4) == 4 && child_qpn, "child qpn");
	close(fds[0]);
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
	struct emu_reg_qp e;
	CHECK(reg_qp_get(qp->qp_num, &e) == 0 && e.pid == getpid(), "parent's QP left the registry");
	CHECK(reg_qp_get(child_qpn, &e) == -1, "exited child's QP 0x%x still registered", child_qpn);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	CHECK_ERR(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS), 0);

	/* a killed process leaves entries behind; they no longer count as live QPs */
	REQUIRE(pipe(fds) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		struct ibv_context *c2 = open_dev(0);
		struct ibv_pd *p2 = ibv_alloc_pd(c2);
		struct ibv_cq *q2 = ibv_create_cq(c2, 16, NULL, NULL, 0);
		struct ibv_qp *kq = make_qp(p2, q2, IBV_QPT_RC, NULL);
		uint32_t qpn = kq ? kq->qp_num : 0;
		if (write(fds[1], &qpn, 4) != 4)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	child_qpn = 0;
	CHECK(read(fds[0], &child_qpn, 4) == 4 && child_qpn, "victim qpn");
	close(fds[0]);
	CHECK(reg_qp_get(child_qpn, &e) == 0 && e.pid == pid, "victim's QP visible while it runs");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	CHECK(reg_qp_get(child_qpn, &e) == -1, "killed process's QP still looks live");

	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

/* Destroyed completion channels do not pile up: their pipes are released once no CQ uses them. */
static void check_channels(void)
{
	struct ibv_context *ctx = open_dev(0);
	for (int i = 0; i < 50; i++) {
		struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
		REQUIRE(ch, "channel %d: %s", i, strerror(errno));
		CHECK_ERR(ibv_destroy_comp_channel(ch), 0);
	}
	CHECK(live().channels <= 2, "%u channels kept for 1 live", live().channels);
	/* a channel still used by a CQ stays, even after the application closed its fd */
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, ch, 0);
	REQUIRE(cq, "cq");
	struct mlx5emu_debug_cq d;
	struct mlx5dv_cq dv;
	struct mlx5dv_obj o = { .cq = { .in = cq, .out = &dv } };
	mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ);
	REQUIRE(dbg.cq(dv.cqn, &d) == 0 && d.comp_fd >= 0, "cq channel");
	close(ch->fd);
	struct ibv_comp_channel *other = ibv_create_comp_channel(ctx);
	CHECK(fcntl(d.comp_fd, F_GETFD) >= 0, "write end of a channel in use was closed");
	ibv_destroy_cq(cq);
	ibv_destroy_comp_channel(other);
	CHECK_ERR(ibv_close_device(ctx), 0);
}

int main(void)
{
	dbg = debug_api();
	*(void **)&reg_qp_get = dlsym(RTLD_DEFAULT, "emu_reg_qp_get");
	REQUIRE(reg_qp_get, "emu_reg_qp_get");
	check_dup();
	check_channels();
	check_close_frees();
	check_fork();
	return test_done("t_lifetime");
}
