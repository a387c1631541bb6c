/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_roce.h - the bytes a ConnectX would put on an Ethernet wire for one engine packet: Ethernet, then IPv4 or
 * IPv6 and UDP port 4791 (RoCE v2) or a GRH (RoCE v1, ethertype 0x8915), the InfiniBand BTH and extended
 * transport headers (RETH, AETH, AtomicETH, AtomicAckETH, ImmDt, IETH, DETH), the payload, pad and ICRC.
 *
 * Sources: InfiniBand Architecture Specification vol. 1 ch. 9 (opcodes, header layouts), Annex A16 (RoCE) and
 * A17 (RoCE v2: UDP port 4791, ICRC over the IP/UDP headers with the variant fields masked to ones). The ICRC is
 * CRC-32 (the Ethernet polynomial, reflected), seeded with 8 bytes of ones that stand for the masked LRH, and stored
 * least significant byte first like an Ethernet FCS.
 *
 * Pure: used by the pcap tap and by its unit test and fuzz target.
 */
#ifndef MLX5EMU_ENG_ROCE_H
#define MLX5EMU_ENG_ROCE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/eng_internal.h"

#define ENG_ROCE_UDP_PORT 4791
/* Ethernet 14 + IPv6 40 + UDP 8 + BTH 12 + largest extension (DETH+ImmDt 12, AtomicETH 28) + pad 3 + ICRC 4 */
#define ENG_ROCE_MAX_HDR  128

/* BTH opcode of an engine packet (IBA 9.2: transport RC 0x00, UC 0x20, UD 0x60 in the top bits). */
uint8_t eng_roce_opcode(const struct pkt *p);

/* Write the frame for p (payload p->data, p->len bytes) into out (cap bytes). Returns the frame length, or 0 when
 * cap is too small or p->eth is not valid. IP and UDP length fields saturate at 0xffff for the engine's 64 KiB
 * packets, which no IP datagram can carry (the pcap tap notes this). */
size_t eng_roce_frame(const struct pkt *p, uint8_t *out, size_t cap);

/* The network header in front of the BTH (RoCE v2: before the UDP header) of packet p, whose BTH..ICRC part is
 * ib_len bytes: the GRH of RoCE v1 or the IPv6 header of RoCE v2 (40 bytes), or the IPv4 header (20 bytes, checksum
 * included) of RoCE v2 between IPv4-mapped GIDs. Written to l3; returns its length. p->eth must be valid. */
size_t eng_roce_l3(const struct pkt *p, size_t ib_len, uint8_t *l3);

/* The network header type of p as a CQE reports it (mlx5dv.h MLX5_CQE_L3_HDR_TYPE_NONE for a RoCE v1 GRH, _IPV6,
 * _IPV4). p->eth must be valid. */
uint8_t eng_roce_l3_type(const struct pkt *p);

/* ICRC of a RoCE packet: l3 points at its IP header (RoCE v2, ip_len 20 or 40, then UDP) or GRH (RoCE v1,
 * ip_len 40), len bytes run up to the ICRC. Stored least significant byte first after the payload. */
uint32_t eng_roce_icrc(const uint8_t *l3, size_t len, size_t ip_len, int v2);

/* CRC-32 (reflected 0xEDB88320) continued from crc (no final inversion). */
uint32_t eng_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* RoCE v2 UDP source port for a connected QP as the Linux kernel derives it (rdma_calc_flow_label and
 * rdma_flow_label_to_udp_sport in include/rdma/ib_verbs.h): from the flow label, or from the two QPNs. */
uint16_t eng_roce_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn);

#endif
