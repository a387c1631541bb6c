/* SPDX-License-Identifier: Apache-2.0 */
/*
 * raw_eth_test.h - the body of t_raw_eth and t_raw_eth_l2inline (a header so that make rebuilds both when it
 * changes): raw packet QPs and flow steering on the emulated RoCE/Ethernet port, judged by libmlx5: QP creation
 * and state machine, mlx5dv_init_obj rings, frames built by libmlx5's raw post path (checksum offload, inline
 * headers per the reported minimum inline mode, LSO), steering (priorities, multicast fan-out, drop, sniffer,
 * flow tag), and the receive CQE both as bytes (struct mlx5_cqe64) and through ibv_poll_cq / ibv_wc_read_*.
 * Checksums are verified here with an independent RFC 1071 implementation.
 */
#include <errno.h>
#include <arpa/inet.h>
#include "etest.h"
#include "mlx5emu_debug.h"

#define FR 2048

static const uint8_t MAC_A[6] = { 0x02, 0, 0, 0, 0, 0xa1 };
static const uint8_t MAC_B[6] = { 0x02, 0, 0, 0, 0, 0xb2 };
static const uint8_t MAC_MC[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
static const uint8_t MAC_SRC[6] = { 0x02, 0, 0, 0, 0, 0x55 };

struct rq {
	struct ibv_qp *qp;
	struct ibv_cq_ex *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint32_t polled;  /* completions polled so far: the last one is CQE index polled - 1 */
};

static uint32_t csum_add(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}
static uint16_t csum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static struct ibv_qp *raw_qp(struct ibv_cq *scq, struct ibv_cq *rcq, uint32_t create_flags)
{
	struct ibv_qp_init_attr_ex a;
	memset(&a, 0, sizeof a);
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.send_cq = scq;
	a.recv_cq = rcq;
	a.cap.max_send_wr = 64;
	a.cap.max_recv_wr = 64;
	a.cap.max_send_sge = 2;
	a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = 128;
	a.pd = t_pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	a.max_tso_header = 128;
	if (create_flags) {
		a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		a.create_flags = create_flags;
	}
	struct ibv_qp *qp = ibv_create_qp_ex(t_ctx, &a);
	CHECK(qp, "create raw qp: errno %d", errno);
	return qp;
}

static void raw_up(struct ibv_qp *qp)
{
	struct ibv_qp_attr at;
	memset(&at, 0, sizeof at);
	at.qp_state = IBV_QPS_INIT;
	CHECK(ibv_modify_qp(qp, &at, IBV_QP_STATE) == EINVAL, "RESET->INIT without a port must fail");
	at.port_num = 1;
	CHECK(ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PORT) == 0, "INIT");
	at.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(qp, &at, IBV_QP_STATE) == 0, "RTR");
	at.qp_state = IBV_QPS_RTS;
	CHECK(ibv_modify_qp(qp, &at, IBV_QP_STATE) == 0, "RTS");
	struct ibv_qp_init_attr ia;
	CHECK(ibv_query_qp(qp, &at, IBV_QP_STATE, &ia) == 0 && at.qp_state == IBV_QPS_RTS, "query");
}

static void rq_init(struct rq *r, uint32_t create_flags)
{
	memset(r, 0, sizeof(*r));
	struct ibv_cq_init_attr_ex ca;
	memset(&ca, 0, sizeof ca);
	ca.cqe = 64;
	ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_FLOW_TAG | IBV_WC_EX_WITH_CVLAN;
	r->cq = ibv_create_cq_ex(t_ctx, &ca);
	CHECK(r->cq, "cq_ex: errno %d", errno);
	r->qp = raw_qp(ibv_cq_ex_to_cq(r->cq), ibv_cq_ex_to_cq(r->cq), create_flags);
	r->mr = t_mr(FR * 16, IBV_ACCESS_LOCAL_WRITE, (void **)&r->buf);
	raw_up(r->qp);
	for (int i = 0; i < 16; i++)
		t_post_recv(r->qp, (uint64_t)i, r->buf + i * FR, FR, r->mr->lkey);
}

struct got {
	int n;
	uint64_t wr_id;
	uint32_t len, flags, tag;
	uint16_t vlan;
	enum ibv_wc_status status;
};

