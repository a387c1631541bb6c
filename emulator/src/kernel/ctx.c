/* SPDX-License-Identifier: Apache-2.0 */
/* Life of one uverbs context: open of /dev/infiniband/uverbsN, the fd references (dup, dup2, fcntl), the static
 * UAR pages behind mmap of the command fd, and the teardown when the last fd closes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/mlx5-abi.h>

#include "emu_clock.h"
#include "engine_hooks.h"
#include "dispatch.h"

struct emu_ctx *emu_ctx_open(int fd, int dev_index)
{
	const struct emu_port_info *port = emu_port_info(dev_index);
	if (!port) {
		errno = ENODEV;
		return NULL;
	}
	int rc = emu_reg_attach();
	if (rc) {
		emu_log("cannot attach the fabric registry: %s", strerror(rc));
		errno = rc;
		return NULL;
	}
	struct emu_ctx *ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		errno = ENOMEM;
		return NULL;
	}
	ctx->owner_pid = getpid();
	ctx->cmd_fd = fd;
	ctx->fd_refs = 1;
	ctx->dev_index = dev_index;
	ctx->port = port;
	ctx->async_read_fd = -1;
	ctx->async_write_fd = -1;
	ctx->async_keep_fd = -1;
	ctx->uar_memfd = -1;
	ctx->next_handle = 1;
	emu_ctx_link(ctx);
	if (emu_log_enabled)
		emu_log("open uverbs%d -> fd %d", dev_index, fd);
	return ctx;
}

void emu_ctx_get(struct emu_ctx *ctx)
{
	emu_lock();
	ctx->fd_refs++;
	emu_unlock();
}

static void ctx_destroy(struct emu_ctx *ctx)
{
	int foreign = ctx->owner_pid != getpid();

	if (!foreign) {
		emu_ctx_unlink(ctx);
		emu_destroy_all_objects(ctx);
		/* Only a context the engine was told of: one whose GET_CONTEXT was refused (a DEVX request, as UCX makes
		 * next to its plain context) never counted, and its close must not count down another live one's (the
		 * engine stops with the last, and takes the process off the fabric). */
		if (ctx->have_context)
			emu_engine_ctx_closing(ctx);
		if (ctx->uar_alias)
			munmap(ctx->uar_alias, emu_uar_file_len(ctx));
	}
	/* A foreign (inherited over fork) context has no engine and no doorbell mappings (MADV_DONTFORK);
	 * its object copies are only memory. */
	for (struct emu_comp_channel *ch = ctx->channels, *n; ch; ch = n) {
		n = ch->next;
		emu_close_fd(&ch->write_fd);
		emu_close_fd(&ch->keep_fd);
		free(ch);
	}
	emu_async_release(ctx); /* its unread events go; the program's async fd reads EIO from now on */
	emu_close_fd(&ctx->async_write_fd);
	emu_close_fd(&ctx->async_keep_fd);
	emu_close_fd(&ctx->uar_memfd);
	if (emu_log_enabled)
		emu_log("context of fd %d destroyed%s", ctx->cmd_fd, foreign ? " (inherited copy)" : "");
	free(ctx);
}

void emu_ctx_put(struct emu_ctx *ctx)
{
	emu_lock();
	int last = --ctx->fd_refs == 0;
	emu_unlock();
	if (last)
		ctx_destroy(ctx);
}

/* libmlx5 maps static UAR page i at offset ((cmd << 8) | i) * page_size (rdma-core v44 providers/mlx5/mlx5.c,
 * get_uar_mmap_offset): cmd 0 = MLX5_IB_MMAP_REGULAR_PAGE, 3 = MLX5_IB_MMAP_NC_PAGE (MLX5_SHUT_UP_BF). Both are
 * the same page here. cmd 5 (MLX5_IB_MMAP_CORE_CLOCK) and 7 (MLX5_IB_MMAP_CLOCK_INFO) are the clock pages
 * (clock.c). cmd 6 (MLX5_IB_MMAP_ALLOC_WC) allocates dynamic page k, the "extended index" (bits 0-7 of the page
 * offset, and bits 16 and up for the rest), as Linux uar_mmap() does for a context with static bfregs: k past the
 * dynamic pages, or k already allocated, is EINVAL. Every other command (device memory) is refused the way a
 * kernel without that feature refuses it. */
