/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_eth.c - raw packet QPs and the Ethernet fabric.
 *
 * Send: a raw WQE (ctrl, Ethernet segment, data or inline segments; eng_wqe.c) becomes a frame: the inline headers
 * of the Ethernet segment, then the gathered data; an 802.1Q tag when the segment asks for VLAN insertion; IPv4
 * header and TCP/UDP checksums when cs_flags asks (eng_frame.c); LSO cuts an MLX5_OPCODE_TSO WQE into mss-sized
 * TCP segments, each with its own IP length/ID, TCP sequence number and checksums, as ConnectX does.
 *
 * Fabric: one switch joins every emulated port of every process on the fabric. A frame is put into the inbox of
 * every live engine that has raw QPs (registry procs[].engine_word[0] = its raw QP count), this process
 * included. Delivery is all-or-nothing per frame: if any inbox is full the WQE waits (the switch has no buffer
 * to lose frames in). Each receiving engine decides per port (device): a unicast frame to the MAC of another
 * emulated port does not reach this one; broadcast, multicast, the port's own MAC and unknown unicast (flooded)
 * do, the sender's own port included (the NIC's internal loopback).
 *
 * Steering (per receiving port, mlx5_ib fs.c semantics): SNIFFER rules get a copy of everything the port sends or
 * receives; NORMAL rules are looked at from priority 0 up, every matching rule of the first priority with a match
 * gets a copy (a drop rule gets none) and the search stops unless all of them are DONT_TRAP; when no NORMAL rule
 * trapped the frame, MC_DEFAULT (multicast destination) and ALL_DEFAULT rules get it. A QP gets one copy per
 * frame from the NORMAL/default rules. A target QP without a posted receive holds the frame (and its inbox) for up to
 * MLX5EMU_ETH_HOLD_MS (emu_eth_hold_ns, default 200 ms), like a pause frame, then the frame is dropped for that QP, as
 * a NIC drops on a full RQ. So does a target whose receive CQ has no free slot by the consumer index in its doorbell
 * record (a driver may store that index just after it reposts the WQE, eng_wq.c eng_rss_ready says who and why);
 * after the hold the frame is delivered and the CQ overruns, as on a ConnectX.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "emu_counters.h"
#include "eth_knobs.h"
#include "engine/eng_frame.h"
#include "engine/eng_internal.h"
#include "engine/eng_pcap.h"
#include "engine/eng_wq.h"

#define ENG_ETH_MAX_FRAME (256u * 1024 + 512)   /* largest LSO payload (max_tso) plus headers */
#define ENG_ETH_MAX_SEGS  256
#define ENG_ETH_MIN_FRAME 60                    /* shorter frames are padded on the wire */
#define PF_BLOCK_MC_LB    64                    /* PKT_ETH: the sender asked IBV_QP_CREATE_BLOCK_SELF_MCAST_LB */

struct eng_flow {
	struct eng_flow *next;
	struct emu_flow *f;
	struct eng_qp *qp;
	int dev;
	struct emu_flow_rule r;
};

static struct eng_flow *g_flows;
static int g_raw_qps;
static uint8_t g_frame[ENG_ETH_MAX_FRAME + 4];
static uint8_t g_seg[ENG_ETH_MAX_FRAME];
static struct eng_peer g_inboxes[EMU_REG_MAX_PROCS]; /* other engines' inboxes, one per registry slot at most */
static uint64_t g_pace_next[EMU_REG_QP_SLOTS]; /* packet pacing: earliest time of a QP's next frame (ns) */
static struct pkt *g_held;         /* frame at the head of the inbox waiting for receives ... */
static uint64_t g_held_until;      /* ... until then (eng_now_ns), when it is dropped for them */

/* ---------------- hooks and bookkeeping ---------------- */

void eng_eth_qp_count(int delta)
{
	g_raw_qps += delta;
	struct emu_registry *r = emu_registry();
	int slot = emu_reg_self_slot();
	if (r && slot >= 0)
		atomic_store(&r->procs[slot].engine_word[0], (uint64_t)(g_raw_qps > 0 ? g_raw_qps : 0));
}

