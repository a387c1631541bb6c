/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_direct.c - direct placement: a requester puts an RDMA WRITE's data into the responder's memory itself
 * (layer 3 of src/engine/LAYERS).
 *
 * Why. A real responder NIC places a WRITE without any CPU of the responder's host. Here the responder's "NIC" is
 * its engine thread, which must be woken and scheduled for every packet when the responding program spins on its
 * buffer and never calls the library (ib_write_lat, two JVMs running `mlx5j perf write_lat`). In the virtual
 * machine this project is tested on, each such wake-up and context switch costs 50 to 150 us (docs/history.md,
 * "The emulated device under perftest"), so a round trip took 130 to 190 us. The requester's pass, already running on a
 * CPU, can do the placement instead: one process_vm_writev(2) of the payload (about 2 us here) and no thread of the
 * responder.
 *
 * What it does. For an RC RDMA WRITE (no immediate: that consumes a receive WQE) of one packet, when the QP has
 * nothing unacknowledged in flight (so every earlier packet of it was executed by the responder, and nothing this
 * QP sent can land after this one), the requester checks what the responder published in its inbox (the QP: RTR or
 * RTS, remote write allowed, its PD; the MR: key, PD, bounds, remote write access, exactly the responder's
 * eng_mr_check), writes the payload into the responder's address space, and still sends the packet, flagged
 * PF_PLACED: the responder's engine takes it in order whenever it next runs, advances its expected PSN and does
 * not copy again (nor acknowledge it). The requester takes the placement as the packet's ACK (eng_req.c), so the
 * work request completes in the same pass, as it would once the ACK came back.
 * Anything else (a key that does not check, a QP not published, a failing system call) takes the normal path,
 * where the responder's engine decides and NAKs as before.
 *
 * Not used, when the requester's process or the responder's runs with it: fault injection (drops and reordering
 * must hit the packet that carries the data, and the responder's ACK that a placement replaces), a pcap tap (the
 * capture would show the write when the responder takes it, and no ACK), MLX5EMU_DIRECT=0; nor for a peer in the
 * same process (its engine runs in this process anyway).
 *
 * A stopped responder (SIGSTOP) still gets its WRITEs placed, as a host's NIC keeps answering while its process is
 * stopped; everything its engine must execute (SENDs, READs, atomics, WRITEs that take the wire) waits for it, and
 * its requesters time out as before (emulator/INTERNALS.md, "Behaviour (what the tests check)"). Checking the
 * responder's state per WRITE (a read of /proc/<pid>/stat) was measured and dropped: 2.5 us per WRITE here,
 * ib_write_bw -s 8 0.26 -> 0.15 M msg/s. A dead responder gets nothing (process_vm_writev fails) and its requesters time out.
 *
 * Semantics kept: no write lands after ibv_dereg_mr of the target MR returned (the users count, eng_wire.h), a
 * requester never completes a WRITE the responder's checks would refuse, and WRITEs and everything else of one QP
 * land in order. Difference from the normal path: the responder's expected PSN advances later (when its engine takes
 * the packet); nothing it answers depends on that before it does.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>
#include "engine/eng_internal.h"
#include "engine/eng_xport.h"

#define PROBES 16
/* How long a withdrawal waits for producers still placing through an MR (each holds it for one system call); a
 * producer killed in the middle must not hang ibv_dereg_mr forever. */
#define WITHDRAW_WAIT_NS 100000000ull

static int enabled = -1;
static _Atomic unsigned long placements;

/* For tests (test/engine/t_direct.c): WRITE packets this process placed in a peer's memory. */
__attribute__((visibility("default"))) unsigned long mlx5emu_direct_placements(void)
{
	return atomic_load(&placements);
}

/* 0: off; 1: on (the default); 2: MLX5EMU_DIRECT=always, whenever the checks allow it (tests that count
 * placements: the default leaves it to the wire while the responder's engine is awake, a matter of timing). */
static int direct_mode(void)
{
	if (enabled < 0) {
		const char *e = getenv("MLX5EMU_DIRECT");
		const char *pcap = getenv("MLX5EMU_PCAP");
		enabled = (e && e[0] == '0') || (pcap && *pcap) ? 0 : e && strcmp(e, "always") == 0 ? 2 : 1;
	}
	return eng_fault_on() ? 0 : enabled;
}

int eng_direct_always(void)
{
	return direct_mode() == 2;
}

static unsigned slot_of(uint32_t id)
{
	return (id ^ (id >> 10)) % ENG_DIRECT_SLOTS;
}

/* ---- the owner's side (under G.lock) ---- */

