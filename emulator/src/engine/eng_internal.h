/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_internal.h - state of the device engine shared by its translation units (not part of any API).
 *
 * Threading: one engine thread per process (eng_core.c) does all device work while holding G.lock; every hook
 * (engine_hooks.h) takes G.lock too, so engine state (struct eng_qp/eng_cq/eng_srq/eng_mr) is only ever touched
 * under G.lock. Lock order: G.lock, then K's emu_lock.
 */
#ifndef MLX5EMU_ENG_INTERNAL_H
#define MLX5EMU_ENG_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "emu_barrier.h"
#include "emu_objects.h"
#include "engine/eng_bf.h"
#include "emu_profile.h"
#include "engine/eng_cqe.h"
#include "engine/eng_wire.h"
#include "engine/eng_wqe.h"

#define ENG_MAX_RSGE   64
#define ENG_CHUNK      (64u << 10)   /* largest payload per wire packet */
#define ENG_PSN_MASK   0xffffffu
/* How long a running peer may consume nothing of what is queued for it before its requesters' timeouts count
 * as retries (a stopped or dead peer counts at once): a starved or wedged engine must not hang its peers. */
#define ENG_STALL_GRACE_NS 2000000000ull
/* How long after a thread last lent the engine a pass its open doorbell pages stay open (eng_core.c). */
#define ENG_LEND_OPEN_NS 1000000ull
/* How often a pass scans every UAR page, the write-protected ones included (eng_doorbell.c). */
#define ENG_FULL_SCAN_NS 50000ull
#define ENG_ATOMIC_HIST 16          /* saved atomic results per responder QP (max_dest_rd_atomic) */

/* ---- wire packets ---- */
enum { PKT_SEND = 1, PKT_WRITE, PKT_READ_REQ, PKT_ATOMIC_REQ, PKT_READ_RESP, PKT_ATOMIC_RESP, PKT_ACK,
       PKT_ETH /* an Ethernet frame on the fabric (eng_eth.c): data = the frame, len = its length */ };
enum { PF_FIRST = 1, PF_LAST = 2, PF_IMM = 4, PF_INV = 8, PF_SOLICITED = 16, PF_GRH = 32,
       PF_PLACED = 64, /* an RDMA WRITE whose requester placed the data already (eng_direct.c) */
       PF_ACKREQ = 128 /* the requester waits on this packet's ACK (a signaled WQE's last packet, or a full window) */ };
enum { ACK_OK = 0, NAK_RNR, NAK_REM_ACCESS, NAK_REM_INV_REQ, NAK_REM_OP,
       NAK_PSN_SEQ /* PSN sequence error: psn = the PSN the responder expects */ };

/* The Ethernet/IP addressing of a RoCE packet, as the sending port would put it on the wire (eng_pcap.c). */
struct pkt_eth {
	uint8_t  smac[6], dmac[6];
	uint8_t  sgid[16], dgid[16];  /* GIDs as IPv6 addresses (IPv4-mapped ::ffff:a.b.c.d means IPv4) */
	uint32_t flow_label;
	uint32_t tap_id;              /* the sender's pcap tap (0: it does not tap); a receiver on the same tap skips it */
	uint16_t udp_sport;           /* RoCE v2 UDP source port */
	uint8_t  valid;               /* the sender's port is Ethernet and filled this */
	uint8_t  roce_v2;             /* 1: RoCE v2 (IP/UDP 4791), 0: RoCE v1 (GRH, ethertype 0x8915) */
	uint8_t  tclass, hop_limit;
};

