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
# database.  Queued before it: a board with a token LAVA refuses and a
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

# A free TCP port on 127.0.0.1 (bound by the kernel, then released).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# wait_for WHAT PID CMD...: CMD until it succeeds, while PID lives; the
# cap is only a last resort against a service stuck before it answers.
wait_for() {
	_what=$1 _pid=$2
	shift 2
	_i=0
	until "$@"; do
		_i=$((_i + 1))
		if [ $_i -gt 1800 ] || ! kill -0 "$_pid" 2>/dev/null; then
			echo "# $_what: gave up (process $_pid alive: $(kill -0 "$_pid" 2>/dev/null && echo yes || echo no))"
			return 1
		fi
		sleep 0.2
	done
}

# -- lava-server on loopback, its database in the test's PostgreSQL --------
# Every setting that would reach outside the test (database, device
# dictionaries, job output, log files) is set through LAVA_JSON_SETTINGS,
# which lava-server reads after its files under /etc/lava-server.
L=$work/lava
port=$(free_port) eport=$(free_port) wsport=$(free_port)
LURL=http://127.0.0.1:$port
mkdir -p "$L/devices" "$L/device-types" "$L/health-checks" "$L/media" \
	"$L/worker" "$L/log"
sql 'CREATE DATABASE lavaserver' >/dev/null
LAVA_JSON_SETTINGS=$(jq -n --arg sock "$RTLAB_STATE_DIR/pg/run" \
	--arg port "$(cat "$RTLAB_STATE_DIR/pg/port")" --arg L "$L" \
	--arg eport "$eport" --arg key "$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')" '{
	DATABASES: {default: {ENGINE: "django.db.backends.postgresql",
		NAME: "lavaserver", USER: "postgres", HOST: $sock, PORT: $port}},
	SECRET_KEY: $key,
	ALLOWED_HOSTS: ["127.0.0.1"],
	EVENT_NOTIFICATION: true,
	INTERNAL_EVENT_SOCKET: ("ipc://" + $L + "/events"),
	EVENT_SOCKET: ("tcp://127.0.0.1:" + $eport),
	DEVICES_PATH: ($L + "/devices"),
	DEVICE_TYPES_PATHS: [($L + "/device-types"),
		"/usr/share/lava-server/device-types"],
	HEALTH_CHECKS_PATH: ($L + "/health-checks"),
	MEDIA_ROOT: ($L + "/media"),
	DJANGO_LOGFILE: ($L + "/log/django.log")}' | base64 -w0)
export LAVA_JSON_SETTINGS
manage() { lava-server manage "$@" >>"$L/log/manage.log" 2>&1; }
check "lava-server's schema migrated into the test's PostgreSQL" \
	manage migrate --noinput
# LAVA job N works in /var/lib/lava/dispatcher/tmp/N/: start this server's
# ids at a random point, as rtlab's lava-run ids are, so that runs side by
# side do not share one.
lsql() {
	psql -h "$RTLAB_STATE_DIR/pg/run" -p "$(cat "$RTLAB_STATE_DIR/pg/port")" \
		-U postgres -d lavaserver -qtAc "$1"
}
lid0=$((1000000 + $(od -An -N3 -tu4 /dev/urandom | tr -d ' ') * 64))
lsql "SELECT setval(pg_get_serial_sequence('lava_scheduler_app_testjob', 'id'), $lid0)" \
	>/dev/null
token=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
manage users add rtlab --passwd "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" &&
	manage tokens add --user rtlab --secret "$token" &&
	manage workers add w1 &&
	manage device-types add qemu &&
	manage devices add --device-type qemu --worker w1 qemu01
check "a user with an API token, a worker and a qemu device registered" \
	test $? = 0
