/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_core.c - the engine thread, the passes that application threads lend it, the doorbell fault handler, and
 * the hooks K calls (layer 5 of src/engine/LAYERS, the top: it may call every other engine file).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "emu_clock.h"
#include "emu_shm.h"
#include "engine_hooks.h"
#include "engine/eng_internal.h"
#include "engine/eng_pcap.h"

static void lock_engine(void)
{
	atomic_fetch_add(&G.hook_wait, 1);
	pthread_mutex_lock(&G.lock);
	atomic_fetch_sub(&G.hook_wait, 1);
}

static void unlock_engine(void) { pthread_mutex_unlock(&G.lock); }

/* ---------------- the engine thread ---------------- */

static int drain_inbox(void)
{
	int work = 0;
	size_t len;
	struct pkt *p;
	for (int n = 0; n < 256 && (p = eng_ring_peek(&G.inbox->resp, &len)); n++) {
		if (p->xfwd) { /* between two engines of an XRC domain, not on any wire (eng_xrcfwd.c) */
			if (!eng_xrc_resp(p))
				break;
			eng_ring_pop(&G.inbox->resp);
			work = 1;
			continue;
		}
		eng_tap_rx(p);
		eng_handle_resp(p);
		eng_ring_pop(&G.inbox->resp);
		work = 1;
	}
	for (int n = 0; n < 256 && (p = eng_ring_peek(&G.inbox->req, &len)); n++) {
		if (!eng_handle_req(p))
			break;
		eng_tap_rx(p);
		eng_ring_pop(&G.inbox->req);
		work = 1;
	}
	work |= eng_flush_acks(0);
	return work;
}

/* The timer page advances with the passes (emu_clock.h), at most once a microsecond: a pass that finds nothing to
 * do is a few hundred nanoseconds, and the tick conversion and the compare-and-swap on a page every process of the
 * fabric writes were a tenth of it. A CQE still publishes its own stamp first (eng_cq.c). */
#define ENG_CLOCK_SHOW_NS 1000ull

/*
 * One pass over everything the device does, started at now; caller holds G.lock.
 *
 * The passes' clock never goes back: a caller may have read now before it got G.lock (a lender reads it before its
 * trylock, the doorbell fault thread before lock_engine), and another thread's pass may have run with a later time
 * in between. Every interval below is an unsigned difference with a time an earlier pass stored (last_slow, a QP's
 * rec_stall_since, its timers), which such a now would turn into an interval of about 2^64 ns: the slow
 * housekeeping then ran at once, and eng_check_unrung reported a doorbell record that had been ahead of the device
 * for microseconds (the store of its doorbell still to come) as "never rung" for more than a second.
 */
static int engine_iteration(uint64_t now)
{
	static uint64_t last_slow, last_full_scan, last_now;
	int work = 0;
	if (!G.inbox)
		return 0;
	if (now < last_now)
		now = last_now;
	last_now = now;
	G.pass_ns = now;
	G.passes++;
	if (now - G.clock_shown_ns >= ENG_CLOCK_SHOW_NS) {
		G.clock_shown_ns = now;
		emu_clock_publish(emu_clock_ticks(now));
	}
	if (eng_inbox_deferred_pending())
		eng_inbox_kick_deferred(now, 0);
	int full = now - last_full_scan >= ENG_FULL_SCAN_NS;
	if (full)
		last_full_scan = now;
	work |= eng_scan_doorbells(full);
	work |= drain_inbox();
	/* only the QPs that may have work (eng_qp_busy); one found idle after its turn leaves the list until a
	 * doorbell, a state change or a rewind puts it back (eng_qp_mark_busy) */
	for (struct eng_qp *qp = G.busy.head, *next; qp; qp = next) {
		work |= eng_qp_progress(qp, now);
		G.pass_visits++;
		next = qp->busy_link.next;
		if (!eng_qp_busy(qp))
			eng_qp_list_del(&G.busy, qp, &qp->busy_link);
	}
	work |= eng_cq_zip_flush_all(); /* the pass ends: compressed CQEs held in it become visible (eng_cq.c) */
	if (now - last_slow > 100000000ull) {
		last_slow = now;
		/* a peer killed in the middle of a packet: its record must not hold up everything behind it */
		if (eng_ring_skip_abandoned(&G.inbox->req, eng_pid_gone) |
		    eng_ring_skip_abandoned(&G.inbox->resp, eng_pid_gone))
			work = 1;
		eng_check_unrung(now);
		if (eng_doorbells_polled() == 2)
			eng_adopt_mappings(now, 1000000000ull); /* pages mapped where the library did not see it */
		eng_reap_peers();
		eng_eth_reap_inboxes();
		emu_clock_maintain();
	}
	return work;
}

/* The inbox's first cache line (wake_seq, sleeping, poll_ns, awake_ns) is read by every producer with every packet
 * (eng_inbox_kick, eng_direct_wanted): written with every pass of a spinning engine, or every pass lent by a
 * poller, it moved between the cores with every packet (measured: the loads of it were a tenth of ib_write_bw's
 * client thread). So both times are stored only when they moved by ENG_INBOX_TIME_STEP_NS, well below the
 * windows in which they are read (ENG_AWAKE_FRESH_NS, ENG_POLL_FRESH_NS); a change to or from 0 always. */
#define ENG_INBOX_TIME_STEP_NS 1000ull

static void publish_time(_Atomic uint64_t *at, uint64_t *shown, uint64_t now)
{
	if (now && *shown && now - *shown < ENG_INBOX_TIME_STEP_NS && now >= *shown)
		return;
	*shown = now;
	atomic_store_explicit(at, now, memory_order_relaxed);
}

/* Progress lent by polling application threads, through the pthread_spin_lock interposer (src/kernel/interpose.c
 * says why) and mlx5emu_lend. Set while this thread runs engine passes (a loan, the doorbell fault handler), so that
 * a spinlock taken inside them does not lend again. */
