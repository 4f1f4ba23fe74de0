#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A large regression files whole into a Bugzilla with default limits, in
# one command, and a later verdict of it updates that bug:
#  - the trace: a real trace.dat of over 14 MB, recorded by the agent
#    (trace-cmd) inside the icount virtual board booting Debian's
#    PREEMPT_RT kernel under hackbench: a full 16 MB buffer at the end of
#    the measurement, the syscalls traced too; kept in
#    $RTLAB_CACHE_DIR/traces/ so later runs on the machine reuse it;
#  - 500 baseline and 500 candidate runs (tests/fixtures/report/mkruns.py)
#    uploaded to a real server through the HTTP ingest, the worst candidate
#    run carrying that trace; the server's verdict is a REGRESSION;
#  - `rtlab report file` into the Bugzilla stand-in at its defaults (1000
#    KB attachments, 65,535-character comments, both refused with
#    Bugzilla's codes 600 and 114): comment 0 within the limits (150 lines
#    of 80 columns), every attachment it names attached, the trace's window
#    read by trace-cmd with the full trace's spike analysis, the full trace
#    at the public_url link byte for byte, every run in runs.txt;
#  - one more candidate run, a new verdict: filed as a comment on the same
#    bug with its attachments, no second bug.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-reportlarge.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
FIX=$TOP/tests/fixtures/report
STANDIN=$TOP/tests/bugzilla-standin.py
RUNS=500		# per side
# By default the agent keeps the buffer as it was at the run's worst
# wakeup, and the trace's size depends on when that wakeup came (139
# events to 12.4 MB seen).  This trace is the buffer at the end of the
# measurement (trace.capture: end_of_run), full: 16 MB of events plus
# trace-cmd's headers (kallsyms ~4 MB), 21.8 MB seen.
MIN_TRACE=$((14 * 1024 * 1024))
unset RTLAB_BUGZILLA_API_KEY
t0=$(date +%s)
phase() { echo "# $(($(date +%s) - t0)) s: $*"; }

# -- the trace ------------------------------------------------------------------
# cyclictest-hackbench-fulltrace as shipped: a 16 MB buffer kept at the end
# of the measurement, and besides the scheduler and interrupts the
# syscalls, timers, allocations and socket buffers: 6 s of hackbench write
# ~500,000 events, ~200,000 more than the buffer holds, so it is full
# whatever the spike.
cp "$TOP/testcases/cyclictest-hackbench-fulltrace.yaml" "$work/testcase.yaml"
check "the full-trace testcase: kmem events, 16 MB, kept at the end" sh -c \
	'grep -qx "    - kmem:kmem_cache_free" "$1" &&
	 grep -qx "  buffer_kb: 16384" "$1" &&
	 grep -qx "  capture: end_of_run" "$1"' - "$work/testcase.yaml"
DURATION_S=6
key=$( (cat "$work/testcase.yaml"; echo "debian-rt $DURATION_S") |
	sha256sum | cut -c1-16)
TRACE=$RTLAB_CACHE_DIR/traces/report-large-$key.dat
if [ -s "$TRACE" ] && "$RTLAB" analyze "$TRACE" >/dev/null 2>&1; then
	echo "# trace from the cache: $TRACE"
else
	echo "# recording the trace on the virtual board (kept in $TRACE)"
	vb_state=${RTLAB_TEST_STATE:-$RTLAB_BUILD/test-state}
	mkdir -p "$vb_state" "$RTLAB_CACHE_DIR/traces"
	RTLAB_STATE_DIR=$vb_state nice -n 10 "$RTLAB" boot \
		--board qemu-icount --kernel debian-rt \
		--testcase "$work/testcase.yaml" --duration $DURATION_S \
		--out "$work/run.bundle" -q >"$work/boot.out" 2>&1
	rc=$?
	check "rtlab boot: the board recorded the trace (exit $rc)" test $rc = 0
	mkdir "$work/b"
	tar xzf "$work/run.bundle" -C "$work/b" 2>/dev/null
	if [ ! -s "$work/b/trace.dat" ]; then
		not_ok "the bundle holds trace.dat"
		cat "$work/boot.out"
		exit 1
	fi
	cp "$work/b/trace.dat" "$TRACE.tmp.$$" &&
		mv "$TRACE.tmp.$$" "$TRACE"
