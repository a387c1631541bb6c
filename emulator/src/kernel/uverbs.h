/* SPDX-License-Identifier: Apache-2.0 */
/* Layer 2 of the kernel, the commands: the uverbs write() ABI as the emulator's "kernel" serves it, one decoded
 * command, the handlers (one file per object kind), what they share (cmd.c), and the teardown of a context's
 * objects. Handlers may call each other's helpers and layers 0-1 (kernel.h); never the dispatcher nor the
 * interposers (dispatch.h, interpose.c). */
#ifndef MLX5EMU_UVERBS_H
#define MLX5EMU_UVERBS_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "kernel.h"

/* One decoded command. For legacy commands the core request starts with the response VA (when the command
 * has a response); the driver ("udata") parts follow the core parts, exactly as the kernel splits them. */
struct emu_cmd {
	struct emu_ctx *ctx;
	uint32_t        command;     /* without the extended flag */
	int             extended;
	const uint8_t  *in;          /* core request (legacy: after ib_uverbs_cmd_hdr; ex: after ex_hdr) */
	size_t          in_len;
	const uint8_t  *drv_in;      /* driver request */
	size_t          drv_in_len;
	uint64_t        resp;        /* core response VA (0 = none) */
	size_t          resp_len;
	uint64_t        drv_out;     /* driver response VA (0 = none) */
	size_t          drv_out_len;
};

typedef int (*emu_cmd_fn)(struct emu_cmd *cmd);

/* cmd.c: core/driver response writers (min(len, room) bytes; 0 or EFAULT): truncate to what the user provided, like the kernel's uverbs_response */
int emu_cmd_respond(struct emu_cmd *cmd, const void *resp, size_t len);
int emu_cmd_respond_drv(struct emu_cmd *cmd, const void *resp, size_t len);
/* Copies the driver request into dst (zero-filled beyond what the user sent). Returns 0, or EINVAL when the user
 * sent more than dst_len bytes and the extra bytes are not all zero (the kernel's ib_is_udata_cleared rule). */
int emu_cmd_drv_in(const struct emu_cmd *cmd, void *dst, size_t dst_len);

/* RoCE: destination MAC of a GID (link-local EUI-64, or a GID of an emulated port); 0 or EHOSTUNREACH. */
int emu_resolve_dmac(const uint8_t *dgid, uint8_t *mac);
/* Completion vectors answered in GET_CONTEXT (one per online CPU, at most 63). */
uint32_t emu_num_comp_vectors(void);

/* Handlers (one file per object kind). Each returns 0 or a positive errno. */
int emu_cmd_get_context(struct emu_cmd *cmd);
int emu_cmd_query_device(struct emu_cmd *cmd);
int emu_cmd_ex_query_device(struct emu_cmd *cmd);
int emu_cmd_query_port(struct emu_cmd *cmd);
/* rdma-core 65's kernel-headers/rdma/ib_user_ioctl_cmds.h (enum uverbs_methods_device, the 8th method, and
 * enum uverbs_attrs_query_port_speed_cmd_attr_ids); Debian 12's headers (rdma-core 44) predate them. */
#define UVERBS_METHOD_QUERY_PORT_SPEED_ID 7
#define UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM 0
#define UVERBS_ATTR_QUERY_PORT_SPEED_RESP 1
/* The ioctl method UVERBS_OBJECT_DEVICE / QUERY_PORT_SPEED: uattrs is the user VA of num_attrs struct
 * ib_uverbs_attr (after the ioctl header); 0 or a positive errno. */
