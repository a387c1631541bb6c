#!/usr/bin/env bash
# Short perftest latency smoke between two processes on the emulated device: every tool of the acceptance list, with the
# ibv_wr_* path (default) and the old ibv_post_send path, several sizes including inline ones.
set -u
E=${MLX5EMU:-$(dirname "$0")/../../mlx5emu}
port=$((40000 + $$ % 20000))
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
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q "^ *[0-9]" "$out/cli"; then
		echo "PASS $link $* : $(grep '^ *[0-9]' "$out/cli" | tail -1 | tr -s ' \t' ' ')"
	else
		echo "FAIL $link $* : server=$src client=$crc"; tail -n 8 "$out/srv" "$out/cli"
		fail=1
	fi
	rm -rf "$out"
}
run ib  ib_write_lat  -n 20 -s 8
run ib  ib_write_lat  -n 20 -s 4096 --use_old_post_send
run ib  ib_send_lat   -n 50 -s 32
run ib  ib_send_lat   -n 20 -s 2048 --use_old_post_send
run ib  ib_read_lat   -n 50 -s 8
run ib  ib_read_lat   -n 50 -s 1024 --use_old_post_send
run ib  ib_atomic_lat -n 50
run ib  ib_atomic_lat -n 20 --use_old_post_send
run eth ib_send_lat   -n 50 -s 64
exit $fail
