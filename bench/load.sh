#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/load.sh [--crash] [BOARDS [UPLOADS [SLOW]]]: starts a throwaway
# embedded PostgreSQL and the server on loopback with its default limits,
# registers BOARDS boards (100) and runs build/bench/load: each board
# uploads UPLOADS distinct bundles (5) while SLOW slow connections (1000)
# trickle bytes and a reader fetches plots.  With --crash, PostgreSQL and
# the server are both killed with SIGKILL once a third of the uploads are
# acknowledged, and started again; the boards retry as the agent does.
# Prints uploads/s, latencies, and lost and duplicated runs (must be 0).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
RTLAB=$build/rtlab
port=${RTLAB_BENCH_PORT:-8472}

# The crash itself, run by build/bench/load mid-run (see below).
if [ "${1:-}" = _crash ]; then
	pm=$(head -n 1 "$RTLAB_STATE_DIR/pg/data/postmaster.pid")
	kill -9 "$(cat "$RTLAB_STATE_DIR/server.pid")" "$pm" \
		$(ps -o pid= --ppid "$pm") 2>/dev/null || true
	# the killed postmaster's backends and shared memory must be gone
	while kill -0 "$pm" 2>/dev/null || [ -n "$(ps -o pid= --ppid "$pm")" ]; do
		kill -9 $(ps -o pid= --ppid "$pm") 2>/dev/null || true
		sleep 0.05
	done
	"$RTLAB" db start >/dev/null
	"$RTLAB" server --listen "127.0.0.1:$port" \
		>>"$RTLAB_STATE_DIR/server.log" 2>&1 &
	echo $! >"$RTLAB_STATE_DIR/server.pid"
	until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
		sleep 0.1
	done
	exit 0
fi

crash=
if [ "${1:-}" = --crash ]; then
	crash=1
	shift
fi
boards=${1:-100}
uploads=${2:-5}
slow=${3:-1000}

RTLAB_STATE_DIR=$(mktemp -d /tmp/rtlab-bench.XXXXXX)
chmod 755 "$RTLAB_STATE_DIR"
export RTLAB_STATE_DIR RTLAB port
unset RTLAB_DB RTLAB_CONFIG
cleanup() {
	[ -f "$RTLAB_STATE_DIR/server.pid" ] &&
		kill "$(cat "$RTLAB_STATE_DIR/server.pid")" 2>/dev/null
	"$RTLAB" db stop >/dev/null 2>&1 || true
	rm -rf "$RTLAB_STATE_DIR"
}
trap cleanup EXIT INT TERM

# Each board and the slow connections come from their own address: the
# descriptors of this process and the server's must cover them all.
ulimit -n 4096 2>/dev/null || true
"$RTLAB" db start >/dev/null
"$RTLAB" server --listen "127.0.0.1:$port" >"$RTLAB_STATE_DIR/server.log" 2>&1 &
echo $! >"$RTLAB_STATE_DIR/server.pid"
until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do sleep 0.2; done
i=0
while [ $i -lt "$boards" ]; do
	i=$((i + 1))
	name=$(printf 'load%03d' $i)
	echo "$name $("$RTLAB" board add "$name" --quiet)"
done >"$RTLAB_STATE_DIR/boards"

set -- --url "http://127.0.0.1:$port" --boards "$RTLAB_STATE_DIR/boards" \
	--conninfo "$("$RTLAB" db conninfo)" --uploads "$uploads" --slow "$slow"
if [ -n "$crash" ]; then
	set -- "$@" --crash-cmd "sh '$0' _crash" \
		--crash-after $((boards * uploads / 3))
fi
"$build/bench/load" "$@"
