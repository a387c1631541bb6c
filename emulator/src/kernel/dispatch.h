/* SPDX-License-Identifier: Apache-2.0 */
/* Layer 3 of the kernel, the uverbs device file (as the kernel's uverbs_main.c): open of
 * /dev/infiniband/uverbsN, its fd references, mmap of the command fd, release of the last fd (ctx.c), and the
 * write() entry that decodes a command and dispatches it to its handler (uverbs.c). The interposers call these. */
#ifndef MLX5EMU_DISPATCH_H
#define MLX5EMU_DISPATCH_H

#include <stddef.h>
#include <sys/types.h>

#include "uverbs.h"

/* ctx.c */
struct emu_ctx *emu_ctx_open(int fd, int dev_index);
void emu_ctx_get(struct emu_ctx *ctx);
void emu_ctx_put(struct emu_ctx *ctx);  /* the last reference tears every object down (uverbs.h) */
void *emu_ctx_mmap(struct emu_ctx *ctx, void *addr, size_t len, int prot, int flags, off_t off);

/* uverbs.c: the write() entry; returns count or -1 with errno, as the kernel's ib_uverbs_write */
ssize_t emu_uverbs_write(struct emu_ctx *ctx, const void *buf, size_t count);

#endif
