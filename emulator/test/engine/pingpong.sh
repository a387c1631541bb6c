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
# Several clients (-c N on the server): one XRC domain for all of them (the tool opens /tmp/xrc_domain), and the
# server sends round robin through each client's TGT QP into every client's SRQ, so a TGT QP delivers into the
# SRQ of another process (engine/eng_xrcfwd.c). Before that, every run hung until the timeout.
run_clients() { # link n tool args...
	local link=$1 n=$2; shift 2
	port=$((port + 1))
	local out; out=$(mktemp -d)
	timeout 60 "$E" --link "$link" -- "$@" -c "$n" -p $port > "$out/srv" 2>&1 &
	local spid=$! pids=() i rc=0
	wait_listen $port $spid
	for i in $(seq "$n"); do
		timeout 60 "$E" --link "$link" -- "$@" -p $port 127.0.0.1 > "$out/cli$i" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=$?; done
	wait $spid; local src=$?
	if [ $rc -eq 0 ] && [ $src -eq 0 ] && [ "$(cat "$out"/cli* | grep -c "$PASS_REGEX")" -eq "$n" ]; then
		echo "PASS $link $* -c $n: $n clients"
	else
		echo "FAIL $link $* -c $n: server=$src clients=$rc"
		for i in "$out"/*; do sed "s|^|  $(basename "$i"): |" "$i" | tail -6; done
		fail=1
	fi
	rm -rf "$out"
}
run_clients ib  2 ibv_xsrq_pingpong -n 30
run_clients ib  3 ibv_xsrq_pingpong -n 20 -e
run_clients eth 2 ibv_xsrq_pingpong -n 30 -g 0
exit $fail
