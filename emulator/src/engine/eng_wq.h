/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_wq.h - the engine's side of receive WQs (rss_wq.h): an RSS QP's frames are hashed (eng_rss.c), the
 * indirection table picks the WQ, and the frame lands in that WQ's ring, plain (data segments, like a QP's RQ)
 * or striding (eng_mprq.c), with a completion on the WQ's CQ.
 */
#ifndef MLX5EMU_ENG_WQ_H
#define MLX5EMU_ENG_WQ_H

#include <stddef.h>
#include <stdint.h>

#include "flow_rule.h"

struct eng_qp;

/* What a receiving queue still lacks to take a frame now; the fabric holds the frame while it lacks either
 * (eng_eth.c). ENG_RX_NO_CQE: its CQ has no free slot for the completions the frame makes, by the consumer index in
 * the CQ doorbell record. */
enum eng_rx_wait { ENG_RX_READY, ENG_RX_NO_WQE, ENG_RX_NO_CQE };
/* Can the RSS QP take this frame now? ENG_RX_READY also when the frame will be dropped at delivery (the WQ it hashes
 * to is not ready, or the frame is larger than a striding WQE). */
enum eng_rx_wait eng_rss_ready(const struct eng_qp *qp, const uint8_t *f, size_t len);
/* Deliver a steered frame to an RSS QP (tag: the matching rule's flow tag). */
void eng_rss_deliver(struct eng_qp *qp, const uint8_t *f, size_t len, const struct emu_frame_info *fi, uint32_t tag);

#endif