static __thread int in_assist;

/* Lend this thread to the engine for up to passes passes (the first always, the next while the last one did work),
 * if the engine is free. */
static void lend(int passes)
{
	/* Announce the poller even when the engine is busy: the engine thread then stays off G.lock, so it cannot be
	 * preempted while holding it and stall this poller for a whole time slice. */
	uint64_t now = eng_now_ns();
	atomic_store_explicit(&G.last_assist, now, memory_order_relaxed);
	if (!atomic_load_explicit(&G.hook_wait, memory_order_relaxed) && pthread_mutex_trylock(&G.lock) == 0) {
		in_assist = 1;
		if (G.inbox) { /* tells producers that this process polls: they defer their wake-ups (eng_wire.c) */
			static uint64_t shown; /* under G.lock */
			publish_time(&G.inbox->poll_ns, &shown, now);
		}
		for (int n = 0; n < passes && engine_iteration(n ? eng_now_ns() : now); n++)
			;
		eng_flush_acks(1); /* the lender may not come back soon: nothing held back after its loan */
		in_assist = 0;
		pthread_mutex_unlock(&G.lock);
	}
}

/* K's pthread_spin_lock interposer: one pass before the program takes its lock, if the engine is free. */
void emu_engine_spin_lock_taking(void)
{
	if (G.running && !in_assist)
		lend(1);
}

/*
 * The same loan, for drivers that never call libmlx5 on their hot path (mlx5j's CqPoller calls it when a poll finds
 * its CQ empty; found through dlsym(RTLD_DEFAULT), so only where this library is loaded). Up to 4 passes, as after a
 * doorbell fault: a loopback packet is delivered and acknowledged before the poller looks again, since the same
 * thread may next spin on the memory the packet writes. A NIC needs no host CPU; this only borrows cycles the
 * poller would spend spinning anyway, and a doorbell is still noticed without it (write faults, the engine thread).
 */
__attribute__((visibility("default"))) void mlx5emu_lend(void)
{
	if (G.running && !in_assist && !G.lend_off)
		lend(4);
}

/* Whether mlx5emu_lend can do anything in this process: not with MLX5EMU_ENGINE=off (benchmarks then keep the
 * call out of their measured polls) or MLX5EMU_LEND=0 (a driver's loans turned off, to test the other paths). */
__attribute__((visibility("default"))) int mlx5emu_lend_enabled(void)
{
	return !G.disabled && !G.lend_off;
}

/* Tests (mlx5emu_debug_pass_at): one pass at the time now, as a caller that read it long before would run it. */
int eng_debug_pass(uint64_t now)
{
	lock_engine();
	int work = engine_iteration(now);
	unlock_engine();
	return work;
}

/* A doorbell store to the application's mapping of the UAR page user_va faulted (eng_dbfault.c). The driver
 * writes the doorbell record before it stores the doorbell (rdma-core providers/mlx5/qp.c, _mlx5_post_send: the
 * record, a write barrier, then the BlueFlame/doorbell store), so the records of the QPs that ring through this
 * page already say how far the doorbell executes: take them now, and run a pass so that the packets leave
 * before the storing thread even resumes. The store itself lands after the fault is resolved and is then taken
 * like any doorbell; it finds its WQEs executed and only checks the BlueFlame copy. */
void eng_doorbell_fault(void *user_va)
{
	in_assist = 1;
	lock_engine();
	for (int i = 0; i < G.nuars; i++) {
		struct eng_uar *u = &G.uars[i];
		if ((u->user_va != user_va && u->alias_va != user_va) || !u->watched)
			continue;
		u->open = 1;
		u->landed = 0;
		u->open_since = eng_now_ns();
		for (struct eng_qp *qp = G.qp_by_page[eng_qp_page_bucket(u->ctx, (uint32_t)u->index)]; qp;
		     qp = qp->page_next) {
			if (!qp->q || qp->q->ctx != u->ctx || qp->q->uar_page != (uint32_t)u->index)
				continue;
			/* the driver stored the record before the doorbell that faulted: the WQEs up to it are whole */
			uint32_t rec = udma_device_load_dbrec(&qp->dbrec[1]) & 0xffff;
			uint32_t rec_ahead = (rec - qp->sq_pi) & 0xffff;
			if (rec_ahead)
				eng_sq_take_record(qp, qp->sq_pi & 0xffff, rec, rec_ahead);
		}
	}
	/* A few passes: a loopback packet lands in this process's own inbox in the first and is delivered in the
	 * second, before the storing thread resumes. */
	for (int n = 0; n < 4 && engine_iteration(eng_now_ns()); n++)
		;
	eng_flush_acks(1);
	eng_inbox_kick_deferred(eng_now_ns(), 1); /* the storing thread may spin on memory next, not poll */
	/* Under G.lock: eng_protect_open_pages must not protect the page again between the open above and this write
	 * enable (the store would then land on a page marked protected, and pass for a store through a mapping the
	 * library never saw). If the engine protects it later but before the store lands, the store faults again. */
	eng_dbfault_resolve(user_va);
	unlock_engine();
}


/* How long before now an application thread last lent a pass (0 if it did so after now was read). */
static uint64_t lent_before(uint64_t now)
{
	uint64_t then = atomic_load_explicit(&G.last_assist, memory_order_relaxed);
	return then > now ? 0 : now - then;
}

