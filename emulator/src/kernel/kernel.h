/* Internal interfaces of the uverbs "kernel" (src/kernel). Not for the engine: it uses emu_objects.h. */
#ifndef MLX5EMU_KERNEL_H
#define MLX5EMU_KERNEL_H

#include <stddef.h>
#include <sys/types.h>

#include "emu_objects.h"

/* Real libc entry points (resolved with dlsym(RTLD_NEXT) in interpose.c). */
ssize_t emu_real_write(int fd, const void *buf, size_t count);
int emu_real_close(int fd);

/* objects.c */
void emu_ctx_link(struct emu_ctx *ctx);
void emu_ctx_unlink(struct emu_ctx *ctx);
void emu_objects_after_fork_child(void);

/* registry.c */
int emu_reg_attach(void);                  /* map (create if needed) the fabric registry; 0 or errno */
void emu_reg_detach_process(void);         /* at exit: free this process's entries */
void emu_reg_after_fork_child(void);
uint32_t emu_reg_alloc_cqn(void);
uint32_t emu_reg_alloc_srqn(void);
uint32_t emu_reg_alloc_pdn(void);
uint32_t emu_reg_alloc_mkey(void);
int emu_reg_qp_alloc(struct emu_qp *qp);   /* assigns qp->qpn and qp->reg_slot; 0 or errno */
void emu_reg_qp_update(const struct emu_qp *qp);
void emu_reg_qp_free(const struct emu_qp *qp);

#endif
