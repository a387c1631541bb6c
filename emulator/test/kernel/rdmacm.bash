# SPDX-License-Identifier: Apache-2.0
# Sourced by the rdma_cm tool tests (t_rdmacm_*.sh); not a test itself (make runs *.sh only).
# cm_pair runs an unmodified librdmacm/perftest server and client, each under its own launcher like two hosts, on
# a fabric of their own. The client starts once the server's LISTEN command succeeded (read from the server's
# MLX5EMU_LOG lines), so a loaded machine cannot make the client find no listener.
E=${MLX5EMU:?run from make check}
fail=0
pairs=0
last_cli=$(mktemp)
trap 'rm -f "$last_cli"' EXIT
# cm_pair <link> <client-output regex> <server command...> -- <client command...>
# SERVER_STAYS=1: the server never exits by itself (cmtime): it must still run when the client is done; it is
# then stopped. CHECK_CLIENT=<cmd>: extra check on the client's output file (gets the path as $1).
# RACE_RETRY=<regex>: a tool with a race of its own (perftest -R: its client connects the data QPs as soon as the
# control connection is up, while its server opens the second listener only after the RTU arrived; a REQ that
# wins gets REJECTED with reason 8, as on a real fabric, and perftest 4.5-0.17's retry path then crashes): when
# the client's or the server's output matches, the pair is run again, at most four times, and each retry is reported. CLIENT_NICE=1 runs the
# client at nice 19, so on a busy machine the server, which has to reach its second listen first, gets the CPU.
cm_pair() {
	local try
	for try in 1 2 3 4 5; do
		cm_pair_once "$@" && return 0
		[ -n "${RACE_RETRY:-}" ] && [ "$try" -lt 5 ] && grep -qE -- "$RACE_RETRY" "$last_cli" || break
		echo "     (the tool lost its own race: /$RACE_RETRY/; running the pair again)"
	done
	fail=1
	return 1
}
cm_pair_once() {
	local link=$1 re=$2 srv=() i src crc
	shift 2
	while [ "$1" != "--" ]; do srv+=("$1"); shift; done
	shift
	pairs=$((pairs + 1))
	local fab="${MLX5EMU_FABRIC:-mlx5emu-cmtest-$$}-p$pairs" out
	out=$(mktemp -d)
	MLX5EMU_FABRIC=$fab MLX5EMU_LOG=1 timeout 90 "$E" --link "$link" -- "${srv[@]}" > "$out/srv" 2>&1 &
	local spid=$!
	for i in $(seq 600); do
		grep -qE "${READY_RE:-LISTEN in=.* -> ok}" "$out/srv" 2> /dev/null && break
		kill -0 $spid 2> /dev/null || break
		sleep 0.1
	done
	local nice=()
	[ "${CLIENT_NICE:-0}" = 1 ] && nice=(nice -n 19)
	MLX5EMU_CM_RESOLVE_MS=${CLIENT_RESOLVE_MS:-0} MLX5EMU_FABRIC=$fab timeout 90 "${nice[@]}" "$E" --link "$link" -- "$@" > "$out/cli" 2>&1
	crc=$?
	if [ "${SERVER_STAYS:-0}" = 1 ]; then
		if kill -0 $spid 2> /dev/null; then src=0; kill $spid; else src=1; fi
		wait $spid 2> /dev/null
	else
		# a server whose client failed may wait for ever: give it 20 s to finish on its own (3 s after a failure)
		local grace=200
		[ $crc -ne 0 ] && grace=30
		for i in $(seq $grace); do kill -0 $spid 2> /dev/null || break; sleep 0.1; done
		kill $spid 2> /dev/null
		wait $spid
		src=$?
	fi
	local extra=0
	if [ -n "${CHECK_CLIENT:-}" ] && ! $CHECK_CLIENT "$out/cli"; then extra=1; fi
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ $extra -eq 0 ] && grep -qE -- "$re" "$out/cli"; then
		echo "PASS $link $* : $(grep -E -- "$re" "$out/cli" | tail -1 | tr -s " \t" " " | cut -c1-70)"
	else
		echo "FAIL $link $* : server=$src client=$crc check=$extra"
		grep -v "^mlx5emu\[" "$out/srv" | sed 's/^/  srv: /' | tail -8
		grep "rdma_cm" "$out/srv" | sed 's/^/  srv: /' | tail -12
		sed 's/^/  cli: /' "$out/cli" | tail -12
		cat "$out/cli" "$out/srv" > "$last_cli"
		rm -rf "$out"
		rm -f "/dev/shm/$fab" "/dev/shm/$fab"-*
		return 1
	fi
	rm -rf "$out"
	rm -f "/dev/shm/$fab" "/dev/shm/$fab"-*
}
