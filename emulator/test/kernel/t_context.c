/* SPDX-License-Identifier: Apache-2.0 */
/* Context-level commands: device discovery, GET_CONTEXT, QUERY_DEVICE/EX, QUERY_PORT, GIDs, UAR mmap, and the
 * raw write() ABI's failure cases (sizes, unknown commands, bad pointers), plus the features that are ioctl-only
 * and must fail cleanly. */
#include <dirent.h>
#include <dlfcn.h>
#include <endian.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <rdma/mlx5-abi.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include <fcntl.h>

#include "common.h"

static void check_device(struct ibv_context *ctx)
{
	struct ibv_device_attr a;
	CHECK_ERR(ibv_query_device(ctx, &a), 0);
	CHECK(a.vendor_id == 0x02c9, "vendor 0x%x", a.vendor_id);
	CHECK(a.vendor_part_id == 4119, "part %u", a.vendor_part_id);
	CHECK(strcmp(a.fw_ver, "16.35.2000") == 0, "fw %s", a.fw_ver);
	CHECK(a.phys_port_cnt == 1, "ports %u", a.phys_port_cnt);
	CHECK(a.max_qp_wr == 32768 && a.max_sge == 30 && a.max_cqe == 4194303, "limits %d %d %d", a.max_qp_wr,
	      a.max_sge, a.max_cqe);
	CHECK(a.atomic_cap == IBV_ATOMIC_HCA, "atomic %d", a.atomic_cap);
	CHECK(be64toh(a.node_guid) == 0x98039b03004d4500ULL, "guid 0x%llx", (unsigned long long)be64toh(a.node_guid));
	CHECK(ibv_get_device_guid(ctx->device) == a.node_guid, "sysfs node_guid disagrees with QUERY_DEVICE");

	struct ibv_device_attr_ex ax;
	memset(&ax, 0, sizeof(ax));
	CHECK_ERR(ibv_query_device_ex(ctx, NULL, &ax), 0);
	CHECK(ax.orig_attr.vendor_part_id == 4119 && ax.orig_attr.max_qp_rd_atom == 16, "ex attrs");
	/* the core clock (t_clock checks it in depth): mlx5_ib_query_device's mask, a ConnectX-5's 156250 kHz */
	CHECK(ax.completion_timestamp_mask == 0x7fffffffffffffffULL && ax.hca_core_clock == 156250, "core clock");

	struct mlx5dv_context dv;
	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION;
	CHECK_ERR(mlx5dv_query_device(ctx, &dv), 0);
	CHECK(dv.flags & MLX5DV_CONTEXT_FLAGS_CQE_V1, "CQE v1 flag 0x%llx", (unsigned long long)dv.flags);
}

static void check_port(struct ibv_context *ctx)
{
	struct ibv_port_attr p;
	union ibv_gid gid;
	CHECK_ERR(ibv_query_port(ctx, 1, &p), 0);
	CHECK(p.state == IBV_PORT_ACTIVE, "state %d", p.state);
	if (p.link_layer == IBV_LINK_LAYER_INFINIBAND) {
		CHECK(p.lid == 1 && p.gid_tbl_len == 128 && p.pkey_tbl_len == 128, "ib port lid %u gids %d pkeys %u",
		      p.lid, p.gid_tbl_len, p.pkey_tbl_len);
		CHECK_ERR(ibv_query_gid(ctx, 1, 0, &gid), 0);
		CHECK(be64toh(gid.global.subnet_prefix) == 0xfe80000000000000ULL &&
		      be64toh(gid.global.interface_id) == 0x98039b03004d4500ULL, "ib gid");
	} else {
		CHECK(p.lid == 0 && p.gid_tbl_len == 256 && p.active_mtu == IBV_MTU_1024, "eth port");
		const uint8_t want[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x9a, 0x03, 0x9b, 0xff, 0xfe, 0x4d, 0x45, 0 };
		CHECK_ERR(ibv_query_gid(ctx, 1, 1, &gid), 0);
		CHECK(memcmp(gid.raw, want, 16) == 0, "roce gid from the MAC");
		struct ibv_gid_entry e;
		CHECK_ERR(ibv_query_gid_ex(ctx, 1, 1, &e, 0), 0);
		CHECK(e.gid_type == IBV_GID_TYPE_ROCE_V2, "gid 1 type %u", e.gid_type);
		CHECK_ERR(ibv_query_gid_ex(ctx, 1, 0, &e, 0), 0);
		CHECK(e.gid_type == IBV_GID_TYPE_ROCE_V1, "gid 0 type %u", e.gid_type);
	}
	/* failure: a port that does not exist */
	CHECK_ERR(ibv_query_port(ctx, 2, &p), EINVAL);
}

