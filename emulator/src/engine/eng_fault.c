/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_fault.c - fault injection on the fabric: MLX5EMU_FAULTS (`mlx5emu --faults SPEC`, syntax in eng_fault.h)
 * drops, duplicates, reorders or delays the RC/UC/UD packets this process's engine sends, so that users can test
 * how their application and the transport recover from what a real fabric does now and then.
 *
 * Every packet the transport puts on a wire passes eng_xmit(). Faults are decided by the sender, per packet, from
 * a draw that depends only on the seed, the sending QPN and how many packets that QP sent before: the same
 * program on a fresh fabric makes the same decisions (timing may still differ between runs, and a retransmission
 * is a new packet with a new draw). Held packets (delay, reorder) are copies kept by the sending engine; they are
 * re-sent to the destination QP's current inbox when due (a destination gone by then loses them, as a wire
 * would). Raw Ethernet frames are not affected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_counters.h"
#include "engine/eng_fault.h"
#include "engine/eng_internal.h"

#define REORDER_HOLD_NS 1000000ull /* a packet held for reordering goes after the next one, or after 1 ms */
#define MAX_HELD        4096

struct held {
	struct held *next;
	uint64_t due;
	uint32_t dst_qpn;
	int resp, reorder;
	const struct eng_inbox *ib;   /* where it was going (compared, never dereferenced) */
	size_t len;
	uint8_t bytes[];
};

static struct eng_fault_spec F;
static struct held *held_head, **held_tail = &held_head;
static int nheld;
/* packets seen by the filter, dropped, duplicated, reordered, delayed (mlx5emu_fault_stats) */
static _Atomic uint64_t stats[5];

__attribute__((visibility("default"))) void mlx5emu_fault_stats(uint64_t out[5])
{
	for (int i = 0; i < 5; i++)
		out[i] = stats[i];
}

__attribute__((constructor)) static void fault_init(void)
{
	const char *s = getenv("MLX5EMU_FAULTS");
	if (!s || !*s)
		return;
	char err[256];
	if (eng_fault_parse(s, &F, err, sizeof err) != 0) {
		/* A user who asked for faults must not get a run without them because of a typo. */
		fprintf(stderr, "mlx5emu[%d]: %s\n", (int)getpid(), err);
		_exit(2);
	}
}

__attribute__((destructor)) static void fault_fini(void)
{
	if (F.active && (emu_log_enabled || getenv("MLX5EMU_FAULTS_REPORT")))
		fprintf(stderr, "mlx5emu[%d]: faults: %lu packets matched, %lu dropped, %lu duplicated, %lu reordered, "
			"%lu delayed\n", (int)getpid(), (unsigned long)stats[0], (unsigned long)stats[1],
			(unsigned long)stats[2], (unsigned long)stats[3], (unsigned long)stats[4]);
	/* Packets still held stay allocated (and reachable): the engine thread may still be running while destructors
	 * of other files run, and it owns the list. */
}

void eng_fault_forget(void)
{
	/* fork child: the held packets are the parent's to send, and the counts its engine's */
	for (struct held *h = held_head, *n; h; h = n) {
		n = h->next;
		free(h);
	}
	held_head = NULL;
	held_tail = &held_head;
	nheld = 0;
	for (int i = 0; i < 5; i++)
		stats[i] = 0;
}

/* The device that owns qpn, from the fabric registry (seqlock protocol of emu_objects.h); -1 if unknown. */
static int qpn_device(uint32_t qpn)
{
	struct emu_registry *r = emu_registry();
	if (!r)
		return -1;
	struct emu_reg_qp *e = &r->qps[qpn & (EMU_REG_QP_SLOTS - 1)];
	for (int spins = 0; spins < 1000; spins++) {
		uint32_t s1 = atomic_load(&e->seq);
		if (s1 & 1)
			continue;
		uint32_t q = e->qpn;
		int dev = (int)e->dev_index;
		seq_read_retry_barrier(); /* else the fields could be read after the check and torn by a writer */
		if (atomic_load(&e->seq) == s1)
			return q == qpn ? dev : -1;
	}
	return -1;
}

