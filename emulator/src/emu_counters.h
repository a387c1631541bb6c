/* SPDX-License-Identifier: Apache-2.0 */
/*
 * emu_counters.h - the port counters a ConnectX exposes in sysfs (layer 1 of src/kernel/LAYERS, port_counters.c),
 * kept for the whole fabric in one /dev/shm file (/<fabric>-counters) so that every process on the fabric adds to
 * and reads the same values, as every process on a host reads the same NIC's counters.
 *
 * Names and directories as Linux's mlx5_ib shows them under /sys/class/infiniband/<dev>/ports/<n>/:
 *   counters/    the PMA port counters (ib_core sysfs.c; drivers/infiniband/hw/mlx5/mad.c answers them): the
 *                *_data ones count 4-byte words (the IBA's PortXmitData/PortRcvData unit), the others packets;
 *   hw_counters/ the queue counters of drivers/infiniband/hw/mlx5/counters.c (basic_q_cnts), in events.
 * The launcher (mlx5emu, write_tree) writes a file per name holding 0, so that directory listings show them; the
 * interposer (interpose.c) answers an open of one of them with the live value.
 */
#ifndef MLX5EMU_EMU_COUNTERS_H
#define MLX5EMU_EMU_COUNTERS_H

#include <stdint.h>

enum emu_port_counter {
	/* counters/ */
	EMU_CNT_PORT_XMIT_DATA,     /* kept in bytes; sysfs shows bytes / 4 */
	EMU_CNT_PORT_RCV_DATA,      /* the same */
	EMU_CNT_PORT_XMIT_PACKETS,
	EMU_CNT_PORT_RCV_PACKETS,
	EMU_CNT_UNICAST_XMIT_PACKETS,
	EMU_CNT_UNICAST_RCV_PACKETS,
	EMU_CNT_MULTICAST_XMIT_PACKETS,
	EMU_CNT_MULTICAST_RCV_PACKETS,
	/* hw_counters/ */
	EMU_CNT_RX_WRITE_REQUESTS,
	EMU_CNT_RX_READ_REQUESTS,
	EMU_CNT_RX_ATOMIC_REQUESTS,
	EMU_CNT_OUT_OF_BUFFER,
	EMU_CNT_COUNT
};

/* Adds n to counter c of device dev's port 1 (relaxed atomic add; a no-op when the file cannot be mapped or dev is
 * out of range). */
void emu_port_counter_add(int dev, enum emu_port_counter c, uint64_t n);

/* The value sysfs shows for counter c of device dev (the *_data ones in 4-byte words). */
uint64_t emu_port_counter_read(int dev, enum emu_port_counter c);

/* The counter named name in directory dir ("counters" or "hw_counters"), or -1. */
int emu_port_counter_lookup(const char *dir, const char *name);

#endif
