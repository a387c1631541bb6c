/* SPDX-License-Identifier: Apache-2.0 */
/* Context-level commands: GET_CONTEXT (with the mlx5 driver part, and the context's UAR memfd and async event pipe
 * it sets up), QUERY_DEVICE, EX_QUERY_DEVICE, QUERY_PORT, CREATE_COMP_CHANNEL. The device answers like a
 * ConnectX-5 (PCI 15b3:1017, MT4119) behind a Linux kernel that predates dynamic UAR allocation through the
 * write() ABI. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <endian.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/mlx5-abi.h>

#include "emu_clock.h"
#include "engine_hooks.h"
#include "rss_wq.h"
#include "eth_knobs.h"
#include "emu_profile.h"
#include "uverbs.h"

/* Undoes emu_ctx_setup_resources (all of it, or what a failure in it left) for a GET_CONTEXT that fails: the
 * user never received the async fd, so it is closed here too, and a retry starts from nothing. */
static void emu_ctx_drop_resources(struct emu_ctx *ctx)
{
	emu_async_release(ctx);
	if (ctx->uar_alias)
		munmap(ctx->uar_alias, emu_uar_file_len(ctx));
	ctx->uar_alias = NULL;
	ctx->num_uar_pages = 0;
	if (ctx->uar_memfd >= 0 && ftruncate(ctx->uar_memfd, 0) < 0)
		emu_close_fd(&ctx->uar_memfd); /* cannot happen to a memfd; a retry then makes a fresh one */
	emu_close_fd(&ctx->async_read_fd);
	emu_close_fd(&ctx->async_write_fd);
	emu_close_fd(&ctx->async_keep_fd);
}

/* Called by GET_CONTEXT: the memfd holding every UAR page (the command fd's file when the context was opened
 * through open(), so that a raw mmap of the command fd maps the same pages), K's alias mapping of it, and the
 * async event pipe. */
static int emu_ctx_setup_resources(struct emu_ctx *ctx, uint32_t num_pages)
{
	int pfd[2];

	if (ctx->uar_memfd < 0)
		ctx->uar_memfd = memfd_create("mlx5emu-uar", MFD_CLOEXEC);
	if (ctx->uar_memfd < 0)
		return errno;
	ctx->num_uar_pages = num_pages;
	size_t len = emu_uar_file_len(ctx);
	if (len && ftruncate(ctx->uar_memfd, (off_t)len) < 0)
		return errno;
	if (len) {
		void *p = emu_real_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->uar_memfd, 0);
		if (p == MAP_FAILED)
			return errno;
		madvise(p, len, MADV_DONTFORK);
		ctx->uar_alias = p;
	}
	/* The async fd: the user reads struct ib_uverbs_async_event_desc from it. The write end is non-blocking
	 * so the engine can never block on a full pipe. */
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return errno;
	fcntl(pfd[1], F_SETFL, O_NONBLOCK);
	ctx->async_read_fd = pfd[0];
	ctx->async_write_fd = pfd[1];
	ctx->async_keep_fd = fcntl(pfd[0], F_DUPFD_CLOEXEC, 0);
	if (ctx->async_keep_fd < 0)
		return errno;
	return emu_async_open(ctx); /* the events themselves queue in async_event.c; the pipe signals readiness */
}

/* Linux mlx5_ib_alloc_ucontext: MLX5_MAX_BFREGS (256 UAR pages x 2 non-fast-path bfregs). */
#define MAX_BFREGS (2 * EMU_MAX_UAR_PAGES)

uint32_t emu_num_comp_vectors(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : (n > 63 ? 63 : (uint32_t)n);
}

