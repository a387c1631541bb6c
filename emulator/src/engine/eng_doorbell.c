/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_doorbell.c - the doorbell watcher: send doorbells and their records, the scan of the UAR pages, the pages
 * opened by write faults (layer 4 of src/engine/LAYERS).
 *
 * Doorbells: like a ConnectX, the engine reacts to writes to the UAR page, not to the doorbell record. It watches
 * every BlueFlame half (0x800 + k*0x100 of each mapped UAR page) and the CQ arm doorbell (0x20) through K's alias
 * mapping of the same memfd pages, and takes each doorbell with an atomic exchange to 0 (a register write is
 * consumed once). QPNs are never 0, so 0 means "no doorbell".
 */
#include "engine/eng_internal.h"

/* ---------------- send doorbells ---------------- */

void eng_sq_take_record(struct eng_qp *qp, uint32_t idx, uint32_t rec, uint32_t rec_ahead)
{
	uint32_t qpn = qp->qpn;
	if (rec_ahead > qp->sq_cnt) {
		eng_strict(qpn, idx, "doorbell record %u is %u WQEBBs ahead of the device (ring has %u)", rec,
			   rec_ahead, qp->sq_cnt);
		rec_ahead = 0;
	}
	uint32_t new_pi = qp->sq_pi + rec_ahead;
	/* Only when this doorbell moved the producer: two doorbells taken in one scan report once. */
	if (rec_ahead && new_pi - qp->sq_cqe_seen > qp->sq_cnt)
		eng_strict(qpn, idx, "WQE slot reused before its completion could have been seen (%u WQEBBs past the "
			   "last CQE, ring has %u)", new_pi - qp->sq_cqe_seen, qp->sq_cnt);
	eng_bf_shadow(qp, qp->sq_pi, new_pi);
	qp->sq_pi = new_pi;
	qp->rec_stall_since = 0;
	if (rec_ahead)
		eng_qp_mark_busy(qp);
}

/*
 * A register shared by several QPs takes their doorbells one after another in the same two halves. A ConnectX
 * receives every one of those writes; this engine keeps only what a half holds when it scans, so when it falls
 * behind (its thread descheduled on a loaded machine) a QP's doorbell can be written over by another QP's before it
 * is taken, and that QP's WQEs would never run: seen as hangs of ucmatose with 255-300 connections and of
 * ib_write_bw -q 256 while other work loaded the machine (the emulator's strict report "doorbell record advanced
 * ... but the doorbell was never rung" for the first QPs, each on a shared register). So whenever a doorbell comes
 * through a shared register, the other QPs on it whose doorbell record is ahead of the device are taken up to their
 * record as well: their WQEs were written before their record (the driver's order), and a doorbell of theirs still
 * to come then finds nothing new. The same sweep runs in the slow housekeeping for a doorbell written over by the
 * last one on its register.
 */
static void take_shared_records(const struct eng_qp *taken)
{
	for (struct eng_qp *o = taken->reg_next; o != taken; o = o->reg_next) {
		if (!o->reg_shared || !o->q || o->state == EMU_QPS_RESET)
			continue;
		uint32_t rec = udma_device_load_dbrec(&o->dbrec[1]) & 0xffff;
		uint32_t rec_ahead = (rec - (o->sq_pi & 0xffff)) & 0xffff;
		if (rec_ahead && rec_ahead <= o->sq_cnt)
			eng_sq_take_record(o, o->sq_pi & 0xffff, rec, rec_ahead);
	}
}

static void sq_doorbell(const uint8_t *db, volatile const uint8_t *half, struct eng_bf_check *check)
{
	uint32_t o = eng_be32(db), qd = eng_be32(db + 4);
	uint32_t qpn = qd >> 8, idx = (o >> 8) & 0xffff, ds = qd & 0xff;
	struct eng_qp *qp = eng_find_qp(qpn);
	if (!qp) {
		eng_strict(qpn, idx, "doorbell for a QP this process does not own");
		return;
	}
	if (qp->reg_shared && qp->q)
		take_shared_records(qp);
	/* the WQEs up to the record are read after it: without acquire order one could be read before its stores */
	uint32_t rec = udma_device_load_dbrec(&qp->dbrec[1]) & 0xffff;
	uint32_t cur = qp->sq_pi & 0xffff;
	uint32_t rec_ahead = (rec - cur) & 0xffff;
	uint32_t db_ahead = ((idx + eng_wqe_bbs(ds ? ds : 1)) - cur) & 0xffff;
	if (db_ahead > rec_ahead && db_ahead < 0x8000)
		eng_strict(qpn, idx, "doorbell beyond what was written: doorbell ends at %u, doorbell record says %u",
			   (idx + eng_wqe_bbs(ds ? ds : 1)) & 0xffff, rec);
	eng_sq_take_record(qp, idx, rec, rec_ahead);
	if (check)
		eng_bf_check_start(check, qp, half, idx, ds ? ds : 1);
}

