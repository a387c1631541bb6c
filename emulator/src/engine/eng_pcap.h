/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_pcap.h - the pcap tap (MLX5EMU_PCAP=FILE, launcher option --pcap FILE): every frame that crosses the
 * emulated Ethernet fabric in this process's view, appended to a classic pcap file (LINKTYPE_ETHERNET, nanosecond
 * timestamps). Several processes may share one file: each record is one write() to an O_APPEND descriptor, the file
 * header is written once under flock, and a frame is written only by its sender when sender and receiver tap the
 * same file (so a two-process run records every frame once).
 */
#ifndef MLX5EMU_ENG_PCAP_H
#define MLX5EMU_ENG_PCAP_H

#include <stddef.h>
#include <stdint.h>

struct eng_qp;
struct eng_av;
struct pkt;

/* Read MLX5EMU_PCAP and open the file (once per process; later calls do nothing). */
void eng_pcap_init(void);
/* Non-zero while a tap is open. */
int eng_pcap_enabled(void);
/* Identity of this process's tap (0 when it has none): equal for processes tapping the same path. */
uint32_t eng_pcap_tap_id(void);
/* Append one Ethernet frame (thread-safe). */
void eng_pcap_write(const uint8_t *frame, size_t len);

/* A RoCE packet leaves qp: fill p->eth with what the port puts on the wire (av: the UD address vector, else NULL)
 * and record it. Called by the sender just before it commits the packet to the peer's wire. */
void eng_tap_tx(const struct eng_qp *qp, struct pkt *p, const struct eng_av *av);
/* A RoCE packet arrived from another process's engine: record it unless its sender taps the same file. */
void eng_tap_rx(const struct pkt *p);

#endif