static struct eng_direct_qp *find_qp_slot(struct eng_inbox *ib, uint32_t qpn, int want_free)
{
	for (unsigned i = 0, s = slot_of(qpn); i < PROBES; i++, s = (s + 1) % ENG_DIRECT_SLOTS) {
		uint64_t tag = atomic_load_explicit(&ib->direct_qp[s].tag, memory_order_acquire);
		if (tag == (ENG_DIRECT_VALID | qpn) || (want_free && tag == 0))
			return &ib->direct_qp[s];
	}
	return NULL;
}

void eng_direct_publish_qp(struct eng_qp *qp)
{
	struct eng_inbox *ib = G.inbox;
	if (!ib)
		return;
	/* A responder whose own settings turn placement off (fault injection, a pcap tap, MLX5EMU_DIRECT=0) publishes
	 * nothing: a placed WRITE is never answered, so the ACKs its faults would drop or delay and its capture would
	 * show would not exist, whatever the requester's process runs with. */
	int ok = qp->type == EMU_QPT_RC && !qp->xrc && !qp->dc_type && (qp->state == EMU_QPS_RTR || qp->state == EMU_QPS_RTS) &&
		 (qp->access & IBV_ACCESS_REMOTE_WRITE) && qp->pd && direct_mode() != 0;
	struct eng_direct_qp *d = find_qp_slot(ib, qp->qpn, 0);
	if (d && (!ok || d->pdn != qp->pd->pdn)) {
		atomic_store_explicit(&d->tag, 0, memory_order_seq_cst);
		d = NULL;
	}
	if (!ok || d)
		return;
	d = find_qp_slot(ib, qp->qpn, 1);
	if (!d)
		return; /* table full: this QP takes the normal path */
	d->pdn = qp->pd->pdn;
	atomic_store_explicit(&d->tag, ENG_DIRECT_VALID | qp->qpn, memory_order_release);
}

void eng_direct_withdraw_qp(struct eng_qp *qp)
{
	struct eng_direct_qp *d = G.inbox ? find_qp_slot(G.inbox, qp->qpn, 0) : NULL;
	if (d)
		atomic_store_explicit(&d->tag, 0, memory_order_seq_cst);
}

static struct eng_direct_mr *find_mr_slot(struct eng_inbox *ib, uint32_t key, int want_free)
{
	for (unsigned i = 0, s = slot_of(key >> 8); i < PROBES; i++, s = (s + 1) % ENG_DIRECT_SLOTS) {
		uint64_t tag = atomic_load_explicit(&ib->direct_mr[s].tag, memory_order_acquire);
		if (tag == (ENG_DIRECT_VALID | key) || (want_free && tag == 0))
			return &ib->direct_mr[s];
	}
	return NULL;
}

static void wait_unused(struct eng_direct_mr *d)
{
	uint64_t start = 0;
	while (atomic_load_explicit(&d->users, memory_order_seq_cst)) {
		uint64_t now = eng_now_ns();
		if (!start)
			start = now;
		else if (now - start > WITHDRAW_WAIT_NS)
			break;
		sched_yield();
	}
}

void eng_direct_publish_mr(const struct eng_mr *m)
{
	struct eng_inbox *ib = G.inbox;
	if (!ib || !(m->access & IBV_ACCESS_REMOTE_WRITE) || !m->pd || (m->access & IBV_ACCESS_ON_DEMAND))
		return;
	struct eng_direct_mr *d = find_mr_slot(ib, m->key, 1);
	if (!d)
		return;
	wait_unused(d); /* a producer may still be looking at the slot's previous MR */
	d->access = m->access;
	d->addr = m->addr;
	d->len = m->len;
	d->pdn = m->pd->pdn;
	atomic_store_explicit(&d->tag, ENG_DIRECT_VALID | m->key, memory_order_release);
}

void eng_direct_withdraw_mr(const struct eng_mr *m)
{
	struct eng_direct_mr *d = G.inbox ? find_mr_slot(G.inbox, m->key, 0) : NULL;
	if (!d)
		return;
	atomic_store_explicit(&d->tag, 0, memory_order_seq_cst);
	wait_unused(d);
}

void eng_direct_withdraw_all(void)
{
	struct eng_inbox *ib = G.inbox;
	if (!ib)
		return;
	for (unsigned s = 0; s < ENG_DIRECT_SLOTS; s++) {
		atomic_store_explicit(&ib->direct_qp[s].tag, 0, memory_order_seq_cst);
		if (atomic_load_explicit(&ib->direct_mr[s].tag, memory_order_relaxed)) {
			atomic_store_explicit(&ib->direct_mr[s].tag, 0, memory_order_seq_cst);
			wait_unused(&ib->direct_mr[s]);
		}
	}
}

/* ---- the requester's side ---- */

