#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A JVM under the launcher: ibv_get_device_list through FFM lists the emulated devices, and each opens.
set -euo pipefail
: "${MLX5EMU:?run from make check}"
here=$(cd "$(dirname "$0")" && pwd)
java=""
for j in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
  [ -n "$j" ] && [ -x "$j/bin/java" ] || continue
  v=$("$j/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  if [ -n "$v" ] && [ "${v%%.*}" -ge 22 ]; then java=$j/bin/java; break; fi
done
[ -n "$java" ] || { echo "FAIL no JDK 22+ (FFM) found in JAVA_HOME or /usr/lib/jvm"; exit 1; }
out=$("$MLX5EMU" --devices 2 -- "$java" --enable-native-access=ALL-UNNAMED "$here/DeviceList.java" 2>&1) || {
  echo "FAIL java exited $?:"; echo "$out"; exit 1; }
echo "$out"
[ "$(printf '%s\n' "$out" | grep -c '^device mlx5_[01] opened$')" -eq 2 ] || { echo "FAIL expected mlx5_0 and mlx5_1"; exit 1; }
echo "ok   JVM (FFM) lists and opens mlx5_0 and mlx5_1"