/* Poll one completion through the extended API (libmlx5's decoder) within ms. */
static struct got rx_poll(struct rq *r, int ms)
{
	struct got g = { 0 };
	struct ibv_poll_cq_attr pa = { 0 };
	uint64_t end = t_ms() + (uint64_t)ms;
	int rc;
	while ((rc = ibv_start_poll(r->cq, &pa)) == ENOENT && t_ms() < end)
		usleep(100);
	if (rc)
		return g;
	g.n = 1;
	r->polled++;
	g.wr_id = r->cq->wr_id;
	g.status = r->cq->status;
	g.len = ibv_wc_read_byte_len(r->cq);
	g.flags = ibv_wc_read_wc_flags(r->cq);
	g.tag = ibv_wc_read_flow_tag(r->cq);
	g.vlan = ibv_wc_read_cvlan(r->cq);
	ibv_end_poll(r->cq);
	t_post_recv(r->qp, g.wr_id, r->buf + g.wr_id * FR, FR, r->mr->lkey);
	return g;
}

/* The raw CQE of the completion just polled. */
static struct mlx5_cqe64 *last_cqe(struct rq *r)
{
	struct t_rawcq rc;
	t_rawcq(ibv_cq_ex_to_cq(r->cq), &rc);
	return t_cqe64(&rc, r->polled - 1);
}

static struct ibv_flow *flow(struct ibv_qp *qp, int type, int prio, const uint8_t *dmac, int udp_port, int tag,
			     int drop, int *err)
{
	union {
		struct ibv_flow_attr attr;
		uint8_t b[512];
	} f;
	memset(&f, 0, sizeof f);
	uint8_t *p = f.b + sizeof f.attr;
	f.attr.type = (enum ibv_flow_attr_type)type;
	f.attr.priority = (uint16_t)prio;
	f.attr.port = 1;
	f.attr.size = sizeof f.attr;
	if (dmac) {
		struct ibv_flow_spec_eth *e = (void *)p;
		e->type = IBV_FLOW_SPEC_ETH;
		e->size = sizeof *e;
		memcpy(e->val.dst_mac, dmac, 6);
		memset(e->mask.dst_mac, 0xff, 6);
		p += sizeof *e;
		f.attr.num_of_specs++;
	}
	if (udp_port) {
		struct ibv_flow_spec_ipv4 *i = (void *)p;
		i->type = IBV_FLOW_SPEC_IPV4;
		i->size = sizeof *i;
		p += sizeof *i;
		struct ibv_flow_spec_tcp_udp *u = (void *)p;
		u->type = IBV_FLOW_SPEC_UDP;
		u->size = sizeof *u;
		u->val.dst_port = htons((uint16_t)udp_port);
		u->mask.dst_port = 0xffff;
		p += sizeof *u;
		f.attr.num_of_specs += 2;
	}
	if (tag >= 0) {
		struct ibv_flow_spec_action_tag *t = (void *)p;
		t->type = IBV_FLOW_SPEC_ACTION_TAG;
		t->size = sizeof *t;
		t->tag_id = (uint32_t)tag;
		p += sizeof *t;
		f.attr.num_of_specs++;
	}
	if (drop) {
		struct ibv_flow_spec_action_drop *d = (void *)p;
		d->type = IBV_FLOW_SPEC_ACTION_DROP;
		d->size = sizeof *d;
		p += sizeof *d;
		f.attr.num_of_specs++;
	}
	errno = 0;
	struct ibv_flow *fl = ibv_create_flow(qp, &f.attr);
	if (err)
		*err = fl ? 0 : errno;
	return fl;
}

/* Ethernet + IPv4 + UDP frame of total length len with zeroed checksums (offload fills them). */
static size_t udp4(uint8_t *fr, const uint8_t *dmac, uint16_t dport, size_t len, int vlan)
{
	memset(fr, 0, len);
	memcpy(fr, dmac, 6);
	memcpy(fr + 6, MAC_SRC, 6);
	size_t o = 12;
	if (vlan) {
		fr[12] = 0x81; fr[13] = 0x00; fr[14] = 0x20; fr[15] = 0x07; /* PCP 1, VID 7 */
		o = 16;
	}
	fr[o] = 0x08; fr[o + 1] = 0x00;
	uint8_t *ip = fr + o + 2;
	size_t iplen = len - (o + 2);
	ip[0] = 0x45; ip[2] = (uint8_t)(iplen >> 8); ip[3] = (uint8_t)iplen; ip[6] = 0x40; ip[8] = 64; ip[9] = 17;
	ip[12] = 10; ip[15] = 1; ip[16] = 10; ip[19] = 2;
	uint8_t *u = ip + 20;
	size_t ulen = iplen - 20;
	u[0] = 0x30; u[1] = 0x39; u[2] = (uint8_t)(dport >> 8); u[3] = (uint8_t)dport;
	u[4] = (uint8_t)(ulen >> 8); u[5] = (uint8_t)ulen;
	for (size_t i = 8; i < ulen; i++)
		u[i] = (uint8_t)(i * 7);
	return len;
}

