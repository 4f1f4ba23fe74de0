#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The job queue end to end on the local board: a throwaway PostgreSQL and
# a real `rtlab server` on loopback.  Bad `rtlab job add` inputs queue
# nothing; eight short jobs raced by two draining workers (one uploading
# through the server, one ingesting straight into the database) each run
# exactly once; a worker killed with SIGKILL loses its job to another
# worker once the lease runs out; SIGTERM abandons a job back to the
# queue; a job whose workers keep dying fails after its attempts; a job
# whose QEMU is killed is retried as an infrastructure error and ends
# infra-failed, with no run blamed on the kernel.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-jobstest.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
# Workers put their job directories here, so killed ones leave no litter.
export TMPDIR=$work

need_db

sql() { "$RTLAB" db psql -X -q -t -A -c "$1" 2>>"$work/psql.err"; }

TOKEN=$("$RTLAB" board add local1 --quiet 2>"$work/board.err")
check "board local1 registered" test ${#TOKEN} = 64
echo '{"board": "qemu-icount"}' >"$work/vb.json"
"$RTLAB" board add vb1 --kind qemu --definition "$work/vb.json" --quiet \
	>/dev/null 2>>"$work/board.err"

start_server "$work" || { not_ok "server starts"; exit 1; }
check "server listens on a loopback port" test -n "$PORT"

# -- invalid jobs: a clear message, exit status, nothing queued ---------------

# bad NAME EXPECTED-STATUS PATTERN ARGS...
bad() {
	_n=$1 _st=$2 _pat=$3
	shift 3
	"$RTLAB" job add "$@" >"$work/bad.out" 2>"$work/bad.err"
	_rc=$?
	if [ $_rc = "$_st" ] && grep -q -- "$_pat" "$work/bad.err"; then
		ok "job add rejects $_n"
	else
		not_ok "job add rejects $_n (exit $_rc)"
		cat "$work/bad.err"
	fi
}
printf 'name: broken\nduration_s: -1\n' >"$work/broken.yaml"
bad "an unknown board" 1 "board nosuch: no board of that name" \
	--kernel host --board nosuch --testcase cyclictest-idle
bad "a kernel definition on a local board" 1 "expected --kernel host" \
	--kernel debian-rt --board local1 --testcase cyclictest-idle
bad "an unknown testcase name" 1 "testcases/nosuch.yaml" \
	--kernel host --board local1 --testcase nosuch
bad "a testcase with a bad field, naming file and field" 1 \
	"broken.yaml:2: duration_s" \
	--kernel host --board local1 --testcase "$work/broken.yaml"
bad "the host kernel on a virtual board" 1 "virtual board" \
	--kernel host --board vb1 --testcase cyclictest-idle
bad "an unknown kernel definition" 1 "kernel nokernel" \
	--kernel nokernel --board vb1 --testcase cyclictest-idle
"$RTLAB" board add lava1 --kind lava --quiet >/dev/null 2>>"$work/board.err"
bad "the host kernel on a LAVA board" 1 "is a LAVA board" \
	--kernel host --board lava1 --testcase cyclictest-idle
bad "--repeat 0 as a usage error" 2 "repeat" \
	--kernel host --board local1 --testcase cyclictest-idle --repeat 0
bad "a missing --testcase as a usage error" 2 "required" \
	--kernel host --board local1
check "rejected jobs queued nothing" test "$(sql 'SELECT count(*) FROM jobs')" = 0

# -- eight jobs, two racing workers --------------------------------------------

"$RTLAB" job add --kernel host --board local1 --testcase cyclictest-idle \
	--duration 1 --repeat 8 --quiet >"$work/ids" 2>"$work/add.err"
check "job add --repeat 8 prints 8 job ids" test "$(grep -c '^[0-9][0-9]*$' "$work/ids")" = 8
check "8 jobs queued" test "$(sql "SELECT count(*) FROM jobs WHERE state = 'queued'")" = 8

"$RTLAB" worker --drain --board local1 --server "$URL" --token "$TOKEN" \
	--name wA --lease 5 >"$work/wA.out" 2>"$work/wA.err" &
WA=$!
"$RTLAB" worker --drain --name wB --lease 5 >"$work/wB.out" \
	2>"$work/wB.err" &
WB=$!
on_exit "kill $WA $WB 2>/dev/null"
wait $WA
RA=$?
wait $WB
RB=$?
check "worker with server upload drains and exits 0" test $RA = 0
check "worker with direct ingest drains and exits 0" test $RB = 0
[ $RA = 0 ] && [ $RB = 0 ] || cat "$work/wA.err" "$work/wB.err"
check "all 8 jobs done" test "$(sql "SELECT count(*) FROM jobs WHERE state = 'done'")" = 8
check "8 runs stored, each linked to a job" \
	test "$(sql 'SELECT count(*) FROM runs WHERE job_id IS NOT NULL')" = 8
check "every job ran exactly once (one run per job, one attempt)" \
	test "$(sql 'SELECT count(*) FROM jobs j WHERE attempts <> 1 OR
		(SELECT count(*) FROM runs r WHERE r.job_id = j.id) <> 1')" = 0
check "each job's run_uuid is its run" \
	test "$(sql 'SELECT count(*) FROM jobs j JOIN runs r
		ON r.uuid = j.run_uuid AND r.job_id = j.id')" = 8
check "both workers ran jobs" \
	test "$(sql 'SELECT count(DISTINCT worker) FROM jobs')" = 2
check "the uploading worker's runs came through the server" \
	grep -q 'POST /api/v1/runs' "$work/server.log"
"$RTLAB" jobs --state done --limit 3 >"$work/jobs.out" 2>&1
check "rtlab jobs lists done jobs with their runs" \
	grep -q 'run_uuid [0-9a-f-]\{36\}' "$work/jobs.out"
check "rtlab jobs --limit 3 shows 3 jobs" \
	test "$(grep -c '^[0-9]* *done' "$work/jobs.out")" = 3

# The queue over HTTP: GET /api/v1/jobs answers what rtlab jobs lists.
curl -fsS "$URL/api/v1/jobs?state=done&limit=3" >"$work/api-jobs.json" \
	2>"$work/api-jobs.err"
check "GET /api/v1/jobs?state=done&limit=3: 3 done jobs, newest first, each with its run" \
	jqt 'length == 3 and .[0].id > .[1].id and .[1].id > .[2].id and
		all(.[]; .state == "done" and .board != null and
		    (.runs | length) == 1 and (.run_uuid | length) == 36)' \
	"$work/api-jobs.json"
"$RTLAB" jobs --state done --limit 3 --json >"$work/cli-jobs.json" 2>&1
check "... the same jobs as rtlab jobs --json" \
	test "$(jq -c 'map(.id)' "$work/api-jobs.json")" = \
	"$(jq -c 'map(.id)' "$work/cli-jobs.json" 2>/dev/null)"
second=$(jq '.[1].id' "$work/api-jobs.json")
curl -fsS "$URL/api/v1/jobs?before=$second&limit=1" >"$work/api-page.json"
check "GET /api/v1/jobs?before=ID: the page goes on below ID" \
	jqt --argjson s "$second" 'length == 1 and .[0].id < $s' \
	"$work/api-page.json"
curl -fsS "$URL/api/v1/jobs?board=local1" >"$work/api-board.json"
check "GET /api/v1/jobs?board=local1: only local1's jobs" \
	jqt 'length > 0 and all(.[]; .board == "local1")' "$work/api-board.json"
code=$(curl -s -o "$work/api-bad.json" -w '%{http_code}' \
	"$URL/api/v1/jobs?state=finished")
check "GET /api/v1/jobs?state=finished: 400 naming the query" \
	sh -c "[ '$code' = 400 ] && grep -q \"query 'state'\" '$work/api-bad.json'"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/api/v1/jobs")
check "POST /api/v1/jobs: 405 (the API reads the queue; rtlab job add fills it)" \
	test "$code" = 405

# -- runs that are not complete fail the job; no bundle means a retry --------

# A stand-in agent: checks through the real one, "runs" by writing a bundle
# whose run failed (FAKE=agent_error) or by dying without one (FAKE=none).
cat >"$work/mkfail.py" <<'EOF'
import hashlib, io, json, sys, tarfile
rid, out, board = sys.argv[1:4]
files = {"agent.log": b"cyclictest exited with status 1\n"}
m = {"format": "rtlab-bundle", "format_version": 1, "run_id": rid,
     "board": board, "status": "agent_error",
     "error": "cyclictest exited with status 1",
     "testcase": {"name": "cyclictest-idle", "duration_s": 1},
     "kernel": {"release": "6.1.0-test"},
     "files": {n: {"size": len(b), "sha256": hashlib.sha256(b).hexdigest()}
               for n, b in files.items()}}
with tarfile.open(out, "w:gz") as t:
    for name, data in [("manifest.json", json.dumps(m).encode())] + \
            list(files.items()):
        ti = tarfile.TarInfo(name)
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
EOF
cat >"$work/fake-agent" <<EOF
#!/bin/sh
[ "\$1" = run ] || exec "$AGENT" "\$@"
while [ \$# -gt 0 ]; do
	case \$1 in
	--run-id) id=\$2; shift ;;
	--out) out=\$2; shift ;;
	--board) board=\$2; shift ;;
	esac
	shift
