/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A process that got the pid of a killed one. The emulator names a process's engine inbox, its registry slot and
 * its QPs by pid, and a killed process cleans up none of them. Its peers must still reach the new process with
 * that pid as they reach any other, never the dead one's leftovers.
 *
 * The test runs in a pid namespace of its own (unshare(2); it needs CAP_SYS_ADMIN, and says it skipped without it),
 * where it can hand a pid out again on purpose (/proc/sys/kernel/ns_last_pid). Its init (pid 1 there) forks Q, the
 * peer that stays up all along, and X, which ping-pongs with Q over RC, so that Q's engine maps X's inbox. X is
 * killed with SIGKILL; right away Y is forked with X's pid, opens the device and ping-pongs with Q over a new pair
 * of QPs. Y must find no registry entry of X's under its pid, and every completion on both sides must arrive.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "emu_objects.h"
#include "rc_node.h"

#define BOUND_S 120

static int to_q[2], from_q[2]; /* X or Y -> Q, Q -> X or Y */
static int x_done[2];            /* X -> init: its ping-pong is over */
static pid_t q_pid;
static uint32_t x_qpn;           /* X's QP, for Y to look up */
static pid_t init_pid;           /* in the outer process: killed (with the whole namespace) on a timeout */

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "FAIL TIMEOUT: t_pid_reuse did not finish within its bound\n";
	if (init_pid > 0)
		kill(init_pid, SIGKILL); /* and every process of its namespace with it */
	if (write(2, msg, sizeof msg - 1) < 0)
		_exit(4);
	_exit(3);
}

/* Q: for X and then Y, a new node connected to the peer's QPN, then the peer's pings answered. */
static void q_main(void)
{
	who = "Q";
	struct ibv_context *ctx = open_plain();
	struct node n[2];
	memset(n, 0, sizeof n);
	for (int k = 0; k < 2; k++) {
		case_name = k ? "Y, with X's pid" : "X";
		pid_t peer;
		uint32_t qpn;
		t_xread(to_q[0], &peer, sizeof peer);
		t_xread(to_q[0], &qpn, sizeof qpn);
		uint32_t mine = node_up(&n[k], ctx);
		node_connect(&n[k], qpn);
		t_xwrite(from_q[1], &mine, sizeof mine);
		pingpong(&n[k], 0, peer);
	}
	char c;
	t_xread(to_q[0], &c, 1); /* the end */
	for (int k = 0; k < 2; k++)
		node_down(&n[k]);
	close_ctx(ctx);
	_exit(0);
}

/* X or Y: connects to Q and pings it. X then waits to be killed; Y cleans up. */
static void peer_main(const char *name, int killed)
{
	who = name;
	case_name = name;
	struct ibv_context *ctx = open_plain();
	pid_t me = getpid();
	if (!killed) { /* Y: X's QP, registered under this pid, is not taken for one of ours */
		int (*reg_qp_get)(uint32_t, struct emu_reg_qp *);
		*(void **)&reg_qp_get = dlsym(RTLD_DEFAULT, "emu_reg_qp_get");
		CHECK(reg_qp_get, "emu_reg_qp_get not exported");
		struct emu_reg_qp e;
		CHECK(reg_qp_get(x_qpn, &e) == -1, "QP 0x%06x of the killed X is still registered, under Y's pid %d", x_qpn,
		      (int)e.pid);
	}
	struct node n;
	uint32_t mine = node_up(&n, ctx), theirs;
	t_xwrite(to_q[1], &me, sizeof me);
	t_xwrite(to_q[1], &mine, sizeof mine);
	t_xread(from_q[0], &theirs, sizeof theirs);
	node_connect(&n, theirs);
	pingpong(&n, 1, q_pid);
	if (killed) {
		t_xwrite(x_done[1], &n.qp->qp_num, sizeof n.qp->qp_num);
		for (;;)
			pause();
	}
	node_down(&n);
	close_ctx(ctx);
	_exit(0);
}

static pid_t spawn(void (*fn)(void))
{
	pid_t p = fork();
	CHECK(p >= 0, "fork");
	if (p == 0) {
		fn();
		_exit(0);
	}
	return p;
}

static void x_main(void) { peer_main("X", 1); }
static void y_main(void) { peer_main("Y", 0); }

/* pid 1 of the namespace */
static int init_main(void)
{
	/* a /proc of this namespace, so that /proc/<pid> (the engine reads a peer's state there) names its processes */
	CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, "private mounts: %s", strerror(errno));
	CHECK(mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0, "mount /proc: %s",
	      strerror(errno));
	CHECK(pipe(to_q) == 0 && pipe(from_q) == 0 && pipe(x_done) == 0, "pipes");
	q_pid = spawn(q_main);
	pid_t x = spawn(x_main);
	t_xread(x_done[0], &x_qpn, sizeof x_qpn);
	/* X dies without cleaning up anything; its pid is handed out again at once, before Q's engine would notice
	 * the death (it looks every 100 ms) */
	int st;
	CHECK(kill(x, SIGKILL) == 0 && waitpid(x, &st, 0) == x, "kill X");
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	CHECK(fd >= 0, "ns_last_pid: %s", strerror(errno));
	char last[16];
	int len = snprintf(last, sizeof last, "%d", (int)x - 1);
	CHECK(write(fd, last, (size_t)len) == len, "ns_last_pid: %s", strerror(errno));
	close(fd);
	pid_t y = spawn(y_main);
	CHECK(y == x, "Y got pid %d, not X's %d", (int)y, (int)x);
	fprintf(stderr, "init: X (pid %d, QP 0x%06x) killed, Y got its pid\n", (int)x, x_qpn);
	CHECK(waitpid(y, &st, 0) == y && WIFEXITED(st) && WEXITSTATUS(st) == 0, "Y failed: status 0x%x", st);
	t_xwrite(to_q[1], "e", 1);
	CHECK(waitpid(q_pid, &st, 0) == q_pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "Q failed: status 0x%x", st);
	return 0;
}

int main(void)
{
	/* The namespace belongs to a child: after unshare(CLONE_NEWPID) every later fork of the caller lands in the
	 * namespace, and once its init is gone no fork works there any more (LeakSanitizer forks at exit). */
	pid_t owner = fork();
	CHECK(owner >= 0, "fork");
	if (owner == 0) {
		signal(SIGALRM, on_alarm);
		alarm(BOUND_S);
		if (unshare(CLONE_NEWPID | CLONE_NEWNS) != 0) {
			printf("t_pid_reuse: no pid namespace here (%s): skipped\n", strerror(errno));
			fflush(stdout);
			_exit(0);
		}
		/* from here on _exit only: exit() would run LeakSanitizer, which cannot fork any more */
		init_pid = fork(); /* pid 1 of the new namespace */
		if (init_pid == 0) {
			alarm(BOUND_S - 10); /* timers are not inherited: init's death ends the namespace's processes */
			_exit(init_main());
		}
		int st = 0;
		if (init_pid < 0 || waitpid(init_pid, &st, 0) != init_pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "FAIL the namespace's init failed: status 0x%x (%s)\n", st, strerror(errno));
			_exit(1);
		}
		printf("t_pid_reuse: ok\n");
		fflush(stdout);
		_exit(0);
	}
	int st;
	CHECK(waitpid(owner, &st, 0) == owner, "waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
