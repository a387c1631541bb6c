#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Unmodified rdma-core tools under the launcher: ibv_devices and ibv_devinfo -v in IB and RoCE modes, iproute2's
# rdma dev / rdma link (RDMA netlink), the --env mode, and ibv_rc_pingpong between two separately launched processes
# on one fabric (its whole setup: context, PD, MR, CQ, QP, the three transitions, the exchange of addresses over TCP).
set -euo pipefail
: "${MLX5EMU:?run from make check}"
fail=0
expect() { # expect <description> <pattern> <file>
  if grep -qE -- "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: /$2/ not in output:"; sed 's/^/     /' "$3" | head -20; fail=1; fi
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# wait_listen <port>: until a TCP socket listens on the port (at most 20 s). It reads /proc/net/tcp{,6} instead of
# connecting, because ibv_rc_pingpong's server accepts exactly one connection. A fixed sleep lost this race on a
# loaded 2-core machine: the client found nothing listening and the pair failed.
wait_listen() {
  local hex; hex=$(printf ':%04X ' "$1")
  for _ in $(seq 200); do
    if cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$hex" 'index($2 " ", p) && $4 == "0A" {f=1} END {exit !f}'; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

"$MLX5EMU" --devices 2 -- ibv_devices > "$out/devices" 2>&1 || { echo "FAIL ibv_devices exit $?"; fail=1; }
expect "ibv_devices lists mlx5_0" '^\s+mlx5_0\s+98039b03004d4500$' "$out/devices"
expect "ibv_devices lists mlx5_1" '^\s+mlx5_1\s+98039b03004d4501$' "$out/devices"

for link in ib eth; do
  if ! "$MLX5EMU" --link $link -- ibv_devinfo -v > "$out/devinfo.$link" 2>&1; then
    echo "FAIL ibv_devinfo -v ($link) exit status"; fail=1
  fi
  expect "devinfo ($link): ConnectX-5 part" 'vendor_part_id:\s+4119' "$out/devinfo.$link"
  expect "devinfo ($link): fw" 'fw_ver:\s+16\.35\.2000' "$out/devinfo.$link"
  expect "devinfo ($link): port active" 'state:\s+PORT_ACTIVE \(4\)' "$out/devinfo.$link"
done
expect "devinfo (ib): link layer" 'link_layer:\s+InfiniBand' "$out/devinfo.ib"
expect "devinfo (ib): lid" 'port_lid:\s+1$' "$out/devinfo.ib"
expect "devinfo (ib): gid 0" 'GID\[  0\]:\s+fe80:0000:0000:0000:9803:9b03:004d:4500' "$out/devinfo.ib"
expect "devinfo (eth): link layer" 'link_layer:\s+Ethernet' "$out/devinfo.eth"
expect "devinfo (eth): RoCE v1 gid" 'GID\[  0\]:\s+fe80:0000:0000:0000:9a03:9bff:fe4d:4500, RoCE v1' "$out/devinfo.eth"
expect "devinfo (eth): RoCE v2 gid" 'GID\[  1\]:\s+fe80::9a03:9bff:fe4d:4500, RoCE v2' "$out/devinfo.eth"

# RDMA netlink (src/kernel/netlink.c): iproute2's rdma lists the emulated devices, their ports and, on Ethernet, the
# port's interface (the PMD of DPDK reads the same answers)
"$MLX5EMU" --devices 2 -- rdma dev > "$out/rdma_dev" 2>&1 || { echo "FAIL rdma dev exit $?"; fail=1; }
expect "rdma dev: mlx5_0" '^0: mlx5_0: node_type ca fw 16\.35\.2000 node_guid 9803:9b03:004d:4500 ' "$out/rdma_dev"
expect "rdma dev: mlx5_1" '^1: mlx5_1: node_type ca ' "$out/rdma_dev"
"$MLX5EMU" -- rdma link > "$out/rdma_link.ib" 2>&1 || { echo "FAIL rdma link (ib) exit $?"; fail=1; }
expect "rdma link (ib)" '^link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 1 sm_lid 1 lmc 0 state ACTIVE ' \
  "$out/rdma_link.ib"
"$MLX5EMU" --link eth --devices 2 -- rdma link > "$out/rdma_link.eth" 2>&1 || { echo "FAIL rdma link exit $?"; fail=1; }
expect "rdma link (eth): mlx5_0's interface" '^link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev mlx5emu0' \
  "$out/rdma_link.eth"
expect "rdma link (eth): mlx5_1's interface" '^link mlx5_1/1 state ACTIVE .* netdev mlx5emu1' "$out/rdma_link.eth"

# --env: a tree for tools that cannot run under the wrapper (Maven surefire), usable by hand-set environment
"$MLX5EMU" --link eth --env "$out/envtree" > "$out/env"
expect "--env prints SYSFS_PATH" "^SYSFS_PATH='$out/envtree'\$" "$out/env"
expect "--env prints LD_PRELOAD" "^LD_PRELOAD='.*libmlx5emu\\.so'\$" "$out/env"
( set -a; . "$out/env"; set +a; ibv_devinfo > "$out/devinfo.env" 2>&1 ) || { echo "FAIL ibv_devinfo with --env environment"; fail=1; }
expect "--env environment works" 'link_layer:\s+Ethernet' "$out/devinfo.env"
# Every value is one shell word, whatever it holds: MLX5EMU_IPS has spaces (unquoted, sourcing ran "0=::1" as a
# command), a directory may have a space and a quote. A strict shell, bash and POSIX sh, must read back each value
# exactly as the launcher exports it to a program it runs.
tricky="$out/env tree's dir"
# (both launched from an empty environment: make's MLX5EMU_FABRIC and MLX5EMU_STRICT would reach only the program)
env -i PATH="$PATH" "$MLX5EMU" --link eth --devices 2 --ip 127.0.0.9 --ip mlx5_1=127.0.0.10 --env "$tricky" \
  > "$out/env2"
env -i PATH="$PATH" "$MLX5EMU" --link eth --devices 2 --ip 127.0.0.9 --ip mlx5_1=127.0.0.10 -- env |
  grep -E '^(MLX5EMU_[A-Z]+|LD_PRELOAD)=' | grep -v '^MLX5EMU_SYSFS=' | sort > "$out/env2.launched"
for sh in bash sh; do
  if ! env -i PATH="$PATH" "$sh" -c 'set -eu; set -a; . "$1"; set +a; env' _ "$out/env2" > "$out/env2.$sh" \
      2> "$out/env2.$sh.err"; then
    echo "FAIL --env file does not source in $sh:"; sed 's/^/     /' "$out/env2.$sh.err" | head; fail=1
    continue
  fi
  echo "ok   --env file sources in $sh"
  if [ "$(grep -x "SYSFS_PATH=$tricky" "$out/env2.$sh")" = "SYSFS_PATH=$tricky" ] &&
     [ "$(grep -x "MLX5EMU_SYSFS=$tricky" "$out/env2.$sh")" = "MLX5EMU_SYSFS=$tricky" ]; then
    echo "ok   --env paths with a space and a quote ($sh)"
  else
    echo "FAIL --env paths read back wrong ($sh):"; grep SYSFS "$out/env2.$sh" | sed 's/^/     /'; fail=1
  fi
  grep -E '^(MLX5EMU_[A-Z]+|LD_PRELOAD)=' "$out/env2.$sh" | grep -v '^MLX5EMU_SYSFS=' | sort > "$out/env2.$sh.knobs"
  if cmp -s "$out/env2.$sh.knobs" "$out/env2.launched"; then
    echo "ok   --env values equal what the launcher exports ($sh)"
  else
    echo "FAIL --env values differ from what the launcher exports ($sh):"
    diff "$out/env2.launched" "$out/env2.$sh.knobs" | sed 's/^/     /'; fail=1
  fi
done
expect "--env MLX5EMU_IPS" "^MLX5EMU_IPS=0=127.0.0.1 0=::1 0=127.0.0.9 1=127.0.0.2 1=127.0.0.10\$" "$out/env2.launched"

# ibv_rc_pingpong: server and client launched separately; they meet on the fabric named by MLX5EMU_FABRIC
for link in ib eth; do
  port=$((20000 + RANDOM % 20000))
  g=""; [ $link = eth ] && g="-g 1"
  timeout 30 "$MLX5EMU" --link $link -- ibv_rc_pingpong -p $port -n 50 $g > "$out/srv.$link" 2>&1 &
  srv=$!
  wait_listen $port || echo "info rc_pingpong ($link): server not listening on $port after 20 s"
  crc=0
  timeout 30 "$MLX5EMU" --link $link -- ibv_rc_pingpong -p $port -n 50 $g localhost > "$out/cli.$link" 2>&1 || crc=$?
  src=0; wait $srv || src=$?
  expect "rc_pingpong ($link) server set up" 'remote address: +LID 0x[0-9a-f]+, QPN 0x[0-9a-f]+' "$out/srv.$link"
  expect "rc_pingpong ($link) client set up" 'remote address: +LID 0x[0-9a-f]+, QPN 0x[0-9a-f]+' "$out/cli.$link"
  # the data phase belongs to the device engine (emulator/src/engine); report it, the engine's tests assert it
  echo "info rc_pingpong ($link) data phase: server exit $src, client exit $crc"
done
exit $fail