/* How many WRITEs peers have placed into this process for qp (0 if qp takes none). */
static uint32_t placed_into(struct eng_qp *qp)
{
	struct eng_direct_qp *mine = G.inbox ? find_qp_slot(G.inbox, qp->qpn, 0) : NULL;
	return mine ? atomic_load_explicit(&mine->placed, memory_order_acquire) : 0;
}

void eng_direct_placed(struct eng_qp *qp)
{
	qp->placed_unanswered = 1;
	qp->placed_into_seen = placed_into(qp);
}

int eng_direct_wanted(struct eng_qp *qp, struct eng_inbox *peer, const struct eng_wqe *w)
{
	/* not for DC: the DCT checks each packet's DC access key and keeps a PSN per DCI (eng_dc.c) */
	if (qp->type != EMU_QPT_RC || qp->dc_type || w->opcode != MLX5_OPCODE_RDMA_WRITE || !w->total_len ||
	    w->total_len > ENG_CHUNK || !peer || peer->pid == G.pid || qp->direct_off)
		return 0;
	int mode = direct_mode();
	if (!mode || emu_ports_down()) /* a down port drops packets in eng_xmit; placement would bypass that */
		return 0;
	/* Placement is for request and response: the responder answers each WRITE (or some of them) with a request of
	 * its own, and its engine would have to be woken for every one. A stream of WRITEs that the peer never answers
	 * goes through the rings after the first, where one wake-up of the responder's engine serves all the packets
	 * that arrive until it sleeps again: placing each cost a system call, and ib_write_bw -s 8 ran at 0.27-0.52 M
	 * msg/s placed against 0.57-0.88 through the rings. */
	if (mode == 1 && qp->placed_unanswered && placed_into(qp) == qp->placed_into_seen)
		return 0;
	/* An awake responder engine takes the packet within microseconds without a system call; placing costs one
	 * (process_vm_writev, 1.8 us on the 2-core test VM): ib_write_bw -s 8 gave 0.21 to 0.27 M msg/s placed and
	 * 0.54 to 0.77 through the rings. Placement is for a responder whose engine would first have to be woken. */
	uint64_t now = eng_pass_ns(), awake = atomic_load_explicit(&peer->awake_ns, memory_order_relaxed);
	if (mode == 1 && awake && (awake > now || now - awake < ENG_AWAKE_FRESH_NS))
		return 0; /* (later than the start of this pass: it is awake now) */
	for (uint32_t i = qp->infl_tail; i != qp->infl_head; i++)
		if (!qp->infl[i & (qp->sq_cnt - 1)].done)
			return 0;
	return 1;
}

int eng_direct_place(struct eng_qp *qp, struct eng_inbox *peer, const struct pkt *p)
{
	struct eng_direct_qp *dq = find_qp_slot(peer, p->dst_qpn, 0);
	if (!dq)
		return 0;
	uint32_t qp_pdn = dq->pdn;
	if (atomic_load_explicit(&dq->tag, memory_order_acquire) != (ENG_DIRECT_VALID | p->dst_qpn))
		return 0; /* withdrawn while we read it */
	struct eng_direct_mr *d = NULL;
	for (unsigned i = 0, s = slot_of(p->rkey >> 8); i < PROBES; i++, s = (s + 1) % ENG_DIRECT_SLOTS) {
		struct eng_direct_mr *c = &peer->direct_mr[s];
		atomic_fetch_add_explicit(&c->users, 1, memory_order_seq_cst);
		if (atomic_load_explicit(&c->tag, memory_order_seq_cst) == (ENG_DIRECT_VALID | p->rkey)) {
			d = c;
			break;
		}
		atomic_fetch_sub_explicit(&c->users, 1, memory_order_release);
	}
	if (!d)
		return 0;
	int placed = 0;
	uint64_t len = p->len;
	if (d->pdn == qp_pdn && (d->access & IBV_ACCESS_REMOTE_WRITE) && p->raddr >= d->addr && len <= d->len &&
	    p->raddr - d->addr <= d->len - len) {
		atomic_fetch_add_explicit(&dq->placed, 1, memory_order_release);
		struct iovec local = { (void *)p->data, len };
		struct iovec remote = { (void *)(uintptr_t)p->raddr, len };
		ssize_t n = process_vm_writev(peer->pid, &local, 1, &remote, 1, 0);
		placed = n == (ssize_t)len;
		if (placed)
			atomic_fetch_add_explicit(&placements, 1, memory_order_relaxed);
		if (n < 0 && (errno == EPERM || errno == ENOSYS)) {
			qp->direct_off = 1; /* not allowed to write into that process: the normal path from now on */
			if (emu_log_enabled)
				emu_log("engine: QP 0x%06x: direct placement into pid %d refused (%s)", qp->qpn, peer->pid,
					strerror(errno));
		}
	}
	atomic_fetch_sub_explicit(&d->users, 1, memory_order_release);
	return placed;
}
