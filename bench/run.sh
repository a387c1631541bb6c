#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every benchmark on the emulated ConnectX with its engine off (MLX5EMU_ENGINE=off: only the benchmark thread
# touches the rings), then writes the report:
#   1. the native C loop (src/main/c/libmlx5_loop.c) twice: libmlx5's default environment, and MLX5_SHUT_UP_BF=1
#      (libmlx5 never uses BlueFlame) -> RESULTS/<mode>-c.json, RESULTS/<mode>-c-nobf.json
#   2. JMH (io.mlx5j.bench.BenchRunner, -prof gc; exits 1 if an mlx5j benchmark allocates) -> RESULTS/<mode>.json
#   3. bench/report.py -> RESULTS/<mode>.md (tables, ratios mlx5j / libmlx5) and RESULTS/<mode>.png (plot)
# Machine, JDK, date, load average and the exact commands go to RESULTS/<mode>-meta.json.
#
#   bench/run.sh                 quick: 1 fork, 5 x 200 ms warm-up + 3 x 200 ms (about 2-3 minutes; what CI runs)
#   bench/run.sh short 'REGEX'   1 fork, 5 x 1 s warm-up + 5 x 1 s; C: 5 x 1 s after 1 s (about 12 s per JMH row, 6 s
#                                per C row: the rows one works on, on a loaded machine)
#   bench/run.sh full            3 forks, 5 x 1 s warm-up + 10 x 1 s; C: 15 x 1 s after 1 s (about an hour)
#   bench/run.sh full 'Raw'      only the benchmarks matching the regex: JMH's, and the C loop's variants (named
#                                c.<Class>.<method>, matched as a POSIX extended regex; none for 'Mlx5j')
#
# RESULTS is bench/results unless MLX5J_BENCH_RESULTS is set. Needs a JDK >= 25 ($JAVA, $JAVA_HOME or /usr/lib/jvm/*),
# gcc and libibverbs-dev; builds bench/target/benchmarks.jar and the C loop first if missing (or MLX5J_BENCH_REBUILD=1).
# MLX5J_BENCH_COMMIT names the commit in the metadata when the tree is not a git checkout (an exported copy).
# MLX5J_BENCH_NICE=N runs the measurements under nice -n N (needs root for N < 0).
# MLX5J_BENCH_RT=P runs them under chrt -f P (SCHED_FIFO, root): on a shared 2-core machine the only setting that
# kept other work off the benchmark thread's core (C loop, quick: 17.3 +- 0.4 ns against 33-48 +- 23-116 ns with
# nice -n -15 at load average 10). The kernel's RT throttling still leaves 5 % of the CPU to everything else.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
mode="${1:-quick}"
case "$mode" in quick|short|full) ;; *) echo "usage: $0 [quick|short|full] [INCLUDE_REGEX]" >&2; exit 2 ;; esac
include="${2:-}"
results="${MLX5J_BENCH_RESULTS:-$here/results}"
mkdir -p "$results"

java_major() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }
find_java() {
  local c
  for c in "${JAVA:-}" "${JAVA_HOME:+$JAVA_HOME/bin/java}" /usr/lib/jvm/*/bin/java; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    local v; v="$(java_major "$c")"
    if [ -n "$v" ] && [ "$v" -ge 25 ] 2>/dev/null; then echo "$c"; return 0; fi
  done
  return 1
}
java="$(find_java)" || { echo "run.sh: no JDK >= 25 found (set JAVA or JAVA_HOME)" >&2; exit 2; }

jar="$here/target/benchmarks.jar"
native="$here/target/native/libmlx5_loop"
if [ ! -f "$jar" ] || [ ! -x "$native" ] || [ "${MLX5J_BENCH_REBUILD:-0}" = 1 ]; then
  (cd "$root" && mvn -B -q -ntp -pl bench -am package -DskipTests)
fi

# An Ethernet port: the raw packet rows need one (the RC rows run as RoCE v2 there, the same WQEs and CQEs as on IB).
emu=("$root/emulator/mlx5emu" --link eth -- env MLX5EMU_ENGINE=off)
nice=()
[ -n "${MLX5J_BENCH_NICE:-}" ] && nice=(nice -n "$MLX5J_BENCH_NICE")
[ -n "${MLX5J_BENCH_RT:-}" ] && nice+=(chrt -f "$MLX5J_BENCH_RT")

meta="$results/$mode-meta.json"
# JMH serialises runs through $TMPDIR/jmh.lock: a private tmpdir keeps this run from failing, or from making another
# JMH run on the machine (e.g. someone's mvn verify smoke) fail, just because both exist.
jmh_tmp="$(mktemp -d /tmp/mlx5j-bench.XXXXXX)"
trap 'rm -rf "$jmh_tmp"' EXIT
jmh_cmd=("${nice[@]}" "${emu[@]}" "$java" -Djava.io.tmpdir="$jmh_tmp" -cp "$jar" io.mlx5j.bench.BenchRunner "$mode"
  "$results")
[ -n "$include" ] && jmh_cmd+=("$include")
c_cmd=("${nice[@]}" "${emu[@]}" "$native" "$mode" "$results/$mode-c.json" default)
c_nobf_cmd=("${nice[@]}" "${emu[@]}" MLX5_SHUT_UP_BF=1 "$native" "$mode" "$results/$mode-c-nobf.json" MLX5_SHUT_UP_BF=1)
if [ -n "$include" ]; then c_cmd+=("$include"); c_nobf_cmd+=("$include"); fi

# Two measurements at once on one machine measure each other: wait for any other run of this script first.
exec 9>"${TMPDIR:-/tmp}/mlx5j-bench.lock"
flock -n 9 || { echo "run.sh: another benchmark run holds ${TMPDIR:-/tmp}/mlx5j-bench.lock; waiting" >&2; flock 9; }
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "+ ${c_cmd[*]}"; "${c_cmd[@]}"
echo "+ ${c_nobf_cmd[*]}"; "${c_nobf_cmd[@]}"
echo "+ ${jmh_cmd[*]}"
status=0
"${jmh_cmd[@]}" || status=$?
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$meta" <<EOF
import json, sys
json.dump({
    "mode": "$mode",
    "started": "$started",
    "finished": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
    "machine": "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) cores, $(uname -srm)",
    "jdk": "$("$java" -version 2>&1 | head -2 | tail -1)",
    "libibverbs": "$(dpkg-query -W -f='${Version}' libibverbs1 2>/dev/null || echo unknown)",
    "commit": "${MLX5J_BENCH_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}",
    "loadavg_start": "$load_start",
    "loadavg_end": "$load_end",
    "commands": ["${c_cmd[*]}", "${c_nobf_cmd[*]}", "${jmh_cmd[*]}"],
}, open(sys.argv[1], "w"), indent=2)
EOF

if [ "$status" -ne 0 ]; then
  echo "run.sh: JMH run failed (exit $status); no report written" >&2
  exit "$status"
fi
# The distribution's python3 has python3-matplotlib; a python3 earlier on PATH (pyenv, venv) may not.
for py in /usr/bin/python3 python3; do
  if "$py" -c 'import matplotlib' 2>/dev/null; then
    exec "$py" "$here/report.py" "$results" "$mode"
  fi
done
echo "run.sh: no python3 with matplotlib (Debian: python3-matplotlib): skipped report.py; results are in $results" >&2
