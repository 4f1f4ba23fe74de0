#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Virtual board figures: boot time (QEMU start to agent start), whole-run
# wall time, and bundle size and channel throughput, for each kernel on a
# board over a few boots.  Prints a table; asserts nothing.
#
#   bench/board.sh [BOARD [RUNS [KERNEL...]]]    (defaults: qemu-icount 2
#                                                 debian-rt debian)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
rtlab=${RTLAB_BUILD:-$top/build}/rtlab
board=${1:-qemu-icount}
runs=${2:-2}
[ $# -gt 2 ] && shift 2 && kernels=$* || kernels="debian-rt debian"
tmp=$(mktemp -d /tmp/rtlab-bench-board.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

printf '%-10s %-4s %-11s %8s %8s %10s %10s\n' kernel run status boot_s \
	total_s bytes MiB/s
for k in $kernels; do
	i=1
	while [ "$i" -le "$runs" ]; do
		"$rtlab" boot -q --board "$board" --kernel "$k" \
			--testcase "$top/testcases/cyclictest-idle.yaml" \
			--duration 3 --out "$tmp/b.bundle" >"$tmp/out" 2>&1
		st=$(sed -n 's/^status: *//p' "$tmp/out")
		boot=$(sed -n 's/^boot: *\([0-9.]*\) s.*/\1/p' "$tmp/out")
		total=$(sed -n 's/^total: *\([0-9.]*\) s/\1/p' "$tmp/out")
		bytes=$(sed -n 's/^channel: *\([0-9]*\) bytes.*/\1/p' "$tmp/out")
		rate=$(sed -n 's/^channel: .*(\([0-9.]*\) MiB\/s)/\1/p' "$tmp/out")
		printf '%-10s %-4s %-11s %8s %8s %10s %10s\n' "$k" "$i" \
			"${st:-error}" "${boot:--}" "${total:--}" \
			"${bytes:--}" "${rate:--}"
		[ -n "$st" ] || sed 's/^/    /' "$tmp/out"
		i=$((i + 1))
	done
done
echo "(bundles are small, so MiB/s is dominated by per-transfer latency;"
echo " the raw port was measured at ~130 MiB/s with 5 MiB files)"
