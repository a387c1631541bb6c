# SPDX-License-Identifier: Apache-2.0
# rdma-core v44's own test suite (pyverbs; Debian's python3-pyverbs ships it in /usr/share/doc/rdma-core/tests),
# unmodified, over the emulated device in InfiniBand and RoCE mode, strict validator on. Every test's outcome (ok,
# fail, error, or skip with its reason) must equal pyverbs.expected: a feature that stops working, a test that
# starts skipping for a different reason, or one that newly passes all show up as a difference to look at.
# After a deliberate change: bash pyverbs.sh --write, review the diff of pyverbs.expected, commit it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
E=${MLX5EMU:-$here/../../mlx5emu}
src=/usr/share/doc/rdma-core/tests
py=/usr/bin/python3 # the interpreter python3-pyverbs is installed for (not a pyenv/venv one)
if [ ! -f "$src/run_tests.py" ]; then
	echo "pyverbs.sh: $src/run_tests.py missing: install python3-pyverbs (scripts/setup.sh does)" >&2
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"; rm -f /dev/shm/pyverbs-$$-*' EXIT
cp -r "$src" "$work/tests"
gunzip -r -q "$work/tests"
logs=()
for link in ib eth; do
	start=$(date +%s)
	# run_tests.py exits 1 when any test errs; the comparison below is the verdict. About 5 s per mode on an idle
	# machine, 2 minutes at load 20; two modes must fit make's 300 s per test.
	(cd "$work" && MLX5EMU_FABRIC=pyverbs-$$-$link MLX5EMU_STRICT=1 PYTHONPATH="$work" \
		timeout -k 5 140 "$E" --link "$link" -- "$py" tests/run_tests.py -v) > "$work/$link.log" 2>&1 || true
	echo "pyverbs.sh: $link suite took $(($(date +%s) - start)) s"
	tail -n 3 "$work/$link.log"
	logs+=("$link=$work/$link.log")
done
if [ "${1:-}" = --write ]; then
	exec "$py" "$here/pyverbs_check.py" --write "$here/pyverbs.expected" "${logs[@]}"
fi
if ! "$py" "$here/pyverbs_check.py" "$here/pyverbs.expected" "${logs[@]}"; then
	for link in ib eth; do
		echo "---- $link: errors and failures"
		sed -n '/^=\{70\}$/,$p' "$work/$link.log" | head -n 150
	done
	exit 1
fi
