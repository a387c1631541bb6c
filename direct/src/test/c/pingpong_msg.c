/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Oracle for PeerInfo.toPingpongMessage: formats an address the way rdma-core's ibv_*_pingpong examples do
 * (libibverbs/examples/pingpong.c gid_to_wire_gid + the "%04x:%06x:%06x:%s" message), written independently.
 * Usage: pingpong_msg LID QPN PSN GIDHEX32   (decimal numbers, GID as 32 hex digits in wire order)
 */
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	uint8_t raw[16];
	uint32_t words[4];
	char wire[33];
	int i;

	if (argc != 5 || strlen(argv[4]) != 32)
		return 2;
	for (i = 0; i < 16; i++) {
		char byte[3] = { argv[4][2 * i], argv[4][2 * i + 1], 0 };

		raw[i] = (uint8_t)strtoul(byte, NULL, 16);
	}
	memcpy(words, raw, sizeof(words));
	for (i = 0; i < 4; i++)
		sprintf(&wire[i * 8], "%08x", htobe32(words[i]));
	printf("%04x:%06x:%06x:%s\n", (unsigned)atoi(argv[1]), (unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]), wire);
	return 0;
}
