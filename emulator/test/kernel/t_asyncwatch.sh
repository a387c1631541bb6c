#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rdma-core's unmodified ibv_asyncwatch (ibverbs-utils) prints the port events that `mlx5emu port` raises from a
# third process: IBV_EVENT_PORT_ERR on down, IBV_EVENT_PORT_ACTIVE on up, exactly these lines and no others; and the
# watching process's own sysfs tree follows the port. (ibv_asyncwatch owns no QP: as on Linux, QP, CQ and SRQ events
# go only to the context that owns the object, so it can never print one; t_async_events checks them.)
set -euo pipefail
: "${MLX5EMU:?run from make check}"
command -v ibv_asyncwatch > /dev/null || { echo "FAIL ibv_asyncwatch not installed (ibverbs-utils)"; exit 1; }
out=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2> /dev/null || true
  [ -n "${tree:-}" ] && rm -rf "$tree"
  rm -rf "$out"
}
trap cleanup EXIT

# wait_for <fixed string> <file>: at most 10 s
wait_for() {
  for _ in $(seq 100); do
    grep -qF -- "$1" "$2" && return 0
    sleep 0.1
  done
  echo "FAIL no '$1' within 10 s in $2:"; sed 's/^/     /' "$2"; exit 1
}

"$MLX5EMU" --keep -- ibv_asyncwatch -d mlx5_0 > "$out/watch" 2> "$out/launcher" &
pid=$!
wait_for "mlx5_0: async event FD" "$out/watch"
tree=$(sed -n 's/^mlx5emu: sysfs tree kept in //p' "$out/launcher")
[ -d "$tree" ] || { echo "FAIL no sysfs tree path from --keep"; cat "$out/launcher"; exit 1; }
state="$tree/class/infiniband/mlx5_0/ports/1/state"
[ "$(cat "$state")" = "4: ACTIVE" ] || { echo "FAIL initial state '$(cat "$state")'"; exit 1; }

"$MLX5EMU" port mlx5_0 1 down
wait_for "IBV_EVENT_PORT_ERR" "$out/watch"
for _ in $(seq 50); do [ "$(cat "$state")" = "1: DOWN" ] && break; sleep 0.1; done
[ "$(cat "$state")" = "1: DOWN" ] || { echo "FAIL watcher's tree says '$(cat "$state")' after down"; exit 1; }
"$MLX5EMU" port mlx5_0 1 up
wait_for "IBV_EVENT_PORT_ACTIVE" "$out/watch"
for _ in $(seq 50); do [ "$(cat "$state")" = "4: ACTIVE" ] && break; sleep 0.1; done
[ "$(cat "$state")" = "4: ACTIVE" ] || { echo "FAIL watcher's tree says '$(cat "$state")' after up"; exit 1; }

kill "$pid"
wait "$pid" 2> /dev/null || true
pid=
printf 'mlx5_0: async event FD N\n  event_type IBV_EVENT_PORT_ERR (10), port 1\n  event_type IBV_EVENT_PORT_ACTIVE (9), port 1\n' \
  > "$out/want"
sed 's/FD [0-9]*$/FD N/' "$out/watch" > "$out/got"
if ! diff -u "$out/want" "$out/got"; then
  echo "FAIL ibv_asyncwatch printed something else"; exit 1
fi
echo "t_asyncwatch: ok"
