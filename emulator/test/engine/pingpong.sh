#!/usr/bin/env bash
# Unmodified rdma-core examples between two processes on the emulated device (IB and RoCE, polling and events).
# Run by `make check` with MLX5EMU (the launcher) and MLX5EMU_FABRIC set; passes iff every pair completes.
set -u
E=${MLX5EMU:-$(dirname "$0")/../../mlx5emu}
port=$((20000 + $$ % 20000))
fail=0
# Wait until the server listens on its TCP port (a loaded machine can take seconds to start it).
wait_listen() {
	local i
	for i in $(seq 300); do
		if ! command -v ss > /dev/null; then sleep 2; return; fi
		ss -ltn 2> /dev/null | grep -q ":$1 " && return
		kill -0 "$2" 2> /dev/null || return
		sleep 0.1
	done
}
run() { # link tool args...
	local link=$1; shift
	port=$((port + 1))
	local out; out=$(mktemp -d)
	timeout 45 "$E" --link "$link" -- "$@" -p $port > "$out/srv" 2>&1 &
	local spid=$!
	wait_listen $port $spid
	timeout 45 "$E" --link "$link" -- "$@" -p $port 127.0.0.1 > "$out/cli" 2>&1
	local crc=$?
	wait $spid; local src=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q "iters in" "$out/cli"; then
		echo "PASS $link $* : $(grep 'iters in' "$out/cli")"
	else
		echo "FAIL $link $* : server=$src client=$crc"; sed 's/^/  srv: /' "$out/srv" | tail -5; sed 's/^/  cli: /' "$out/cli" | tail -5
		fail=1
	fi
	rm -rf "$out"
}
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
exit $fail
