/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the engine's send WQE parser: arbitrary bytes as a send ring, every WQE position
 * linearized (with wrap) and parsed for every QP type (XRC INI WQEs: type 9). Must never crash, read out of bounds or hang.
 * Also feeds the receive WQE reader and the CQE writer, which see device-visible bytes too, and for raw packet
 * QPs (type 8) the Ethernet segment, the frame parser, checksum offload and the receive checks (eng_frame.c).
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "engine/eng_cqe.h"
#include "engine/eng_wqe.h"
#include "engine/eng_frame.h"

static const int types[] = { 2, 3, 4, 8, 9, 0xff }; /* RC, UC, UD, raw packet, XRC INI, DCI */
#define NTYPES ((int)(sizeof types / sizeof types[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t ring[4096];
	static uint8_t flat[ENG_WQE_MAX_BYTES];
	static struct eng_wqe w;
	if (size == 0)
		return 0;
	size_t ring_bytes = 64;
	while (ring_bytes < size && ring_bytes < sizeof ring)
		ring_bytes <<= 1;
	memset(ring, 0, ring_bytes);
	memcpy(ring, data, size < ring_bytes ? size : ring_bytes);
	for (uint32_t idx = 0; idx < ring_bytes / 64; idx++) {
		size_t n = eng_wqe_linearize(ring, ring_bytes, idx, flat, sizeof flat);
		for (int ti = 0; ti < NTYPES; ti++) {
			int t = types[ti];
			int st = eng_wqe_parse(flat, n, t, &w);
			(void)eng_wqe_status_str(st);
			if (st == ENG_WQE_OK && w.is_inline)
				for (uint32_t i = 0; i < w.nsge; i++)
					if (w.sge[i].inl && w.sge[i].addr + w.sge[i].len > n)
						__builtin_trap(); /* an inline piece must lie inside the WQE */
			if (st == ENG_WQE_OK && w.has_eth && !w.vlan_insert && (size_t)w.eth_hdr_off + w.eth_hdr_len > n)
				__builtin_trap(); /* the inline headers must lie inside the WQE */
		}
	}
	/* the flat parser directly on the raw input, any length */
	for (int ti = 0; ti < NTYPES; ti++)
		(void)eng_wqe_parse(data, size, types[ti], &w);
	/* the input as an Ethernet frame: parse, offload checksums on a copy, verify */
	static uint8_t frame[4096];
	size_t fl = size < sizeof frame ? size : sizeof frame;
	memcpy(frame, data, fl);
	struct emu_frame_info fi;
	if (emu_frame_parse(frame, fl, &fi) == 0) {
		(void)eng_frame_hdr_types(&fi);
		if (eng_frame_csum(frame, fl, 1, 1) == 0) {
			struct emu_frame_info f2;
			if (emu_frame_parse(frame, fl, &f2) != 0)
				__builtin_trap();
			uint8_t ok = eng_frame_rx_ok(frame, &f2);
			/* what the offload computed must verify (IPv4 header always; L4 when the headers are whole) */
			if (f2.ip_version == 4 && !(ok & ENG_CQE_L3_OK))
				__builtin_trap();
			if (f2.l4_off && f2.l3_off + f2.ip_total == fl && !(ok & ENG_CQE_L4_OK))
				__builtin_trap();
		}
	}
	struct eng_sge sge[16];
	uint16_t next;
	for (size_t stride = 16; stride <= size && stride <= 1024; stride <<= 1)
		(void)eng_rwqe_parse(data, stride, (int)(stride >> 4) & 1, sge, 16, &next);
	uint8_t cqe[128];
	struct eng_cqe_info ci;
	memset(&ci, 0, sizeof ci);
	ci.opcode = data[0] & 0xf;
	ci.inline_data = data;
	ci.inline_len = (uint32_t)(size < 200 ? size : 200);
	(void)eng_cqe_build(cqe, (data[0] & 0x10) ? 128 : 64, &ci, data[0] >> 7);
	return 0;
}
