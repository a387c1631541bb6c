/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_wire.h - the "wire" between engines: a multi-producer, single-consumer byte ring in shared memory.
 *
 * Each process's engine owns one inbox file, /dev/shm/<fabric>-eng-<pid>, holding two rings: REQ (requests:
 * SEND/WRITE/READ/ATOMIC packets) and RESP (ACK, NAK, READ and ATOMIC responses). Any engine (this process's
 * or another's) produces into them; only the owner consumes. Splitting requests from responses avoids a
 * deadlock: consuming a response never needs to send anything, so RESP rings always drain, and a responder
 * blocked on a full RESP ring of its peer only waits for that peer to drain it.
 *
 * Record = 8-byte header word (length in bytes, a multiple of 64, with bit 0 = committed and bit 1 = padding)
 * followed by the packet. A producer reserves space with a CAS on tail, marks the header reserved with its pid
 * (bit 2, pid in bits 32-62), writes the packet, then publishes the header with a release store. A producer
 * process that dies between the reservation and the commit would block the consumer at that record for good (every
 * later packet behind it, of every QP): the owner skips such a record once its producer is gone
 * (eng_ring_skip_abandoned). Not covered: a death between the CAS and the mark, two stores apart, and a producer
 * that is stopped (SIGSTOP) holding a record, which may still commit it and is waited for. The consumer clears
 * every 64-byte-aligned header slot of what it consumed before it advances head (release), so a stale word inside
 * an old payload can never look like a committed header.
 */
#ifndef MLX5EMU_ENG_WIRE_H
#define MLX5EMU_ENG_WIRE_H

#include <stdint.h>
#include <stddef.h>
#include <stdatomic.h>

#define ENG_RING_BYTES   (8u << 20)
#define ENG_WIRE_MAGIC   0x45524957414c4d45ULL /* "EMLAWIRE": v6 added the wake futex, v7 the poll time, v8 the
                                                 * direct placement tables, v9 the awake time, v10 the id */

struct eng_ring {
	_Atomic uint64_t tail;
	uint8_t pad0[56];
	_Atomic uint64_t head;
	uint8_t pad1[56];
	uint8_t data[ENG_RING_BYTES];
};

/*
 * The owner's RC QPs that accept RDMA WRITEs and its MRs, published for direct placement (eng_direct.c). A slot is
 * valid while its tag holds ENG_DIRECT_VALID | the QPN or key; the owner writes the other fields first, then the
 * tag (release), and withdraws a slot by clearing the tag. A producer that places through an MR counts itself in
 * users around the placement, and the owner waits for users to drop to 0 after clearing the tag, so no write lands
 * once ibv_dereg_mr returned.
 */
#define ENG_DIRECT_SLOTS 1024
#define ENG_DIRECT_VALID (1ull << 32)
struct eng_direct_qp {
	_Atomic uint64_t tag;
	uint32_t pdn;
	/* WRITEs peers placed into this QP's process for it, counted before each placement: the owner sees its peer
	 * answer before (or as) the data shows, while the packet itself comes to the rings only after (eng_direct.c). */
	_Atomic uint32_t placed;
};
struct eng_direct_mr {
	_Atomic uint64_t tag;
	_Atomic uint32_t users;
	uint32_t access;
	uint64_t addr, len;
	uint32_t pdn;
	uint32_t reserved;
};

struct eng_inbox {
	uint64_t magic;
	int32_t  pid;
	/* Which inbox of process pid this is (the fabric registry's procs[].inbox names the live one). The file name
	 * holds only the pid: a process that closes its last context and opens another, a process after exec, and a
	 * process that got a dead one's pid all create a new file under an old name, while peers still map the old
	 * file (unlinked, but still memory) and would put packets in it that no engine ever reads. */
	uint32_t id;
	/* A process-shared futex: the owner's engine thread sleeps on wake_seq (with a timeout, since doorbells are
	 * polled) after announcing it in sleeping; the first producer to commit a packet after that takes the announcement
	 * down (exchange to 0), bumps wake_seq and wakes it; later producers see it awake. */
	_Atomic uint32_t wake_seq;
	_Atomic uint32_t sleeping;
	/* When one of the owner's application threads last ran an engine pass (CLOCK_MONOTONIC ns): a producer
	 * holds its wake-up back while that is fresh (eng_inbox_kick). */
	_Atomic uint64_t poll_ns;
	/* When the owner's engine thread last ran a pass while running them back to back (0 once it goes to sleep):
	 * while that is fresh, a packet put into the rings is taken within microseconds, so a peer sends its RDMA
	 * WRITEs there instead of placing them (eng_direct.c). A time, not a flag, so that a process stopped while its
	 * engine was awake soon counts as asleep. */
	_Atomic uint64_t awake_ns;
	uint8_t  pad[24];
	/* What a peer needs to place an RDMA WRITE in the owner's memory itself (eng_direct.c). */
	struct eng_direct_qp direct_qp[ENG_DIRECT_SLOTS];
	struct eng_direct_mr direct_mr[ENG_DIRECT_SLOTS];
	struct eng_ring req;
	struct eng_ring resp;
};

/* Reserve room for a packet of len bytes; returns a pointer to write it, or NULL when the ring is full.
 * *tok receives what eng_ring_commit needs. */
void *eng_ring_reserve(struct eng_ring *r, size_t len, uint64_t *tok);
void eng_ring_commit(struct eng_ring *r, uint64_t tok);
/* Bytes reserved and not yet consumed (a hint: producers may be adding). */
uint64_t eng_ring_used(struct eng_ring *r);
/* Give a reservation back without a packet (the consumer skips it). */
void eng_ring_cancel(struct eng_ring *r, uint64_t tok);
/* The pid the producers of this process put in their reservations (the engine sets it when it starts). */
extern int eng_wire_pid;
/* If the record at head is reserved by a producer process that is gone (gone(pid): dead or a zombie, never to
 * commit), turn it into padding; returns whether it did. Consumer only. */
int eng_ring_skip_abandoned(struct eng_ring *r, int (*gone)(int pid));
/* Next committed packet at head, or NULL; *len receives the record's packet capacity. */
void *eng_ring_peek(struct eng_ring *r, size_t *len);
/* Consume the record returned by the last peek. */
void eng_ring_pop(struct eng_ring *r);

/* After committing packets into ib's rings (under G.lock): wake its owner's engine thread if it sleeps, unless
 * the owner's poller ran a pass in the last ENG_POLL_FRESH_NS; that kick is deferred. */
void eng_inbox_kick(struct eng_inbox *ib);
/* Deliver the deferred kicks (under G.lock): drop those whose inbox was drained meanwhile, wake the owners of the
 * others once they are due, or all of them now when this thread is about to stop running passes. */
void eng_inbox_kick_deferred(uint64_t now, int all);
/* Whether kicks are deferred (a hint, read without G.lock). */
int eng_inbox_deferred_pending(void);
/* Forget every deferred kick (a fork child: the inboxes are not its own). */
void eng_inbox_forget_deferred(void);
/* The owner's engine thread: sleep up to ns, or until a packet is in the inbox (returns at once if one is).
 * Returns whether a packet is waiting. */
int eng_inbox_wait(struct eng_inbox *ib, long ns);

/* Create (and map) this process's inbox, with id (never 0); unlink it with eng_inbox_destroy. */
struct eng_inbox *eng_inbox_create(const char *fabric, int pid, uint32_t id);
void eng_inbox_destroy(struct eng_inbox *ib, const char *fabric, int pid);
/* Map another process's inbox with this id (NULL if it does not exist, or the file under its name is another one).
 * Unmap with eng_inbox_unmap. */
struct eng_inbox *eng_inbox_open(const char *fabric, int pid, uint32_t id);
void eng_inbox_unmap(struct eng_inbox *ib);

#endif