/* Raw write() ABI failures, as the kernel's ib_uverbs_write()/verify_hdr() answer them. */
static void check_raw_abi(struct ibv_context *ctx)
{
	struct ib_uverbs_query_device_resp qd;
	struct ib_uverbs_query_device q = { .response = (uintptr_t)&qd };
	struct ib_uverbs_cmd_hdr h;
	uint8_t buf[64];

	/* a well-formed QUERY_DEVICE works */
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_QUERY_DEVICE, &q, sizeof(q), sizeof(qd)), 0);
	CHECK(qd.vendor_part_id == 4119, "raw query_device answer");
	/* a second GET_CONTEXT on the same file */
	uint8_t gc[8 + 32] = { 0 };
	uint8_t gresp[8 + 80];
	uint64_t rp = (uintptr_t)gresp;
	memcpy(gc, &rp, 8);
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_GET_CONTEXT, gc, sizeof(gc), sizeof(gresp)), EINVAL);
	/* unknown and kernel-only commands */
	CHECK_ERR(raw_cmd(ctx, 0x7f, &q, sizeof(q), 0), EOPNOTSUPP);
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_POST_SEND, &q, sizeof(q), 0), EOPNOTSUPP);
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_ALLOC_MW, &q, sizeof(q), 0), EOPNOTSUPP);
	/* flag bits outside command|extended */
	CHECK_ERR(raw_cmd(ctx, 0x40000000u | IB_USER_VERBS_CMD_QUERY_DEVICE, &q, sizeof(q), sizeof(qd)), EINVAL);
	/* shorter than a header */
	errno = 0;
	CHECK(write(ctx->cmd_fd, buf, 4) < 0 && errno == EINVAL, "4-byte write: errno %d", errno);
	/* in_words disagreeing with the byte count */
	h.command = IB_USER_VERBS_CMD_QUERY_DEVICE;
	h.in_words = 3;
	h.out_words = sizeof(qd) / 4;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &q, sizeof(q));
	errno = 0;
	CHECK(write(ctx->cmd_fd, buf, sizeof(h) + 8 + 4) < 0 && errno == EINVAL, "in_words mismatch: errno %d", errno);
	/* response buffer too small for the core response */
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_QUERY_DEVICE, &q, sizeof(q), 8), ENOSPC);
	/* request shorter than the command's struct */
	struct ib_uverbs_query_port qp = { .response = (uintptr_t)&qd, .port_num = 1 };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_QUERY_PORT, &qp, 8, 40), ENOSPC);
	/* a response pointer into nowhere */
	struct ib_uverbs_query_device bad = { .response = 0x10 };
	CHECK_ERR(raw_cmd(ctx, IB_USER_VERBS_CMD_QUERY_DEVICE, &bad, sizeof(bad), sizeof(qd)), EFAULT);
	/* a command buffer into nowhere */
	volatile uintptr_t nowhere = 0x10; /* hidden from the compiler's buffer-size checks */
	errno = 0;
	CHECK(write(ctx->cmd_fd, (const void *)nowhere, 24) < 0 && errno == EFAULT, "bad buffer: errno %d", errno);
	/* extended command with a non-zero reserved header word */
	struct {
		struct ib_uverbs_cmd_hdr h;
		struct ib_uverbs_ex_cmd_hdr eh;
		struct ib_uverbs_ex_query_device q;
	} ex;
	uint8_t exresp[512];
	memset(&ex, 0, sizeof(ex));
	ex.h.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_QUERY_DEVICE;
	ex.h.in_words = sizeof(ex.q) / 8;
	ex.h.out_words = 200 / 8;
	ex.eh.response = (uintptr_t)exresp;
	CHECK(write(ctx->cmd_fd, &ex, sizeof(ex)) == (ssize_t)sizeof(ex), "ex query_device: %s", strerror(errno));
	ex.eh.cmd_hdr_reserved = 1;
	errno = 0;
	CHECK(write(ctx->cmd_fd, &ex, sizeof(ex)) < 0 && errno == EINVAL, "ex reserved: errno %d", errno);
	ex.eh.cmd_hdr_reserved = 0;
	ex.q.comp_mask = 1;
	errno = 0;
	CHECK(write(ctx->cmd_fd, &ex, sizeof(ex)) < 0 && errno == EINVAL, "ex comp_mask: errno %d", errno);
	/* the ioctl ABI answers as a kernel with the framework but without any method (uverbs_ioctl.c) */
	struct ib_uverbs_ioctl_hdr ih = { .length = sizeof ih, .object_id = UVERBS_OBJECT_DEVICE,
					  .method_id = UVERBS_METHOD_QUERY_CONTEXT };
	errno = 0;
	CHECK(ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &ih) < 0 && errno == EPROTONOSUPPORT, "ioctl method: errno %d", errno);
	ih.length = sizeof ih + 8;
	errno = 0;
	CHECK(ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &ih) < 0 && errno == EINVAL, "ioctl length: errno %d", errno);
	errno = 0;
	CHECK(ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, (void *)16) < 0 && errno == EFAULT, "ioctl header: errno %d", errno);
	errno = 0;
	CHECK(ioctl(ctx->cmd_fd, 0xc0181b02, buf) < 0 && errno == ENOTTY, "other ioctl: errno %d", errno);
	/* ioctl-only verbs fail as on such a kernel: ibv_import_device needs QUERY_CONTEXT */
	int dupfd = dup(ctx->cmd_fd); /* libmlx5's failed import closes the fd it was given */
	errno = 0;
	struct ibv_context *imp = ibv_import_device(dupfd);
	CHECK(!imp && (errno == EOPNOTSUPP || errno == EPROTONOSUPPORT), "import_device: errno %d", errno);
	if (imp)
		ibv_close_device(imp);
	close(dupfd);
}