#define MMAP_CMD_SHIFT 8
#define MMAP_REGULAR_PAGE 0
#define MMAP_NC_PAGE 3

/* Claims dynamic page k for ALLOC_WC; it stays allocated until the context closes, as in the kernel (libmlx5
 * never maps the same legacy index twice). */
static int reserve_dyn_page(struct emu_ctx *ctx, uint64_t k)
{
	int ok = 0;
	emu_lock();
	if (k < EMU_DYN_UAR_PAGES && !ctx->dyn_uar_mapped[k]) {
		ctx->dyn_uar_mapped[k] = 1;
		ok = 1;
	}
	emu_unlock();
	return ok;
}

void *emu_ctx_mmap(struct emu_ctx *ctx, void *addr, size_t len, int prot, int flags, off_t off)
{
	uint64_t pgoff = (uint64_t)off / EMU_UAR_PAGE_SIZE;
	uint32_t cmd = (uint32_t)(pgoff >> MMAP_CMD_SHIFT) & 0xff;  /* Linux get_command() */
	uint32_t idx = (uint32_t)(pgoff & ((1u << MMAP_CMD_SHIFT) - 1)); /* get_index() */
	uint64_t ext = idx | (pgoff >> 16) << MMAP_CMD_SHIFT;          /* get_extended_index() */
	int dyn = cmd == MLX5_IB_MMAP_ALLOC_WC;
	int err = 0;
	void *p = MAP_FAILED;

	if (ctx->owner_pid != getpid()) {
		err = EIO;
	} else if ((uint64_t)off % EMU_UAR_PAGE_SIZE || len != EMU_UAR_PAGE_SIZE) {
		err = EINVAL;
	} else if (!(flags & MAP_SHARED)) {
		err = EINVAL;
	} else if (ctx->have_context && (cmd == MLX5_IB_MMAP_CORE_CLOCK || cmd == MLX5_IB_MMAP_CLOCK_INFO)) {
		p = emu_clock_mmap(addr, len, prot, flags, cmd, idx, &err);
		if (emu_log_enabled)
			emu_log("mmap fd=%d clock page cmd=%u -> %p%s%s", ctx->cmd_fd, cmd, p, err ? " " : "",
				err ? strerror(err) : "");
		errno = err;
		return p;
	} else if (dyn && (!ctx->have_context || !reserve_dyn_page(ctx, ext))) {
		err = EINVAL;
	} else if (!dyn && cmd != MMAP_REGULAR_PAGE && cmd != MMAP_NC_PAGE) {
		err = EINVAL;
	} else if (!dyn && (!ctx->have_context || idx >= ctx->num_uar_pages)) {
		err = EINVAL;
	} else {
		if (dyn)
			idx = ctx->num_uar_pages + (uint32_t)ext;
		p = emu_real_mmap(addr, len, prot, flags, ctx->uar_memfd, (off_t)idx * EMU_UAR_PAGE_SIZE);
		if (p == MAP_FAILED) {
			err = errno;
			if (dyn) {
				emu_lock();
				ctx->dyn_uar_mapped[ext] = 0;
				emu_unlock();
			}
		} else {
			/* UAR mappings are VM_DONTCOPY in the kernel (rdma_user_mmap_io): a fork child has none */
			madvise(p, len, MADV_DONTFORK);
			emu_lock();
			ctx->uar_user_va[idx] = p;
			emu_unlock();
		}
	}
	if (emu_log_enabled)
		emu_log("mmap fd=%d cmd=%u page=%u len=%zu -> %p%s%s", ctx->cmd_fd, cmd, idx, len, p,
			err ? " " : "", err ? strerror(err) : "");
	if (err) {
		errno = err;
		return MAP_FAILED;
	}
	emu_engine_uar_mapped(ctx, (int)idx, p);
	return p;
}
