#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the emulator, the peer suites (rdma-core's programs, perftest, UCX), the parity tests, `mlx5j validate` and,
# when built, rdma-core's own pyverbs suite against an rdma-core release that scripts/build-rdma-core.sh built into
# build/rdma-core-VERSION/prefix (default 65.0), instead of the system's. Build it with
# `scripts/build-rdma-core.sh --pyverbs` for the pyverbs step.
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
# UCX (Debian's, built against 44) loads libibverbs and libmlx5 itself: it must map the prefix's too
ucx=$(MLX5EMU_FABRIC=$fabric LD_DEBUG=libs timeout 60 emulator/mlx5emu -- ucx_info -d 2>&1 >/dev/null \
  | grep -oE 'calling init: [^ ]*/libmlx5\.so[^ ]*' | sed 's/calling init: //' | sort -u || true)
echo "ucx_info: $ucx"
echo "$ucx" | grep -q "$prefix/lib/libmlx5.so" || { echo "FAIL: UCX does not map the prefix's libmlx5"; fail=1; }
for p in cx4lx cx5 cx6dx cx7; do
  MLX5EMU_FABRIC=$fabric emulator/mlx5emu --profile $p -- ibv_devinfo | grep -E 'fw_ver|vendor_part_id' \
    | tr -s ' \t' ' '
done

step "emulator tests (libmlx5's own data path, the peer programs, UCX)"
make -s -C emulator -j2 >/dev/null
tests="kernel/t_context kernel/t_context_eth kernel/t_mlx5dv kernel/t_cq kernel/t_qp_create kernel/t_qp_state
  kernel/t_srq kernel/t_profile_eth kernel/t_rdmacm engine/t_rc_ops engine/t_rc_ops_eth engine/t_rc_errors
  engine/t_ud_uc_srq engine/t_raw_eth engine/t_raw_eth_l2inline engine/t_mprq_eth engine/t_clock_eth engine/t_direct
  engine/t_inline_max engine/t_rss_eth"
bins=""; for t in $tests; do bins="$bins build/asan/test/$t"; done
scripts="test/engine/pingpong.sh test/engine/perftest_lat.sh test/engine/perftest_bw.sh test/kernel/t_rdmacm_rping.sh"
scripts="$scripts test/engine/ucx.sh" # one line: make runs the list inside a single shell command
make -s -C emulator test TEST_BINS="$bins" TEST_SH="$scripts" || fail=1

step "parity tests on every profile (Maven, tests module)"
# all of them: SrqRecvQueue keeps the SRQ free list as the running libmlx5 does (linked at the completion up to 47, at
# the next post from 48 on), so RecvParityTest's SRQ cases compare the ring under either release
only='io.mlx5j.tests.*Parity*Test,io.mlx5j.tests.StorePathTest,io.mlx5j.tests.OracleTest,io.mlx5j.tests.Raw*Test'
reports=$root/tests/target/surefire-reports
rm -rf "$reports"
mvn -B -o -ntp -q -pl tests -am test -Dmlx5j.emulator.check.skip=true -Dmlx5j.bench.skip=true \
  -Dmlx5emu.fabric="$fabric" -Dsurefire.failIfNoSpecifiedTests=false \
  -Dtest="$only" \
  || fail=1
