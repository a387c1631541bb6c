/* SPDX-License-Identifier: Apache-2.0 */
/* OPEN_XRCD / CLOSE_XRCD, XRC SRQs and TGT QPs as Linux answers them (uverbs_cmd.c ib_uverbs_open_xrcd(),
 * create_qp(), ib_uverbs_open_qp(); uverbs_free_xrcd()): a private domain (fd -1), EBADF for a bad fd, EAGAIN for a
 * file without a domain and no O_CREAT, EINVAL for O_EXCL on a file with one; one domain per file across handles and
 * processes (told apart by OPEN_QP: a TGT QP of the same domain is opened, in this process or from another one, one
 * of another domain is EINVAL); OPEN_QP (ib_uverbs_open_qp, ib_open_qp): a second handle with the QP's number that
 * modifies and queries the one QP and keeps it after its creator's handle is destroyed, EINVAL for a wrong XRCD, an
 * unknown number, a QP that is no TGT QP and a type other than XRC_RECV; EBUSY to close a handle whose SRQs or QPs
 * (opened ones too) exist; from another process, QUERY_QP through the opened handle answers the QP's attributes and
 * MODIFY_QP is EOPNOTSUPP; a process killed while holding a domain no longer keeps it. */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <rdma/ib_user_verbs.h>

#include "common.h"

static char g_path[64];

static struct ibv_xrcd *xrcd_open(struct ibv_context *ctx, int fd, int oflags, int *err)
{
	struct ibv_xrcd_init_attr a = { .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
					.fd = fd, .oflags = oflags };
	errno = 0;
	struct ibv_xrcd *x = ibv_open_xrcd(ctx, &a);
	*err = x ? 0 : errno;
	return x;
}

static struct ibv_srq *xsrq(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_xrcd *x)
{
	struct ibv_srq_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.attr.max_wr = 16;
	a.attr.max_sge = 1;
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_XRCD;
	a.srq_type = IBV_SRQT_XRC;
	a.pd = pd;
	a.cq = cq;
	a.xrcd = x;
	return ibv_create_srq_ex(ctx, &a);
}

static struct ibv_qp *tgt(struct ibv_context *ctx, struct ibv_xrcd *x)
{
	struct ibv_qp_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_XRC_RECV;
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	a.xrcd = x;
	return ibv_create_qp_ex(ctx, &a);
}

static struct ibv_qp *open_qp(struct ibv_context *ctx, struct ibv_xrcd *x, uint32_t qpn, enum ibv_qp_type type)
{
	struct ibv_qp_open_attr a = { .comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_TYPE,
				      .qp_num = qpn, .xrcd = x, .qp_type = type };
	errno = 0;
	return ibv_open_qp(ctx, &a);
}

/* DESTROY_QP of an opened QP, written to the command fd: libmlx5 v44's ibv_destroy_qp cannot destroy one (mlx5_open_qp
 * allocates no doorbell record, and mlx5_destroy_qp hands its NULL to mlx5_free_db, whose page lookup then writes
 * through the map's end: rdma-core providers/mlx5/verbs.c, on hardware as here). Its struct mlx5_qp is then freed
 * here: the ibv_qp follows the 8-byte struct mlx5_resource that starts it (providers/mlx5/mlx5.h, v44). */
static int destroy_opened(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_qp cmd;
	} c;
	struct ib_uverbs_destroy_qp_resp resp;
	memset(&c, 0, sizeof c);
	c.hdr.command = IB_USER_VERBS_CMD_DESTROY_QP;
	c.hdr.in_words = sizeof c / 4;
	c.hdr.out_words = sizeof resp / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.qp_handle = qp->handle;
	if (write(qp->context->cmd_fd, &c, sizeof c) != (ssize_t)sizeof c)
		return errno;
	free((char *)qp - 8);
	return 0;
}

/* OPEN_QP's errno, for requests that must fail (a handle opened by mistake is destroyed) */
static int open_qp_err(struct ibv_context *ctx, struct ibv_xrcd *x, uint32_t qpn, enum ibv_qp_type type)
{
	struct ibv_qp *qp = open_qp(ctx, x, qpn, type);
	if (!qp)
		return errno;
	destroy_opened(qp);
	return 0;
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp, int *err)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	memset(&a, 0, sizeof a);
	*err = ibv_query_qp(qp, &a, IBV_QP_STATE, &ia);
	return a.qp_state;
}

