#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Debian 12's unmodified DPDK 22.11 (dpdk-testpmd and its mlx5 PMD, Verbs mode: the emulator has no DevX) over the
# emulated ConnectX-5, RoCE link, strict validator on. Each case is two or one testpmd processes driven through
# their command line (a FIFO each: every step waits for the output of the one before, no fixed sleeps), bounded in
# time, on a fabric of its own:
#   probe:    without -a, EAL probes exactly the emulated functions (e0000:00:0N.0, never a host function), and the
#             port shows the device's MAC; with dv_flow_en=0 it starts and its link is up at 100 Gb/s;
#   forward:  txonly on mlx5_0 to mlx5_1's MAC, rxonly on mlx5_1: the receiver gets frames, and the two testpmd
#             port statistics equal the emulator's port counters (TX-packets = mlx5_0 port_xmit_packets, RX-packets
#             + RX-dropped = mlx5_1 port_rcv_packets, RX-dropped = out_of_buffer); once with the PMD's default Rx
#             (vectorized cyclic RQ with compressed CQEs) and once with a striding RQ (mprq_en=1), which the log
#             must show the PMD picked; `show port xstats` reads the same counters (ethtool statistics, sysfs);
#   flows:    two Rx queues, --txonly-multi-flow: RSS spreads the flows over both; `flow create` steering the UDP
#             destination 198.18.0.2 to queue 1 puts every frame there; a drop rule delivers none.
# No STRICT line may appear in any log. Needs dpdk-testpmd (scripts/setup.sh installs dpdk-dev).
set -euo pipefail
: "${MLX5EMU:?run from make check}"
if ! command -v dpdk-testpmd > /dev/null; then
  echo "FAIL: dpdk-testpmd missing (scripts/setup.sh installs dpdk-dev)"; exit 1
fi
export MLX5EMU_STRICT=1
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
out=$(mktemp -d)
pids=()
# EAL's runtime directory of each --file-prefix (root: /var/run/dpdk, else $XDG_RUNTIME_DIR/dpdk or /tmp/dpdk)
runtime_dirs=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  rm -rf "$out" "${runtime_dirs[@]}"
}
trap cleanup EXIT
base_fabric=${MLX5EMU_FABRIC:-mlx5emu-$(id -u)}-testpmd

