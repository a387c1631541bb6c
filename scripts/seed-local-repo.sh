#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes DEST a private Maven local repository with what SRC (default ~/.m2/repository) holds, except io/mlx5j, so
# a build can resolve its plugins and third-party dependencies without reading or writing SRC's io/mlx5j.
# The artifact files are hard links into SRC (a copy where links are impossible): Maven never rewrites an artifact
# in place. The resolver's bookkeeping files (_remote.repositories, resolver-status.properties, *.lastUpdated,
# maven-metadata-*.xml) are left out, since it rewrites them in place and the writes would reach SRC through the
# links; without _remote.repositories every artifact counts as installed, whatever repositories a build names.
#
#   scripts/seed-local-repo.sh DEST [SRC]
set -euo pipefail
dest=${1:?usage: seed-local-repo.sh DEST [SRC]}
src=${2:-$HOME/.m2/repository}
[ -d "$src" ] || { echo "seed-local-repo: no $src" >&2; exit 1; }
[ ! -e "$dest" ] || { echo "seed-local-repo: $dest exists" >&2; exit 1; }
cp -al "$src" "$dest" 2>/dev/null || { rm -rf "$dest"; cp -a "$src" "$dest"; }
rm -rf "$dest/io/mlx5j"
find "$dest" \( -name _remote.repositories -o -name resolver-status.properties -o -name '*.lastUpdated' \
  -o -name 'maven-metadata-*.xml' -o -name 'maven-metadata-*.xml.*' \) -delete
