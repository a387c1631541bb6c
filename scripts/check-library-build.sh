#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Proves that the Java library modules (mlx5j-bindings, -wqe, -doorbell, -direct and the BOM) build and package
# with no native tool: gcc, cc, clang, make, ld and as are replaced on PATH by stand-ins that record any call and
# fail, then the libraries are packaged without tests, once with -DskipTests and once with -Dmaven.test.skip=true.
# Only the emulator module and the tests that run on the emulated device (or compile C probes) need the native
# toolchain; a consumer never does.
#
#   scripts/check-library-build.sh [--offline=true|false] [MAVEN ARGS...]     (-o also works for offline)
set -euo pipefail
mvn_args=()
for a in "$@"; do
  case "$a" in
    --offline=true) mvn_args+=(-o) ;;
    --offline=false) ;;
    *) mvn_args+=("$a") ;;
  esac
done
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/mlx5j-library-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
for tool in gcc cc c99 c11 clang clang-14 g++ c++ cpp make gmake ld as; do
  cat > "$work/bin/$tool" <<EOF
#!/bin/sh
echo "$tool \$*" >> "$work/calls.log"
echo "check-library-build: $tool called during a library build: \$*" >&2
exit 127
EOF
  chmod +x "$work/bin/$tool"
done

for skip in -DskipTests -Dmaven.test.skip=true; do
  : > "$work/calls.log"
  if ! PATH="$work/bin:$PATH" mvn -B -ntp -q "${mvn_args[@]}" -pl :mlx5j-bom,:mlx5j-direct -am package "$skip" \
       -Dmaven.javadoc.skip=true > "$work/build.log" 2>&1; then
    tail -n 40 "$work/build.log" >&2
    echo "check-library-build: the library build failed ($skip)" >&2
    exit 1
  fi
  if [ -s "$work/calls.log" ]; then
    echo "check-library-build: native tools were called ($skip):" >&2
    cat "$work/calls.log" >&2
    exit 1
  fi
  for a in bindings:mlx5dv-bindings wqe:wqe-builder doorbell:doorbell direct:direct; do
    jar="${a#*:}/target/mlx5j-${a%%:*}-$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1).jar"
    [ -f "$jar" ] || { echo "check-library-build: no $jar after the build ($skip)" >&2; exit 1; }
  done
  echo "check-library-build: ok: library jars built with no native tool ($skip)"
done
