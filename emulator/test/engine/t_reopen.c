/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device contexts of a process come and go while its connections stay up, as on a ConnectX, where each open of
 * /dev/infiniband/uverbsN is a context of its own and neither the port nor the QPs of other contexts notice:
 *  - refused DEVX open: mlx5dv_open_device(MLX5DV_CONTEXT_FLAGS_DEVX), as UCX tries it, is refused (GET_CONTEXT
 *    answers EINVAL, libmlx5 closes the file); the process's connections keep completing, on both sides;
 *  - second context: a second context of the same device opened with other flags (mlx5dv_open_device without
 *    DEVX next to ibv_open_device) carries traffic next to the first one; either one closes while the other
 *    keeps completing;
 *  - close and reopen: a process closes its last context (its engine stops) and opens the device again, on each
 *    side in turn; its peer, which stayed up all along and had reached it before, reaches its new QPs and is
 *    reached by them;
 *  - exec: the child execs itself (its contexts vanish without a close, as the kernel closes uverbs files on exec)
 *    and opens the device again under the same pid: the registry forgets the QPs of the image before, and the
 *    parent reaches the new image's QPs.
 * The peer is a second process (forked before either opens the device, so each has its own engine), driven by
 * the parent over a pipe. Every case has a time bound (SIGALRM) that names the case, and every completion a
 * shorter one that names what it waited for: a packet into the void ends in IBV_WC_RETRY_EXC_ERR ("transport retry
 * counter exceeded") within a second, but an engine that stopped completes nothing at all.
 * The Makefile also runs it in RoCE mode (t_reopen_eth.c).
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "emu_objects.h"
#include "rc_node.h"

#define CASE_S 90        /* one case: a few dozen completions, contexts opened and closed */

static int to_child[2], to_parent[2];
static pid_t peer_pid; /* in the parent: the child, killed when a case times out */

static void on_alarm(int sig)
{
	(void)sig;
	char msg[256];
	int n = snprintf(msg, sizeof msg, "FAIL TIMEOUT (%s): case '%s' did not finish within %d s\n", who, case_name,
			 CASE_S);
	if (n > 0 && write(2, msg, (size_t)n) < 0)
		n = 0;
	if (peer_pid > 0)
		kill(peer_pid, SIGKILL);
	_exit(3);
}

static void begin(const char *name)
{
	case_name = name;
	alarm(CASE_S);
	fprintf(stderr, "%s: case '%s'\n", who, name);
}

/* ---- the child: does what the parent's commands say ---- */

struct cmd {
	char op;      /* see child_loop() */
	uint8_t node; /* which node */
	uint32_t qpn; /* 'n': the parent's new QPN */
	char case_name[40];
};

static void reply_qpn(uint32_t qpn) { t_xwrite(to_parent[1], &qpn, sizeof qpn); }

/* The child's side of every case, from its first open of the device (again, after an exec) to 'q'. */
static void child_loop(struct ibv_context *ctx)
{
	who = "child";
	signal(SIGALRM, on_alarm);
	alarm(CASE_S * 8); /* the parent's cases, one after the other */
	pid_t parent = getppid();
	struct node nodes[2];
	memset(nodes, 0, sizeof nodes);
	static struct cmd c; /* case_name points into it */
	for (;;) {
		t_xread(to_child[0], &c, sizeof c);
		case_name = c.case_name;
		struct node *n = &nodes[c.node & 1];
		switch (c.op) {
		case 'n': /* a new node on this process's context, connected to the parent's QP c.qpn */
			if (n->qp)
				node_down(n);
			reply_qpn(node_up(n, ctx));
			node_connect(n, c.qpn);
			break;
		case 'x': /* drop a node (its peer QP is gone) */
			node_down(n);
			break;
		case 'p': /* answer the parent's pings */
			pingpong(n, 0, parent);
			break;
		case 'P': /* ping the parent */
			pingpong(n, 1, parent);
			break;
		case 'd':
			refused_devx_open();
			break;
		case 'R': /* close the last context and open the device again, as UCX opens it: DEVX first */
			for (int i = 0; i < 2; i++)
				if (nodes[i].qp)
					node_down(&nodes[i]);
			close_ctx(ctx);
			refused_devx_open();
			ctx = open_plain();
			break;
		case 'E': { /* exec this program: it opens the device again; what it had vanishes, closed by no one */
			char rd[16], wr[16];
			snprintf(rd, sizeof rd, "%d", to_child[0]);
			snprintf(wr, sizeof wr, "%d", to_parent[1]);
			execl("/proc/self/exe", "t_reopen", "child", rd, wr, (char *)NULL);
			fprintf(stderr, "FAIL child: exec: %s\n", strerror(errno));
			_exit(1);
		}
		case 'q':
			for (int i = 0; i < 2; i++)
				if (nodes[i].qp)
					node_down(&nodes[i]);
			close_ctx(ctx);
			t_xwrite(to_parent[1], "k", 1);
			return;
		default:
			CHECK(0, "command %c", c.op);
		}
		t_xwrite(to_parent[1], "k", 1);
	}
}

static void child(void)
{
	child_loop(open_plain());
}

/* ---- the parent ---- */

static void tell(char op, int node, uint32_t qpn)
{
	struct cmd c = { op, (uint8_t)node, qpn, "" };
	snprintf(c.case_name, sizeof c.case_name, "%s", case_name);
	t_xwrite(to_child[1], &c, sizeof c);
}

static void done(void)
{
	char k;
	t_xread(to_parent[0], &k, 1);
	CHECK(k == 'k', "child answered %c", k);
}

/* A new node k on ctx here and a new node k in the child, connected to each other. */
static void connect_pair(struct node *n, int k, struct ibv_context *ctx)
{
	if (n->qp)
		node_down(n);
	uint32_t mine = node_up(n, ctx);
	tell('n', k, mine);
	t_xread(to_parent[0], &n->remote_qpn, sizeof n->remote_qpn);
	node_connect(n, n->remote_qpn);
	done();
}

/* Pings in both directions over node k: the child's answer and its ping run while this side answers. */
static void traffic(struct node *n, int k)
{
	tell('p', k, 0);
	pingpong(n, 1, peer_pid);
	done();
	tell('P', k, 0);
	pingpong(n, 0, peer_pid);
	done();
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "child") == 0) { /* the child after its exec */
		to_child[0] = atoi(argv[2]);
		to_parent[1] = atoi(argv[3]);
		struct ibv_context *ctx = open_plain();
		t_xwrite(to_parent[1], "k", 1); /* 'E' done */
		child_loop(ctx);
		return 0;
	}
	signal(SIGALRM, on_alarm);
	peer_pid = t_fork_peer(to_child, to_parent, child);
	struct node a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);

	begin("setup");
	struct ibv_context *ctx1 = open_plain();
	connect_pair(&a, 0, ctx1);
	traffic(&a, 0);

	begin("refused DEVX open");
	refused_devx_open();
	traffic(&a, 0);
	tell('d', 0, 0);
	done();
	traffic(&a, 0);

	begin("second context");
	struct ibv_context *ctx2 = open_dv(0);
	CHECK(ctx2, "mlx5dv_open_device without flags: %s", strerror(errno));
	connect_pair(&b, 1, ctx2);
	traffic(&b, 1);
	traffic(&a, 0);
	node_down(&b);
	close_ctx(ctx2);
	traffic(&a, 0); /* the first context outlives the second */
	ctx2 = open_dv(0);
	CHECK(ctx2, "mlx5dv_open_device again: %s", strerror(errno));
	connect_pair(&b, 1, ctx2);
	node_down(&a);
	close_ctx(ctx1);
	tell('x', 0, 0);
	done();
	traffic(&b, 1); /* and the second outlives the first */

	begin("close and reopen (child)");
	tell('R', 0, 0);
	done();
	connect_pair(&a, 0, ctx2);
	traffic(&a, 0);

	begin("close and reopen (parent)");
	node_down(&a);
	node_down(&b);
	close_ctx(ctx2);
	refused_devx_open(); /* as UCX opens it */
	ctx1 = open_plain();
	connect_pair(&a, 0, ctx1);
	traffic(&a, 0);

	begin("exec (child)");
	uint32_t before_exec = a.remote_qpn;
	tell('E', 0, 0);
	done();
	int (*reg_qp_get)(uint32_t, struct emu_reg_qp *);
	*(void **)&reg_qp_get = dlsym(RTLD_DEFAULT, "emu_reg_qp_get");
	CHECK(reg_qp_get, "emu_reg_qp_get not exported");
	struct emu_reg_qp e;
	CHECK(reg_qp_get(before_exec, &e) == -1, "QP 0x%06x of the child's image before exec is still registered",
	      before_exec);
	connect_pair(&a, 0, ctx1);
	traffic(&a, 0);

	begin("teardown");
	node_down(&a);
	close_ctx(ctx1);
	tell('q', 0, 0);
	done();
	int st;
	CHECK(waitpid(peer_pid, &st, 0) == peer_pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
	alarm(0);
	printf("t_reopen: ok\n");
	return 0;
}