static int g_rd, g_wr;

static void sync_send(char c) { REQUIRE(write(g_wr, &c, 1) == 1, "pipe write"); }
static char sync_recv(void)
{
	char c = 0;
	REQUIRE(read(g_rd, &c, 1) == 1, "pipe read");
	return c;
}

/* The second process: the parent's domain is there to open without O_CREAT, not to create exclusively, and stays
 * while this process holds it after the parent closed its handle. */
static void peer(void)
{
	struct ibv_context *ctx = open_dev(0);
	int fd = open(g_path, O_RDONLY), err;
	REQUIRE(fd >= 0, "open %s", g_path);
	sync_recv(); /* the parent opened the domain */
	uint32_t tqpn = 0;
	REQUIRE(read(g_rd, &tqpn, sizeof tqpn) == (ssize_t)sizeof tqpn, "peer: read the TGT QP number");
	struct ibv_xrcd *a = xrcd_open(ctx, fd, 0, &err);
	CHECK(a && !err, "peer: open without O_CREAT: %s", strerror(err));
	/* the parent's TGT QP, opened from here: its number; EINVAL for another type or a number that is no TGT QP;
	 * QUERY_QP answers the parent's QP (INIT), MODIFY_QP through it is EOPNOTSUPP (README, Not supported) */
	if (a) {
		struct ibv_qp *o = open_qp(ctx, a, tqpn, IBV_QPT_XRC_RECV);
		CHECK(o && o->qp_num == tqpn, "peer: open the parent's TGT QP 0x%x: %s", tqpn, strerror(errno));
		CHECK_ERR(open_qp_err(ctx, a, tqpn, IBV_QPT_RC), EINVAL);
		CHECK_ERR(open_qp_err(ctx, a, tqpn ^ 0x800000, IBV_QPT_XRC_RECV), EINVAL);
		if (o) {
			CHECK(qp_state(o, &err) == IBV_QPS_INIT && !err, "peer: query the parent's TGT QP: %s",
			      strerror(err));
			struct ibv_qp_attr ra = { .qp_state = IBV_QPS_RESET };
			CHECK_ERR(ibv_modify_qp(o, &ra, IBV_QP_STATE), EOPNOTSUPP);
			CHECK_ERR(ibv_close_xrcd(a), EBUSY); /* the opened QP holds it */
			CHECK_ERR(destroy_opened(o), 0);
		}
	}
	struct ibv_xrcd *b = xrcd_open(ctx, fd, O_CREAT | O_EXCL, &err);
	CHECK(!b && err == EINVAL, "peer: O_EXCL on a held domain: %s", strerror(err));
	sync_send('1');
	sync_recv(); /* the parent closed its handle */
	struct ibv_xrcd *c = xrcd_open(ctx, fd, 0, &err);
	CHECK(c && !err, "peer: the domain this process holds went with the parent's close: %s", strerror(err));
	if (a)
		CHECK_ERR(ibv_close_xrcd(a), 0);
	if (c)
		CHECK_ERR(ibv_close_xrcd(c), 0);
	sync_send('2');
	close(fd);
	ibv_close_device(ctx);
	_exit(g_failures ? 1 : 0);
}

/* A process killed while it holds a domain. */
static void holder(void)
{
	struct ibv_context *ctx = open_dev(0);
	int fd = open(g_path, O_RDONLY), err;
	REQUIRE(fd >= 0, "open %s", g_path);
	struct ibv_xrcd *x = xrcd_open(ctx, fd, O_CREAT, &err);
	REQUIRE(x, "holder: %s", strerror(err));
	sync_send('h');
	pause();
	_exit(0);
}

static pid_t spawn(void (*fn)(void), int *to_child_w, int *from_child_r)
{
	int a[2], b[2];
	REQUIRE(pipe(a) == 0 && pipe(b) == 0, "pipes");
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		close(a[1]);
		close(b[0]);
		g_rd = a[0];
		g_wr = b[1];
		fn();
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	*to_child_w = a[1];
	*from_child_r = b[0];
	return pid;
}

