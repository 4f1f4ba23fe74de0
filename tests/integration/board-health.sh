#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Board health on the local board and through uploaded bundles, with a
# throwaway PostgreSQL and a real `rtlab server` on loopback; no virtual
# board boots.  `rtlab board list` and the web pages show each board's
# kind, state, job and last health check; a health job needs a
# calibration, is claimed before older jobs and holds the board's other
# jobs while it is pending; a health job that fails takes the board out of
# service, workers then claim none of its jobs until `rtlab board enable`;
# a run whose environment drifted (clocksource tsc -> hpet) takes its
# board out of service naming the change, gets no verdict, and stays out
# of every comparison after the board is back; `board disable`; `board
# health --due` and `rtlab farm tick` queue the checks due.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-healthtest.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
export TMPDIR=$work
FIX=$TOP/tests/fixtures/cyclictest

need_db

sql() { "$RTLAB" db psql -X -q -t -A -c "$1" 2>>"$work/psql.err"; }

T1=$("$RTLAB" board add hb1 --quiet 2>>"$work/board.err")
T2=$("$RTLAB" board add hb2 --quiet 2>>"$work/board.err")
T3=$("$RTLAB" board add hb3 --quiet 2>>"$work/board.err")
check "three local boards registered" \
	test ${#T1} = 64 -a ${#T2} = 64 -a ${#T3} = 64

start_server "$work" || { not_ok "server starts"; exit 1; }

# -- the farm view ---------------------------------------------------------------

"$RTLAB" board list >"$work/list0" 2>&1
check "board list: kind, state idle, no job, never checked" \
	has "$work/list0" '^hb1 +local +idle +token +- +never$'

# -- a health job needs a calibration ----------------------------------------------

"$RTLAB" board health hb1 >"$work/nocal.out" 2>"$work/nocal.err"
check "board health without a calibration: exit 1" test $? = 1
check "... saying how to make one" \
	has "$work/nocal.err" "no calibration .*'rtlab calibrate --board hb1'"
check "... and queues nothing" test "$(sql 'SELECT count(*) FROM jobs')" = 0

# What `rtlab calibrate` stores (docs/calibration.md), with reference
# figures no local run reaches.  A real calibration takes a minute.  Its
# testcase is calibrate-idle with a 100 ms histogram: the health checks
# here measure this host, and on a host busy with other work a 1 s run's
# p99 can lie beyond calibrate-idle's 20 ms, which fails a check.
sed 's/^  histogram_us: .*/  histogram_us: 100000/' \
	"$TOP/testcases/calibrate-idle.yaml" >"$work/calibrate-idle.yaml"
cal=$(printf '{"board": "hb1", "kind": "local", "clock": "host", "kernel": null,
      "testcase": "%s", "duration_s": 1,
      "reference": {"p99_us": 50000, "p999_us": 50000}}' \
	"$work/calibrate-idle.yaml")
sql "UPDATE boards SET calibration = '$cal' WHERE name = 'hb1'"

# -- a passing health job, claimed before an older job --------------------------------

J=$("$RTLAB" job add --kernel host --board hb1 --testcase cyclictest-idle \
	--duration 1 --quiet 2>>"$work/add.err")
H=$("$RTLAB" board health hb1 --duration 1 --quiet 2>"$work/h.err")
check "board health --quiet prints the job id" \
	sh -c "printf '%s\n' '$H' | grep -Eqx '[0-9]+'"
check "... a job of kind health with the calibration's testcase" \
	test "$(sql "SELECT j.kind || ':' || t.name || ':' || j.kernel FROM jobs j
		JOIN testcases t ON t.id = j.testcase_id WHERE j.id = '$H'")" = \
	"health:calibrate-idle:host"
"$RTLAB" jobs >"$work/jobs.out" 2>&1
check "rtlab jobs says which job is a health check" \
	test "$(grep -A2 "^$H " "$work/jobs.out" | grep -c 'a board health check'):$(grep -A2 "^$J " "$work/jobs.out" | grep -c 'a board health check')" = 1:0
"$RTLAB" worker --once --board hb1 >"$work/w1.out" 2>"$work/w1.err"
check "worker --once exits 0" test $? = 0
check "the health job was claimed before the older job" \
	test "$(sql "SELECT state FROM jobs WHERE id = $H") $(sql "SELECT state FROM jobs WHERE id = $J")" = "done queued"
check "the health check passed" \
	test "$(sql "SELECT health_result || ':' || health_job_id FROM boards WHERE name = 'hb1'")" = "pass:$H"
check "... its run's environment is the board's healthy one" \
	test "$(sql "SELECT b.environment_run_id = r.id FROM boards b
		JOIN jobs j ON j.id = $H JOIN runs r ON r.uuid = j.run_uuid
		WHERE b.name = 'hb1'")" = t
"$RTLAB" board list >"$work/list1" 2>&1
check "board list shows the passed check with its job" \
	has "$work/list1" "^hb1 +local +idle +token +- +pass [0-9T:Z-]+ \\(job $H\\)$"
check "... and why it passed" has "$work/list1" '^    last health check: p99 [0-9]+ us'

# -- a pending health job holds the board's other jobs -----------------------------

G=$(sql "INSERT INTO jobs (board_id, testcase_id, kernel, duration_s, kind,
	state, worker, lease_until, attempts)
	SELECT b.id, t.id, 'host', 1, 'health', 'running', 'elsewhere',
	now() + interval '1 hour', 1 FROM boards b, testcases t
	WHERE b.name = 'hb1' AND t.name = 'calibrate-idle' RETURNING id")
"$RTLAB" board list >"$work/list2" 2>&1
check "board list: busy with the health job another worker runs" \
	has "$work/list2" "^hb1 +local +busy +token +#$G health calibrate-idle "
"$RTLAB" worker --once --board hb1 >"$work/w2.out" 2>"$work/w2.err"
check "while it runs, the board's other job is not claimed" \
	test "$(sql "SELECT state FROM jobs WHERE id = $J")" = queued
sql "UPDATE jobs SET state = 'failed', lease_until = NULL, finished_at = now()
	WHERE id = $G"

# -- a failing health job takes the board out of service ------------------------------

cat >"$work/mkfail.py" <<'EOF'
import os, sys
sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
import bundletar
rid, out, board = sys.argv[1:4]
files = {"agent.log": b"cyclictest: no RT priority\n"}
m = {"format": "rtlab-bundle", "format_version": 1, "run_id": rid,
     "board": board, "status": "agent_error",
     "error": "cyclictest exited with status 1",
     "testcase": {"name": "calibrate-idle", "duration_s": 1},
     "kernel": {"release": "6.1.0-test"},
     "files": bundletar.files_entry(files)}
open(out, "wb").write(bundletar.tgz(m, files))
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
exec python3 "$work/mkfail.py" "\$id" "\$out" "\$board"
EOF
chmod +x "$work/fake-agent"

H2=$("$RTLAB" board health hb1 --duration 1 --quiet 2>>"$work/h.err")
RTLAB_AGENT=$work/fake-agent "$RTLAB" worker --once --board hb1 \
	>"$work/w3.out" 2>"$work/w3.err"
check "a health run that is not complete fails the check" \
	test "$(sql "SELECT health_result FROM boards WHERE name = 'hb1'")" = fail
check "... and the board is unhealthy, saying which job and why" \
	test "$(sql "SELECT state || ': ' || state_reason FROM boards WHERE name = 'hb1'")" = \
	"unhealthy: health job $H2 failed: the health run is agent_error"
check "... the worker logged it" has "$work/w3.err" "board hb1: out of service"
"$RTLAB" worker --once --board hb1 >"$work/w4.out" 2>"$work/w4.err"
check "workers claim no job of an unhealthy board" \
	test "$(sql "SELECT state FROM jobs WHERE id = $J")" = queued
"$RTLAB" board health hb1 >"$work/h3.out" 2>"$work/h3.err"
check "no health job is queued for a board out of service" test $? = 1
check "... saying how to put it back" has "$work/h3.err" "rtlab board enable hb1"
"$RTLAB" board list >"$work/list3" 2>&1
check "board list: unhealthy with the reason and the failed check" \
	has "$work/list3" "^hb1 +local +unhealthy +token +- +fail "
check "... out of service: the reason" \
	has "$work/list3" "^    out of service: health job $H2 failed: the health run is agent_error$"
get / >/dev/null
cp "$work/resp" "$work/overview.html"
check "the web overview lists the boards" \
	has "$work/overview.html" '<table id="boards">'
check "... hb1 unhealthy, with its reason" \
	has "$work/overview.html" "<tr class=\"b-unhealthy\"><td>hb1</td><td>local</td><td>unhealthy<br><small>health job $H2 failed"
get /farm >/dev/null
check "the farm page lists the boards too" \
	has "$work/resp" "<tr class=\"b-unhealthy\"><td>hb1</td>"

"$RTLAB" board enable hb1 >"$work/en.out" 2>&1
check "board enable exits 0" test $? = 0
check "... the board is back in service" \
	test "$(sql "SELECT state || ':' || (state_reason IS NULL) FROM boards WHERE name = 'hb1'")" = ready:true
"$RTLAB" worker --once --board hb1 >"$work/w5.out" 2>"$work/w5.err"
check "... and its waiting job runs" \
	test "$(sql "SELECT state FROM jobs WHERE id = $J")" = done
"$RTLAB" board enable nosuch >"$work/en2.out" 2>&1
check "enabling an unknown board fails, naming it" \
	has "$work/en2.out" "no board named 'nosuch'"

# -- a drifted environment ------------------------------------------------------------------

# mkrun OUT BOARD RELEASE CLOCKSOURCE: a complete run with idle.json
cat >"$work/mkrun.py" <<'EOF'
import os, sys, uuid
sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
import bundletar
out, board, release, cs, ctj = sys.argv[1:6]
files = {"cyclictest.json": open(ctj, "rb").read()}
m = {"format": "rtlab-bundle", "format_version": 1,
     "run_id": str(uuid.uuid4()), "board": board, "status": "complete",
     "testcase": {"name": "health-drift", "duration_s": 3,
                  "hist_range_us": 100},
     "kernel": {"release": release, "version": "#1 " + release},
     "environment": {"cmdline": "quiet", "cpu_model": "Test CPU", "cpus": 2,
                     "isolcpus": "1", "clocksource": cs, "clock": "host",
                     "microcode": "0x1"},
     "files": bundletar.files_entry(files)}
open(out, "wb").write(bundletar.tgz(m, files))
print(m["run_id"])
EOF
mkrun() { python3 "$work/mkrun.py" "$@" "$FIX/idle.json"; }
runid() { sql "SELECT id FROM runs WHERE uuid = '$1'"; }

# A control: the same two kernels on a board whose environment holds.
U=$(mkrun "$work/c1.tgz" hb3 6.1.0-1-rt tsc)
upload "$work/c1.tgz" "$T3" >/dev/null
U=$(mkrun "$work/c2.tgz" hb3 6.1.0-2-rt tsc)
check "control: uploads to a board whose environment holds are stored" \
	test "$(upload "$work/c2.tgz" "$T3")" = 201
check "control: its second kernel gets a verdict" \
	test "$(sql "SELECT count(*) FROM verdicts v JOIN boards b ON b.id = v.board_id WHERE b.name = 'hb3'")" = 1

A=$(mkrun "$work/a.tgz" hb2 6.1.0-1-rt tsc)
upload "$work/a.tgz" "$T2" >/dev/null
check "the first complete run sets the board's healthy environment" \
	test "$(sql "SELECT environment_run_id FROM boards WHERE name = 'hb2'")" = "$(runid "$A")"
B=$(mkrun "$work/b.tgz" hb2 6.1.0-2-rt hpet)
check "a run whose clocksource changed is stored" \
	test "$(upload "$work/b.tgz" "$T2")" = 201
check "... and takes its board out of service, naming the change" \
	test "$(sql "SELECT state || ': ' || state_reason FROM boards WHERE name = 'hb2'")" = \
	"unhealthy: environment changed since run $(runid "$A"): clocksource tsc → hpet"
check "... the run is flagged" \
	test "$(sql "SELECT flags->>'board_out_of_service' FROM runs WHERE uuid = '$B'")" = \
	"environment changed since run $(runid "$A"): clocksource tsc → hpet"
check "... and compared with nothing: no verdict" \
	test "$(sql "SELECT count(*) FROM verdicts v JOIN boards b ON b.id = v.board_id WHERE b.name = 'hb2'")" = 0
check "... the server said why" has "$work/server.log" "no verdict: environment changed"
"$RTLAB" show "$B" >"$work/showB" 2>&1
check "rtlab show says the run is compared with nothing" \
	has "$work/showB" '^flagged    board out of service: environment changed since run [0-9]+: clocksource tsc → hpet; compared with nothing$'
get "/runs/$B" >/dev/null
check "... and so does its run page" \
	has "$work/resp" '<th>board out of service</th><td>environment changed since run'
"$RTLAB" show "$A" >"$work/showA" 2>&1
check "... which a run of the healthy board does not say" \
	sh -c "! grep -q 'out of service' '$work/showA'"
"$RTLAB" board list >"$work/list4" 2>&1
check "board list shows the drift" \
	has "$work/list4" "^    out of service: environment changed since run [0-9]+: clocksource tsc → hpet$"

"$RTLAB" board enable hb2 >/dev/null 2>&1
C=$(mkrun "$work/c.tgz" hb2 6.1.0-2-rt hpet)
upload "$work/c.tgz" "$T2" >/dev/null
check "back in service, the environment as it is now is accepted" \
	test "$(sql "SELECT state || ':' || environment_run_id FROM boards WHERE name = 'hb2'")" = \
	"ready:$(runid "$C")"
check "the next run gets a verdict" \
	test "$(sql "SELECT count(*) FROM verdicts v JOIN boards b ON b.id = v.board_id WHERE b.name = 'hb2'")" = 1
check "... which leaves out the run stored while the board was out" \
	test "$(sql "SELECT array_to_string(candidate_runs, ',') FROM verdicts v
		JOIN boards b ON b.id = v.board_id WHERE b.name = 'hb2'")" = "$(runid "$C")"

# -- offline by hand; health checks when due -----------------------------------------------

"$RTLAB" board disable hb3 >"$work/dis.out" 2>&1
check "board disable without --reason is a usage error" test $? = 2
"$RTLAB" board disable hb3 --reason "moving racks" >/dev/null 2>&1
"$RTLAB" board list >"$work/list5" 2>&1
check "board list: offline with the maintainer's reason" \
	has "$work/list5" '^hb3 +local +offline '
check "... out of service: moving racks" has "$work/list5" '^    out of service: moving racks$'
"$RTLAB" board enable hb3 >/dev/null 2>&1

"$RTLAB" board health --due >"$work/due1.out" 2>&1
check "board health --due: nothing due within a day of a check" \
	has "$work/due1.out" '^0 health job\(s\) queued$'
"$RTLAB" board health --due --max-age 0 >"$work/due2.out" 2>&1
check "board health --due --max-age 0: the calibrated board only" \
	test "$(grep -c 'health job [0-9]* queued$' "$work/due2.out"):$(grep -c '^board hb1: ' "$work/due2.out")" = 1:1
"$RTLAB" board health --due --max-age 0 >"$work/due3.out" 2>&1
check "... and never twice while one is pending" \
	has "$work/due3.out" '^0 health job\(s\) queued$'

# rtlab farm tick queues the checks due, before the night's jobs.
sql "UPDATE jobs SET state = 'failed', finished_at = now() WHERE kind = 'health'
	AND state = 'queued'"
sql "UPDATE boards SET health_at = now() - interval '25 hours' WHERE name = 'hb1'"
printf 'matrix: []\n' >"$work/schedule.yaml"
"$RTLAB" farm tick --schedule "$work/schedule.yaml" --no-discover \
	--no-notify >"$work/tick.out" 2>"$work/tick.err"
check "farm tick queues a health job for a board checked over a day ago" \
	has "$work/tick.out" '^board hb1: health job [0-9]+ queued$'
check "... and only that one" \
	test "$(sql "SELECT string_agg(b.name, ',') FROM jobs j JOIN boards b
		ON b.id = j.board_id WHERE j.kind = 'health' AND j.state = 'queued'")" = hb1
