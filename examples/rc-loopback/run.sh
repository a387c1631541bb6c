#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the example on the emulated ConnectX through the emulator artifact's launcher, with an InfiniBand port and
# with an Ethernet (RoCE) port, on the class path and on the module path. `mvn package` (or verify) first: it puts
# the runtime dependencies in target/lib and the emulator jar at target/mlx5j-emulator.jar, both from Maven coordinates.
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

  # module path: the example and the libraries are named modules (src/main/java/module-info.java requires
  # io.mlx5j.direct); native access for exactly the modules that make restricted calls (deny: any other fails), and jdk.internal.misc exported
  # to io.mlx5j.wqe, the module whose io.mlx5j.memory stores by address through Unsafe
  "$JAVA" "${emulator[@]}" --link "$link" -- \
    "$JAVA" --enable-native-access=io.mlx5j.bindings,io.mlx5j.wqe,io.mlx5j.direct --illegal-native-access=deny \
    --add-exports java.base/jdk.internal.misc=io.mlx5j.wqe \
    --module-path "$app:target/lib" --module io.mlx5j.examples.rcloopback/io.mlx5j.examples.rcloopback.RcLoopback
done
