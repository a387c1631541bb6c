#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Adds "SPDX-License-Identifier: Apache-2.0" to source files that lack it, in each type's comment form:
#   Java                      // SPDX-License-Identifier: Apache-2.0          (line 1)
#   C sources and headers     /* SPDX-License-Identifier: Apache-2.0 */       (line 1)
#   Makefiles                 # SPDX-License-Identifier: Apache-2.0           (line 1)
#   shell, Python             # SPDX-License-Identifier: Apache-2.0           (after the #! line, and after a
#                                                                              Python coding line if there is one)
# Idempotent: a file that already has the line in its first lines (scripts/check-spdx.sh's rule) is left alone, and
# so is a file of no known kind. File modes (the executable bit) are kept.
#
#   scripts/add-spdx.sh            every tracked source file
#   scripts/add-spdx.sh FILE...    only these
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=check-spdx.sh
. "$here/check-spdx.sh"

add_one() {
  local f=$1 kind line skip=0 tmp
  kind=$(spdx_kind "$f")
  [ -n "$kind" ] || return 1
  spdx_has_line "$f" && return 1
  case "$kind" in
    java) line="// $SPDX_ID" ;;
    c) line="/* $SPDX_ID */" ;;
    make) line="# $SPDX_ID" ;;
    shell|python)
      line="# $SPDX_ID"
      case "$(sed -n 1p "$f")" in '#!'*) skip=1 ;; esac
      # PEP 263: a coding declaration must stay on line 1 or 2, so the license line goes after it
      if [ "$kind" = python ] && [[ "$(sed -n "$((skip + 1))p" "$f")" =~ ^[[:space:]]*#.*coding[:=] ]]; then
        skip=$((skip + 1))
      fi
      ;;
  esac
  tmp=$(mktemp "$f.spdx.XXXXXX")
  {
    [ "$skip" -gt 0 ] && head -n "$skip" "$f"
    printf '%s\n' "$line"
    tail -n +"$((skip + 1))" "$f"
  } > "$tmp"
  # a new file renamed over the old one (a shell running the old one, this script included, keeps reading it), with
  # the old one's mode
  chmod --reference="$f" "$tmp"
  mv -f "$tmp" "$f"
  return 0
}

main() {
  local files=() f added=0
  if [ $# -gt 0 ]; then
    files=("$@")
  else
    cd "$here/.."
    mapfile -t files < <(spdx_files)
  fi
  for f in "${files[@]}"; do
    if add_one "$f"; then
      echo "add-spdx: $f"
      added=$((added + 1))
    fi
  done
  echo "add-spdx: added the line to $added of ${#files[@]} files"
}

main "$@"
