/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Receive WQs, indirection tables and RSS QPs through unmodified libibverbs/libmlx5 (ibv_create_wq,
 * mlx5dv_create_wq with a striding RQ, ibv_modify_wq, ibv_create_rwq_ind_table, ibv_create_qp_ex with
 * IBV_QP_INIT_ATTR_RX_HASH): the capabilities EX_QUERY_DEVICE reports, what each call returns, and the errno of
 * each failure as the Linux kernel's uverbs core and mlx5 driver give it (see src/kernel/cmd_wq.c for the sources).
 */
#include "common.h"

static uint8_t key40[40] = { 0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2, 0x83, 0x19, 0xdb, 0x1a,
			     0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9, 0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7,
			     0xd9, 0x56, 0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a };

static struct ibv_qp *rss_qp(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_rwq_ind_table *t,
			     uint64_t fields, uint8_t key_len, uint8_t fn)
{
	struct ibv_qp_init_attr_ex a;
	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH;
	a.pd = pd;
	a.rwq_ind_tbl = t;
	a.rx_hash_conf.rx_hash_function = fn;
	a.rx_hash_conf.rx_hash_key_len = key_len;
	a.rx_hash_conf.rx_hash_key = key40;
	a.rx_hash_conf.rx_hash_fields_mask = fields;
	return ibv_create_qp_ex(ctx, &a);
}

