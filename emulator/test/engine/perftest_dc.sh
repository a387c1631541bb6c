#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perftest over DC (-c DC: its DCIs and DCT through mlx5dv_create_qp, each WQE addressed with mlx5dv_wr_set_dc_addr),
# unmodified, between two processes: RDMA WRITE, READ and SEND bandwidth on InfiniBand and RoCE, a latency tool and
# the atomics. Before the emulator had DC, every one of them failed at the DCI's creation (EOPNOTSUPP).
set -u
PORT_BASE=36000
PASS_REGEX='^ *[0-9]'
. "$(dirname "$0")/twoproc.bash"
run ib  ib_write_bw  -c DC -n 100 -s 64
run ib  ib_read_bw   -c DC -n 100 -s 4096
run ib  ib_send_bw   -c DC -n 100 -s 64
run ib  ib_write_lat -c DC -n 100 -s 8
run ib  ib_atomic_bw -c DC -n 100
run eth ib_write_bw  -c DC -n 100 -s 64
run eth ib_read_bw   -c DC -n 100 -s 65536
run eth ib_send_bw   -c DC -n 100 -s 65536
exit $fail
