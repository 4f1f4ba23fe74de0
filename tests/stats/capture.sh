#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Capture the real runs under tests/stats/real/ that verdicts.table compares:
# cyclictest on this host, idle (two sets of reruns of the same kernel: an
# A/A comparison that must not be called a regression) and with a SCHED_FIFO
# 99 spinner on CPU 0 that busy-waits 1.5 ms every 5 ms on average (jittered),
# injecting latencies of up to 1.5 ms (must be caught).  The spikes are large
# because the host these were first captured on was a shared, busy 2-CPU
# virtual machine whose idle p99 already wandered between 40 and 800 µs.
# Needs root (SCHED_FIFO, /dev/cpu_dma_latency), rt-tests and a C compiler.
#
#   tests/stats/capture.sh [RUNS] [SECONDS]     (default 6 runs of 5 s)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=$here/real
runs=${1:-6}
secs=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

cc -O2 -Wall -Wextra -o "$tmp/spin" "$here/spin.c"
mkdir -p "$out"
ct() {	# output file
	cyclictest -m -p90 -i1000 -t -h 1000 -q -D"$secs" >"$1"
}
i=1
while [ "$i" -le "$runs" ]; do
	ct "$out/idle-a-$i.hist"
	ct "$out/idle-b-$i.hist"
	chrt -f 99 "$tmp/spin" 0 1500 5000 "$((secs + 1))" "$i" &
	spin=$!
	ct "$out/spike-$i.hist"
	wait "$spin"
	echo "run $i of $runs captured"
	i=$((i + 1))
done
