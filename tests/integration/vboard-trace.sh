#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ftrace capture end to end: boot Debian's PREEMPT_RT kernel on the icount
# virtual board with the shipped cyclictest-hackbench testcase, shortened
# and with a breaktrace threshold low enough that a spike is likely, and
# check the bundle's trace.dat: `trace-cmd report` on this host parses it,
# the requested events are in it, and the manifest's trace record agrees
# with it (spike, tracemark, early stop).  Then store the bundle through a
# throwaway database and server and read trace.dat back byte for byte.
#
# The kernel is fetched once into the cache all tests share
# ($RTLAB_CACHE_DIR, see tests/lib.sh).
. "$(dirname "$0")/../lib.sh"

BREAK_US=40
DURATION_S=3
vb_state=${RTLAB_TEST_STATE:-$RTLAB_BUILD/test-state}
work=$(mktemp -d /tmp/rtlab-vbtrace.XXXXXX) || exit 1
on_exit "rm -rf '$work'"

# The shipped testcase, its threshold and buffer lowered for a short run.
sed -e "s/^  break_us: .*/  break_us: $BREAK_US/" \
	-e 's/^  buffer_kb: .*/  buffer_kb: 2048/' \
	"$TOP/testcases/cyclictest-hackbench.yaml" >"$work/testcase.yaml"
check "short variant of cyclictest-hackbench.yaml has break_us $BREAK_US" \
	grep -qx "  break_us: $BREAK_US" "$work/testcase.yaml"

mkdir -p "$vb_state"
RTLAB_STATE_DIR=$vb_state "$RTLAB" boot --board qemu-icount \
	--kernel debian-rt --testcase "$work/testcase.yaml" \
	--duration $DURATION_S --out "$work/run.bundle" -q \
	>"$work/boot.out" 2>&1
rc=$?
check "rtlab boot: the board ran the testcase, status complete (exit $rc)" \
	test $rc = 0
if [ ! -s "$work/run.bundle" ]; then
	not_ok "a bundle came back"
	cat "$work/boot.out"
	exit 1
fi
mkdir "$work/b"
tar xzf "$work/run.bundle" -C "$work/b"
m=$work/b/manifest.json
check "trace.dat is in the bundle" test -s "$work/b/trace.dat"
check "the manifest lists trace.dat with its size and sha256" test \
	"$(jq -r '.files["trace.dat"] | "\(.size) \(.sha256)"' "$m")" = \
	"$(stat -c %s "$work/b/trace.dat") $(sha256sum "$work/b/trace.dat" | cut -d' ' -f1)"
check "manifest: trace.status captured" \
	test "$(jq -r .trace.status "$m")" = captured
check "manifest: trace.break_us and buffer_kb as asked" \
	test "$(jq -r '"\(.trace.break_us) \(.trace.buffer_kb)"' "$m")" = \
	"$BREAK_US 2048"
check "cyclictest ran with -b $BREAK_US --tracemark" \
	jq -e >/dev/null --arg b "-b $BREAK_US --tracemark" \
	'any(.commands[]; startswith("cyclictest") and contains($b))' "$m"

if ! trace-cmd report "$work/b/trace.dat" >"$work/report" \
	2>"$work/report.err"; then
	not_ok "trace-cmd report on this host parses trace.dat"
	tail -5 "$work/report.err"
else
	ok "trace-cmd report on this host parses trace.dat"
fi
for ev in sched_switch sched_wakeup irq_handler_entry softirq_entry \
	local_timer_entry; do
	n=$(grep -c " $ev: " "$work/report")
	check "trace holds $ev events ($n)" test "$n" -gt 0
done
jq -r '.trace.events[]' "$m" | while IFS= read -r ev; do
	pat=$(printf '%s' "${ev#*:}" | sed 's/\*/[a-z_]*/g')
	grep -q " $pat: " "$work/report" || echo "$ev" >>"$work/absent"
done
check "every event the manifest lists as traced appears in the report" \
	test ! -s "$work/absent"

has_mark() { printf '%s\n' "$1" | grep -qF "tracing_mark_write: $2"; }

# The spike: the trace ends at cyclictest's mark when it stopped there (an
# interrupt may still slip in between the mark and tracing_on going to 0).
spike=$(jq -r .trace.stopped_at_spike "$m")
last=$(grep -v '^ *$' "$work/report" | tail -n 5)
if [ "$spike" = true ]; then
	x=$(jq -r .trace.spike_us "$m")
	check "stopped at a spike: the mark is among the trace's last events" \
		has_mark "$last" "hit latency threshold ($x > $BREAK_US)"
	check "stopped at a spike: measurement.stopped_early, break_lat_us $x" \
		test "$(jq -r '"\(.measurement.stopped_early) \(.measurement.break_lat_us)"' "$m")" = "true $x"
else
	check "no spike past $BREAK_US us: no mark in the trace" \
		test "$(grep -c 'hit latency threshold' "$work/report")" = 0
	check "no spike: the measurement ran its course" \
		test "$(jq -r .measurement.stopped_early "$m")" = false
fi

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
	--data-binary @"$work/run.bundle" "$api")
check "the board's bundle is stored (HTTP $st)" test "$st" = 201
run=$(jq -r .run_id "$m")
st=$(curl -s -o "$work/trace.got" -w '%{http_code}' "$api/$run/trace.dat")
check "GET /api/v1/runs/{id}/trace.dat is 200 (got $st)" test "$st" = 200
check "... and returns the bundle's trace.dat byte for byte" \
	cmp -s "$work/trace.got" "$work/b/trace.dat"