/* UVERBS_METHOD_QUERY_PORT_SPEED, the 8th method of UVERBS_OBJECT_DEVICE in rdma-core 65's ib_user_ioctl_cmds.h
 * (attributes: 0 the u32 port number, inline; 1 a u64 out pointer): the one ioctl method served, because
 * ibv_query_port_speed (libibverbs 65) has no write() command to fall back to. */
static int query_port_speed_raw(struct ibv_context *ctx, uint64_t port, void *out, uint16_t out_len,
				uint16_t *out_flags, int extra_mandatory)
{
	struct ib_uverbs_attr a[3];
	memset(a, 0, sizeof(a));
	unsigned int n = 0;
	a[n++] = (struct ib_uverbs_attr){ .attr_id = 0, .len = sizeof(uint32_t), .flags = UVERBS_ATTR_F_MANDATORY,
					  .data = port };
	if (out)
		a[n++] = (struct ib_uverbs_attr){ .attr_id = 1, .len = out_len, .flags = UVERBS_ATTR_F_MANDATORY,
						  .data = (uintptr_t)out };
	if (extra_mandatory)
		a[n++] = (struct ib_uverbs_attr){ .attr_id = 9, .len = 0, .flags = UVERBS_ATTR_F_MANDATORY };
	struct ib_uverbs_ioctl_hdr h = { .length = (uint16_t)(sizeof h + n * sizeof a[0]),
					 .object_id = UVERBS_OBJECT_DEVICE, .method_id = 7, .num_attrs = (uint16_t)n };
	/* the header with its attributes right behind it, as one buffer (the kernel reads hdr.length bytes) */
	uint64_t buf[(sizeof h + sizeof a) / sizeof(uint64_t)];
	memcpy(buf, &h, sizeof h);
	memcpy((uint8_t *)buf + sizeof h, a, n * sizeof a[0]);
	errno = 0;
	int r = ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, buf);
	if (out_flags)
		memcpy(out_flags, (uint8_t *)buf + sizeof h + sizeof a[0] + offsetof(struct ib_uverbs_attr, flags),
		       sizeof *out_flags);
	return r < 0 ? errno : 0;
}

