#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perftest's raw Ethernet tools, unmodified, between two processes on the emulated RoCE port:
# raw_ethernet_bw, raw_ethernet_lat and raw_ethernet_burst_lat (its options: see below), several sizes, with the
# MAC-only flow perftest installs by default and with IPv4/UDP (and TCP) flow specs (-J/-j/-K/-k), both minimum
# inline modes.
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
	# perftest's raw tools exchange nothing over TCP (-p is unused), so there is no port to wait for: the server is
	# ready once it printed its result header, which comes after ibv_create_flow; its receives are posted right
	# after, and the engine holds a frame up to 200 ms for a QP without receives. stdbuf makes the header visible.
	timeout 60 "$E" --link "$link" -- stdbuf -oL "$tool" $smac "$@" --server -p $port > "$out/srv" 2>&1 &
	local spid=$!
	local i
	for i in $(seq 300); do
		grep -q '#bytes' "$out/srv" 2> /dev/null && break
		kill -0 $spid 2> /dev/null || break
		sleep 0.1
	done
	sleep 0.5
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
# Each side names its own MAC with -B (its flow) and the peer's with -E (frame destination). With the same MAC on
# both sides each process would also receive its own frames through the fabric's loopback and the latency tools
# would time that (raw_ethernet_lat -s 64, t_typical: 26 us with one MAC, 54 to 56 us with two, at load 3 to 6).
S="-B $M -E $OTHER"; C="-B $OTHER -E $M"
# six runs; each used to take 35 to 45 s because the script waited for a TCP port perftest's raw tools never
# open (wait_listen gave up after 300 tries); waiting for the server's header instead, a run takes seconds
rawrun eth raw_ethernet_bw        "$S" "$C" -n 200 -s 64
rawrun eth raw_ethernet_bw        "$S" "$C" -n 200 -s 1500 $ip
rawrun eth raw_ethernet_lat       "$S" "$C" -n 200 -s 64
MLX5EMU_ETH_MIN_INLINE=l2 rawrun eth raw_ethernet_bw  "$S" "$C" -n 200 -s 512 $ip --tcp
MLX5EMU_ETH_MIN_INLINE=l2 rawrun eth raw_ethernet_lat "$S" "$C" -n 200 -s 700 $ip
# raw_ethernet_burst_lat (perftest 4.5-0.17) needs three options on ANY device, or it never starts or never ends
# (read in perftest v4.5-0.17 src/, confirmed here: 128 frames each way in the pcap tap, then both sides spin):
# - a rate limiter other than SW: force_dependecies() (perftest_parameters.c) forces SW for LAT_BY_BW tests and then
#   exits "SW Rate limiter cann't be executed on non-BW", before any device is opened. PP (packet pacing, which the
#   emulated port reports) with --rate_units=M is the one that passes its checks.
# - --burst_size=N: with PP force_dependecies() leaves burst_size 0, and run_iter_lat_burst_server() /
#   run_iter_lat_burst() (perftest_resources.c) poll the receive resp. send CQ with ibv_poll_cq(cq, burst_size=0),
#   which returns nothing: the server never counts a frame, the client never a send completion.
# - -Q 1: ctx_set_send_reg_wqes() signals the WR only if (j + 1) % cq_mod == 0 with j = 0 (post_list 1), so with the
#   default cq_mod 100 the one WR both loops re-post is never signaled; the client stops after tx_depth (128)
#   unsignaled sends waiting for completions that no device writes.
# One run only (make's TEST_TIMEOUT is 300 s; with seven runs this script took 320 s at nice 19 under a load
# of 6 while CI ran, with six 212 s); -s 64 with the MAC-only flow also passed by hand.
# - -t 256 (perftest caps it at -n): run_iter_lat_burst_server() answers a frame only while fewer than tx_depth of
#   its answers are uncompleted, and a frame it does not answer is never answered, so its client waits forever. A
#   NIC at line rate completes the answers as fast as they are posted; a software device sharing two cores with
#   both programs can fall 128 behind (seen: 168 and 199 of 200 answers posted, in 2 of 15 runs). With tx_depth at
#   least -n the condition always holds, and every frame is still answered and timed.
B="--rate_limit_type=PP --rate_units=M --burst_size=16 -Q 1 -t 256"
rawrun eth raw_ethernet_burst_lat "$S" "$C" -n 200 -s 1024 $ip $B
exit $fail
