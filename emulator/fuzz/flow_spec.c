/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the EX_CREATE_FLOW payload parser (src/kernel/flow_spec.c) and the steering match
 * (src/engine/eng_frame.c): arbitrary bytes as the core request, then the first bytes again as a frame matched
 * against whatever rule came out. Must never crash, read out of bounds or hang; an accepted rule must be
 * internally consistent.
 */
#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "flow_rule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct emu_flow_rule r;
	uint32_t qph;
	int err = emu_flow_parse(data, size, &qph, &r);
	if (err != 0 && err != EINVAL && err != EOPNOTSUPP && err != ENOMEM)
		__builtin_trap(); /* only the kernel's errnos */
	if (err)
		return 0;
	if (r.priority > 15 || r.type > 3 || (r.has_tag && r.tag >= (1u << 24)))
		__builtin_trap();
	if (r.ip_version && r.ethertype_m != 0xffff)
		__builtin_trap(); /* an IP spec always implies the ethertype match */
	struct emu_frame_info fi;
	if (emu_frame_parse(data, size, &fi) == 0)
		(void)emu_flow_match(&r, &fi);
	return 0;
}
