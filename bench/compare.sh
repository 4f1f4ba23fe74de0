#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/compare.sh [RUNS [REPS]]: starts a throwaway embedded PostgreSQL in
# a temporary state directory, then runs build/bench/compare against it:
# fills RUNS synthetic runs (default 100000) and times one verdict
# computation (load, compare, store) REPS times (default 200).  Prints the
# median and p99; asserts nothing.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
RTLAB=$build/rtlab
runs=${1:-100000}
reps=${2:-200}

RTLAB_STATE_DIR=$(mktemp -d /tmp/rtlab-bench.XXXXXX)
chmod 755 "$RTLAB_STATE_DIR"
export RTLAB_STATE_DIR
unset RTLAB_DB RTLAB_CONFIG
cleanup() {
	"$RTLAB" db stop >/dev/null 2>&1 || true
	rm -rf "$RTLAB_STATE_DIR"
}
trap cleanup EXIT INT TERM

"$RTLAB" db start >/dev/null
"$build/bench/compare" --runs "$runs" --reps "$reps"
