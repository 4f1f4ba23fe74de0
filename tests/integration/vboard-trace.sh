#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ftrace capture end to end: boot Debian's PREEMPT_RT kernel on the icount
# virtual board with the shipped cyclictest-hackbench testcase, shortened,
# and check that the run measured its whole duration (no -b, every thread
# its samples, the board's 997 us interval) while the bundle's trace.dat
# holds the worst wakeup, kept by the hist trigger's onmax snapshot:
# `trace-cmd report` on this host parses it, the requested events are in
# it, the manifest records the maximum, its thread and the lost events,
# and the spike analysis finds that thread's wakeup in it.  Then store the
# bundle through a throwaway database and server and read trace.dat back
# byte for byte.
#
# The kernel is fetched once into the cache all tests share
# ($RTLAB_CACHE_DIR, see tests/lib.sh).
. "$(dirname "$0")/../lib.sh"

DURATION_S=3
INTERVAL_US=997
work=$(mktemp -d /tmp/rtlab-vbtrace.XXXXXX) || exit 1
on_exit "rm -rf '$work'"

# The shipped testcase, its buffer lowered for a short run.
sed -e 's/^  buffer_kb: .*/  buffer_kb: 2048/' \
	"$TOP/testcases/cyclictest-hackbench.yaml" >"$work/testcase.yaml"
check "short variant of cyclictest-hackbench.yaml has buffer_kb 2048" \
	grep -qx "  buffer_kb: 2048" "$work/testcase.yaml"

vboard_boot b "the board ran the testcase" "$work/testcase.yaml" \
	--duration $DURATION_S || exit 1
check "trace.dat is in the bundle" test -s "$work/b/trace.dat"
check "the manifest lists trace.dat with its size and sha256" test \
	"$(jq -r '.files["trace.dat"] | "\(.size) \(.sha256)"' "$m")" = \
	"$(stat -c %s "$work/b/trace.dat") $(sha256sum "$work/b/trace.dat" | cut -d' ' -f1)"
check "manifest: trace.status captured" \
	test "$(jq -r .trace.status "$m")" = captured
check "manifest: trace.buffer_kb as asked" \
	test "$(jq -r .trace.buffer_kb "$m")" = 2048
ct=$(jq -r '.commands[] | select(startswith("cyclictest"))' "$m")
check "cyclictest ran without -b, at the board's -i $INTERVAL_US ($ct)" \
	sh -c 'case " $1 " in *" -b "*|*--tracemark*) exit 1 ;; esac
		case " $1 " in *" -i $2 "*) ;; *) exit 1 ;; esac' - "$ct" \
	$INTERVAL_US
check "manifest: measurement.interval_us $INTERVAL_US, from the board" \
	test "$(jq -r '"\(.measurement.interval_us) \(.measurement.interval_source)"' "$m")" = \
	"$INTERVAL_US board"
planned=$((DURATION_S * 1000000 / INTERVAL_US))
check "manifest: measurement.samples_planned $planned" \
	test "$(jq -r .measurement.samples_planned "$m")" = $planned
check "full length: not stopped early, every thread took at least 95 % of $planned samples ($(jq -c .measurement.samples "$m"))" \
	jqt --argjson p $planned \
	'.measurement.stopped_early == false and
	 (.measurement.samples | length > 0 and all(. * 100 >= $p * 95))' "$m"
check "manifest: the trace was kept at the worst wakeup, timed from the waking" \
	test "$(jq -r '"\(.trace.capture) \(.trace.latency)"' "$m")" = \
	"snapshot_at_max waking_to_switch"
check "manifest: the maximum and its thread ($(jq -c '[.trace.spike_us, .trace.spike_pid]' "$m"))" \
	jqt '(.trace.spike_us | type == "number" and . > 0) and
	 (.trace.spike_pid | type == "number" and . > 0)' "$m"
