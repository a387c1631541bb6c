# SPDX-License-Identifier: Apache-2.0
# The pcap tap (--pcap FILE) judged by tshark and by an independent ICRC check (pcap_check.py).
# Two processes on a RoCE fabric tap the same file, so every frame must appear exactly once (written by its sender):
#  - ibv_rc_pingpong -g 1 (RoCE v2 over IPv6, RC SEND ONLY + ACK),
#  - ibv_ud_pingpong -g 0 (RoCE v1, ethertype 0x8915, UD SEND ONLY with DETH),
#  - ib_read_bw -x 1 (RDMA READ request with RETH, READ RESPONSE ONLY with AETH),
#  - ib_send_bw -c XRC -x 1 (XRC SEND ONLY 0xA4 with the XRCETH, XRC ACKNOWLEDGE 0xB1),
#  - raw_ethernet_bw (raw packet QP frames as sent: IPv4/UDP with a valid header checksum, each once).
# Checks: tshark dissects each frame down to InfiniBand with the expected opcode, destination QP and PSN sequence;
# the IPv6 next header / UDP port; DETH Q_Key and source QP; RETH length; the ICRC of every frame.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=$((20000 + RANDOM % 20000))
# tshark prints QPNs and Q_Keys in hex; the filter turns every 0x token into decimal so that plain awk compares them
ts() {
  tshark -r "$1" -o udp.check_checksum:TRUE -o ip.check_checksum:TRUE -T fields -E separator=' ' "${@:2}" 2>/dev/null |
    python3 -c 'import sys; [print(" ".join(str(int(t, 16)) if t.startswith("0x") else t for t in l.split(" "))) for l in sys.stdin.read().splitlines()]'
}
fail() { echo "FAIL: $*"; exit 1; }

run_pair() { # pcap, client log, server log, cmd... (the last two arguments of cmd are -p PORT)
  local pcap=$1 clog=$2 slog=$3; shift 3
  local lport=${@: -1}
  "$MLX5EMU" --link eth --pcap "$pcap" -- timeout 60 "$@" > "$slog" 2>&1 &
  local spid=$!
  # wait until the server listens (a loaded machine can take seconds to start it), as twoproc.bash does
  for _ in $(seq 300); do
    ss -ltn 2> /dev/null | grep -q ":$lport " && break
    kill -0 "$spid" 2> /dev/null || break
    sleep 0.1
  done
  "$MLX5EMU" --link eth --pcap "$pcap" -- timeout 60 "$@" localhost > "$clog" 2>&1 || { cat "$clog" "$slog"; fail "client $*"; }
  wait "$spid" || { cat "$slog"; fail "server $*"; }
}
qpn_of() { grep -o 'local address: .*QPN 0x[0-9a-f]*' "$1" | sed 's/.*QPN 0x//'; }
psn_of() { grep -o 'local address: .*PSN 0x[0-9a-f]*' "$1" | sed 's/.*PSN 0x//'; }

