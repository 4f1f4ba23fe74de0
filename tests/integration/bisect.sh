#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Bisection on the local board (this host, real cyclictest, the real
# user-space injector): a range of five positions, each the host's kernel,
# with a regression planted from position 3 on (--plant-from: those
# positions run calibrate-inject-user, 2 ms SCHED_FIFO 99 spins, under the
# same testcase name).  A worker draining the queue runs the bisection to
# its end with no one deciding anything; it must name position 3.  Then
# the bad input: a "bad" kernel that does not reproduce (stops after the
# ends, nothing more queued), good and bad reversed (measured, and in a
# tree's order), a reset in the middle, and usage errors.  1 s runs.
set -u
. "$(dirname "$0")/../lib.sh"
export RTLAB_DATADIR="$TOP"

tmp=$(mktemp -d /tmp/rtlab-bisect.XXXXXX)
on_exit "rm -rf '$tmp'"
need_db

TC=calibrate-idle
INJ="$TOP/testcases/calibrate-inject-user.yaml"
check "local board registered" sh -c \
	"'$RTLAB' board add local --kind local --quiet >/dev/null"
# Five runs per side at the first look, two looks: 5 and 10.
check "testcase $TC: 5 runs per look, 2 looks" sh -c \
	"'$RTLAB' testcase set $TC --min-runs 5 --looks 2 >/dev/null"

state() { "$RTLAB" bisect status --json "$1" | jq -r .state; }
queued() { "$RTLAB" db psql -tAc "SELECT count(*) FROM jobs WHERE \
	bisect_id = $1 AND state = 'queued'"; }

# --- usage errors --------------------------------------------------------
"$RTLAB" bisect start --board local --testcase $TC --good host \
	>"$tmp/u1" 2>&1
check "start without --bad is a usage error (2)" test $? = 2
"$RTLAB" bisect start --board local --testcase $TC --good host --bad host \
	>"$tmp/u2" 2>&1
check "the same kernel as good and bad is refused (2)" test $? = 2
check "  saying why" has "$tmp/u2" "same kernel"
"$RTLAB" bisect start --board local --testcase $TC --good host --bad host \
	--kernels host,host --plant-from host >"$tmp/u3" 2>&1
check "--plant-from without --plant-testcase is refused" has "$tmp/u3" \
	"go together"
"$RTLAB" db psql -qc "INSERT INTO tree_kernels (tree, package, version, \
	position) VALUES ('t', 'linux-image-x', '1', 0), \
	('t', 'linux-image-x', '2', 1), ('t', 'linux-image-x', '3', 2)" \
	>/dev/null
"$RTLAB" bisect start --board local --testcase $TC \
	--good linux-image-x=3 --bad linux-image-x=1 >"$tmp/u4" 2>&1
check "good after bad in a tree's order is refused (2)" test $? = 2
check "  as reversed" has "$tmp/u4" "comes after --bad .* good and bad reversed"
check "nothing was recorded by refused starts" test \
	"$("$RTLAB" db psql -tAc 'SELECT count(*) FROM bisections')" = 0

# --- the planted regression, found with no one deciding -----------------
# A plain job queued first: the bisection's jobs must still go first.
"$RTLAB" job add --kernel host --board local --testcase $TC --duration 1 \
	--quiet >/dev/null 2>&1
id=$("$RTLAB" bisect start --board local --testcase $TC --duration 1 \
	--good host --bad host --kernels host,host,host,host,host \
	--plant-from 3 --plant-testcase "$INJ" 2>"$tmp/start.err")
check "bisection started (id ${id:-none}$(cat "$tmp/start.err"))" test -n "$id"
"$RTLAB" bisect status "$id" >"$tmp/st0" 2>&1
check "status names the planted position" has "$tmp/st0" \
	"planted:  kernels from host \\(position 3\\) on run"
check "the ends' first runs are queued at the bisection priority" test \
	"$("$RTLAB" db psql -tAc "SELECT count(*) FROM jobs WHERE \
	bisect_id = $id AND priority = 100 AND state = 'queued'")" = 10
nice -n 10 "$RTLAB" worker --board local --drain --name w1 \
	>"$tmp/w1.log" 2>&1