done
if [ "\$FAKE" = none ]; then
	echo "fake agent: cyclictest crashed" >&2
	exit 1
fi
exec python3 "$work/mkfail.py" "\$id" "\$out" "\$board"
EOF
chmod +x "$work/fake-agent"

F=$("$RTLAB" job add --kernel host --board local1 \
	--testcase cyclictest-idle --duration 1 --quiet 2>>"$work/add.err")
RTLAB_AGENT=$work/fake-agent FAKE=agent_error "$RTLAB" worker --once \
	>"$work/wFail.out" 2>"$work/wFail.err"
check "a job whose run ends in agent_error: worker exits 1" test $? = 1
check "... the job is failed with the run's status and error" \
	test "$(sql "SELECT state || ':' || attempts || ':' || error FROM jobs
		WHERE id = $F")" = "failed:1:run $(sql "SELECT run_uuid FROM jobs
		WHERE id = $F"): agent_error: cyclictest exited with status 1"
check "... and its run is stored and linked" \
	test "$(sql "SELECT status FROM runs WHERE job_id = $F")" = agent_error
check "... a failure of the run, not of the infrastructure" \
	test "$(sql "SELECT failure || ':' || infra_errors FROM jobs
		WHERE id = $F")" = run:0

N=$("$RTLAB" job add --kernel host --board local1 \
	--testcase cyclictest-idle --duration 1 --quiet 2>>"$work/add.err")