int emu_ioctl_query_port_speed(struct emu_ctx *ctx, uint64_t uattrs, unsigned int num_attrs);
int emu_cmd_alloc_pd(struct emu_cmd *cmd);
int emu_cmd_dealloc_pd(struct emu_cmd *cmd);
int emu_cmd_reg_mr(struct emu_cmd *cmd);
int emu_cmd_rereg_mr(struct emu_cmd *cmd);
int emu_cmd_dereg_mr(struct emu_cmd *cmd);
int emu_cmd_create_comp_channel(struct emu_cmd *cmd);
int emu_cmd_create_cq(struct emu_cmd *cmd);
int emu_cmd_ex_create_cq(struct emu_cmd *cmd);
int emu_cmd_resize_cq(struct emu_cmd *cmd);
int emu_cmd_destroy_cq(struct emu_cmd *cmd);
int emu_cmd_req_notify_cq(struct emu_cmd *cmd);
int emu_cmd_create_qp(struct emu_cmd *cmd);
int emu_cmd_ex_create_qp(struct emu_cmd *cmd);
int emu_cmd_query_qp(struct emu_cmd *cmd);
int emu_cmd_modify_qp(struct emu_cmd *cmd);
int emu_cmd_ex_modify_qp(struct emu_cmd *cmd);
int emu_cmd_destroy_qp(struct emu_cmd *cmd);
int emu_cmd_create_srq(struct emu_cmd *cmd);
int emu_cmd_create_xsrq(struct emu_cmd *cmd);
int emu_cmd_modify_srq(struct emu_cmd *cmd);
int emu_cmd_query_srq(struct emu_cmd *cmd);
int emu_cmd_destroy_srq(struct emu_cmd *cmd);
int emu_cmd_create_ah(struct emu_cmd *cmd);
int emu_cmd_attach_mcast(struct emu_cmd *cmd);
int emu_cmd_detach_mcast(struct emu_cmd *cmd);
int emu_cmd_destroy_ah(struct emu_cmd *cmd);
int emu_cmd_ex_create_flow(struct emu_cmd *cmd);
int emu_cmd_ex_destroy_flow(struct emu_cmd *cmd);

/* cmd_flow.c: CAP_NET_RAW in the effective set (raw packet QPs and flows need it); flows referring to a QP
 * (a QP with flows cannot be destroyed: EBUSY); teardown of a context's flows. */
int emu_cap_net_raw(void);
int emu_flow_qp_refs(const struct emu_qp *qp);
void emu_destroy_all_flows(struct emu_ctx *ctx);
/* cmd_wq.c: receive WQs, indirection tables, RSS QPs (rss_wq.h) */
int emu_cmd_ex_create_wq(struct emu_cmd *cmd);
int emu_cmd_ex_modify_wq(struct emu_cmd *cmd);
int emu_cmd_ex_destroy_wq(struct emu_cmd *cmd);
int emu_cmd_ex_create_rwq_ind_tbl(struct emu_cmd *cmd);
int emu_cmd_ex_destroy_rwq_ind_tbl(struct emu_cmd *cmd);
struct ib_uverbs_ex_create_qp;
int emu_cmd_create_rss_qp(struct emu_cmd *cmd, const struct ib_uverbs_ex_create_qp *req);
void emu_rss_qp_release(struct emu_qp *qp);     /* drops the QP's hold on its indirection table */
int emu_wq_cq_refs(const struct emu_cq *cq);    /* WQs completing into cq (destroy_cq is then EBUSY) */
void emu_destroy_all_wqs(struct emu_ctx *ctx);   /* teardown: indirection tables, then WQs */
/* cmd_dc.c: DC QPs (DCI, DCT) as cmd_qp.c creates and modifies them. The type a create asks for (*dc: EMU_DC_*),
 * from the QP type and the mlx5 vendor flags; the create attributes each type needs; a modify's transition and
 * attribute mask (cur: the state the modify starts from); the DCT number answered once a modify made a DCT RTR. */
int emu_dc_create_type(uint8_t qp_type, uint32_t flags, int *dc);
int emu_dc_check_attr(int dc, int is_srq, uint32_t max_recv_wr, uint32_t max_recv_sge);
int emu_dc_modify_check(const struct emu_qp *qp, int cur, int next, uint32_t mask, size_t drv_out_len);
int emu_dc_modify_done(struct emu_cmd *cmd, const struct emu_qp *qp, int old_state, int next);
/* eth_knobs.c: MLX5EMU_ETH_MIN_INLINE, MLX5EMU_ETH_MTU */
#include "eth_knobs.h"
/* profile.c: MLX5EMU_PROFILE, the generation the device answers as */
#include "emu_profile.h"

