#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Prepares a fresh Debian 12 machine for mlx5j: Debian packages, a JDK >= 25 (the build's toolchain requirement),
# and the emulator's native library. Idempotent: installs only what is missing. dpdk-dev brings dpdk-testpmd for the
# emulator's testpmd.sh judge; its mlx5 PMD and ring mempool are named because --no-install-recommends skips them.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(libibverbs-dev ibverbs-providers ibverbs-utils librdmacm-dev rdmacm-utils perftest ucx-utils gcc make clang
          libclang-rt-14-dev maven python3-matplotlib tshark python3-pyverbs iproute2
          dpdk-dev librte-net-mlx5-23 librte-mempool-ring23)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  # tshark (the emulator's pcap tests decode with it) asks whether non-root users may capture: answer no, unasked
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Maven's toolchains plugin picks the JDK for the build; this check only makes a missing JDK a clear error.
jdk=""
for j in ${JAVA_HOME:-} /usr/lib/jvm/*; do
  [ -x "$j/bin/javac" ] || continue
  v=$("$j/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  if [ -n "$v" ] && [ "${v%%.*}" -ge 25 ]; then jdk=$j; fi
done
if [ -z "$jdk" ]; then
  echo "setup: no JDK 25 or later found (looked in \$JAVA_HOME and /usr/lib/jvm). Install Temurin 25 and retry." >&2
  exit 1
fi
echo "setup: JDK $jdk"

make -s -C emulator
