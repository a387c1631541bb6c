#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a file of the emulated kernel calls (or #includes) something of a higher layer than its own.
# Usage: scripts/check_layers.sh [OBJ_DIR [ENGINE_OBJ_DIR]]   (run from emulator/; defaults build/obj/kernel and
# build/obj/engine). The engine sits between layers 1 and 2: the commands call it through its hooks
# (engine_hooks.h), and it may call the kernel's layers 0 and 1 only (emu_objects.h: objects, lock, registry).
# The layer table is src/kernel/LAYERS. Symbols count when they are the project's own (emu_*, cm_*, mlx5emu_*):
# the interposers also define libc names (open, write, mmap, ...), and a lower layer calling libc's write is
# calling libc, which the interposer passes straight through for anything that is not an emulated file.
set -euo pipefail

OBJ_DIR=${1:-build/obj/kernel}
ENGINE_OBJ_DIR=${2:-build/obj/engine}
ENGINE_MAX_LAYER=1
SRC_DIR=src/kernel
TABLE=$SRC_DIR/LAYERS
NM=${NM:-nm}

declare -A layer
while read -r l f _; do
	[[ -z "$l" || "$l" == \#* ]] && continue
	layer[$f]=$l
done < "$TABLE"

fail=0
err() { echo "check_layers: $*" >&2; fail=1; }

# Every source file has a layer; every kernel object comes from a listed source.
for f in "$SRC_DIR"/*.c "$SRC_DIR"/*.h; do
	b=${f#"$SRC_DIR"/}
	[[ -n "${layer[$b]:-}" ]] || err "$b has no line in $TABLE"
done
# The object of every source (not whatever else lies in OBJ_DIR: an object of a deleted source is stale).
objs=()
for f in "$SRC_DIR"/*.c; do
	o=$OBJ_DIR/$(basename "$f" .c).o
	[[ -f "$o" ]] || { echo "check_layers: $o missing (build first)" >&2; exit 2; }
	objs+=("$o")
done

# Which layer defines each project symbol.
declare -A def_layer def_file
for o in "${objs[@]}"; do
	b=$(basename "$o" .o).c
	l=${layer[$b]:-}
	[[ -n "$l" ]] || { err "$o: $b has no line in $TABLE"; continue; }
	while read -r s; do
		def_layer[$s]=$l
		def_file[$s]=$b
	done < <($NM --defined-only -g "$o" | awk 'NF == 3 && $3 ~ /^(emu_|cm_|mlx5emu_)/ { print $3 }')
done

# Calls: every undefined project symbol of an object must be defined at its layer or below.
calls=0
for o in "${objs[@]}"; do
	b=$(basename "$o" .o).c
	l=${layer[$b]:-}
	[[ -n "$l" ]] || continue
	while read -r s; do
		d=${def_layer[$s]:-}
		[[ -n "$d" ]] || continue            # the engine's strong hook, libc, ...: not a kernel layer
		calls=$((calls + 1))
		((d <= l)) || err "$b (layer $l) calls $s, defined in ${def_file[$s]} (layer $d)"
	done < <($NM -u "$o" | awk '$2 ~ /^(emu_|cm_|mlx5emu_)/ { print $2 }')
done

# The engine's calls into the kernel.
shopt -s nullglob
eobjs=("$ENGINE_OBJ_DIR"/*.o)
[[ ${#eobjs[@]} -gt 0 ]] || { echo "check_layers: no engine objects in $ENGINE_OBJ_DIR (build first)" >&2; exit 2; }
for o in "${eobjs[@]}"; do
	while read -r s; do
		d=${def_layer[$s]:-}
		[[ -n "$d" ]] || continue
		calls=$((calls + 1))
		((d <= ENGINE_MAX_LAYER)) || err "engine/$(basename "$o" .o).c calls $s, defined in ${def_file[$s]} (layer $d; the engine may call layers 0-$ENGINE_MAX_LAYER)"
	done < <($NM -u "$o" | awk '$2 ~ /^(emu_|cm_|mlx5emu_)/ { print $2 }')
done

# Includes: a file includes only headers of its layer and below (project headers, in quotes).
incs=0
for f in "$SRC_DIR"/*.c "$SRC_DIR"/*.h; do
	b=${f#"$SRC_DIR"/}
	l=${layer[$b]:-}
	[[ -n "$l" ]] || continue
	while read -r h; do
		if [[ -e "$SRC_DIR/$h" ]]; then k=$h; else k=../$h; fi
		hl=${layer[$k]:-}
		if [[ -z "$hl" ]]; then err "$b includes \"$h\", which has no line in $TABLE"; continue; fi
		incs=$((incs + 1))
		((hl <= l)) || err "$b (layer $l) includes \"$h\" (layer $hl)"
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done

if ((fail)); then
	echo "check_layers: FAILED (layers in $TABLE)" >&2
	exit 1
fi
echo "check_layers: ${#objs[@]} kernel and ${#eobjs[@]} engine objects, $calls calls into kernel files and $incs includes between them, all downward"