struct pkt {
	uint8_t  type, flags, sl, atomic_size;
	uint8_t  opcode, qp_type, rnr_timer, tclass;
	uint32_t dst_qpn, src_qpn, psn, imm, rkey, msg_len, len, offset, syndrome, qkey, flow_label;
	uint32_t xrc_srqn;     /* XRC requests: the XRCETH, the SRQ at the target that takes the message */
	uint16_t slid;
	uint8_t  hop_limit, pad;
	uint64_t raddr, swap_add, compare, swap_mask, compare_mask;
	uint8_t  sgid[16], dgid[16];
	/* DC (eng_dc.c): a DCI's request (dc 1) carries the DC access key of its WQE's address vector and the number
	 * of the connection it belongs to (the DCI's count of connects), by which the DCT tells a new one */
	uint8_t  dc;
	/* XRC across processes (eng_xrcfwd.c): ENG_XFWD_DELEGATE, a request a TGT QP's engine hands to the engine of
	 * the process that has the SRQ it names, or ENG_XFWD_VERDICT, that engine's answer; both travel in RESP rings
	 * and are followed by a struct eng_xfwd (after data[len]); 0 on the wire */
	uint8_t  xfwd;
	uint8_t  xrc;          /* on an XRC connection (an INI QP's request, a TGT QP's response): XRC opcodes on a wire */
	uint32_t dc_gen;
	uint64_t dc_key;
	struct pkt_eth eth;    /* how the packet looks on an Ethernet wire (pcap tap), filled by the sender */
	uint8_t  data[];
};

/* ---- engine objects ---- */
struct eng_mr {
	struct eng_mr *next;
	struct emu_mr *m;
	uint32_t key;
	uint64_t addr, len;
	uint32_t access;
	struct emu_pd *pd;
};

struct eng_cq {
	struct eng_cq *next;
	struct emu_cq *c;
	uint8_t *buf;
	uint32_t cnt, size;
	volatile uint32_t *dbrec;
	uint32_t pi;            /* CQEs produced (24-bit wrap like the consumer index) */
	uint32_t sol_pi;        /* pi just after the last solicited or error CQE */
	int armed, arm_sol, overrun;
	uint64_t last_ts;       /* timestamp of the last CQE: per-CQ timestamps never decrease */
	/* CQE compression (eng_cq.c; layout in eng_cqe.h): completions held in the open block, not yet visible */
	uint8_t  comp_format;   /* MLX5_IB_CQE_RES_FORMAT_* the CQ was created with, 0 = no compression */
	int      zip_sol;       /* a held completion was solicited */
	uint32_t zip_n;
	struct eng_cqe_info zip_first, zip_last; /* stamped; the first becomes the title */
	uint8_t  zip_mini[EMU_CQE_COMP_MAX_NUM][ENG_MINI_CQE_SIZE];
};

struct eng_srq {
	struct emu_srq *s;
	uint8_t *buf;
	uint32_t cnt, shift;
	volatile uint32_t *dbrec;
	uint32_t consumed;      /* WQEs taken (16-bit compare with the counter) */
	uint16_t head;          /* next WQE index on the device's free list */
	uint32_t limit;
};

/* One WQE the requester started and has not completed yet. */
struct eng_infl {
	uint32_t bb;            /* WQEBB counter of the WQE */
	uint16_t nbb;
	uint8_t  opcode, fm_ce_se, done, syndrome, vendor, scat_len;
	uint32_t psn_first, psn_last, byte_cnt;
	uint32_t rd_next;       /* READ/atomic: the PSN of the next response expected (one per ENG_CHUNK of data) */
	uint8_t  scat[64];      /* scatter-to-CQE payload of a READ/atomic response */
	uint64_t tx_ns;         /* CLOCK_MONOTONIC of the engine pass that sent it, before its packets left */
};

/* A receive in progress on the responder. */
struct eng_rx {
	int active, drop, is_send, scat;
	uint32_t nsge, wqe_counter, msg_len, got;
	uint64_t cap;
	struct eng_sge sge[ENG_MAX_RSGE];
	uint8_t scat_buf[64];
	uint64_t waddr;        /* RDMA WRITE target */
	int need_rwqe;         /* WRITE_IMM consumes a receive WQE at the last packet */
	int held;              /* UC: the receive WQE of a message abandoned after a lost packet, for the next one */
};

/* An intrusive list of QPs (eng_objects.c): an engine pass visits only the QPs on it, not every QP of the process,
 * so that its cost does not grow with the number of idle QPs (a ConnectX schedules only QPs that have work). */
