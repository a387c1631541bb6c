#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a file of the device engine calls a function of a higher layer than its own (src/engine/LAYERS).
# Usage: scripts/check_engine_layers.sh [ENGINE_OBJ_DIR]   (run from emulator/; default build/obj/engine)
# A call is an undefined symbol of one engine object that another engine object defines (nm); only the engine's
# own names count (eng_*, emu_engine_*, mlx5emu_*). Calls into the kernel are checked by check_layers.sh.
set -euo pipefail

OBJ_DIR=${1:-build/obj/engine}
SRC_DIR=src/engine
TABLE=$SRC_DIR/LAYERS
NM=${NM:-nm}

declare -A layer
while read -r l f _; do
	[[ -z "$l" || "$l" == \#* ]] && continue
	layer[$f]=$l
done < "$TABLE"

fail=0
err() { echo "check_engine_layers: $*" >&2; fail=1; }

objs=()
for f in "$SRC_DIR"/*.c; do
	b=$(basename "$f")
	[[ -n "${layer[$b]:-}" ]] || err "$b has no line in $TABLE"
	o=$OBJ_DIR/${b%.c}.o
	[[ -f "$o" ]] || { echo "check_engine_layers: $o missing (build first)" >&2; exit 2; }
	objs+=("$o")
done
for f in "${!layer[@]}"; do
	[[ -f "$SRC_DIR/$f" ]] || err "$TABLE lists $f, which does not exist"
done

declare -A def_layer def_file
for o in "${objs[@]}"; do
	b=$(basename "$o" .o).c
	while read -r s; do
		def_layer[$s]=${layer[$b]:-99}
		def_file[$s]=$b
	done < <($NM --defined-only -g "$o" | awk 'NF == 3 && $3 ~ /^(eng_|emu_engine_|mlx5emu_)/ { print $3 }')
done

calls=0
for o in "${objs[@]}"; do
	b=$(basename "$o" .o).c
	l=${layer[$b]:-}
	[[ -n "$l" ]] || continue
	while read -r s; do
		d=${def_layer[$s]:-}
		[[ -n "$d" ]] || continue
		calls=$((calls + 1))
		((d <= l)) || err "$b (layer $l) calls $s, defined in ${def_file[$s]} (layer $d)"
	done < <($NM -u "$o" | awk '$2 ~ /^(eng_|emu_engine_|mlx5emu_)/ { print $2 }')
done

if ((fail)); then
	echo "check_engine_layers: FAILED (layers in $TABLE)" >&2
	exit 1
fi
echo "check_engine_layers: ${#objs[@]} engine objects, $calls calls between them, all downward"
