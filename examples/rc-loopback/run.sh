#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the example on the emulated ConnectX through the emulator artifact's launcher, with an InfiniBand port and
# with an Ethernet (RoCE) port, on the class path. `mvn package` (or verify) first: it puts the runtime
# dependencies in target/lib and the emulator jar at target/mlx5j-emulator.jar, both from Maven coordinates.
#
#   examples/rc-loopback/run.sh
set -euo pipefail
cd "$(dirname "$0")"

# mlx5j needs JDK 25 or later
find_java() {
  local j v
  for j in ${JAVA_HOME:-} /usr/lib/jvm/*; do
    [ -x "$j/bin/java" ] || continue
    v=$("$j/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    if [ -n "$v" ] && [ "${v%%.*}" -ge 25 ]; then echo "$j/bin/java"; return; fi
  done
  echo "run.sh: no JDK 25 or later (JAVA_HOME, /usr/lib/jvm)" >&2; exit 1
}
JAVA=$(find_java)
app=$(ls target/rc-loopback-*.jar 2>/dev/null | head -1 || true)
if [ -z "$app" ] || [ ! -f target/mlx5j-emulator.jar ] || [ ! -d target/lib ]; then
  echo "run.sh: run 'mvn package' here first" >&2; exit 1
fi
emulator=(-jar target/mlx5j-emulator.jar --fabric "rc-loopback-$$")
trap 'rm -f /dev/shm/rc-loopback-$$*' EXIT

for link in ib eth; do
  # class path: the libraries are plain jars on it
  "$JAVA" "${emulator[@]}" --link "$link" -- \
    "$JAVA" --enable-native-access=ALL-UNNAMED -cp "$app:target/lib/*" io.mlx5j.examples.rcloopback.RcLoopback

  # Module path: pending the module descriptors of io.mlx5j.bindings, io.mlx5j.wqe, io.mlx5j.doorbell and
  # io.mlx5j.direct, and this example's src/main/java/module-info.java:
  #     module io.mlx5j.examples.rcloopback { requires io.mlx5j.direct; }
  # (io.mlx5j.direct requiring io.mlx5j.doorbell and io.mlx5j.verbs' types transitively). Then this runs it:
  # "$JAVA" "${emulator[@]}" --link "$link" -- \
  #   "$JAVA" --enable-native-access=io.mlx5j.bindings,io.mlx5j.wqe,io.mlx5j.doorbell,io.mlx5j.direct \
  #   --module-path "$app:target/lib" --module io.mlx5j.examples.rcloopback/io.mlx5j.examples.rcloopback.RcLoopback
done