fi
tsize=$(stat -c %s "$TRACE")
check "the trace is real and large: $tsize bytes (at least $MIN_TRACE)" \
	test "$tsize" -ge $MIN_TRACE
trace-cmd report -i "$TRACE" 2>/dev/null | head -n 3 >"$work/trace.head"
check "trace-cmd report reads it" grep -q 'cpus=' "$work/trace.head"
"$RTLAB" analyze "$TRACE" 2>&1 | grep -v '^  trace: ' >"$work/full.spike"
# Kept at the end, not at the worst: the trace's own worst wakeup.
check "rtlab analyze finds its spike" grep -q \
	"hit its worst wakeup-to-run latency" "$work/full.spike"
grep -q "hit its worst wakeup-to-run latency" "$work/full.spike" ||
	sed 's/^/# analyze: /' "$work/full.spike"

phase "writing and uploading the runs"
# -- 1000 runs into a real server ----------------------------------------------
need_db
TOKEN=$("$RTLAB" board add qemu-icount --kind qemu --quiet 2>"$work/board.err")
check "board qemu-icount registered" test ${#TOKEN} = 64
cat >"$work/rtlab.conf" <<EOF
public_url = http://127.0.0.1:PORT
EOF
start_server "$work" --threads 2 || { not_ok "server starts"; exit 1; }
sed -i "s/PORT/$PORT/" "$work/rtlab.conf"
export RTLAB_CONFIG="$work/rtlab.conf"

mkdir "$work/base" "$work/cand" "$work/more"
python3 "$FIX/mkruns.py" --out "$work/base" --side baseline --seed 1 \
	--count $RUNS --no-files >/dev/null &&
	python3 "$FIX/mkruns.py" --out "$work/cand" --side candidate --seed 2 \
		--count $RUNS --trace "$TRACE" --no-files >/dev/null
check "$((2 * RUNS)) bundles written" \
	test "$(ls "$work/base" "$work/cand" | grep -c '\.bundle$')" = $((2 * RUNS))
upload() {	# DIR: uploads every bundle of DIR, prints how many were stored
	for b in "$1"/*.bundle; do
		curl -s -o /dev/null -w '%{http_code}\n' \
			-H "Authorization: Bearer $TOKEN" \
			-H 'Content-Type: application/gzip' \
			--data-binary @"$b" "$URL/api/v1/runs"
	done | grep -c '^201$'
}
n=$(upload "$work/base")
check "$RUNS baseline runs stored through the HTTP ingest (got $n)" \
	test "$n" = $RUNS
n=$(upload "$work/cand")
check "$RUNS candidate runs stored (got $n)" test "$n" = $RUNS

phase "runs stored"
"$RTLAB" verdicts --json >"$work/verdicts.json" 2>&1
VID=$(jq -r '[.[] | select(.verdict == "REGRESSION")][0].id // empty' \
	"$work/verdicts.json")
check "the server's verdict is a REGRESSION (id '$VID')" test -n "$VID"
[ -n "$VID" ] || { cat "$work/verdicts.json"; exit 1; }
check "... of $RUNS runs per side" test "$("$RTLAB" db psql -tAc \
	"SELECT cardinality(baseline_runs) || ' ' || cardinality(candidate_runs)
	 FROM verdicts WHERE id = $VID")" = "$RUNS $RUNS"
WORST=$("$RTLAB" db psql -tAc "SELECT r.id FROM verdicts v, runs r
	JOIN histograms h ON h.run_id = r.id
	WHERE v.id = $VID AND r.id = ANY (v.candidate_runs)
	ORDER BY h.max_us DESC LIMIT 1")

phase "filing"
# -- filing, one command ----------------------------------------------------------
mkdir "$work/bz"
python3 "$STANDIN" --log "$work/bz.log" --store "$work/bz" \
	>"$work/bz.out" 2>&1 &
BZ_PID=$!
on_exit "kill $BZ_PID 2>/dev/null"
i=0
until grep -q '^listening on' "$work/bz.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 100 ] && { not_ok "stand-in starts"; cat "$work/bz.out"; exit 1; }
	sleep 0.1
done
BZ=http://127.0.0.1:$(sed -n 's/^listening on //p' "$work/bz.out")
touch "$work/bz.log"

RTLAB_BUGZILLA_API_KEY=secret-key "$RTLAB" report file "$VID" \
	--bugzilla "$BZ" >"$work/file.out" 2>&1
rc=$?
check "rtlab report file $VID: exit 0 ($(tail -n 1 "$work/file.out"))" \
	test $rc = 0
check "one bug filed, every attachment on it" grep -q \
	"filed as bug 1000: $BZ/show_bug.cgi?id=1000 (\([0-9]*\) of \1 attachments)" \
	"$work/file.out"
check "nothing refused: no code 600 or 114 (nor any error) from the server" \
	test "$(grep -c -i 'code [0-9]\|error\|HTTP [45]' "$work/file.out")" = 0
C0=$work/bz/1000-comment-0.txt
check "comment 0 stored by the server" test -s "$C0"
chars=$(python3 -c 'import sys; print(len(open(sys.argv[1]).read()))' "$C0")
check "comment 0: $chars characters, within 65,535" test "$chars" -le 65535
lines=$(wc -l <"$C0")
check "comment 0: $lines lines, at most 150" test "$lines" -le 150
check "comment 0: no line wider than 80 columns" \
	test "$(awk 'length > 80' "$C0" | wc -l)" = 0
tr '\n' ' ' <"$C0" | tr -s ' ' >"$work/c0.joined"
for s in "== What regressed ==" "== Which kernels ==" "== Where ==" \
	"== Spike analysis ==" "== How to reproduce ==" "== Runs ==" \
	"== Attachments =="; do
	grep -n -F -x "$s" "$C0" | cut -d: -f1
done >"$work/sections"
check "comment 0: regressed, kernels, where, spike, reproduce, runs, in order" \
	sh -c 'test "$(wc -l <"$1")" = 7 && sort -n -c "$1"' - "$work/sections"
check "comment 0: each side's runs summarised" \
	grep -q "^  candidate: $RUNS runs, " "$C0"

# Every attachment comment 0 lists is on the bug, and nothing else.
sed -n '/^== Attachments ==$/,/^$/p' "$C0" |
	sed -n 's/^  [0-9][0-9] \([^ ]*\) (.*/\1/p' | sort >"$work/listed"
ls "$work/bz" | sed -n 's/^1000-//p' | grep -v '^comment-' | sort \
	>"$work/posted"
check "every attachment comment 0 names is attached ($(tr '\n' ' ' <"$work/listed"))" \
	sh -c 'test -s "$1" && cmp -s "$1" "$2"' - "$work/listed" "$work/posted"
check "the bug's attachments are the ones POSTed, each once" \
	test "$(jq -s '[.[] | select(.method == "POST" and
		(.path | endswith("/attachment")))] | length' "$work/bz.log")" = \
	"$(wc -l <"$work/listed")"
