/* SPDX-License-Identifier: Apache-2.0 */
/*
 * emu_barrier.h - memory ordering between the emulated device, the programs it serves and the emulator's own
 * processes, named by intent.
 *
 * rdma-core gives every narrow use of a barrier its own name (util/udma_barrier.h: udma_to_device_barrier before
 * the device may read what the CPU wrote, udma_from_device_barrier after the CPU saw the device's valid bit), so
 * that a call site documents what it keeps in order. The emulator has the same pairs, with the device in software:
 * the engine is the device, its "DMA" is the loads and stores of another CPU thread or process, and what rdma-core
 * fences against PCIe reordering is, here, reordering between CPUs and by the compiler. So each name below is a C11
 * fence or an acquire/release access. The driver-side names keep rdma-core's spelling (a grep finds both); the
 * device-side names are their mirror images, which rdma-core, running only on the CPU side, does not need.
 *
 *   driver (libmlx5, mlx5j, the tests)              device (the engine)
 *   WQEs, udma_to_device_barrier, doorbell record   udma_device_load_dbrec, then the WQEs up to it
 *   record, mmio_wc_start, doorbell                 (the doorbell makes the engine load the record)
 *   owner check, udma_from_device_barrier, CQE      CQE, then udma_device_publish_cqe (op_own last)
 *   CQEs read, then the CQ consumer index           udma_device_load_dbrec, then the freed slots are reused
 *
 * Besides: seqlocks (the fabric registry's QP entries; the clock page, which libmlx5 reads), the inbox sleep/wake
 * handshake between engines, and files published to other processes (emu_shm.h).
 *
 * Atomic read-modify-writes (the responder's RDMA atomics) and single words shared with no data behind them (a QP's
 * rate limit, the clock page's fields) stay __atomic_* at their call sites, each with the reason for its order.
 */
#ifndef MLX5EMU_EMU_BARRIER_H
#define MLX5EMU_EMU_BARRIER_H

#include <stdatomic.h>
#include <stdint.h>

/* ---- driver side: what a program posting work does (the tests post raw WQEs as libmlx5 does) ---- */

/* The stores before it (WQEs, a doorbell record) are visible to the device before the stores after it (the
 * doorbell record, a doorbell). rdma-core's is a compiler barrier on x86-64, like this release fence. */
static inline void udma_to_device_barrier(void) { atomic_thread_fence(memory_order_release); }

/* After a load that saw the device's valid bit (a CQE's op_own): the loads after it see what the device wrote
 * before that bit (the CQE's body). */
static inline void udma_from_device_barrier(void) { atomic_thread_fence(memory_order_acquire); }

/* Before the doorbell (or BlueFlame) store: the doorbell record is visible first. A full fence, as rdma-core's
 * (sfence on x86-64) is a real fence and not only a compiler barrier. */
static inline void mmio_wc_start(void) { atomic_thread_fence(memory_order_seq_cst); }

/* ---- device side: the engine ---- */

/* Reads a doorbell record (big-endian in memory, returned in host order): a queue's producer index, which the
 * driver stores after the WQEs it covers, or a CQ's consumer index, which it stores after reading the CQEs it
 * frees. Acquire: the WQEs up to the index are read, and the freed CQE slots written, only after this load. */
static inline uint32_t udma_device_load_dbrec(const volatile uint32_t *rec)
{
	return __builtin_bswap32(__atomic_load_n(rec, __ATOMIC_ACQUIRE));
}

/* Makes a CQE valid: op_own (opcode and owner bit) is its last store, after the body. Release: a driver that sees
 * the new owner bit (and then udma_from_device_barrier, as libmlx5's mlx5_get_next_cqe) reads the whole CQE. */
static inline void udma_device_publish_cqe(uint8_t *op_own, uint8_t value)
{
	__atomic_store_n(op_own, value, __ATOMIC_RELEASE);
}

/* ---- the emulator's own threads and processes ---- */

/* Seqlock reader: between the copy of the fields and the second load of the sequence word, so that a copy torn by
 * a writer is caught by the sequence check (the field loads cannot move below it). */
static inline void seq_read_retry_barrier(void) { atomic_thread_fence(memory_order_acquire); }

/* Seqlock writer: between marking the entry as being updated and the first field store, so that a reader who sees
 * a new field also sees the mark. Release order would do; the full fence is what the clock page's writer always
 * used, once per rebase. */
static inline void seq_write_begin_barrier(void) { atomic_thread_fence(memory_order_seq_cst); }

/* Sleep/wake handshake (Dekker): each side stores its own word (the sleeper its announcement, the waker its
 * packet), then loads the other's. Store-to-load order is the one order release/acquire does not give: without this
 * fence both sides could read the other's old word, and the sleeper would sleep on a packet already in its ring. */
static inline void sleep_wake_barrier(void) { atomic_thread_fence(memory_order_seq_cst); }

/* Publishes a structure another process will map: its word (a magic) stored last, after everything it covers. */
static inline void publish_u64(uint64_t *word, uint64_t value) { __atomic_store_n(word, value, __ATOMIC_RELEASE); }

/* Reads a word published with publish_u64: what it covers is read only after this load. */
static inline uint64_t published_u64(const uint64_t *word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }

#endif
