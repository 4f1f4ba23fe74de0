#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/trace-analysis.sh [TRACE.DAT...]: times the spike analysis next to
# `trace-cmd report > /dev/null` on each file (build/bench/trace-analysis).
# Without arguments it first captures a large trace on the icount virtual
# board -- cyclictest-hackbench-fulltrace with a 48 MiB buffer, kept at
# the end of 20 s of measurement (full: ~50 MB of trace.dat), a few minutes
# of wall time -- and times that and the fixtures under
# tests/fixtures/traces.  Prints figures; asserts nothing.
#
# REPS (default 5) alternating rounds per file; BUILD as for make.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
RTLAB=$build/rtlab
reps=${REPS:-5}

if [ $# = 0 ]; then
	work=$(mktemp -d /tmp/rtlab-bench-trace.XXXXXX)
	trap 'rm -rf "$work"' EXIT INT TERM
	sed -e 's/^  buffer_kb: .*/  buffer_kb: 49152/' \
		"$top/testcases/cyclictest-hackbench-fulltrace.yaml" \
		>"$work/big.yaml"
	echo "capturing a large trace on the virtual board (a few minutes)..."
	if "$RTLAB" boot --board qemu-icount --kernel debian-rt \
		--testcase "$work/big.yaml" --duration 20 \
		--out "$work/big.bundle" -q >"$work/boot.out" 2>&1; then
		tar xzf "$work/big.bundle" -C "$work" trace.dat
		set -- "$work/trace.dat"
	else
		echo "no large trace: rtlab boot failed:"
		cat "$work/boot.out"
	fi
	set -- "$@" "$top"/tests/fixtures/traces/*.dat
fi
"$build/bench/trace-analysis" --reps "$reps" "$@"