ctmax=$(jq '[.thread[] | .max] | max' "$work/b/cyclictest.json")
check "the maximum (waking to switch-in) is within cyclictest's own maximum ($ctmax us)" \
	jqt --argjson c "$ctmax" '.trace.spike_us <= $c' "$m"
check "manifest: the kept buffer's entries and lost events ($(jq -c '[.trace.entries, .trace.lost_events]' "$m"))" \
	jqt '(.trace.entries | type == "number" and . > 0) and
	 (.trace.lost_events | type == "number" and . >= 0)' "$m"

if ! trace-cmd report "$work/b/trace.dat" >"$work/report" \
	2>"$work/report.err"; then
	not_ok "trace-cmd report on this host parses trace.dat"
	tail -5 "$work/report.err"
else
	ok "trace-cmd report on this host parses trace.dat"
fi
# The kept trace is a window around the worst wakeup, not the whole run:
# the scheduler's events and the tick (every 4 ms) are in any window, a
# device interrupt (irq_handler_*) only when a device happened to raise
# one in it, so those are counted, not required.
for ev in sched_switch sched_wakeup softirq_entry local_timer_entry; do
	n=$(grep -c " $ev: " "$work/report")
	check "trace holds $ev events ($n)" test "$n" -gt 0
done
echo "# device interrupts in the kept window: $(grep -c ' irq_handler_entry: ' "$work/report")"
jq -r '.trace.events[]' "$m" | while IFS= read -r ev; do
	case $ev in irq:irq_handler_*) continue ;; esac
	pat=$(printf '%s' "${ev#*:}" | sed 's/\*/[a-z_]*/g')
	grep -q " $pat: " "$work/report" || echo "$ev" >>"$work/absent"
done
check "every event the manifest lists as traced appears in the window ($(cat "$work/absent" 2>/dev/null | tr '\n' ' '))" \
	test ! -s "$work/absent"

# The kept trace holds the worst wakeup: the analysis finds a measuring
# thread's wakeup in it, of the thread the hist trigger named.
if "$RTLAB" analyze "$work/b/trace.dat" --json >"$work/spike.json" \
	2>"$work/spike.err"; then
	ok "rtlab analyze finds a spike in the kept trace ($(jq -c '[.source, .lat_us, .thread.pid]' "$work/spike.json"))"
	check "the analysis reads the agent's mark (source snapshot)" \
		test "$(jq -r .source "$work/spike.json")" = snapshot
	check "the analysed thread and latency are the maximum's" \
		test "$(jq -r '"\(.thread.pid) \(.lat_us)"' "$work/spike.json")" = \
		"$(jq -r '"\(.trace.spike_pid) \(.trace.spike_us)"' "$m")"
else
	not_ok "rtlab analyze finds a spike in the kept trace"
	cat "$work/spike.err"
fi
check "no tracemark: cyclictest never breaks" \
	test "$(grep -c 'hit latency threshold' "$work/report")" = 0

# Into the lab: a throwaway database and server, then read it back.
if ! start_db; then
	not_ok "throwaway database starts"
	exit 1
fi
board=$(jq -r .board "$m")
token=$("$RTLAB" board add "$board" --kind qemu --quiet 2>"$work/board.err")
check "board $board registered" test ${#token} = 64
start_server "$work" || { not_ok "server starts"; exit 1; }
api=$URL/api/v1/runs
st=$(curl -s -o "$work/resp" -w '%{http_code}' \
	-H "Authorization: Bearer $token" \
	-H 'Content-Type: application/gzip' \
	--data-binary @"$work/b.bundle" "$api")
check "the board's bundle is stored (HTTP $st)" test "$st" = 201
run=$(jq -r .run_id "$m")
st=$(curl -s -o "$work/trace.got" -w '%{http_code}' "$api/$run/trace.dat")
check "GET /api/v1/runs/{id}/trace.dat is 200 (got $st)" test "$st" = 200
check "... and returns the bundle's trace.dat byte for byte" \
	cmp -s "$work/trace.got" "$work/b/trace.dat"
