#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The lava board kind through a real lava-server (Debian's LAVA): the test
# starts lava-server's web service (gunicorn), its scheduler and a
# lava-worker on 127.0.0.1, with lava-server's database in the test's own
# throwaway PostgreSQL.  A job queued with 'rtlab job add' for a lava
# board in server mode is submitted over the REST API, scheduled, run by
# the worker on a QEMU device (TCG, icount clock, guest network
# 'user,restrict=on') booting Debian's PREEMPT_RT kernel for a few seconds
# of cyclictest, and the bundle comes back in LAVA's log into rtlab's
# database.  The job asks for LAVA's notify callback to rtlab's server,
# which wakes the worker (its polls are a minute apart then): the run says
# it was called back.  Queued before it: a board with a token LAVA refuses and a
# board whose server is down; both fail with a clear error and no run, and
# the queue keeps moving.  Last, the server is stopped: the next job of the
# board that worked is infra-failed, naming it.  The slow part is LAVA's own pace: setting up the
# server, the worker's pings, the job's deploy and boot.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-lava-server.XXXXXX) || exit 1
chmod 755 "$work"
on_exit "rm -rf '$work'"
for p in lava-server lava-worker gunicorn3 lava-run; do
	if ! command -v $p >/dev/null; then
		not_ok "$p installed (Debian's lava-server, lava-dispatcher; make deps)"
		exit 1
	fi
done
if [ "$(id -u)" != 0 ]; then
	not_ok "running as root (lava-run, which lava-worker starts, must)"
	exit 1
fi
need_db
sql() { "$RTLAB" db psql -tAc "$1"; }
t0=$(date +%s)

# -- lava-server on loopback, its database in the test's PostgreSQL --------
. "$(dirname "$0")/../lava-lib.sh"
# (its schema migrated into the test's PostgreSQL, a user with an API
# token, a qemu device; each step says when it fails)
up="lava-server, its publisher and scheduler, lava-worker w1 up on 127.0.0.1"
if ! lava_server_up "$work/lava"; then
	not_ok "$up"
	exit 1
fi
ok "$up"
token=$LTOKEN
t_up=$(($(date +%s) - t0))

# -- rtlab's boards: the server, a token it refuses, a server that is down
# rtlab's server takes LAVA's callback, with the board's token, which the
# LAVA user holds as its token "rtlab-notify" (the job names it, LAVA
# sends it).
start_server "$work" || exit 1
printf '{"mode": "server", "url": "%s", "token": "%s", "device_type": "qemu",
 "notify_url": "%s", "notify_token": "rtlab-notify"}\n' \
	"$LURL" "$token" "$URL" >"$work/srv.json"
stok=$("$RTLAB" board add lssrv --kind lava --definition "$work/srv.json" \
	--quiet 2>>"$work/add.err")
check "the LAVA user holds the board's rtlab token for the callback" \
	manage tokens add --user rtlab --description rtlab-notify --secret "$stok"
notify() { # TOKEN-HEADER BODY: the status of a POST to the callback
	curl -s -o "$work/resp" -w '%{http_code}' -X POST ${1:+-H "$1"} \
		-H 'Content-Type: application/json' -d "$2" "$URL/api/v1/lava/notify"
}
check "the callback endpoint refuses a request without a token" \
	test "$(notify '' '{"id": 1}')" = 401
check "... and a token it does not know" \
	test "$(notify 'Authorization: not-a-token' '{"id": 1}')" = 401
check "... takes the board's token bare, as LAVA sends it" \
	test "$(notify "Authorization: $stok" '{"id": 1, "state_string": "Finished"}')" = 202
check "... or as a bearer token; a body without LAVA's job id is refused" \
	test "$(notify "Authorization: Bearer $stok" '{"state": 3}')" = 400
printf '{"mode": "server", "url": "%s", "token": "not-%s"}\n' \
	"$LURL" "$token" >"$work/badtok.json"
printf '{"mode": "server", "url": "http://127.0.0.1:%s", "token": "%s"}\n' \
	"$(free_port)" "$token" >"$work/down.json"
for b in badtok down; do
	"$RTLAB" board add "ls$b" --kind lava --definition "$work/$b.json" \
		--quiet >/dev/null 2>>"$work/add.err"
done
"$RTLAB" job add --kernel debian-rt --board lsbadtok \
	--testcase cyclictest-idle --duration 1 --quiet >"$work/jtok" \
	2>>"$work/add.err"
"$RTLAB" job add --kernel debian-rt --board lsdown \
	--testcase cyclictest-idle --duration 1 --quiet >"$work/jdown" \
	2>>"$work/add.err"
"$RTLAB" job add --kernel debian-rt --board lssrv \
	--testcase cyclictest-idle --duration 3 --quiet >"$work/jgood" \
	2>>"$work/add.err"
check "three jobs queued" test "$(cat "$work/jtok" "$work/jdown" \
	"$work/jgood" | wc -l)" = 3

# -- the slow part: one LAVA job ------------------------------------------
t1=$(date +%s)
nice -n 10 "$RTLAB" worker --drain --name wls >"$work/w.log" 2>&1
rc=$?
# Exit status 1: jobs failed, as two had to.
check "the worker drained the queue, two jobs failed (exit $rc)" test $rc = 1
check "... one done, two failed" has "$work/w.log" ' 1 done, 2 failed,'
t_job=$(($(date +%s) - t1))
sed 's/^/# /' "$work/w.log" | grep -v 'claimed' | tail -n 8