int emu_cmd_get_context(struct emu_cmd *cmd)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct mlx5_ib_alloc_ucontext_req_v2 req;
	struct ib_uverbs_get_context_resp resp;
	struct mlx5_ib_alloc_ucontext_resp dresp;
	int ver;

	if (ctx->have_context)
		return EINVAL;
	/* request versions as mlx5_ib_alloc_ucontext tells them apart: v0 is exactly 8 bytes, v2 reaches
	 * at least max_cqe_version */
	if (cmd->drv_in_len == sizeof(struct mlx5_ib_alloc_ucontext_req))
		ver = 0;
	else if (cmd->drv_in_len >= offsetof(struct mlx5_ib_alloc_ucontext_req_v2, max_cqe_version))
		ver = 2;
	else
		return EINVAL;
	memset(&req, 0, sizeof(req));
	memcpy(&req, cmd->drv_in, cmd->drv_in_len < sizeof(req) ? cmd->drv_in_len : sizeof(req));
	/* DEVX is not emulated: answer as mlx5_ib_devx_create() does for a device without it (log_max_uctx 0:
	 * "0 means not supported", EINVAL). libmlx5 then opens a plain context (ibv_open_device) or fails
	 * mlx5dv_open_device(MLX5DV_CONTEXT_FLAGS_DEVX), and UCX falls back to its non-DEVX mlx5 path. */
	if (req.flags & MLX5_IB_ALLOC_UCTX_DEVX)
		return EINVAL;
	if (req.flags || req.comp_mask || req.reserved0 || req.reserved1 || req.reserved2)
		return EOPNOTSUPP;
	if (req.total_num_bfregs == 0)
		return EINVAL;
	/* whole UAR pages: 2 bfregs each. Rounded in 64 bits: in 32, 0xffffffff would wrap to 0 and pass as a
	 * context without a single UAR page. */
	uint64_t total64 = ((uint64_t)req.total_num_bfregs + 1) & ~1ull;
	if (total64 > MAX_BFREGS)
		return ENOMEM;
	uint32_t total = (uint32_t)total64;
	if (req.num_low_latency_bfregs > total - 1)
		return EINVAL;

	int err = emu_ctx_setup_resources(ctx, total / 2);
	if (!err)
		err = emu_clock_setup();
	if (err) {
		emu_ctx_drop_resources(ctx);
		return err;
	}
	ctx->tot_bfregs = total;
	ctx->num_low_lat_bfregs = req.num_low_latency_bfregs;
	ctx->cqe_version = ver >= 2 && req.max_cqe_version >= 1 ? 1 : 0;

	memset(&resp, 0, sizeof(resp));
	resp.async_fd = (uint32_t)ctx->async_read_fd;
	resp.num_comp_vectors = emu_num_comp_vectors();

	memset(&dresp, 0, sizeof(dresp));
	dresp.qp_tab_size = 1u << 18;
	dresp.bf_reg_size = EMU_BF_REG_SIZE;
	dresp.tot_bfregs = total;
	dresp.cache_line_size = 64;
	dresp.max_sq_desc_sz = EMU_MAX_SQ_DESC_SZ;
	dresp.max_rq_desc_sz = EMU_MAX_RQ_DESC_SZ;
	dresp.max_send_wqebb = EMU_MAX_QP_WR;
	dresp.max_recv_wr = EMU_MAX_QP_WR;
	dresp.max_srq_recv_wr = EMU_MAX_SRQ_WR;
	dresp.num_ports = 1;
	/* no dump-fill mkey, no ECE; real-time timestamps from ConnectX-6 Dx on (set_ucontext_resp, profile.c) */
	dresp.comp_mask = emu_profile()->real_time_ts ? MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_REAL_TIME_TS : 0;
	dresp.cqe_version = ctx->cqe_version;
	dresp.cmds_supp_uhw = MLX5_USER_CMDS_SUPP_UHW_QUERY_DEVICE | MLX5_USER_CMDS_SUPP_UHW_CREATE_AH;
	dresp.eth_min_inline = ctx->port->link_layer == EMU_LINK_ETH ? emu_eth_min_inline() : 0;
	dresp.clock_info_versions = 0;
	dresp.log_uar_size = 12;      /* 4 KiB UARs, one per system page */
	dresp.num_uars_per_page = 1;
	dresp.num_dyn_bfregs = 2 * EMU_DYN_UAR_PAGES; /* legacy dynamic UARs through MLX5_IB_MMAP_ALLOC_WC (ctx.c) */
	emu_clock_ucontext_resp(&dresp, cmd->drv_out_len); /* the clock pages (clock.c) */
	size_t dlen = cmd->drv_out_len < sizeof(dresp) ? cmd->drv_out_len : sizeof(dresp);
	dresp.response_length = (uint32_t)dlen;

	err = emu_cmd_respond(cmd, &resp, sizeof(resp));
	if (!err)
		err = emu_cmd_respond_drv(cmd, &dresp, sizeof(dresp));
	if (err) {
		emu_ctx_drop_resources(ctx); /* no context: a retry sets everything up again */
		return err;
	}
	emu_lock();
	ctx->have_context = 1;
	emu_unlock();
	if (emu_log_enabled)
		emu_log("context: %u bfregs (%u low latency), %u UAR pages, cqe_version %u, async fd %d", total,
			ctx->num_low_lat_bfregs, ctx->num_uar_pages, ctx->cqe_version, ctx->async_read_fd);
	emu_engine_ctx_opened(ctx);
	emu_port_watch_start();
	/* Watch every UAR page from now on: a program may map them with a raw mmap system call that only the
	 * memfd behind the command fd sees (libmlx5 maps all of them at once anyway). */
	for (uint32_t i = 0; i < ctx->num_uar_pages; i++)
		emu_engine_uar_mapped(ctx, (int)i, NULL);
	return 0;
}

