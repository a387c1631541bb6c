/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t_pcap_raw_eth.c - the pcap tap records raw packet QP frames as the port sends them, judged by tshark: frames
 * posted with IBV_SEND_IP_CSUM and zeroed checksums must show valid IPv4 header and UDP/TCP checksums in the file
 * (tshark -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -o tcp.check_checksum:TRUE), each frame exactly
 * once although the sending process also receives it (loopback to its own port).
 * The test re-executes itself with MLX5EMU_PCAP set, since the tap is opened when the library loads.
 */
#include "rss_common.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
	(void)argc;
	if (!getenv("MLX5EMU_PCAP")) {
		static char path[] = "/tmp/t_pcap_raw_eth.XXXXXX";
		int fd = mkstemp(path);
		CHECK(fd >= 0, "mkstemp");
		close(fd);
		unlink(path); /* the tap creates it and writes the file header */
		setenv("MLX5EMU_PCAP", path, 1);
		execv("/proc/self/exe", argv);
		CHECK(0, "re-exec: errno %d", errno);
	}
	const char *path = getenv("MLX5EMU_PCAP");
	t_open();
	CHECK(t_port.link_layer == IBV_LINK_LAYER_ETHERNET, "needs --link eth");
	tx_init();
	uint8_t fr[256], src[4] = { 10, 9, 8, 7 }, dst[4] = { 10, 9, 8, 6 };
	const uint8_t protos[4] = { 17, 6, 17, 6 };
	const size_t lens[4] = { 60, 90, 200, 255 };
	for (int k = 0; k < 4; k++) {
		size_t len = ip4_frame(fr, lens[k], protos[k], src, dst, (uint16_t)(7000 + k), 53);
		memcpy(g_txbuf, fr, len);
		struct ibv_sge sge = { (uintptr_t)g_txbuf, (uint32_t)len, g_txmr->lkey };
		struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM };
		t_post_send(g_tx, &wr);
		struct ibv_wc wc;
		CHECK(t_poll(g_txcq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS, "send %d", k);
	}
	/* tshark must not run with the emulator preloaded */
	unsetenv("LD_PRELOAD");
	char cmd[512];
	snprintf(cmd, sizeof cmd, "tshark -r %s -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE "
		 "-o tcp.check_checksum:TRUE -T fields -E separator=, -e frame.protocols -e ip.checksum.status "
		 "-e udp.checksum.status -e tcp.checksum.status -e ip.len 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	CHECK(p, "popen tshark");
	char line[256];
	int n = 0;
	while (fgets(line, sizeof line, p)) {
		printf("tshark: %s", line);
		char proto[128] = "", *f = line, *tok[5];
		for (int i = 0; i < 5; i++)
			tok[i] = strsep(&f, ",\n");
		snprintf(proto, sizeof proto, "%s", tok[0] ? tok[0] : "");
		CHECK(n < 4, "more frames than sent");
		const char *want = protos[n] == 17 ? "eth:ethertype:ip:udp" : "eth:ethertype:ip:tcp";
		CHECK(strncmp(proto, want, strlen(want)) == 0, "frame %d: %s", n, proto);
		CHECK(tok[1] && strcmp(tok[1], "1") == 0, "frame %d: IPv4 checksum status %s (1 = good)", n, tok[1]);
		const char *l4 = protos[n] == 17 ? tok[2] : tok[3];
		CHECK(l4 && strcmp(l4, "1") == 0, "frame %d: L4 checksum status %s (1 = good)", n, l4);
		CHECK(tok[4] && (size_t)atoi(tok[4]) == lens[n] - 14, "frame %d: IP length %s", n, tok[4]);
		n++;
	}
	CHECK(pclose(p) == 0, "tshark failed");
	CHECK(n == 4, "%d frames in the file, 4 sent", n);
	unlink(path);
	printf("t_pcap_raw_eth: 4 offloaded frames recorded once, checksums valid for tshark\n");
	return 0;
}
