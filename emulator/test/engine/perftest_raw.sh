#!/usr/bin/env bash
# Unmodified perftest raw Ethernet tools between two processes on the emulated RoCE port (issue 10 acceptance):
# raw_ethernet_bw and raw_ethernet_lat (burst_lat: see below), several sizes, with the MAC-only flow perftest
# installs by default and with IPv4/UDP (and TCP) flow specs (-J/-j/-K/-k), both minimum inline modes.
set -u
PORT_BASE=40000
PASS_REGEX='^ *[0-9]'
. "$(dirname "$0")/twoproc.bash"
M=98:03:9b:4d:45:00   # the emulated port's MAC (mlx5_0)
OTHER=02:00:00:00:00:01
ip="-J 10.0.0.2 -j 10.0.0.1 -K 5001 -k 5002"
# perftest's raw tools want --server / --client on each side: run() gives the client the server's address
# The server names its own MAC with -B (its flow matches it as destination), the client the other way round.
rawrun() { # link tool "server MAC args" "client MAC args" args...
	local link=$1 tool=$2 smac=$3 cmac=$4; shift 4
	port=$((port + 1))
	local out; out=$(mktemp -d)
	timeout 60 "$E" --link "$link" -- "$tool" $smac "$@" --server -p $port > "$out/srv" 2>&1 &
	local spid=$!
	wait_listen $port $spid
	timeout 60 "$E" --link "$link" -- "$tool" $cmac "$@" --client -p $port 127.0.0.1 > "$out/cli" 2>&1
	local crc=$?
	wait $spid; local src=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q "$PASS_REGEX" "$out/cli"; then
		echo "PASS $tool $cmac $* : $(grep "$PASS_REGEX" "$out/cli" | tail -1 | tr -s ' \t' ' ')"
	else
		echo "FAIL $tool $cmac $* : server=$src client=$crc"
		sed 's/^/  srv: /' "$out/srv" | tail -8; sed 's/^/  cli: /' "$out/cli" | tail -8
		fail=1
	fi
	rm -rf "$out"
}
S="-B $M -E $OTHER"; C="-B $OTHER -E $M"; L="-B $M -E $M"
# five runs, to stay inside make's 120 s per script (each run took 5 to 15 s here, mostly process startup, at load 2
# to 22 on 2 cores)
rawrun eth raw_ethernet_bw        "$S" "$C" -n 200 -s 64
rawrun eth raw_ethernet_bw        "$S" "$C" -n 200 -s 1500 $ip
rawrun eth raw_ethernet_lat       "$L" "$L" -n 200 -s 64
MLX5EMU_ETH_MIN_INLINE=l2 rawrun eth raw_ethernet_bw  "$S" "$C" -n 200 -s 512 $ip --tcp
MLX5EMU_ETH_MIN_INLINE=l2 rawrun eth raw_ethernet_lat "$L" "$L" -n 200 -s 700 $ip
# raw_ethernet_burst_lat (perftest 4.5-0.17) is not run: without options it forces the SW rate limiter and then
# rejects it for a latency test ("SW Rate limiter cann't be executed on non-BW"), with or without a device; with
# --rate_limit_type=PP (emulated packet pacing) it starts and frames flow, but no attempt finished within 25 s
# (cause not found; see emulator/README.md).
exit $fail
