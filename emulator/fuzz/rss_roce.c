/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the bytes the RSS hash and the pcap tap's RoCE framing read: eng_rss_hash_frame parses
 * frames that arrive from any process on the fabric (any length, any headers, any selected fields), and
 * eng_roce_frame frames an engine packet whose header fields come from another engine.
 * Input: 8 bytes of hash fields, 40 bytes of key, then the frame; the same bytes also fill a struct pkt.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/eng_roce.h"
#include "engine/eng_rss.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 48)
		return 0;
	uint64_t fields;
	memcpy(&fields, data, 8);
	uint8_t t;
	uint32_t h = eng_rss_hash_frame(data + 8, fields, data + 48, size - 48, &t);
	/* a hash type names only fields that were selected */
	if ((t & 0x03) && !(fields & (ENG_RX_HASH_SRC_IPV4 | ENG_RX_HASH_SRC_IPV6)))
		abort();
	if ((t & 0xc0) && !(fields & (ENG_RX_HASH_DST_PORT_TCP | ENG_RX_HASH_DST_PORT_UDP)))
		abort();
	if (!t && h)
		abort(); /* nothing hashed, hash 0 */

	/* a packet whose header is the input (payload length bounded by what follows it) */
	size_t hdr = sizeof(struct pkt);
	struct pkt *p = calloc(1, hdr + 2048);
	if (!p)
		return 0;
	memcpy(p, data, size < hdr ? size : hdr);
	size_t pay = size > hdr ? size - hdr : 0;
	if (pay > 2048)
		pay = 2048;
	memcpy(p->data, data + (size < hdr ? size : hdr), pay);
	p->len = (uint32_t)pay;
	static uint8_t out[2048 + ENG_ROCE_MAX_HDR];
	size_t n = eng_roce_frame(p, out, sizeof out);
	if (n && (n < 14 + 40 + 12 + 4 - 20 || n > sizeof out))
		abort();
	(void)eng_roce_opcode(p);
	free(p);
	return 0;
}
