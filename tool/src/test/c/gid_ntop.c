/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Oracle for GidText.ntop: prints inet_ntop(AF_INET6) of each argument (32 hex digits, the GID's wire bytes), one
 * per line, as the ibv_*_pingpong examples print GIDs.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	for (int a = 1; a < argc; a++) {
		unsigned char raw[16];
		char text[INET6_ADDRSTRLEN];

		if (strlen(argv[a]) != 32)
			return 2;
		for (int i = 0; i < 16; i++) {
			char byte[3] = { argv[a][2 * i], argv[a][2 * i + 1], 0 };

			raw[i] = (unsigned char)strtoul(byte, NULL, 16);
		}
		if (!inet_ntop(AF_INET6, raw, text, sizeof(text)))
			return 1;
		printf("%s\n", text);
	}
	return 0;
}