/* ConnectX attributes as a real one of the profile's generation reports them (profile.c), limited where the
 * emulator enforces smaller limits. */
static void fill_device_attr(const struct emu_ctx *ctx, struct ib_uverbs_query_device_resp *r)
{
	const struct emu_profile *prof = emu_profile();
	memset(r, 0, sizeof(*r));
	/* mlx5_ib_query_device: fw_rev_maj << 32 | fw_rev_min << 16 | fw_rev_sub; libibverbs prints it as x.y.z */
	r->fw_ver = ((uint64_t)prof->fw_major << 32) | ((uint64_t)prof->fw_minor << 16) | prof->fw_sub;
	r->node_guid = htobe64(ctx->port->node_guid);
	r->sys_image_guid = htobe64(ctx->port->node_guid);
	r->max_mr_size = UINT64_MAX;
	r->page_size_cap = 0xfffffffffffff000ULL;
	r->vendor_id = 0x02c9;
	r->vendor_part_id = prof->vendor_part_id;
	r->hw_ver = 0;
	r->max_qp = EMU_REG_QP_SLOTS - 2; /* the fabric registry's QP directory */
	r->max_qp_wr = EMU_MAX_QP_WR;
	r->device_cap_flags = IBV_DEVICE_RESIZE_MAX_WR | IBV_DEVICE_BAD_PKEY_CNTR | IBV_DEVICE_BAD_QKEY_CNTR |
			      IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_SYS_IMAGE_GUID |
			      IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_N_NOTIFY_CQ |
			      IBV_DEVICE_XRC; /* mlx5_ib_query_device: MLX5_CAP_GEN(xrc), set on ConnectX-4 and later */
	r->max_sge = EMU_MAX_SGE;
	r->max_sge_rd = EMU_MAX_SGE;
	r->max_cq = 1u << 24;
	r->max_cqe = EMU_MAX_CQE;
	r->max_mr = 1u << 24;
	r->max_pd = 1u << 24;
	r->max_qp_rd_atom = EMU_MAX_QP_RD_ATOM;
	r->max_res_rd_atom = EMU_MAX_QP_RD_ATOM * (EMU_REG_QP_SLOTS - 2);
	r->max_qp_init_rd_atom = EMU_MAX_QP_RD_ATOM;
	r->atomic_cap = IBV_ATOMIC_HCA;
	r->max_mw = 0;                /* memory windows are not emulated */
	r->max_mcast_grp = EMU_MCAST_ATTACH_MAX;  /* the fabric-wide attachment table (cm_wire.c) */
	r->max_mcast_qp_attach = EMU_MCAST_ATTACH_MAX;
	r->max_total_mcast_qp_attach = EMU_MCAST_ATTACH_MAX;
	r->max_ah = INT32_MAX;
	r->max_map_per_fmr = INT32_MAX;
	r->max_srq = 1u << 23;
	r->max_srq_wr = EMU_MAX_SRQ_WR;
	r->max_srq_sge = EMU_MAX_SRQ_SGE;
	r->max_pkeys = ctx->port->link_layer == EMU_LINK_ETH ? EMU_PKEY_TBL_LEN_ETH : EMU_PKEY_TBL_LEN_IB;
	r->local_ca_ack_delay = 16;
	r->phys_port_cnt = 1;
	if (ctx->port->link_layer == EMU_LINK_ETH)
		r->device_cap_flags |= IBV_DEVICE_RAW_IP_CSUM; /* mlx5_ib_query_device(): csum_cap on Ethernet */
}