/* A page opened by a fault whose store has not shown up for this long is protected again anyway (the storing
 * thread may have been descheduled; if its store is still to come, it simply faults once more). */
#define ENG_DB_OPEN_MAX_NS 1000000ull
/* The least time between two reads of /proc/self/maps when doorbells come through a mapping nobody watches. */
#define ENG_ADOPT_FOUND_NS 10000000ull

static int scan_page(int i)
{
	int work = 0;
	{
		uint8_t *page = G.uars[i].page;
		struct eng_bf_check *checks = G.uars[i].bf_check;
		for (uint32_t off = EMU_BF_OFFSET; off < EMU_UAR_PAGE_SIZE; off += ENG_BF_HALF_SIZE) {
			_Atomic uint64_t *db = (_Atomic uint64_t *)(void *)(page + off);
			struct eng_bf_check *check = checks ? &checks[(off - EMU_BF_OFFSET) / ENG_BF_HALF_SIZE] : NULL;
			/* (pending checks only: this runs in every pass, also in the pollers' lent passes) */
			if (!atomic_load_explicit(db, memory_order_relaxed)) {
				if (check && check->deadline)
					eng_bf_check_poll(check, page + off, 0);
				continue;
			}
			if (check && check->deadline)
				eng_bf_check_poll(check, page + off, 1);
			uint64_t v = atomic_exchange(db, 0);
			sq_doorbell((const uint8_t *)&v, page + off, check);
			work = 1;
		}
		_Atomic uint64_t *arm = (_Atomic uint64_t *)(void *)(page + EMU_CQ_ARM_DB_OFFSET);
		if (atomic_load_explicit(arm, memory_order_relaxed)) {
			uint64_t v = atomic_exchange(arm, 0);
			eng_cq_arm_doorbell((const uint8_t *)&v);
			work = 1;
		}
	}
	return work;
}

/*
 * A watched page that is write-protected cannot take a doorbell unseen: the store faults first, and the fault opens
 * the page (eng_doorbell_fault). Such pages are scanned only in a full scan, which finds stores made through a
 * mapping the library never saw (aliased, below); the other passes skip them. Each BlueFlame half costs a load and
 * a branch, and libmlx5 maps several pages per context of which a program uses one or two: in ib_write_bw -s 8,
 * where every post and poll lends a pass, the scan of every half of every page was the largest single cost of the
 * pass (perf).
 */
int eng_scan_doorbells(int full)
{
	int work = 0;
	for (int i = 0; i < G.nuars; i++) {
		struct eng_uar *u = &G.uars[i];
		if (!full && u->watched && !u->open && !u->aliased)
			continue;
		int found = scan_page(i);
		u->landed |= found && u->open;
		/* A store that did not fault on a protected page came through another mapping of it, which the
		 * library never saw (a raw mmap system call, as UCX makes): watch that mapping too, or failing that,
		 * poll the page from now on. */
		u->aliased |= found && u->watched && !u->open;
		if (found && (!u->watched || u->aliased)) {
			eng_adopt_mappings(eng_pass_ns(), ENG_ADOPT_FOUND_NS);
			G.polled_doorbell |= !u->watched || u->aliased;
		}
		work |= found;
	}
	return work;
}

/*
 * Doorbells through mappings the library never saw. UCX's memory hooks turn libmlx5's mmap of the command fd into
 * the system call, so this library learns no address to watch (every page then only polling sees: 4 ms per UCX
 * rc_mlx5 round trip here, the engine waiting for a CPU); a program may also map a page a second time itself
 * (t_raw_uar). The kernel knows the mappings (eng_maps.c): for each page that polling alone sees, watch the
 * program's mappings of it, up to two (the library's, user_va, and one more, alias_va). A page mapped more often
 * stays polled. Reading /proc/self/maps costs tens of microseconds, so at most once per every_ns: right away
 * (ENG_ADOPT_FOUND_NS) when a doorbell came through such a mapping, and slowly in the housekeeping of the passes
 * for pages no doorbell has reached yet (so that the first one faults too).
 */
#define ENG_MAX_FILE_MAPS 64

