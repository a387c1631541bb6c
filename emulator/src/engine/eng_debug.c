/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_debug.c - the engine's part of the test introspection (mlx5emu_debug.h): states that tests cannot bring
 * about through the verbs, such as a peer that died halfway through putting a packet into our rings.
 */
#include <unistd.h>

#include "engine/eng_internal.h"
#include "mlx5emu_debug.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int mlx5emu_debug_abandon_reservation(int pid, int resp, uint32_t len)
{
	if (!G.fabric[0])
		eng_fabric_name();
	struct eng_inbox *ib = eng_inbox_open(G.fabric, pid, eng_inbox_id_of_pid(pid));
	if (!ib)
		return -1;
	eng_wire_pid = (int)getpid(); /* as the engine of this process would have set it */
	uint64_t tok;
	void *p = eng_ring_reserve(resp ? &ib->resp : &ib->req, len, &tok);
	/* left mapped and uncommitted on purpose: this process is about to die holding the record */
	return p ? 0 : -1;
}

EXPORT void mlx5emu_debug_hold_engine(int hold)
{
	pthread_mutex_lock(&G.lock); /* the engine thread holds it for every pass: after this, it is in none */
	atomic_store(&G.debug_hold, hold);
	pthread_mutex_unlock(&G.lock);
}

EXPORT int mlx5emu_debug_pass_at(int64_t offset_ns)
{
	return eng_debug_pass(eng_now_ns() + (uint64_t)offset_ns);
}

EXPORT void mlx5emu_debug_pass_visits(uint64_t *passes, uint64_t *visits)
{
	pthread_mutex_lock(&G.lock);
	*passes = G.passes;
	*visits = G.pass_visits;
	pthread_mutex_unlock(&G.lock);
}