int emu_cmd_query_device(struct emu_cmd *cmd)
{
	struct ib_uverbs_query_device_resp r;
	fill_device_attr(cmd->ctx, &r);
	return emu_cmd_respond(cmd, &r, sizeof(r));
}

int emu_cmd_ex_query_device(struct emu_cmd *cmd)
{
	struct ib_uverbs_ex_query_device req;
	struct ib_uverbs_ex_query_device_resp r;
	struct mlx5_ib_query_device_resp d;

	memcpy(&req, cmd->in, sizeof(req));
	if (req.comp_mask || req.reserved)
		return EINVAL;
	memset(&r, 0, sizeof(r));
	fill_device_attr(cmd->ctx, &r.base);
	r.device_cap_flags_ex = r.base.device_cap_flags;
	r.timestamp_mask = EMU_CLOCK_TIMESTAMP_MASK; /* completion timestamps from the core clock (clock.c) */
	r.hca_core_clock = EMU_CLOCK_KHZ;
	size_t len = cmd->resp_len < sizeof(r) ? cmd->resp_len : sizeof(r);
	r.response_length = (uint32_t)len;

	if (cmd->ctx->port->link_layer == EMU_LINK_ETH)
		r.raw_packet_caps = IBV_RAW_PACKET_CAP_CVLAN_STRIPPING | IBV_RAW_PACKET_CAP_IP_CSUM;
	memset(&d, 0, sizeof(d));
	if (cmd->ctx->port->link_layer == EMU_LINK_ETH) {
		/* LSO on raw packet QPs (mlx5_ib_query_device(): 1 << lso_max; ConnectX-5 reports 18, 256 KiB) */
		d.tso_caps.max_tso = 1u << 18;
		d.tso_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
		/* packet pacing (IBV_QP_RATE_LIMIT) on raw packet QPs; no burst control (cap_flags 0) */
		d.packet_pacing_caps.qp_rate_limit_min = EMU_PP_RATE_MIN_KBPS;
		d.packet_pacing_caps.qp_rate_limit_max = EMU_PP_RATE_MAX_KBPS;
		d.packet_pacing_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
		/* RSS and WQs (mlx5_ib_query_device(): Ethernet ports with raw packet support): Toeplitz over IPv4/IPv6
		 * addresses and TCP/UDP ports, 2^log_max_rqt tables of up to 2^log_max_rqt_size entries, 2^log_max_rq
		 * WQs; striding RQ within the limits cmd_wq.c enforces (rss_wq.h) */
		r.rss_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
		r.rss_caps.max_rwq_indirection_tables = 1u << 20;
		r.rss_caps.max_rwq_indirection_table_size = 1u << EMU_LOG_MAX_RQT_SIZE;
		r.max_wq_type_rq = 1u << 20;
		d.rss_caps.rx_hash_function = MLX5_RX_HASH_FUNC_TOEPLITZ;
		d.rss_caps.rx_hash_fields_mask = MLX5_RX_HASH_SRC_IPV4 | MLX5_RX_HASH_DST_IPV4 | MLX5_RX_HASH_SRC_IPV6 |
						 MLX5_RX_HASH_DST_IPV6 | MLX5_RX_HASH_SRC_PORT_TCP |
						 MLX5_RX_HASH_DST_PORT_TCP | MLX5_RX_HASH_SRC_PORT_UDP |
						 MLX5_RX_HASH_DST_PORT_UDP;
		if (emu_profile()->striding_rq) { /* MLX5_CAP_GEN(striding_rq): ConnectX-5 and later */
			d.striding_rq_caps.min_single_stride_log_num_of_bytes = EMU_MPRQ_MIN_LOG_STRIDE_BYTES;
			d.striding_rq_caps.max_single_stride_log_num_of_bytes = EMU_MPRQ_MAX_LOG_STRIDE_BYTES;
			d.striding_rq_caps.min_single_wqe_log_num_of_strides = EMU_MPRQ_MIN_LOG_STRIDES;
			d.striding_rq_caps.max_single_wqe_log_num_of_strides = EMU_MPRQ_MAX_LOG_STRIDES;
			d.striding_rq_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
		}
	}
	/* CQE compression on every link layer (mlx5_ib_query_device() does not look at the port): receive CQEs of
	 * a CQ created with cqe_comp_en are compressed by the engine (src/engine/eng_cq.c) */
	d.cqe_comp_caps.max_num = emu_profile()->cqe_comp_formats ? EMU_CQE_COMP_MAX_NUM : 0;
	d.cqe_comp_caps.supported_format = emu_profile()->cqe_comp_formats;
	/* offered on Ethernet: TSO, packet pacing, RSS, striding RQ; never: tunnels */
	size_t dlen = cmd->drv_out_len < sizeof(d) ? cmd->drv_out_len : sizeof(d);
	d.response_length = (uint32_t)dlen;
	int err = emu_cmd_respond(cmd, &r, len);
	if (!err)
		err = emu_cmd_respond_drv(cmd, &d, dlen);
	return err;
}

