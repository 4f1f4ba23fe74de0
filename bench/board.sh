#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Virtual board figures: what a job costs beyond the measurement itself.
# For each kernel, a few idle runs of DURATION guest seconds: boot time (QEMU
# start to agent start), whole wall time, overhead (wall time minus the
# measurement, with the kernel cached and the initramfs base built once),
# the hand-over (bundle size and channel throughput) and the ingest (upload
# into a throwaway database through the server).  Then one traced run under
# load, whose multi-MB trace.dat shows the channel's throughput on a
# realistic bundle.  Prints a table; asserts nothing.
#
#   bench/board.sh [BOARD [RUNS [KERNEL...]]]    (defaults: qemu-icount 2
#                                                 debian-rt debian)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${RTLAB_BUILD:-$top/build}
rtlab=$build/rtlab
board=${1:-qemu-icount}
runs=${2:-2}
[ $# -gt 2 ] && shift 2 && kernels=$* || kernels="debian-rt debian"
duration=3
tmp=$(mktemp -d /tmp/rtlab-bench-board.XXXXXX)
chmod 755 "$tmp"
export RTLAB_STATE_DIR=$tmp/state
export RTLAB_CACHE_DIR=${RTLAB_CACHE_DIR:-$build/cache}
unset RTLAB_DB RTLAB_CONFIG
spid=""
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	"$rtlab" db stop >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

mkdir -p "$RTLAB_STATE_DIR" && chmod 755 "$RTLAB_STATE_DIR"
"$rtlab" db start >/dev/null || exit 1
"$rtlab" server --listen 127.0.0.1:0 --quiet >"$tmp/server.out" 2>&1 &
spid=$!
until grep -q 'listening on' "$tmp/server.out" 2>/dev/null; do sleep 0.1; done
url=http://$(sed -n 's/^rtlab server: listening on //p' "$tmp/server.out")
token=$("$rtlab" board add "$board" --kind qemu --quiet)
for k in $kernels; do	# fetched before timing: a lab's cache is warm
	"$rtlab" kernel fetch "$k" >/dev/null || exit 1
done

# one_run KERNEL LABEL TESTCASE: boot, hand over, ingest; prints a row.
one_run() {
	"$rtlab" boot -q --board "$board" --kernel "$1" --testcase "$3" \
		--duration $duration --out "$tmp/b.bundle" >"$tmp/out" 2>&1
	st=$(sed -n 's/^status: *//p' "$tmp/out")
	boot=$(sed -n 's/^boot: *\([0-9.]*\) s.*/\1/p' "$tmp/out")
	total=$(sed -n 's/^total: *\([0-9.]*\) s/\1/p' "$tmp/out")
	bytes=$(sed -n 's/^channel: *\([0-9]*\) bytes.*/\1/p' "$tmp/out")
	rate=$(sed -n 's/^channel: .*(\([0-9.]*\) MiB\/s)/\1/p' "$tmp/out")
	ingest=$(curl -s -o /dev/null -w '%{time_total}' \
		-H "Authorization: Bearer $token" \
		--data-binary @"$tmp/b.bundle" "$url/api/v1/runs")
	over=$(echo "${total:-0} ${ingest:-0}" |
		awk -v d=$duration '{ printf "%.1f", $1 + $2 - d }')
	printf '%-10s %-8s %-9s %7s %7s %8s %9s %8s %8s\n' "$1" "$2" \
		"${st:-error}" "${boot:--}" "${total:--}" "$over" \
		"${bytes:--}" "${rate:--}" "$ingest"
	[ -n "$st" ] || sed 's/^/    /' "$tmp/out"
}

echo "virtual board $board: ${duration} s measurements, kernel cache warm"
printf '%-10s %-8s %-9s %7s %7s %8s %9s %8s %8s\n' kernel run status \
	boot_s wall_s overhead bytes MiB/s ingest_s
for k in $kernels; do
	i=1
	while [ "$i" -le "$runs" ]; do
		one_run "$k" "idle-$i" "$top/testcases/cyclictest-idle.yaml"
		i=$((i + 1))
	done
done
set -- $kernels
one_run "$1" traced "$top/testcases/cyclictest-churn.yaml"
echo "overhead = wall time + ingest - the ${duration} s measured (target <= 15 s);"
echo "the first idle run also builds the initramfs base once; the traced"
echo "run's wall time includes the load, which runs slower than real time"
echo "under icount, so its overhead column is not the board's overhead."
