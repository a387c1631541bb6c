#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Short perftest bandwidth smoke between two processes on the emulated device: every tool of the acceptance list, with the
# ibv_wr_* path (default) and the old ibv_post_send path, several sizes including inline ones, and XRC.
set -u
PORT_BASE=30000
PASS_REGEX='^ *[0-9]'
. "$(dirname "$0")/twoproc.bash"
run ib  ib_write_bw   -n 100 -s 64
run ib  ib_write_bw   -n 100 -s 65536 --use_old_post_send
run ib  ib_send_bw    -n 100 -s 16 -I 64
run ib  ib_send_bw    -n 100 -s 65536 --use_old_post_send
run ib  ib_read_bw    -n 100 -s 65536
run ib  ib_read_bw    -n 100 -s 32 --use_old_post_send
run ib  ib_atomic_bw  -n 100 --use_old_post_send
run ib  ib_atomic_bw  -n 100 -A CMP_AND_SWAP
run eth ib_write_bw   -n 100 -s 4096
# XRC (-c XRC): perftest's INI QPs name the peer's XRC SRQ in every WQE, its TGT QPs receive into that SRQ
run ib  ib_write_bw   -n 100 -s 4096 -c XRC
run ib  ib_read_bw    -n 100 -s 65536 -c XRC --use_old_post_send
run ib  ib_send_bw    -n 100 -s 4096 -c XRC
run eth ib_send_bw    -n 100 -s 1024 -c XRC --use_old_post_send
exit $fail