int emu_cmd_query_port(struct emu_cmd *cmd)
{
	struct ib_uverbs_query_port req;
	struct ib_uverbs_query_port_resp r;
	const struct emu_port_info *p = cmd->ctx->port;

	memcpy(&req, cmd->in, sizeof(req));
	if (req.port_num != 1)
		return EINVAL;
	memset(&r, 0, sizeof(r));
	r.max_msg_sz = 1u << 30;
	int down = emu_port_is_down(cmd->ctx->dev_index); /* mlx5emu_port_set (port.c) */
	r.state = down ? IBV_PORT_DOWN : IBV_PORT_ACTIVE;
	r.max_mtu = IBV_MTU_4096;
	r.phys_state = down ? 3 : 5; /* Disabled : LinkUp (the sysfs tree says the same) */
	r.active_width = 2; /* 4X */
	if (p->link_layer == EMU_LINK_ETH) {
		r.port_cap_flags = 0x04010000; /* IsCM | IP-based GIDs, as mlx5 reports for RoCE */
		r.gid_tbl_len = EMU_GID_TBL_LEN_ETH;
		r.pkey_tbl_len = EMU_PKEY_TBL_LEN_ETH;
		r.active_mtu = emu_eth_active_mtu(); /* from MLX5EMU_ETH_MTU: 1024 for the default 1500 */
		r.active_speed = 32; /* 25 Gb/s per lane x 4 = 100GbE */
		r.link_layer = IBV_LINK_LAYER_ETHERNET;
		r.max_vl_num = 0;
	} else {
		r.port_cap_flags = 0x2651e848;
		r.gid_tbl_len = EMU_GID_TBL_LEN_IB;
		r.pkey_tbl_len = EMU_PKEY_TBL_LEN_IB;
		r.lid = p->lid;
		r.sm_lid = 1;
		r.active_mtu = IBV_MTU_4096;
		r.active_speed = 32; /* EDR */
		r.link_layer = IBV_LINK_LAYER_INFINIBAND;
		r.max_vl_num = 4;
		r.subnet_timeout = 18;
	}
	return emu_cmd_respond(cmd, &r, sizeof(r));
}

/* The port's effective bandwidth in 100 Mb/s units, as QUERY_PORT describes the link: 4X (active_width 2) of
 * 25 Gb/s lanes (active_speed 32, EDR or 100GbE), on both link layers. */
#define EMU_PORT_SPEED_100MBPS 1000u