RTLAB_AGENT=$work/fake-agent FAKE=none "$RTLAB" worker --drain \
	>"$work/wNone.out" 2>"$work/wNone.err"
check "a job that never yields a bundle is retried, then failed" \
	test "$(sql "SELECT state || ':' || attempts FROM jobs WHERE id = $N")" = failed:3
check "... the error quotes the agent's last words" \
	test "$(sql "SELECT error LIKE '%no bundle%cyclictest crashed%' FROM jobs
		WHERE id = $N")" = t
check "... the worker said it requeued it twice" \
	test "$(grep -c "job $N: requeued" "$work/wNone.err")" = 2
check "... three attempts without a run: an infrastructure failure" \
	test "$(sql "SELECT failure || ':' || infra_errors FROM jobs
		WHERE id = $N")" = infrastructure:3

# -- a virtual board whose QEMU is killed: infrastructure, retried ----------
# QEMU that dies of SIGKILL as it starts, as when the OOM killer or an
# operator takes it: the host's failure, never stored as a kernel fault.
printf '#!/bin/sh\nkill -KILL $$\n' >"$work/killed-qemu"
chmod +x "$work/killed-qemu"
printf 'kind: qemu\nclock: icount\nqemu: %s\n' "$work/killed-qemu" \
	>"$work/killed.yaml"
cp "$TOP/boards/guest-init.sh" "$work/"	# a definition's init lives beside it
printf '{"board": "%s"}\n' "$work/killed.yaml" >"$work/vbk.json"
"$RTLAB" board add vbk --kind qemu --definition "$work/vbk.json" --quiet \
	>/dev/null 2>>"$work/board.err"
Q=$("$RTLAB" job add --kernel debian-rt --board vbk \
	--testcase cyclictest-idle --duration 1 --quiet 2>>"$work/add.err")
"$RTLAB" worker --drain --board vbk >"$work/wKilled.out" 2>"$work/wKilled.err"
check "QEMU killed on every attempt: the worker exits 1" test $? = 1
check "... the job was retried until its attempts ran out" \
	test "$(sql "SELECT state || ':' || attempts || ':' || infra_errors
		FROM jobs WHERE id = $Q")" = failed:3:3
check "... the worker said it requeued it twice" \
	test "$(grep -c "job $Q: requeued: infrastructure error" \
		"$work/wKilled.err")" = 2
check "... no run stored: nothing blames the kernel" \
	test "$(sql "SELECT count(*) FROM runs WHERE job_id = $Q")" = 0
"$RTLAB" jobs --limit 1 >"$work/infra.out" 2>&1
check "rtlab jobs shows it infra-failed" \
	grep -q "^$Q  *infra-failed  *3/3 .* vbk " "$work/infra.out"
check "... with the reason" grep -q \
	"error: infrastructure error: board vbk: QEMU was killed by signal 9" \
	"$work/infra.out"
check "... and the count" grep -q "infra errors 3" "$work/infra.out"

# -- a killed worker's job is taken over after its lease -----------------------

