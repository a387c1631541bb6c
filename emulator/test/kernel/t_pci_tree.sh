#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The emulated PCI functions, and the safety rule behind them: a program under the emulator sees the emulated
# functions in /sys/bus/pci and /sys/devices/pci* and never one of the host's. DPDK probes every function a driver
# claims when it runs without -a (its virtio driver once tried to take over this host's own virtio disk), so a
# host function that shows through is a hazard, not a cosmetic leak.
#
# The host's functions are listed here, outside the emulator; then, under it, every one of them must be invisible
# to each way a program reaches a path (opendir, open, stat, access, readlink, realpath: Python's os module; fopen:
# sed; the same paths written with "//", "/./" and "/../"), the listings must hold exactly the emulated functions,
# and each of those carries what DPDK's PCI scan and mlx5's common driver read (vendor, device, subsystem ids, class,
# numa_node, six BAR lines in resource, the mlx5_core driver link, PCI_SLOT_NAME in uevent). The emulated addresses
# are in domain e0000, which no host has, so they cannot name a host function either.
set -euo pipefail
: "${MLX5EMU:?run from make check}"
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# the host's functions, seen without the emulator (a machine without PCI has none: the checks still run)
ls /sys/bus/pci/devices 2> /dev/null > "$out/host" || true
ls -d /sys/devices/pci* 2> /dev/null | sed 's|.*/||' > "$out/host_roots" || true
echo "     host: $(wc -l < "$out/host") PCI functions, roots: $(tr '\n' ' ' < "$out/host_roots")"
for a in $(cat "$out/host"); do
  case "$a" in e0000:*) bad "host function $a is in the emulated domain"; ;; esac
done

for link in ib eth; do
  "$MLX5EMU" --link "$link" --devices 2 -- python3 - "$out/host" "$out/host_roots" > "$out/py.$link" 2>&1 <<'EOF' ||
import os, sys
host = [l.strip() for l in open(sys.argv[1]) if l.strip()]
roots = [l.strip() for l in open(sys.argv[2]) if l.strip()]
root = os.environ["SYSFS_PATH"]
fails = 0
def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += 0 if cond else 1
want = ["e0000:00:00.0", "e0000:00:01.0"]
for d in ["/sys/bus/pci/devices", "/sys//bus/pci/devices", "/sys/./bus/pci/devices", "/sys/bus/../bus/pci/devices",
          "/sys/kernel/../bus/pci/devices/", "/sys/bus/pci/drivers/mlx5_core"]:
    got = sorted(e for e in os.listdir(d) if ":" in e)
    check(got == want, "listdir %s = %s" % (d, got))
check(sorted(os.listdir("/sys/bus/pci/drivers")) == ["mlx5_core"], "only the mlx5_core driver is bound")
for r in roots:
    try:
        os.listdir("/sys/devices/" + r)
        check(False, "host PCI root /sys/devices/%s is hidden" % r)
    except FileNotFoundError:
        check(True, "host PCI root /sys/devices/%s is hidden" % r)
seen = []
for a in host:
    for p in ["/sys/bus/pci/devices/" + a, "/sys//bus/pci/devices/" + a, "/sys/bus/pci/devices/" + a + "/vendor",
              "/sys/bus/../bus/pci/devices/" + a, "/sys/devices/../bus/pci/devices/" + a + "/vendor"]:
        if os.path.exists(p) or os.access(p, os.F_OK):
            seen.append(p)
        try:
            os.open(p, os.O_RDONLY)
            seen.append(p + " (open)")
        except OSError:
            pass
    for r in roots:
        if os.path.exists("/sys/devices/%s/%s" % (r, a)):
            seen.append("/sys/devices/%s/%s" % (r, a))
check(not seen, "no host function reachable (%d checked): %s" % (len(host), seen[:5]))
check(not os.path.exists("/proc/bus/pci"), "/proc/bus/pci is hidden")
for i, a in enumerate(want):
    d = "/sys/bus/pci/devices/" + a
    real = os.path.realpath(d)
    # Python resolves link by link through the mapped /sys, glibc's realpath(3) through the tree itself
    check(real in ("/sys/devices/pcie0000:00/" + a, root + "/devices/pcie0000:00/" + a) and os.path.isdir(real),
          "%s resolves into the emulated hierarchy (%s)" % (a, real))
    rd = lambda f: open(d + "/" + f).read().strip()
    check(rd("vendor") == "0x15b3" and rd("device") == "0x1017", "%s vendor/device" % a)
    check(rd("subsystem_vendor") == "0x15b3" and rd("subsystem_device") == "0x0007", "%s subsystem ids" % a)
    check(rd("class") == "0x020000" and rd("numa_node") == "0", "%s class, numa_node" % a)
    res = open(d + "/resource").read().splitlines()
    check(len(res) == 13 and int(res[0].split()[2], 16) & 0x200 and all(l.split() == ["0x" + "0" * 16] * 3
          for l in res[1:6]), "%s resource: a memory BAR0, BARs 1-5 empty" % a)
    check(os.path.basename(os.readlink(d + "/driver")) == "mlx5_core", "%s driver link" % a)
    check("PCI_SLOT_NAME=%s" % a in open(d + "/uevent").read().splitlines(), "%s uevent PCI_SLOT_NAME" % a)
    ib = os.path.realpath("/sys/class/infiniband/mlx5_%d/device" % i)
    check(ib == real, "mlx5_%d/device is %s" % (i, a))
sys.exit(1 if fails else 0)
EOF
  { echo "FAIL python checks ($link)"; fail=1; }
  sed "s/^/     [$link] /" "$out/py.$link"
  grep -q '^FAIL' "$out/py.$link" && fail=1
  # fopen (glibc's internal open, which no open() interposer sees): GNU sed reads its input files with fopen
  "$MLX5EMU" --link "$link" -- sed -n 's/^PCI_SLOT_NAME=//p' /sys/bus/pci/devices/e0000:00:00.0/uevent \
    > "$out/sed.$link" 2> "$out/sed.$link.err" || true
  # stdout alone: the launcher's own messages (a make it runs, say) go to stderr
  if [ "$(cat "$out/sed.$link")" = "e0000:00:00.0" ]; then ok "fopen reads the emulated uevent ($link)"; else
    bad "fopen of the emulated uevent ($link): $(head -3 "$out/sed.$link") $(head -3 "$out/sed.$link.err")"; fi
  h=$(head -1 "$out/host")
  if [ -n "$h" ]; then
    if "$MLX5EMU" --link "$link" -- sed -n 1p "/sys/bus/pci/devices/$h/vendor" > "$out/sedh.$link" 2>&1; then
      bad "fopen reached host function $h ($link): $(cat "$out/sedh.$link")"
    else ok "fopen of host function $h fails ($link)"; fi
  fi
done

# lspci, where installed, lists the emulated ConnectX-5s and nothing else
if command -v lspci > /dev/null; then
  "$MLX5EMU" --link eth --devices 2 -- lspci -D -n > "$out/lspci" 2> /dev/null || true
  listed=$(awk '{print $1 " " $3}' "$out/lspci" | tr '\n' ' ')
  if [ "$listed" = "e0000:00:00.0 15b3:1017 e0000:00:01.0 15b3:1017 " ]; then
    ok "lspci lists exactly the emulated functions"
  else bad "lspci under the emulator: $(tr '\n' ';' < "$out/lspci")"; fi
fi
exit $fail
