#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where the time goes: runs JMH benchmarks matching REGEX under -prof perfasm (cpu-clock samples: this machine's
# virtual CPUs expose no hardware counters) on the emulated device with its engine off, and writes the hottest code
# regions with their x86-64 instructions to bench/results/profile-<name>.txt.
#
#   bench/profile.sh 'Mlx5jPostBench.rdmaWrite$' [extra JMH args, e.g. -p doorbell=BLUEFLAME]
#
# writes bench/results/profile-Mlx5jPostBench.rdmaWrite__doorbell-BLUEFLAME.txt. bench/profile-c.sh is the C side.
#
# Needs perf (Debian: linux-perf) and capstone (Debian: libcapstone-dev): the disassembler plugin HotSpot loads,
# src/main/hsdis/hsdis_capstone.c, is built into target/hsdis/hsdis-amd64.so and found through LD_LIBRARY_PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
[ $# -ge 1 ] || { echo "usage: $0 REGEX [JMH args]" >&2; exit 2; }
regex="$1"; shift
java="${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}"
command -v perf >/dev/null || { echo "profile.sh: perf not found (apt-get install linux-perf)" >&2; exit 2; }
[ -f /usr/include/capstone/capstone.h ] || { echo "profile.sh: capstone headers not found (apt-get install libcapstone-dev)" >&2; exit 2; }
hsdis="$here/target/hsdis"
mkdir -p "$hsdis"
gcc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -o "$hsdis/hsdis-amd64.so" "$here/src/main/hsdis/hsdis_capstone.c" -lcapstone
[ -f "$here/target/benchmarks.jar" ] || (cd "$root" && mvn -B -q -ntp -pl bench -am package -DskipTests -Dmlx5j.bench.skip=true)
# the output is named by the regex and the -p parameters, so that one benchmark's modes keep separate profiles
name="$regex"
prev=""
for a in "$@"; do [ "$prev" = "-p" ] && name="${name}_${a/=/-}"; prev="$a"; done
name="$(printf '%s' "$name" | tr -c 'A-Za-z0-9_.-' '_')"
out="$here/results/profile-$name.txt"
jmh_tmp="$(mktemp -d /tmp/mlx5j-profile.XXXXXX)"
trap 'rm -rf "$jmh_tmp"' EXIT
"$root/emulator/mlx5emu" --link eth -- env MLX5EMU_ENGINE=off LD_LIBRARY_PATH="$hsdis" "$java" -Djava.io.tmpdir="$jmh_tmp" \
  -cp "$here/target/benchmarks.jar" org.openjdk.jmh.Main "$regex" -f 1 -wi 5 -w 1s -i 5 -r 1s \
  -prof 'perfasm:events=cpu-clock;top=5;tooBigThreshold=3000' "$@" > "$out"
grep -A8 'Hottest Methods' "$out"
echo "profile.sh: full output in $out"