/*
 * The fault thread between faults. A fault leaves its page open (write-enabled) so that the faulting store can land;
 * the page is protected again once that store was taken. While a program lends passes, that is left to the lender
 * and the engine thread (each protect costs a TLB shootdown, and a lender takes the doorbells of open pages itself).
 * A program that never calls the library (UCX rc_mlx5, ib_write_lat between its polls) would otherwise ring its next
 * doorbell on a page that is still open, seen only when the engine thread next woke: up to its 500 us idle step,
 * and UCX put_lat then took 140 to 200 us per iteration, with nothing else to wake the engine (the requester places
 * its WRITEs itself, eng_direct.c). So the fault thread itself looks again a few microseconds after the fault (the
 * storing thread runs in between, on the CPU the fault thread leaves), takes the landed store and protects the page.
 * Returns the next wait: 10 us while the store is fresh, 100 us after that (ENG_DB_OPEN_MAX_NS then protects the page
 * anyway), -1 (no timeout) when no page is open or a lender looks after them.
 */
static long doorbell_fault_idle(void)
{
	uint64_t now = eng_now_ns();
	if (lent_before(now) < ENG_LEND_OPEN_NS)
		return -1;
	long next = -1;
	lock_engine();
	now = eng_now_ns(); /* the engine thread may have held the lock for a whole pass, or been preempted in it */
	int open = 0;
	for (int i = 0; i < G.nuars && !open; i++)
		open = G.uars[i].open;
	if (open) {
		for (int n = 0; n < 4 && engine_iteration(now); n++) /* the scan marks the landed stores */
			now = eng_now_ns();
		if (eng_protect_open_pages())
			for (int n = 0; n < 4 && engine_iteration(eng_now_ns()); n++)
				;
		eng_flush_acks(1);
		eng_inbox_kick_deferred(eng_now_ns(), 1);
		now = eng_now_ns();
		for (int i = 0; i < G.nuars && next < 0; i++)
			if (G.uars[i].open)
				next = now - G.uars[i].open_since < 100000ull ? 30000 : 100000;
	}
	unlock_engine();
	return next;
}

/*
 * Whether a core is free for this thread to spin on: the number of runnable threads on the machine (the fourth
 * field of /proc/loadavg, this thread included) does not exceed the number of CPUs. Spinning then costs nobody
 * anything; when programs spin on every core, a spinning engine would only push the thread that must run next
 * (a peer's engine, the poller) behind a time slice.
 */
static int core_free(void)
{
	int running = eng_runnable_threads();
	return running < 0 || running <= eng_cpus(); /* cannot tell: behave as before */
}

/* Publish in the inbox that this thread is running passes back to back (on: now) or going to sleep (0); peers
 * place their RDMA WRITEs directly only while it is not (eng_wire.h, eng_direct.c). */
static void publish_awake(uint64_t now)
{
	static uint64_t shown; /* only the engine thread publishes it */
	if (G.inbox)
		publish_time(&G.inbox->awake_ns, &shown, now);
}

/* What the engine thread must not leave behind when it sleeps: held ACKs, then held kicks (the ACKs may add some). */
static void before_sleep(void)
{
	pthread_mutex_lock(&G.lock);
	G.pass_ns = eng_now_ns();
	eng_flush_acks(1);
	eng_inbox_kick_deferred(G.pass_ns, 1);
	pthread_mutex_unlock(&G.lock);
}

