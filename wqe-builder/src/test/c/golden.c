/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Golden-byte oracle for io.mlx5j.wqe: builds mlx5 WQE segments with the installed <infiniband/mlx5dv.h>
 * (its static inline mlx5dv_set_*_seg helpers where they exist, otherwise its structs filled field by field)
 * and prints them as hex. Reads one command per line on stdin, writes one line per command on stdout.
 * Numbers are parsed with strtoull(.., 0), so the Java side passes them as 0x... hex.
 */
#define _DEFAULT_SOURCE
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <net/ethernet.h>
#include <netinet/ip.h>
#include <netinet/udp.h>

/* Not in mlx5dv.h: private to rdma-core v44 providers/mlx5/wqe.h (struct mlx5_wqe_masked_atomic_seg). */
struct masked_atomic64_cs {
	__be64 swap_add;
	__be64 compare;
	__be64 swap_add_mask;
	__be64 compare_mask;
};
/* Not in any installed header: PRM "Atomic Operations" masked forms (same shapes as UCX ib_mlx5.h). */
struct masked_atomic64_fa {
	__be64 add;
	__be64 field_boundary;
};
struct masked_atomic32_cs {
	__be32 swap;
	__be32 compare;
	__be32 swap_mask;
	__be32 compare_mask;
};
struct masked_atomic32_fa {
	__be32 add;
	__be32 field_boundary;
	uint64_t reserved;
};

static uint64_t next_num(void)
{
	char tok[128];

	if (scanf("%127s", tok) != 1) {
		fprintf(stderr, "golden: missing number\n");
		exit(2);
	}
	return strtoull(tok, NULL, 0);
}

static void hex_bytes(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1) {
			fprintf(stderr, "golden: bad hex\n");
			exit(2);
		}
		out[i] = (uint8_t)b;
	}
}

static void print_hex(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
	printf("\n");
}

#define OFF(s, f) printf("%s.%s %zu\n", #s, #f, offsetof(struct s, f))
#define SZ(s) printf("%s.sizeof %zu\n", #s, sizeof(struct s))
#define CONST(c) printf("%s %lld\n", #c, (long long)(c))

