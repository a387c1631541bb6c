/* SPDX-License-Identifier: Apache-2.0 */
/* Decoding of the uverbs write() ABI, following the checks of the Linux kernel's ib_uverbs_write() and
 * verify_hdr() (drivers/infiniband/core/uverbs_main.c): header sizes, the legacy and extended layouts, the
 * response pointer, and the split of each request/response into a core part and a driver ("udata") part. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "dispatch.h"

static int cmd_unsupported(struct emu_cmd *cmd)
{
	(void)cmd;
	return EOPNOTSUPP;
}

struct method {
	const char *name;
	emu_cmd_fn  fn;
	size_t      req_size;   /* legacy: whole core request; ex: offsetofend of its last mandatory member */
	size_t      resp_size;  /* minimum core response */
	uint8_t     has_resp;   /* legacy: the request starts with the response VA */
	uint8_t     has_udata;  /* legacy: driver data follows the core parts */
};

#define LEG(cmd_, fn_, req_, resp_, hr_, hu_) \
	[IB_USER_VERBS_CMD_##cmd_] = { #cmd_, fn_, req_, resp_, hr_, hu_ }
#define OFFEND(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

static const struct method legacy[] = {
	LEG(GET_CONTEXT, emu_cmd_get_context, sizeof(struct ib_uverbs_get_context),
	    sizeof(struct ib_uverbs_get_context_resp), 1, 1),
	LEG(QUERY_DEVICE, emu_cmd_query_device, sizeof(struct ib_uverbs_query_device),
	    sizeof(struct ib_uverbs_query_device_resp), 1, 1),
	LEG(QUERY_PORT, emu_cmd_query_port, sizeof(struct ib_uverbs_query_port),
	    sizeof(struct ib_uverbs_query_port_resp), 1, 1),
	LEG(ALLOC_PD, emu_cmd_alloc_pd, sizeof(struct ib_uverbs_alloc_pd),
	    sizeof(struct ib_uverbs_alloc_pd_resp), 1, 1),
	LEG(DEALLOC_PD, emu_cmd_dealloc_pd, sizeof(struct ib_uverbs_dealloc_pd), 0, 0, 0),
	LEG(CREATE_AH, emu_cmd_create_ah, sizeof(struct ib_uverbs_create_ah),
	    sizeof(struct ib_uverbs_create_ah_resp), 1, 1),
	LEG(MODIFY_AH, cmd_unsupported, 0, 0, 0, 0),
	LEG(QUERY_AH, cmd_unsupported, 0, 0, 0, 0),
	LEG(DESTROY_AH, emu_cmd_destroy_ah, sizeof(struct ib_uverbs_destroy_ah), 0, 0, 0),
	LEG(REG_MR, emu_cmd_reg_mr, sizeof(struct ib_uverbs_reg_mr), sizeof(struct ib_uverbs_reg_mr_resp), 1, 1),
	LEG(REG_SMR, cmd_unsupported, 0, 0, 0, 0),
	LEG(REREG_MR, emu_cmd_rereg_mr, sizeof(struct ib_uverbs_rereg_mr),
	    sizeof(struct ib_uverbs_rereg_mr_resp), 1, 1),
	LEG(QUERY_MR, cmd_unsupported, 0, 0, 0, 0),
	LEG(DEREG_MR, emu_cmd_dereg_mr, sizeof(struct ib_uverbs_dereg_mr), 0, 0, 0),
	LEG(ALLOC_MW, cmd_unsupported, 0, 0, 0, 0),
	LEG(BIND_MW, cmd_unsupported, 0, 0, 0, 0),
	LEG(DEALLOC_MW, cmd_unsupported, 0, 0, 0, 0),
	LEG(CREATE_COMP_CHANNEL, emu_cmd_create_comp_channel, sizeof(struct ib_uverbs_create_comp_channel),
	    sizeof(struct ib_uverbs_create_comp_channel_resp), 1, 0),
	LEG(CREATE_CQ, emu_cmd_create_cq, sizeof(struct ib_uverbs_create_cq),
	    sizeof(struct ib_uverbs_create_cq_resp), 1, 1),
	LEG(RESIZE_CQ, emu_cmd_resize_cq, sizeof(struct ib_uverbs_resize_cq),
	    sizeof(struct ib_uverbs_resize_cq_resp), 1, 1),
	LEG(DESTROY_CQ, emu_cmd_destroy_cq, sizeof(struct ib_uverbs_destroy_cq),
	    sizeof(struct ib_uverbs_destroy_cq_resp), 1, 0),
	LEG(POLL_CQ, cmd_unsupported, 0, 0, 0, 0),
	LEG(PEEK_CQ, cmd_unsupported, 0, 0, 0, 0),
	LEG(REQ_NOTIFY_CQ, emu_cmd_req_notify_cq, sizeof(struct ib_uverbs_req_notify_cq), 0, 0, 0),
	LEG(CREATE_QP, emu_cmd_create_qp, sizeof(struct ib_uverbs_create_qp),
	    sizeof(struct ib_uverbs_create_qp_resp), 1, 1),
	LEG(QUERY_QP, emu_cmd_query_qp, sizeof(struct ib_uverbs_query_qp),
	    sizeof(struct ib_uverbs_query_qp_resp), 1, 1),
	LEG(MODIFY_QP, emu_cmd_modify_qp, sizeof(struct ib_uverbs_modify_qp), 0, 0, 1),
	LEG(DESTROY_QP, emu_cmd_destroy_qp, sizeof(struct ib_uverbs_destroy_qp),
	    sizeof(struct ib_uverbs_destroy_qp_resp), 1, 0),
	LEG(POST_SEND, cmd_unsupported, 0, 0, 0, 0),
	LEG(POST_RECV, cmd_unsupported, 0, 0, 0, 0),
	LEG(ATTACH_MCAST, emu_cmd_attach_mcast, sizeof(struct ib_uverbs_attach_mcast), 0, 0, 0),
	LEG(DETACH_MCAST, emu_cmd_detach_mcast, sizeof(struct ib_uverbs_detach_mcast), 0, 0, 0),
	LEG(CREATE_SRQ, emu_cmd_create_srq, sizeof(struct ib_uverbs_create_srq),
	    sizeof(struct ib_uverbs_create_srq_resp), 1, 1),
	LEG(MODIFY_SRQ, emu_cmd_modify_srq, sizeof(struct ib_uverbs_modify_srq), 0, 0, 1),
	LEG(QUERY_SRQ, emu_cmd_query_srq, sizeof(struct ib_uverbs_query_srq),
	    sizeof(struct ib_uverbs_query_srq_resp), 1, 1),
	LEG(DESTROY_SRQ, emu_cmd_destroy_srq, sizeof(struct ib_uverbs_destroy_srq),
	    sizeof(struct ib_uverbs_destroy_srq_resp), 1, 0),
	LEG(POST_SRQ_RECV, cmd_unsupported, 0, 0, 0, 0),
	LEG(OPEN_XRCD, emu_cmd_open_xrcd, sizeof(struct ib_uverbs_open_xrcd),
	    sizeof(struct ib_uverbs_open_xrcd_resp), 1, 1),
	LEG(CLOSE_XRCD, emu_cmd_close_xrcd, sizeof(struct ib_uverbs_close_xrcd), 0, 0, 0),
	LEG(CREATE_XSRQ, emu_cmd_create_xsrq, sizeof(struct ib_uverbs_create_xsrq),
	    sizeof(struct ib_uverbs_create_srq_resp), 1, 1),
	LEG(OPEN_QP, emu_cmd_open_qp, sizeof(struct ib_uverbs_open_qp), sizeof(struct ib_uverbs_create_qp_resp), 1, 1),
};

#define EX(cmd_, fn_, req_, resp_) [IB_USER_VERBS_EX_CMD_##cmd_] = { "EX_" #cmd_, fn_, req_, resp_, 0, 0 }

static const struct method extended[] = {
	EX(QUERY_DEVICE, emu_cmd_ex_query_device, sizeof(struct ib_uverbs_ex_query_device),
	   OFFEND(struct ib_uverbs_ex_query_device_resp, response_length)),
	EX(CREATE_CQ, emu_cmd_ex_create_cq, OFFEND(struct ib_uverbs_ex_create_cq, flags),
	   OFFEND(struct ib_uverbs_ex_create_cq_resp, response_length)),
	EX(CREATE_QP, emu_cmd_ex_create_qp, OFFEND(struct ib_uverbs_ex_create_qp, comp_mask),
	   OFFEND(struct ib_uverbs_ex_create_qp_resp, response_length)),
	EX(MODIFY_QP, emu_cmd_ex_modify_qp, sizeof(struct ib_uverbs_modify_qp),
	   OFFEND(struct ib_uverbs_ex_modify_qp_resp, response_length)),
	/* sizeof(struct ib_uverbs_create_flow) without specs = 24; struct ib_uverbs_destroy_flow = 8 */
	EX(CREATE_FLOW, emu_cmd_ex_create_flow, 24, sizeof(struct ib_uverbs_create_flow_resp)),
	EX(DESTROY_FLOW, emu_cmd_ex_destroy_flow, sizeof(struct ib_uverbs_destroy_flow), 0),
	/* mandatory parts as the kernel's UAPI_DEF_WRITE_IO_EX declarations: create_wq up to max_sge, modify_wq up
	 * to curr_wq_state, create_rwq_ind_table up to log_ind_tbl_size */
	EX(CREATE_WQ, emu_cmd_ex_create_wq, OFFEND(struct ib_uverbs_ex_create_wq, max_sge),
	   OFFEND(struct ib_uverbs_ex_create_wq_resp, wqn)),
	EX(MODIFY_WQ, emu_cmd_ex_modify_wq, OFFEND(struct ib_uverbs_ex_modify_wq, curr_wq_state), 0),
	EX(DESTROY_WQ, emu_cmd_ex_destroy_wq, sizeof(struct ib_uverbs_ex_destroy_wq),
	   OFFEND(struct ib_uverbs_ex_destroy_wq_resp, reserved)),
	EX(CREATE_RWQ_IND_TBL, emu_cmd_ex_create_rwq_ind_tbl,
	   OFFEND(struct ib_uverbs_ex_create_rwq_ind_table, log_ind_tbl_size),
	   OFFEND(struct ib_uverbs_ex_create_rwq_ind_table_resp, ind_tbl_num)),
	EX(DESTROY_RWQ_IND_TBL, emu_cmd_ex_destroy_rwq_ind_tbl, sizeof(struct ib_uverbs_ex_destroy_rwq_ind_table), 0),
	EX(MODIFY_CQ, cmd_unsupported, 0, 0),
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int dispatch(struct emu_ctx *ctx, const uint8_t *buf, size_t count, const struct method **mp,
		    struct emu_cmd *cmd)
{
	struct ib_uverbs_cmd_hdr hdr;
	const struct method *m = NULL;

	if (count < sizeof(hdr))
		return EINVAL;
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.command & ~(uint32_t)(IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_CMD_COMMAND_MASK))
		return EINVAL;
	uint32_t c = hdr.command & IB_USER_VERBS_CMD_COMMAND_MASK;
	int ex = (hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED) != 0;

	if (ex && c < NELEM(extended) && extended[c].fn)
		m = &extended[c];
	else if (!ex && c < NELEM(legacy) && legacy[c].fn)
		m = &legacy[c];
	*mp = m;
	memset(cmd, 0, sizeof(*cmd));
	cmd->ctx = ctx;
	cmd->command = c;
	cmd->extended = ex;
	if (!m)
		return EOPNOTSUPP;
	if (m->fn == cmd_unsupported)
		return EOPNOTSUPP;

	if (ex) {
		struct ib_uverbs_ex_cmd_hdr eh;
		if (count < sizeof(hdr) + sizeof(eh))
			return EINVAL;
		memcpy(&eh, buf + sizeof(hdr), sizeof(eh));
		size_t body = count - sizeof(hdr) - sizeof(eh);
		if (((size_t)hdr.in_words + eh.provider_in_words) * 8 != body)
			return EINVAL;
		if ((size_t)hdr.in_words * 8 < m->req_size)
			return ENOSPC;
		if (eh.cmd_hdr_reserved)
			return EINVAL;
		if (eh.response) {
			if (!hdr.out_words && !eh.provider_out_words)
				return EINVAL;
			if ((size_t)hdr.out_words * 8 < m->resp_size)
				return ENOSPC;
		} else if (hdr.out_words || eh.provider_out_words) {
			return EINVAL;
		}
		cmd->in = buf + sizeof(hdr) + sizeof(eh);
		cmd->in_len = (size_t)hdr.in_words * 8;
		cmd->drv_in = cmd->in + cmd->in_len;
		cmd->drv_in_len = (size_t)eh.provider_in_words * 8;
		cmd->resp = eh.response;
		cmd->resp_len = (size_t)hdr.out_words * 8;
		cmd->drv_out = eh.response ? eh.response + cmd->resp_len : 0;
		cmd->drv_out_len = (size_t)eh.provider_out_words * 8;
		return 0;
	}

	if ((size_t)hdr.in_words * 4 != count)
		return EINVAL;
	if (count < m->req_size + sizeof(hdr))
		return ENOSPC;
	if ((size_t)hdr.out_words * 4 < m->resp_size)
		return ENOSPC;
	size_t in_len = count - sizeof(hdr);
	size_t out_len = (size_t)hdr.out_words * 4;
	cmd->in = buf + sizeof(hdr);
	cmd->in_len = m->req_size;
	if (m->has_udata) {
		cmd->drv_in = cmd->in + m->req_size;
		cmd->drv_in_len = in_len - m->req_size;
	}
	if (m->has_resp) {
		uint64_t response;
		memcpy(&response, cmd->in, sizeof(response));
		cmd->resp = response;
		cmd->resp_len = m->has_udata ? m->resp_size : out_len;
		if (m->has_udata && out_len > m->resp_size) {
			cmd->drv_out = response + m->resp_size;
			cmd->drv_out_len = out_len - m->resp_size;
		}
	}
	return 0;
}

/* Largest command we accept; the biggest real one (create_flow with many specs) is far below. */
#define MAX_CMD_BYTES (64 * 1024)

ssize_t emu_uverbs_write(struct emu_ctx *ctx, const void *ubuf, size_t count)
{
	const struct method *m = NULL;
	struct emu_cmd cmd;
	uint8_t stack_buf[1024];
	int copied = 0;
	uint8_t *buf = stack_buf;
	int err;

	if (ctx->owner_pid != getpid()) {
		/* an fd inherited over fork: its objects live in the parent */
		if (emu_log_enabled)
			emu_log("command on a uverbs fd inherited from pid %d -> EIO", (int)ctx->owner_pid);
		errno = EIO;
		return -1;
	}
	if (count > MAX_CMD_BYTES) {
		errno = EINVAL;
		return -1;
	}
	if (count > sizeof(stack_buf)) {
		buf = malloc(count);
		if (!buf) {
			errno = ENOMEM;
			return -1;
		}
	}
	/* copy the whole command first, so a bad buffer is EFAULT and later reads need no care */
	memset(&cmd, 0, sizeof(cmd));
	err = emu_copy_from_user(buf, (uint64_t)(uintptr_t)ubuf, count);
	copied = !err;
	if (!err)
		err = dispatch(ctx, buf, count, &m, &cmd);
	if (!err) {
		if (!ctx->have_context && !(cmd.command == IB_USER_VERBS_CMD_GET_CONTEXT && !cmd.extended))
			err = EINVAL; /* no ucontext yet: only GET_CONTEXT is allowed */
		else
			err = m->fn(&cmd);
	}
	if (emu_log_enabled) {
		char unknown[32];
		if (!m) {
			uint32_t raw = 0;
			if (copied && count >= 4)
				memcpy(&raw, buf, 4);
			snprintf(unknown, sizeof(unknown), "command 0x%x", raw);
		}
		emu_log("fd=%d %s in=%zu drv_in=%zu resp=%zu drv_out=%zu -> %s", ctx->cmd_fd, m ? m->name : unknown,
			cmd.in_len, cmd.drv_in_len, cmd.resp_len, cmd.drv_out_len, err ? strerror(err) : "ok");
	}
	if (buf != stack_buf)
		free(buf);
	if (err) {
		errno = err;
		return -1;
	}
	return (ssize_t)count;
}
