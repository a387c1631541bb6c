/* SPDX-License-Identifier: Apache-2.0 */
/* Flow steering: EX_CREATE_FLOW and EX_DESTROY_FLOW (the extended write commands libibverbs 44 uses when the
 * ioctl path is unavailable), with the checks of Linux ib_uverbs_ex_create_flow()/ib_uverbs_ex_destroy_flow()
 * (drivers/infiniband/core/uverbs_cmd.c) and mlx5_ib_create_flow() (drivers/infiniband/hw/mlx5/fs.c). The
 * payload parser is flow_spec.c; the engine receives each rule through emu_engine_flow_created(). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "flow_rule.h"
#include "uverbs.h"

/* Flows of every context of this process (under emu_lock). */
static struct emu_flow *g_flows;

int emu_cap_net_raw(void)
{
	/* The kernel asks capable(CAP_NET_RAW): the effective set of the calling process. */
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return geteuid() == 0;
	return (d[CAP_NET_RAW / 32].effective >> (CAP_NET_RAW % 32)) & 1;
}

int emu_flow_qp_refs(const struct emu_qp *qp)
{
	int n = 0;
	emu_lock();
	for (struct emu_flow *f = g_flows; f; f = f->next)
		n += f->qp == qp;
	emu_unlock();
	return n;
}

int emu_cmd_ex_create_flow(struct emu_cmd *cmd)
{
	struct emu_flow_rule rule;
	uint32_t qp_handle = 0;
	uint32_t comp_mask = 0;

	if (cmd->in_len >= 4)
		memcpy(&comp_mask, cmd->in, 4);
	if (cmd->in_len >= 24 && !comp_mask && !emu_cap_net_raw())
		return EPERM;
	int err = emu_flow_parse(cmd->in, cmd->in_len, &qp_handle, &rule);
	if (err)
		return err;
	/* mlx5's driver data (struct mlx5_ib_create_flow): counters descriptions only, which need counter objects */
	if (cmd->drv_in_len) {
		uint32_t ncounters = 0;
		if (cmd->drv_in_len < 8)
			return EOPNOTSUPP;
		memcpy(&ncounters, cmd->drv_in, 4);
		if (ncounters > 1)
			return EINVAL;
		if (ncounters)
			return EOPNOTSUPP; /* flow counters: not emulated */
		for (size_t i = 8; i < cmd->drv_in_len; i++)
			if (cmd->drv_in[i])
				return EOPNOTSUPP;
	}
	struct emu_flow *f = calloc(1, sizeof(*f));
	if (!f)
		return ENOMEM;
	emu_lock();
	struct emu_qp *qp = emu_qp_by_handle(cmd->ctx, qp_handle);
	if (!qp || (qp->type != IBV_QPT_RAW_PACKET && qp->type != IBV_QPT_UD)) {
		emu_unlock();
		free(f);
		return EINVAL;
	}
	if (qp->type == IBV_QPT_UD) {
		emu_unlock();
		free(f);
		return EOPNOTSUPP; /* UD flows steer IPoIB underlay traffic: not emulated */
	}
	f->ctx = cmd->ctx;
	f->qp = qp;
	f->dev_index = cmd->ctx->dev_index;
	f->rule = rule;
	f->handle = emu_ctx_new_handle(cmd->ctx);
	emu_unlock();

	struct ib_uverbs_create_flow_resp resp = { .comp_mask = 0, .flow_handle = f->handle };
	if ((err = emu_cmd_respond(cmd, &resp, sizeof(resp)))) {
		free(f);
		return err;
	}
	emu_lock();
	f->next = g_flows;
	g_flows = f;
	emu_unlock();
	if (emu_log_enabled)
		emu_log("flow handle %u: qpn 0x%x type %u priority %u fields 0x%x%s%s tag 0x%x dmac %02x:%02x:%02x:%02x:%02x:%02x"
			" ethertype 0x%04x ip %u.%u.%u.%u -> %u.%u.%u.%u proto %u ports %u -> %u", f->handle, qp->qpn,
			rule.type, rule.priority, rule.fields, rule.drop ? " drop" : "", rule.dont_trap ? " dont_trap" : "",
			rule.tag, rule.dmac[0], rule.dmac[1], rule.dmac[2], rule.dmac[3], rule.dmac[4], rule.dmac[5],
			rule.ethertype, rule.src_ip[0], rule.src_ip[1], rule.src_ip[2], rule.src_ip[3], rule.dst_ip[0],
			rule.dst_ip[1], rule.dst_ip[2], rule.dst_ip[3], rule.ip_proto, rule.sport, rule.dport);
	emu_engine_flow_created(f);
	return 0;
}

static struct emu_flow *unlink_flow(struct emu_ctx *ctx, uint32_t handle, int any)
{
	for (struct emu_flow **p = &g_flows; *p; p = &(*p)->next)
		if ((*p)->ctx == ctx && (any || (*p)->handle == handle)) {
			struct emu_flow *f = *p;
			*p = f->next;
			return f;
		}
	return NULL;
}

int emu_cmd_ex_destroy_flow(struct emu_cmd *cmd)
{
	struct ib_uverbs_destroy_flow req;
	memset(&req, 0, sizeof(req));
	memcpy(&req, cmd->in, cmd->in_len < sizeof(req) ? cmd->in_len : sizeof(req));
	if (req.comp_mask)
		return EINVAL;
	emu_lock();
	struct emu_flow *f = unlink_flow(cmd->ctx, req.flow_handle, 0);
	emu_unlock();
	if (!f)
		return EINVAL;
	emu_engine_flow_destroying(f);
	free(f);
	return 0;
}

void emu_destroy_all_flows(struct emu_ctx *ctx)
{
	for (;;) {
		emu_lock();
		struct emu_flow *f = unlink_flow(ctx, 0, 1);
		emu_unlock();
		if (!f)
			break;
		emu_engine_flow_destroying(f);
		free(f);
	}
}
