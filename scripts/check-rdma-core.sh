#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the emulator, the peer suites, the parity tests and `mlx5j validate` against an rdma-core release that
# scripts/build-rdma-core.sh built into build/rdma-core-VERSION/prefix (default 65.0), instead of the system's.
#
#   scripts/check-rdma-core.sh [VERSION]
#
# Not part of `mvn verify` (CI): building rdma-core alone takes longer than the rest of CI on a 2-core machine
# (docs/hardware.md, "rdma-core releases"). Every step prints which libibverbs and libmlx5 the process mapped, so a
# run that silently fell back to the system's release shows.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
version=${1:-65.0}
case "$version" in *.*) ;; *) version=$version.0 ;; esac
prefix=$root/build/rdma-core-$version/prefix
[ -e "$prefix/lib/libmlx5.so.1" ] \
  || { echo "check-rdma-core: run scripts/build-rdma-core.sh $version first" >&2; exit 1; }
# the prefix's libibverbs finds its providers and their .driver files in the prefix (paths compiled in); the
# prefix's programs come first because Debian's ibv_devinfo links libibverbs' private ABI of release 44
export LD_LIBRARY_PATH=$prefix/lib PATH=$prefix/bin:$PATH
fabric=check-rdma-core-$$
fail=0
step() { echo "== $*"; }

step "libraries a program maps under the emulator"
# the dynamic loader names every library it initialises with its full path
maps=$(MLX5EMU_FABRIC=$fabric LD_DEBUG=libs emulator/mlx5emu -- ibv_devinfo 2>&1 >/dev/null \
  | grep -oE 'calling init: [^ ]*/lib(ibverbs\.so|mlx5-rdmav)[^ ]*' | sed 's/calling init: //' | sort -u || true)
echo "$maps"
echo "$maps" | grep -q "$prefix/lib/libibverbs.so.1" || { echo "FAIL: not the prefix's libibverbs"; fail=1; }
echo "$maps" | grep -q "$prefix/lib/libibverbs/libmlx5-rdmav" || { echo "FAIL: not the prefix's libmlx5"; fail=1; }
for p in cx4lx cx5 cx6dx cx7; do
  MLX5EMU_FABRIC=$fabric emulator/mlx5emu --profile $p -- ibv_devinfo | grep -E 'fw_ver|vendor_part_id' \
    | tr -s ' \t' ' '
done

step "emulator tests (libmlx5's own data path, the peer programs)"
make -s -C emulator -j2 >/dev/null
tests="kernel/t_context kernel/t_context_eth kernel/t_mlx5dv kernel/t_cq kernel/t_qp_create kernel/t_qp_state
  kernel/t_srq kernel/t_profile_eth kernel/t_rdmacm engine/t_rc_ops engine/t_rc_ops_eth engine/t_rc_errors
  engine/t_ud_uc_srq engine/t_raw_eth engine/t_raw_eth_l2inline engine/t_mprq_eth engine/t_clock_eth engine/t_direct
  engine/t_inline_max engine/t_rss_eth"
bins=""; for t in $tests; do bins="$bins build/asan/test/$t"; done
scripts="test/engine/pingpong.sh test/engine/perftest_lat.sh test/engine/perftest_bw.sh test/kernel/t_rdmacm_rping.sh"
make -s -C emulator test TEST_BINS="$bins" TEST_SH="$scripts" || fail=1

step "parity tests on every profile (Maven, tests module)"
# libmlx5 65 (not 44; the releases between were not tried) links freed SRQ WQEs into the free list at the next post,
# not at the completion, so the SRQ ring compared after each completion differs by design (docs/hardware.md)
only='io.mlx5j.tests.*Parity*Test,io.mlx5j.tests.StorePathTest,io.mlx5j.tests.OracleTest,io.mlx5j.tests.Raw*Test'
if [ "${version%%.*}" -gt 44 ]; then
  only="$only,!io.mlx5j.tests.RecvParityTest#sharedReceiveQueueWqesFreeListAndDoorbellRecord"
fi
mvn -B -o -ntp -q -pl tests -am test -Dmlx5j.emulator.check.skip=true -Dmlx5j.bench.skip=true \
  -Dmlx5emu.fabric="$fabric" -Dsurefire.failIfNoSpecifiedTests=false \
  -Dtest="$only" \
  || fail=1

step "mlx5j validate on every profile"
# the jars ./mlx5j runs, packaged from this checkout (a jar left from an older build would test older code)
mvn -B -o -ntp -q -pl tool -am package -DskipTests -Dmlx5j.emulator.check.skip=true -Dmlx5j.bench.skip=true
for p in cx4lx cx5 cx6dx cx7; do
  out=$root/build/rdma-core-$version/validate-$p.json
  if MLX5EMU_PROFILE=$p MLX5EMU_FABRIC=$fabric ./mlx5j validate --json "$out" > "${out%.json}.txt" 2>&1; then
    echo "PASS validate $p: $(grep -E 'rdma-core release' "${out%.json}.txt" | tr -s ' ')"
  else
    echo "FAIL validate $p:"; cat "${out%.json}.txt"; fail=1
  fi
done
[ "$fail" = 0 ] && echo "check-rdma-core: rdma-core $version PASS" || echo "check-rdma-core: rdma-core $version FAIL"
exit "$fail"
