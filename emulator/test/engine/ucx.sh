#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# UCX (Debian ucx-utils 1.13), unmodified and with default settings, on the emulated device: a second writer of the
# mlx5 wire format besides libmlx5 (its rc_mlx5/ud_mlx5/dc_mlx5 transports build WQEs and ring doorbells themselves,
# through a UAR mapping made with a raw mmap system call). ucx_info must list the five IB transports; ucx_perftest
# runs puts, gets, active messages and atomics between two processes, and UCP tag matching over dc_mlx5 alone. The
# raw mapping is one the library never sees: the engine must find it (/proc/self/maps) and watch it through write
# faults like libmlx5's own, or every doorbell waits for a polling engine thread to get a CPU (4 ms per rc_mlx5 round
# trip on 2 cores); the log must say so.
set -u
PORT_BASE=43000
PASS_REGEX='^ *[0-9][0-9]* *[0-9]'
. "$(dirname "$0")/twoproc.bash"
command -v ucx_perftest > /dev/null || { echo "FAIL: ucx_perftest missing (scripts/setup.sh installs ucx-utils)"; exit 1; }
export UCX_NET_DEVICES=mlx5_0:1
tls=$(timeout 60 "$E" -- ucx_info -d 2>&1 | awk '/Transport:/ { t = $3 } /Device: mlx5_0:1/ { print t }' | sort | tr '\n' ' ')
if [ "$tls" = "dc_mlx5 rc_mlx5 rc_verbs ud_mlx5 ud_verbs " ]; then
	echo "PASS ucx_info -d: $tls"
else
	echo "FAIL ucx_info -d lists [$tls] on mlx5_0:1"; fail=1
fi
u() { local tl=$1; shift; run ib ucx_perftest -d mlx5_0:1 -x "$tl" -f -w 2 "$@"; }
u rc_mlx5  -t put_lat -n 30
u rc_mlx5  -t am_lat  -n 30
u rc_mlx5  -t get     -n 20 -D bcopy -s 8
u rc_mlx5  -t get     -n 20 -D bcopy -s 64
u rc_mlx5  -t add_lat -n 30
u rc_mlx5  -t fadd    -n 30
u rc_mlx5  -t cswap   -n 30
u rc_verbs -t put_lat -n 30
u rc_verbs -t get     -n 30 -D bcopy -s 8
u rc_verbs -t fadd    -n 30
u rc_verbs -t cswap   -n 30
u ud_mlx5  -t am_lat  -n 30
u ud_verbs -t am_lat  -n 30
# DC without DevX: UCX 1.13 creates its DCIs and DCT through mlx5dv_create_qp (ib_mlx5dv_md.c: "DC is supported")
u dc_mlx5  -t put_lat -n 30
u dc_mlx5  -t am_lat  -n 30
u dc_mlx5  -t get     -n 20 -D bcopy -s 8
u dc_mlx5  -t get     -n 20 -D bcopy -s 64
u dc_mlx5  -t add_lat -n 30
u dc_mlx5  -t fadd    -n 30
u dc_mlx5  -t cswap   -n 30
UCX_TLS=dc_mlx5,self run ib ucx_perftest -f -w 2 -t tag_lat -n 30 # UCP tag matching over dc_mlx5 alone
log=$(mktemp)
port=$((port + 1))
MLX5EMU_LOG=1 timeout 45 "$E" --link ib -- ucx_perftest -d mlx5_0:1 -x rc_mlx5 -f -w 2 -t am_lat -n 30 -p $port \
	> "$log" 2>&1 &
spid=$!
wait_listen $port $spid
timeout 45 "$E" --link ib -- ucx_perftest -d mlx5_0:1 -x rc_mlx5 -f -w 2 -t am_lat -n 30 -p $port 127.0.0.1 \
	> /dev/null 2>&1
wait $spid
if grep -q "watching the mapping at .* the library did not see" "$log"; then
	echo "PASS rc_mlx5 doorbells: the engine watches UCX's raw UAR mapping ($(grep -c 'watching the mapping' "$log") pages)"
else
	echo "FAIL rc_mlx5 doorbells: the engine never watched UCX's raw UAR mapping"; grep -i 'engine' "$log" | tail -5
	fail=1
fi
rm -f "$log"
exit $fail
