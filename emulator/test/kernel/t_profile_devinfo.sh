#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `mlx5emu --profile P` as the unmodified rdma-core tools see it: ibv_devinfo -v prints the profile's part ID and
# firmware (from QUERY_DEVICE), ibv_devices lists the device, the sysfs tree carries the same hca_type and
# fw_ver and binds the PCI function to mlx5_core; an unknown profile is refused with the list of known ones.
set -euo pipefail
: "${MLX5EMU:?run from make check}"
fail=0
expect() { # expect <description> <pattern> <file>
  if grep -qE -- "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: /$2/ not in output:"; sed 's/^/     /' "$3" | head -20; fail=1; fi
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for spec in cx4lx:4117:14.32.1010 cx5:4119:16.35.2000 cx6dx:4125:22.35.2000 cx7:4129:28.35.2000; do
  IFS=: read -r p part fw <<< "$spec"
  "$MLX5EMU" --profile "$p" --link eth -- ibv_devinfo -v > "$out/$p" 2>&1
  expect "$p: vendor_part_id" "vendor_part_id:[[:space:]]+$part\$" "$out/$p"
  expect "$p: fw_ver" "fw_ver:[[:space:]]+${fw//./\\.}\$" "$out/$p"
  MLX5EMU_PROFILE=$p "$MLX5EMU" -- bash -c 'cat "$SYSFS_PATH/class/infiniband/mlx5_0/hca_type" \
    "$SYSFS_PATH/class/infiniband/mlx5_0/fw_ver"; basename "$(readlink "$SYSFS_PATH/class/infiniband/mlx5_0/device/driver")"' \
    > "$out/$p.sysfs" 2>&1
  expect "$p: sysfs hca_type" "^MT$part\$" "$out/$p.sysfs"
  expect "$p: sysfs fw_ver" "^${fw//./\\.}\$" "$out/$p.sysfs"
  expect "$p: driver link" "^mlx5_core\$" "$out/$p.sysfs"
done
if "$MLX5EMU" --profile cx3 -- true > "$out/bad" 2>&1; then echo "FAIL --profile cx3 was accepted"; fail=1; fi
expect "unknown profile refused" "--profile must be cx4lx, cx5, cx6dx or cx7, not 'cx3'" "$out/bad"
exit $fail
