/* SPDX-License-Identifier: Apache-2.0 */
/*
 * emu_clock.h - the device clock of the emulated ConnectX-5: the free-running internal timer that stamps CQEs,
 * the page through which libmlx5 reads it (MLX5_IB_MMAP_CORE_CLOCK) and the clock-info page that converts its
 * ticks to CLOCK_REALTIME (MLX5_IB_MMAP_CLOCK_INFO). Implemented in src/kernel/clock.c; the engine calls
 * emu_clock_publish/emu_clock_maintain.
 *
 * The oscillator. Every process of every fabric derives the timer from CLOCK_MONOTONIC, so all emulated HCAs of
 * the machine share one clock and a receiver's CQE timestamp can be compared with a sender's (one-way latency):
 *     ticks(t) = floor(t_ns * 2^shift / mult)
 * with shift 23 and mult = clocksource_khz2mult(156250, 23) = 53687091, the values the Linux mlx5 driver puts into
 * the clock-info page for a 156250 kHz core clock. The emulated oscillator thus runs at 2^23 / 53687091 GHz =
 * 156.2500006 MHz (3.7 ppb above nominal, far inside a crystal's tolerance), the frequency whose period mult
 * states exactly, so mlx5dv_ts_to_ns converts without accumulating error between clock-info updates.
 * CLOCK_MONOTONIC (not _RAW) because NTP slews it exactly as it slews CLOCK_REALTIME: their difference only
 * changes when the wall clock is stepped, which emu_clock_maintain detects and publishes.
 */
#ifndef MLX5EMU_CLOCK_H
#define MLX5EMU_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* device_frequency_khz of a ConnectX-5: `ibv_devinfo -v` on an MT4119 (fw 16.31.1014) prints
 * "hca_core_clock: 156250kHZ" and "completion timestamp_mask: 0x7fffffffffffffff". */
#define EMU_CLOCK_KHZ 156250u
/* ib_device_attr.timestamp_mask as mlx5_ib_query_device sets it (Linux drivers/infiniband/hw/mlx5/main.c) */
#define EMU_CLOCK_TIMESTAMP_MASK 0x7fffffffffffffffull
/* MLX5_CYCLES_SHIFT and CLOCKSOURCE_MASK(41) of Linux drivers/net/ethernet/mellanox/mlx5/core/lib/clock.c */
#define EMU_CLOCK_SHIFT 23u
#define EMU_CLOCK_MASK_BITS 41u
/* hca_core_clock_offset of GET_CONTEXT: offsetof(struct mlx5_init_seg, internal_timer_h) % PAGE_SIZE, and
 * internal_timer_h sits at 0x1000 of the initialization segment (include/linux/mlx5/device.h) */
#define EMU_CLOCK_TIMER_OFFSET 0u

/* mult of the clock-info page: clocksource_khz2mult(EMU_CLOCK_KHZ, EMU_CLOCK_SHIFT) */
uint32_t emu_clock_mult(void);
/* the device timer at CLOCK_MONOTONIC time mono_ns, and now */
uint64_t emu_clock_ticks(uint64_t mono_ns);
uint64_t emu_clock_now(void);

/* The timer value ticks in the real-time format of a CQ created with MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS:
 * CLOCK_REALTIME seconds in bits 63..32, nanoseconds in 31..0 (libmlx5 mlx5_cqe_ts_to_ns reads it so). */
uint64_t emu_clock_real_time_format(uint64_t ticks);

/* GET_CONTEXT: make sure this process has the timer and clock-info pages (errno value on failure), and offer
 * them in the mlx5 driver response (of drv_out_len bytes). */
int emu_clock_setup(void);
struct mlx5_ib_alloc_ucontext_resp;
void emu_clock_ucontext_resp(struct mlx5_ib_alloc_ucontext_resp *r, size_t drv_out_len);
/* mmap of the command fd with MLX5_IB_MMAP_CORE_CLOCK or MLX5_IB_MMAP_CLOCK_INFO (cmd), index idx: the
 * kernel's checks, then a read-only view of the page. Returns MAP_FAILED with *err set on failure. */
void *emu_clock_mmap(void *addr, size_t len, int prot, int flags, uint32_t cmd, uint32_t idx, int *err);
/* Device side: move the timer page forward to ticks (never backwards) and return the timer value a CQE
 * written now must carry: max(ticks, what the page already shows). Once such a CQE is visible, any read of the
 * page returns at least its timestamp. No-op (returns ticks) before emu_clock_setup. */
uint64_t emu_clock_publish(uint64_t ticks);
/* Kernel side, called periodically (the engine's 100 ms housekeeping): the work the mlx5 driver's
 * mlx5_timestamp_overflow does, plus noticing wall-clock steps. */
void emu_clock_maintain(void);

#endif
