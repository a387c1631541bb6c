#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the packaged emulator jar as a consumer gets it (the emulator module's verify phase runs it):
#   its entries; java -jar ... --version; eight first launches in parallel share one unpacked directory and leave
#   no temporary one; -- ibv_devinfo sees mlx5_0; port DEV PORT down|up runs the unpacked control program (ibv_devinfo
#   sees the port go down and come back); an ib_write_lat server and client, each under its own java -jar,
#   complete a loopback run; --env DIR writes the tree, the library copy and the KEY=VALUE lines surefire needs.
# Everything runs in a private cache (MLX5J_EMULATOR_CACHE) and on a private fabric, removed at the end.
#
#   emulator/scripts/check_jar.sh target/mlx5j-emulator-VERSION-linux-x86_64.jar
set -euo pipefail
jar=$(cd "$(dirname "${1:?usage: check_jar.sh JAR}")" && pwd)/$(basename "$1")
[ -f "$jar" ] || { echo "check_jar: no $jar" >&2; exit 1; }

# a JDK (java and jar) of version 17 or later: the launcher's own floor
find_jdk() {
  local j v
  for j in ${JAVA_HOME:-} /usr/lib/jvm/*; do
    [ -x "$j/bin/java" ] && [ -x "$j/bin/jar" ] || continue
    v=$("$j/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    if [ -n "$v" ] && [ "${v%%.*}" -ge 17 ]; then echo "$j"; return; fi
  done
  echo "check_jar: no JDK 17 or later" >&2; exit 1
}
jdk=$(find_jdk)
JAVA=$jdk/bin/java
# java -jar JAR ARGS. Without hsperfdata: a JVM whose pid matches a stale, locked /tmp/hsperfdata_USER/PID file
# prints a warning on stdout, which would land in what --where and --env print.
launch() { "$JAVA" -XX:-UsePerfData -jar "$jar" "$@"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/mlx5j-check-jar.XXXXXX")
fabric="mlx5j-check-jar-$$"
cleanup() { rm -rf "$work"; rm -f /dev/shm/"$fabric"*; }
trap cleanup EXIT
export MLX5J_EMULATOR_CACHE="$work/cache"
pass=0
ok() { pass=$((pass + 1)); echo "check_jar: ok   $*"; }
fail() { echo "check_jar: FAIL $*" >&2; exit 1; }

# 1. entries
entries=$("$jdk/bin/jar" tf "$jar" | sort)
for e in META-INF/MANIFEST.MF META-INF/LICENSE META-INF/NOTICE io/mlx5j/emulator/Launcher.class \
         io/mlx5j/emulator/emulator.properties io/mlx5j/emulator/linux-x86_64/libmlx5emu.so \
         io/mlx5j/emulator/linux-x86_64/mlx5emu io/mlx5j/emulator/linux-x86_64/mlx5emu-ctl; do
  grep -qxF "$e" <<< "$entries" || fail "the jar lacks $e"
done
payload=io/mlx5j/emulator/linux-x86_64
mkdir "$work/x" && (cd "$work/x" && "$jdk/bin/jar" xf "$jar" META-INF/MANIFEST.MF "$payload/libmlx5emu.so")
grep -q '^Main-Class: io.mlx5j.emulator.Launcher' "$work/x/META-INF/MANIFEST.MF" || fail "no Main-Class"
ok "entries, Main-Class"

# 2. version
version=$(launch --version)
[[ "$version" =~ ^mlx5j-emulator\ [0-9.]+(-SNAPSHOT)?\ linux-x86_64\ payload\ [0-9a-f]{12}$ ]] \
  || fail "--version: $version"
ok "$version"

# 3. parallel first launches: one directory, no leftovers
for i in 1 2 3 4 5 6 7 8; do launch --where > "$work/where.$i" & done
wait
dirs=$(sort -u "$work"/where.*)
[ "$(wc -l <<< "$dirs")" -eq 1 ] || fail "parallel launches unpacked to: $dirs"
[ "$(ls -A "$MLX5J_EMULATOR_CACHE")" = "$(basename "$dirs")" ] || fail "cache holds $(ls -A "$MLX5J_EMULATOR_CACHE")"
cmp -s "$dirs/libmlx5emu.so" "$work/x/$payload/libmlx5emu.so" || fail "library differs"
ok "8 parallel first launches share $dirs"

# 4. ibv_devinfo
out=$(launch --fabric "$fabric" -- ibv_devinfo)
grep -qP '^hca_id:\tmlx5_0$' <<< "$out" || fail "ibv_devinfo: $out"
grep -q 'PORT_ACTIVE' <<< "$out" || fail "ibv_devinfo: $out"
ok "ibv_devinfo sees mlx5_0, port active"

# 4b. the control program from the unpacked directory (no make, no checkout): port down, then up again
[ -x "$dirs/mlx5emu-ctl" ] || fail "mlx5emu-ctl is not unpacked beside the library"
launch --fabric "$fabric" port mlx5_0 1 down || fail "port mlx5_0 1 down"
out=$(launch --fabric "$fabric" -- ibv_devinfo)
grep -q 'PORT_DOWN' <<< "$out" || fail "after port down: $out"
launch --fabric "$fabric" port mlx5_0 1 up || fail "port mlx5_0 1 up"
out=$(launch --fabric "$fabric" -- ibv_devinfo)
grep -q 'PORT_ACTIVE' <<< "$out" || fail "after port up: $out"
ok "port mlx5_0 1 down / up through the jar: ibv_devinfo says PORT_DOWN, then PORT_ACTIVE"

# 5. ib_write_lat loopback pair: a server and a client, each a java -jar launch, on one fabric
port=$((20000 + $$ % 20000))
launch --fabric "$fabric" -- timeout 120 ib_write_lat -n 200 -p "$port" > "$work/server.log" 2>&1 &
server=$!
client_rc=1
for try in $(seq 1 50); do
  sleep 0.2
  if launch --fabric "$fabric" -- timeout 120 ib_write_lat -n 200 -p "$port" 127.0.0.1 \
       > "$work/client.log" 2>&1; then client_rc=0; break; fi
  # the server may not listen yet: the client then fails to connect at once; anything else is a failure
  grep -q "Couldn't connect" "$work/client.log" || break
done
wait "$server" && server_rc=0 || server_rc=$?
[ "$client_rc" -eq 0 ] && [ "$server_rc" -eq 0 ] || { cat "$work/server.log" "$work/client.log" >&2;
  fail "ib_write_lat: client $client_rc, server $server_rc"; }
grep -qE '^ *2 +200 ' "$work/client.log" || { cat "$work/client.log" >&2; fail "ib_write_lat: no 2-byte result row"; }
ok "ib_write_lat server and client, 200 iterations: $(grep -E '^ *2 +200 ' "$work/client.log" | tr -s ' \t' ' ')"

# 6. --env DIR for surefire
envout=$(launch --link eth --env "$work/env")
# KEY='VALUE' lines, each value one single-quoted shell word
grep -qxF "SYSFS_PATH='$work/env'" <<< "$envout" || fail "--env: $envout"
grep -qxF "LD_PRELOAD='$work/env/libmlx5emu.so'" <<< "$envout" || fail "--env: $envout"
(set -a; . <(printf '%s\n' "$envout"); [ "$MLX5EMU_IPS" = "0=127.0.0.1 0=::1" ]) || fail "--env: not shell words: $envout"
cmp -s "$work/env/libmlx5emu.so" "$dirs/libmlx5emu.so" || fail "--env: the library copy differs"
[ "$(cat "$work/env/class/infiniband/mlx5_0/ports/1/link_layer")" = Ethernet ] || fail "--env: no Ethernet tree"
# the two variables alone make a program see the device (what a surefire block sets)
out=$(env SYSFS_PATH="$work/env" LD_PRELOAD="$work/env/libmlx5emu.so" MLX5EMU_FABRIC="$fabric" ibv_devinfo)
grep -qP '^\t\t\tlink_layer:\t\tEthernet$' <<< "$out" || fail "SYSFS_PATH + LD_PRELOAD: $out"
ok "--env writes the tree, the library and the lines; SYSFS_PATH + LD_PRELOAD alone give an Ethernet mlx5_0"

# 7. --clean
launch --clean | grep -qF "removed $dirs" || fail "--clean"
[ -z "$(ls -A "$MLX5J_EMULATOR_CACHE")" ] || fail "--clean left $(ls -A "$MLX5J_EMULATOR_CACHE")"
ok "--clean empties the cache"

echo "check_jar: $pass passed, 0 failed"