static void *engine_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "mlx5emu-engine");
	eng_thread_sched_setup();
	in_assist = 1;
	uint64_t idle = 0, last_work = 0, spin_checked = 0;
	int spin_ok = 0, poller_naps = 0, demoted = 0;
	while (!atomic_load(&G.stop)) {
		/* While application threads are lending cycles, stay out of their way: if this thread were preempted
		 * while holding G.lock, every poller's trylock would fail for a whole time slice. (Not 1 us steps: each
		 * timer wake-up costs about 20 us of CPU in a virtual machine.) But a packet still wakes us at once:
		 * the poller may have gone back to spinning on memory (ib_write_lat polls its send CQ, then spins on
		 * its buffer), and its packet would otherwise wait for the end of this sleep (measured: ib_write_lat -s
		 * 8 typical 60 us with a plain 100 us sleep here, 22 us with the wake). */
		uint64_t top = eng_now_ns();
		uint64_t since = lent_before(top);
		if (since >= 100000ull)
			poller_naps = 0;
		if (since < 100000ull) { /* a poller called in the last 100 us: sleep until that is no longer so */
			long ns = (long)(100000ull - since > 20000ull ? 100000ull - since : 20000ull);
			/* Each time-out that finds the poller still at it doubles the next nap, up to ENG_LEND_OPEN_NS: every
			 * wake-up costs this VM about 20 us of CPU and adds a runnable thread, which made the peer's
			 * spinning engine sleep (core_free) and the poller pay a futex wake for every packet after
			 * (ib_write_bw -s 8: 10 000 wake-ups a second of the client's engine at 100 us). */
			long nap = ns << poller_naps;
			if (nap > (long)ENG_LEND_OPEN_NS)
				nap = (long)ENG_LEND_OPEN_NS;
			else
				poller_naps++;
			if (eng_inbox_deferred_pending() || eng_acks_held())
				before_sleep();
			publish_awake(0);
			if (!eng_inbox_wait(G.inbox, nap))
				continue;
			poller_naps = 0; /* a packet: back to the short steps, the poller may have gone to spin on memory */
			/* A packet is waiting, but an application thread is polling and will take it in the pass it lends
			 * at its next ibv_poll_cq. Woken, this thread would preempt that very poller (nice -19), and on the
			 * 2-core test VM a wake-up and switch cost 50 to 150 us: ib_send_lat -s 8 then stays for whole runs
			 * at 22 to 79 us typical, the two engines waking each other with their ACKs. So leave it to the
			 * poller until the poller has been quiet for 100 us (ib_send_lat 2.35 to 2.58 us typical in three
			 * runs, p99 325 to 332 us; ib_write_lat, ib_read_lat and ib_write_bw unchanged). A program that
			 * polls and then spins on memory (ib_write_lat) no longer needs this thread for its RDMA WRITEs
			 * (eng_direct.c); for other packets it waits up to 100 us. MLX5EMU_POLLER_FIRST=0 turns it off. */
			if (G.poller_first) {
				struct timespec t = { 0, ns };
				nanosleep(&t, NULL);
				continue;
			}
		}
		publish_awake(top);
		pthread_mutex_lock(&G.lock);
		if (atomic_load_explicit(&G.debug_hold, memory_order_relaxed)) { /* tests: mlx5emu_debug_hold_engine */
			pthread_mutex_unlock(&G.lock);
			publish_awake(0);
			eng_inbox_wait(G.inbox, 1000000);
			continue;
		}
		uint64_t now = eng_now_ns(); /* not top: the lock may have been held by a lending thread for a while */
		int work = engine_iteration(now);
		int polled_doorbell = G.polled_doorbell;
		pthread_mutex_unlock(&G.lock);
		if (polled_doorbell && !demoted) {
			eng_thread_sched_polling();
			demoted = 1;
		}
		if (atomic_load(&G.hook_wait))
			sched_yield();
		if (work) {
			idle = 0;
			last_work = now;
			continue;
		}
		idle++;
		/* Spin after traffic only while a core is free (the next packet is likely close); otherwise sleep at
		 * once: a packet for us wakes us at once (peers kick the inbox futex), and so does a doorbell on a page
		 * watched through write faults. Only doorbells on polled pages wait for the end of the step.
		 * No fixed number of idle passes before sleeping either: at nice -19 each wake-up would then take a
		 * core from a program for the 64 passes (50 to 100 us, perf sched), and two JVMs that poll their CQs
		 * in memory lose that on every round trip (measured: two-JVM write_lat typical 20.6 -> 18.0 us, median
		 * of 6 alternated pairs, all 6 in favour; ib_send_lat, ib_write_lat and the loopback unchanged). */
		if (now - last_work < 200000ull && now - spin_checked > 20000ull) {
			spin_checked = now;
			spin_ok = core_free();
		}
		if (now - last_work < 200000ull && spin_ok) {
			__builtin_ia32_pause();
			continue;
		}
		/* A thread that lends passes takes the doorbells of open pages itself: leave them open (each protect
		 * costs a TLB shootdown, and the next doorbell a write fault: 80 to 190 us on the 2-core test VM) until
		 * it has not lent for ENG_LEND_OPEN_NS, and sleep until then. A doorbell it leaves behind is still seen,
		 * by the pass after that sleep. */
		uint64_t lent_ago = lent_before(now);
		if (lent_ago < ENG_LEND_OPEN_NS) {
			if (eng_inbox_deferred_pending() || eng_acks_held())
				before_sleep();
			long ns = (long)(ENG_LEND_OPEN_NS - lent_ago > 20000ull ? ENG_LEND_OPEN_NS - lent_ago : 20000ull);
			publish_awake(0);
			eng_inbox_wait(G.inbox, ns);
			continue;
		}
		pthread_mutex_lock(&G.lock);
		int again = eng_protect_open_pages(); /* about to sleep */
		eng_flush_acks(1);
		eng_inbox_kick_deferred(now, 1);
		int polled = eng_doorbells_polled();
		pthread_mutex_unlock(&G.lock);
		if (!again)
			publish_awake(0);
		if (again) {
			idle = 0;
			last_work = now;
		} else if (!polled) {
			eng_inbox_wait(G.inbox, 500000); /* nothing to poll: only timers and housekeeping */
		} else if (polled == 1) {
			/* A page is open: the store that faulted lands as soon as its thread runs, and until the page is
			 * protected again, that thread's next doorbell is only seen by a scan (a program alone with its
			 * own loopback QPs gets no packet that would wake us). Short steps right after the fault. */
			eng_inbox_wait(G.inbox, now - last_work < 200000ull ? 10000 : 50000);
		} else {
			eng_inbox_wait(G.inbox, idle < 20000 ? 1000 : idle < 40000 ? 50000 : 500000);
		}
	}
	publish_awake(0);
	return NULL;
}

void eng_fabric_name(void)
{
	emu_shm_fabric(G.fabric, sizeof G.fabric);
}

static void engine_stop(void)
{
	pthread_mutex_lock(&G.lock);
	int running = G.running, dbfault = G.dbfault;
	G.running = 0;
	pthread_mutex_unlock(&G.lock);
	if (dbfault) {
		/* without G.lock: the fault thread may be waiting for it */
		eng_dbfault_stop();
		pthread_mutex_lock(&G.lock);
		G.dbfault = 0;
		for (int i = 0; i < G.nuars; i++)
			G.uars[i].watched = G.uars[i].open = 0;
		pthread_mutex_unlock(&G.lock);
	}
	if (running) {
		atomic_store(&G.stop, 1);
		pthread_join(G.thr, NULL);
		atomic_store(&G.stop, 0);
	}
	pthread_mutex_lock(&G.lock);
	if (G.inbox) {
		/* Peers stop looking this inbox up, and drop their mappings of it (eng_reap_peers); the next context
		 * opened here makes a new one, with a new id. */
		struct emu_registry *r = emu_registry();
		int slot = emu_reg_self_slot();
		if (r && slot >= 0)
			atomic_store(&r->procs[slot].inbox, 0);
		eng_direct_withdraw_all(); /* peers that still map the inbox must not write into this process any more */
		eng_inbox_destroy(G.inbox, G.fabric, G.pid);
		G.inbox = NULL;
	}
	pthread_mutex_unlock(&G.lock);
}

__attribute__((destructor)) static void engine_at_exit(void)
{
	engine_stop();
	if (G.strict && atomic_load(&G.violations))
		fprintf(stderr, "mlx5emu[%d]: %lu strict-mode violations\n", (int)getpid(), atomic_load(&G.violations));
}

