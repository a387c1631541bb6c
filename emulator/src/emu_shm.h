/* SPDX-License-Identifier: Apache-2.0 */
/*
 * emu_shm.h - the emulator's files in /dev/shm, created, attached, published and reaped in one place (layer 0 of
 * src/kernel/LAYERS, src/kernel/shm.c; the engine calls it too).
 *
 * Every process on one fabric maps the same files, named after the fabric (emu_shm_fabric):
 *   /<fabric>          the fabric registry (registry.c), shared: whoever comes first creates it
 *   /<fabric>-cm       the rdma_cm directory (cm_wire.c), shared the same way
 *   /<fabric>-cm-<pid> a process's rdma_cm mailbox (cm_wire.c), created by its owner, attached by its peers
 *   /<fabric>-eng-<pid> a process's engine inbox (eng_wire.c), the same
 * Each file starts with a 64-bit magic. Its creator stores it last, with release order (emu_shm_publish), after
 * initialising the rest; a process that attaches reads it with acquire order before anything else, so a file whose
 * magic matches is whole. A file of another emulator version has another magic (or size).
 */
#ifndef MLX5EMU_EMU_SHM_H
#define MLX5EMU_EMU_SHM_H

#include <stddef.h>
#include <stdint.h>

/* How long a process attaching to a shared file waits for its creator to size it, and then to publish it. */
#define EMU_SHM_WAIT_MS 2000

/* The fabric's name into buf: MLX5EMU_FABRIC if set to a name without '/', else mlx5emu-<uid>. */
void emu_shm_fabric(char *buf, size_t len);
/* "/<fabric><suffix>", the shm_open name of one of the fabric's files. */
void emu_shm_name(char *buf, size_t len, const char *suffix);

/* Maps the shared file name (size bytes, mode 0600), creating it if no process has yet. Creators race through
 * O_EXCL: exactly one creates and sizes the file (*created = 1; it initialises the contents, then emu_shm_publish);
 * every other caller opens it (*created = 0), waits up to EMU_SHM_WAIT_MS for the creator's ftruncate, and then
 * emu_shm_wait_published. With exact_size, a file that by then has any other size is another version's: ESTALE,
 * and the file is left for the caller to replace; without it, the file is mapped whatever its size, and the caller
 * checks the layout its header describes. A file this call created and could not size is removed again.
 * Returns 0, or an errno value (errno is set too). */
int emu_shm_create_or_attach(const char *name, size_t size, int exact_size, void **addr, int *created);

/* What emu_shm_create does with a file of the same name left by a dead process that had this pid. */
enum emu_shm_stale {
	EMU_SHM_TRUNCATE, /* reuse it, emptied (O_TRUNC): a peer still mapping it sees the new contents */
	EMU_SHM_REPLACE,  /* unlink it first (then O_EXCL): a peer still mapping it keeps the old, unlinked file */
};

/* Creates and maps this process's own file name of size bytes (mode 0600); the caller initialises it, then
 * emu_shm_publish. The file is removed again if it cannot be sized or mapped. Returns 0, or an errno value (errno is
 * set too). */
int emu_shm_create(const char *name, size_t size, enum emu_shm_stale stale, void **addr);

/* Maps another process's file name, if it exists, is at least size bytes long and its magic is published.
 * Returns NULL otherwise (errno as the failing call left it). */
void *emu_shm_attach(const char *name, size_t size, uint64_t magic);

/* The creator's last store to a file: its magic (the first 8 bytes), with release order. */
void emu_shm_publish(void *addr, uint64_t magic);

/* Whether the file at addr has magic published, waiting up to EMU_SHM_WAIT_MS for its creator. */
int emu_shm_wait_published(const void *addr, uint64_t magic);

/* The fabric-wide file /<fabric><suffix> of size bytes that every process maps once and keeps (a directory all
 * processes update under a lock): created or attached through emu_shm_create_or_attach, a file of another layout
 * (ESTALE) replaced (its processes keep their unlinked copy). Its creator initialises the process-shared, robust
 * mutex at lock_offset (emu_shm_robust_init), calls init (may be NULL) on the zeroed contents, and publishes magic.
 * Returns the mapping, or NULL (errno set) when it could be neither created nor attached. */
void *emu_shm_shared_file(const char *suffix, size_t size, uint64_t magic, size_t lock_offset,
			  void (*init)(void *file));

/* A process-shared, robust mutex for a shared file; and its lock, which takes over one whose holder died (the
 * callers' entries are whole once written, so a half-finished holder leaves nothing inconsistent). */
void emu_shm_robust_init(void *pthread_mutex);
void emu_shm_robust_lock(void *pthread_mutex);

/* Removes the files named /<prefix><pid> whose process is gone (kill(pid, 0) says ESRCH; EPERM means alive): a
 * process killed by a signal never removes its own. */
void emu_shm_reap_dead(const char *prefix);

#endif
