#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Bisection's bad input on the local board (this host, real cyclictest):
# usage errors and good and bad reversed in a tree's order (refused,
# nothing recorded); a "bad" kernel that does not reproduce (the host
# against itself: the ends are measured, 7 runs each, interleaved, ahead
# of a job queued earlier; then it stops, says why, queues nothing more);
# a reset in the middle (queued jobs removed, the state visible).  The
# planted regression found end to end is bisect-vboard.sh: this host's
# own latencies move with whatever else runs on it.  1 s runs.
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

# --- a bad kernel that does not reproduce --------------------------------
# Nothing differs: only a false alarm (at alpha, 1 %) could go on.
check "testcase $TC: 7 runs, one look, alpha 0.01" sh -c \
	"'$RTLAB' testcase set $TC --min-runs 7 --looks 1 --alpha 0.01 >/dev/null"
# A plain job queued first: the bisection's jobs must still go first.
"$RTLAB" job add --kernel host --board local --testcase $TC --duration 1 \
	--quiet >/dev/null 2>&1
id2=$("$RTLAB" bisect start --board local --testcase $TC --duration 1 \
	--good host --bad host --kernels host,host,host 2>"$tmp/s2.err")
check "a bisection with nothing planted (id ${id2:-none})" test -n "$id2"
nice -n 10 "$RTLAB" worker --board local --drain --name w2 \
	>"$tmp/w2.log" 2>&1
"$RTLAB" bisect status "$id2" >"$tmp/st2" 2>&1
check "it stops: the bad kernel does not reproduce" has "$tmp/st2" \
	"does not reproduce the regression"
check "  failed, no step taken, nothing left queued" test \
	"$(state "$id2"):$("$RTLAB" bisect status --json "$id2" |
	jq '.steps | length'):$(queued "$id2")" = "failed:0:0"
check "its 14 jobs ran at the bisection priority before the plain job \
queued earlier" test "$("$RTLAB" db psql -tAc "SELECT count(*) FROM jobs j, \
	jobs p WHERE p.bisect_id IS NULL AND j.bisect_id = $id2 AND \
	j.priority = 90 AND j.started_at < p.started_at")" = 14

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
check "status lists every bisection" test "$(wc -l <"$tmp/all")" = 2

# --- its web page ----------------------------------------------------------
if start_server "$tmp"; then
	curl -s "$URL/bisections/$id2" >"$tmp/page.html"
	check "GET /bisections/$id2: the page says how it ended" has \
		"$tmp/page.html" "does not reproduce the regression"
	check "  with the ends' verdict and their figures" has \
		"$tmp/page.html" "<td>ends</td><td>bad against good</td>"
	check "GET /bisections/999: 404" test "$(curl -s -o /dev/null \
		-w '%{http_code}' "$URL/bisections/999")" = 404
else
	not_ok "the server starts"
fi