static void check_udp4_csums(const uint8_t *fr, size_t l3)
{
	const uint8_t *ip = fr + l3;
	CHECK(csum_fold(csum_add(ip, 20, 0)) == 0xffff, "IPv4 header checksum wrong: %02x%02x", ip[10], ip[11]);
	size_t iplen = (size_t)(ip[2] << 8 | ip[3]), ulen = iplen - 20;
	uint32_t ps = csum_add(ip + 12, 8, 0) + 17 + (uint32_t)ulen;
	CHECK(csum_fold(csum_add(ip + 20, ulen, ps)) == 0xffff, "UDP checksum wrong");
}

/* Ethernet + IPv6 + TCP (ACK|PSH) frame of total length len, checksum zero. */
static size_t tcp6(uint8_t *fr, size_t len, uint8_t flags)
{
	memset(fr, 0, len);
	memcpy(fr, MAC_A, 6);
	memcpy(fr + 6, MAC_SRC, 6);
	fr[12] = 0x86; fr[13] = 0xdd;
	uint8_t *ip = fr + 14;
	size_t pl = len - 54;
	ip[0] = 0x60; ip[4] = (uint8_t)(pl >> 8); ip[5] = (uint8_t)pl; ip[6] = 6; ip[7] = 64;
	ip[8] = 0xfe; ip[9] = 0x80; ip[23] = 1; ip[24] = 0xfe; ip[25] = 0x80; ip[39] = 2;
	uint8_t *t = ip + 40;
	t[0] = 0x04; t[1] = 0xd2; t[2] = 0x16; t[3] = 0x2e; t[12] = 0x50; t[13] = flags; t[14] = 0x20;
	for (size_t i = 20; i < pl; i++)
		t[i] = (uint8_t)(i * 3);
	return len;
}

static void check_tcp6_csum(const uint8_t *fr, size_t len)
{
	size_t l4 = len - 54;
	uint32_t ps = csum_add(fr + 22, 32, 0) + 6 + (uint32_t)l4;
	CHECK(csum_fold(csum_add(fr + 54, l4, ps)) == 0xffff, "TCP/IPv6 checksum wrong");
}

static struct ibv_qp *g_tx;
static struct ibv_cq *g_txcq;
static struct ibv_mr *g_txmr;
static uint8_t *g_txbuf;