static struct ibv_wq *wq(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_cq *cq, uint32_t flags)
{
	struct ibv_wq_init_attr a;
	memset(&a, 0, sizeof(a));
	a.wq_type = IBV_WQT_RQ;
	a.max_wr = 64;
	a.max_sge = 1;
	a.pd = pd;
	a.cq = cq;
	if (flags) {
		a.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
		a.create_flags = flags;
	}
	return ibv_create_wq(ctx, &a);
}

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	REQUIRE(list && list[0], "no device");
	struct ibv_context *ctx = ibv_open_device(list[0]);
	REQUIRE(ctx, "open");
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	REQUIRE(pd && cq, "pd/cq");

	/* capabilities (ibv_query_device_ex core part, mlx5dv_query_device driver part) */
	struct ibv_device_attr_ex dx;
	REQUIRE(ibv_query_device_ex(ctx, NULL, &dx) == 0, "query_device_ex");
	CHECK(dx.rss_caps.supported_qpts == 1u << IBV_QPT_RAW_PACKET && dx.rss_caps.max_rwq_indirection_table_size == 2048 &&
	      dx.rss_caps.max_rwq_indirection_tables > 0 && dx.max_wq_type_rq > 0, "rss caps %u %u %u %u",
	      dx.rss_caps.supported_qpts, dx.rss_caps.max_rwq_indirection_table_size,
	      dx.rss_caps.max_rwq_indirection_tables, dx.max_wq_type_rq);
	CHECK(dx.rss_caps.rx_hash_function == IBV_RX_HASH_FUNC_TOEPLITZ &&
	      dx.rss_caps.rx_hash_fields_mask == (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 | IBV_RX_HASH_SRC_IPV6 |
						  IBV_RX_HASH_DST_IPV6 | IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP |
						  IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP),
	      "hash caps 0x%x 0x%llx", dx.rss_caps.rx_hash_function, (unsigned long long)dx.rss_caps.rx_hash_fields_mask);
	struct mlx5dv_context dv = { .comp_mask = MLX5DV_CONTEXT_MASK_STRIDING_RQ };
	REQUIRE(mlx5dv_query_device(ctx, &dv) == 0, "mlx5dv_query_device");
	CHECK((dv.comp_mask & MLX5DV_CONTEXT_MASK_STRIDING_RQ) &&
	      dv.striding_rq_caps.min_single_stride_log_num_of_bytes == 6 &&
	      dv.striding_rq_caps.max_single_stride_log_num_of_bytes == 13 &&
	      dv.striding_rq_caps.min_single_wqe_log_num_of_strides == 3 &&
	      dv.striding_rq_caps.max_single_wqe_log_num_of_strides == 16 &&
	      dv.striding_rq_caps.supported_qpts == 1u << IBV_QPT_RAW_PACKET, "striding caps");

	/* WQs: create, flags, state machine */
	struct ibv_wq *w0 = wq(ctx, pd, cq, 0), *w1 = wq(ctx, pd, cq, IBV_WQ_FLAGS_CVLAN_STRIPPING);
	REQUIRE(w0 && w1, "create_wq: %s", strerror(errno));
	CHECK(w0->wq_num != w1->wq_num && w0->state == IBV_WQS_RESET, "wq numbers %u %u", w0->wq_num, w1->wq_num);
	errno = 0;
	CHECK(!wq(ctx, pd, cq, IBV_WQ_FLAGS_SCATTER_FCS) && errno == EOPNOTSUPP, "scatter FCS: %s", strerror(errno));
	errno = 0;
	CHECK(!wq(ctx, pd, cq, IBV_WQ_FLAGS_DELAY_DROP) && errno == EOPNOTSUPP, "delay drop: %s", strerror(errno));
	struct ibv_wq_attr wa = { .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_ERR };
	CHECK_ERR(ibv_modify_wq(w0, &wa), EINVAL); /* RST -> ERR */
	wa.wq_state = IBV_WQS_RDY;
	CHECK_ERR(ibv_modify_wq(w0, &wa), 0);
	CHECK(w0->state == IBV_WQS_RDY, "state %d", w0->state);
	CHECK_ERR(ibv_modify_wq(w0, &wa), 0);    /* RDY -> RDY */
	wa.wq_state = IBV_WQS_ERR;
	CHECK_ERR(ibv_modify_wq(w0, &wa), 0);
	wa.wq_state = IBV_WQS_RDY;
	CHECK_ERR(ibv_modify_wq(w0, &wa), EINVAL); /* ERR -> RDY */
	wa.wq_state = IBV_WQS_RESET;
	CHECK_ERR(ibv_modify_wq(w0, &wa), 0);
	wa.wq_state = IBV_WQS_RDY;
	CHECK_ERR(ibv_modify_wq(w0, &wa), 0);
	CHECK_ERR(ibv_modify_wq(w1, &wa), 0);
	struct ibv_wq_attr wf = { .attr_mask = IBV_WQ_ATTR_FLAGS, .flags = 0, .flags_mask = IBV_WQ_FLAGS_SCATTER_FCS };
	CHECK_ERR(ibv_modify_wq(w1, &wf), EOPNOTSUPP);
	wf.flags_mask = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	CHECK_ERR(ibv_modify_wq(w1, &wf), 0);

	/* striding RQ: libmlx5 checks the reported limits, the kernel its own */
	struct ibv_wq_init_attr ia = { .wq_type = IBV_WQT_RQ, .max_wr = 8, .max_sge = 1, .pd = pd, .cq = cq };
	struct mlx5dv_wq_init_attr dva = { .comp_mask = MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ };
	dva.striding_rq_attrs.single_stride_log_num_of_bytes = 6;
	dva.striding_rq_attrs.single_wqe_log_num_of_strides = 9;
	dva.striding_rq_attrs.two_byte_shift_en = 1;
	struct ibv_wq *mp = mlx5dv_create_wq(ctx, &ia, &dva);
	CHECK(mp != NULL, "striding wq: %s", strerror(errno));
	dva.striding_rq_attrs.single_stride_log_num_of_bytes = 14;
	errno = 0;
	CHECK(!mlx5dv_create_wq(ctx, &ia, &dva) && errno == EINVAL, "stride 2^14: %s", strerror(errno));
	dva.striding_rq_attrs.single_stride_log_num_of_bytes = 6;
	dva.striding_rq_attrs.single_wqe_log_num_of_strides = 2;
	errno = 0;
	CHECK(!mlx5dv_create_wq(ctx, &ia, &dva) && errno == EINVAL, "2^2 strides: %s", strerror(errno));

	/* indirection table */
	struct ibv_wq *wqs[2] = { w0, w1 };
	struct ibv_rwq_ind_table_init_attr ta = { .log_ind_tbl_size = 1, .ind_tbl = wqs };
	struct ibv_rwq_ind_table *t = ibv_create_rwq_ind_table(ctx, &ta);
	REQUIRE(t, "create_rwq_ind_table: %s", strerror(errno));
	struct ibv_wq *one[1] = { w0 };
	struct ibv_rwq_ind_table_init_attr ta1 = { .log_ind_tbl_size = 0, .ind_tbl = one };
	struct ibv_rwq_ind_table *t1 = ibv_create_rwq_ind_table(ctx, &ta1);
	CHECK(t1 != NULL, "one-entry table: %s", strerror(errno));
	static struct ibv_wq *many[1 << 14];
	for (int i = 0; i < (1 << 14); i++)
		many[i] = w0;
	struct ibv_rwq_ind_table_init_attr tbig = { .log_ind_tbl_size = 12, .ind_tbl = many };
	errno = 0;
	CHECK(!ibv_create_rwq_ind_table(ctx, &tbig) && errno == EINVAL, "2^12 entries > log_max_rqt_size: %s",
	      strerror(errno));
	tbig.log_ind_tbl_size = 14;
	errno = 0;
	CHECK(!ibv_create_rwq_ind_table(ctx, &tbig) && errno == EINVAL, "2^14 > IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE");
	CHECK_ERR(ibv_destroy_wq(w1), EBUSY);     /* held by the table */
	CHECK_ERR(ibv_destroy_cq(cq), EBUSY);     /* WQs complete into it */

	/* RSS QPs */
	uint64_t v4tcp = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 | IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP;
	struct ibv_qp *q = rss_qp(ctx, pd, t, v4tcp, 40, IBV_RX_HASH_FUNC_TOEPLITZ);
	REQUIRE(q, "rss qp: %s", strerror(errno));
	CHECK(q->qp_num == 0, "RSS QP number %u (the kernel reports 0)", q->qp_num);
	errno = 0;
	CHECK(!rss_qp(ctx, pd, t, v4tcp, 20, IBV_RX_HASH_FUNC_TOEPLITZ) && errno == EINVAL, "key 20: %s", strerror(errno));
	errno = 0;
	CHECK(!rss_qp(ctx, pd, t, IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV6, 40, IBV_RX_HASH_FUNC_TOEPLITZ) &&
	      errno == EINVAL, "v4+v6: %s", strerror(errno));
	errno = 0;
	CHECK(!rss_qp(ctx, pd, t, IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_UDP, 40, IBV_RX_HASH_FUNC_TOEPLITZ) &&
	      errno == EINVAL, "tcp+udp: %s", strerror(errno));
	errno = 0;
	CHECK(!rss_qp(ctx, pd, t, 0, 40, IBV_RX_HASH_FUNC_TOEPLITZ) && errno == EINVAL, "no fields, 2 entries");
	struct ibv_qp *q1 = rss_qp(ctx, pd, t1, 0, 40, IBV_RX_HASH_FUNC_TOEPLITZ);
	CHECK(q1 != NULL, "no fields, one entry: %s", strerror(errno));
	errno = 0;
	CHECK(!rss_qp(ctx, pd, t, v4tcp, 40, 2) && errno == EOPNOTSUPP, "hash function 2: %s", strerror(errno));
	errno = 0;
	CHECK(!rss_qp(ctx, pd, t, v4tcp | IBV_RX_HASH_INNER, 40, IBV_RX_HASH_FUNC_TOEPLITZ) && errno == EOPNOTSUPP,
	      "inner without tunnel offloads: %s", strerror(errno));
	CHECK_ERR(ibv_destroy_rwq_ind_table(t), EBUSY); /* an RSS QP uses it */

	/* teardown in dependency order */
	CHECK_ERR(ibv_destroy_qp(q), 0);
	if (q1)
		CHECK_ERR(ibv_destroy_qp(q1), 0);
	CHECK_ERR(ibv_destroy_rwq_ind_table(t), 0);
	if (t1)
		CHECK_ERR(ibv_destroy_rwq_ind_table(t1), 0);
	CHECK_ERR(ibv_destroy_wq(w1), 0);
	CHECK_ERR(ibv_destroy_wq(w0), 0);
	if (mp)
		CHECK_ERR(ibv_destroy_wq(mp), 0);
	CHECK_ERR(ibv_destroy_cq(cq), 0);
	CHECK_ERR(ibv_dealloc_pd(pd), 0);

	/* objects left to the close of the device are freed by the context teardown (LeakSanitizer checks) */
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	w0 = wq(ctx, pd, cq, 0);
	one[0] = w0;
	t1 = ibv_create_rwq_ind_table(ctx, &ta1);
	REQUIRE(pd && cq && w0 && t1 && rss_qp(ctx, pd, t1, 0, 40, IBV_RX_HASH_FUNC_TOEPLITZ), "left-over objects");
	CHECK_ERR(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
	return test_done("t_wq_eth");
}
