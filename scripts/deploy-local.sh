#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Deploys the published artifacts (mlx5j-parent, -bom, -bindings, -wqe, -doorbell, -direct, -testkit, -emulator) into a file
# repository DIR with `mvn deploy`, as a release deploys them to Maven Central (docs/releasing.md), then checks that
# DIR holds every file a consumer and Central expect. The artifacts come from this reactor and DIR gets only
# io/mlx5j. The local repository is not touched: install is skipped (the deploy phase comes after it), and the build
# runs on a private copy (scripts/seed-local-repo.sh), since a deploy also caches the target's metadata in the local
# repository's io/mlx5j; the script checks that ~/.m2/repository/io/mlx5j is as it was. Deploying needs Maven
# online (the deploy plugin refuses offline mode, even for a file: URL); what the build has fetched before is in
# the copy, so nothing more is fetched.
#
#   scripts/deploy-local.sh DIR [MAVEN ARGS...]
#       e.g. scripts/deploy-local.sh /tmp/mlx5j-repo -o                      (offline)
#            scripts/deploy-local.sh /tmp/mlx5j-repo -Prelease -Dgpg.keyname=KEY   (signed, docs/releasing.md)
# Tests are skipped (-DskipTests; `mvn verify` runs them); add -DskipTests=false to run them too.
# --offline=true|false is accepted (and ignored, see above) for a caller that passes Maven's setting through.
set -euo pipefail
dir=${1:?usage: deploy-local.sh DIR [MAVEN ARGS...]}
shift
mvn_args=()
repo_local=$HOME/.m2/repository
for a in "$@"; do
  case "$a" in
    --offline=*|-o|--offline) ;;
    -Dmaven.repo.local=*) repo_local=${a#-Dmaven.repo.local=} ;;
    *) mvn_args+=("$a") ;;
  esac
done
local_state() { { find "$repo_local/io/mlx5j" -printf '%P %s %T@\n' 2>/dev/null || true; } | sort; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cd "$(dirname "$0")/.."
version=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1)
published=(mlx5j-bom mlx5j-bindings mlx5j-wqe mlx5j-doorbell mlx5j-direct mlx5j-testkit mlx5j-emulator)
pl=$(printf ':%s,' "${published[@]}")

echo "deploy-local: mvn deploy of ${published[*]} $version (and mlx5j-parent) to $dir"
before=$(local_state)
private=$(mktemp -d "${TMPDIR:-/tmp}/mlx5j-deploy-m2.XXXXXX")
trap 'rm -rf "$private"' EXIT
rmdir "$private" && scripts/seed-local-repo.sh "$private" "$repo_local"
mvn -B -ntp -DskipTests "${mvn_args[@]}" -Dmaven.repo.local="$private" -Dmaven.install.skip=true -pl "${pl%,}" -am \
  -DaltDeploymentRepository="mlx5j-deploy-local::file://$dir" deploy
if [ "$(local_state)" != "$before" ]; then
  echo "deploy-local: $repo_local/io/mlx5j changed during the deploy" >&2
  exit 1
fi

# what each artifact must carry: a POM, and per packaging its jars (Central wants sources and Javadoc beside a jar)
base="$dir/io/mlx5j"
missing=0
expect() {
  local f="$base/$1/$version/$1-$version$2"
  for g in "$f" "$f.sha1" "$f.md5"; do
    if [ ! -s "$g" ]; then echo "deploy-local: missing $g" >&2; missing=$((missing + 1)); fi
  done
}
for a in mlx5j-parent mlx5j-bom; do expect "$a" .pom; done
for a in mlx5j-bindings mlx5j-wqe mlx5j-doorbell mlx5j-direct mlx5j-testkit; do
  expect "$a" .pom; expect "$a" .jar; expect "$a" -sources.jar; expect "$a" -javadoc.jar
done
expect mlx5j-emulator .pom; expect mlx5j-emulator -linux-x86_64.jar; expect mlx5j-emulator -sources.jar
# only published artifacts: nothing else under io/mlx5j
extra=$(cd "$base" && ls | grep -vxE 'mlx5j-(parent|bom|bindings|wqe|doorbell|direct|testkit|emulator)' || true)
if [ -n "$extra" ]; then echo "deploy-local: unpublished artifacts deployed: $extra" >&2; missing=$((missing + 1)); fi
if [ "$missing" -gt 0 ]; then exit 1; fi
echo "deploy-local: $dir/io/mlx5j holds $(cd "$base" && ls | tr '\n' ' ')at $version"