check "trace.dat over 1000 KB: not attached, said so" grep -q \
	"trace.dat of candidate run $WORST captured ($tsize bytes), not attached: over the server's attachment limit of 1000 KB" \
	"$work/c0.joined"
check "the trace's window attached instead, same analysis" grep -q \
	"Attached instead: trace-window.dat[.xz]* (.* bytes), .* its spike analysis equals the full trace's" \
	"$work/c0.joined"

# The window: a trace.dat trace-cmd opens, with the full trace's analysis.
if [ -s "$work/bz/1000-trace-window.dat.xz" ]; then
	xz -dc "$work/bz/1000-trace-window.dat.xz" >"$work/window.dat"
else
	cp "$work/bz/1000-trace-window.dat" "$work/window.dat" 2>/dev/null
fi
check "the window is under 1000 KB as sent" test "$(stat -c %s \
	"$work/bz/1000-trace-window.dat"* 2>/dev/null | head -n 1)" -le 1024000
trace-cmd report -i "$work/window.dat" >"$work/window.txt" 2>/dev/null
check "trace-cmd report opens the window ($(wc -l <"$work/window.txt") lines)" \
	test "$(grep -c ' sched_switch: ' "$work/window.txt")" -gt 0
"$RTLAB" analyze "$work/window.dat" 2>&1 | grep -v '^  trace: ' \
	>"$work/window.spike"
