#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Verdicts on the icount virtual board with Debian's real kernels, queued
# as jobs and run by two workers: the RT kernel against itself (A/A, two
# sets of boots) must not be called a regression, and the non-RT kernel
# under process churn against the RT baseline must.  Short runs (1 s of
# guest time each), five boots per side.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-vbverdict.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
if start_db; then ok "throwaway database"; else not_ok "throwaway database"; exit 1; fi

TC=cyclictest-churn
printf '{"board": "qemu-icount"}\n' >"$work/vb.json"
check "virtual board registered" sh -c \
	"'$RTLAB' board add vb --kind qemu --definition '$work/vb.json' --quiet >/dev/null"
"$RTLAB" job add --kernel debian-rt --board vb --testcase $TC --repeat 10 \
	--duration 1 --quiet >"$work/jobs-rt" 2>"$work/add.err"
check "10 RT jobs queued" test "$(wc -l <"$work/jobs-rt")" = 10
"$RTLAB" job add --kernel debian --board vb --testcase $TC --repeat 5 \
	--duration 1 --quiet >"$work/jobs-nonrt" 2>>"$work/add.err"
check "5 non-RT jobs queued" test "$(wc -l <"$work/jobs-nonrt")" = 5

# Two workers, one QEMU each, storing straight into the database.
"$RTLAB" worker --board vb --drain --name w1 >"$work/w1.log" 2>&1 &
w1=$!
"$RTLAB" worker --board vb --drain --name w2 >"$work/w2.log" 2>&1 &
w2=$!
on_exit "kill $w1 $w2 2>/dev/null"
wait $w1; r1=$?
wait $w2; r2=$?
check "both workers drained the queue (exit $r1, $r2)" test "$r1$r2" = 00
check "every job done" test "$("$RTLAB" db psql -tAc \
	"SELECT count(*) FROM jobs WHERE state = 'done'")" = 15

ids() {	# RELEASE FROM COUNT: complete run ids of a kernel, oldest first
	"$RTLAB" runs --board vb --kernel "$1" --testcase $TC --status complete \
		--limit 100 --json |
		jq -r "map(.id) | sort | .[$2:$2 + $3] | map(tostring) | join(\",\")"
}
rt=$("$RTLAB" kernel fetch debian-rt | sed -n 's/^release: *//p')
nonrt=$("$RTLAB" kernel fetch debian | sed -n 's/^release: *//p')
a=$(ids "$rt" 0 5) b=$(ids "$rt" 5 5) n=$(ids "$nonrt" 0 5)
check "5 + 5 RT runs and 5 non-RT runs stored" test \
	"$(echo "$a,$b,$n" | tr ',' '\n' | grep -c .)" = 15

"$RTLAB" compare --board vb --testcase $TC --baseline "$rt" \
	--candidate "$rt" --baseline-runs "$a" --candidate-runs "$b" \
	>"$work/aa.txt" 2>&1
check "RT vs RT: a verdict ($(sed -n 's/^verdict: //p' "$work/aa.txt"))" \
	grep -q '^verdict: ' "$work/aa.txt"
check "RT vs RT: not REGRESSION" sh -c "! grep -q '^verdict: REGRESSION' '$work/aa.txt'"
"$RTLAB" compare --board vb --testcase $TC --baseline "$rt" \
	--candidate "$nonrt" --baseline-runs "$a" >"$work/rn.txt" 2>&1
check "non-RT vs RT baseline under churn: REGRESSION ($(sed -n \
	's/^reason *//p' "$work/rn.txt"))" grep -q '^verdict: REGRESSION' "$work/rn.txt"
check "... the per-run maxima decide it" grep -q '^  max *REGRESSION' "$work/rn.txt"
check "... on the icount clock" grep -q "clock icount:3" "$work/rn.txt"
