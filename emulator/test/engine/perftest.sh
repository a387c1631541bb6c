#!/usr/bin/env bash
# Short perftest smoke between two processes on the emulated device: every tool of the acceptance list, with the
# ibv_wr_* path (default) and the old ibv_post_send path, several sizes including inline ones.
set -u
E=${MLX5EMU:-$(dirname "$0")/../../mlx5emu}
port=$((40000 + $$ % 20000))
fail=0
run() { # link tool args...
	local link=$1; shift
	port=$((port + 1))
	local out; out=$(mktemp -d)
	timeout 60 "$E" --link "$link" -- "$@" -p $port > "$out/srv" 2>&1 &
	local spid=$!
	sleep 0.5
	timeout 60 "$E" --link "$link" -- "$@" -p $port 127.0.0.1 > "$out/cli" 2>&1
	local crc=$?
	wait $spid; local src=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q "^ *[0-9]" "$out/cli"; then
		echo "PASS $link $* : $(grep '^ *[0-9]' "$out/cli" | tail -1 | tr -s ' \t' ' ')"
	else
		echo "FAIL $link $* : server=$src client=$crc"; tail -5 "$out/srv" "$out/cli"
		fail=1
	fi
	rm -rf "$out"
}
run ib  ib_write_lat  -n 200 -s 8
run ib  ib_write_lat  -n 200 -s 4096 --use_old_post_send
run ib  ib_write_bw   -n 300 -s 64
run ib  ib_write_bw   -n 200 -s 65536 --use_old_post_send
run ib  ib_send_lat   -n 200 -s 32
run ib  ib_send_lat   -n 200 -s 2048 --use_old_post_send
run ib  ib_send_bw    -n 300 -s 16 -I 64
run ib  ib_send_bw    -n 200 -s 65536 --use_old_post_send
run ib  ib_read_lat   -n 200 -s 8
run ib  ib_read_bw    -n 200 -s 65536
run ib  ib_read_bw    -n 200 -s 32 --use_old_post_send
run ib  ib_atomic_lat -n 200
run ib  ib_atomic_bw  -n 200 --use_old_post_send
run ib  ib_atomic_bw  -n 200 -A CMP_AND_SWAP
run eth ib_write_bw   -n 200 -s 4096
run eth ib_send_lat   -n 200 -s 64
exit $fail
