#!/usr/bin/env bash
# Runs the mlx5j JMH benchmarks with -prof gc and fails (exit 1) if any allocates more than 0.5 B/op.
#
#   bench/run.sh            quick mode: 1 fork, 3 x 200 ms warm-up + 3 x 200 ms measurement (~1 minute; CI smoke)
#   bench/run.sh full       2 forks, 5 x 1 s warm-up + 5 x 1 s measurement
#   bench/run.sh quick 'WqeEncodeBench'   only benchmarks matching the regex
#
# JSON goes to bench/results/<mode>.json. Needs a JDK >= 25: $JAVA, else $JAVA_HOME, else /usr/lib/jvm/*.
# Builds bench/target/benchmarks.jar first if it is missing (or if MLX5J_BENCH_REBUILD=1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mode="${1:-quick}"
case "$mode" in quick|full) ;; *) echo "usage: $0 [quick|full] [INCLUDE_REGEX]" >&2; exit 2 ;; esac

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
if [ ! -f "$jar" ] || [ "${MLX5J_BENCH_REBUILD:-0}" = 1 ]; then
  (cd "$here/.." && mvn -B -q -ntp -pl bench -am package -DskipTests)
fi

args=("$mode" "$here/results")
[ $# -ge 2 ] && args+=("$2")
echo "+ $java -cp $jar io.mlx5j.bench.BenchRunner ${args[*]}"
exec "$java" -cp "$jar" io.mlx5j.bench.BenchRunner "${args[@]}"