/* cmd_xrcd.c: XRC domains, XRC TGT QPs, OPEN_QP. A handle's XRCD counts the SRQs and QPs made through it
 * (emu_xrcd_get under emu_lock, emu_xrcd_release without it; CLOSE_XRCD is EBUSY while any exists). */
struct emu_xrcd;
int emu_cmd_open_xrcd(struct emu_cmd *cmd);
int emu_cmd_close_xrcd(struct emu_cmd *cmd);
int emu_cmd_open_qp(struct emu_cmd *cmd);
struct emu_xrcd *emu_xrcd_get(struct emu_ctx *ctx, uint32_t handle);
void emu_xrcd_release(struct emu_ctx *ctx, struct emu_xrcd *x);
uint32_t emu_xrcd_num(const struct emu_xrcd *x);
struct ib_uverbs_create_qp_resp;
int emu_xrc_create_tgt(struct emu_cmd *cmd, uint32_t xrcd_handle, uint64_t user_handle,
		       struct ib_uverbs_create_qp_resp *out);
/* The attribute bits uverbs ignores for XRC QPs (modify_qp_mask): INI has no responder, TGT no requester. */
uint32_t emu_xrc_modify_mask(int qp_type, uint32_t mask);
/* QUERY_QP's answer for qp (cmd_qp.c), under emu_lock */
void emu_qp_query_fill(const struct emu_qp *qp, struct ib_uverbs_query_qp_resp *r);
/* The TGT QP an OPEN_QP handle h names, when this process has it (under emu_lock); NULL otherwise. */
struct emu_qp *emu_xrc_open_target(const struct emu_qp *h);
/* A QP whose handle goes (unlinked, not under emu_lock): 1 when cmd_xrcd.c took care of it (an opened handle,
 * freed; a TGT QP that an opened handle of this process keeps), 0 when it is to be destroyed. */
int emu_xrc_tgt_closing(struct emu_qp *qp);
void emu_destroy_all_xrcds(struct emu_ctx *ctx);
/* An XRC SRQ's destroy: out of the fabric-wide directory (xrc_dir.c), its XRCD released */
void emu_xrcd_srq_release(struct emu_ctx *ctx, struct emu_srq *srq);

/* Teardown of every object of a context (close of the last fd), in dependency order, with engine hooks
 * (teardown.c), and the per-kind parts it calls (the cmd_*.c files) */
void emu_destroy_all_objects(struct emu_ctx *ctx);
void emu_destroy_all_qps(struct emu_ctx *ctx);
void emu_destroy_all_srqs(struct emu_ctx *ctx);
void emu_destroy_all_cqs(struct emu_ctx *ctx);
void emu_destroy_all_ahs(struct emu_ctx *ctx);
void emu_destroy_all_mrs_pds(struct emu_ctx *ctx);

/* Device limits answered in QUERY_DEVICE and enforced on create (ConnectX-5 values where we can honour them). */
#define EMU_MAX_QP_WR        32768
#define EMU_MAX_SGE          30
#define EMU_MAX_CQE          4194303     /* (1 << 22) - 1 */
#define EMU_MAX_SRQ_WR       32767
#define EMU_MAX_SRQ_SGE      31
#define EMU_MAX_QP_RD_ATOM   16
/* Largest send WQE: mlx5_ib answers max_sq_desc_sz = MLX5_CAP_GEN(max_wqe_sz_sq), 1024 bytes on ConnectX-4/5
 * (a ConnectX-4 Lx takes ib_send_lat -I 1004 = 1024 - 16 ctrl - 4 inline header, not 1005). libmlx5 derives
 * the QP's max_inline_data from it; the largest it can ask for is an RC/UC SEND's 1004 bytes. */
#define EMU_MAX_SQ_DESC_SZ   1024
#define EMU_MAX_INLINE       (EMU_MAX_SQ_DESC_SZ - 16 - 4)
#define EMU_MAX_RQ_DESC_SZ   512
#define EMU_PKEY_TBL_LEN_IB  128
#define EMU_PKEY_TBL_LEN_ETH 1
#define EMU_PP_RATE_MIN_KBPS 1000        /* packet pacing of raw packet QPs: 1 Mb/s .. 100 Gb/s */
#define EMU_PP_RATE_MAX_KBPS 100000000

#endif
