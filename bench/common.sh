# SPDX-License-Identifier: GPL-2.0-or-later
#
# What the bench/*.sh scripts share, sourced by them: the paths of the
# build, a throwaway state directory holding an embedded PostgreSQL, and
# the server on loopback.  bench_cleanup runs on exit.
#
#   bench_state_start          temporary RTLAB_STATE_DIR, rtlab db start
#   bench_server_start PORT    rtlab server on 127.0.0.1:PORT, waits for it
#   on_exit CMD                CMD runs at exit, before the database stops
#                              (the last given runs first)

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
RTLAB=$build/rtlab
bench_server_pid=""
bench_cleanups=""

on_exit() {
	bench_cleanups="$1
$bench_cleanups"
}

bench_cleanup() {
	while IFS= read -r _c; do
		# a cleanup that fails (wait on a killed process) must not
		# end the others under set -e
		[ -z "$_c" ] || eval "$_c" || true
	done <<EOF_CLEANUPS
$bench_cleanups
EOF_CLEANUPS
	if [ -n "$bench_server_pid" ]; then
		kill "$bench_server_pid" 2>/dev/null &&
			wait "$bench_server_pid" 2>/dev/null
	elif [ -f "${RTLAB_STATE_DIR:-/nonexistent}/server.pid" ]; then
		kill "$(cat "$RTLAB_STATE_DIR/server.pid")" 2>/dev/null
	fi
	"$RTLAB" db stop >/dev/null 2>&1 || true
	[ -n "${RTLAB_STATE_DIR:-}" ] && rm -rf "$RTLAB_STATE_DIR"
}

bench_state_start() {
	RTLAB_STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rtlab-bench.XXXXXX")
	chmod 755 "$RTLAB_STATE_DIR"
	export RTLAB_STATE_DIR RTLAB
	unset RTLAB_DB RTLAB_CONFIG
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
	"$RTLAB" db start >/dev/null
}

bench_server_start() {
	"$RTLAB" server --listen "127.0.0.1:$1" \
		>>"$RTLAB_STATE_DIR/server.log" 2>&1 &
	bench_server_pid=$!
	echo "$bench_server_pid" >"$RTLAB_STATE_DIR/server.pid"
	until curl -fsS "http://127.0.0.1:$1/healthz" >/dev/null 2>&1; do
		kill -0 "$bench_server_pid" 2>/dev/null || {
			cat "$RTLAB_STATE_DIR/server.log" >&2
			return 1
		}
		sleep 0.2
	done
}