static void send_frame(const uint8_t *fr, size_t len, unsigned flags)
{
	memcpy(g_txbuf, fr, len);
	struct ibv_sge sge = { (uintptr_t)g_txbuf, (uint32_t)len, g_txmr->lkey };
	struct ibv_send_wr wr = { .wr_id = 77, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED | flags };
	t_post_send(g_tx, &wr);
	struct ibv_wc wc;
	CHECK(t_poll(g_txcq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_SEND,
	      "send completion: status %d", wc.status);
}

static int raw_eth_main(void)
{
	t_open();
	CHECK(t_port.link_layer == IBV_LINK_LAYER_ETHERNET, "needs --link eth");
	struct ibv_device_attr_ex dx;
	CHECK(ibv_query_device_ex(t_ctx, NULL, &dx) == 0, "query_device_ex");
	CHECK(dx.orig_attr.device_cap_flags & IBV_DEVICE_RAW_IP_CSUM, "RAW_IP_CSUM");
	CHECK(dx.raw_packet_caps == (IBV_RAW_PACKET_CAP_CVLAN_STRIPPING | IBV_RAW_PACKET_CAP_IP_CSUM), "raw caps 0x%x",
	      dx.raw_packet_caps);
	CHECK(dx.tso_caps.max_tso == 1u << 18 && dx.tso_caps.supported_qpts == 1u << IBV_QPT_RAW_PACKET, "tso caps");

	g_txcq = ibv_create_cq(t_ctx, 64, NULL, NULL, 0);
	g_tx = raw_qp(g_txcq, g_txcq, 0);
	raw_up(g_tx);
	g_txmr = t_mr(1 << 16, IBV_ACCESS_LOCAL_WRITE, (void **)&g_txbuf);

	/* mlx5dv_init_obj: the SQ libmlx5 hands out is the separate SQ buffer the kernel registered */
	struct mlx5dv_qp dq;
	struct mlx5dv_obj o;
	memset(&o, 0, sizeof o);
	o.qp.in = g_tx;
	o.qp.out = &dq;
	CHECK(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP) == 0, "init_obj");
	int (*dbg)(uint32_t, struct mlx5emu_debug_qp *) = (int (*)(uint32_t, struct mlx5emu_debug_qp *))
		dlsym(RTLD_DEFAULT, "mlx5emu_debug_qp");
	struct mlx5emu_debug_qp kq;
	CHECK(dbg && dbg(g_tx->qp_num, &kq) == 0, "debug qp");
	CHECK((uint64_t)(uintptr_t)dq.sq.buf == kq.sq_buf && dq.sq.wqe_cnt == kq.sq_wqe_cnt && dq.sq.stride == 64,
	      "SQ ring: dv %p/%u, kernel 0x%llx/%u", dq.sq.buf, dq.sq.wqe_cnt, (unsigned long long)kq.sq_buf,
	      kq.sq_wqe_cnt);
	CHECK((uint64_t)(uintptr_t)dq.rq.buf == kq.rq_buf && dq.rq.wqe_cnt == kq.rq_wqe_cnt &&
	      (uint64_t)(uintptr_t)dq.dbrec == kq.dbrec, "RQ ring / doorbell record");
	CHECK(kq.sq_buf < kq.buf || kq.sq_buf >= kq.buf + ((uint64_t)kq.rq_wqe_cnt << kq.rq_wqe_shift),
	      "raw SQ must not live in the RQ buffer");

	struct rq q1, q2, q3, qv;
	rq_init(&q1, 0);
	rq_init(&q2, 0);
	rq_init(&q3, 0);
	rq_init(&qv, IBV_QP_CREATE_CVLAN_STRIPPING);

	/* bad rules get the kernel's errno */
	int err;
	CHECK(!flow(q1.qp, IBV_FLOW_ATTR_NORMAL, 16, MAC_A, 0, -1, 0, &err) && err == ENOMEM, "prio 16: %d", err);
	CHECK(!flow(q1.qp, IBV_FLOW_ATTR_NORMAL, 0, MAC_A, 0, 1 << 24, 0, &err) && err == EINVAL, "tag: %d", err);
	CHECK(!flow(q1.qp, IBV_FLOW_ATTR_ALL_DEFAULT, 0, NULL, 0, 5, 0, &err) && err == EINVAL, "tag on default");
	struct ibv_cq *rccq = ibv_create_cq(t_ctx, 4, NULL, NULL, 0);
	struct ibv_qp *rc = t_qp(IBV_QPT_RC, rccq, rccq, NULL, 0);
	CHECK(!flow(rc, IBV_FLOW_ATTR_NORMAL, 0, MAC_A, 0, -1, 0, &err) && err == EINVAL, "flow on RC: %d", err);

	/* q1: MAC_A + UDP 5000 at priority 0 with tag 0x123; q2: MAC_A at priority 1 (shadowed for UDP 5000) */
	struct ibv_flow *f1 = flow(q1.qp, IBV_FLOW_ATTR_NORMAL, 0, MAC_A, 5000, 0x123, 0, &err);
	CHECK(f1, "f1: %d", err);
	struct ibv_flow *f2 = flow(q2.qp, IBV_FLOW_ATTR_NORMAL, 1, MAC_A, 0, 0x2, 0, &err);
	CHECK(f2, "f2: %d", err);
	/* multicast to q1 and q2 at the same priority: both get a copy */
	struct ibv_flow *fl[5];
	CHECK((fl[0] = flow(q1.qp, IBV_FLOW_ATTR_NORMAL, 2, MAC_MC, 0, -1, 0, &err)), "mc1");
	CHECK((fl[1] = flow(q2.qp, IBV_FLOW_ATTR_NORMAL, 2, MAC_MC, 0, -1, 0, &err)), "mc2");
	/* MAC_B is dropped (q2 owns the rule), q3 sniffs everything */
	CHECK((fl[2] = flow(q2.qp, IBV_FLOW_ATTR_NORMAL, 0, MAC_B, 0, -1, 1, &err)), "drop: %d", err);
	CHECK((fl[3] = flow(q3.qp, IBV_FLOW_ATTR_SNIFFER, 0, NULL, 0, -1, 0, &err)), "sniffer: %d", err);
	CHECK((fl[4] = flow(qv.qp, IBV_FLOW_ATTR_NORMAL, 3, MAC_SRC, 0, 0x77, 0, &err)), "vlan rule");
	CHECK(ibv_destroy_qp(q1.qp) == EBUSY, "a QP with flows is busy");

	uint8_t fr[FR];
	struct got g;
	/* 1. UDP 5000 to MAC_A with checksum offload: q1 (priority 0) only, tag 0x123, checksums right */
	size_t n = udp4(fr, MAC_A, 5000, 300, 0);
	send_frame(fr, n, IBV_SEND_IP_CSUM);
	/* the WQE libmlx5 wrote (index 0): inline_hdr_sz follows the minimum inline mode the device reported */
	const char *mi = getenv("MLX5EMU_ETH_MIN_INLINE");
	int l2 = mi && !strcmp(mi, "l2");
	uint8_t *eseg = (uint8_t *)dq.sq.buf + 16;
	CHECK((eseg[12] << 8 | eseg[13]) == (l2 ? 18 : 0) && eseg[4] == 0xc0,
	      "eth segment: inline_hdr_sz %u cs_flags 0x%x", eseg[12] << 8 | eseg[13], eseg[4]);
	g = rx_poll(&q1, 3000);
	CHECK(g.n && g.status == IBV_WC_SUCCESS && g.len == n, "q1: n %d status %d len %u", g.n, g.status, g.len);
	CHECK(g.flags & IBV_WC_IP_CSUM_OK, "IP_CSUM_OK missing: flags 0x%x", g.flags);
	CHECK(g.tag == 0x123, "flow tag 0x%x", g.tag);
	check_udp4_csums(q1.buf + g.wr_id * FR, 14);
	CHECK(memcmp(q1.buf + g.wr_id * FR + 42, fr + 42, n - 42) == 0, "payload");
	struct mlx5_cqe64 *c = last_cqe(&q1);
	CHECK(c->hds_ip_ext == (MLX5_CQE_L2_OK | MLX5_CQE_L3_OK | MLX5_CQE_L4_OK), "hds_ip_ext 0x%x", c->hds_ip_ext);
	CHECK(c->l4_hdr_type_etc == (2 << 4 | MLX5_CQE_L3_HDR_TYPE_IPV4 << 2), "l4_hdr_type_etc 0x%x",
	      c->l4_hdr_type_etc);
	CHECK(be32toh(c->sop_drop_qpn) == 0x123 && be32toh(c->byte_cnt) == n && (c->op_own >> 4) == MLX5_CQE_RESP_SEND,
	      "cqe bytes");
	g = rx_poll(&q3, 3000);
	CHECK(g.n && g.len == n && g.tag == 0, "sniffer copy: n %d len %u", g.n, g.len);
	CHECK(!rx_poll(&q3, 200).n, "one sniffer copy per frame, even when the port both sends and receives it");
	CHECK(!rx_poll(&q2, 300).n, "q2 is shadowed by the priority-0 rule");

	/* 2. other UDP port to MAC_A: q2 via its priority-1 rule; a bad IPv4 checksum sent without offload */
	n = udp4(fr, MAC_A, 6000, 100, 0);
	fr[24] = 0xde; fr[25] = 0xad;
	send_frame(fr, n, 0);
	g = rx_poll(&q2, 3000);
	CHECK(g.n && g.len == n && g.tag == 0x2 && !(g.flags & IBV_WC_IP_CSUM_OK), "q2: n %d flags 0x%x tag 0x%x", g.n,
	      g.flags, g.tag);
	c = last_cqe(&q2);
	CHECK(!(c->hds_ip_ext & MLX5_CQE_L3_OK), "bad header checksum must not be L3_OK");
	CHECK(!rx_poll(&q1, 200).n, "q1 must not match UDP 6000");
	while (rx_poll(&q3, 200).n)
		;

	/* 3. multicast: q1 and q2 each get a copy */
	n = udp4(fr, MAC_MC, 7000, 64, 0);
	send_frame(fr, n, IBV_SEND_IP_CSUM);
	CHECK(rx_poll(&q1, 3000).n && rx_poll(&q2, 3000).n, "multicast fan-out");

	/* 4. drop rule: nobody but the sniffer */
	n = udp4(fr, MAC_B, 7000, 64, 0);
	send_frame(fr, n, 0);
	CHECK(!rx_poll(&q2, 300).n && !rx_poll(&q1, 100).n, "dropped");
	int sn = 0;
	while (rx_poll(&q3, 300).n)
		sn++;
	CHECK(sn >= 2, "sniffer saw %d frames", sn);

	/* 5. VLAN stripping: 802.1Q frame to a QP created with CVLAN_STRIPPING */
	n = udp4(fr, MAC_A, 9, 200, 1);
	memcpy(fr, MAC_SRC, 6); /* dmac = MAC_SRC matches qv's rule */
	send_frame(fr, n, IBV_SEND_IP_CSUM);
	g = rx_poll(&qv, 3000);
	CHECK(g.n && g.len == n - 4 && g.vlan == 0x2007 && g.tag == 0x77 &&
	      (g.flags & IBV_WC_IP_CSUM_OK), "vlan: n %d len %u vlan 0x%x flags 0x%x", g.n, g.len, g.vlan, g.flags);
	c = last_cqe(&qv);
	CHECK((c->l4_hdr_type_etc & 1) && be16toh(c->vlan_info) == 0x2007, "cvlan bit / vlan_info");
	check_udp4_csums(qv.buf + g.wr_id * FR, 14);
	while (rx_poll(&q3, 200).n)
		;

	/* 6. strict: cs_flags on a frame with no IP header */
	unsigned long v0 = t_violations();
	memset(fr, 0, 80);
	memcpy(fr, MAC_B, 6);
	fr[12] = 0x88; fr[13] = 0xb5;
	send_frame(fr, 80, IBV_SEND_IP_CSUM);
	CHECK(t_violations() == v0 + 1, "strict: cs_flags without IP");
	v0 = t_violations();
	n = udp4(fr, MAC_B, 1, 1600, 0);
	send_frame(fr, n, 0);
	CHECK(t_violations() == v0 + 1, "strict: longer than MTU + L2 header");
	while (rx_poll(&q3, 200).n)
		;

	/* 7. IPv6/TCP with checksum offload: q2 (MAC_A, priority 1); the TCP checksum covers the IPv6 pseudo-header;
	 * libmlx5 reports IBV_WC_IP_CSUM_OK for IPv4 only, the CQE bits say L3/L4 OK */
	n = tcp6(fr, 160, 0x18);
	send_frame(fr, n, IBV_SEND_IP_CSUM);
	g = rx_poll(&q2, 3000);
	CHECK(g.n && g.len == n && !(g.flags & IBV_WC_IP_CSUM_OK), "ipv6: n %d len %u", g.n, g.len);
	check_tcp6_csum(q2.buf + g.wr_id * FR, n);
	c = last_cqe(&q2);
	CHECK(c->hds_ip_ext == (MLX5_CQE_L2_OK | MLX5_CQE_L3_OK | MLX5_CQE_L4_OK) &&
	      c->l4_hdr_type_etc == (4 << 4 | MLX5_CQE_L3_HDR_TYPE_IPV6 << 2), "ipv6 cqe: 0x%x 0x%x", c->hds_ip_ext,
	      c->l4_hdr_type_etc);
	while (rx_poll(&q3, 200).n)
		;

	/* 8. LSO: 54 bytes of Ethernet/IPv4/TCP headers, mss 200, 500 bytes of payload -> 3 segments with their own
	 * IP length and ID, TCP sequence number, PSH|FIN on the last only, and valid checksums */
	{
		uint8_t hdr[54];
		memset(hdr, 0, sizeof hdr);
		memcpy(hdr, MAC_A, 6);
		memcpy(hdr + 6, MAC_SRC, 6);
		hdr[12] = 0x08;
		hdr[14] = 0x45; hdr[18] = 0x12; hdr[19] = 0x34; hdr[22] = 64; hdr[23] = 6;
		hdr[26] = 10; hdr[29] = 1; hdr[30] = 10; hdr[33] = 2;
		hdr[34] = 0x04; hdr[35] = 0xd2; hdr[36] = 0x16; hdr[37] = 0x2e;      /* ports 1234 -> 5678 */
		hdr[38] = 0x10; hdr[39] = 0x20; hdr[40] = 0x30; hdr[41] = 0x40;      /* seq 0x10203040 */
		hdr[46] = 0x50; hdr[47] = 0x19;                                      /* doff 5, ACK|PSH|FIN */
		hdr[48] = 0x20;
		for (int i = 0; i < 500; i++)
			g_txbuf[i] = (uint8_t)(i * 13 + 1);
		struct ibv_sge sge = { (uintptr_t)g_txbuf, 500, g_txmr->lkey };
		struct ibv_send_wr wr = { .wr_id = 78, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_TSO,
					  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM };
		wr.tso.hdr = hdr;
		wr.tso.hdr_sz = sizeof hdr;
		wr.tso.mss = 200;
		t_post_send(g_tx, &wr);
		struct ibv_wc wc;
		CHECK(t_poll(g_txcq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_TSO,
		      "TSO completion: status %d opcode %d", wc.status, wc.opcode);
		for (int k = 0; k < 3; k++) {
			g = rx_poll(&q2, 3000);
			uint32_t pl = k < 2 ? 200 : 100;
			CHECK(g.n && g.len == 54 + pl && (g.flags & IBV_WC_IP_CSUM_OK), "segment %d: n %d len %u", k, g.n,
			      g.len);
			uint8_t *sg = q2.buf + g.wr_id * FR;
			CHECK(csum_fold(csum_add(sg + 14, 20, 0)) == 0xffff, "segment %d IP checksum", k);
			CHECK((uint32_t)(sg[16] << 8 | sg[17]) == 40 + pl && (sg[18] << 8 | sg[19]) == 0x1234 + k, "IP len/id %d", k);
			uint32_t seq = (uint32_t)sg[38] << 24 | (uint32_t)sg[39] << 16 | (uint32_t)sg[40] << 8 | sg[41];
			CHECK(seq == 0x10203040u + 200u * (uint32_t)k, "seq %d: 0x%x", k, seq);
			CHECK(sg[47] == (k < 2 ? 0x10 : 0x19), "TCP flags %d: 0x%x", k, sg[47]);
			uint32_t ps = csum_add(sg + 26, 8, 0) + 6 + 20 + pl;
			CHECK(csum_fold(csum_add(sg + 34, 20 + pl, ps)) == 0xffff, "segment %d TCP checksum", k);
			CHECK(memcmp(sg + 54, g_txbuf + 200 * k, pl) == 0, "segment %d payload", k);
		}
		while (rx_poll(&q3, 200).n)
			;
	}

	/* 10. packet pacing: IBV_QP_RATE_LIMIT 8000 kb/s paces 1000-byte frames to one per millisecond; rates outside
	 *     packet_pacing_caps are EINVAL, 0 removes the limit */
	{
		CHECK(dx.packet_pacing_caps.qp_rate_limit_min == 1000 && dx.packet_pacing_caps.qp_rate_limit_max == 100000000 &&
		      dx.packet_pacing_caps.supported_qpts == 1u << IBV_QPT_RAW_PACKET, "packet pacing caps");
		struct ibv_qp_attr ra;
		memset(&ra, 0, sizeof ra);
		ra.qp_state = IBV_QPS_RTS;
		ra.rate_limit = 500;
		CHECK(ibv_modify_qp(g_tx, &ra, IBV_QP_STATE | IBV_QP_RATE_LIMIT) == EINVAL, "rate below the minimum");
		ra.rate_limit = 8000;
		CHECK(ibv_modify_qp(g_tx, &ra, IBV_QP_STATE | IBV_QP_RATE_LIMIT) == 0, "rate limit");
		n = udp4(fr, MAC_B, 1, 1000, 0);
		uint64_t t0 = t_ms();
		for (int k = 0; k < 10; k++)
			send_frame(fr, n, 0);
		uint64_t dt = t_ms() - t0;
		CHECK(dt >= 8, "10 frames of 1000 bytes at 8000 kb/s took %llu ms", (unsigned long long)dt);
		ra.rate_limit = 0;
		CHECK(ibv_modify_qp(g_tx, &ra, IBV_QP_STATE | IBV_QP_RATE_LIMIT) == 0, "no rate limit");
		while (rx_poll(&q3, 200).n)
			;
	}

	/* 9. WQEs written by hand through mlx5dv (what a direct-verbs program such as mlx5j writes):
	 *    min-inline none: VLAN insertion (eth segment insert.type bit 15, insert.vlan_tci) -> qv strips it again;
	 *    min-inline l2: an Ethernet segment with fewer inline bytes than reported -> strict report, error CQE */
	{
		uint32_t pi = be32toh(((volatile uint32_t *)dq.dbrec)[MLX5_SND_DBR]) & 0xffff;
		uint8_t w[64];
		memset(w, 0, sizeof w);
		*(uint32_t *)(void *)w = htobe32((pi & 0xffff) << 8 | MLX5_OPCODE_SEND);
		*(uint32_t *)(void *)(w + 4) = htobe32(g_tx->qp_num << 8 | 3);
		w[11] = MLX5_WQE_CTRL_CQ_UPDATE;
		n = udp4(fr, MAC_SRC, 9, 120, 0);
		memcpy(g_txbuf, fr, n);
		w[16 + 12] = 0x80;            /* insert.type = MLX5_ETH_WQE_INSERT_VLAN */
		w[16 + 14] = 0x01; w[16 + 15] = 0x23;
		*(uint32_t *)(void *)(w + 32) = htobe32((uint32_t)n);
		*(uint32_t *)(void *)(w + 36) = htobe32(g_txmr->lkey);
		*(uint64_t *)(void *)(w + 40) = htobe64((uintptr_t)g_txbuf);
		if (l2) {
			memset(w + 16, 0, 16); /* inline_hdr_sz 0 while the device asked for 18 */
		}
		memcpy((uint8_t *)dq.sq.buf + (size_t)(pi & (dq.sq.wqe_cnt - 1)) * 64, w, 64);
		udma_to_device_barrier(); /* else the engine could read the WQE before its bytes */
		((volatile uint32_t *)dq.dbrec)[MLX5_SND_DBR] = htobe32((pi + 1) & 0xffff);
		mmio_wc_start(); /* else the doorbell could reach the engine before the record */
		unsigned long vb = t_violations(); /* before the doorbell: a doorbell store may execute at once */
		*(volatile uint64_t *)dq.bf.reg = *(uint64_t *)(void *)w;
		struct ibv_wc wc;
		CHECK(t_poll(g_txcq, &wc, 1, 5000) == 1, "hand-written WQE completion");
		if (l2) {
			CHECK(wc.status == IBV_WC_LOC_QP_OP_ERR && t_violations() == vb + 1, "short inline: status %d", wc.status);
		} else {
			CHECK(wc.status == IBV_WC_SUCCESS, "vlan insert send: status %d", wc.status);
			g = rx_poll(&qv, 3000);
			CHECK(g.n && g.len == n && g.vlan == 0x0123, "inserted VLAN: n %d len %u vlan 0x%x", g.n, g.len, g.vlan);
			CHECK(memcmp(qv.buf + g.wr_id * FR, fr, n) == 0, "frame after stripping the inserted tag");
			while (rx_poll(&q3, 200).n)
				;
		}
	}

	/* teardown: destroying flows releases the QP */
	CHECK(ibv_destroy_flow(f1) == 0 && ibv_destroy_flow(f2) == 0, "destroy flows");
	for (int i = 0; i < 5; i++)
		CHECK(ibv_destroy_flow(fl[i]) == 0, "destroy flow %d", i);
	struct rq *all[4] = { &q1, &q2, &q3, &qv };
	for (int i = 0; i < 4; i++) {
		CHECK(ibv_destroy_qp(all[i]->qp) == 0, "destroy qp");
		CHECK(ibv_destroy_cq(ibv_cq_ex_to_cq(all[i]->cq)) == 0, "destroy cq");
		ibv_dereg_mr(all[i]->mr);
		free(all[i]->buf);
	}
	CHECK(ibv_destroy_qp(g_tx) == 0 && ibv_destroy_qp(rc) == 0, "destroy");
	ibv_destroy_cq(g_txcq);
	ibv_destroy_cq(rccq);
	ibv_dereg_mr(g_txmr);
	free(g_txbuf);
	ibv_dealloc_pd(t_pd);
	ibv_close_device(t_ctx);
	printf("t_raw_eth: ok\n");
	return 0;
}