static void check_query_port_speed(struct ibv_context *ctx)
{
	uint64_t speed = 0;
	uint16_t flags = 0;
	/* 4X of 25 Gb/s lanes, what QUERY_PORT reports, in 100 Mb/s units */
	CHECK_ERR(query_port_speed_raw(ctx, 1, &speed, sizeof speed, &flags, 0), 0);
	CHECK(speed == 1000, "port speed %llu (want 1000: 100 Gb/s)", (unsigned long long)speed);
	CHECK(flags == (UVERBS_ATTR_F_MANDATORY | UVERBS_ATTR_F_VALID_OUTPUT), "out attribute flags 0x%x", flags);
	CHECK_ERR(query_port_speed_raw(ctx, 2, &speed, sizeof speed, NULL, 0), EINVAL);
	CHECK_ERR(query_port_speed_raw(ctx, 0, &speed, sizeof speed, NULL, 0), EINVAL);
	CHECK_ERR(query_port_speed_raw(ctx, 1ull << 32 | 1, &speed, sizeof speed, NULL, 0), EINVAL);
	CHECK_ERR(query_port_speed_raw(ctx, 1, &speed, 4, NULL, 0), EINVAL);
	CHECK_ERR(query_port_speed_raw(ctx, 1, NULL, 0, NULL, 0), EINVAL);
	CHECK_ERR(query_port_speed_raw(ctx, 1, &speed, sizeof speed, NULL, 1), EPROTONOSUPPORT);
	CHECK_ERR(query_port_speed_raw(ctx, 1, (void *)16, sizeof speed, NULL, 0), EFAULT);
	/* the library's own path where it exists (libibverbs 65, scripts/check-rdma-core.sh): ioctl only */
	int (*query)(struct ibv_context *, uint32_t, uint64_t *) =
		(int (*)(struct ibv_context *, uint32_t, uint64_t *))dlsym(RTLD_DEFAULT, "ibv_query_port_speed");
	if (query) {
		speed = 0;
		CHECK_ERR(query(ctx, 1, &speed), 0);
		CHECK(speed == 1000, "ibv_query_port_speed %llu", (unsigned long long)speed);
	}
}

static void check_uar_mmap(struct ibv_context *ctx)
{
	long ps = sysconf(_SC_PAGESIZE);
	/* page 0 maps; page 255 is beyond the 8 pages libmlx5 asked for; cmd 5 (core clock) maps read-only;
	 * cmd 8 (device memory) is not offered */
	void *p = mmap(NULL, ps, PROT_WRITE, MAP_SHARED, ctx->cmd_fd, 0);
	CHECK(p != MAP_FAILED, "uar page 0: %s", strerror(errno));
	if (p != MAP_FAILED)
		munmap(p, ps);
	errno = 0;
	CHECK(mmap(NULL, ps, PROT_WRITE, MAP_SHARED, ctx->cmd_fd, 255 * ps) == MAP_FAILED && errno == EINVAL,
	      "page beyond tot_bfregs: errno %d", errno);
	errno = 0;
	p = mmap(NULL, ps, PROT_READ, MAP_SHARED, ctx->cmd_fd, (5 << 8) * ps);
	CHECK(p != MAP_FAILED, "core clock page: %s", strerror(errno));
	if (p != MAP_FAILED)
		munmap(p, ps);
	errno = 0;
	CHECK(mmap(NULL, ps, PROT_READ, MAP_SHARED, ctx->cmd_fd, (8 << 8) * ps) == MAP_FAILED && errno == EINVAL,
	      "device memory page: errno %d", errno);
	errno = 0;
	CHECK(mmap(NULL, ps, PROT_WRITE, MAP_PRIVATE, ctx->cmd_fd, 0) == MAP_FAILED && errno == EINVAL,
	      "private mapping: errno %d", errno);
}