struct eng_qp_link {
	struct eng_qp *next, *prev;
	int on;
};

struct eng_qp_list {
	struct eng_qp *head, *tail;
};

struct eng_qp {
	struct eng_qp *next;
	/* On G.busy while the requester may have work (eng_qp_busy says what that is), on G.acking while an ACK is
	 * pending (a QP may stay on it a pass longer than its ACK: eng_flush_acks takes it off then). */
	struct eng_qp_link busy_link, ack_link;
	struct emu_qp *q;
	uint32_t qpn;
	int type, state;
	struct emu_pd *pd;
	struct eng_cq *scq, *rcq;
	struct eng_srq *srq;
	uint32_t uidx;
	/* XRC (eng_xrc.c): EMU_QPT_XRC_INI or _TGT, else 0. Both run as RC (type): an INI QP's WQEs carry the XRC
	 * segment, a TGT QP takes srq, rcq, pd and uidx from the XRC SRQ each request names (eng_xrc_tgt_bind). */
	int xrc;
	uint32_t xrcdn;
	int scat_req, scat_res;
	/* attributes copied from K on modify */
	uint32_t dest_qpn, qkey, access, mtu;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint32_t rd_atomic_win;    /* outstanding READ/atomic requests allowed (2^log_sra_max) */
	uint32_t rd_atomic_res;    /* responder resources (2^log_rra_max): atomic results kept for replay */
	struct emu_path path;
	/* rings */
	uint8_t *sq;
	uint32_t sq_cnt;
	uint8_t *sq_shadow;         /* the ring as taken, the BlueFlame check's reference (eng_bf.c) */
	uint8_t *rq;
	uint32_t rq_cnt, rq_shift;
	volatile uint32_t *dbrec;
	/* send side */
	uint32_t sq_pi, sq_next, sq_cqe_seen;
	uint64_t rec_stall_since;  /* record ahead of every doorbell since (ns), for the never-rung diagnostic */
	int rec_stall_reported;
	int reg_shared;            /* another QP of this process rings the same BlueFlame register (eng_doorbell.c) */
	struct eng_qp *page_next;  /* the next in G.qp_by_page's bucket of this QP's (context, UAR page) */
	struct eng_qp *reg_next;   /* the ring of the QPs that ring that register (itself alone if none): a doorbell
	                            * sweeps those, not every QP of the process (take_shared_records) */
	int cur_valid, cur_status;
	uint32_t tx_off, tx_psn, next_psn;
	size_t cur_len;
	uint8_t cur_buf[ENG_WQE_MAX_BYTES];
	struct eng_wqe cur;
	struct eng_infl *infl;
	uint32_t infl_head, infl_tail;
	uint64_t last_progress, rnr_until;
	int retries_left, rnr_left;
	uint64_t peer_tail_seen;   /* the peer inbox's request consumer position at the last timeout */
	uint64_t peer_stall_since; /* since when (ns) the peer has consumed nothing of what is queued for it */
	int flushing;
	int last_wqe_due;          /* in ERR with an SRQ: IBV_EVENT_QP_LAST_WQE_REACHED once the flush is done */
	int nak_rewound;           /* rewound after a NAK (or implied NAK) for nak_psn: ignore more until progress */
	uint32_t nak_psn;
	uint64_t fault_seq;        /* packets this QP sent: the index of its fault-injection draw (eng_fault.c) */
	/* receive side */
	uint32_t rq_ci;
	uint32_t epsn;
	uint32_t ack_psn;
	int ack_pending;
	/* ACK coalescing (eng_resp.c): packets acknowledged by the pending ACK, when the first came, and whether one
	 * of them asked for it now (PF_ACKREQ) */
	uint32_t ack_count;
	int ack_now;
	uint64_t ack_since;
	int nak_sent;              /* a NAK (sequence error or RNR) went out for epsn: drop silently until it arrives */
	int uc_drop;               /* UC: a packet of the current message was lost, drop up to the next FIRST */
	uint32_t read_off;         /* READ response resume offset */
	/* Results of the last atomics executed, to answer retransmitted ones without executing them twice. A
	 * requester can have several atomics outstanding (FETCH_ADD then CMP_SWAP) and a retransmission resends all
	 * of them, so one saved result is not enough; hardware keeps one per max_dest_rd_atomic slot. */
	struct eng_atomic_hist { uint32_t psn; uint64_t raw; } atomic_hist[ENG_ATOMIC_HIST];
	uint32_t atomic_hist_n;
	struct eng_rx rx;
	int direct_off;            /* direct placement into the peer refused by the system: not tried again */
	/* A WRITE was placed and no request has come back from the peer since, neither through the rings nor placed
	 * (the peer's placements into this QP numbered placed_into_seen then): eng_direct_wanted. */
	int placed_unanswered;
	uint32_t placed_into_seen;
	/* peer (RC/UC) */
	struct eng_inbox *peer;
	int peer_pid;
	uint16_t peer_lid;
	/* DC (eng_dc.c): EMU_DC_DCI or EMU_DC_DCT; a DCI's current target is dest_qpn with dc_key, its dc_gen-th
	 * connection; a DCT's key and its responder state per connected DCI */
	int dc_type;
	uint64_t dc_key;
	uint32_t dc_gen;
	struct eng_dct *dct;
	/* XRC across processes (eng_xrcfwd.c). A TGT QP: a request for SRQ xfwd_srqn is with the engine of process
	 * xfwd_pid (since xfwd_since), and the requests behind it wait for its verdict. xproxy: this is a stand-in for another
	 * process's TGT QP, which runs the responder on this process's SRQ; the event it would raise is kept in
	 * xproxy_event for the verdict. */
	int xfwd_pending;
	uint32_t xfwd_seq, xfwd_srqn;
	int32_t xfwd_pid;
	uint64_t xfwd_since;
	int xproxy;
	uint32_t xproxy_event;
};