# ---- RC, RoCE v2 ----
n=4
run_pair "$tmp/rc.pcap" "$tmp/c.log" "$tmp/s.log" ibv_rc_pingpong -g 1 -n $n -s 100 -p $port
cq=$((16#$(qpn_of "$tmp/c.log"))); sq=$((16#$(qpn_of "$tmp/s.log")))
cp=$((16#$(psn_of "$tmp/c.log"))); sp=$((16#$(psn_of "$tmp/s.log")))
ts "$tmp/rc.pcap" -e frame.protocols -e ipv6.nxt -e udp.dstport -e infiniband.bth.opcode -e infiniband.bth.destqp \
   -e infiniband.bth.psn -e infiniband.aeth.syndrome > "$tmp/rc.txt"
cat "$tmp/rc.txt"
[ "$(wc -l < "$tmp/rc.txt")" -eq $((4 * n)) ] || fail "RC: $((4 * n)) frames expected (each SEND and ACK once)"
grep -qv '^eth:ethertype:ipv6:udp:infiniband' "$tmp/rc.txt" && fail "RC: a frame not dissected as RoCE v2"
# client -> server: SEND ONLY (4) with PSNs from the client's initial PSN; server -> client: ACK (17) echoing them
for dir in "$sq $cp" "$cq $sp"; do
  set -- $dir
  want=$2
  for psn in $(awk -v q="$1" '$4 == 4 && ($5) == q { print $6 }' "$tmp/rc.txt"); do
    [ "$psn" -eq "$want" ] || fail "RC: SEND to QP $1 has PSN $psn, expected $want"
    want=$((want + 1))
  done
  [ $((want - $2)) -eq $n ] || fail "RC: $n SENDs to QP $1 expected"
done
[ "$(awk '$4 == 17 && $7 == 31' "$tmp/rc.txt" | wc -l)" -eq $((2 * n)) ] || fail "RC: ACKs (opcode 17, AETH 0x1f)"
awk '$2 != 17 || $3 != 4791 { exit 1 }' "$tmp/rc.txt" || fail "RC: IPv6 next header 17 and UDP port 4791"
python3 "$here/pcap_check.py" "$tmp/rc.pcap" > "$tmp/icrc.txt" || { cat "$tmp/icrc.txt"; fail "RC ICRC"; }

# ---- UD, RoCE v1 ----
port=$((port + 1))
run_pair "$tmp/ud.pcap" "$tmp/c.log" "$tmp/s.log" ibv_ud_pingpong -g 0 -n 3 -s 64 -p $port
cq=$((16#$(qpn_of "$tmp/c.log"))); sq=$((16#$(qpn_of "$tmp/s.log")))
ts "$tmp/ud.pcap" -e frame.protocols -e eth.type -e infiniband.bth.opcode -e infiniband.bth.destqp \
   -e infiniband.bth.psn -e infiniband.deth.q_key -e infiniband.deth.srcqp > "$tmp/ud.txt"
cat "$tmp/ud.txt"
[ "$(wc -l < "$tmp/ud.txt")" -eq 6 ] || fail "UD: 6 frames expected"
awk -v a=$cq -v b=$sq '$1 !~ /^eth:ethertype:infiniband/ || $2 != 35093 || $3 != 100 ||
    !((($4) == a && ($7) == b) || (($4) == b && ($7) == a)) ||
    $6 != 286331153 { exit 1 }' "$tmp/ud.txt" || fail "UD: RoCE v1 SEND ONLY (0x64) with DETH"
# PSNs per direction consecutive
for q in $cq $sq; do
  awk -v q=$q '($4) == q { if (p != "" && $5 != p + 1) exit 1; p = $5 }' "$tmp/ud.txt" || fail "UD: PSN sequence to $q"
done
python3 "$here/pcap_check.py" "$tmp/ud.pcap" > "$tmp/icrc.txt" || { cat "$tmp/icrc.txt"; fail "UD ICRC"; }

# ---- RDMA READ, RoCE v2 ----
port=$((port + 1))
run_pair "$tmp/rd.pcap" "$tmp/c.log" "$tmp/s.log" ib_read_bw -x 1 -n 5 -s 100 -p $port
ts "$tmp/rd.pcap" -e frame.protocols -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.reth.dmalen \
   -e infiniband.aeth.syndrome > "$tmp/rd.txt"
cat "$tmp/rd.txt"
[ "$(awk '$2 == 12 && $4 == 100' "$tmp/rd.txt" | wc -l)" -ge 5 ] || fail "READ: requests (12) with RETH length 100"
[ "$(awk '$2 == 16 && $4 == 31' "$tmp/rd.txt" | wc -l)" -ge 5 ] || fail "READ: READ RESPONSE ONLY (16) with AETH"
# each response carries the PSN of its request
awk '$2 == 12 { r[$3] = 1 } $2 == 16 { s[$3] = 1 } END { for (p in r) if (!(p in s)) exit 1 }' "$tmp/rd.txt" \
  || fail "READ: a request without its response"
python3 "$here/pcap_check.py" "$tmp/rd.pcap" > "$tmp/icrc.txt" || { cat "$tmp/icrc.txt"; fail "READ ICRC"; }
# ---- XRC, RoCE v2: IBA Annex A14 opcodes both ways (tshark 4.0 names them but has no XRCETH dissector: the
# XRCETH is the first 4 bytes of what it calls the vendor-specific header, the SRQ number in its low 24 bits) ----
port=$((port + 1))
run_pair "$tmp/xrc.pcap" "$tmp/c.log" "$tmp/s.log" ib_send_bw -c XRC -x 1 -n 5 -s 100 -p $port
ts "$tmp/xrc.pcap" -e frame.protocols -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.vendor \
   | cut -c1-100 > "$tmp/xrc.txt"
cat "$tmp/xrc.txt"
[ "$(awk '$2 == 164' "$tmp/xrc.txt" | wc -l)" -ge 5 ] || fail "XRC: SEND ONLY (164) expected"
[ "$(awk '$2 == 177' "$tmp/xrc.txt" | wc -l)" -ge 1 ] || fail "XRC: ACKNOWLEDGE (177) expected"
awk '$2 < 160 || $2 > 183 { exit 1 }' "$tmp/xrc.txt" || fail "XRC: a frame with a non-XRC opcode"
# every SEND's XRCETH: reserved byte 0, one nonzero SRQ number
[ "$(awk '$2 == 164 { print substr($4, 1, 8) }' "$tmp/xrc.txt" | sort -u | grep -c '^00[0-9a-f]*[1-9a-f]')" -eq 1 ] \
  || fail "XRC: the XRCETH of the SENDs"
python3 "$here/pcap_check.py" "$tmp/xrc.pcap" > "$tmp/icrc.txt" || { cat "$tmp/icrc.txt"; fail "XRC ICRC"; }
# ---- raw Ethernet: perftest raw_ethernet_bw, IPv4/UDP frames built by perftest ----
port=$((port + 1))
mac=98:03:9b:4d:45:00
raw="raw_ethernet_bw -d mlx5_0 -B $mac -E $mac -J 10.0.0.2 -j 10.0.0.1 -K 5001 -k 5002 -s 128 -n 20"
# the raw tools open no TCP port: the server is ready once its result header (after ibv_create_flow) is out
"$MLX5EMU" --link eth --pcap "$tmp/raw.pcap" -- timeout 60 stdbuf -oL $raw --server -p $port > "$tmp/s.log" 2>&1 &
spid=$!
for _ in $(seq 300); do grep -q '#bytes' "$tmp/s.log" 2> /dev/null && break; kill -0 $spid 2> /dev/null || break; sleep 0.1; done
sleep 0.5
"$MLX5EMU" --link eth --pcap "$tmp/raw.pcap" -- timeout 60 $raw --client -p $port 127.0.0.1 > "$tmp/c.log" 2>&1 ||
  { cat "$tmp/c.log" "$tmp/s.log"; fail "raw_ethernet_bw client"; }
wait $spid || { cat "$tmp/s.log"; fail "raw_ethernet_bw server"; }
ts "$tmp/raw.pcap" -e frame.protocols -e ip.checksum.status -e udp.srcport -e udp.dstport > "$tmp/raw.txt"
sort "$tmp/raw.txt" | uniq -c
# every frame once (both processes tap the file), each a valid IPv4/UDP packet
[ "$(grep -c '^eth:ethertype:ip:udp' "$tmp/raw.txt")" -eq 20 ] || fail "raw: 20 IPv4/UDP frames expected"
awk '$2 != 1 { exit 1 }' "$tmp/raw.txt" || fail "raw: an IPv4 header checksum tshark does not accept"
python3 "$here/pcap_check.py" "$tmp/raw.pcap" > "$tmp/icrc.txt" || { cat "$tmp/icrc.txt"; fail "raw: pcap file"; }
grep -q icrc "$tmp/icrc.txt" && fail "raw: RoCE frames in a raw-only capture"
echo "pcap: RC v2, UD v1, READ, XRC and raw Ethernet frames dissected by tshark, ICRCs verified"
