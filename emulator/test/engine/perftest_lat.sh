#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Short perftest latency smoke between two processes on the emulated device: every tool of the acceptance list, with the
# ibv_wr_* path (default) and the old ibv_post_send path, several sizes including inline ones.
set -u
PORT_BASE=40000
PASS_REGEX='^ *[0-9]'
. "$(dirname "$0")/twoproc.bash"
run ib  ib_write_lat  -n 20 -s 8
run ib  ib_write_lat  -n 20 -s 4096 --use_old_post_send
run ib  ib_send_lat   -n 50 -s 32
run ib  ib_send_lat   -n 20 -s 2048 --use_old_post_send
run ib  ib_read_lat   -n 50 -s 8
run ib  ib_read_lat   -n 50 -s 1024 --use_old_post_send
run ib  ib_atomic_lat -n 50
run ib  ib_atomic_lat -n 20 --use_old_post_send
run eth ib_send_lat   -n 50 -s 64
run ib  ib_write_lat  -n 20 -s 64 -c XRC
run ib  ib_read_lat   -n 20 -s 64 -c XRC --use_old_post_send
run ib  ib_send_lat   -n 20 -s 64 -c XRC
run eth ib_send_lat   -n 20 -s 64 -c XRC --use_old_post_send
exit $fail
