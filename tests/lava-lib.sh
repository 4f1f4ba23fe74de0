# SPDX-License-Identifier: GPL-2.0-or-later
#
# A throwaway lava-server on 127.0.0.1 for tests/integration/lava-server.sh
# and bench/lava.sh, sourced by them (docs/lava.md, "A lava-server without
# systemd"): lava-server's web service (gunicorn), its publisher and
# scheduler, and a lava-worker "w1" with one QEMU device "qemu01" (TCG,
# icount clock, guest network 'user,restrict=on'), lava-server's database
# in the caller's throwaway PostgreSQL ($RTLAB_STATE_DIR/pg, rtlab db
# start).  Needs root (lava-run) and the caller's on_exit CMD, which must
# run CMD when the caller exits, before its PostgreSQL stops.
#
#   free_port                 a free TCP port on 127.0.0.1
#   wait_for WHAT PID CMD...  CMD until it succeeds, while PID lives
#   lava_server_up DIR        everything above, under DIR; sets LURL (the
#                             server), LTOKEN (user rtlab's API token),
#                             LAVA_GPID (gunicorn), lid0 (job ids start
#                             above it); defines manage (lava-server
#                             manage ..., logged) and lsql (its database).
#                             Returns 1, saying which step failed.

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

# _lava_step WHAT CMD...: CMD, or say which step failed.
_lava_step() {
	_step=$1
	shift
	"$@" && return 0
	echo "# lava-server: $_step: failed (logs in $L/log)"
	return 1
}

lava_server_up() {
	L=$1
	_port=$(free_port) _eport=$(free_port) _wsport=$(free_port)
	LURL=http://127.0.0.1:$_port
	mkdir -p "$L/devices" "$L/device-types" "$L/health-checks" \
		"$L/media" "$L/worker" "$L/log"
	"$RTLAB" db psql -tAc 'CREATE DATABASE lavaserver' >/dev/null || return 1
	# Every setting that would reach outside (database, device
	# dictionaries, job output, log files) is set through
	# LAVA_JSON_SETTINGS, which lava-server reads after its files under
	# /etc/lava-server.
	LAVA_JSON_SETTINGS=$(jq -n --arg sock "$RTLAB_STATE_DIR/pg/run" \
		--arg port "$(cat "$RTLAB_STATE_DIR/pg/port")" --arg L "$L" \
		--arg eport "$_eport" --arg key "$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')" '{
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
	_lava_step "migrating its schema" manage migrate --noinput || return 1
	# LAVA job N works in /var/lib/lava/dispatcher/tmp/N/: start this
	# server's ids at a random point, as rtlab's lava-run ids are, so
	# that runs side by side do not share one.
	lid0=$((1000000 + $(od -An -N3 -tu4 /dev/urandom | tr -d ' ') * 64))
	lsql "SELECT setval(pg_get_serial_sequence('lava_scheduler_app_testjob', 'id'), $lid0)" \
		>/dev/null
	LTOKEN=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
	_lava_step "a user with an API token, a worker and a qemu device" \
		eval 'manage users add rtlab --passwd "$(od -An -N16 -tx1 /dev/urandom | tr -d " \n")" &&
		manage tokens add --user rtlab --secret "$LTOKEN" &&
		manage workers add w1 &&
		manage device-types add qemu &&
		manage devices add --device-type qemu --worker w1 qemu01' ||
		return 1
	# The device: QEMU TCG with the instruction-counted clock (one CPU,
	# as icount boards have), the guest's network isolated.
	cat >"$L/devices/qemu01.jinja2" <<'EOF_DEVICE'
{% extends 'qemu.jinja2' %}
{% set arch = 'amd64' %}
{% set no_kvm = True %}
{% set memory = 1024 %}
{% set netdevice = 'user,restrict=on' %}
{% set extra_options = ['-accel tcg', '-cpu max', '-smp 1', '-icount shift=3,sleep=off,align=off'] %}
EOF_DEVICE
	_wtoken=$(lava-server manage workers details w1 2>/dev/null |
		sed -n 's/^token *: *//p')

	gunicorn3 lava_server.wsgi --bind "127.0.0.1:$_port" --workers 2 \
		--timeout 120 --log-file "$L/log/gunicorn.log" \
		>"$L/log/gunicorn.out" 2>&1 &
	LAVA_GPID=$!
	on_exit "kill $LAVA_GPID 2>/dev/null; wait $LAVA_GPID 2>/dev/null"
	_lava_step "answering on $LURL" wait_for gunicorn $LAVA_GPID \
		_lava_answers || return 1
	# The publisher passes the server's events on: the scheduler then
	# looks for work when a job is submitted, not only every 20 s.
	lava-server manage lava-publisher --user root --group root \
		--host 127.0.0.1 --port "$_wsport" --level DEBUG \
		--log-file "$L/log/publisher.log" >"$L/log/publisher.out" 2>&1 &
	_ppid=$!
	on_exit "kill $_ppid 2>/dev/null; wait $_ppid 2>/dev/null"
	lava-server manage lava-scheduler --user root --group root \
		--event-url "tcp://127.0.0.1:$_eport" --level DEBUG \
		--log-file "$L/log/scheduler.log" >"$L/log/scheduler.out" 2>&1 &
	_spid=$!
	on_exit "kill $_spid 2>/dev/null; wait $_spid 2>/dev/null"
	on_exit _lava_stop_runs
	lava-worker --name w1 --url "$LURL/" --token "$_wtoken" \
		--worker-dir "$L/worker" --ping-interval 2 --level DEBUG \
		--log-file "$L/log/worker.log" >"$L/log/worker.out" 2>&1 &
	_wpid=$!
	on_exit "kill $_wpid 2>/dev/null; wait $_wpid 2>/dev/null"
	_lava_step "lava-worker w1 online" wait_for lava-worker $_wpid \
		_lava_online || return 1
	_lava_step "the scheduler and the publisher running" \
		kill -0 $_spid $_ppid
}

manage() { lava-server manage "$@" >>"$L/log/manage.log" 2>&1; }

lsql() {
	psql -h "$RTLAB_STATE_DIR/pg/run" -p "$(cat "$RTLAB_STATE_DIR/pg/port")" \
		-U postgres -d lavaserver -qtAc "$1"
}

_lava_answers() { curl -sf -o /dev/null "$LURL/api/v0.2/devices/"; }

_lava_online() {
	curl -sf "$LURL/api/v0.2/workers/w1/" | jq -e '.state == "Online"' \
		>/dev/null
}

# lava-worker starts each lava-run in a process group of its own, which
# outlives the worker: a caller stopped mid-job ends the lava-run
# processes its worker recorded, after the worker.  SIGTERM makes lava-run
# stop its QEMU, but its log sender then waits for the stopped server: the
# group gets SIGKILL after 20 s.
_lava_stop_runs() {
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