static void layout(void)
{
	OFF(mlx5_wqe_ctrl_seg, opmod_idx_opcode); OFF(mlx5_wqe_ctrl_seg, qpn_ds);
	OFF(mlx5_wqe_ctrl_seg, signature); OFF(mlx5_wqe_ctrl_seg, dci_stream_channel_id);
	OFF(mlx5_wqe_ctrl_seg, fm_ce_se); OFF(mlx5_wqe_ctrl_seg, imm); SZ(mlx5_wqe_ctrl_seg);
	OFF(mlx5_wqe_raddr_seg, raddr); OFF(mlx5_wqe_raddr_seg, rkey); OFF(mlx5_wqe_raddr_seg, reserved);
	SZ(mlx5_wqe_raddr_seg);
	OFF(mlx5_wqe_data_seg, byte_count); OFF(mlx5_wqe_data_seg, lkey); OFF(mlx5_wqe_data_seg, addr);
	SZ(mlx5_wqe_data_seg);
	OFF(mlx5_wqe_inl_data_seg, byte_count); SZ(mlx5_wqe_inl_data_seg);
	OFF(mlx5_wqe_atomic_seg, swap_add); OFF(mlx5_wqe_atomic_seg, compare); SZ(mlx5_wqe_atomic_seg);
	OFF(masked_atomic64_cs, swap_add); OFF(masked_atomic64_cs, compare);
	OFF(masked_atomic64_cs, swap_add_mask); OFF(masked_atomic64_cs, compare_mask); SZ(masked_atomic64_cs);
	OFF(mlx5_wqe_av, key); OFF(mlx5_wqe_av, dqp_dct); OFF(mlx5_wqe_av, stat_rate_sl);
	OFF(mlx5_wqe_av, fl_mlid); OFF(mlx5_wqe_av, rlid); OFF(mlx5_wqe_av, reserved0); OFF(mlx5_wqe_av, rmac);
	OFF(mlx5_wqe_av, tclass); OFF(mlx5_wqe_av, hop_limit); OFF(mlx5_wqe_av, grh_gid_fl);
	OFF(mlx5_wqe_av, rgid); SZ(mlx5_wqe_av); SZ(mlx5_wqe_datagram_seg);
	OFF(mlx5_wqe_srq_next_seg, rsvd0); OFF(mlx5_wqe_srq_next_seg, next_wqe_index);
	OFF(mlx5_wqe_srq_next_seg, signature); OFF(mlx5_wqe_srq_next_seg, rsvd1);
	SZ(mlx5_wqe_srq_next_seg);
	OFF(mlx5_cqe64, slid); OFF(mlx5_cqe64, flags_rqpn); OFF(mlx5_cqe64, srqn_uidx);
	OFF(mlx5_cqe64, imm_inval_pkey); OFF(mlx5_cqe64, byte_cnt); OFF(mlx5_cqe64, timestamp);
	OFF(mlx5_cqe64, sop_drop_qpn); OFF(mlx5_cqe64, wqe_counter); OFF(mlx5_cqe64, signature);
	OFF(mlx5_cqe64, op_own); SZ(mlx5_cqe64);
	OFF(mlx5_err_cqe, srqn); OFF(mlx5_err_cqe, vendor_err_synd); OFF(mlx5_err_cqe, syndrome);
	OFF(mlx5_err_cqe, s_wqe_opcode_qpn); OFF(mlx5_err_cqe, wqe_counter); OFF(mlx5_err_cqe, op_own);
	SZ(mlx5_err_cqe);
	CONST(MLX5_OPCODE_NOP); CONST(MLX5_OPCODE_SEND_INVAL); CONST(MLX5_OPCODE_RDMA_WRITE);
	CONST(MLX5_OPCODE_RDMA_WRITE_IMM); CONST(MLX5_OPCODE_SEND); CONST(MLX5_OPCODE_SEND_IMM);
	CONST(MLX5_OPCODE_RDMA_READ); CONST(MLX5_OPCODE_ATOMIC_CS); CONST(MLX5_OPCODE_ATOMIC_FA);
	CONST(MLX5_OPCODE_ATOMIC_MASKED_CS); CONST(MLX5_OPCODE_ATOMIC_MASKED_FA); CONST(MLX5_OPCODE_LOCAL_INVAL);
	CONST(MLX5_OPCODE_TSO); CONST(MLX5_OPCODE_FMR); CONST(MLX5_OPCODE_CONFIG_CMD); CONST(MLX5_OPCODE_SET_PSV);
	CONST(MLX5_OPCODE_UMR); CONST(MLX5_OPCODE_TAG_MATCHING); CONST(MLX5_OPCODE_FLOW_TBL_ACCESS);
	CONST(MLX5_OPCODE_MMO);
	CONST(MLX5_WQE_CTRL_CQ_UPDATE); CONST(MLX5_WQE_CTRL_SOLICITED); CONST(MLX5_WQE_CTRL_FENCE);
	CONST(MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE); CONST(MLX5_SEND_WQE_BB); CONST(MLX5_SEND_WQE_SHIFT);
	CONST((uint32_t)MLX5_INLINE_SEG); CONST(MLX5_INVALID_LKEY); CONST((uint32_t)MLX5_EXTENDED_UD_AV);
	CONST(MLX5_INLINE_SCATTER_32); CONST(MLX5_INLINE_SCATTER_64); CONST(MLX5_CQE_OWNER_MASK);
	CONST(MLX5_CQE_REQ); CONST(MLX5_CQE_RESP_WR_IMM); CONST(MLX5_CQE_RESP_SEND); CONST(MLX5_CQE_RESP_SEND_IMM);
	CONST(MLX5_CQE_RESP_SEND_INV); CONST(MLX5_CQE_RESIZE_CQ); CONST(MLX5_CQE_NO_PACKET);
	CONST(MLX5_CQE_SIG_ERR); CONST(MLX5_CQE_REQ_ERR); CONST(MLX5_CQE_RESP_ERR); CONST(MLX5_CQE_INVALID);
	CONST(MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR); CONST(MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	CONST(MLX5_CQE_SYNDROME_LOCAL_PROT_ERR); CONST(MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CONST(MLX5_CQE_SYNDROME_MW_BIND_ERR); CONST(MLX5_CQE_SYNDROME_BAD_RESP_ERR);
	CONST(MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR); CONST(MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
	CONST(MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR); CONST(MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	CONST(MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR); CONST(MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
	CONST(MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR);
	CONST(IBV_WC_SUCCESS); CONST(IBV_WC_LOC_LEN_ERR); CONST(IBV_WC_LOC_QP_OP_ERR); CONST(IBV_WC_LOC_EEC_OP_ERR);
	CONST(IBV_WC_LOC_PROT_ERR); CONST(IBV_WC_WR_FLUSH_ERR); CONST(IBV_WC_MW_BIND_ERR); CONST(IBV_WC_BAD_RESP_ERR);
	CONST(IBV_WC_LOC_ACCESS_ERR); CONST(IBV_WC_REM_INV_REQ_ERR); CONST(IBV_WC_REM_ACCESS_ERR);
	CONST(IBV_WC_REM_OP_ERR); CONST(IBV_WC_RETRY_EXC_ERR); CONST(IBV_WC_RNR_RETRY_EXC_ERR);
	CONST(IBV_WC_LOC_RDD_VIOL_ERR); CONST(IBV_WC_REM_INV_RD_REQ_ERR); CONST(IBV_WC_REM_ABORT_ERR);
	CONST(IBV_WC_INV_EECN_ERR); CONST(IBV_WC_INV_EEC_STATE_ERR); CONST(IBV_WC_FATAL_ERR);
	CONST(IBV_WC_RESP_TIMEOUT_ERR); CONST(IBV_WC_GENERAL_ERR); CONST(IBV_WC_TM_ERR);
	CONST(IBV_WC_TM_RNDV_INCOMPLETE);
	printf("end\n");
}

/*
 * Whole WQE in a ring, composed the way libmlx5 does in qp.c: segments are built with the helpers above into a
 * scratch buffer and laid down at the running position modulo the ring size, so any segment (and inline data in
 * the middle) continues at the ring start; ctrl comes last via mlx5dv_set_ctrl_seg with the final ds.
 * Input: ring_bb ctrl_bb pi opcode opmod qpn fm imm nseg, then per segment
 *   d len lkey addr | r raddr rkey | c swap compare | i len hex | g <the 11 dgram arguments>
 * Output: the whole ring (pre-filled with 0x5a) as hex.
 */
static void compose_wqe(void)
{
	uint32_t ring_bb = next_num(), ctrl_bb = next_num();
	uint16_t pi = next_num();
	uint8_t opcode = next_num(), opmod = next_num();
	uint32_t qpn = next_num();
	uint8_t fm = next_num();
	uint32_t imm = next_num(), nseg = next_num();
	size_t size = (size_t)ring_bb * MLX5_SEND_WQE_BB, mask = size - 1, pos;
	uint8_t *ring = malloc(size);
	uint8_t seg[1024];
	unsigned int ds = 1;

	if (!ring || ring_bb == 0 || (ring_bb & (ring_bb - 1)) || ctrl_bb >= ring_bb)
		exit(2);
	memset(ring, 0x5a, size);
	pos = (size_t)ctrl_bb * MLX5_SEND_WQE_BB + sizeof(struct mlx5_wqe_ctrl_seg);
	for (uint32_t k = 0; k < nseg; k++) {
		char kind[8], hex[2100];
		size_t n;

		if (scanf("%7s", kind) != 1)
			exit(2);
		memset(seg, 0, sizeof(seg));
		if (!strcmp(kind, "d")) {
			uint32_t len = next_num(), lkey = next_num();
			uint64_t addr = next_num();

			mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)seg, len, lkey, (uintptr_t)addr);
			n = sizeof(struct mlx5_wqe_data_seg);
		} else if (!strcmp(kind, "r")) {
			struct mlx5_wqe_raddr_seg *r = (void *)seg;

			r->raddr = htobe64(next_num());
			r->rkey = htobe32(next_num());
			n = sizeof(*r);
		} else if (!strcmp(kind, "c")) {
			struct mlx5_wqe_atomic_seg *a = (void *)seg;

			a->swap_add = htobe64(next_num());
			a->compare = htobe64(next_num());
			n = sizeof(*a);
		} else if (!strcmp(kind, "i")) {
			struct mlx5_wqe_inl_data_seg *inl = (void *)seg;
			uint32_t len = next_num();

			if (len > sizeof(seg) - 16 || scanf("%2099s", hex) != 1)
				exit(2);
			inl->byte_count = htobe32(len | MLX5_INLINE_SEG);
			hex_bytes(hex, seg + sizeof(*inl), len);
			n = (sizeof(*inl) + len + 15) & ~(size_t)15;
		} else if (!strcmp(kind, "g")) {
			uint8_t rmac[6], rgid[16];
			uint64_t key = next_num();
			uint32_t dqp = next_num();
			uint8_t ext = next_num(), srsl = next_num(), flmlid = next_num();
			uint16_t rlid = next_num();

			if (scanf("%63s", hex) != 1)
				exit(2);
			hex_bytes(hex, rmac, 6);
			uint8_t tclass = next_num(), hop = next_num();
			uint32_t grh = next_num();

			if (scanf("%63s", hex) != 1)
				exit(2);
			hex_bytes(hex, rgid, 16);
			mlx5dv_set_dgram_seg((struct mlx5_wqe_datagram_seg *)seg, key, dqp, ext, srsl, flmlid, rlid, rmac,
					     tclass, hop, grh, rgid);
			n = sizeof(struct mlx5_wqe_datagram_seg);
		} else {
			exit(2);
		}
		for (size_t j = 0; j < n; j++)
			ring[(pos + j) & mask] = seg[j];
		pos += n;
		ds += n / 16;
	}
	/* the helper leaves dci_stream_channel_id alone; libmlx5 qp.c clears ctrl bytes 8..11 before posting */
	memset(ring + (size_t)ctrl_bb * MLX5_SEND_WQE_BB + 8, 0, 4);
	mlx5dv_set_ctrl_seg((struct mlx5_wqe_ctrl_seg *)(ring + (size_t)ctrl_bb * MLX5_SEND_WQE_BB), pi, opcode, opmod,
			    qpn, fm, ds, 0, htobe32(imm));
	print_hex(ring, size);
	free(ring);
}

int main(void)
{
	char cmd[32];

	while (scanf("%31s", cmd) == 1) {
		if (!strcmp(cmd, "layout")) {
			layout();
		} else if (!strcmp(cmd, "ctrl")) {
			struct mlx5_wqe_ctrl_seg s;
			uint16_t pi = next_num();
			uint8_t opcode = next_num(), opmod = next_num();
			uint32_t qpn = next_num();
			uint8_t fm = next_num(), ds = next_num(), sig = next_num();
			uint32_t imm = next_num();

			memset(&s, 0, sizeof(s));
			/* imm as the numeric value: the helper expects it already big-endian */
			mlx5dv_set_ctrl_seg(&s, pi, opcode, opmod, qpn, fm, ds, sig, htobe32(imm));
			print_hex(&s, sizeof(s));
		} else if (!strcmp(cmd, "data")) {
			struct mlx5_wqe_data_seg s;
			uint32_t len = next_num(), lkey = next_num();
			uint64_t addr = next_num();

			mlx5dv_set_data_seg(&s, len, lkey, (uintptr_t)addr);
			print_hex(&s, sizeof(s));
		} else if (!strcmp(cmd, "raddr")) {
			struct mlx5_wqe_raddr_seg s;

			memset(&s, 0, sizeof(s));
			s.raddr = htobe64(next_num());
			s.rkey = htobe32(next_num());
			print_hex(&s, sizeof(s));
		} else if (!strcmp(cmd, "cas")) {
			struct mlx5_wqe_atomic_seg s;

			s.swap_add = htobe64(next_num());
			s.compare = htobe64(next_num());
			print_hex(&s, sizeof(s));
		} else if (!strcmp(cmd, "faa")) {
			struct mlx5_wqe_atomic_seg s;

			memset(&s, 0, sizeof(s));
			s.swap_add = htobe64(next_num());
			print_hex(&s, sizeof(s));
		} else if (!strcmp(cmd, "mcas64")) {
			struct masked_atomic64_cs s;

			s.swap_add = htobe64(next_num());
			s.compare = htobe64(next_num());
			s.swap_add_mask = htobe64(next_num());
			s.compare_mask = htobe64(next_num());
			print_hex(&s, sizeof(s));
		} else if (!strcmp(cmd, "mfa64")) {
			struct masked_atomic64_fa s;

			s.add = htobe64(next_num());
			s.field_boundary = htobe64(next_num());
			print_hex(&s, sizeof(s));
		} else if (!strcmp(cmd, "mcas32")) {
			struct masked_atomic32_cs s;

			s.swap = htobe32(next_num());
			s.compare = htobe32(next_num());
			s.swap_mask = htobe32(next_num());
			s.compare_mask = htobe32(next_num());
			print_hex(&s, sizeof(s));
		} else if (!strcmp(cmd, "mfa32")) {
			struct masked_atomic32_fa s;

			memset(&s, 0, sizeof(s));
			s.add = htobe32(next_num());
			s.field_boundary = htobe32(next_num());
			print_hex(&s, sizeof(s));
		} else if (!strcmp(cmd, "dgram")) {
			struct mlx5_wqe_datagram_seg s;
			uint8_t rmac[6], rgid[16];
			char hex[64];
			uint64_t key = next_num();
			uint32_t dqp = next_num();
			uint8_t ext = next_num(), srsl = next_num(), flmlid = next_num();
			uint16_t rlid = next_num();

			if (scanf("%63s", hex) != 1)
				return 2;
			hex_bytes(hex, rmac, 6);
			uint8_t tclass = next_num(), hop = next_num();
			uint32_t grh = next_num();

			if (scanf("%63s", hex) != 1)
				return 2;
			hex_bytes(hex, rgid, 16);
			memset(&s, 0, sizeof(s));
			mlx5dv_set_dgram_seg(&s, key, dqp, ext, srsl, flmlid, rlid, rmac, tclass, hop, grh, rgid);
			print_hex(&s, sizeof(s));
		} else if (!strcmp(cmd, "inline")) {
			/* header then data, padded to 16 with zeros */
			uint8_t buf[1024];
			struct mlx5_wqe_inl_data_seg *s = (void *)buf;
			char *hex;
			uint32_t len = next_num();
			size_t total = (sizeof(*s) + len + 15) & ~(size_t)15;

			if (len > sizeof(buf) - 16)
				return 2;
			hex = malloc(2 * len + 2);
			if (!hex || scanf("%s", hex) != 1)
				return 2;
			memset(buf, 0, sizeof(buf));
			s->byte_count = htobe32(len | MLX5_INLINE_SEG);
			hex_bytes(hex, buf + sizeof(*s), len);
			free(hex);
			print_hex(buf, total);
		} else if (!strcmp(cmd, "eth")) {
			/*
			 * Ethernet segment, from struct mlx5_wqe_eth_seg: cs_flags mss vlan n frame_hex. vlan is a TCI or
			 * 0x10000 for none; n inline header bytes of the frame as sent (with the 802.1Q tag after the MACs
			 * when vlan is set). Without inline bytes a VLAN goes into the insert word at inline_hdr_sz (Linux
			 * include/linux/mlx5/qp.h: insert.type = MLX5_ETH_WQE_INSERT_VLAN (1 << 15), insert.vlan_tci).
			 * Length as libmlx5 advances: one unit for up to 2 bytes, else 16 + align(n - 2, 16)
			 * (set_tso_eth_seg in rdma-core v44 providers/mlx5/qp.c).
			 */
			uint8_t buf[1024], frame[1024], tagged[1024];
			struct mlx5_wqe_eth_seg *e = (void *)buf;
			unsigned int cs = next_num(), mss = next_num(), vlan = next_num(), n = next_num();
			char *hex;
			size_t flen, total;

			if (n > 512)
				return 2;
			hex = malloc(2048 + 2);
			if (!hex || scanf("%2048s", hex) != 1)
				return 2;
			flen = strcmp(hex, "-") ? strlen(hex) / 2 : 0;
			hex_bytes(hex, frame, flen);
			free(hex);
			memset(buf, 0, sizeof(buf));
			e->cs_flags = cs;
			e->mss = htobe16(mss);
			if (vlan <= 0xffff && n == 0) {
				__be32 insert = htobe32((1u << 31) | vlan);

				memcpy(&e->inline_hdr_sz, &insert, sizeof(insert));
				total = 16;
			} else {
				if (vlan <= 0xffff) {
					memcpy(tagged, frame, 12);
					tagged[12] = 0x81;
					tagged[13] = 0x00;
					tagged[14] = vlan >> 8;
					tagged[15] = vlan & 0xff;
					memcpy(tagged + 16, frame + 12, flen - 12);
				} else {
					memcpy(tagged, frame, flen);
				}
				e->inline_hdr_sz = htobe16(n);
				memcpy(e->inline_hdr_start, tagged, n);
				total = n <= 2 ? 16 : 16 + ((n - 2 + 15) & ~(size_t)15);
			}
			print_hex(buf, total);
		} else if (!strcmp(cmd, "udp")) {
			/*
			 * Ethernet/IPv4/UDP header from glibc's struct ether_header, struct iphdr and struct udphdr:
			 * dst_mac src_mac src_ip dst_ip sport dport ttl tos payload_len ip_id. DF set, UDP checksum 0,
			 * IPv4 header checksum by the RFC 1071 sum over the 20 header bytes.
			 */
			/* the IP header must be 4-aligned for struct iphdr: the frame starts 2 bytes into an aligned buffer */
			uint8_t frame[2 + sizeof(struct ether_header) + sizeof(struct iphdr) + sizeof(struct udphdr)]
				__attribute__((aligned(4)));
			uint8_t *buf = frame + 2;
			struct ether_header *eh = (void *)buf;
			struct iphdr *ip = (void *)(buf + sizeof(*eh));
			struct udphdr *udp = (void *)(buf + sizeof(*eh) + sizeof(*ip));
			uint64_t dmac = next_num(), smac = next_num();
			uint32_t sip = next_num(), dip = next_num(), sport = next_num(), dport = next_num();
			uint32_t ttl = next_num(), tos = next_num(), plen = next_num(), id = next_num(), sum = 0;
			const uint8_t *p = (const uint8_t *)ip;

			memset(frame, 0, sizeof(frame));
			for (int i = 0; i < 6; i++) {
				eh->ether_dhost[i] = dmac >> (40 - 8 * i);
				eh->ether_shost[i] = smac >> (40 - 8 * i);
			}
			eh->ether_type = htobe16(ETHERTYPE_IP);
			ip->version = 4;
			ip->ihl = 5;
			ip->tos = tos;
			ip->tot_len = htobe16(sizeof(*ip) + sizeof(*udp) + plen);
			ip->id = htobe16(id);
			ip->frag_off = htobe16(IP_DF);
			ip->ttl = ttl;
			ip->protocol = IPPROTO_UDP;
			ip->saddr = htobe32(sip);
			ip->daddr = htobe32(dip);
			for (size_t i = 0; i < sizeof(*ip); i += 2)
				sum += (uint32_t)p[i] << 8 | p[i + 1];
			while (sum >> 16)
				sum = (sum & 0xffff) + (sum >> 16);
			ip->check = htobe16(~sum & 0xffff);
			udp->source = htobe16(sport);
			udp->dest = htobe16(dport);
			udp->len = htobe16(sizeof(*udp) + plen);
			print_hex(buf, sizeof(frame) - 2);
		} else if (!strcmp(cmd, "recv")) {
			/* stride in data segs, optional SRQ next seg, n SGEs, terminator as libmlx5 mlx5_post_recv */
			struct mlx5_wqe_data_seg segs[64];
			struct mlx5_wqe_srq_next_seg next;
			unsigned int srq = next_num(), next_idx = next_num(), max_gs = next_num(), n = next_num();

			if (max_gs > 64 || n > max_gs)
				return 2;
			memset(segs, 0xee, sizeof(segs));
			memset(&next, 0, sizeof(next));
			next.next_wqe_index = htobe16(next_idx);
			for (unsigned int i = 0; i < n; i++) {
				uint32_t len = next_num(), lkey = next_num();
				uint64_t addr = next_num();

				mlx5dv_set_data_seg(&segs[i], len, lkey, (uintptr_t)addr);
			}
			if (n < max_gs) {
				segs[n].byte_count = 0;
				segs[n].lkey = htobe32(MLX5_INVALID_LKEY);
				segs[n].addr = 0;
			}
			if (srq) {
				uint8_t out[16 + sizeof(segs)];

				memcpy(out, &next, 16);
				memcpy(out + 16, segs, max_gs * sizeof(segs[0]));
				print_hex(out, 16 + max_gs * sizeof(segs[0]));
			} else {
				print_hex(segs, max_gs * sizeof(segs[0]));
			}
		} else if (!strcmp(cmd, "wqe")) {
			compose_wqe();
		} else {
			fprintf(stderr, "golden: unknown command %s\n", cmd);
			return 2;
		}
	}
	return 0;
}