check "the worker ran the bisection to its end" test "$(state "$id")" = done
"$RTLAB" bisect status "$id" >"$tmp/st1" 2>&1
"$RTLAB" bisect log "$id" >"$tmp/log1" 2>&1
check "the culprit is the planted position 3 ($(sed -n 's/^result: *//p' \
	"$tmp/st1"))" test "$("$RTLAB" bisect status --json "$id" |
	jq -r .culprit)" = 3
check "the ends reproduced the regression first" has "$tmp/log1" \
	"bad/good REGRESSION"
check "every step has its verdicts against both ends" sh -c \
	"test \$(grep -c '^    vs good' '$tmp/log1') = \
	\$(grep -c '^step ' '$tmp/log1') && grep -q '^    vs bad' '$tmp/log1'"
check "the bisection's jobs ran before the plain job queued earlier" test \
	"$("$RTLAB" db psql -tAc "SELECT count(*) FROM jobs j, jobs p WHERE \
	p.bisect_id IS NULL AND j.bisect_id = $id AND \
	j.started_at > p.started_at")" = 0

# --- a bad kernel that does not reproduce --------------------------------
# Nothing differs: only a false alarm (at alpha, 1 %) could go on.
check "testcase $TC: 7 runs, one look, alpha 0.01" sh -c \
	"'$RTLAB' testcase set $TC --min-runs 7 --looks 1 --alpha 0.01 >/dev/null"
id2=$("$RTLAB" bisect start --board local --testcase $TC --duration 1 \
	--good host --bad host --kernels host,host,host 2>"$tmp/s2.err")
check "a second bisection, nothing planted (id ${id2:-none})" test -n "$id2"
nice -n 10 "$RTLAB" worker --board local --drain --name w2 \
	>"$tmp/w2.log" 2>&1
"$RTLAB" bisect status "$id2" >"$tmp/st2" 2>&1
check "it stops: the bad kernel does not reproduce" has "$tmp/st2" \
	"does not reproduce the regression"
check "  failed, no step taken, nothing left queued" test \
	"$(state "$id2"):$("$RTLAB" bisect status --json "$id2" |
	jq '.steps | length'):$(queued "$id2")" = "failed:0:0"

# --- good and bad reversed (the injected one given as good) -------------
check "testcase $TC: back to 5 runs per look" sh -c \
	"'$RTLAB' testcase set $TC --min-runs 5 --looks 2 --default alpha >/dev/null"
id3=$("$RTLAB" bisect start --board local --testcase "$INJ" --duration 1 \
	--good host --bad host --kernels host,host,host --plant-from 2 \
	--plant-testcase $TC 2>"$tmp/s3.err")
nice -n 10 "$RTLAB" worker --board local --drain --name w3 \
	>"$tmp/w3.log" 2>&1
"$RTLAB" bisect status "$id3" >"$tmp/st3" 2>&1
check "reversed ends: said so, stopped" has "$tmp/st3" \
	"good and bad reversed"
check "  no step taken" test "$(state "$id3"):$(queued "$id3")" = "failed:0"

# --- a reset in the middle -----------------------------------------------
id4=$("$RTLAB" bisect start --board local --testcase $TC --duration 1 \
	--good host --bad host --kernels host,host,host,host \
	--plant-from 3 --plant-testcase "$INJ" 2>"$tmp/s4.err")
nice -n 10 "$RTLAB" worker --board local --once --name w4 \
	>"$tmp/w4.log" 2>&1
check "one job of the fourth bisection ran, more are queued" test \
	"$(queued "$id4")" -gt 0
"$RTLAB" bisect reset "$id4" >"$tmp/r4" 2>&1
check "reset" has "$tmp/r4" "reset"
check "  its queued jobs are gone, its state is visible" test \
	"$(state "$id4"):$(queued "$id4")" = "reset:0"
"$RTLAB" bisect status "$id4" >"$tmp/st4" 2>&1
check "  status says what the reset did" has "$tmp/st4" \
	"reset while measuring the ends"
"$RTLAB" bisect reset "$id4" >"$tmp/r5" 2>&1
check "a second reset is refused, naming the state" has "$tmp/r5" \
	"already ended \\(reset\\)"
"$RTLAB" bisect status >"$tmp/all" 2>&1
check "status lists every bisection" test "$(wc -l <"$tmp/all")" = 4
