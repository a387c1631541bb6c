/* SPDX-License-Identifier: Apache-2.0 */
/* Teardown of a context's objects when its last fd closes, in the order the kernel's uverbs cleanup uses
 * (dependents first): flows, QPs, SRQs, XRCDs, CQs, AHs, MRs, PDs. Each object's engine hook runs before it is freed. */
#include "uverbs.h"

void emu_destroy_all_objects(struct emu_ctx *ctx)
{
	emu_destroy_all_flows(ctx); /* flows hold their QPs */
	emu_destroy_all_qps(ctx);
	emu_destroy_all_wqs(ctx);  /* after the RSS QPs that hold their indirection tables */
	emu_destroy_all_srqs(ctx);
	emu_destroy_all_xrcds(ctx); /* after the SRQs and TGT QPs made through them */
	emu_destroy_all_cqs(ctx);
	emu_destroy_all_ahs(ctx);
	emu_destroy_all_mrs_pds(ctx);
}
