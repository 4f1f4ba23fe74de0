#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Fill DIR with the seed inputs of harness NAME: the test fixtures where
# there are some (cyclictest output, testcases, board and kernel YAML),
# the files under fuzz/seeds/NAME/, and for the bundle and ingest harnesses
# result bundles made here from the cyclictest fixtures, each with a
# manifest whose sizes and checksums are right, so that mutations start
# deep in the reader instead of at the gzip header.
#
#   fuzz/seeds.sh NAME DIR
set -eu

name=$1 dir=$2
top=$(cd "$(dirname "$0")/.." && pwd)
fix=$top/tests/fixtures/cyclictest
rm -rf "$dir"
mkdir -p "$dir"

copy() {	# files...
	for f in "$@"; do
		[ -f "$f" ] && cp "$f" "$dir/"
	done
	return 0
}

# bundle OUT STATUS RANGE_US FILE=SRC...: a gzip'd tar whose manifest.json
# lists every FILE with its size and sha256, manifest first like the
# agent writes it; deterministic bytes (fixed owner, time and order).
bundle() {
	out=$1 status=$2 range=$3
	shift 3
	work=$(mktemp -d)
	files="" sep="" members=""
	for a in "$@"; do
		f=${a%%=*} src=${a#*=}
		cp "$src" "$work/$f"
		size=$(wc -c <"$work/$f" | tr -d ' ')
		sum=$(sha256sum "$work/$f" | cut -d' ' -f1)
		files="$files$sep\"$f\": {\"size\": $size, \"sha256\": \"$sum\"}"
		sep=", "
		members="$members $f"
	done
	cat >"$work/manifest.json" <<EOM
{"format": "rtlab-bundle", "format_version": 1,
 "run_id": "0f8fad5b-d9cb-469f-a165-70867728950e", "board": "local",
 "status": "$status",
 "testcase": {"name": "cyclictest-idle", "duration_s": 3, "hist_range_us": $range},
 "kernel": {"release": "6.1.0-57-rt-amd64", "realtime": true},
 "environment": {"cpus": 2, "clock": "host"},
 "files": {$files}}
EOM
	# shellcheck disable=SC2086
	tar -C "$work" --format=ustar --owner=0 --group=0 --numeric-owner \
		--mtime=@0 -cf - manifest.json $members | gzip -n -9 >"$out"
	rm -rf "$work"
}

bundles() {
	bundle "$dir/idle.tar.gz" complete 100 \
		cyclictest.json="$fix/idle.json" \
		cyclictest.hist="$fix/idle.hist"
	bundle "$dir/overflow.tar.gz" complete 20 \
		cyclictest.json="$fix/overflow.json" \
		cyclictest.hist="$fix/overflow.hist"
	bundle "$dir/histofall-hist-only.tar.gz" complete 0 \
		cyclictest.hist="$fix/histofall.hist"
	bundle "$dir/hackbench-json-only.tar.gz" complete 200 \
		cyclictest.json="$fix/hackbench.json"
	bundle "$dir/panic.tar.gz" panic 100 \
		console.log="$fix/README"
}

case $name in
cyclictest-json) copy "$fix"/*.json ;;
cyclictest-hist) copy "$fix"/*.hist ;;
rtla-hist)	# the first byte picks the tool: '0' timerlat, '1' osnoise
	rt=$top/tests/fixtures/rttests
	{ printf 0; cat "$rt/timerlat-qemu-icount.hist"; } >"$dir/timerlat"
	{ printf 1; cat "$rt/osnoise-qemu-icount.hist"; } >"$dir/osnoise" ;;
rttests-json)	# the first byte picks the tool: 0 signaltest .. 3 pi_stress
	rt=$top/tests/fixtures/rttests
	i=0
	for t in signaltest pmqtest cyclicdeadline pi_stress; do
		{ printf $i; cat "$rt/$t.json"; } >"$dir/$t"
		i=$((i + 1))
	done ;;
testcase) copy "$top"/testcases/*.yaml ;;
board) copy "$top"/boards/*.yaml "$top"/kernels/*.yaml ;;
bundle | ingest) bundles ;;
manifest) ;;
config) ;;
*) echo "fuzz/seeds.sh: no harness '$name'" >&2; exit 2 ;;
esac
if [ -d "$top/fuzz/seeds/$name" ]; then
	copy "$top/fuzz/seeds/$name"/*
fi