int emu_ioctl_query_port_speed(struct emu_ctx *ctx, uint64_t uattrs, unsigned int num_attrs)
{
	/* Linux uverbs_std_types_device.c UVERBS_METHOD_QUERY_PORT_SPEED (rdma-core 65's ibv_query_port_speed, ioctl
	 * only): a mandatory u32 CONST_IN port number and a mandatory u64 PTR_OUT. The framework's rules as
	 * uverbs_ioctl.c applies them: an attribute given twice or of the wrong length is EINVAL, an unknown one
	 * marked mandatory EPROTONOSUPPORT (others are ignored), a missing mandatory one EINVAL. */
	struct ib_uverbs_attr a[16];
	if (num_attrs > sizeof a / sizeof a[0])
		return EINVAL;
	if (num_attrs && emu_copy_from_user(a, uattrs, num_attrs * sizeof a[0]))
		return EFAULT;
	int port_at = -1, resp_at = -1;
	for (unsigned int i = 0; i < num_attrs; i++) {
		int *at;
		if (a[i].attr_id == UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM)
			at = &port_at;
		else if (a[i].attr_id == UVERBS_ATTR_QUERY_PORT_SPEED_RESP)
			at = &resp_at;
		else if (a[i].flags & UVERBS_ATTR_F_MANDATORY)
			return EPROTONOSUPPORT;
		else
			continue;
		if (*at >= 0 || a[i].attr_data.reserved)
			return EINVAL;
		*at = (int)i;
	}
	if (port_at < 0 || resp_at < 0)
		return EINVAL;
	/* CONST_IN: the value inline in data, at most 8 bytes, and within u32 (uverbs_get_const's range check) */
	if (a[port_at].len > sizeof(uint64_t) || a[port_at].data > UINT32_MAX || a[resp_at].len != sizeof(uint64_t))
		return EINVAL;
	if (a[port_at].data != 1) /* rdma_is_port_valid: one port */
		return EINVAL;
	(void)ctx;
	uint64_t speed = EMU_PORT_SPEED_100MBPS;
	if (emu_copy_to_user(a[resp_at].data, &speed, sizeof speed))
		return EFAULT;
	/* uverbs_copy_to marks the output written in the user's attribute (UVERBS_ATTR_F_VALID_OUTPUT) */
	uint16_t flags = (uint16_t)(a[resp_at].flags | UVERBS_ATTR_F_VALID_OUTPUT);
	if (emu_copy_to_user(uattrs + (uint64_t)resp_at * sizeof a[0] + offsetof(struct ib_uverbs_attr, flags), &flags,
			     sizeof flags))
		return EFAULT;
	return 0;
}

/* A channel whose fd the application closed (ibv_destroy_comp_channel) and that no CQ uses any more is only our
 * pipe ends: free them. The user's fd is gone when it is closed or now names another file than our read end. */
static void reap_closed_channels(struct emu_ctx *ctx)
{
	for (struct emu_comp_channel **p = &ctx->channels; *p;) {
		struct emu_comp_channel *ch = *p;
		struct stat a, b;
		int used = 0;
		for (struct emu_cq *cq = ctx->cqs; cq; cq = cq->next)
			used |= cq->comp_fd == ch->write_fd;
		int gone = fstat(ch->read_fd, &a) != 0 || fstat(ch->keep_fd, &b) != 0 || a.st_ino != b.st_ino ||
			   a.st_dev != b.st_dev;
		if (!used && gone) {
			*p = ch->next;
			emu_real_close(ch->write_fd);
			emu_real_close(ch->keep_fd);
			free(ch);
		} else {
			p = &ch->next;
		}
	}
}

int emu_cmd_create_comp_channel(struct emu_cmd *cmd)
{
	struct emu_ctx *ctx = cmd->ctx;
	struct ib_uverbs_create_comp_channel_resp r;
	int pfd[2];

	struct emu_comp_channel *ch = calloc(1, sizeof(*ch));
	if (!ch)
		return ENOMEM;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		int e = errno;
		free(ch);
		return e;
	}
	fcntl(pfd[1], F_SETFL, O_NONBLOCK);
	ch->ctx = ctx;
	ch->read_fd = pfd[0];
	ch->write_fd = pfd[1];
	ch->keep_fd = fcntl(pfd[0], F_DUPFD_CLOEXEC, 0);
	r.fd = (uint32_t)pfd[0];
	int err = ch->keep_fd < 0 ? errno : emu_cmd_respond(cmd, &r, sizeof(r));
	if (err) {
		emu_real_close(pfd[0]);
		emu_real_close(pfd[1]);
		if (ch->keep_fd >= 0)
			emu_real_close(ch->keep_fd);
		free(ch);
		return err;
	}
	emu_lock();
	reap_closed_channels(ctx);
	ch->next = ctx->channels;
	ctx->channels = ch;
	emu_unlock();
	return 0;
}

/* A channel is named by its fd in CREATE_CQ (-1 = none). */
struct emu_comp_channel *emu_channel_by_fd(struct emu_ctx *ctx, int fd)
{
	for (struct emu_comp_channel *ch = ctx->channels; ch; ch = ch->next)
		if (ch->read_fd == fd)
			return ch;
	return NULL;
}