static int matches(const struct eng_qp *qp, const struct pkt *p, int resp)
{
	if ((F.dir == ENG_FAULT_DIR_REQ && resp) || (F.dir == ENG_FAULT_DIR_RESP && !resp))
		return 0;
	if (F.nqpn) {
		int hit = 0;
		for (int i = 0; i < F.nqpn; i++)
			hit |= F.qpn[i] == p->src_qpn || F.qpn[i] == p->dst_qpn;
		if (!hit)
			return 0;
	}
	if (F.dev >= 0) {
		int src = qp->q && qp->q->ctx ? qp->q->ctx->dev_index : -1;
		if (src != F.dev && qpn_device(p->dst_qpn) != F.dev)
			return 0;
	}
	return 1;
}

static void hold(struct eng_inbox *ib, int resp, const struct pkt *p, size_t len, uint64_t due, int reorder)
{
	struct held *h = malloc(sizeof *h + len);
	if (!h)
		return; /* no memory: the packet is lost */
	h->next = NULL;
	h->due = due;
	h->dst_qpn = p->dst_qpn;
	h->resp = resp;
	h->reorder = reorder;
	h->ib = ib;
	h->len = len;
	memcpy(h->bytes, p, len);
	*held_tail = h;
	held_tail = &h->next;
	nheld++;
}

/* Put a held packet on the wire now; 0 if the destination's ring is full (keep it). */
static int release(struct held *h)
{
	struct eng_inbox *ib = eng_peer_inbox(h->dst_qpn, NULL, NULL);
	if (!ib)
		return 1; /* gone: lost */
	struct eng_ring *r = h->resp ? &ib->resp : &ib->req;
	uint64_t tok;
	void *d = eng_ring_reserve(r, h->len, &tok);
	if (!d)
		return 0;
	memcpy(d, h->bytes, h->len);
	eng_ring_commit(r, tok);
	eng_inbox_kick(ib);
	return 1;
}

/* Release entries that are due (now == 0: only reordered ones bound for ib's ring resp). */
static int pump(uint64_t now, const struct eng_inbox *ib, int resp)
{
	int work = 0;
	for (struct held **pp = &held_head; *pp;) {
		struct held *h = *pp;
		int due = ib ? (h->reorder && h->ib == ib && h->resp == resp) : h->due <= now;
		if (!due || !release(h)) {
			pp = &h->next;
			continue;
		}
		*pp = h->next;
		if (held_tail == &h->next)
			held_tail = pp;
		nheld--;
		free(h);
		work = 1;
	}
	return work;
}

int eng_fault_pump(void)
{
	/* Only releases count as work: an engine that spun while packets wait would take a core for the whole
	 * delay. The idle engine's sleep step (0.5 ms at most) bounds how late a delayed packet leaves. Without
	 * held packets (always, when no faults are configured) this is one load: no clock read per engine pass. */
	return held_head ? pump(eng_now_ns(), NULL, 0) : 0;
}

/* A port that is down (mlx5emu_port_set) neither sends nor receives: the packet leaves no trace, as on a pulled
 * cable; RC then retries until RETRY_EXC_ERR, UD and UC lose it. */
static int link_down(const struct eng_qp *qp, const struct pkt *p, uint32_t down)
{
	int src = qp->q && qp->q->ctx ? qp->q->ctx->dev_index : -1, dst = qpn_device(p->dst_qpn);
	return (src >= 0 && (down >> src & 1)) || (dst >= 0 && (down >> dst & 1));
}