struct eng_uar {
	struct emu_ctx *ctx;
	uint8_t *page;
	/* The check of each BlueFlame half's last copy (eng_bf.c). The engine never writes the halves' data bytes,
	 * because the driver may be writing its next copy there at the same moment. */
	struct eng_bf_check *bf_check;
	/* Doorbells through write faults (eng_dbfault.c): the application's mapping, NULL until mapped. A page is
	 * open (write-enabled) from a fault until the engine, about to sleep, has taken the store that faulted
	 * (landed); then it is protected again. */
	void *user_va;
	/* A second mapping of the page the library never saw (a raw mmap system call, as UCX's memory hooks make),
	 * found in /proc/self/maps and watched too (eng_doorbell.c adopt_mappings); NULL if none. */
	void *alias_va;
	int index;
	int watched, open, landed;
	int aliased;        /* also written through a mapping that is not watched: polled */
	uint64_t open_since;
};

/* A mapping of another process's inbox: the one with id (eng_wire.h) of process pid, registry procs[slot]. */
struct eng_peer {
	int pid;
	uint32_t id;
	int slot;
	struct eng_inbox *ib;
};

#define ENG_MAX_UARS  4096
#define ENG_MAX_PEERS 64

struct eng_global {
	pthread_mutex_t lock;
	pthread_t thr;
	int running;
	_Atomic int stop;
	_Atomic int hook_wait;
	_Atomic uint64_t last_assist; /* when an application thread last ran an engine pass (ns) */
	int pid;
	char fabric[200];
	struct eng_inbox *inbox;
	int nctx;
	struct eng_qp *qps;
	/* the QPs by (context, UAR page) (eng_qp_page_bucket), for the doorbell fault handler: a fault on a page
	 * looks at that page's QPs, not at every QP of the process */
	struct eng_qp *qp_by_page[1024];
	struct eng_qp_list busy, acking; /* the QPs an engine pass visits (struct eng_qp_link) */
	uint64_t passes, pass_visits;    /* engine passes, QPs they visited (mlx5emu_debug_pass_visits, t_many_qps) */
	struct eng_qp *qp_by_slot[EMU_REG_QP_SLOTS];
	struct eng_cq *cqs;
	struct eng_mr *mr_hash[4096];
	struct eng_uar uars[ENG_MAX_UARS];
	int nuars;
	struct eng_peer peers[ENG_MAX_PEERS];
	int strict, scatter, disabled;
	int dbfault;                  /* doorbells arrive through write faults (eng_dbfault.c) */
	int poller_first;             /* a kicked engine leaves packets to a recent poller (MLX5EMU_POLLER_FIRST) */
	int lend_off;                 /* MLX5EMU_LEND=0: mlx5emu_lend does nothing */
	int polled_doorbell;          /* a doorbell came on a page only polling sees (eng_scan_doorbells) */
	uint64_t adopt_ns;            /* when /proc/self/maps was last read for unwatched mappings (eng_doorbell.c) */
	_Atomic int debug_hold;       /* mlx5emu_debug_hold_engine: the engine thread runs no pass */
	uint64_t pass_ns;             /* start of the running (or last) engine pass: eng_pass_ns */
	uint64_t clock_shown_ns;      /* when the pass last advanced the timer page */
	_Atomic unsigned long violations;
};
extern struct eng_global G;