# The device: QEMU TCG with the instruction-counted clock (one CPU, as
# icount boards have), the guest's network isolated ('restrict=on').
cat >"$L/devices/qemu01.jinja2" <<'EOF'
{% extends 'qemu.jinja2' %}
{% set arch = 'amd64' %}
{% set no_kvm = True %}
{% set memory = 1024 %}
{% set netdevice = 'user,restrict=on' %}
{% set extra_options = ['-accel tcg', '-cpu max', '-smp 1', '-icount shift=3,sleep=off,align=off'] %}
EOF
wtoken=$(lava-server manage workers details w1 2>/dev/null |
	sed -n 's/^token *: *//p')

gunicorn3 lava_server.wsgi --bind "127.0.0.1:$port" --workers 2 \
	--timeout 120 --log-file "$L/log/gunicorn.log" \
	>"$L/log/gunicorn.out" 2>&1 &
gpid=$!
on_exit "kill $gpid 2>/dev/null; wait $gpid 2>/dev/null"
answers() { curl -sf -o /dev/null "$LURL/api/v0.2/devices/"; }
check "lava-server answers on $LURL" wait_for gunicorn $gpid answers
# The publisher passes the server's events on: the scheduler then looks
# for work when a job is submitted, not only every 20 s.
lava-server manage lava-publisher --user root --group root \
	--host 127.0.0.1 --port "$wsport" --level DEBUG \
	--log-file "$L/log/publisher.log" >"$L/log/publisher.out" 2>&1 &
ppid=$!
on_exit "kill $ppid 2>/dev/null; wait $ppid 2>/dev/null"
lava-server manage lava-scheduler --user root --group root \
	--event-url "tcp://127.0.0.1:$eport" --level DEBUG \
	--log-file "$L/log/scheduler.log" >"$L/log/scheduler.out" 2>&1 &
spid=$!
on_exit "kill $spid 2>/dev/null; wait $spid 2>/dev/null"
# lava-worker starts each lava-run in a process group of its own, which
# outlives the worker: a test stopped mid-job ends the lava-run processes
# its worker recorded, after the worker.  SIGTERM makes lava-run stop its
# QEMU, but its log sender then waits for the stopped server: the group
# gets SIGKILL after 20 s.
stop_lava_runs() {
	for _p in $(python3 -c 'import sqlite3, sys
for (p,) in sqlite3.connect(sys.argv[1]).execute("SELECT pid FROM jobs"):
    print(p)' "$L/worker/db.sqlite3" 2>/dev/null); do
		grep -qa lava-run "/proc/$_p/cmdline" 2>/dev/null || continue
		kill "$_p" 2>/dev/null
		_i=0
		while [ -d "/proc/$_p" ] && [ $_i -lt 100 ]; do
			sleep 0.2
			_i=$((_i + 1))
		done
		kill -KILL "-$_p" 2>/dev/null
	done
}
on_exit stop_lava_runs
lava-worker --name w1 --url "$LURL/" --token "$wtoken" \
	--worker-dir "$L/worker" --ping-interval 2 --level DEBUG \
	--log-file "$L/log/worker.log" >"$L/log/worker.out" 2>&1 &
wpid=$!
on_exit "kill $wpid 2>/dev/null; wait $wpid 2>/dev/null"
online() {
	curl -sf "$LURL/api/v0.2/workers/w1/" | jq -e '.state == "Online"' \
		>/dev/null
}
check "lava-worker w1 is online" wait_for lava-worker $wpid online
check "the scheduler and the publisher run" kill -0 $spid $ppid
t_up=$(($(date +%s) - t0))

# -- rtlab's boards: the server, a token it refuses, a server that is down
printf '{"mode": "server", "url": "%s", "token": "%s", "device_type": "qemu"}\n' \
	"$LURL" "$token" >"$work/srv.json"
printf '{"mode": "server", "url": "%s", "token": "not-%s"}\n' \
	"$LURL" "$token" >"$work/badtok.json"
printf '{"mode": "server", "url": "http://127.0.0.1:%s", "token": "%s"}\n' \
	"$(free_port)" "$token" >"$work/down.json"
for b in srv badtok down; do
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

# -- the same server, stopped: its board's next job is infra-failed --------
kill $gpid
wait $gpid 2>/dev/null
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
