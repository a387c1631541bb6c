#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails, naming each file, when a tracked source file (Java, C and headers, shell, Python, Makefiles) lacks a comment
# line holding only "SPDX-License-Identifier: Apache-2.0" in its first SPDX_LINES lines. scripts/add-spdx.sh adds
# that line in each file type's comment form. The parent POM runs this in its validate phase when
# -Dmlx5j.spdx.skip=false (the default skips it until every file has the line).
#
#   scripts/check-spdx.sh            check every tracked source file
#   scripts/check-spdx.sh FILE...    check only these (paths relative to the repository root or absolute)
#
# Sourced (as add-spdx.sh does), it only defines spdx_kind, spdx_has_line and spdx_files.
set -euo pipefail

SPDX_ID="SPDX-License-Identifier: Apache-2.0"
# A shebang and a Python coding line may come first; five lines leave room for both without accepting a mention in
# a file's prose further down.
SPDX_LINES=5

# The kind of a file, by name and then by its #! line: java, c, shell, python, make; nothing for other files.
spdx_kind() {
  local f=$1 first
  case "${f##*/}" in
    *.java) echo java; return ;;
    *.c|*.h) echo c; return ;;
    *.sh|*.bash) echo shell; return ;;
    *.py) echo python; return ;;
    Makefile|GNUmakefile|makefile|*.mk) echo make; return ;;
  esac
  [ -f "$f" ] || return 0
  IFS= read -r first < "$f" || true
  case "$first" in
    '#!'*python*) echo python ;;
    '#!'*/sh|'#!'*/sh' '*|'#!'*bash*|'#!'*/dash*|'#!'*/ksh*|'#!'*/zsh*) echo shell ;;
  esac
}

# The line is a comment of its own (//, /* */ or #) holding only the identifier; prose that mentions it is not.
spdx_has_line() {
  head -n "$SPDX_LINES" "$1" \
    | grep -qE '^[[:space:]]*(//|/\*|#)[[:space:]]*SPDX-License-Identifier: Apache-2\.0[[:space:]]*(\*/)?[[:space:]]*$'
}

# Tracked files (as they are in the work tree) that are sources of one of the kinds above, one per line.
spdx_files() {
  local f
  while IFS= read -r -d '' f; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    [ -n "$(spdx_kind "$f")" ] && printf '%s\n' "$f"
  done < <(git ls-files -z)
  return 0
}

spdx_check_main() {
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  local files=() f missing=0 checked=0
  if [ $# -gt 0 ]; then
    files=("$@")
  else
    mapfile -t files < <(spdx_files)
  fi
  for f in "${files[@]}"; do
    if [ -z "$(spdx_kind "$f")" ]; then
      continue
    fi
    checked=$((checked + 1))
    if ! spdx_has_line "$f"; then
      echo "check-spdx: $f: no '$SPDX_ID' in its first $SPDX_LINES lines" >&2
      missing=$((missing + 1))
    fi
  done
  if [ "$missing" -gt 0 ]; then
    echo "check-spdx: $missing of $checked source files lack the license line; scripts/add-spdx.sh adds it" >&2
    return 1
  fi
  echo "check-spdx: $checked source files carry '$SPDX_ID'"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  spdx_check_main "$@"
fi
