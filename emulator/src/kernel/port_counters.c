/* SPDX-License-Identifier: Apache-2.0 */
/* The fabric's port counters (layer 1): see emu_counters.h. */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "../emu_counters.h"
#include "../emu_objects.h"
#include "../emu_shm.h"

/* Bumped with the layout: a file of another layout has another size, and is replaced. */
#define COUNTERS_MAGIC 0x6d6c783563747231ull /* "mlx5ctr1" */

struct counters_file {
	_Atomic uint64_t magic;
	_Atomic uint64_t v[EMU_MAX_DEVICES][EMU_CNT_COUNT];
};

static const struct {
	const char *dir;
	const char *name;
} names[EMU_CNT_COUNT] = {
	[EMU_CNT_PORT_XMIT_DATA] = {"counters", "port_xmit_data"},
	[EMU_CNT_PORT_RCV_DATA] = {"counters", "port_rcv_data"},
	[EMU_CNT_PORT_XMIT_PACKETS] = {"counters", "port_xmit_packets"},
	[EMU_CNT_PORT_RCV_PACKETS] = {"counters", "port_rcv_packets"},
	[EMU_CNT_UNICAST_XMIT_PACKETS] = {"counters", "unicast_xmit_packets"},
	[EMU_CNT_UNICAST_RCV_PACKETS] = {"counters", "unicast_rcv_packets"},
	[EMU_CNT_MULTICAST_XMIT_PACKETS] = {"counters", "multicast_xmit_packets"},
	[EMU_CNT_MULTICAST_RCV_PACKETS] = {"counters", "multicast_rcv_packets"},
	[EMU_CNT_RX_WRITE_REQUESTS] = {"hw_counters", "rx_write_requests"},
	[EMU_CNT_RX_READ_REQUESTS] = {"hw_counters", "rx_read_requests"},
	[EMU_CNT_RX_ATOMIC_REQUESTS] = {"hw_counters", "rx_atomic_requests"},
	[EMU_CNT_OUT_OF_BUFFER] = {"hw_counters", "out_of_buffer"},
};

static _Atomic(struct counters_file *) g_file;
static _Atomic int g_failed;

/* The mapped file, created by the first process of the fabric that counts or reads; NULL if it cannot be had
 * (then nothing is counted, and sysfs shows 0). */
static struct counters_file *file(void)
{
	struct counters_file *f = atomic_load_explicit(&g_file, memory_order_acquire);
	if (f || atomic_load_explicit(&g_failed, memory_order_relaxed))
		return f;
	char name[128];
	emu_shm_name(name, sizeof name, "-counters");
	void *p = NULL;
	int created = 0;
	int err = emu_shm_create_or_attach(name, sizeof(struct counters_file), 1, &p, &created);
	if (err == ESTALE) {
		/* another emulator version's layout: start afresh (its processes keep their unlinked copy) */
		shm_unlink(name);
		err = emu_shm_create_or_attach(name, sizeof(struct counters_file), 1, &p, &created);
	}
	if (err) {
		atomic_store_explicit(&g_failed, 1, memory_order_relaxed);
		return NULL;
	}
	if (created)
		emu_shm_publish(p, COUNTERS_MAGIC); /* the rest is zero, as ftruncate left it */
	else if (!emu_shm_wait_published(p, COUNTERS_MAGIC)) {
		munmap(p, sizeof(struct counters_file));
		atomic_store_explicit(&g_failed, 1, memory_order_relaxed);
		return NULL;
	}
	struct counters_file *expected = NULL;
	if (!atomic_compare_exchange_strong(&g_file, &expected, (struct counters_file *)p)) {
		munmap(p, sizeof(struct counters_file)); /* another thread mapped it first */
		return expected;
	}
	return (struct counters_file *)p;
}

void emu_port_counter_add(int dev, enum emu_port_counter c, uint64_t n)
{
	if (dev < 0 || dev >= EMU_MAX_DEVICES || (unsigned)c >= EMU_CNT_COUNT)
		return;
	struct counters_file *f = file();
	if (f) /* relaxed: a count orders nothing else */
		atomic_fetch_add_explicit(&f->v[dev][c], n, memory_order_relaxed);
}

uint64_t emu_port_counter_read(int dev, enum emu_port_counter c)
{
	if (dev < 0 || dev >= EMU_MAX_DEVICES || (unsigned)c >= EMU_CNT_COUNT)
		return 0;
	struct counters_file *f = file();
	uint64_t v = f ? atomic_load_explicit(&f->v[dev][c], memory_order_relaxed) : 0;
	return c == EMU_CNT_PORT_XMIT_DATA || c == EMU_CNT_PORT_RCV_DATA ? v / 4 : v;
}

int emu_port_counter_lookup(const char *dir, const char *name)
{
	for (int i = 0; i < EMU_CNT_COUNT; i++)
		if (strcmp(names[i].dir, dir) == 0 && strcmp(names[i].name, name) == 0)
			return i;
	return -1;
}