# one line per execution (profile): tests, failures, errors, skipped, summed over its test classes
for f in "$reports"/TEST-*.xml; do
  [ -e "$f" ] || continue
  # TEST-<class>[-<execution>].xml: the parity-* executions, and the module's default and roce ones
  ex=${f##*/TEST-}; ex=${ex%.xml}; case "$ex" in *-*) ex=${ex#*-} ;; *) ex=default ;; esac
  echo "$ex $(grep -m1 -o '<testsuite [^>]*>' "$f" | grep -oE '(tests|failures|errors|skipped)="[0-9]+"' \
    | tr -dc '0-9 \n' | tr '\n' ' ')"
done | awk '{ T[$1] += $2; E[$1] += $3; S[$1] += $4; F[$1] += $5 }
  END { for (x in T) printf "%s: %d tests, %d failures, %d errors, %d skipped\n", x, T[x], F[x], E[x], S[x] }' \
  | sort

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
step "rdma-core's pyverbs suite"
# Debian's python3-pyverbs is built for 44: say whether (and why not) it loads this release's libibverbs
if err=$(MLX5EMU_FABRIC=$fabric emulator/mlx5emu -- /usr/bin/python3 -c 'import pyverbs.device' 2>&1); then
  echo "Debian's python3-pyverbs loads against $version"
else
  echo "Debian's python3-pyverbs does not load against $version: $(echo "$err" | tail -n 1)"
fi
runner=$root/build/rdma-core-$version/obj/bin/run_tests.py
if [ -x "$runner" ]; then
  for link in ib eth; do
    log=$root/build/rdma-core-$version/pyverbs-$link.log
    work=$(mktemp -d)
    (cd "$work" && MLX5EMU_FABRIC=$fabric-py-$link MLX5EMU_STRICT=1 \
      timeout -k 5 600 "$root/emulator/mlx5emu" --link "$link" -- "$runner" -v) > "$log" 2>&1 || true
    rm -rf "$work"
    # Errors this emulator cannot avoid, each named with its cause; any other error or failure fails the step:
    # - test_dc_atomic posts max_dc_rd_atom WRs, which libmlx5 reads from DevX QUERY_HCA_CAP (log_max_ra_req_dc);
    #   the emulator refuses DevX, so the suite posts 0 and indexes an empty completion list;
    # - test_roce_bth_match_rx/_tx ask `devlink dev param show` (devlink netlink), which the emulator does not answer;
    # - test_rdmacm_async_resolve_addrinfo (IB) resolves an IB service through rdma_resolve_addrinfo, a ucma query
    #   of newer kernels the emulated rdma_cm does not serve.
    # Errors from `rdma link show` (RDMA netlink) are counted apart too: the emulator answers it since it serves
    # NETLINK_RDMA, so any such error now means a regression there and is reported by name.
    known="test_dc_atomic test_roce_bth_match_rx test_roce_bth_match_tx test_rdmacm_async_resolve_addrinfo"
    verdict=$(awk -v known="$known" '
      BEGIN { n = split(known, k, " "); for (i = 1; i <= n; i++) isknown[k[i]] = 1 }
      function flush() {
        if (kind != "") {
          if (netlink) { nl++; if (firstnl == "") firstnl = name }
          else if (name in isknown) { kn++; knames = knames " " name }
          else { other++; if (first == "") first = name }
        }
        kind = ""
      }
      /^(ERROR|FAIL): / { flush(); kind = $1; name = $2; netlink = 0 }
      kind != "" && index($0, "Command '"'"'['"'"'rdma'"'"', '"'"'link'"'"', '"'"'show'"'"'") { netlink = 1 }
      /^Ran [0-9]+ tests/ { flush(); ran = $2 }
      /^(OK|FAILED)/ { if (match($0, /skipped=[0-9]+/)) skip = substr($0, RSTART + 8, RLENGTH - 8) + 0 }
      END { flush()
            printf "%d run, %d ok, %d skipped, %d known errors (%s), ", ran, ran - skip - nl - kn - other, skip, kn,
              substr(knames, 2)
            printf "%d errors from rdma link show%s, %d other errors and failures%s", nl,
              nl ? " (first: " firstnl ")" : "", other, other ? " (first: " first ")" : "" }' "$log")
    echo "pyverbs $version $link: $verdict; log $log"
    case "$verdict" in *" 0 errors from rdma link show, 0 other errors"*) ;; *) fail=1 ;; esac
    grep -q "^Ran [1-9]" "$log" || { echo "FAIL pyverbs $link: the suite did not run"; fail=1; }
  done
else
  echo "SKIP pyverbs $version: not built (scripts/build-rdma-core.sh --pyverbs $version)"
fi

[ "$fail" = 0 ] && echo "check-rdma-core: rdma-core $version PASS" || echo "check-rdma-core: rdma-core $version FAIL"
exit "$fail"