static int adopt_page(struct eng_uar *u, const struct eng_map *maps, int n)
{
	uintptr_t lo = (uintptr_t)u->ctx->uar_alias;
	uintptr_t hi = lo + (size_t)(u->ctx->num_uar_pages + EMU_DYN_UAR_PAGES) * EMU_UAR_PAGE_SIZE;
	uint64_t off = (uint64_t)u->index * EMU_UAR_PAGE_SIZE;
	for (int i = 0; i < n; i++) {
		const struct eng_map *m = &maps[i];
		if (off < m->offset || off - m->offset >= m->len)
			continue;
		void *va = (void *)(m->start + (off - m->offset));
		if ((uintptr_t)va >= lo && (uintptr_t)va < hi)
			continue; /* K's alias: the engine's own view of the pages */
		if ((va == u->user_va && u->watched) || va == u->alias_va)
			continue;
		if (!u->user_va || va == u->user_va) {
			u->user_va = va;
			u->watched = eng_dbfault_watch(va) == 0;
			if (!u->watched)
				return 0;
		} else if (!u->alias_va && eng_dbfault_watch(va) == 0) {
			u->alias_va = va;
		} else {
			return 0;
		}
		if (emu_log_enabled)
			emu_log("engine: UAR page %d: watching the mapping at %p the library did not see", u->index, va);
	}
	return u->watched;
}

void eng_adopt_mappings(uint64_t now, uint64_t every_ns)
{
	if (!G.dbfault || (G.adopt_ns && now - G.adopt_ns < every_ns))
		return;
	G.adopt_ns = now;
	struct eng_map maps[ENG_MAX_FILE_MAPS];
	struct emu_ctx *ctx = NULL;
	int n = -1;
	for (int i = 0; i < G.nuars; i++) {
		struct eng_uar *u = &G.uars[i];
		if (u->watched && !u->aliased)
			continue;
		if (u->ctx != ctx) { /* one read per context (its pages are one memfd, registered one after another) */
			ctx = u->ctx;
			n = ctx->uar_memfd >= 0 && ctx->uar_alias ? eng_maps_of(ctx->uar_memfd, maps, ENG_MAX_FILE_MAPS) : -1;
		}
		if (n >= 0 && n <= ENG_MAX_FILE_MAPS && adopt_page(u, maps, n))
			u->aliased = 0;
	}
}

/*
 * Before the engine thread sleeps: write-protect again the pages opened by faults whose stores have landed (or
 * are long overdue), so that the next doorbell faults, then look once more for a store that landed before the
 * protection took effect. Pages stay open while the engine is awake: it sees their doorbells by scanning, and a
 * streaming sender then does not pay a fault per doorbell. Returns whether that last look found work.
 */
int eng_protect_open_pages(void)
{
	int work = 0;
	uint64_t now = eng_now_ns();
	for (int i = 0; i < G.nuars; i++) {
		struct eng_uar *u = &G.uars[i];
		if (!u->open || (!u->landed && now - u->open_since <= ENG_DB_OPEN_MAX_NS))
			continue;
		u->open = u->landed = 0;
		eng_dbfault_protect(u->user_va);
		if (u->alias_va)
			eng_dbfault_protect(u->alias_va);
		work |= scan_page(i);
	}
	return work;
}

/* Whether doorbells can be missed while the engine thread sleeps: 2 when a page is not watched through write
 * faults (it is only seen by polling), 1 when a watched page is open for a fault's store, 0 when every doorbell
 * will fault. */
int eng_doorbells_polled(void)
{
	int polled = G.dbfault ? 0 : 2;
	for (int i = 0; i < G.nuars && polled < 2; i++)
		polled = !G.uars[i].watched || G.uars[i].aliased ? 2 : G.uars[i].open ? 1 : polled;
	return polled;
}

/* A doorbell rung just before destroy reached the device while the object existed, so take it now: it must
 * neither be lost nor show up later as a doorbell for an unknown object (a false strict report). */
void eng_take_pending_doorbells_locked(void)
{
	if (G.inbox)
		eng_scan_doorbells(1);
}

/* A record that moved with no doorbell for a second: the driver forgot to ring (hardware would hang too). */
void eng_check_unrung(uint64_t now)
{
	for (struct eng_qp *qp = G.qps; qp; qp = qp->next) {
		/* only compared with what was taken: its acquire order protects nothing here */
		uint32_t rec = udma_device_load_dbrec(&qp->dbrec[1]) & 0xffff;
		if (rec == (qp->sq_pi & 0xffff) || qp->state == EMU_QPS_RESET) {
			qp->rec_stall_since = 0;
			continue;
		}
		uint32_t rec_ahead = (rec - (qp->sq_pi & 0xffff)) & 0xffff;
		if (qp->reg_shared && qp->rec_stall_since && rec_ahead <= qp->sq_cnt) {
			/* on a shared register its doorbell may have been written over by the register's last one
			 * (take_shared_records): a record ahead for a whole slow pass is taken as rung */
			eng_sq_take_record(qp, qp->sq_pi & 0xffff, rec, rec_ahead);
			continue;
		}
		if (!qp->rec_stall_since)
			qp->rec_stall_since = now;
		else if (!qp->rec_stall_reported && now - qp->rec_stall_since > 1000000000ull) {
			qp->rec_stall_reported = 1;
			eng_strict(qp->qpn, qp->sq_pi & 0xffff, "doorbell record advanced to %u but the doorbell was never "
				   "rung (the WQEs will not execute)", rec);
		}
	}
}
