#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where libmlx5's time goes: the C side of bench/profile.sh. Runs the C loop's benchmarks matching REGEX (short mode)
# under perf (cpu-clock samples: this machine's virtual CPUs expose no hardware counters) on the emulated device with
# its engine off, and writes to bench/results/profile-c-<name>.txt the loop's result line, the samples per library
# and per symbol, and the instructions around the hottest addresses of libraries without symbols (Debian's libmlx5 is
# stripped, so its samples are reported by address; objdump shows what is there).
#
#   bench/profile-c.sh 'IbvRawPostSendBench.udpInline'                 libmlx5's default environment
#   MLX5_SHUT_UP_BF=1 bench/profile-c.sh 'IbvRawPostSendBench.udpInline'   the 8-byte doorbell
#
# The benchmark names are the C loop's (bench/src/main/c/libmlx5_loop.c), the same as the JMH counterparts'.
# Needs perf (Debian: linux-perf) and binutils' objdump.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
[ $# -eq 1 ] || { echo "usage: [MLX5_SHUT_UP_BF=1] $0 REGEX" >&2; exit 2; }
regex="$1"
command -v perf >/dev/null || { echo "profile-c.sh: perf not found (apt-get install linux-perf)" >&2; exit 2; }
native="$here/target/native/libmlx5_loop"
[ -x "$native" ] || (cd "$root" && mvn -B -q -ntp -pl bench -am package -DskipTests -Dmlx5j.bench.skip=true)
label=default
env_args=()
if [ -n "${MLX5_SHUT_UP_BF:-}" ]; then label="MLX5_SHUT_UP_BF=$MLX5_SHUT_UP_BF"; env_args=("MLX5_SHUT_UP_BF=$MLX5_SHUT_UP_BF"); fi
name="$(printf '%s_%s' "$regex" "$label" | tr -c 'A-Za-z0-9_.-' '_')"
out="$here/results/profile-c-$name.txt"
tmp="$(mktemp -d /tmp/mlx5j-profile-c.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT

perf record -q -e cpu-clock -o "$tmp/perf.data" -- "$root/emulator/mlx5emu" --link eth -- \
  env MLX5EMU_ENGINE=off "${env_args[@]}" "$native" short "$tmp/result.json" "$label" "$regex" > "$tmp/loop.txt" 2>&1
{
  echo "# bench/profile-c.sh '$regex' ($label), $(date -u +%Y-%m-%dT%H:%M:%SZ), $(git -C "$root" rev-parse --short HEAD)"
  echo "# perf record -e cpu-clock; the C loop: $native short OUT.json $label '$regex'"
  echo
  grep ' ns/op' "$tmp/loop.txt" || cat "$tmp/loop.txt"
  echo
  echo "## samples per library"
  perf report -i "$tmp/perf.data" --no-children --sort dso --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | sed -n '1,12p'
  echo
  echo "## samples per symbol (an address where the library has no symbols)"
  perf report -i "$tmp/perf.data" --no-children --sort dso,sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' \
    | sed -n '1,30p' | tee "$tmp/syms.txt"
  echo
  echo "## around the hottest addresses without a symbol (objdump; the sampled instruction marked <<; a sample"
  echo "## lands on the instruction after one that stalls, e.g. after a store that waits for sfence)"
  # lines like "19.63%  libmlx5.so.1.24.44.0  [.] 0x0000000000053f7f"
  awk '$4 ~ /^0x/ && n++ < 6 {print $1, $2, $4}' "$tmp/syms.txt" | while read -r pct dso addr; do
    lib="$(find /usr/lib /lib -name "$dso" 2>/dev/null | sed -n 1p)"
    [ -n "$lib" ] || continue
    a=$((addr))
    echo "### $pct $dso $addr"
    # from well before the address (x86 decoding resynchronises within a few instructions), printing 10 before it
    objdump -d --no-show-raw-insn --start-address=$((a - 128)) --stop-address=$((a + 24)) "$lib" \
      | grep -E '^ +[0-9a-f]+:' | awk -v hot="$(printf '%x' "$a")" '
          { line[NR] = $0; if ($1 == hot ":") at = NR }
          END { for (i = (at > 10 ? at - 10 : 1); i <= NR; i++) print line[i] (i == at ? "   <<" : "") }' 
  done
} > "$out"
sed -n '4,30p' "$out"
echo "profile-c.sh: full output in $out"
