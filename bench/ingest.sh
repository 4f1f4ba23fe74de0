#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/ingest.sh [RUNS]: starts a throwaway embedded PostgreSQL and the
# server on loopback, then runs build/bench/ingest against them: stored runs
# per second over HTTP next to a plain COPY of the same rows.
set -eu

. "$(dirname "$0")/common.sh"
runs=${1:-300}
port=${RTLAB_BENCH_PORT:-8471}

bench_state_start
bench_server_start "$port"
token=$("$RTLAB" board add bench --quiet)
"$build/bench/ingest" --url "http://127.0.0.1:$port/api/v1/runs" \
	--token "$token" --board bench --runs "$runs" \
	--conninfo "$("$RTLAB" db conninfo)"