int main(void)
{
	snprintf(g_path, sizeof g_path, "/tmp/t_xrcd-%d", (int)getpid());
	int fd = open(g_path, O_RDONLY | O_CREAT, 0600);
	REQUIRE(fd >= 0, "create %s", g_path);
	int cw, cr;
	pid_t pid = spawn(peer, &cw, &cr); /* before this process opens the device: each has its own */
	g_rd = cr;
	g_wr = cw;

	struct ibv_context *ctx = open_dev(0);
	struct ibv_device_attr da;
	REQUIRE(ibv_query_device(ctx, &da) == 0, "query_device");
	CHECK(da.device_cap_flags & IBV_DEVICE_XRC, "IBV_DEVICE_XRC not offered: 0x%x", da.device_cap_flags);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	REQUIRE(pd && cq, "pd/cq");
	int err;

	/* a private domain, with and without O_CREAT (the kernel ignores oflags without a file) */
	struct ibv_xrcd *priv = xrcd_open(ctx, -1, O_CREAT, &err);
	REQUIRE(priv, "fd -1: %s", strerror(err));
	struct ibv_xrcd *priv2 = xrcd_open(ctx, -1, 0, &err);
	CHECK(priv2 && !err, "fd -1 without O_CREAT: %s", strerror(err));
	/* a bad descriptor; a file without a domain */
	CHECK(!xrcd_open(ctx, 1000, O_CREAT, &err) && err == EBADF, "fd 1000: %s", strerror(err));
	CHECK(!xrcd_open(ctx, fd, 0, &err) && err == EAGAIN, "no domain, no O_CREAT: %s", strerror(err));
	struct ibv_xrcd *x = xrcd_open(ctx, fd, O_CREAT, &err);
	REQUIRE(x, "O_CREAT: %s", strerror(err));
	CHECK(!xrcd_open(ctx, fd, O_CREAT | O_EXCL, &err) && err == EINVAL, "O_EXCL on a domain: %s", strerror(err));
	struct ibv_xrcd *x2 = xrcd_open(ctx, fd, 0, &err); /* the same domain, a second handle */
	REQUIRE(x2, "second handle: %s", strerror(err));

	/* XRC SRQ and TGT QP through x: x cannot close while they exist, x2 can */
	struct ibv_srq *s = xsrq(ctx, pd, cq, x);
	REQUIRE(s, "XRC SRQ: %s", strerror(errno));
	struct ibv_qp *t = tgt(ctx, x);
	REQUIRE(t, "TGT QP: %s", strerror(errno));
	CHECK_ERR(ibv_close_xrcd(x), EBUSY);
	/* one domain behind both handles: OPEN_QP finds the TGT QP through x2, not through a private domain (wrong
	 * XRCD); a number that is no QP, or an RC QP, or a type other than XRC_RECV is EINVAL */
	struct ibv_qp *o = open_qp(ctx, x2, t->qp_num, IBV_QPT_XRC_RECV);
	REQUIRE(o, "open the TGT QP through x2: %s", strerror(errno));
	CHECK(o != t && o->qp_num == t->qp_num, "opened QP number 0x%x, want 0x%x", o->qp_num, t->qp_num);
	CHECK_ERR(open_qp_err(ctx, priv, t->qp_num, IBV_QPT_XRC_RECV), EINVAL);
	CHECK_ERR(open_qp_err(ctx, x2, 0xfffff0, IBV_QPT_XRC_RECV), EINVAL);
	CHECK_ERR(open_qp_err(ctx, x2, t->qp_num, IBV_QPT_RC), EINVAL);
	CHECK_ERR(open_qp_err(ctx, x2, t->qp_num, IBV_QPT_XRC_SEND), EINVAL);
	struct ibv_qp_init_attr rca = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
					.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *rc = ibv_create_qp(pd, &rca);
	REQUIRE(rc, "RC QP: %s", strerror(errno));
	CHECK_ERR(open_qp_err(ctx, x2, rc->qp_num, IBV_QPT_XRC_RECV), EINVAL);
	CHECK_ERR(ibv_destroy_qp(rc), 0);
	CHECK_ERR(ibv_close_xrcd(x2), EBUSY); /* the opened QP holds x2 (ib_uverbs_open_qp: uxrcd->refcnt) */
	/* an RC QP cannot take an XRC SRQ (create_qp: srq_type == IB_SRQT_XRC is EINVAL) */
	struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq, .srq = s, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_send_sge = 1 } };
	errno = 0;
	CHECK(!ibv_create_qp(pd, &qa) && errno == EINVAL, "RC QP on an XRC SRQ: %s", strerror(errno));
	/* a TGT QP walks the XRC TGT column of the state table: RESET -> INIT needs PKEY | PORT | ACCESS */
	struct ibv_qp_attr ma = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	CHECK_ERR(ibv_modify_qp(t, &ma, IBV_QP_STATE | IBV_QP_PORT), EINVAL);
	CHECK_ERR(ibv_modify_qp(o, &ma, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	/* both handles are the one QP: modified through the opened one, INIT through either */
	CHECK(qp_state(t, &err) == IBV_QPS_INIT && !err, "creator's handle after modify through the opened one");
	CHECK(qp_state(o, &err) == IBV_QPS_INIT && !err, "opened handle after its modify: %s", strerror(err));
	/* the creator's handle goes, the QP stays while the opened one exists (the kernel's real QP lives while any
	 * ib_qp opened on it does): still INIT, still openable, and it holds x2 now, no longer x */
	uint32_t tqpn = t->qp_num;
	CHECK_ERR(ibv_destroy_qp(t), 0);
	CHECK(qp_state(o, &err) == IBV_QPS_INIT && !err, "opened handle after the creator's destroy: %s",
	      strerror(err));
	CHECK_ERR(open_qp_err(ctx, x2, tqpn, IBV_QPT_XRC_RECV), 0);
	CHECK_ERR(ibv_close_xrcd(x2), EBUSY);
	CHECK_ERR(destroy_opened(o), 0);
	CHECK_ERR(open_qp_err(ctx, x2, tqpn, IBV_QPT_XRC_RECV), EINVAL); /* the last handle took the QP */
	/* a TGT QP for the peer to open from its process */
	struct ibv_qp *tp = tgt(ctx, x2);
	REQUIRE(tp, "TGT QP for the peer: %s", strerror(errno));
	CHECK_ERR(ibv_modify_qp(tp, &ma, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	CHECK_ERR(ibv_close_xrcd(x), EBUSY); /* the SRQ still */
	CHECK_ERR(ibv_destroy_srq(s), 0);

	/* across processes: the peer shares x's domain through the file and opens tp */
	sync_send('0');
	uint32_t tpn = tp->qp_num;
	REQUIRE(write(g_wr, &tpn, sizeof tpn) == (ssize_t)sizeof tpn, "send the TGT QP number");
	CHECK(sync_recv() == '1', "peer step 1");
	CHECK_ERR(ibv_destroy_qp(tp), 0);
	CHECK_ERR(ibv_close_xrcd(x2), 0);
	CHECK_ERR(ibv_close_xrcd(x), 0);
	sync_send('0');
	CHECK(sync_recv() == '2', "peer step 2");
	int st;
	REQUIRE(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "peer status 0x%x", st);
	/* both processes closed every handle: the domain is gone */
	CHECK(!xrcd_open(ctx, fd, 0, &err) && err == EAGAIN, "domain after the last close: %s", strerror(err));

	/* a holder killed with its domain open leaves none behind */
	pid = spawn(holder, &cw, &cr);
	g_rd = cr;
	g_wr = cw;
	CHECK(sync_recv() == 'h', "holder");
	struct ibv_xrcd *held = xrcd_open(ctx, fd, 0, &err);
	CHECK(held && !err, "the holder's domain: %s", strerror(err));
	if (held)
		CHECK_ERR(ibv_close_xrcd(held), 0);
	kill(pid, SIGKILL);
	REQUIRE(waitpid(pid, &st, 0) == pid, "waitpid holder");
	CHECK(!xrcd_open(ctx, fd, 0, &err) && err == EAGAIN, "domain of a killed holder: %s", strerror(err));

	CHECK_ERR(ibv_close_xrcd(priv), 0);
	CHECK_ERR(ibv_close_xrcd(priv2), 0);
	CHECK_ERR(ibv_destroy_cq(cq), 0);
	CHECK_ERR(ibv_dealloc_pd(pd), 0);
	ibv_close_device(ctx);
	close(fd);
	unlink(g_path);
	return test_done("t_xrcd");
}