static void atfork_child(void)
{
	/* The engine thread does not exist in the child; the parent's objects are inert there (see emu_objects.h). */
	pthread_mutex_init(&G.lock, NULL);
	G.running = 0;
	G.dbfault = 0;
	eng_dbfault_forget();
	eng_inbox_forget_deferred();
	eng_wire_pid = 0; /* the parent's: a reservation of this process must not name it */
	G.polled_doorbell = 0;
	G.inbox = NULL;
	G.qps = NULL;
	G.busy.head = G.busy.tail = NULL;
	memset(G.qp_by_page, 0, sizeof G.qp_by_page);
	G.acking.head = G.acking.tail = NULL;
	G.cqs = NULL;
	G.nuars = 0;
	G.nctx = 0;
	memset(G.qp_by_slot, 0, sizeof G.qp_by_slot);
	memset(G.mr_hash, 0, sizeof G.mr_hash);
	memset(G.peers, 0, sizeof G.peers);
	eng_eth_forget();
	eng_fault_forget();
}

__attribute__((constructor)) static void engine_init(void)
{
	const char *s = getenv("MLX5EMU_STRICT");
	G.strict = s && *s && strcmp(s, "0") != 0;
	eng_pcap_init();
	s = getenv("MLX5EMU_SCATTER_CQE");
	G.scatter = !(s && strcmp(s, "0") == 0);
	/* MLX5EMU_ENGINE=off: the device never executes anything (no engine thread). Benchmarks and byte-parity tests
	 * use it to measure or compare the software paths alone, with rings that only they touch. */
	s = getenv("MLX5EMU_ENGINE");
	G.disabled = s && (strcmp(s, "off") == 0 || strcmp(s, "0") == 0);
	s = getenv("MLX5EMU_POLLER_FIRST");
	G.poller_first = !(s && s[0] == '0');
	s = getenv("MLX5EMU_LEND");
	G.lend_off = s && s[0] == '0';
	pthread_atfork(NULL, NULL, atfork_child);
}

/* Write-protect the application's mapping of a UAR page, so that its doorbell stores fault (eng_dbfault.c). */
static void watch_uar(struct eng_uar *u)
{
	if (u->user_va && !u->watched)
		u->watched = eng_dbfault_watch(u->user_va) == 0;
}

/* Start the thread (under G.lock). */
static void engine_start_locked(void)
{
	if (G.running || G.disabled)
		return;
	G.pid = (int)getpid();
	eng_wire_pid = G.pid;
	if (!G.inbox) {
		eng_fabric_name();
		struct emu_registry *r = emu_registry();
		int slot = emu_reg_self_slot();
		/* A fabric-wide id per inbox, never 0 (0 is "none" in the registry): peers tell this inbox from one this
		 * pid had before (eng_wire.h) */
		uint32_t id = 0;
		while (r && !id)
			id = atomic_fetch_add(&r->next_inbox_id, 1) + 1;
		G.inbox = eng_inbox_create(G.fabric, G.pid, id ? id : 1);
		if (!G.inbox) {
			fprintf(stderr, "mlx5emu[%d]: engine cannot create its inbox in /dev/shm: %s\n", G.pid,
				strerror(errno));
			return;
		}
		if (r && slot >= 0)
			atomic_store(&r->procs[slot].inbox, id);
		/* MRs registered before the first QP, and QPs already connected, become reachable for direct
		 * placement now that there is an inbox to publish them in */
		for (unsigned b = 0; b < sizeof G.mr_hash / sizeof G.mr_hash[0]; b++)
			for (struct eng_mr *m = G.mr_hash[b]; m; m = m->next)
				eng_direct_publish_mr(m);
		for (struct eng_qp *qp = G.qps; qp; qp = qp->next)
			eng_direct_publish_qp(qp);
	}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old); /* signals stay with the application's threads */
	if (pthread_create(&G.thr, NULL, engine_main, NULL) == 0)
		G.running = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (G.running && !G.dbfault) {
		G.dbfault = eng_dbfault_start(eng_doorbell_fault, doorbell_fault_idle) == 0;
		for (int i = 0; i < G.nuars && G.dbfault; i++)
			watch_uar(&G.uars[i]);
	}

}

/* ---------------- hooks ---------------- */

void emu_engine_ctx_opened(struct emu_ctx *ctx)
{
	(void)ctx;
	lock_engine();
	G.nctx++;
	engine_start_locked();
	unlock_engine();
}

void emu_engine_ctx_closing(struct emu_ctx *ctx)
{
	lock_engine();
	for (int i = 0; i < G.nuars;)
		if (G.uars[i].ctx == ctx) {
			free(G.uars[i].bf_check);
			G.uars[i] = G.uars[--G.nuars];
		}
		else
			i++;
	int last = --G.nctx <= 0;
	unlock_engine();
	if (last)
		engine_stop();
}

void emu_engine_uar_mapped(struct emu_ctx *ctx, int page_index, void *user_va)
{
	lock_engine();
	uint8_t *page = ctx->uar_alias + (size_t)page_index * EMU_UAR_PAGE_SIZE;
	struct eng_uar *u = NULL;
	for (int i = 0; i < G.nuars; i++)
		if (G.uars[i].page == page)
			u = &G.uars[i];
	if (!u && G.nuars < ENG_MAX_UARS) {
		u = &G.uars[G.nuars++];
		memset(u, 0, sizeof *u);
		u->ctx = ctx;
		u->page = page;
		u->index = page_index;
		u->bf_check = calloc(ENG_BF_HALVES, sizeof *u->bf_check);
	}
	/* The application's own mapping (the first one, if it maps the page twice): its doorbell stores fault. */
	if (u && user_va && !u->user_va) {
		u->user_va = user_va;
		if (G.dbfault)
			watch_uar(u);
	}
	unlock_engine();
}

static void cq_load(struct eng_cq *e, struct emu_cq *c)
{
	e->c = c;
	e->buf = (uint8_t *)(uintptr_t)c->buf;
	e->cnt = c->cqe_cnt;
	e->size = c->cqe_size;
	e->dbrec = (volatile uint32_t *)(uintptr_t)c->dbrec;
	e->comp_format = c->comp_format;
}

