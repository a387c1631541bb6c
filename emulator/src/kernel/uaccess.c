/* SPDX-License-Identifier: Apache-2.0 */
/* User memory access (layer 0), as the kernel's uaccess: copies to and from a user address that never fault (a bad
 * pointer is EFAULT), and the test that a user range is mapped (the kernel pins user buffers: unmapped is EFAULT). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "uaccess.h"

/* ---- safe user copies: a bad pointer gives EFAULT instead of a crash ---- */

static int g_pvm_broken; /* process_vm_* refused (seccomp): fall back to plain copies */

static int pvm_copy(void *local, uint64_t remote, size_t len, int to_user)
{
	if (len == 0)
		return 0;
	if (!remote)
		return EFAULT;
	if (!g_pvm_broken) {
		struct iovec l = { local, len };
		struct iovec r = { (void *)(uintptr_t)remote, len };
		ssize_t n = to_user ? process_vm_writev(getpid(), &l, 1, &r, 1, 0)
				    : process_vm_readv(getpid(), &l, 1, &r, 1, 0);
		if (n == (ssize_t)len)
			return 0;
		if (n < 0 && (errno == ENOSYS || errno == EPERM))
			g_pvm_broken = 1;
		else
			return EFAULT;
	}
	if (to_user)
		memcpy((void *)(uintptr_t)remote, local, len);
	else
		memcpy(local, (const void *)(uintptr_t)remote, len);
	return 0;
}

int emu_copy_to_user(uint64_t va, const void *src, size_t len)
{
	return pvm_copy((void *)src, va, len, 1);
}

int emu_copy_from_user(void *dst, uint64_t va, size_t len)
{
	return pvm_copy(dst, va, len, 0);
}

int emu_user_range_mapped(uint64_t addr, uint64_t len)
{
	if (!addr || addr + len < addr)
		return 0;
	uint64_t start = addr & ~4095ULL, end = (addr + len + 4095) & ~4095ULL;
	if (end < start)
		return 0;
	/* msync(MS_ASYNC) walks the mappings of the range without touching a page: ENOMEM when part of it is
	 * unmapped, in one system call whatever the length */
	return msync((void *)(uintptr_t)start, end - start, MS_ASYNC) == 0;
}