check "the window's spike analysis equals the full trace's" \
	cmp -s "$work/window.spike" "$work/full.spike"

# The full trace, where the link says.
link="http://127.0.0.1:$PORT/api/v1/runs/$WORST/trace.dat"
check "the full trace linked at public_url: $link" grep -q -F \
	"The full trace: $link" "$work/c0.joined"
curl -s -o "$work/full.got" "$link"
check "... and served there byte for byte" cmp -s "$work/full.got" "$TRACE"

# The run list.
check "runs.txt attached" test -s "$work/bz/1000-runs.txt"
check "runs.txt holds all $((2 * RUNS)) runs" test \
	"$(grep -c '^  \(baseline\|candidate\) *run ' "$work/bz/1000-runs.txt")" = \
	$((2 * RUNS))
"$RTLAB" db psql -tAc "SELECT files FROM reports WHERE verdict_id = $VID
	AND bug_id = 1000" >"$work/files.json"
check "the bug and its attachments recorded, none missing" \
	jqt '.missing == []' "$work/files.json"

phase "a later verdict"
# -- a later verdict of the same regression ---------------------------------------
python3 "$FIX/mkruns.py" --out "$work/more" --side candidate --seed 3 \
	--count 1 --no-files >/dev/null
n=$(upload "$work/more")
check "one more candidate run stored (got $n)" test "$n" = 1
VID2=$("$RTLAB" db psql -tAc "SELECT max(id) FROM verdicts
	WHERE verdict = 'REGRESSION'")
check "a new verdict of the regression ($VID2), the filed one kept" \
	test -n "$VID2" -a "$VID2" != "$VID"
RTLAB_BUGZILLA_API_KEY=secret-key "$RTLAB" report file "$VID2" \
	--bugzilla "$BZ" >"$work/file2.out" 2>&1
rc=$?
check "rtlab report file $VID2: exit 0 ($(tail -n 1 "$work/file2.out"))" \
	test $rc = 0
check "no second bug" test "$(jq -s '[.[] | select(.method == "POST" and
	.path == "/rest/bug")] | length' "$work/bz.log")" = 1
check "the new verdict is a comment on bug 1000" \
	grep -q "rtlab verdict $VID2, a new verdict of this regression" \
	"$work/bz/1000-comment-1.txt"
check "... within the comment limits (150 lines of 80 columns)" \
	test "$(wc -l <"$work/bz/1000-comment-1.txt")" -le 152 -a \
	"$(awk 'length > 80' "$work/bz/1000-comment-1.txt" | wc -l)" = 0
check "... with its attachments on the same bug, nothing refused" test \
	"$(jq -s '[.[] | select(.method == "POST" and
		(.path == "/rest/bug/1000/attachment"))] | length' \
		"$work/bz.log")" -gt "$(wc -l <"$work/listed")" -a \
	"$(grep -c -i 'code [0-9]\|error\|HTTP [45]' "$work/file2.out")" = 0
check "the second verdict recorded against bug 1000" test "$("$RTLAB" db \
	psql -tAc "SELECT count(*) FROM reports WHERE bug_id = 1000")" = 2
phase "done"
