// SPDX-License-Identifier: Apache-2.0
/**
 * The mlx5 wire format in pure Java: send WQE segments, send-ring bookkeeping, receive WQEs and CQE decoding, with
 * no native code. Everything works on any {@link java.lang.foreign.MemorySegment}: the rings that mlx5dv_init_obj
 * reports (reinterpreted to their size) or heap segments backed by {@code long[]} in tests.
 *
 * <h2>Pieces</h2>
 * <ul>
 * <li>Descriptors (offsets, flags, bit rulers; names from the PRM and rdma-core v44 mlx5dv.h): {@link
 *     io.mlx5j.wqe.CtrlSeg}, {@link io.mlx5j.wqe.RaddrSeg}, {@link io.mlx5j.wqe.DataSeg}, {@link
 *     io.mlx5j.wqe.InlineSeg}, {@link io.mlx5j.wqe.AtomicSeg}, {@link io.mlx5j.wqe.DatagramSeg}, {@link
 *     io.mlx5j.wqe.SrqNextSeg}, {@link io.mlx5j.wqe.EthSeg}, {@link io.mlx5j.wqe.Cqe64}, {@link
 *     io.mlx5j.wqe.Mlx5Opcode}. Each segment descriptor is also the one encoding of its segment: static writers
 *     {@code set(MemorySegment, offset, ...)} (through {@link io.mlx5j.memory.Be}'s handles) and {@code put(address,
 *     ...)} (through {@link io.mlx5j.memory.RingStores}, for the posts that store by ring address) store the same
 *     packed big-endian words; every encoder of mlx5j (the writers below, the direct module's one-call posts, raw
 *     frames and receive queues) calls them instead of storing fields itself.</li>
 * <li>Encoders (flyweights, re-wrapped per WQE): {@link io.mlx5j.wqe.WqeWriter} (send),
 *     {@link io.mlx5j.wqe.RecvWqeWriter} (RQ/SRQ).</li>
 * <li>Counters (no bytes): {@link io.mlx5j.wqe.SendRing}, {@link io.mlx5j.wqe.RecvRing}.</li>
 * <li>Decoder: {@link io.mlx5j.wqe.CqeView}, {@link io.mlx5j.wqe.WcStatus}, {@link
 *     io.mlx5j.wqe.MalformedCqeException}.</li>
 * </ul>
 *
 * <h2>Posting one send WQE</h2>
 * <pre>{@code
 * long ctrl = sq.claim(SendRing.numWqebb(3));            // ctrl + raddr + data
 * if (ctrl == SendRing.NO_SPACE) return BUSY;            // a sentinel, not an exception
 * w.wrap(ring, ctrl).raddr(raddr, rkey).data(len, lkey, addr)
 *  .ctrl(0, MLX5_OPCODE_RDMA_WRITE, sq.wqeIndex(), qpn, MLX5_WQE_CTRL_CQ_UPDATE, 0);
 * sq.commit(w.ds(), wrId);
 * sendDoorbell.ring(sq.lastCtrlOffset(), sq.lastDs(), sq.producerCounter());   // io.mlx5j.doorbell.SendDoorbell
 * }</pre>
 * Polling: {@code while (view.tryAcquire(ci)) { wrId = sq.complete(view.wqeCounter()); status = view.status();
 * ci++; }}, then update the CQ doorbell record.
 *
 * <h2>Threads</h2>
 * No class here is thread-safe and none locks. A send queue's {@code WqeWriter}, {@code SendRing} and doorbell
 * belong to one posting thread; a CQ's {@code CqeView} to one polling thread; if posting and completion processing
 * run on different threads, the caller serialises access to the {@code SendRing} (libmlx5 uses the QP lock).
 *
 * <h2>Errors</h2>
 * A full ring is reported by {@code NO_SPACE}. Malformed requests (WQE larger than the QP allows, too many SGEs,
 * inline too large, misaligned offsets) throw {@link java.lang.IllegalArgumentException}; bookkeeping violations
 * (committing more than fits, a CQE naming no outstanding WQE) throw {@link java.lang.IllegalStateException};
 * undecodable CQEs throw {@link io.mlx5j.wqe.MalformedCqeException} only when interpreted.
 */
package io.mlx5j.wqe;
