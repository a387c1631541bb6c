#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds an upstream rdma-core release (libibverbs, libmlx5 and the other providers, librdmacm) from its release
# tarball into a local prefix, so that the emulator, the tests and `mlx5j validate` can run against the libraries
# users of newer distributions have, not only Debian 12's rdma-core 44.
#
#   scripts/build-rdma-core.sh [--pyverbs] [VERSION]   VERSION defaults to 65.0, the newest release this was run with
#   scripts/build-rdma-core.sh --env [VERSION]         prints LD_LIBRARY_PATH / IBV_CONFIG_DIR lines for `eval`
#
# --pyverbs also builds the release's Python bindings and test suite (cython3 and python3-dev, for Debian's
# /usr/bin/python3; 5.7 more minutes on the 2-core build machine), which scripts/check-rdma-core.sh then runs:
# Debian's python3-pyverbs is built for release 44 and cannot load another libibverbs (it links the private symbol
# version IBVERBS_PRIVATE_34).
#
# The tarball is Debian's copy of the upstream release (identical to the GitHub release's tag archive):
# http://deb.debian.org/debian/pool/main/r/rdma-core/rdma-core_VERSION.orig.tar.gz. RDMA_CORE_TARBALL names a
# local copy instead. Its SHA-256 must match the pin below (65.0) or, for another version, the one Debian's sid
# Sources index lists; the build refuses a tarball it cannot check.
# Result: build/rdma-core-VERSION/prefix (not tracked). The prefix's libibverbs looks for providers in
# prefix/lib/libibverbs and for their drivers in prefix/etc/libibverbs.d, both compiled in, so LD_LIBRARY_PATH
# alone makes a program (and the emulator's LD_PRELOAD shim under it) load libibverbs and libmlx5 VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

env_only=0
pyverbs=0
if [ "${1:-}" = "--env" ]; then env_only=1; shift; fi
if [ "${1:-}" = "--pyverbs" ]; then pyverbs=1; shift; fi
version=${1:-65.0}
case "$version" in
  *.*) ;;
  *) version=$version.0 ;;
esac
base=$root/build/rdma-core-$version
prefix=$base/prefix
if [ "$env_only" = 1 ]; then
  [ -f "$prefix/lib/libmlx5.so.1" ] || { echo "build-rdma-core: $prefix not built; run without --env" >&2; exit 1; }
  echo "export LD_LIBRARY_PATH=$prefix/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  exit 0
fi

# the SHA-256 of Debian's rdma-core_65.0.orig.tar.gz, as the sid Sources index lists it (checked 2026-12-06)
declare -A PINNED=([65.0]=f6ba3d8b2c4aa334c5c883c1ad0772de339011123cff4fb1db32ae7a443fb7ca)

PACKAGES=(cmake ninja-build pkg-config gcc libnl-3-dev libnl-route-3-dev libudev-dev curl xz-utils)
[ "$pyverbs" = 1 ] && PACKAGES+=(cython3 python3-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-rdma-core: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$base"
tarball=${RDMA_CORE_TARBALL:-$base/rdma-core_$version.orig.tar.gz}
if [ ! -f "$tarball" ]; then
  echo "build-rdma-core: downloading rdma-core $version"
  curl -fsS -o "$tarball.part" "http://deb.debian.org/debian/pool/main/r/rdma-core/rdma-core_$version.orig.tar.gz"
  mv "$tarball.part" "$tarball"
fi
want=${PINNED[$version]:-}
if [ -z "$want" ]; then
  # not pinned: the checksum Debian's unstable archive publishes for it (absent once sid moved past that release)
  want=$(curl -fsS http://deb.debian.org/debian/dists/sid/main/source/Sources.xz | xz -dc \
    | awk -v f="rdma-core_$version.orig.tar.gz" '/^Checksums-Sha256:/ { c = 1; next } /^[^ ]/ { c = 0 }
        c && $3 == f { print $1; exit }')
fi
[ -n "$want" ] || { echo "build-rdma-core: no SHA-256 known for rdma-core $version (pin it here)" >&2; exit 1; }
got=$(sha256sum "$tarball" | cut -d' ' -f1)
if [ "$got" != "$want" ]; then
  echo "build-rdma-core: $tarball has SHA-256 $got, expected $want" >&2
  exit 1
fi
echo "build-rdma-core: rdma-core $version, SHA-256 $got verified"

src=$base/src
rm -rf "$src" && mkdir -p "$src"
tar -xzf "$tarball" -C "$src" --strip-components=1
# no man pages (pandoc), no static libraries: what the emulator and mlx5j load, and no more; Python bindings only
# on request, for the system's interpreter (the one cython3 is installed for), installed inside the prefix
py=(-DNO_PYVERBS=1)
if [ "$pyverbs" = 1 ]; then
  py=(-DNO_PYVERBS=0 -DPYTHON_EXECUTABLE=/usr/bin/python3 -DCMAKE_INSTALL_PYTHON_ARCH_LIB="$prefix/python")
fi
cmake -S "$src" -B "$base/obj" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_INSTALL_LIBDIR=lib "${py[@]}" -DNO_MAN_PAGES=1 -DENABLE_STATIC=0 -DENABLE_RESOLVE_NEIGH=1 \
  -DCMAKE_INSTALL_RUNDIR="$base/run" >"$base/cmake.log"
nice -n 10 ninja -C "$base/obj" -j "${JOBS:-2}" install >"$base/ninja.log"
for lib in libibverbs.so.1 libmlx5.so.1 librdmacm.so.1; do
  [ -e "$prefix/lib/$lib" ] || { echo "build-rdma-core: $prefix/lib/$lib missing after the build" >&2; exit 1; }
done
# the suite's runner in the build tree puts the build tree's bindings on PYTHONPATH
if [ "$pyverbs" = 1 ] && [ ! -x "$base/obj/bin/run_tests.py" ]; then
  echo "build-rdma-core: pyverbs requested but not built (see $base/cmake.log: cython found?)" >&2
  exit 1
fi
# the provider module libibverbs dlopens, named after the provider ABI (rdmav65 in release 65)
compgen -G "$prefix/lib/libibverbs/libmlx5-rdmav*.so" >/dev/null \
  || { echo "build-rdma-core: no mlx5 provider module in $prefix/lib/libibverbs" >&2; exit 1; }
echo "build-rdma-core: installed into $prefix"
echo "run against it: export LD_LIBRARY_PATH=$prefix/lib"