/* Everything that needs the ioctl ABI or firmware commands fails with a clean errno. */
static void check_unsupported(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	REQUIRE(pd, "alloc_pd");

	struct ibv_alloc_dm_attr dma = { .length = 4096 };
	errno = 0;
	struct ibv_dm *dm = ibv_alloc_dm(ctx, &dma);
	/* libmlx5 refuses by itself: EX_QUERY_DEVICE reports max_dm_size 0 */
	CHECK(!dm && errno == EINVAL, "device memory: errno %d", errno);

	errno = 0;
	struct ibv_mr *mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, 0, IBV_ACCESS_LOCAL_WRITE);
	CHECK(!mr && errno == EPROTONOSUPPORT, "dmabuf mr: errno %d", errno);

	struct ibv_counters_init_attr ca = { 0 };
	errno = 0;
	struct ibv_counters *cn = ibv_create_counters(ctx, &ca);
	CHECK(!cn && errno == EPROTONOSUPPORT, "counters: errno %d", errno);

	uint32_t in[4] = { 0 }, out[4];
	CHECK(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)) != 0, "devx general cmd");

	errno = 0;
	struct mlx5dv_dr_domain *dom = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_RX);
	if (dom) {
		/* on Ethernet libmlx5 hands out a domain and a root table without any device command; the first
		 * object that needs one (a matcher: flow-steering ioctl) fails */
		struct mlx5dv_dr_table *t = mlx5dv_dr_table_create(dom, 0);
		/* allocated, not a struct around it: a struct ending in a flexible array cannot be a member (C11) */
		size_t match_sz = 8 * sizeof(uint64_t);
		struct mlx5dv_flow_match_parameters *m = calloc(1, sizeof(*m) + match_sz);
		REQUIRE(m, "calloc");
		m->match_sz = match_sz;
		errno = 0;
		struct mlx5dv_dr_matcher *mt = t ? mlx5dv_dr_matcher_create(t, 0, 1, m) : NULL;
		CHECK(!mt && errno == EPROTONOSUPPORT, "mlx5dv_dr matcher: errno %d", errno);
		free(m);
		if (mt)
			mlx5dv_dr_matcher_destroy(mt);
		if (t)
			mlx5dv_dr_table_destroy(t);
		mlx5dv_dr_domain_destroy(dom);
	} else {
		CHECK(errno == EOPNOTSUPP || errno == EPROTONOSUPPORT, "mlx5dv_dr domain: errno %d", errno);
	}

	errno = 0;
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	CHECK(!mw && errno == EOPNOTSUPP, "memory window: errno %d", errno);
	ibv_dealloc_pd(pd);

	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	REQUIRE(list && n > 0, "list");
	struct mlx5dv_context_attr da = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	errno = 0;
	struct ibv_context *devx = mlx5dv_open_device(list[0], &da);
	CHECK(!devx && errno == EINVAL, "DEVX context: errno %d (mlx5_ib_devx_create without log_max_uctx: EINVAL)", errno);
	ibv_free_device_list(list);
}

/* GET_CONTEXT's bfreg count on a fresh command fd: 0 is EINVAL, more than the kernel's MLX5_MAX_BFREGS is ENOMEM
 * even when rounding up to whole UAR pages would wrap a 32-bit count to 0, and failures leave the fd able to get
 * its context. */
static int get_context_raw(int fd, uint32_t total_bfregs, uint32_t low_latency)
{
	uint8_t resp[sizeof(struct ib_uverbs_get_context_resp) + sizeof(struct mlx5_ib_alloc_ucontext_resp)];
	struct mlx5_ib_alloc_ucontext_req_v2 req;
	uint64_t response = (uintptr_t)resp;
	uint8_t cmd[sizeof(struct ib_uverbs_cmd_hdr) + sizeof(response) + sizeof(req)];
	struct ib_uverbs_cmd_hdr h = { .command = IB_USER_VERBS_CMD_GET_CONTEXT, .in_words = sizeof(cmd) / 4,
				       .out_words = sizeof(resp) / 4 };

	memset(&req, 0, sizeof(req));
	req.total_num_bfregs = total_bfregs;
	req.num_low_latency_bfregs = low_latency;
	req.max_cqe_version = 1;
	memcpy(cmd, &h, sizeof(h));
	memcpy(cmd + sizeof(h), &response, sizeof(response));
	memcpy(cmd + sizeof(h) + sizeof(response), &req, sizeof(req));
	return write(fd, cmd, sizeof(cmd)) == (ssize_t)sizeof(cmd) ? 0 : errno;
}

