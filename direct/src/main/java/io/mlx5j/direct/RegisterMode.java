// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.doorbell.DoorbellMode;

/**
 * Who else writes a send queue's BlueFlame register, and so whether its rings take the register's lock. Orthogonal
 * to {@link DoorbellMode}, which says what a ring writes (BlueFlame blocks or the 8-byte doorbell).
 *
 * <p>libmlx5 hands each QP one register of the context's UAR pages (rdma-core v44 providers/mlx5/mlx5.c, the
 * {@code bfs[]} array; the kernel's alloc_bfreg picks the index). There are three kinds, and this enum names what a
 * send queue does with each:
 * <ul>
 *   <li>the last {@code MLX5_NUM_LOW_LAT_UUARS} (default 4) registers are low latency: the kernel gives each to one
 *       QP only, and libmlx5 writes them without a lock ({@code need_uuar_lock} 0): {@link #DEDICATED};</li>
 *   <li>the medium ones between register 0 and those are shared: once every medium register has a QP, the kernel
 *       gives the next QP the least used one (with the defaults, 16 registers, from about the 16th QP of a
 *       context). libmlx5 locks them ({@code need_uuar_lock} 1): {@link #LOCKED};</li>
 *   <li>register 0 has no BlueFlame buffer ({@code bf.size} 0) and serves every QP once the others are gone (only
 *       when there are no medium registers): 8-byte doorbells only, no half to toggle, so no lock:
 *       {@link #DOORBELL_ONLY}.</li>
 * </ul>
 * A register shared by several queues is one object with one lock: every queue on it is locked, including the
 * first one, created before the second appeared. So {@link #AUTO} decides from libmlx5's rules, not from the queues
 * seen so far.
 */
public enum RegisterMode
{
    /**
     * The default: {@link #DEDICATED} for a low-latency register, {@link #DOORBELL_ONLY} for a register without a
     * BlueFlame buffer, {@link #LOCKED} otherwise (a medium register, or one libmlx5 gave from a scheme these rules
     * do not cover: a dynamic UAR, a thread domain's, or no {@code uar_mmap_offset} reported). The low-latency range
     * is computed as libmlx5 v44 does from {@code MLX5_TOTAL_UUARS} (default 16) and {@code MLX5_NUM_LOW_LAT_UUARS}
     * (default 4) in this process's environment. {@code MLX5_SINGLE_THREADED} is not followed: a Java program is
     * rarely single threaded, and an uncontended lock costs one compare-and-set per ring.
     */
    AUTO,

    /**
     * No lock: only this queue writes the register (UCX {@code UCT_IB_MLX5_MMIO_MODE_BF_POST}). Thread contract:
     * the queue's one posting thread is the register's only writer. Requested explicitly, a second queue on the same
     * register is refused ({@link IllegalStateException}) rather than silently sharing it unlocked; the fastest
     * ring (no flush after a BlueFlame copy, see {@code SendDoorbell}).
     */
    DEDICATED,

    /**
     * Every ring holds the register's spin lock from the first write-combining store to the flush and the half
     * toggle (libmlx5 {@code bf->need_lock}; UCX {@code BF_POST_MT} / {@code DB_LOCK}). Thread contract: queues on
     * the register may be posted from any threads at once (each queue itself still has one posting thread); costs
     * one uncontended compare-and-set and one flush per ring.
     */
    LOCKED,

    /**
     * The register has no BlueFlame buffer ({@code bf.size} 0): only 8-byte doorbells, each one atomic store to a
     * fixed address, so any number of queues and threads may share it without a lock (libmlx5 register 0; UCX
     * {@code UCT_IB_MLX5_MMIO_MODE_DB}). Chosen by {@link #AUTO} (and by {@link #DEDICATED} or {@link #LOCKED}, which
     * have nothing to add) for such a register; not a request for a register that has a buffer: for 8-byte
     * doorbells there, pass {@link DoorbellMode#DOORBELL}, and the register's lock still applies.
     */
    DOORBELL_ONLY
}