# pmd_start NAME DEVARGS_ALLOW MAINLCORE ARGS...: a testpmd in interactive mode reading the FIFO $out/NAME.in. Each
# is killed after 60 s, and a wait for its output ends when it is gone, so a case takes at most about 70 s.
declare -A fds pid
pmd_start() {
  local name=$1 allow=$2 main=$3; shift 3
  rm -f "$out/$name.in"; mkfifo "$out/$name.in"
  runtime_dirs+=("/var/run/dpdk/$name-$$" "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$name-$$")
  # line-buffered: testpmd prints with stdio, and each step waits for the previous one's output
  timeout 60 stdbuf -oL -eL "$MLX5EMU" --link eth --devices 2 -- \
    dpdk-testpmd --no-huge -m 256 --file-prefix="$name-$$" \
    -l 0-1 --main-lcore "$main" $allow -- -i --total-num-mbufs=4096 "$@" < "$out/$name.in" > "$out/$name.log" 2>&1 &
  pids+=($!)
  pid[$name]=$!
  exec {fd}> "$out/$name.in"
  fds[$name]=$fd
}
# (a command to a testpmd that died fails with EPIPE, not SIGPIPE: the wait after it reports the death)
trap '' PIPE
pmd_cmd() { echo "$2" >&"${fds[$1]}" 2> /dev/null || true; }
# wait_log NAME ERE [SECONDS]: until the log has a line matching ERE; a failure (time out, testpmd gone) fails the test
wait_log() {
  local n=$((${3:-40} * 10))
  for ((i = 0; i < n; i++)); do
    grep -qE -- "$2" "$out/$1.log" 2> /dev/null && return 0
    if ! kill -0 "${pid[$1]}" 2> /dev/null; then
      grep -qE -- "$2" "$out/$1.log" 2> /dev/null && return 0
      bad "$1: exited without /$2/; log tail:"; tail -15 "$out/$1.log" | sed 's/^/     /'
      return 1
    fi
    sleep 0.1
  done
  bad "$1: no /$2/ within ${3:-40} s; log tail:"; tail -15 "$out/$1.log" | sed 's/^/     /'
  return 1
}
# tx_until NAME FRAMES SECONDS: keep the txonly sender NAME (started 2 s ago) running until `show port stats 0`
# counts FRAMES sent, asking every 0.5 s, for at most SECONDS more. Its forwarding lcore is pinned to one CPU, so on a
# loaded 2-core machine a fixed window may give it too little of that CPU; the cases check the counts after, so a
# sender that is really stuck still fails them. A sender behind after 2 s is shown with its threads (state, CPU and
# run-queue wait times, kernel wait channel) then and at the end, which tells a starved lcore from one blocked in a
# doorbell write fault (handle_userfault) or one spinning without sending.
tx_until() {
  local start=$SECONDS sent=0 had i
  for ((i = 0; ; i++)); do
    had=$(grep -c 'Tx-pps' "$out/$1.log" 2> /dev/null || true)
    pmd_cmd "$1" "show port stats 0"
    wait_log_count "$1" 'Tx-pps' $((${had:-0} + 1)) 20 || return 1
    sent=$(awk '/TX-packets:/ {v = $2} END {print v + 0}' "$out/$1.log")
    [ "$sent" -ge "$2" ] && break
    if [ "$i" = 0 ]; then echo "     note $1: $sent frames sent after 2 s; its threads:"; threads "$1"; fi
    [ $((SECONDS - start)) -ge "$3" ] && break
    sleep 0.5
  done
  if [ "$i" -gt 0 ]; then
    echo "     note $1: $sent frames sent after $((SECONDS - start)) s more; its threads:"; threads "$1"
  fi
  return 0
}
# threads NAME: one line per thread of the testpmd NAME: name, state, CPU ms, run-queue wait ms, wait channel
threads() {
  local tp t c st ss w
  tp=$(pgrep -f "^dpdk-testpmd .*--file-prefix=$1-$$ " | head -1 || true)
  [ -n "$tp" ] || return 0
  for t in /proc/"$tp"/task/*; do
    c=$(cat "$t/comm" 2> /dev/null) st=$(cat "$t/stat" 2> /dev/null) ss=$(cat "$t/schedstat" 2> /dev/null)
    w=$(cat "$t/wchan" 2> /dev/null) ss=${ss:-0 0 0}
    [ "$w" = 0 ] && w=running
    st=${st#*) }
    echo "       $c ${st%% *} cpu $((${ss%% *} / 1000000)) ms wait $(($(echo "$ss" | cut -d' ' -f2) / 1000000)) ms $w"
  done
}
# wait_log_count NAME ERE COUNT SECONDS: until the log has COUNT lines matching ERE (wait_log for a repeated reply)
wait_log_count() {
  local n=$(($4 * 10)) i
  for ((i = 0; i < n; i++)); do
    [ "$(grep -cE -- "$2" "$out/$1.log" 2> /dev/null || true)" -ge "$3" ] && return 0
    if ! kill -0 "${pid[$1]}" 2> /dev/null; then
      bad "$1: exited before reply $3 of /$2/; log tail:"; tail -15 "$out/$1.log" | sed 's/^/     /'
      return 1
    fi
    sleep 0.1
  done
  bad "$1: no reply $3 of /$2/ within $4 s; log tail:"; tail -15 "$out/$1.log" | sed 's/^/     /'
  return 1
}
# pmd_quit NAME: quit and wait for the process
pmd_quit() {
  pmd_cmd "$1" quit
  exec {fds[$1]}>&-
  wait_log "$1" '^Bye' 30 || true
}
# number after "LABEL:" in the last "Accumulated forward statistics" block of a log
acc() {
  awk -v l="$2:" '/Accumulated forward statistics/ {b = 1}
    b { for (i = 1; i < NF; i++) if ($i == l) v = $(i + 1) } END { print v + 0 }' "$out/$1.log"
}
# same DESC A B: ok when the two values are equal
same() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: $2 != $3"; fi; }
counter() { # counter FABRIC DEV DIR/NAME
  MLX5EMU_FABRIC=$1 "$MLX5EMU" --link eth --devices 2 -- cat "/sys/class/infiniband/mlx5_$2/ports/1/$3"
}
strict_clean() {
  if grep -q 'STRICT' "$out/$1.log"; then bad "$2: strict-mode violations:"; grep STRICT "$out/$1.log" | head -5; else
    ok "$2: no strict-mode violation"; fi
}

# ---- probe ----
export MLX5EMU_FABRIC=$base_fabric-probe-$$
pmd_start probe "" 0
wait_log probe 'testpmd>' 60 || true
pmd_cmd probe "show port info 0"
wait_log probe 'Link status' 20 || true
pmd_quit probe
probed=$(sed -n 's/.*Probe PCI driver: \([^ ]*\) ([^)]*) device: \([^ ]*\).*/\1 \2/p' "$out/probe.log" | tr '\n' ' ')
same "probe without -a: exactly the emulated functions" "$probed" "mlx5_pci e0000:00:00.0 mlx5_pci e0000:00:01.0 "
if grep -q 'MAC address: 98:03:9B:4D:45:00' "$out/probe.log"; then ok "port 0 shows mlx5_0's MAC"; else
  bad "port 0 MAC:"; grep -i mac "$out/probe.log" | head -3; fi
strict_clean probe probe

pmd_start start "-a e0000:00:00.0,dv_flow_en=0" 0
wait_log start 'testpmd>' 60 || true
pmd_cmd start "show port info 0"
wait_log start 'Link speed' 20 || true
pmd_quit start
if grep -q '^Port 0: 98:03:9B:4D:45:00' "$out/start.log"; then ok "port 0 starts with its MAC"; else
  bad "port 0 did not start:"; grep -iE 'fail|error' "$out/start.log" | head -5; fi
if grep -q 'Link status: up' "$out/start.log" && grep -q 'Link speed: 100 Gbps' "$out/start.log"; then
  ok "link up at 100 Gbps"; else bad "link:"; grep -E 'Link (status|speed)' "$out/start.log"; fi
strict_clean start start

# ---- forward: txonly -> rxonly between two processes ----
# forward NAME RX_DEVARGS [RX_EXTRA_LOG_ARGS]
forward() {
  local name=$1 rxargs=$2 fab=$base_fabric-$1-$$
  export MLX5EMU_FABRIC=$fab
  pmd_start "$name-rx" "-a e0000:00:01.0,dv_flow_en=0$rxargs --log-level=pmd.net.mlx5:debug" 0 --forward-mode=rxonly
  wait_log "$name-rx" 'testpmd>' 60 || return 0
  pmd_cmd "$name-rx" start
  wait_log "$name-rx" 'rxonly packet forwarding' 20 || return 0
  pmd_start "$name-tx" "-a e0000:00:00.0,dv_flow_en=0" 1 --forward-mode=txonly --eth-peer=0,98:03:9b:4d:45:01
  wait_log "$name-tx" 'testpmd>' 60 || return 0
  pmd_cmd "$name-tx" start
  wait_log "$name-tx" 'txonly packet forwarding' 20 || return 0
  sleep 2
  tx_until "$name-tx" 2000 20 || return 0
  pmd_cmd "$name-tx" stop
  wait_log "$name-tx" 'Done\.' 20 || return 0
  pmd_cmd "$name-tx" "show port xstats 0"
  wait_log "$name-tx" 'tx_pp_sync_lost' 20 || return 0
  pmd_quit "$name-tx"
  # the last frames reach the receiver within the emulator's hold time (200 ms) of the last send
  sleep 1
  pmd_cmd "$name-rx" stop
  wait_log "$name-rx" 'Done\.' 20 || return 0
  pmd_cmd "$name-rx" "show port xstats 0"
  wait_log "$name-rx" 'tx_pp_sync_lost' 20 || return 0
  pmd_quit "$name-rx"
  local tx rx rxd xmit rcv oob rcv0 xmit1 xtx xrx xoob
  tx=$(acc "$name-tx" TX-packets); rx=$(acc "$name-rx" RX-packets); rxd=$(acc "$name-rx" RX-dropped)
  xmit=$(counter "$fab" 0 counters/port_xmit_packets); rcv=$(counter "$fab" 1 counters/port_rcv_packets)
  oob=$(counter "$fab" 1 hw_counters/out_of_buffer)
  rcv0=$(counter "$fab" 0 counters/port_rcv_packets); xmit1=$(counter "$fab" 1 counters/port_xmit_packets)
  # xstats: the PMD reads the emulator's counters through ethtool (tx_phy_packets, rx_phy_packets) and sysfs
  # (rx_out_of_buffer)
  xtx=$(sed -n 's/^tx_phy_packets: //p' "$out/$name-tx.log"); xrx=$(sed -n 's/^rx_phy_packets: //p' "$out/$name-rx.log")
  xoob=$(sed -n 's/^rx_out_of_buffer: //p' "$out/$name-rx.log")
  same "$name: xstats tx_phy_packets = port_xmit_packets" "$xtx" "$xmit"
  same "$name: xstats rx_phy_packets = port_rcv_packets" "$xrx" "$rcv"
  same "$name: xstats rx_out_of_buffer = out_of_buffer" "$xoob" "$oob"
  echo "     $name: testpmd TX $tx, RX $rx, RX-dropped $rxd; emulator mlx5_0 xmit $xmit rcv $rcv0," \
    "mlx5_1 rcv $rcv xmit $xmit1 out_of_buffer $oob"
  if [ "$rx" -ge 1000 ]; then ok "$name: frames forwarded ($rx)"; else bad "$name: only $rx frames received"; fi
  same "$name: TX-packets = port_xmit_packets" "$tx" "$xmit"
  if [ "$rcv0" = 0 ] && [ "$xmit1" = 0 ]; then ok "$name: nothing else on the wire"; else
    bad "$name: mlx5_0 received $rcv0, mlx5_1 sent $xmit1"; fi
  strict_clean "$name-tx" "$name tx"
  if [ $((rx + rxd)) = "$rcv" ]; then ok "$name: RX-packets + RX-dropped = port_rcv_packets"; else
    bad "$name: RX-packets $rx + RX-dropped $rxd != port_rcv_packets $rcv"; fi
  same "$name: RX-dropped = out_of_buffer" "$rxd" "$oob"
  strict_clean "$name-rx" "$name rx"
}
forward fwd ""
if grep -q 'selected vectorized SPRQ Rx function' "$out/fwd-rx.log"; then ok "fwd: vectorized Rx"; else
  bad "fwd: Rx function:"; grep -i 'Rx function' "$out/fwd-rx.log"; fi
forward mprq ",mprq_en=1,rxqs_min_mprq=1"
if grep -qE 'selected (vectorized )?MPRQ Rx function' "$out/mprq-rx.log"; then
  ok "mprq: the PMD picked the striding RQ"
else
  bad "mprq: Rx function:"; grep -i 'Rx function' "$out/mprq-rx.log"; fi

# ---- flows ----
# flows NAME RULE: queue 0 and queue 1 receive counts into $q0 $q1
flows() {
  local name=$1 rule=$2
  q0=0; q1=0; tx=0
  export MLX5EMU_FABRIC=$base_fabric-$1-$$
  pmd_start "$name-rx" "-a e0000:00:01.0,dv_flow_en=0" 0 --forward-mode=rxonly --rxq=2 --txq=2
  wait_log "$name-rx" 'testpmd>' 60 || return 0
  if [ -n "$rule" ]; then
    pmd_cmd "$name-rx" "$rule"
    wait_log "$name-rx" 'Flow rule #0 created|error|Caught' 20 || return 0
  fi
  pmd_cmd "$name-rx" start
  wait_log "$name-rx" 'rxonly packet forwarding' 20 || return 0
  pmd_start "$name-tx" "-a e0000:00:00.0,dv_flow_en=0" 1 --forward-mode=txonly --txonly-multi-flow \
    --eth-peer=0,98:03:9b:4d:45:01
  wait_log "$name-tx" 'testpmd>' 60 || return 0
  pmd_cmd "$name-tx" start
  wait_log "$name-tx" 'txonly packet forwarding' 20 || return 0
  sleep 2
  tx_until "$name-tx" 2000 20 || return 0
  pmd_cmd "$name-tx" stop
  wait_log "$name-tx" 'Done\.' 20 || return 0
  pmd_quit "$name-tx"
  sleep 1
  pmd_cmd "$name-rx" stop
  wait_log "$name-rx" 'Done\.' 20 || return 0
  pmd_quit "$name-rx"
  q0=$(awk '/RX Port= 0\/Queue= 0/ {b = 1; next} b && /RX-packets:/ {print $2; exit}' "$out/$name-rx.log")
  q1=$(awk '/RX Port= 0\/Queue= 1/ {b = 1; next} b && /RX-packets:/ {print $2; exit}' "$out/$name-rx.log")
  q0=${q0:-0}; q1=${q1:-0}
  tx=$(acc "$name-tx" TX-packets)
  echo "     $name: sent $tx, queue 0 received $q0, queue 1 $q1"
  strict_clean "$name-rx" "$name rx"
  strict_clean "$name-tx" "$name tx"
}
flows rss ""
if [ "$q0" -ge 100 ] && [ "$q1" -ge 100 ]; then ok "rss: both queues receive ($q0, $q1)"; else
  bad "rss: queues $q0, $q1"; fi
flows steer "flow create 0 ingress pattern eth / ipv4 dst is 198.18.0.2 / udp / end actions queue index 1 / end"
if grep -q 'Flow rule #0 created' "$out/steer-rx.log" && [ "$q0" = 0 ] && [ "$q1" -ge 1000 ]; then
  ok "steer: the rule puts every frame on queue 1 ($q1)"; else bad "steer: queues $q0, $q1"; fi
flows drop "flow create 0 ingress pattern eth / ipv4 dst is 198.18.0.2 / udp / end actions drop / end"
if grep -q 'Flow rule #0 created' "$out/drop-rx.log" && [ "$q0" = 0 ] && [ "$q1" = 0 ] && [ "$tx" -ge 1000 ]; then
  ok "drop: the rule drops all $tx frames"; else bad "drop: queues $q0, $q1 of $tx"; fi

rm -f /dev/shm/"$base_fabric"-*-$$ /dev/shm/"$base_fabric"-*-$$-* 2> /dev/null || true
exit $fail
