/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_xport.h - what the parts of the RC/UC/UD transport share (eng_xport.c, eng_req.c, eng_comp.c, eng_resp.c).
 */
#ifndef MLX5EMU_ENG_XPORT_H
#define MLX5EMU_ENG_XPORT_H

#include "engine/eng_internal.h"

static inline int32_t eng_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/* eng_xport.c */
struct eng_inbox *eng_qp_peer(struct eng_qp *qp);
uint16_t eng_my_lid(struct eng_qp *qp);
int eng_is_eth(struct eng_qp *qp);
uint32_t eng_ud_mtu(struct eng_qp *qp);
int eng_check_sges(struct eng_qp *qp, const struct eng_sge *sge, uint32_t n, uint32_t access);
void eng_gather(struct eng_qp *qp, const struct eng_wqe *w, uint64_t off, uint8_t *dst, uint64_t n);
void eng_scatter(const struct eng_sge *sge, uint32_t nsge, uint64_t off, const uint8_t *src, uint64_t n);
void eng_req_err_cqe(struct eng_qp *qp, uint32_t bb, uint8_t opcode, uint8_t synd, uint8_t vendor);
void eng_resp_err_cqe(struct eng_qp *qp, uint32_t wqe_counter, uint8_t synd, uint8_t vendor);
int eng_complete_sq(struct eng_qp *qp);
int eng_flush_qp(struct eng_qp *qp);
int eng_is_rd_atomic(uint8_t opcode);
uint32_t eng_read_psns(uint64_t len);

/* eng_req.c, for the completer */
void eng_rewind_to(struct eng_qp *qp, uint32_t slot);
void eng_nak_rewind(struct eng_qp *qp, uint32_t slot, uint32_t psn, uint64_t now);

#endif