# wait_running JOB [WORKER]: until JOB's agent runs (held by WORKER, when
# given: a killed holder's expired lease still reads "running"); fails
# when the job ended first.  A busy host may take long to start a worker:
# the bound (10 minutes) only stops a hung test.
wait_running() {
	_i=0
	while :; do
		_s=$(sql "SELECT state || ':' || coalesce(phase, '') FROM jobs
			WHERE id = $1 AND ('${2:-}' = '' OR worker = '${2:-}')")
		case $_s in
		running:running) return 0 ;;
		done:* | failed:*) return 1 ;;
		esac
		_i=$((_i + 1))
		[ $_i -gt 6000 ] && return 1
		sleep 0.1
	done
}

K=$("$RTLAB" job add --kernel host --board local1 \
	--testcase cyclictest-idle --duration 5 --quiet 2>>"$work/add.err")
"$RTLAB" worker --once --lease 3 --name wDead >"$work/wDead.out" \
	2>"$work/wDead.err" &
WD=$!
on_exit "kill -9 $WD 2>/dev/null"
check "first worker starts the long job" wait_running "$K"
kill -9 $WD
wait $WD 2>/dev/null
check "the killed worker still holds the job until its lease runs out" \
	test "$(sql "SELECT state || ':' || worker FROM jobs WHERE id = $K")" = running:wDead
i=0
while [ "$(sql "SELECT state FROM jobs WHERE id = $K")" != done ] &&
	[ $i -lt 30 ]; do
	"$RTLAB" worker --once --lease 3 --name wNext >>"$work/wNext.out" \
		2>>"$work/wNext.err"
	i=$((i + 1))
	sleep 0.5
done
check "another worker completed the killed worker's job" \
	test "$(sql "SELECT state || ':' || worker || ':' || attempts FROM jobs
		WHERE id = $K")" = done:wNext:2
check "the taken-over job has exactly one run" \
	test "$(sql "SELECT count(*) FROM runs WHERE job_id = $K")" = 1

# -- SIGTERM abandons the running job back to the queue ------------------------

T=$("$RTLAB" job add --kernel host --board local1 \
	--testcase cyclictest-idle --duration 30 --quiet 2>>"$work/add.err")
"$RTLAB" worker --once --lease 3 --name wTerm >"$work/wTerm.out" \
	2>"$work/wTerm.err" &
WT=$!
on_exit "kill -9 $WT 2>/dev/null"
check "worker starts the job it will abandon" wait_running "$T"
kill -TERM $WT
wait $WT
RT=$?
check "SIGTERM: the worker exits 143" test $RT = 143
check "SIGTERM: the job is queued again, attempt not counted" \
	test "$(sql "SELECT state || ':' || attempts || ':' || coalesce(worker, '-')
		FROM jobs WHERE id = $T")" = queued:0:-
check "SIGTERM: the worker says it abandoned the job" \
	grep -q "job $T: abandoned" "$work/wTerm.err"

# -- a job whose workers keep dying fails after 3 attempts ---------------------

for n in 1 2 3; do
	# The previous holder's lease must run out before the next claim.
	i=0
	while [ "$(sql "SELECT state = 'queued' OR lease_until < now() FROM jobs
			WHERE id = $T")" != t ] && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	"$RTLAB" worker --once --lease 2 --name "wDie$n" \
		>/dev/null 2>>"$work/wDie.err" &
	WX=$!
	wait_running "$T" "wDie$n"
	kill -9 $WX
	wait $WX 2>/dev/null
done
check "three killed workers used up the job's attempts" \
	test "$(sql "SELECT attempts FROM jobs WHERE id = $T")" = 3
i=0
while [ "$(sql "SELECT lease_until < now() FROM jobs WHERE id = $T")" != t ] &&
	[ $i -lt 100 ]; do
	i=$((i + 1))
	sleep 0.1
done
"$RTLAB" worker --once --name wLast >"$work/wLast.out" 2>"$work/wLast.err"
check "the next worker gives the exhausted job up: failed" \
	test "$(sql "SELECT state FROM jobs WHERE id = $T")" = failed
check "the failed job says why" \
	test "$(sql "SELECT error LIKE '%attempt 3 of 3%giving up%' FROM jobs
		WHERE id = $T")" = t
check "... an infrastructure failure: each worker died on it" \
	test "$(sql "SELECT failure || ':' || infra_errors FROM jobs
		WHERE id = $T")" = infrastructure:3
check "the exhausted job made no run" \
	test "$(sql "SELECT count(*) FROM runs WHERE job_id = $T")" = 0
"$RTLAB" jobs --state failed >"$work/failed.out" 2>&1
check "rtlab jobs --state failed shows the error" \
	grep -q "error: .*giving up" "$work/failed.out"
