/* SPDX-License-Identifier: Apache-2.0 */
/* What every command handler shares (layer 2): the core and driver response writers and the copy of the driver
 * request, with the kernel's truncation and ib_is_udata_cleared rules. */
#include <errno.h>
#include <string.h>

#include "uverbs.h"

int emu_cmd_respond(struct emu_cmd *cmd, const void *resp, size_t len)
{
	if (!cmd->resp)
		return 0;
	return emu_copy_to_user(cmd->resp, resp, len < cmd->resp_len ? len : cmd->resp_len);
}

int emu_cmd_respond_drv(struct emu_cmd *cmd, const void *resp, size_t len)
{
	if (!cmd->drv_out || !cmd->drv_out_len)
		return 0;
	return emu_copy_to_user(cmd->drv_out, resp, len < cmd->drv_out_len ? len : cmd->drv_out_len);
}

int emu_cmd_drv_in(const struct emu_cmd *cmd, void *dst, size_t dst_len)
{
	memset(dst, 0, dst_len);
	size_t n = cmd->drv_in_len < dst_len ? cmd->drv_in_len : dst_len;
	if (n)
		memcpy(dst, cmd->drv_in, n);
	for (size_t i = dst_len; i < cmd->drv_in_len; i++)
		if (cmd->drv_in[i])
			return EINVAL;
	return 0;
}
