#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/scale.sh [--runs N] [--reps N] [--keep]: a year of a 100-board
# farm in one PostgreSQL, and how fast the lab answers with it.  Starts a
# throwaway embedded PostgreSQL, fills it with N runs (default 10^6; see
# build/bench/scale), starts the server on loopback, measures upload
# ingest against COPY (build/bench/ingest) and then every figure of the
# table: verdict, API lists, pages, plots, the job queue, the farm's
# tick over every board and testcase, size per run.
# Prints "figure, value, target"; asserts nothing.  10^6 runs take tens of
# gigabytes in TMPDIR and a long while on two cores: develop with --runs
# 10000.  --keep leaves the state directory (and the cluster stopped) for
# a look afterwards.
set -eu

. "$(dirname "$0")/common.sh"
runs=1000000
reps=20
keep=
port=${RTLAB_BENCH_PORT:-8473}
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '4,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/scale.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case $runs in ''|*[!0-9]*)
	echo "bench/scale.sh: --runs '$runs': expected a number" >&2; exit 2 ;;
esac

bench_state_start
if [ -n "$keep" ]; then
	trap '"$RTLAB" db stop >/dev/null 2>&1; kill "$bench_server_pid" 2>/dev/null; echo "kept $RTLAB_STATE_DIR"' EXIT
fi
"$build/bench/scale" fill --runs "$runs"
bench_server_start "$port"
token=$("$RTLAB" board add scale-ingest --kind qemu --quiet)
echo "ingest of new uploads next to COPY..."
"$build/bench/ingest" --url "http://127.0.0.1:$port/api/v1/runs" \
	--token "$token" --board scale-ingest --runs 300 \
	--conninfo "$("$RTLAB" db conninfo)" | tee "$RTLAB_STATE_DIR/ingest.out"
up=$(awk '/upload over HTTP/ { print $(NF - 1) }' "$RTLAB_STATE_DIR/ingest.out")
copy=$(awk '/plain COPY/ { print $(NF - 1) }' "$RTLAB_STATE_DIR/ingest.out")
# The farm's schedule over the year (build/bench/scale schedule), and
# the testcases it queues: the lab's idle one under the fill's names, in
# a data directory beside the lab's own files.
schedule=$("$build/bench/scale" schedule "$RTLAB_STATE_DIR")
data=$RTLAB_STATE_DIR/data
mkdir -p "$data/testcases"
for f in "$top"/*; do
	[ "$(basename "$f")" = testcases ] || ln -s "$f" "$data/"
done
i=1
while [ $i -le 10 ]; do
	sed "s/^name:.*/name: scale-tc-$i/" "$top/testcases/cyclictest-idle.yaml" \
		>"$data/testcases/scale-tc-$i.yaml"
	i=$((i + 1))
done
RTLAB_DATADIR=$data "$build/bench/scale" measure \
	--url "http://127.0.0.1:$port" --rtlab "$RTLAB" --reps "$reps" \
	--ingest "$up $copy" --schedule "$schedule"