static int open_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	REQUIRE(d, "opendir /proc/self/fd");
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void check_get_context_bfregs(void)
{
	int fd = open("/dev/infiniband/uverbs0", O_RDWR | O_CLOEXEC);
	REQUIRE(fd >= 0, "open uverbs0: %s", strerror(errno));
	/* a GET_CONTEXT whose response cannot be written fails with EFAULT and keeps nothing it set up (UAR memfd
	 * and mapping, async event pipe): retries neither leak descriptors nor find a half-made context */
	int fds = open_fd_count();
	for (int i = 0; i < 4; i++) {
		uint8_t cmd[sizeof(struct ib_uverbs_cmd_hdr) + 8 + sizeof(struct mlx5_ib_alloc_ucontext_req_v2)];
		struct ib_uverbs_cmd_hdr h = { .command = IB_USER_VERBS_CMD_GET_CONTEXT, .in_words = sizeof(cmd) / 4,
					       .out_words = (sizeof(struct ib_uverbs_get_context_resp) +
							     sizeof(struct mlx5_ib_alloc_ucontext_resp)) / 4 };
		struct mlx5_ib_alloc_ucontext_req_v2 req = { .total_num_bfregs = 16, .num_low_latency_bfregs = 4,
							     .max_cqe_version = 1 };
		uint64_t unmapped = 0x10;
		memcpy(cmd, &h, sizeof(h));
		memcpy(cmd + sizeof(h), &unmapped, 8);
		memcpy(cmd + sizeof(h) + 8, &req, sizeof(req));
		errno = 0;
		CHECK(write(fd, cmd, sizeof(cmd)) < 0 && errno == EFAULT, "GET_CONTEXT, bad response: errno %d", errno);
	}
	CHECK(open_fd_count() == fds, "failed GET_CONTEXTs left %d descriptors open", open_fd_count() - fds);
	CHECK_ERR(get_context_raw(fd, 0, 0), EINVAL);
	CHECK_ERR(get_context_raw(fd, 0xffffffffu, 0), ENOMEM);
	CHECK_ERR(get_context_raw(fd, 0xfffffffeu, 0), ENOMEM);
	CHECK_ERR(get_context_raw(fd, 16, 16), EINVAL); /* every bfreg low latency: none left for bfreg 0 */
	CHECK_ERR(get_context_raw(fd, 16, 4), 0);
	close(fd);
}

/* Paths of the character devices as the interposed open() sees them: only uverbsN with N < the device count is
 * ours, a digit string of any length is no crash (it is not a device), and verbs users must open read-write. */
static void check_cdev_paths(void)
{
	errno = 0;
	CHECK(open("/dev/infiniband/uverbs99999999999999999999", O_RDWR) < 0 && errno == ENOENT,
	      "huge device number: errno %d", errno);
	errno = 0;
	CHECK(open("/dev/infiniband/uverbs64", O_RDWR) < 0 && errno == ENOENT, "device beyond the count: errno %d",
	      errno);
	errno = 0;
	CHECK(open("/dev/infiniband/uverbs0", O_RDONLY) < 0 && errno == EACCES, "read-only open: errno %d", errno);
}

int main(void)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	const char *want = getenv("MLX5EMU_DEVICES");
	REQUIRE(list, "ibv_get_device_list: %s", strerror(errno));
	CHECK(n == (want ? atoi(want) : 1), "%d devices", n);
	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "mlx5_%d", i);
		CHECK(strcmp(ibv_get_device_name(list[i]), name) == 0, "device %d is %s", i,
		      ibv_get_device_name(list[i]));
	}
	CHECK(mlx5dv_is_supported(list[0]), "libmlx5 drives the device");
	ibv_free_device_list(list);

	struct ibv_context *ctx = open_dev(0);
	CHECK(ctx->async_fd >= 0 && ctx->async_fd != ctx->cmd_fd, "async fd %d", ctx->async_fd);
	check_device(ctx);
	check_port(ctx);
	check_raw_abi(ctx);
	check_query_port_speed(ctx);
	check_uar_mmap(ctx);
	check_unsupported(ctx);
	check_cdev_paths();
	check_get_context_bfregs();
	CHECK_ERR(ibv_close_device(ctx), 0);
	return test_done("t_context");
}
