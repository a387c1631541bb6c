#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fault injection in the responder's process alone: MLX5EMU_FAULTS is set for the server of an unmodified
# ib_write_lat and not for its client, so only the server's ACKs are late or lost. The client's WRITEs must then
# wait for those ACKs as on a real fabric; before, the client's engine placed them directly (src/engine/eng_direct.c)
# and took the placement as the ACK, so a responder's faults never reached its requesters.
set -u
E=${MLX5EMU:-$(dirname "$0")/../../mlx5emu}
port=$((43000 + $$ % 10000))
fail=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# server (faults given) and client (none); sets crc to the client's exit status
pair() { # spec args...
	local spec=$1; shift
	port=$((port + 1))
	timeout 30 "$E" -- env MLX5EMU_FAULTS="$spec" ib_write_lat -p $port "$@" > "$out/srv" 2>&1 &
	local spid=$!
	local i
	for i in $(seq 300); do
		ss -ltn 2> /dev/null | grep -q ":$port " && break
		sleep 0.1
	done
	timeout 30 "$E" -- ib_write_lat -p $port "$@" 127.0.0.1 > "$out/cli" 2>&1
	crc=$?
	# after a failed client the server spins on its buffer for a WRITE that never comes
	kill $spid 2> /dev/null
	wait $spid 2> /dev/null
}

# Every ACK the server sends is held 20 ms: each client WRITE completes only then, and write_lat reports half the
# round trip, so the typical latency is at least 10 ms (it was about 70 us with the WRITEs placed directly).
pair delay=1:20ms,dir=resp -n 20 -s 8
typical=$(awk '$1 == 8 && $2 == 20 { print int($5) }' "$out/cli")
if [ $crc -eq 0 ] && [ -n "$typical" ] && [ "$typical" -ge 10000 ]; then
	echo "PASS late ACKs: client t_typical $typical us"
else
	echo "FAIL late ACKs: client status $crc, t_typical '${typical}' us (want >= 10000)"
	sed 's/^/  cli: /' "$out/cli" | tail -6
	fail=1
fi

# Every ACK the server sends is lost: the client's first WRITE ends in RETRY_EXC_ERR (status 12, syndrome 0x81)
# after perftest's 7 retries, although the data reached the server.
pair drop=1,dir=resp -n 20 -s 8
if [ $crc -ne 0 ] && grep -q "Failed status 12: wr_id 0 syndrom 0x81" "$out/cli"; then
	echo "PASS lost ACKs: client ends with RETRY_EXC_ERR"
else
	echo "FAIL lost ACKs: client status $crc, no RETRY_EXC_ERR"
	sed 's/^/  cli: /' "$out/cli" | tail -6
	fail=1
fi
exit $fail
