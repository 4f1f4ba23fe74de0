#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Bisection end to end on the icount virtual board with four real Debian
# PREEMPT_RT kernels (linux-image-6.1.0-54 .. -57-rt-amd64 of the tree
# debian-6.1-rt, as apt lists them).  A regression is planted from -56 on:
# those kernels run the testcase with the rtlab_inject module built
# against their own headers (300 us with preemption off every 100 ms
# +/- 50 %), under the same testcase name; the kernels before it run it
# clean.  The latency is real, measured by cyclictest in the guest; only
# where it comes from is known.  Two workers drain the queue; no one
# decides anything; the bisection must name -56, and the report of the
# REGRESSION its ends reproduced must carry it.  3 s runs (with 1 s runs
# the ends stayed INCONCLUSIVE), 4 per side at one look (alpha 0.15): 16
# boots.  The kernels are downloaded once into the cache (build/cache).
set -u
. "$(dirname "$0")/../lib.sh"
export RTLAB_DATADIR="$TOP"

tmp=$(mktemp -d /tmp/rtlab-bisect-vboard.XXXXXX)
on_exit "rm -rf '$tmp'"
need_db

TC=calibrate-idle
INJ="$TOP/testcases/calibrate-inject-module.yaml"
TREE=debian-6.1-rt
"$RTLAB" tree discover $TREE >"$tmp/tree" 2>&1
check "tree $TREE discovered through apt" test $? = 0
k() {	# the PACKAGE=VERSION of linux-image-6.1.0-$1-rt-amd64
	sed -n "s/^ *[0-9]*  \(linux-image-6.1.0-$1-rt-amd64\) *\([^ ]*\).*/\1=\2/p" \
		"$tmp/tree"
}
good=$(k 54) step1=$(k 55) planted=$(k 56) bad=$(k 57)
check "the tree holds -54 .. -57 ($good .. $bad)" test -n "$good" -a \
	-n "$step1" -a -n "$planted" -a -n "$bad"
for kk in "$good" "$step1" "$planted" "$bad"; do
	nice -n 10 "$RTLAB" kernel fetch "$kk" >"$tmp/fetch" 2>&1 ||
		{ not_ok "kernel fetch $kk"; sed 's/^/#   /' "$tmp/fetch"; }
done
ok "four kernels in the cache"

printf '{"board": "qemu-icount"}\n' >"$tmp/vb.json"
check "virtual board registered" sh -c \
	"'$RTLAB' board add vb --kind qemu --definition '$tmp/vb.json' --quiet >/dev/null"
check "testcase $TC: 4 runs per side, one look, alpha 0.15" sh -c \
	"'$RTLAB' testcase set $TC --min-runs 4 --looks 1 --alpha 0.15 >/dev/null"

id=$("$RTLAB" bisect start --board vb --testcase $TC --duration 3 \
	--good "$good" --bad "$bad" --plant-from "$planted" \
	--plant-testcase "$INJ" 2>"$tmp/start.err")
check "bisection started over the tree's series (id ${id:-none})" \
	test -n "$id"
[ -n "$id" ] || sed 's/^/#   /' "$tmp/start.err"
"$RTLAB" bisect status "$id" >"$tmp/st0" 2>&1
check "the range is the tree's four kernels" has "$tmp/st0" \
	"range: +4 kernels \\(tree $TREE\\)"

nice -n 10 "$RTLAB" worker --board vb --drain --name w1 >"$tmp/w1.log" 2>&1 &
w1=$!
nice -n 10 "$RTLAB" worker --board vb --drain --name w2 >"$tmp/w2.log" 2>&1 &
w2=$!
on_exit "kill $w1 $w2 2>/dev/null"
wait $w1
wait $w2
# Draining workers wait while a bisection job runs: its end queues the
# next step.
"$RTLAB" bisect status "$id" >"$tmp/st1" 2>&1
"$RTLAB" bisect log "$id" >"$tmp/log1" 2>&1
check "the bisection ended ($(sed -n 's/^result: *//p' "$tmp/st1"))" \
	has "$tmp/st1" "^bisection $id: done"
check "the culprit is the planted kernel $planted" has "$tmp/st1" \
	"^culprit: +$planted\$"
check "the ends reproduced the regression first" has "$tmp/log1" \
	"bad/good REGRESSION"
check "every step decided against both ends" sh -c \
	"test \$(grep -c '^    vs good' '$tmp/log1') = \
	\$(grep -c '^step ' '$tmp/log1') && grep -q '^    vs bad' '$tmp/log1'"
sed 's/^/#   /' "$tmp/log1"
"$RTLAB" db psql -tAc "SELECT 'job ' || id || ' (' || kernel || '): ' || \
	state || ': ' || coalesce(error, '') FROM jobs WHERE bisect_id = $id \
	AND state <> 'done'" | sed 's/^/#   /'
# The ends' REGRESSION is the bisection's regression: its report (text and
# the bug's body) carries the culprit.
vid=$("$RTLAB" bisect status --json "$id" | jq -r '.regression_id // empty')
check "the ends' REGRESSION stored as verdict ${vid:-none}" sh -c \
	"test -n '$vid' && '$RTLAB' db psql -tAc \
	 \"SELECT verdict FROM verdicts WHERE id = 0$vid\" | grep -qx REGRESSION"
"$RTLAB" report "${vid:-0}" -o "$tmp/report" >"$tmp/report.out" 2>&1
check "its report names the culprit" has "$tmp/report/report.txt" \
	"^  culprit: +$planted\$"
check "its bug carries cf_bisect_commit $planted" sh -c \
	"jq -e --arg k '$planted' '.cf_bisect_commit == \$k' \
	 '$tmp/report/bug.json' >/dev/null"
n=$("$RTLAB" db psql -tAc "SELECT count(*) FROM jobs WHERE bisect_id = $id \
	AND state = 'done'")
check "the board ran $n jobs for it, all at the bisection priority" test \
	"$("$RTLAB" db psql -tAc "SELECT count(*) FROM jobs WHERE \
	bisect_id = $id AND priority <> 90")" = 0
