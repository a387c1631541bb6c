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

/* Can the RSS QP take this frame now? 0 while the WQ it hashes to is ready but has no receive posted
 * (the fabric then holds the frame, as for a plain raw QP). */
int eng_rss_ready(const struct eng_qp *qp, const uint8_t *f, size_t len);
/* Deliver a steered frame to an RSS QP (tag: the matching rule's flow tag). */
void eng_rss_deliver(struct eng_qp *qp, const uint8_t *f, size_t len, const struct emu_frame_info *fi, uint32_t tag);

#endif
