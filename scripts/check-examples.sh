#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and runs every example under examples/ the way a consumer outside this checkout would, against nothing from
# the checkout but its deployed artifacts:
#   1. scripts/deploy-local.sh deploys the published artifacts to a temporary file repository;
#   2. examples/ is copied to a temporary directory outside the checkout;
#   3. each example's `mvn verify` runs with a private local repository that starts without io/mlx5j (third-party
#      plugins and libraries come from ~/.m2/repository, scripts/seed-local-repo.sh) and with a settings.xml whose
#      mirror sends every remote request to the file repository, so io.mlx5j can come from there only and nothing
#      is fetched from the network;
#   4. each example's run.sh runs, if it has one; the emulator's cache is private too.
# Afterwards it checks that every io.mlx5j artifact in the private local repository was fetched from the file
# repository. consumer-check runs this in the reactor's verify (-Dmlx5j.examples.skip=true skips it).
#
#   scripts/check-examples.sh [--offline=true|false] [--examples DIR] [--repo DIR]
#       --examples DIR  the examples to copy (default: this checkout's examples/)
#       --repo DIR      an already deployed file repository instead of step 1
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
examples=$root/examples
repo=""
for a in "$@"; do
  case "$a" in
    --offline=*) ;;   # deploying needs Maven online anyway (scripts/deploy-local.sh); the examples fetch nothing
    --examples=*) examples=${a#--examples=} ;;
    --repo=*) repo=${a#--repo=} ;;
    *) echo "check-examples: unknown argument $a" >&2; exit 2 ;;
  esac
done
examples=$(cd "$examples" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mlx5j-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT
case "$work" in "$root"/*) echo "check-examples: $work is inside the checkout" >&2; exit 1 ;; esac

if [ -z "$repo" ]; then
  repo=$work/repo
  "$root/scripts/deploy-local.sh" "$repo" > "$work/deploy.log" 2>&1 \
    || { tail -n 40 "$work/deploy.log" >&2; echo "check-examples: deploy-local failed" >&2; exit 1; }
  tail -n 1 "$work/deploy.log"
fi
repo=$(cd "$repo" && pwd)
version=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$root/pom.xml" | head -1)

cp -a "$examples" "$work/examples"
"$root/scripts/seed-local-repo.sh" "$work/m2"
cat > "$work/settings.xml" <<EOF
<settings>
  <mirrors>
    <mirror>
      <id>mlx5j-deployed</id>
      <mirrorOf>*</mirrorOf>
      <url>file://$repo</url>
    </mirror>
  </mirrors>
</settings>
EOF
export MLX5J_EMULATOR_CACHE=$work/emulator-cache

pass=0
for pom in "$work"/examples/*/pom.xml; do
  ex=$(dirname "$pom")
  name=$(basename "$ex")
  grep -q "<mlx5j.version>$version</mlx5j.version>" "$pom" \
    || { echo "check-examples: $name does not use mlx5j $version" >&2; exit 1; }
  if ! (cd "$ex" && mvn -B -ntp -s "$work/settings.xml" -Dmaven.repo.local="$work/m2" verify) \
       > "$work/$name.log" 2>&1; then
    tail -n 60 "$work/$name.log" >&2
    echo "check-examples: $name: mvn verify failed" >&2
    exit 1
  fi
  grep -E 'Tests run: [0-9]+, Failures: 0, Errors: 0, Skipped: 0$' "$work/$name.log" | tail -n 1 \
    | sed "s/^/check-examples: $name: /"
  if [ -x "$ex/run.sh" ]; then
    "$ex/run.sh" 2>&1 | sed "s/^/check-examples: $name: /"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "check-examples: $name: run.sh failed" >&2; exit 1; }
  fi
  pass=$((pass + 1))
done
[ "$pass" -gt 0 ] || { echo "check-examples: no example under $examples" >&2; exit 1; }

# every io.mlx5j artifact the builds used came through the mirror, i.e. from the deployed repository
bad=$(find "$work/m2/io/mlx5j" -name '*.jar' -o -name '*.pom' | while read -r f; do
  grep -qF "$(basename "$f")>mlx5j-deployed=" "$(dirname "$f")/_remote.repositories" 2>/dev/null || echo "$f"
done)
[ -z "$bad" ] || { echo "check-examples: io.mlx5j artifacts not from the deployed repository: $bad" >&2; exit 1; }
echo "check-examples: $pass passed, 0 failed ($(find "$work/m2/io/mlx5j" -name '*.jar' | wc -l) mlx5j jars, all \
from $repo)"
