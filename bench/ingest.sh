#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/ingest.sh [RUNS]: starts a throwaway embedded PostgreSQL and the
# server on loopback, then runs build/bench/ingest against them: stored runs
# per second over HTTP next to a plain COPY of the same rows.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
RTLAB=$build/rtlab
runs=${1:-300}
port=${RTLAB_BENCH_PORT:-8471}

RTLAB_STATE_DIR=$(mktemp -d /tmp/rtlab-bench.XXXXXX)
chmod 755 "$RTLAB_STATE_DIR"
export RTLAB_STATE_DIR
unset RTLAB_DB RTLAB_CONFIG
server_pid=""
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	"$RTLAB" db stop >/dev/null 2>&1 || true
	rm -rf "$RTLAB_STATE_DIR"
}
trap cleanup EXIT INT TERM

"$RTLAB" db start >/dev/null
"$RTLAB" server --listen "127.0.0.1:$port" >"$RTLAB_STATE_DIR/server.log" 2>&1 &
server_pid=$!
until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do sleep 0.2; done
token=$("$RTLAB" board add bench --quiet)
"$build/bench/ingest" --url "http://127.0.0.1:$port/api/v1/runs" \
	--token "$token" --board bench --runs "$runs" \
	--conninfo "$("$RTLAB" db conninfo)"
