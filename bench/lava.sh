#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/lava.sh [RUNS [DEFINITION.json | lava-server]]: what a job on a
# LAVA board costs beyond its measurement, next to the same job on rtlab's
# own virtual board.  Queues RUNS jobs (default 3) of cyclictest-idle, 3 s each, with
# Debian's PREEMPT_RT kernel for each of two boards, drains each queue with
# one worker and prints per job the time from claim to done and the
# overhead (that minus the 3 s measured).  The LAVA board is by default a
# dispatcher board (lava-run with the QEMU TCG device of the tests); give
# DEFINITION.json (rtlab board add --kind lava --definition) to measure a
# lava-server instead: submit, LAVA's scheduling and worker, the result
# back in rtlab's database.  "lava-server" starts a throwaway one on
# 127.0.0.1 as tests/integration/lava-server.sh does (tests/lava-lib.sh;
# as root), its device QEMU TCG with the icount clock, and measures it.
# Kernel cache warm (fetched before timing).
# Prints a table; asserts nothing.
set -eu

. "$(dirname "$0")/common.sh"
runs=${1:-3}
def=${2:-}
duration=3
case $runs in ''|*[!0-9]*|0)
	echo "bench/lava.sh: RUNS '$runs': expected a number above 0" >&2
	exit 2 ;;
esac
command -v lava-run >/dev/null || {
	echo "bench/lava.sh: lava-run not found (Debian's lava-dispatcher: make deps)" >&2
	exit 1
}
bench_state_start
"$RTLAB" kernel fetch debian-rt >/dev/null
if [ "$def" = lava-server ]; then
	[ "$(id -u)" = 0 ] || {
		echo "bench/lava.sh: lava-server: run as root (lava-run must)" >&2
		exit 1
	}
	. "$top/tests/lava-lib.sh"
	lava_server_up "$RTLAB_STATE_DIR/lava" >&2 || exit 1
	def=$RTLAB_STATE_DIR/lava-server.json
	printf '{"mode": "server", "url": "%s", "token": "%s", "device_type": "qemu"}\n' \
		"$LURL" "$LTOKEN" >"$def"
	what="lava-server, QEMU icount device"
elif [ -z "$def" ]; then
	def=$RTLAB_STATE_DIR/lava.json
	printf '{"mode": "dispatcher", "device": "%s", "device_type": "qemu"}\n' \
		"$top/tests/fixtures/lava/qemu-device.yaml" >"$def"
	what="lava-run, QEMU device"
else
	what="lava-server ($def)"
fi
printf '{"board": "qemu-icount"}\n' >"$RTLAB_STATE_DIR/vb.json"
"$RTLAB" board add vb --kind qemu --definition "$RTLAB_STATE_DIR/vb.json" \
	--quiet >/dev/null
"$RTLAB" board add lava --kind lava --definition "$def" --quiet >/dev/null

sql() { "$RTLAB" db psql -tAc "$1"; }
# measure BOARD: queue the jobs, drain them, print a row per job
measure() {
	"$RTLAB" job add --kernel debian-rt --board "$1" \
		--testcase cyclictest-idle --duration $duration \
		--repeat "$runs" --quiet >/dev/null
	"$RTLAB" worker --board "$1" --drain --name "bench-$1" \
		>"$RTLAB_STATE_DIR/worker-$1.log" 2>&1 || true
	sql "SELECT j.id, j.state,
		round(extract(epoch FROM j.finished_at - j.started_at)::numeric, 1)
	     FROM jobs j JOIN boards b ON b.id = j.board_id
	     WHERE b.name = '$1' ORDER BY j.id" |
		while IFS='|' read -r id state wall; do
			printf '%-34s %4s %-6s %7s %10s\n' "$2" "$id" "$state" \
				"$wall" "$(echo "$wall" |
				awk -v d=$duration '{ printf "%.1f", $1 - d }')"
		done
}

echo "one job = boot Debian's PREEMPT_RT kernel, ${duration} s of cyclictest, result stored"
printf '%-34s %4s %-6s %7s %10s\n' path job state wall_s overhead_s
measure vb "rtlab virtual board" | tee "$RTLAB_STATE_DIR/vb.rows"
measure lava "LAVA: $what" | tee "$RTLAB_STATE_DIR/lava.rows"
med() {	# FILE: median overhead of the done jobs
	awk '$(NF - 2) == "done" { print $NF }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)];
			else print "-" }'
}
echo "median overhead: virtual board $(med "$RTLAB_STATE_DIR/vb.rows") s," \
	"LAVA $(med "$RTLAB_STATE_DIR/lava.rows") s"
echo "overhead = claim to done - the ${duration} s measured: boot, hand-over, ingest"
echo "(and for LAVA its job definition, deploy of kernel and initramfs, test shell)"