/* eng_base.c (layer 0 of src/engine/LAYERS) */
uint64_t eng_now_ns(void);
/* The time the running engine pass started (caller holds G.lock, inside a pass): per-packet bookkeeping (ACK
 * timers, the responder's awake time) needs no fresher clock than that, and each clock read costs 28 ns on the 2-core
 * test VM, several per packet when every one read it. */
uint64_t eng_pass_ns(void);
/* Threads runnable on the machine now, the caller included (the fourth field of /proc/loadavg), or -1 if unknown;
 * a pread, about 2.5 us on the 2-core test VM. And the number of online CPUs. */
int eng_runnable_threads(void);
long eng_cpus(void);
/* Whether a CPU is idle for a thread woken now (runnable threads, the caller included, fewer than the CPUs);
 * re-read at most every 200 us, so callable per packet. */
int eng_core_spare(uint64_t now);
void eng_strict(uint32_t qpn, uint32_t wqe, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The scheduling every device thread asks for. */
void eng_thread_sched_setup(void);
void eng_thread_sched_polling(void); /* back to nice 0: doorbells arrive on polled pages (eng_base.c) */

/* eng_objects.c (layer 1) */
struct eng_qp *eng_find_qp(uint32_t qpn);
struct eng_cq *eng_find_cq(uint32_t cqn);
static inline unsigned eng_mr_bucket(uint32_t key) { return (key >> 8) & 4095; }
static inline unsigned eng_qp_page_bucket(const void *ctx, uint32_t uar_page)
{
	return (unsigned)(((uintptr_t)ctx >> 4) * 31u + uar_page) & 1023u;
}
/* Do two QPs ring the same BlueFlame register (same context, UAR page and half)? */
static inline int eng_same_bfreg(const struct emu_qp *a, const struct emu_qp *b)
{
	return a->ctx == b->ctx && a->uar_page == b->uar_page && a->bf_offset == b->bf_offset;
}
struct eng_mr *eng_mr_check(uint32_t key, struct emu_pd *pd, uint64_t addr, uint64_t len, uint32_t access);
struct eng_inbox *eng_peer_inbox(uint32_t qpn, int *pid, uint16_t *lid);
/* The live inbox of process pid in registry procs[proc_slot] (mapped and cached), or NULL. */
struct eng_inbox *eng_pid_inbox(int pid, int proc_slot);
int eng_pid_alive(int pid);
int eng_pid_running(int pid); /* alive and not stopped (SIGSTOP, tracing) nor a zombie */
int eng_pid_gone(int pid);    /* dead or a zombie: it will never run again */
void eng_fabric_name(void);   /* G.fabric from MLX5EMU_FABRIC, or the per-user default */
void eng_reap_peers(void);
/* The id of the live inbox of the process in registry procs[slot], if that is still pid; 0 if it has none. */
uint32_t eng_live_inbox_id(int slot, int pid);
/* The same, for process pid in whichever registry slot it has. */
uint32_t eng_inbox_id_of_pid(int pid);
/* cache[0..n)'s mapping of inbox id of pid, or NULL; *freeslot receives an unused entry (-1: none). */
struct eng_inbox *eng_peer_cached(struct eng_peer *cache, int n, int pid, uint32_t id, int *freeslot);
/* Whether a cached mapping is no longer its process's live inbox (the process is gone, or has another one). */
int eng_peer_stale(const struct eng_peer *e);
void eng_qp_set_error(struct eng_qp *qp);
/* Whether qp takes its receive WQEs from SRQs, so that its Error state owes the Last WQE Reached event (IBA
 * 11.6.3.1): a QP created on an SRQ, and every XRC TGT QP, which receives only into its domain's XRC SRQs (IBA
 * Annex A14) even before a request has bound it to one. */
static inline int eng_qp_takes_srq_wqes(const struct eng_qp *qp)
{
	return qp->srq != NULL || qp->xrc == EMU_QPT_XRC_TGT;
}
/* The pass lists (struct eng_qp_link): put a QP on one (at the tail; no-op when on it already), take it off. */
void eng_qp_list_add(struct eng_qp_list *l, struct eng_qp *qp, struct eng_qp_link *k);
void eng_qp_list_del(struct eng_qp_list *l, struct eng_qp *qp, struct eng_qp_link *k);
#define eng_qp_mark_busy(qp) eng_qp_list_add(&G.busy, (qp), &(qp)->busy_link)
/* Whether the requester may have work for an engine pass: a QP in error flushes on every pass (the receive side
 * too), and otherwise it has work only with WQEs taken but not executed, packets in flight, completions to write or
 * an RNR wait. Everything that can make it true puts the QP on G.busy (eng_qp_mark_busy). */
int eng_qp_busy(const struct eng_qp *qp);

/* eng_xrc.c (layer 1): the layout the send WQEs of qp follow (eng_wqe_parse's qp_type), and a TGT QP bound to the
 * XRC SRQ that request p names; 0 when this process has no XRC SRQ of that number in the TGT QP's domain. */
static inline int eng_qp_wqe_type(const struct eng_qp *qp)
{
	if (qp->xrc == EMU_QPT_XRC_INI)
		return ENG_QPT_XRC_SEND;
	return qp->dc_type == EMU_DC_DCI ? ENG_QPT_DCI : qp->type;
}
int eng_xrc_tgt_bind(struct eng_qp *qp, const struct pkt *p);
/* The stand-in of this process for another process's TGT QP tgt_qpn (at most 16, the least recently used
 * replaced; NULL without memory), and forgetting an inbox mapping about to go (drop_peer). */
struct eng_qp *eng_xrc_proxy(uint32_t tgt_qpn);
void eng_xrc_proxy_drop_peer(const struct eng_inbox *ib);
/* eng_cq.c (layer 2) */
void eng_write_cqe(struct eng_cq *cq, const struct eng_cqe_info *ci, int solicited);
void eng_cq_zip_flush(struct eng_cq *cq);  /* publish a CQ's open compression block now */
int eng_cq_zip_flush_all(void);           /* end of an engine pass: publish every open block; 1 if any */
/* Affiliated asynchronous events (emu_async_post): of a QP, a CQ, an SRQ */
void eng_qp_event(struct eng_qp *qp, uint32_t type);
void eng_cq_event(struct eng_cq *cq, uint32_t type);
void eng_srq_event(struct eng_srq *srq, uint32_t type);
void eng_cq_arm_doorbell(const uint8_t *db);
/* Room in cq for n more CQEs after its open compression block, by the consumer index the driver last stored in the
 * CQ doorbell record (1 for no CQ, a failed CQ or one that ignores overruns: nothing there to wait for). */
int eng_cq_has_room(struct eng_cq *cq, uint32_t n);

/* eng_doorbell.c (layer 4); all under G.lock */
/* What a doorbell executes: the send queue up to its doorbell record (rec, rec_ahead WQEBBs past the device). */
void eng_sq_take_record(struct eng_qp *qp, uint32_t idx, uint32_t rec, uint32_t rec_ahead);
/* Take the doorbells of every UAR page that can hold one unseen (full: of every page). Returns whether any. */
int eng_scan_doorbells(int full);
void eng_adopt_mappings(uint64_t now, uint64_t every_ns);
int eng_protect_open_pages(void);
int eng_doorbells_polled(void);
void eng_take_pending_doorbells_locked(void);
void eng_check_unrung(uint64_t now);

/* eng_core.c (layer 5) */
/* A doorbell store faulted on the application's UAR page at user_va (called by the fault thread, without G.lock):
 * execute what the records of that page's QPs say, as the doorbell will once it lands, and let the store land
 * (eng_dbfault_resolve, under G.lock, so that the page cannot be protected again between the two). */
void eng_doorbell_fault(void *user_va);
int eng_debug_pass(uint64_t now);

/* eng_maps.c: where this process maps a file, from /proc/self/maps (no allocation) */
struct eng_map {
	uintptr_t start;
	size_t len;
	uint64_t offset;   /* of the file, at start */
};
int eng_maps_of(int fd, struct eng_map *out, int max); /* mappings of fd's file (all of them: more than max
							  * are counted, not stored), or -1 */

/* eng_dbfault.c: doorbells through userfaultfd write protection of the UAR pages */
/* 0: active; handler(page) runs on the fault thread for each faulting store and must resolve the fault */
/* handler: a doorbell store faulted on a page (it must resolve the fault); idle: called after every wake-up of
 * the fault thread, returns how long it may wait for the next fault before calling idle again (-1: no limit) */
int eng_dbfault_start(void (*handler)(void *page), long (*idle)(void));
void eng_dbfault_stop(void);
void eng_dbfault_forget(void);            /* in a fork child */
int eng_dbfault_watch(void *user_va);     /* register and write-protect one UAR page: 0 = watched */
int eng_dbfault_protect(void *user_va);   /* protect again after the faulting store was taken */
void eng_dbfault_resolve(void *user_va);  /* write-enable the page and wake the threads blocked on it */

/* eng_eth.c: raw packet QPs and the Ethernet fabric */
struct eng_wqe;
/* Transmit the raw WQE qp->cur: 0 = blocked (fabric full, retry), 1 = done; *synd = error syndrome or 0. */
int eng_eth_send(struct eng_qp *qp, uint8_t *synd);
/* A PKT_ETH from the inbox: steer it to this process's raw QPs. 0 = blocked (leave it in the ring). */
int eng_eth_rx(struct pkt *p);
void eng_eth_qp_count(int delta);       /* raw QPs of this process (advertised in the fabric registry) */
void eng_eth_qp_destroying(struct eng_qp *qp);
void eng_eth_reap_inboxes(void);         /* drop mappings of inboxes that are no longer live (eng_peer_stale) */
void eng_eth_forget(void);               /* fork child: forget the parent's flows and raw QP count */

/* eng_dc.c (layer 4): the DC transport. A DCI is an RC requester whose responder is named by each WQE's datagram
 * segment; a DCT is an RC responder with one connection state per DCI. */
void eng_dc_qp_created(struct eng_qp *qp);     /* the DC type and key from K's QP; a DCT's empty record */
void eng_dc_qp_destroying(struct eng_qp *qp);
/* Before a DCI executes WQE w: 1 once the DCI is connected to w's DCT, 0 while it must wait (the WQEs sent on its
 * previous connection are not all answered yet). */
int eng_dci_connect(struct eng_qp *qp, const struct eng_wqe *w);
void eng_dc_fill(const struct eng_qp *qp, struct pkt *p); /* a DCI's request packet: the DC fields */
/* A request for a DCT or carrying DC fields (p->dc), to qp: 1 consumed, 0 blocked (eng_handle_req) */
int eng_dct_recv(struct eng_qp *qp, struct pkt *p);
/* eng_resp.c, for eng_dc.c: the RC responder on one packet, with the PSN already found in qp's state */
int eng_rc_recv(struct eng_qp *qp, struct pkt *p);
/* eng_resp.c, for eng_xrcfwd.c: the responder's fatal error (NAK nak, QP to error, its event); no receive WQE */
void eng_resp_fail_norwqe(struct eng_qp *qp, struct pkt *p, uint32_t nak);

/* eng_xrcfwd.c (layer 4): an XRC TGT QP's request for an XRC SRQ of its domain that another process has.
 * eng_xrc_forward, from eng_handle_req: 1 handed over (or answered), 0 blocked (leave it in the ring), -1 no
 * process has that SRQ in the QP's domain. eng_xrc_wait: 1 while qp waits for a verdict (requests for it stay in
 * the ring). eng_xrc_resp, for a RESP ring record with p->xfwd set: 1 consumed, 0 blocked. */
enum { ENG_XFWD_DELEGATE = 1, ENG_XFWD_VERDICT = 2 };
int eng_xrc_forward(struct eng_qp *qp, struct pkt *p);
int eng_xrc_wait(struct eng_qp *qp);
int eng_xrc_resp(struct pkt *p);

/* eng_xport.c */
uint32_t eng_rq_avail(struct eng_qp *qp);
void eng_rq_take(struct eng_qp *qp, struct eng_rx *rx);

int eng_qp_progress(struct eng_qp *qp, uint64_t now);
int eng_handle_req(struct pkt *p);   /* 1 consumed, 0 blocked (leave it in the ring) */
void eng_handle_resp(struct pkt *p);
/* Send the pending ACKs that are due (force: all of them; before the engine thread sleeps, at the end of a loan). */
int eng_flush_acks(int force);
/* Whether an ACK is held back (read without G.lock: a hint for the engine thread about to sleep). */
int eng_acks_held(void);
/* Send a coalesced ACK still pending on qp (the QP is about to be destroyed or leave RTR/RTS). */
void eng_qp_flush_ack(struct eng_qp *qp);
void eng_qp_reset_state(struct eng_qp *qp);

/* eng_fault.c: fault injection on the fabric (MLX5EMU_FAULTS). Every RC/UC/UD packet the transport puts on a
 * wire goes through eng_xmit instead of eng_ring_commit + eng_inbox_kick: ring r of inbox ib holds the reservation
 * tok for packet p of len bytes, sent by qp. */
void eng_xmit(struct eng_qp *qp, struct eng_inbox *ib, struct eng_ring *r, uint64_t tok, struct pkt *p, size_t len);
/* Release delayed and reordered packets that are due; 1 if any went out. Called once per engine pass. */
int eng_fault_pump(void);
/* Whether fault injection is on in this process. */
int eng_fault_on(void);
/* fork child: drop the parent's held packets and counts. */
void eng_fault_forget(void);

/* eng_direct.c (layer 3): direct placement of RDMA WRITEs into a peer process's memory. The owner publishes its
 * QPs and MRs (under G.lock, from the hooks); a requester asks eng_direct_wanted before it builds the packets of
 * a WRITE, then eng_direct_place for the packet (1: the data is in the responder's memory). */
void eng_direct_publish_qp(struct eng_qp *qp);
void eng_direct_withdraw_qp(struct eng_qp *qp);
void eng_direct_publish_mr(const struct eng_mr *m);
void eng_direct_withdraw_mr(const struct eng_mr *m);
void eng_direct_withdraw_all(void);
int eng_direct_wanted(struct eng_qp *qp, struct eng_inbox *peer, const struct eng_wqe *w);
/* MLX5EMU_DIRECT=always: place whatever the checks allow, never hand a placed stream back to the wire. */
int eng_direct_always(void);
/* A responder engine that ran a pass this recently (eng_inbox.awake_ns) counts as awake. */
#define ENG_AWAKE_FRESH_NS 20000ull
int eng_direct_place(struct eng_qp *qp, struct eng_inbox *peer, const struct pkt *p);
/* A WRITE of qp was placed: the next is placed only once the peer answers (eng_direct_wanted). */
void eng_direct_placed(struct eng_qp *qp);

#endif
