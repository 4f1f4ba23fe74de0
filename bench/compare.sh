#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/compare.sh [RUNS [REPS]]: starts a throwaway embedded PostgreSQL in
# a temporary state directory, then runs build/bench/compare against it:
# fills RUNS synthetic runs (default 100000) and times one verdict
# computation (load, compare, store) REPS times (default 200).  Prints the
# median and p99; asserts nothing.
set -eu

. "$(dirname "$0")/common.sh"
runs=${1:-100000}
reps=${2:-200}

bench_state_start
"$build/bench/compare" --runs "$runs" --reps "$reps"
