#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Unmodified rdma-core examples between two processes on the emulated device (IB and RoCE, polling and events).
# Run by `make check` with MLX5EMU (the launcher) and MLX5EMU_FABRIC set; passes iff every pair completes.
set -u
PORT_BASE=20000
PASS_REGEX='iters in'
. "$(dirname "$0")/twoproc.bash"
run ib  ibv_rc_pingpong -n 50
run ib  ibv_rc_pingpong -n 50 -s 16 -c
run ib  ibv_rc_pingpong -n 30 -e
run eth ibv_rc_pingpong -n 50 -g 0
run eth ibv_rc_pingpong -n 30 -g 0 -e
run ib  ibv_uc_pingpong -n 50
run eth ibv_uc_pingpong -n 30 -g 0
run ib  ibv_ud_pingpong -n 50
run eth ibv_ud_pingpong -n 30 -g 0
run ib  ibv_srq_pingpong -n 50
run ib  ibv_srq_pingpong -n 50 -e
run eth ibv_srq_pingpong -n 30 -g 0
# XRC: each side's INI QP sends into the other's XRC SRQs through its TGT QP; the client prints "success"
PASS_REGEX='^success'
run ib  ibv_xsrq_pingpong -n 50
run ib  ibv_xsrq_pingpong -n 30 -e
run eth ibv_xsrq_pingpong -n 30 -g 0
exit $fail
