/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reference model of libmlx5's doorbell stores, written for mlx5j's tests from the documented layout
 * (rdma-core v44 providers/mlx5/qp.c post_send_db and mlx5_bf_copy, cq.c update_cons_index and mlx5_arm_cq,
 * srq.c), using the installed header's constants and the C library's byte-order helpers. It shares no code with
 * the Java implementation: Java and C are each fed the same script and their memory images must match byte for byte.
 *
 * Memory modelled: a send ring, a QP doorbell record, a CQ doorbell record, one 4 KiB UAR page whose BlueFlame
 * register 0 sits at MLX5_BF_OFFSET (0x800, providers/mlx5/mlx5.h) and whose CQ doorbell sits at MLX5_CQ_DOORBELL.
 *
 * Script (stdin), one command per line:
 *   init SQ_BYTES BF_SIZE MODE      MODE: 0 = BlueFlame, 1 = 8-byte doorbell only, 2 = as libmlx5 by default
 *   sq OFFSET HEXBYTES              fill send-ring bytes
 *   post NREQ CTRL_OFFSET DS CUR_POST
 *   recv HEAD
 *   setci CI
 *   arm SN CI SOLICITED CQN
 *   dump                            print "qpdb", "cqdb", "uar" lines of hex
 */
#include <endian.h>
#include <infiniband/mlx5dv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UAR_PAGE 4096
#define BF_OFFSET 0x800 /* MLX5_BF_OFFSET, providers/mlx5/mlx5.h */

/* CQ doorbell record word indices; providers/mlx5/mlx5.h (not exported by mlx5dv.h). */
enum { MLX5_CQ_SET_CI_INDEX = 0, MLX5_CQ_ARM_DB_INDEX = 1 };

static uint8_t *sq;
static unsigned sq_bytes;
static __be32 qp_dbrec[2];
static __be32 cq_dbrec[2];
static uint64_t uar_words[UAR_PAGE / 8]; /* 8-byte aligned like the mapped page */
static uint8_t *uar = (uint8_t *)uar_words;
static unsigned bf_size;
static unsigned bf_offset;
static int mode;

static void store64(uint8_t *dst, const uint8_t *src)
{
	uint64_t v;

	memcpy(&v, src, 8); /* already big-endian WQE bytes: moved, never swapped */
	memcpy(dst, &v, 8);
}

static void post(int nreq, unsigned ctrl, int ds, unsigned cur_post)
{
	int bluef;
	unsigned bytes, done, src;

	if (nreq == 0)
		return;
	qp_dbrec[MLX5_SND_DBR] = htobe32(cur_post & 0xffff);

	if (mode == 0)
		bluef = nreq == 1 && (unsigned)ds * 16 <= bf_size;
	else if (mode == 1)
		bluef = 0;
	else
		bluef = nreq == 1 && bf_size != 0 && ds > 1 && (unsigned)ds * 16 <= bf_size;

	if (bluef) {
		bytes = ((unsigned)ds * 16 + 63) & ~63u;
		src = ctrl;
		for (done = 0; done < bytes; done += 8) {
			store64(uar + BF_OFFSET + bf_offset + done, sq + src);
			src += 8;
			if (src == sq_bytes)
				src = 0;
		}
	} else {
		store64(uar + BF_OFFSET + bf_offset, sq + ctrl);
	}
	bf_offset ^= bf_size;
}

static void arm(unsigned sn, unsigned ci, int solicited, uint32_t cqn)
{
	uint32_t word = (sn & 3) << 28 | (solicited ? MLX5_CQ_DB_REQ_NOT_SOL : MLX5_CQ_DB_REQ_NOT) | (ci & 0xffffff);
	uint64_t db = (uint64_t)word << 32 | cqn;
	uint64_t be = htobe64(db);

	cq_dbrec[MLX5_CQ_ARM_DB_INDEX] = htobe32(word);
	memcpy(uar + MLX5_CQ_DOORBELL, &be, 8);
}

static void hex(const char *name, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	printf("%s ", name);
	for (i = 0; i < n; i++)
		printf("%02x", b[i]);
	printf("\n");
}

static int unhex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int main(void)
{
	static char line[1 << 20];
	char cmd[16];

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%15s", cmd) != 1)
			continue;
		if (!strcmp(cmd, "init")) {
			if (sscanf(line, "%*s %u %u %d", &sq_bytes, &bf_size, &mode) != 3)
				return 2;
			free(sq);
			sq = calloc(1, sq_bytes);
			if (!sq)
				return 2;
			memset(qp_dbrec, 0, sizeof(qp_dbrec));
			memset(cq_dbrec, 0, sizeof(cq_dbrec));
			memset(uar_words, 0, sizeof(uar_words));
			bf_offset = 0;
		} else if (!strcmp(cmd, "sq")) {
			unsigned off;
			char *h;
			int n;

			if (sscanf(line, "%*s %u %n", &off, &n) != 1)
				return 2;
			for (h = line + n; unhex(h[0]) >= 0 && unhex(h[1]) >= 0; h += 2) {
				if (off >= sq_bytes)
					return 2;
				sq[off++] = (uint8_t)(unhex(h[0]) << 4 | unhex(h[1]));
			}
		} else if (!strcmp(cmd, "post")) {
			int nreq, ds;
			unsigned ctrl, cur;

			if (sscanf(line, "%*s %d %u %d %u", &nreq, &ctrl, &ds, &cur) != 4)
				return 2;
			post(nreq, ctrl, ds, cur);
		} else if (!strcmp(cmd, "recv")) {
			unsigned head;

			if (sscanf(line, "%*s %u", &head) != 1)
				return 2;
			qp_dbrec[MLX5_RCV_DBR] = htobe32(head & 0xffff);
		} else if (!strcmp(cmd, "setci")) {
			unsigned ci;

			if (sscanf(line, "%*s %u", &ci) != 1)
				return 2;
			cq_dbrec[MLX5_CQ_SET_CI_INDEX] = htobe32(ci & 0xffffff);
		} else if (!strcmp(cmd, "arm")) {
			unsigned sn, ci, cqn;
			int sol;

			if (sscanf(line, "%*s %u %u %d %u", &sn, &ci, &sol, &cqn) != 4)
				return 2;
			arm(sn, ci, sol, cqn);
		} else if (!strcmp(cmd, "dump")) {
			hex("qpdb", qp_dbrec, sizeof(qp_dbrec));
			hex("cqdb", cq_dbrec, sizeof(cq_dbrec));
			hex("uar", uar, UAR_PAGE);
		} else {
			return 2;
		}
	}
	free(sq);
	return 0;
}
