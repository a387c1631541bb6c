# SPDX-License-Identifier: Apache-2.0
# Sourced by the two-process tool tests (pingpong.sh, perftest_*.sh); not a test itself (make runs *.sh only).
# Runs an unmodified rdma-core/perftest tool as server and client, each under its own launcher, like two hosts.
# The caller sets PORT_BASE and PASS_REGEX (a line of the client's output that proves the run finished).
E=${MLX5EMU:-$(dirname "$0")/../../mlx5emu}
port=$((PORT_BASE + $$ % 10000))
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
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q "$PASS_REGEX" "$out/cli"; then
		echo "PASS $link $* : $(grep "$PASS_REGEX" "$out/cli" | tail -1 | tr -s ' \t' ' ')"
	else
		echo "FAIL $link $* : server=$src client=$crc"
		sed 's/^/  srv: /' "$out/srv" | tail -8; sed 's/^/  cli: /' "$out/cli" | tail -8
		fail=1
	fi
	rm -rf "$out"
}