void emu_engine_cq_created(struct emu_cq *c)
{
	struct eng_cq *e = calloc(1, sizeof *e);
	if (!e)
		return;
	cq_load(e, c);
	lock_engine();
	c->engine = e;
	e->next = G.cqs;
	G.cqs = e;
	unlock_engine();
}

void emu_engine_cq_resized(struct emu_cq *c)
{
	lock_engine();
	struct eng_cq *e = c->engine;
	if (e) {
		eng_cq_zip_flush(e); /* a held block goes to the old ring, where libmlx5's copy finds it */
		/* As the HCA does (see engine_hooks.h): a RESIZE_CQ CQE at the old ring's producer index. libmlx5's
		 * mlx5_cq_resize_copy_cqes(), run when the command returns, copies the unpolled CQEs before it into
		 * the new ring, each one index later, and steps its consumer index over it: the next CQE goes to
		 * pi + 1 of the new ring. Without it libmlx5 copies nothing and the unpolled completions are lost. */
		/* the slot written below was freed before the driver stored this index */
		uint32_t ci = udma_device_load_dbrec(&e->dbrec[0]) & 0xffffff;
		if (!e->overrun && c->old_buf && c->old_cqe_cnt && ((e->pi - ci) & 0xffffff) < c->old_cqe_cnt) {
			uint8_t *entry = (uint8_t *)(uintptr_t)c->old_buf +
					 (size_t)(e->pi & (c->old_cqe_cnt - 1)) * c->old_cqe_size;
			uint8_t owner = (e->pi & c->old_cqe_cnt) ? 1 : 0;
			/* only op_own is written (libmlx5 reads nothing else of a RESIZE_CQ CQE); release as for every CQE */
			udma_device_publish_cqe(eng_cqe_op_own(entry, c->old_cqe_size),
						(uint8_t)(MLX5_CQE_RESIZE_CQ << 4 | owner));
			e->pi = (e->pi + 1) & 0xffffff;
		}
		cq_load(e, c);
		e->overrun = 0;
	}
	unlock_engine();
}

uint32_t emu_engine_cq_unpolled(struct emu_cq *c)
{
	uint32_t n = 0;
	lock_engine();
	struct eng_cq *e = c->engine;
	if (e)
		eng_cq_zip_flush(e);
	if (e && e->dbrec) {
		uint32_t ci = udma_device_load_dbrec(&e->dbrec[0]) & 0xffffff; /* only counted: no slot is reused */
		n = (e->pi - ci) & 0xffffff;
	}
	unlock_engine();
	return n;
}

/* The kernel counts a completion event as reported when the user reads it and drops unread ones when the CQ is
 * destroyed (drivers/infiniband/core/uverbs_main.c). With a pipe for a channel, take this CQ's unread events back
 * out (keeping other CQs' events in order), so that ibv_destroy_cq's wait for acked == reported terminates. */
static void reclaim_unread_events(struct emu_cq *c)
{
	if (c->comp_fd < 0 || !c->ctx)
		return;
	int rfd = -1;
	emu_lock();
	for (struct emu_comp_channel *ch = c->ctx->channels; ch; ch = ch->next)
		if (ch->write_fd == c->comp_fd)
			rfd = ch->read_fd;
	emu_unlock();
	int avail = 0;
	if (rfd < 0 || ioctl(rfd, FIONREAD, &avail) != 0 || avail < (int)sizeof(struct ib_uverbs_comp_event_desc))
		return;
	struct ib_uverbs_comp_event_desc ev[64];
	int n = avail / (int)sizeof ev[0];
	if (n > 64)
		n = 64;
	ssize_t got = read(rfd, ev, (size_t)n * sizeof ev[0]);
	if (got <= 0)
		return;
	n = (int)(got / (ssize_t)sizeof ev[0]);
	uint32_t dropped = 0;
	for (int i = 0; i < n; i++) {
		if (ev[i].cq_handle == c->user_handle) {
			dropped++;
		} else if (write(c->comp_fd, &ev[i], sizeof ev[i]) != (ssize_t)sizeof ev[i]) {
			emu_log("engine: completion event lost while destroying CQ 0x%x", c->cqn);
		}
	}
	emu_lock();
	c->comp_events -= dropped;
	emu_unlock();
}