state() { sql "SELECT state || '/' || coalesce(failure, '') FROM jobs WHERE id = $1"; }
err() { sql "SELECT error FROM jobs WHERE id = $1"; }
jtok=$(cat "$work/jtok") jdown=$(cat "$work/jdown") jgood=$(cat "$work/jgood")
check "refused token: failed after its retries, no run ($(state "$jtok"))" \
	test "$(state "$jtok")" = failed/infrastructure
err "$jtok" >"$work/jtok.err"
check "... its error says LAVA refused the token (HTTP 403)" \
	has "$work/jtok.err" "LAVA server $LURL refused the token \\(HTTP 40[13]: Invalid token"
check "server down: infra-failed ($(state "$jdown"))" \
	test "$(state "$jdown")" = failed/infrastructure
err "$jdown" >"$work/jdown.err"
check "... its error names the server" \
	has "$work/jdown.err" 'infrastructure error: .*LAVA server http://127\.0\.0\.1:[0-9]+: .*onnect'
check "no run was stored for either" test "$(sql "SELECT count(*) FROM runs r \
	JOIN boards b ON b.id = r.board_id WHERE b.name IN ('lsbadtok', 'lsdown')")" = 0
check "the job after them, through lava-server, is done ($(state "$jgood"))" \
	test "$(state "$jgood")" = done/

"$RTLAB" runs --board lssrv --json >"$work/runs.json"
check "one complete run stored" \
	jqt 'length == 1 and .[0].status == "complete"' "$work/runs.json"
run=$(jq -r '.[0].id' "$work/runs.json")
"$RTLAB" show "$run" >"$work/show.txt" 2>&1
check "its histograms have samples" has "$work/show.txt" '^ *0 +0 +[1-9][0-9]* '
check "LAVA's job log is its console.log" has "$work/show.txt" '^ *console\.log +[1-9]'
check "... and the whole log its lava.log" has "$work/show.txt" '^ *lava\.log +[1-9]'
check "the run booted Debian's PREEMPT_RT kernel" \
	has "$work/show.txt" 'PREEMPT_RT.*\(realtime\)'
sql "SELECT convert_from(data, 'UTF8') FROM artifacts WHERE run_id = $run \
	AND name = 'manifest.json'" >"$work/manifest.json"
check "LAVA called rtlab's server back and that ended the worker's wait" \
	jqt '.lava.notified == true' "$work/manifest.json"

# What LAVA itself recorded: one job (the refused token submitted none),
# run to Complete on the device, its QEMU with the icount clock and the
# isolated network, every test case passed.
curl -sf -H "Authorization: Token $token" "$LURL/api/v0.2/jobs/" \
	>"$work/ljobs.json"
check "LAVA ran exactly one job, Complete on qemu01" jqt '.count == 1 and
	.results[0].state == "Finished" and .results[0].health == "Complete"
	and .results[0].actual_device == "qemu01"' "$work/ljobs.json"
lid=$(jq -r '.results[0].id' "$work/ljobs.json")
check "... its id from the test's range ($lid)" test "$lid" -gt "$lid0"
curl -sf -H "Authorization: Token $token" \
	"$LURL/api/v0.2/jobs/$lid/tests/?limit=200" >"$work/ltests.json"
check "... its test cases all passed, the rtlab test shell among them" \
	jqt '(.results | length) > 0 and all(.results[]; .result == "pass")
	and any(.results[]; .name == "0_rtlab")' "$work/ltests.json"
curl -sf -H "Authorization: Token $token" "$LURL/api/v0.2/jobs/$lid/logs/" \
	>"$work/llog.yaml"
check "... QEMU ran with the icount clock" \
	has "$work/llog.yaml" 'qemu-system-x86_64 .*-icount shift=3'
check "... and the guest's network isolated" \
	has "$work/llog.yaml" 'qemu-system-x86_64 .*-net user,restrict=on'
curl -sf -H "Authorization: Token $token" "$LURL/api/v0.2/jobs/$lid/" \
	>"$work/ljob.json"
check "... its definition asked for the callback to rtlab's server" \
	jqt --arg u "$URL/api/v1/lava/notify" '.definition | contains($u)' \
	"$work/ljob.json"

# -- the same server, stopped: its board's next job is infra-failed --------
kill $LAVA_GPID
wait $LAVA_GPID 2>/dev/null
"$RTLAB" job add --kernel debian-rt --board lssrv --testcase cyclictest-idle \
	--duration 1 --quiet >"$work/jstop" 2>>"$work/add.err"
nice -n 10 "$RTLAB" worker --drain --name wls2 >"$work/w2.log" 2>&1
jstop=$(cat "$work/jstop")
check "lava-server stopped: its board's job infra-failed ($(state "$jstop"))" \
	test "$(state "$jstop")" = failed/infrastructure
err "$jstop" >"$work/jstop.err"
check "... its error names that server" \
	has "$work/jstop.err" "infrastructure error: board lssrv: LAVA server $LURL: .*onnect"
check "... and no run was stored for it" \
	test "$("$RTLAB" runs --board lssrv --json | jq length)" = 1
echo "# lava-server path: services up in ${t_up} s, the queue drained in ${t_job} s, $(($(date +%s) - t0)) s in all"