void eng_xmit(struct eng_qp *qp, struct eng_inbox *ib, struct eng_ring *r, uint64_t tok, struct pkt *p, size_t len)
{
	int resp = r == &ib->resp;
	int what = ENG_FAULT_PASS;
	uint32_t down = emu_ports_down();
	if (__builtin_expect(down != 0, 0) && link_down(qp, p, down)) {
		if (emu_log_enabled)
			emu_log("engine: QP 0x%06x -> 0x%06x type %d PSN 0x%06x lost: port down", p->src_qpn, p->dst_qpn,
				p->type, p->psn);
		eng_ring_cancel(r, tok);
		return;
	}
	/* The port counters (emu_counters.h) of a transport packet: sent by the QP's port, whatever the fault below does
	 * to it on the wire; the packet's payload counts as its data (its IB/RoCE headers are not modelled). */
	int src = qp->q && qp->q->ctx ? qp->q->ctx->dev_index : 0;
	emu_port_counter_add(src, EMU_CNT_PORT_XMIT_PACKETS, 1);
	emu_port_counter_add(src, EMU_CNT_PORT_XMIT_DATA, p->len);
	emu_port_counter_add(src, EMU_CNT_UNICAST_XMIT_PACKETS, 1);
	if (F.active && matches(qp, p, resp)) {
		stats[0]++;
		what = eng_fault_decide(&F, eng_fault_draw(F.seed, qp->qpn, qp->fault_seq++));
		if ((what == ENG_FAULT_REORDER || what == ENG_FAULT_DELAY) && nheld >= MAX_HELD)
			what = ENG_FAULT_PASS;
	}
	if (what != ENG_FAULT_PASS) {
		stats[what]++;
		if (emu_log_enabled)
			emu_log("engine: fault: QP 0x%06x -> 0x%06x type %d PSN 0x%06x %s", p->src_qpn, p->dst_qpn, p->type,
				p->psn, what == ENG_FAULT_DROP ? "dropped" : what == ENG_FAULT_DUP ? "duplicated"
					: what == ENG_FAULT_REORDER ? "held for reordering" : "delayed");
	}
	if (what == ENG_FAULT_REORDER || what == ENG_FAULT_DELAY) {
		uint64_t now = eng_now_ns();
		hold(ib, resp, p, len, now + (what == ENG_FAULT_DELAY ? F.delay_ns : REORDER_HOLD_NS),
		     what == ENG_FAULT_REORDER);
		eng_ring_cancel(r, tok);
		return;
	}
	if (what == ENG_FAULT_DROP) {
		eng_ring_cancel(r, tok);
		return;
	}
	uint64_t tok2 = 0;
	void *copy = what == ENG_FAULT_DUP ? eng_ring_reserve(r, len, &tok2) : NULL;
	int dst = qpn_device(p->dst_qpn);
	for (int n = copy ? 2 : 1; n > 0 && dst >= 0; n--) {
		emu_port_counter_add(dst, EMU_CNT_PORT_RCV_PACKETS, 1);
		emu_port_counter_add(dst, EMU_CNT_PORT_RCV_DATA, p->len);
		emu_port_counter_add(dst, EMU_CNT_UNICAST_RCV_PACKETS, 1);
	}
	if (copy)
		memcpy(copy, p, len);
	eng_ring_commit(r, tok);
	if (copy)
		eng_ring_commit(r, tok2);
	if (held_head)
		pump(0, ib, resp); /* a packet held for reordering goes right after this one */
	/* A packet whose data the requester placed itself (eng_direct.c) has nothing urgent for the responder's
	 * engine, which takes it whenever it runs next: waking it is exactly the cost placement avoids. Unless its
	 * ring fills up, or a CPU is idle: woken there, that engine stays awake while packets keep coming (it spins
	 * while a core is free), and the next WRITEs take the wire without a system call each (ib_write_bw). */
	if (!(p->flags & PF_PLACED) || eng_ring_used(r) > ENG_RING_BYTES / 4 ||
	    (!eng_direct_always() && eng_core_spare(eng_now_ns())))
		eng_inbox_kick(ib);
}

int eng_fault_on(void)
{
	return F.active;
}