void emu_engine_cq_destroying(struct emu_cq *c)
{
	reclaim_unread_events(c);
	lock_engine();
	eng_take_pending_doorbells_locked();
	struct eng_cq *e = c->engine;
	for (struct eng_cq **pp = &G.cqs; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	for (struct eng_qp *qp = G.qps; qp; qp = qp->next) {
		if (qp->scq == e)
			qp->scq = NULL;
		if (qp->rcq == e)
			qp->rcq = NULL;
	}
	c->engine = NULL;
	unlock_engine();
	free(e);
}

void emu_engine_srq_created(struct emu_srq *s)
{
	struct eng_srq *e = calloc(1, sizeof *e);
	if (!e)
		return;
	e->s = s;
	e->buf = (uint8_t *)(uintptr_t)s->buf;
	e->cnt = s->wqe_cnt;
	e->shift = s->wqe_shift;
	e->dbrec = (volatile uint32_t *)(uintptr_t)s->dbrec;
	e->limit = s->srq_limit;
	lock_engine();
	s->engine = e;
	unlock_engine();
}

void emu_engine_srq_modified(struct emu_srq *s)
{
	lock_engine();
	struct eng_srq *e = s->engine;
	if (e) {
		emu_lock();
		e->limit = s->srq_limit;
		emu_unlock();
	}
	unlock_engine();
}

void emu_engine_srq_destroying(struct emu_srq *s)
{
	lock_engine();
	struct eng_srq *e = s->engine;
	for (struct eng_qp *qp = G.qps; qp; qp = qp->next)
		if (qp->srq == e)
			qp->srq = NULL;
	s->engine = NULL;
	unlock_engine();
	free(e);
}

void emu_engine_mr_registered(struct emu_mr *m)
{
	struct eng_mr *e = calloc(1, sizeof *e);
	if (!e)
		return;
	e->m = m;
	e->key = m->lkey;
	e->addr = m->addr;
	e->len = m->length;
	e->access = m->access;
	e->pd = m->pd;
	lock_engine();
	m->engine = e;
	e->next = G.mr_hash[eng_mr_bucket(e->key)];
	G.mr_hash[eng_mr_bucket(e->key)] = e;
	eng_direct_publish_mr(e);
	unlock_engine();
}

void emu_engine_mr_deregistering(struct emu_mr *m)
{
	lock_engine();
	struct eng_mr *e = m->engine;
	if (e) {
		eng_direct_withdraw_mr(e); /* returns once no peer is placing through it */
		for (struct eng_mr **pp = &G.mr_hash[eng_mr_bucket(e->key)]; *pp; pp = &(*pp)->next)
			if (*pp == e) {
				*pp = e->next;
				break;
			}
	}
	m->engine = NULL;
	unlock_engine();
	free(e);
}

static uint32_t mtu_bytes(int mtu_enum) { return mtu_enum >= 1 && mtu_enum <= 5 ? 128u << mtu_enum : 4096u; }

void emu_engine_qp_created(struct emu_qp *q)
{
	struct eng_qp *qp = calloc(1, sizeof *qp);
	if (!qp)
		return;
	qp->q = q;
	qp->qpn = q->qpn;
	qp->type = q->type;
	if (q->type == EMU_QPT_XRC_INI || q->type == EMU_QPT_XRC_TGT) { /* both run as RC (eng_xrc.c) */
		qp->xrc = q->type;
		qp->xrcdn = q->xrcdn;
		qp->type = EMU_QPT_RC;
	}
	qp->state = q->state;
	qp->pd = q->pd;
	qp->uidx = q->uidx;
	qp->sq = (uint8_t *)(uintptr_t)q->sq_buf;
	qp->sq_cnt = q->sq_wqe_cnt;
	qp->rq = (uint8_t *)(uintptr_t)q->rq_buf;
	qp->rq_cnt = q->rq_wqe_cnt;
	qp->rq_shift = q->rq_wqe_shift;
	qp->dbrec = (volatile uint32_t *)(uintptr_t)q->dbrec;
	eng_dc_qp_created(qp);
	qp->infl = calloc(qp->sq_cnt ? qp->sq_cnt : 1, sizeof *qp->infl);
	qp->sq_shadow = qp->sq_cnt ? malloc((size_t)qp->sq_cnt * ENG_WQE_BB) : NULL;
	if (!qp->infl || (qp->sq_cnt && !qp->sq_shadow)) {
		free(qp->infl);
		free(qp->sq_shadow);
		free(qp);
		return;
	}
	/* Scatter-to-CQE as the Linux mlx5 driver configures it (drivers/infiniband/hw/mlx5/qp.c,
	 * configure_responder_scat_cqe / configure_requester_scat_cqe): responder whenever the QP asks for it;
	 * requester only for RC with every WR signaled (or MLX5_QP_FLAG_ALLOW_SCATTER_CQE). */
	int want = G.scatter && (q->create_flags & MLX5_QP_FLAG_SCATTER_CQE) != 0;
	int allow = (q->create_flags & MLX5_QP_FLAG_ALLOW_SCATTER_CQE) != 0;
	qp->scat_res = want && q->rq_wqe_cnt + (q->srq ? 1 : 0) > 0;
	qp->scat_req = want && q->type == EMU_QPT_RC && (q->sq_sig_all || allow);
	lock_engine();
	qp->scq = q->send_cq ? q->send_cq->engine : NULL;
	qp->rcq = q->recv_cq ? q->recv_cq->engine : NULL;
	qp->srq = q->srq ? q->srq->engine : NULL;
	q->engine = qp;
	/* QPs past the context's low-latency registers share one (the kernel's alloc_bfreg): mark both, so that a
	 * doorbell another QP wrote over is recovered (eng_doorbell.c, take_shared_records) */
	qp->reg_next = qp;
	for (struct eng_qp *o = G.qps; o; o = o->next)
		if (o->q && eng_same_bfreg(o->q, q)) {
			if (qp->reg_next == qp) { /* join the register's ring (all of them are on it) */
				qp->reg_next = o->reg_next;
				o->reg_next = qp;
			}
			o->reg_shared = qp->reg_shared = 1;
		}
	qp->next = G.qps;
	G.qps = qp;
	unsigned pb = eng_qp_page_bucket(q->ctx, q->uar_page);
	qp->page_next = G.qp_by_page[pb];
	G.qp_by_page[pb] = qp;
	eng_qp_mark_busy(qp);
	G.qp_by_slot[qp->qpn & (EMU_REG_QP_SLOTS - 1)] = qp;
	if (qp->type == EMU_QPT_RAW)
		eng_eth_qp_count(1);
	engine_start_locked();
	unlock_engine();
}

void emu_engine_qp_modified(struct emu_qp *q, int old_state, int attr_mask)
{
	(void)attr_mask;
	lock_engine();
	struct eng_qp *qp = q->engine;
	if (!qp) {
		unlock_engine();
		return;
	}
	emu_lock();
	int st = q->state;
	qp->dest_qpn = q->dest_qp_num;
	qp->qkey = q->qkey;
	qp->access = q->qp_access_flags;
	qp->timeout = q->timeout;
	qp->retry_cnt = q->retry_cnt;
	qp->rnr_retry = q->rnr_retry;
	qp->min_rnr_timer = q->min_rnr_timer;
	/* mlx5_ib __mlx5_ib_modify_qp: log_sra_max / log_rra_max = fls(n - 1), so the HCA's windows are n rounded
	 * up to a power of two, and 1 when n is 0 (the field stays 0) */
	qp->rd_atomic_win = q->max_rd_atomic > 1 ? 1u << (32 - __builtin_clz((unsigned)q->max_rd_atomic - 1)) : 1;
	qp->rd_atomic_res = q->max_dest_rd_atomic > 1 ? 1u << (32 - __builtin_clz((unsigned)q->max_dest_rd_atomic - 1)) : 1;
	qp->mtu = mtu_bytes(q->path_mtu);
	qp->path = q->path;
	uint32_t rq_psn = q->rq_psn, sq_psn = q->sq_psn;
	emu_unlock();
	if (st != EMU_QPS_RTR && st != EMU_QPS_RTS)
		eng_qp_flush_ack(qp);
	if (st == EMU_QPS_ERR && qp->state != EMU_QPS_ERR)
		qp->last_wqe_due = eng_qp_takes_srq_wqes(qp); /* raised by the flush (eng_flush_qp) */
	if (st != EMU_QPS_ERR && qp->last_wqe_due) {
		/* moved on (to RESET) before an engine pass flushed it: nothing is in progress any more */
		qp->last_wqe_due = 0;
		eng_qp_event(qp, IBV_EVENT_QP_LAST_WQE_REACHED);
	}
	if (st == EMU_QPS_RESET) {
		eng_qp_reset_state(qp);
	}
	if (st == EMU_QPS_RTR && old_state != EMU_QPS_RTR) {
		qp->epsn = rq_psn & ENG_PSN_MASK;
		qp->peer = NULL;
	}
	if (st == EMU_QPS_RTS && old_state != EMU_QPS_RTS) {
		qp->next_psn = sq_psn & ENG_PSN_MASK;
		qp->retries_left = qp->retry_cnt;
		qp->rnr_left = qp->rnr_retry;
		qp->last_progress = eng_now_ns();
	}
	qp->state = st;
	eng_qp_mark_busy(qp); /* its next pass decides whether it has work in the new state */
	eng_direct_publish_qp(qp);
	unlock_engine();
}

/*
 * Sends that need no answer and whose doorbell rang are on the wire within microseconds on hardware, long before a
 * destroy command can follow, so the QP's owner may destroy it right after posting: mckey's sender posts
 * unsignaled sends and exits, and raw_ethernet_burst_lat's server posts its last pongs and destroys the QP without
 * waiting for their completions (its client then waited forever, about one run in eight). Transmit them now. A
 * frame may have to wait for room in the peer's inbox (the peer holds frames for a QP without receives), so keep
 * going, with the lock given up between tries, for at most ENG_DESTROY_DRAIN_NS.
 */
#define ENG_DESTROY_DRAIN_NS (2000ull * 1000 * 1000)

static void drain_unanswered_sends(struct eng_qp *qp)
{
	uint64_t start = eng_now_ns();
	for (;;) {
		eng_qp_progress(qp, eng_now_ns());
		if (qp->sq_next == qp->sq_pi || qp->state != EMU_QPS_RTS || eng_now_ns() - start > ENG_DESTROY_DRAIN_NS)
			return;
		unlock_engine();
		struct timespec pause = { 0, 50 * 1000 };
		nanosleep(&pause, NULL);
		lock_engine();
	}
}

void emu_engine_qp_destroying(struct emu_qp *q)
{
	lock_engine();
	eng_take_pending_doorbells_locked();
	struct eng_qp *qp = q->engine;
	if (qp && (qp->type == EMU_QPT_UD || qp->type == EMU_QPT_UC || qp->type == EMU_QPT_RAW))
		drain_unanswered_sends(qp);
	if (qp && emu_log_enabled) /* the record is only logged: its acquire order protects nothing here */
		emu_log("engine: QP 0x%06x destroyed: doorbell record %u, taken %u, executed %u", qp->qpn,
			udma_device_load_dbrec(&qp->dbrec[1]) & 0xffff, qp->sq_pi & 0xffff, qp->sq_next & 0xffff);
	if (qp) {
		/* The application may have seen the data of the last message already (RDMA WRITE lands in memory
		 * before the coalesced ACK leaves); hardware would have acknowledged it, so do that now. */
		eng_qp_flush_ack(qp);
		eng_direct_withdraw_qp(qp);
		for (struct eng_qp *o = qp->reg_next; o != qp; o = o->reg_next)
			if (o->reg_next == qp) { /* leave the register's ring */
				o->reg_next = qp->reg_next;
				break;
			}
		eng_qp_list_del(&G.busy, qp, &qp->busy_link);
		eng_qp_list_del(&G.acking, qp, &qp->ack_link);
		for (struct eng_qp **pp = &G.qp_by_page[eng_qp_page_bucket(q->ctx, q->uar_page)]; *pp;
		     pp = &(*pp)->page_next)
			if (*pp == qp) {
				*pp = qp->page_next;
				break;
			}
		for (struct eng_qp **pp = &G.qps; *pp; pp = &(*pp)->next)
			if (*pp == qp) {
				*pp = qp->next;
				break;
			}
		if (G.qp_by_slot[qp->qpn & (EMU_REG_QP_SLOTS - 1)] == qp)
			G.qp_by_slot[qp->qpn & (EMU_REG_QP_SLOTS - 1)] = NULL;
		if (qp->type == EMU_QPT_RAW) {
			eng_eth_qp_destroying(qp);
			eng_eth_qp_count(-1);
		}
		eng_dc_qp_destroying(qp);
	}
	q->engine = NULL;
	unlock_engine();
	if (qp) {
		free(qp->infl);
		free(qp->sq_shadow);
		free(qp);
	}
}
