#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The RT tests beyond cyclictest on the virtual board: rtla timerlat and
# osnoise (histograms per CPU), signaltest, pmqtest, cyclicdeadline and
# pi_stress (pass/fail with counts), each run as a job (one boot each,
# 2-second measurements, two workers) on Debian's PREEMPT_RT kernel; then
# what PostgreSQL stored, through the API, the web page and rtlab compare.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-vbrt.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
need_db

printf '{"board": "qemu-icount"}\n' >"$work/vb.json"
check "virtual board registered" sh -c \
	"'$RTLAB' board add vb --kind qemu --definition '$work/vb.json' --quiet >/dev/null"
queue() {	# TESTCASE REPEAT
	"$RTLAB" job add --kernel debian-rt --board vb --testcase "$1" \
		--repeat "$2" --duration 2 --quiet >>"$work/jobs" 2>>"$work/add.err"
}
queue rtla-timerlat 2
queue rtla-osnoise 1
queue signaltest 1
queue pmqtest 1
queue cyclicdeadline 1
queue pi_stress 1
check "7 jobs queued" test "$(wc -l <"$work/jobs")" = 7

"$RTLAB" worker --board vb --drain --name w1 >"$work/w1.log" 2>&1 &
w1=$!
"$RTLAB" worker --board vb --drain --name w2 >"$work/w2.log" 2>&1 &
w2=$!
on_exit "kill $w1 $w2 2>/dev/null"
wait $w1; r1=$?
wait $w2; r2=$?
check "both workers drained the queue (exit $r1, $r2)" test "$r1$r2" = 00
check "every job done" test "$("$RTLAB" db psql -tAc \
	"SELECT count(*) FROM jobs WHERE state = 'done'")" = 7
if [ "$r1$r2" != 00 ]; then
	tail -n 20 "$work/w1.log" "$work/w2.log" | sed 's/^/# /'
fi

ids() {	# TESTCASE: complete run ids, oldest first, comma-separated
	"$RTLAB" runs --board vb --testcase "$1" --status complete --json |
		jq -r 'map(.id) | sort | map(tostring) | join(",")'
}
for tc in rtla-timerlat rtla-osnoise signaltest pmqtest cyclicdeadline \
	pi_stress; do
	id=$(ids $tc | cut -d, -f1)
	check "$tc: a complete run stored (${id:-none})" test -n "$id"
	eval "id_$(echo $tc | tr -- '-' '_')=\${id:-0}"
done
if [ "${id_rtla_timerlat:-0}" = 0 ]; then
	"$RTLAB" runs --board vb --json | jq -c '.[] | [.testcase, .status]' |
		sed 's/^/# /'
	"$RTLAB" db psql -tAc "SELECT testcase_id, status, error FROM runs" |
		sed 's/^/# /'
fi

if start_server "$work"; then ok "server"; else not_ok "server"; fi

# --- histograms: timerlat (two per CPU) and osnoise ----------------------
get "/api/v1/runs/$id_rtla_timerlat" >/dev/null
cp "$work/resp" "$work/tl.json"
check "timerlat run: tool timerlat in the API" \
	jqt '.tool == "timerlat"' "$work/tl.json"
check "... a timerlat-thread and a timerlat-irq histogram per CPU" \
	jqt '([.cpus[] | select(.metric == "timerlat-thread")] | length) >= 1
	    and ([.cpus[] | .metric] | map(select(. == "timerlat-irq")) |
	    length) == ([.cpus[] | select(.metric == "timerlat-thread")] |
	    length)' "$work/tl.json"
check "... every histogram has samples and a maximum" \
	jqt '(.cpus | length) as $n |
	    [.cpus[] | select(.samples > 0 and .max_us != null)] | length == $n' \
	"$work/tl.json"
get "/api/v1/runs/$id_rtla_timerlat/histogram" >/dev/null
check "... its buckets in the histograms endpoint, by metric" \
	jqt '[.threads[] | select(.metric == "timerlat-irq" and
	    (.bucket_us | length) > 0)] | length >= 1' "$work/resp"
get "/api/v1/runs/$id_rtla_osnoise" >/dev/null
check "osnoise run: one osnoise histogram per CPU" \
	jqt '.tool == "osnoise" and (.cpus | length) >= 1 and
	    ([.cpus[] | select(.metric != "osnoise")] | length) == 0' \
	"$work/resp"
get "/runs/$id_rtla_timerlat" >/dev/null
check "the run's web page names the metrics" \
	grep -q 'timerlat-irq' "$work/resp"

# --- pass/fail with counts -------------------------------------------------
for tc in signaltest pmqtest cyclicdeadline; do
	eval "id=\$id_$tc"
	get "/api/v1/runs/$id" >/dev/null
	check "$tc: passed, with cycles and a maximum per thread" \
		jqt ".tool == \"$tc\" and .results.passed == true and
		    (.results.threads | length) >= 1 and
		    ([.results.threads[] | select(.cycles > 0)] | length) ==
		    (.results.threads | length) and (.cpus | length) == 0" \
		"$work/resp"
done
get "/api/v1/runs/$id_pi_stress" >/dev/null
check "pi_stress: passed, with its inversions counted" \
	jqt '.results.passed == true and .results.inversions > 0' "$work/resp"
get "/runs/$id_pi_stress" >/dev/null
check "the pass/fail run's web page shows the result" \
	grep -q 'passed' "$work/resp"

# --- rtlab compare -----------------------------------------------------------
rt=$("$RTLAB" kernel fetch debian-rt | sed -n 's/^release: *//p')
a=$(ids rtla-timerlat | cut -d, -f1) b=$(ids rtla-timerlat | cut -d, -f2)
"$RTLAB" compare --board vb --testcase rtla-timerlat --baseline "$rt" \
	--candidate "$rt" --baseline-runs "$a" --candidate-runs "$b" \
	>"$work/cmp-tl.txt" 2>&1
check "compare on timerlat: a verdict ($(sed -n 's/^verdict: //p' \
	"$work/cmp-tl.txt"))" has "$work/cmp-tl.txt" '^verdict: '
"$RTLAB" compare --board vb --testcase pi_stress --baseline "$rt" \
	--candidate "$rt" >"$work/cmp-pi.txt" 2>&1
check "compare on pi_stress: pass/fail counts of both sides" \
	has "$work/cmp-pi.txt" '^candidate .*1 run\(s\), 1 passed, 0 failed'
check "... and a verdict by rule (NO_CHANGE)" \
	has "$work/cmp-pi.txt" '^verdict: NO_CHANGE'
"$RTLAB" compare --json --board vb --testcase signaltest --baseline "$rt" \
	--candidate "$rt" >"$work/cmp-sig.json" 2>&1
check "compare --json on signaltest: kind pass_fail" \
	jqt '.kind == "pass_fail" and .candidate.max_us > 0' "$work/cmp-sig.json"

# --- rtlab show --------------------------------------------------------------
"$RTLAB" show "$id_rtla_timerlat" >"$work/show-tl.txt" 2>&1
check "rtlab show names timerlat's metrics" \
	has "$work/show-tl.txt" ' timerlat-irq$'
"$RTLAB" show "$id_pi_stress" >"$work/show-pi.txt" 2>&1
check "rtlab show gives pi_stress's result" \
	has "$work/show-pi.txt" '^result +passed \(return code 0, [0-9]+ inversions\)'
