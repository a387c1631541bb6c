#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets the project version everywhere it is written (docs/releasing.md): the parent POM's own version, the
# <parent> version of every module POM, and <mlx5j.version> of every example; then lists what it changed. The BOM
# and the modules' sibling dependencies say ${project.version}, the emulator jar reads its version from the build.
#
#   scripts/set-version.sh NEW_VERSION          e.g. 0.2.1-SNAPSHOT after a release, 0.3.0 for the next one
set -euo pipefail
new=${1:?usage: set-version.sh NEW_VERSION}
[[ "$new" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-SNAPSHOT)?$ ]] || { echo "set-version: '$new' is not N.N.N[-SNAPSHOT]" >&2; exit 2; }
cd "$(dirname "$0")/.."
old=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1)
[ -n "$old" ] || { echo "set-version: no version in pom.xml" >&2; exit 1; }
[ "$old" != "$new" ] || { echo "set-version: already $new"; exit 0; }
esc=${old//./\\.}

# the parent's own version: the first two-space-indented <version> of pom.xml
sed -i "0,/^  <version>$esc<\/version>$/s//  <version>$new<\/version>/" pom.xml
changed=(pom.xml)
while IFS= read -r pom; do
  if grep -q "<artifactId>mlx5j-parent</artifactId>" "$pom"; then
    sed -i "/<parent>/,/<\/parent>/s/<version>$esc<\/version>/<version>$new<\/version>/" "$pom"
    changed+=("$pom")
  fi
done < <(git ls-files '*/pom.xml' | grep -v '^examples/')
for pom in $(git ls-files 'examples/*/pom.xml'); do
  sed -i "s/<mlx5j.version>$esc<\/mlx5j.version>/<mlx5j.version>$new<\/mlx5j.version>/" "$pom"
  changed+=("$pom")
done
left=$(git grep -n -F "$old" -- '*pom.xml' || true)
echo "set-version: $old -> $new in ${#changed[@]} POMs"
if [ -n "$left" ]; then
  echo "set-version: $old is still written here (check each):" >&2
  echo "$left" >&2
fi