void emu_engine_flow_created(struct emu_flow *f)
{
	struct eng_flow *e = calloc(1, sizeof(*e));
	if (!e)
		return;
	pthread_mutex_lock(&G.lock);
	e->f = f;
	e->qp = f->qp ? f->qp->engine : NULL;
	e->dev = f->dev_index;
	e->r = f->rule;
	f->engine = e;
	/* keep the list in creation order: equal rules deliver in the order they were made */
	struct eng_flow **pp = &g_flows;
	while (*pp)
		pp = &(*pp)->next;
	*pp = e;
	pthread_mutex_unlock(&G.lock);
}

void emu_engine_flow_destroying(struct emu_flow *f)
{
	pthread_mutex_lock(&G.lock);
	struct eng_flow *e = f->engine;
	for (struct eng_flow **pp = &g_flows; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	f->engine = NULL;
	pthread_mutex_unlock(&G.lock);
	free(e);
}

void eng_eth_qp_destroying(struct eng_qp *qp)
{
	g_pace_next[qp->qpn & (EMU_REG_QP_SLOTS - 1)] = 0;
	for (struct eng_flow *e = g_flows; e; e = e->next)
		if (e->qp == qp)
			e->qp = NULL;
}

/* ---------------- the fabric ---------------- */

/* The inbox with id of the process in registry slot (pid). Not evicted while frames are being put (fabric_send
 * holds up to one per slot): entries go in eng_eth_reap_inboxes only. */
static struct eng_inbox *inbox_of(int pid, int slot, uint32_t id)
{
	if (pid == G.pid) /* a slot of this process's image before an exec is nobody's now */
		return slot == emu_reg_self_slot() ? G.inbox : NULL;
	int freeslot;
	struct eng_inbox *ib = eng_peer_cached(g_inboxes, EMU_REG_MAX_PROCS, pid, id, &freeslot);
	if (ib || freeslot < 0)
		return ib;
	ib = eng_inbox_open(G.fabric, pid, id);
	if (ib)
		g_inboxes[freeslot] = (struct eng_peer){ .pid = pid, .id = id, .slot = slot, .ib = ib };
	return ib;
}

void eng_eth_forget(void)
{
	/* The flows are the parent's, and point to its QPs: steered to here, a frame would land in the child's copies
	 * of the parent's buffers and CQs, memory the child may use for anything by now. The inboxes stay mapped: they
	 * are still the other processes' live ones. */
	for (struct eng_flow *e = g_flows, *n; e; e = n) {
		n = e->next;
		free(e);
	}
	g_flows = NULL;
	g_raw_qps = 0;
	g_held = NULL;
	memset(g_pace_next, 0, sizeof g_pace_next);
}

void eng_eth_reap_inboxes(void)
{
	for (int i = 0; i < EMU_REG_MAX_PROCS; i++)
		if (g_inboxes[i].ib && eng_peer_stale(&g_inboxes[i])) {
			eng_inbox_unmap(g_inboxes[i].ib);
			memset(&g_inboxes[i], 0, sizeof g_inboxes[i]);
		}
}

/* Put n frames into every receiving inbox, all or nothing. Returns 0 when some inbox is full. */
static int port_receives(int dev, const uint8_t *dmac);
static int is_mcast(const uint8_t *mac);

/* The port counters of n frames that left port dev (emu_counters.h): sent there, and received by every port the
 * switch forwards each to, the sender's own included (the NIC's internal loopback delivers it there too). Counted
 * once per frame by the sending process; the receiving processes do not count again. */
static void count_frames(int dev, uint8_t *const *frames, const uint32_t *lens, int n)
{
	uint32_t down = emu_ports_down();
	for (int k = 0; k < n; k++) {
		int mc = is_mcast(frames[k]);
		emu_port_counter_add(dev, EMU_CNT_PORT_XMIT_PACKETS, 1);
		emu_port_counter_add(dev, EMU_CNT_PORT_XMIT_DATA, lens[k]);
		emu_port_counter_add(dev, mc ? EMU_CNT_MULTICAST_XMIT_PACKETS : EMU_CNT_UNICAST_XMIT_PACKETS, 1);
		for (int d = 0; d < emu_num_devices(); d++) {
			if ((down >> d & 1) || !port_receives(d, frames[k]))
				continue;
			emu_port_counter_add(d, EMU_CNT_PORT_RCV_PACKETS, 1);
			emu_port_counter_add(d, EMU_CNT_PORT_RCV_DATA, lens[k]);
			emu_port_counter_add(d, mc ? EMU_CNT_MULTICAST_RCV_PACKETS : EMU_CNT_UNICAST_RCV_PACKETS, 1);
		}
	}
}

static int fabric_send(struct eng_qp *qp, uint8_t *const *frames, const uint32_t *lens, int n)
{
	struct emu_registry *r = emu_registry();
	if (!r)
		return 1;
	int dev = qp->q && qp->q->ctx ? qp->q->ctx->dev_index : 0;
	if (__builtin_expect(emu_ports_down() >> dev & 1, 0))
		return 1; /* the port is down: the frames are lost (port.c) */
	struct eng_inbox *tgt[EMU_REG_MAX_PROCS];
	int nt = 0;
	for (int i = 0; i < EMU_REG_MAX_PROCS; i++) {
		int pid = atomic_load(&r->procs[i].pid);
		uint32_t id = atomic_load(&r->procs[i].inbox);
		if (!pid || !atomic_load(&r->procs[i].alive) || !id || !atomic_load(&r->procs[i].engine_word[0]))
			continue;
		if (pid != G.pid && !eng_pid_alive(pid))
			continue;
		struct eng_inbox *ib = inbox_of(pid, i, id);
		if (ib)
			tgt[nt++] = ib;
	}
	static uint64_t toks[EMU_REG_MAX_PROCS][ENG_ETH_MAX_SEGS];
	static struct pkt *pk[EMU_REG_MAX_PROCS][ENG_ETH_MAX_SEGS];
	for (int t = 0; t < nt; t++) {
		for (int k = 0; k < n; k++) {
			pk[t][k] = eng_ring_reserve(&tgt[t]->req, sizeof(struct pkt) + lens[k], &toks[t][k]);
			if (!pk[t][k]) {
				for (int u = 0; u <= t; u++)
					for (int j = 0; j < (u == t ? k : n); j++)
						eng_ring_cancel(&tgt[u]->req, toks[u][j]);
				return 0;
			}
		}
	}
	int block = qp->q && (qp->q->ibv_create_flags & IBV_QP_CREATE_BLOCK_SELF_MCAST_LB);
	for (int k = 0; k < n; k++)
		eng_pcap_write(frames[k], lens[k]); /* the tap sees each frame once, as it leaves the port */
	for (int t = 0; t < nt; t++)
		for (int k = 0; k < n; k++) {
			struct pkt *p = pk[t][k];
			memset(p, 0, sizeof(*p));
			p->type = PKT_ETH;
			p->qp_type = EMU_QPT_RAW;
			p->src_qpn = qp->qpn;
			p->slid = (uint16_t)(qp->q && qp->q->ctx ? qp->q->ctx->dev_index : 0); /* sending port */
			p->flags = block ? PF_BLOCK_MC_LB : 0;
			p->imm = (uint32_t)G.pid;
			p->len = p->msg_len = lens[k];
			p->eth.tap_id = eng_pcap_tap_id(); /* receivers on the same tap do not record it again */
			memcpy(p->data, frames[k], lens[k]);
			eng_ring_commit(&tgt[t]->req, toks[t][k]);
		}
	count_frames(dev, frames, lens, n);
	for (int t = 0; t < nt; t++)
		eng_inbox_kick(tgt[t]); /* wake receivers that sleep on their inbox futex */
	if (emu_log_enabled)
		emu_log("engine: QP 0x%06x put %d frame(s) into %d inbox(es) of processes with raw QPs", qp->qpn, n, nt);
	return 1;
}

/* ---------------- send ---------------- */

/* Packet pacing (IBV_QP_RATE_LIMIT, kbps): a QP's frames leave no faster than its rate; the WQE waits until its
 * time has come. */
static int paced_send(struct eng_qp *qp, uint8_t *const *frames, const uint32_t *lens, int n)
{
	/* relaxed: one word with nothing behind it, atomic only because MODIFY_QP may store it meanwhile */
	uint32_t kbps = qp->q ? __atomic_load_n(&qp->q->rate_limit, __ATOMIC_RELAXED) : 0;
	uint64_t *next = &g_pace_next[qp->qpn & (EMU_REG_QP_SLOTS - 1)];
	uint64_t now = kbps ? eng_now_ns() : 0;
	if (kbps && now < *next)
		return 0;
	if (!fabric_send(qp, frames, lens, n))
		return 0;
	if (emu_log_enabled)
		emu_log("engine: QP 0x%06x sent %d frame(s), first %u bytes to %02x:%02x:%02x:%02x:%02x:%02x", qp->qpn, n,
			lens[0], frames[0][0], frames[0][1], frames[0][2], frames[0][3], frames[0][4], frames[0][5]);
	if (kbps) {
		uint64_t bytes = 0;
		for (int k = 0; k < n; k++)
			bytes += lens[k];
		*next = (*next > now ? *next : now) + bytes * 8000000ull / kbps; /* kbps = bits per ms */
	}
	return 1;
}

static void gather_payload(struct eng_qp *qp, const struct eng_wqe *w, uint8_t *dst)
{
	for (uint32_t i = 0; i < w->nsge; i++) {
		const uint8_t *src = w->is_inline ? qp->cur_buf + w->sge[i].addr
						  : (const uint8_t *)(uintptr_t)w->sge[i].addr;
		memcpy(dst, src, w->sge[i].len);
		dst += w->sge[i].len;
	}
}

/* Header offsets of an LSO template: IP at l3, TCP at l4, payload at hlen. 0 if it is not Ethernet/IP/TCP. */
static int lso_layout(const uint8_t *h, size_t hlen, size_t *l3, size_t *l4, int *v)
{
	struct emu_frame_info fi;
	if (emu_frame_parse(h, hlen, &fi) != 0 || !fi.ip_version || fi.ip_proto != 6)
		return 0;
	*l3 = fi.l3_off;
	*l4 = fi.l3_off + fi.l3_len;
	*v = fi.ip_version;
	if (*l4 + 20 > hlen || *l4 + (size_t)(h[*l4 + 12] >> 4) * 4 != hlen)
		return 0;
	return 1;
}

int eng_eth_send(struct eng_qp *qp, uint8_t *synd)
{
	const struct eng_wqe *w = &qp->cur;
	uint32_t idx = qp->sq_next & 0xffff;
	uint64_t hdr = w->eth_hdr_len, total = hdr + w->total_len;
	uint32_t limit = emu_eth_mtu() + 18; /* MTU + Ethernet header + one VLAN tag */
	*synd = 0;
	if (!w->vlan_insert && hdr < emu_eth_min_inline_bytes()) {
		/* the device would read headers that are not in the WQE */
		eng_strict(qp->qpn, idx, "Ethernet segment inlines %u header bytes, less than the %u the device reported "
			   "(eth_min_inline)", (unsigned)hdr, emu_eth_min_inline_bytes());
		*synd = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		return 1;
	}
	if (total > ENG_ETH_MAX_FRAME) {
		eng_strict(qp->qpn, idx, "frame of %llu bytes is longer than the port MTU %u plus the L2 header",
			   (unsigned long long)total, emu_eth_mtu());
		return 1; /* not transmitted */
	}
	uint8_t *f = g_frame;
	size_t off = 0;
	memcpy(f, qp->cur_buf + w->eth_hdr_off, hdr);
	gather_payload(qp, w, f + hdr);
	size_t len = (size_t)total;
	if (w->vlan_insert) {
		if (len < 12) {
			*synd = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
			return 1;
		}
		memmove(f + 16, f + 12, len - 12);
		eng_put_be16(f + 12, 0x8100);
		eng_put_be16(f + 14, w->vlan_tci);
		len += 4;
	}
	(void)off;
	int l3 = (w->cs_flags & MLX5_ETH_WQE_L3_CSUM) != 0, l4 = (w->cs_flags & MLX5_ETH_WQE_L4_CSUM) != 0;

	if (w->opcode == MLX5_OPCODE_TSO) {
		size_t hl = w->vlan_insert ? hdr + 4 : hdr, ip, tcp;
		int v;
		if (!lso_layout(f, hl, &ip, &tcp, &v)) {
			eng_strict(qp->qpn, idx, "LSO WQE whose inline headers are not Ethernet/IP/TCP");
			*synd = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
			return 1;
		}
		size_t pay = len - hl, mss = w->mss;
		int n = pay ? (int)((pay + mss - 1) / mss) : 1;
		if (n > ENG_ETH_MAX_SEGS || hl + mss > limit) {
			eng_strict(qp->qpn, idx, "LSO segment of %zu bytes is longer than the port MTU %u plus the L2 header",
				   hl + mss, emu_eth_mtu());
			return 1;
		}
		uint8_t *frames[ENG_ETH_MAX_SEGS];
		uint32_t lens[ENG_ETH_MAX_SEGS];
		uint32_t seq0 = eng_be32(f + tcp + 4);
		uint16_t id0 = v == 4 ? eng_be16(f + ip + 4) : 0;
		uint8_t flags0 = f[tcp + 13];
		uint8_t *out = g_seg;
		for (int k = 0; k < n; k++) {
			size_t o = (size_t)k * mss, m = pay - o < mss ? pay - o : mss;
			memcpy(out, f, hl);
			memcpy(out + hl, f + hl + o, m);
			size_t l = hl + m;
			if (v == 4) {
				eng_put_be16(out + ip + 2, (uint16_t)(l - ip));
				eng_put_be16(out + ip + 4, (uint16_t)(id0 + k));
			} else {
				eng_put_be16(out + ip + 4, (uint16_t)(l - ip - 40));
			}
			eng_put_be32(out + tcp + 4, seq0 + (uint32_t)o);
			uint8_t fl = flags0;
			if (k != n - 1)
				fl &= (uint8_t)~0x09; /* FIN and PSH only on the last segment */
			if (k != 0)
				fl &= (uint8_t)~0x80; /* CWR only on the first */
			out[tcp + 13] = fl;
			eng_frame_csum(out, l, 1, 1);
			if (l < ENG_ETH_MIN_FRAME) {
				memset(out + l, 0, ENG_ETH_MIN_FRAME - l);
				l = ENG_ETH_MIN_FRAME;
			}
			frames[k] = out;
			lens[k] = (uint32_t)l;
			out += l;
		}
		return paced_send(qp, frames, lens, n);
	}

	if ((l3 || l4) && eng_frame_csum(f, len, l3, l4) != 0)
		eng_strict(qp->qpn, idx, "cs_flags 0x%02x on a frame without an IP header", w->cs_flags);
	if (len > limit) {
		eng_strict(qp->qpn, idx, "frame of %zu bytes is longer than the port MTU %u plus the L2 header", len,
			   emu_eth_mtu());
		return 1; /* the port does not transmit it; the WQE completes */
	}
	if (len < ENG_ETH_MIN_FRAME) {
		memset(f + len, 0, ENG_ETH_MIN_FRAME - len);
		len = ENG_ETH_MIN_FRAME;
	}
	uint8_t *frames[1] = { f };
	uint32_t lens[1] = { (uint32_t)len };
	return paced_send(qp, frames, lens, 1);
}

/* ---------------- receive ---------------- */

static int is_mcast(const uint8_t *mac) { return mac[0] & 1; }

/* Does a frame with this destination reach port dev? (switch forwarding: see the top of the file) */
static int port_receives(int dev, const uint8_t *dmac)
{
	if (is_mcast(dmac))
		return 1;
	const struct emu_port_info *me = emu_port_info(dev);
	if (me && memcmp(me->mac, dmac, 6) == 0)
		return 1;
	for (int i = 0; i < emu_num_devices(); i++) {
		const struct emu_port_info *pi = emu_port_info(i);
		if (pi && i != dev && memcmp(pi->mac, dmac, 6) == 0)
			return 0; /* another port's MAC: the switch sends it there only */
	}
	return 1; /* unknown unicast is flooded */
}

struct target {
	struct eng_qp *qp;
	uint32_t tag;
};

/* Append qp unless it is already among t[from..n) (from = n: no check). */
static int add_target(struct target *t, int n, int max, struct eng_qp *qp, uint32_t tag, int from)
{
	if (!qp || n >= max)
		return n;
	for (int i = from; i < n; i++)
		if (t[i].qp == qp)
			return n;
	t[n].qp = qp;
	t[n].tag = tag;
	return n + 1;
}

static int collect(const struct pkt *p, const struct emu_frame_info *fi, struct target *t, int max)
{
	int n = 0, devs[EMU_MAX_DEVICES], nd = 0;
	for (struct eng_flow *e = g_flows; e; e = e->next) {
		int seen = 0;
		for (int i = 0; i < nd; i++)
			seen |= devs[i] == e->dev;
		if (!seen && nd < EMU_MAX_DEVICES)
			devs[nd++] = e->dev;
	}
	uint32_t down = emu_ports_down();
	for (int d = 0; d < nd; d++) {
		if (down >> devs[d] & 1)
			continue; /* a down port receives nothing, nor do its sniffers see anything */
		int dev = devs[d], rx = port_receives(dev, fi->dmac), tx = p->slid == dev;
		/* sniffers: every frame the port sends or receives */
		for (struct eng_flow *e = g_flows; e; e = e->next)
			if (e->dev == dev && e->r.type == EMU_FLOW_SNIFFER && (rx || tx))
				n = add_target(t, n, max, e->qp, e->r.has_tag ? e->r.tag : 0, n);
		if (!rx)
			continue;
		int first = n, trapped = 0;
		for (int prio = 0; prio <= 15 && !trapped; prio++) {
			for (struct eng_flow *e = g_flows; e; e = e->next) {
				if (e->dev != dev || e->r.type != EMU_FLOW_NORMAL || e->r.priority != prio ||
				    !emu_flow_match(&e->r, fi))
					continue;
				if (!e->r.dont_trap)
					trapped = 1;
				if (!e->r.drop)
					n = add_target(t, n, max, e->qp, e->r.has_tag ? e->r.tag : 0, first);
			}
		}
		if (trapped)
			continue;
		for (struct eng_flow *e = g_flows; e; e = e->next)
			if (e->dev == dev && ((e->r.type == EMU_FLOW_MC_DEFAULT && is_mcast(fi->dmac)) ||
					      e->r.type == EMU_FLOW_ALL_DEFAULT))
				n = add_target(t, n, max, e->qp, 0, first);
	}
	return n;
}

static int qp_receiving(const struct eng_qp *qp)
{
	return qp->state == EMU_QPS_RTR || qp->state == EMU_QPS_RTS;
}

/* What qp still lacks to take frame p (eng_wq.h): a receive WQE, or a free slot in its receive CQ for the CQE. */
static enum eng_rx_wait rx_wait(struct eng_qp *qp, const struct pkt *p)
{
	if (qp->q && qp->q->rss)
		return eng_rss_ready(qp, p->data, p->len); /* eng_wq.c */
	if (!qp_receiving(qp))
		return ENG_RX_READY; /* not receiving: nothing to wait for */
	if (!eng_rq_avail(qp))
		return ENG_RX_NO_WQE;
	return eng_cq_has_room(qp->rcq, 1) ? ENG_RX_READY : ENG_RX_NO_CQE;
}

static void rx_err(struct eng_qp *qp, uint32_t wqe_counter, uint8_t synd)
{
	struct eng_cqe_info ci = { .opcode = MLX5_CQE_RESP_ERR, .syndrome = synd, .wqe_counter = (uint16_t)wqe_counter,
				   .qpn = qp->qpn, .srqn_uidx = qp->uidx };
	eng_write_cqe(qp->rcq, &ci, 1);
	eng_qp_set_error(qp);
}

static void deliver(struct eng_qp *qp, const uint8_t *f, size_t len, const struct emu_frame_info *fi, uint32_t tag)
{
	int strip = fi->has_vlan && qp->q && (qp->q->ibv_create_flags & IBV_QP_CREATE_CVLAN_STRIPPING);
	size_t out = strip ? len - 4 : len;
	struct eng_rx rx;
	memset(&rx, 0, offsetof(struct eng_rx, sge));
	eng_rq_take(qp, &rx);
	struct emu_pd *pd = qp->srq && qp->srq->s ? qp->srq->s->pd : qp->pd;
	for (uint32_t i = 0; i < rx.nsge; i++)
		if (rx.sge[i].len && !eng_mr_check(rx.sge[i].lkey, pd, rx.sge[i].addr, rx.sge[i].len, IBV_ACCESS_LOCAL_WRITE)) {
			rx_err(qp, rx.wqe_counter, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
			return;
		}
	if (out > rx.cap) {
		rx_err(qp, rx.wqe_counter, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
		return;
	}
	/* scatter the frame (without the 802.1Q tag when stripping) */
	size_t pos = 0;
	for (uint32_t i = 0; i < rx.nsge && pos < out; i++) {
		uint8_t *dst = (uint8_t *)(uintptr_t)rx.sge[i].addr;
		size_t take = rx.sge[i].len < out - pos ? rx.sge[i].len : out - pos;
		for (size_t k = 0; k < take; k++, pos++) {
			size_t src = strip && pos >= 12 ? pos + 4 : pos;
			dst[k] = f[src];
		}
	}
	int v1 = qp->q && qp->q->ctx && qp->q->ctx->cqe_version;
	struct eng_cqe_info ci = {
		.opcode = MLX5_CQE_RESP_SEND, .wqe_counter = (uint16_t)rx.wqe_counter, .byte_cnt = (uint32_t)out,
		.srqn_uidx = qp->uidx,
		/* sop_drop_qpn of a receive CQE carries the flow tag (flow_table_metadata; libmlx5
		 * mlx5_cq_read_flow_tag); under cqe_version 0 libmlx5 finds the QP by it instead */
		.qpn = v1 ? tag & 0xffffff : qp->qpn,
		.hds_ip_ext = (uint8_t)(ENG_CQE_L2_OK | eng_frame_rx_ok(f, fi)),
		.l4_hdr_type_etc = (uint8_t)(eng_frame_hdr_types(fi) | (strip ? 1 : 0)),
		.vlan_info = strip ? fi->vlan_tci : 0,
		.check_sum = eng_frame_rx_csum(f, len, fi),
	};
	eng_write_cqe(qp->rcq, &ci, 0);
	if (emu_log_enabled)
		emu_log("engine: frame of %zu bytes to QP 0x%06x (RQ WQE %u, flow tag 0x%x)", out, qp->qpn, rx.wqe_counter, tag);
}

int eng_eth_rx(struct pkt *p)
{
	struct emu_frame_info fi;
	if (!g_flows || emu_frame_parse(p->data, p->len, &fi) != 0)
		return 1;
	struct target t[64];
	int n = collect(p, &fi, t, 64);
	/* the sender's own QP never gets its multicast back when it asked so */
	if ((p->flags & PF_BLOCK_MC_LB) && is_mcast(fi.dmac) && (int)p->imm == G.pid)
		for (int i = 0; i < n; i++)
			if (t[i].qp->qpn == p->src_qpn)
				t[i--] = t[--n];
	/* hold the frame while a receiving QP has no receive posted or no free CQ slot (bounded, see the top of the
	 * file). The clock is read before the receive queues are looked at: time this thread spends descheduled after
	 * the look must not count as time the receiver had no receive posted (on a loaded machine that drops frames
	 * whose receive was reposted meanwhile). */
	uint64_t now = eng_now_ns();
	int missing = 0;
	for (int i = 0; i < n; i++)
		if (rx_wait(t[i].qp, p) != ENG_RX_READY)
			missing = 1;
	if (missing) {
		if (g_held != p) {
			g_held = p;
			g_held_until = now + emu_eth_hold_ns(); /* the knob is read once per held frame */
		}
		if (now < g_held_until)
			return 0;
		if (emu_log_enabled)
			emu_log("engine: Ethernet frame from QP 0x%06x: the hold ended, receiving QPs without a posted receive "
				"drop it, those with a full CQ overrun it", p->src_qpn);
	}
	g_held = NULL;
	for (int i = 0; i < n; i++)
		if (missing && rx_wait(t[i].qp, p) == ENG_RX_NO_WQE)
			/* out_of_buffer: the frame found no receive WQE on this QP (or its WQ), after the hold */
			emu_port_counter_add(t[i].qp->q && t[i].qp->q->ctx ? t[i].qp->q->ctx->dev_index : 0,
					     EMU_CNT_OUT_OF_BUFFER, 1);
	for (int i = 0; i < n; i++)
		if (t[i].qp->q && t[i].qp->q->rss)
			eng_rss_deliver(t[i].qp, p->data, p->len, &fi, t[i].tag); /* RSS QP: hash, then its WQ */
		else if (qp_receiving(t[i].qp) && eng_rq_avail(t[i].qp))
			deliver(t[i].qp, p->data, p->len, &fi, t[i].tag);
	return 1;
}
