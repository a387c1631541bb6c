/* SPDX-License-Identifier: Apache-2.0 */
/* User memory access (layer 0, uaccess.c): copies that never fault and the mapped-range test. */
#ifndef MLX5EMU_UACCESS_H
#define MLX5EMU_UACCESS_H

#include <stddef.h>
#include <stdint.h>

/* Copy to or from a user VA: 0, or EFAULT for a bad pointer (instead of a crash). */
int emu_copy_to_user(uint64_t va, const void *src, size_t len);
int emu_copy_from_user(void *dst, uint64_t va, size_t len);
/* True if [addr, addr+len) is mapped in this process (the kernel pins user buffers: unmapped is EFAULT). */
int emu_user_range_mapped(uint64_t addr, uint64_t len);

#endif
