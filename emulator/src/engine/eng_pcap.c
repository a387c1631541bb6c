/* SPDX-License-Identifier: Apache-2.0 */
/* The pcap tap: see eng_pcap.h. Classic pcap format: 24-byte file header (magic 0xa1b23c4d = nanosecond
 * timestamps, version 2.4, snaplen, link type 1 = Ethernet), then per frame a 16-byte record header
 * (seconds, nanoseconds, captured length, original length) and the bytes. */
#include "engine/eng_pcap.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/eng_internal.h"
#include "engine/eng_roce.h"

#define PCAP_SNAPLEN (ENG_CHUNK + ENG_ROCE_MAX_HDR)

static pthread_mutex_t pcap_lock = PTHREAD_MUTEX_INITIALIZER;
static int pcap_fd = -1;
static int pcap_inited;
static uint32_t pcap_tap;
static uint8_t *pcap_buf;   /* record header + frame, under pcap_lock */

static void put_le32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)(v >> 16); b[3] = (uint8_t)(v >> 24);
}

void eng_pcap_init(void)
{
	pthread_mutex_lock(&pcap_lock);
	if (pcap_inited) {
		pthread_mutex_unlock(&pcap_lock);
		return;
	}
	pcap_inited = 1;
	const char *path = getenv("MLX5EMU_PCAP");
	if (!path || !*path) {
		pthread_mutex_unlock(&pcap_lock);
		return;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	uint8_t *buf = fd >= 0 ? malloc(16 + PCAP_SNAPLEN) : NULL;
	if (fd < 0 || !buf) {
		fprintf(stderr, "mlx5emu[%d]: pcap tap %s: %s\n", (int)getpid(), path, strerror(fd < 0 ? errno : ENOMEM));
		if (fd >= 0)
			close(fd);
		free(buf);
		pthread_mutex_unlock(&pcap_lock);
		return;
	}
	/* the first process to get the lock on an empty file writes the header */
	struct stat st;
	if (flock(fd, LOCK_EX) == 0) {
		if (fstat(fd, &st) == 0 && st.st_size == 0) {
			uint8_t h[24];
			put_le32(h, 0xa1b23c4du);
			h[4] = 2; h[5] = 0; h[6] = 4; h[7] = 0;       /* version 2.4 */
			put_le32(h + 8, 0);                           /* thiszone */
			put_le32(h + 12, 0);                          /* sigfigs */
			put_le32(h + 16, PCAP_SNAPLEN);
			put_le32(h + 20, 1);                          /* LINKTYPE_ETHERNET */
			if (write(fd, h, sizeof h) != (ssize_t)sizeof h)
				fprintf(stderr, "mlx5emu[%d]: pcap header: %s\n", (int)getpid(), strerror(errno));
		}
		flock(fd, LOCK_UN);
	}
	/* FNV-1a of the path: processes given the same MLX5EMU_PCAP share a tap id */
	uint32_t h = 2166136261u;
	for (const char *c = path; *c; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	pcap_tap = h ? h : 1;
	pcap_buf = buf;
	pcap_fd = fd;
	pthread_mutex_unlock(&pcap_lock);
}

int eng_pcap_enabled(void)
{
	return pcap_fd >= 0;
}

uint32_t eng_pcap_tap_id(void)
{
	return pcap_fd >= 0 ? pcap_tap : 0;
}

static void write_record(size_t len, size_t orig)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	put_le32(pcap_buf, (uint32_t)ts.tv_sec);
	put_le32(pcap_buf + 4, (uint32_t)ts.tv_nsec);
	put_le32(pcap_buf + 8, (uint32_t)len);
	put_le32(pcap_buf + 12, (uint32_t)orig);
	/* one write per record: O_APPEND keeps records of concurrent processes whole */
	ssize_t w = write(pcap_fd, pcap_buf, 16 + len);
	(void)w;
}

void eng_pcap_write(const uint8_t *frame, size_t len)
{
	if (pcap_fd < 0)
		return;
	pthread_mutex_lock(&pcap_lock);
	size_t cut = len < PCAP_SNAPLEN ? len : PCAP_SNAPLEN;
	memcpy(pcap_buf + 16, frame, cut);
	write_record(cut, len);
	pthread_mutex_unlock(&pcap_lock);
}

static void write_pkt(const struct pkt *p)
{
	pthread_mutex_lock(&pcap_lock);
	size_t n = eng_roce_frame(p, pcap_buf + 16, PCAP_SNAPLEN);
	if (n)
		write_record(n, n);
	pthread_mutex_unlock(&pcap_lock);
}

void eng_tap_tx(const struct eng_qp *qp, struct pkt *p, const struct eng_av *av)
{
	struct pkt_eth *e = &p->eth;
	memset(e, 0, sizeof *e);
	const struct emu_port_info *port = qp->q && qp->q->ctx ? qp->q->ctx->port : NULL;
	if (!port || port->link_layer != EMU_LINK_ETH)
		return;
	uint8_t sgid_index = av ? av->sgid_index : qp->path.sgid_index;
	int idx = sgid_index < port->num_gids ? sgid_index : 0;
	e->valid = 1;
	e->roce_v2 = port->gid_type[idx] == 1;
	memcpy(e->smac, port->mac, 6);
	memcpy(e->sgid, port->gid[idx].raw, 16);
	if (av) {
		memcpy(e->dmac, av->rmac, 6);
		memcpy(e->dgid, av->rgid, 16);
		e->tclass = av->tclass;
		e->hop_limit = av->hop_limit;
		e->flow_label = av->flow_label;
		e->udp_sport = av->rlid; /* libmlx5 keeps the RoCE v2 source port in the AV's rlid */
	} else {
		memcpy(e->dmac, qp->path.dmac, 6);
		memcpy(e->dgid, qp->path.dgid, 16);
		e->tclass = qp->path.traffic_class;
		e->hop_limit = qp->path.hop_limit;
		e->flow_label = qp->path.flow_label;
		e->udp_sport = eng_roce_udp_sport(qp->path.flow_label, qp->qpn, qp->dest_qpn);
	}
	if (pcap_fd < 0)
		return;
	e->tap_id = pcap_tap;
	write_pkt(p);
}

void eng_tap_rx(const struct pkt *p)
{
	if (pcap_fd < 0 || p->eth.tap_id == pcap_tap)
		return;
	if (p->type == PKT_ETH) /* a raw frame from another process's port, as it was sent */
		eng_pcap_write(p->data, p->len);
	else if (p->eth.valid)
		write_pkt(p);
}
