#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The lava board kind through Debian's LAVA dispatcher (lava-run) on this
# host: a job for a lava board, claimed by a worker, becomes a LAVA job
# definition; lava-run deploys Debian's PREEMPT_RT kernel and rtlab's
# initramfs to a QEMU TCG device (guest network 'user,restrict=on': it
# reaches nothing), boots it to a shell, runs the agent in a LAVA test
# shell for a few seconds of cyclictest, and the bundle comes back in base64
# in LAVA's job log into rtlab's database with LAVA's log as console.log.
# A board given rtlab's server (upload_url, the guest reaching the host's
# loopback as 10.0.2.2) uploads the bundle itself; one whose server cannot
# be reached falls back to the log.
# Then bad input: definitions that cannot work, a device type LAVA does not
# know (no run, the job retried as infrastructure), a kernel that does not
# boot (boot_failed); the queue keeps moving.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-lava.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
if ! command -v lava-run >/dev/null; then
	not_ok "lava-run installed (Debian's lava-dispatcher; make deps)"
	exit 1
fi
need_db
dev=$TOP/tests/fixtures/lava/qemu-device.yaml
sql() { "$RTLAB" db psql -tAc "$1"; }

# -- definitions that cannot work ------------------------------------------
printf '{"mode": "dispatcher"}\n' >"$work/nodev.json"
"$RTLAB" board add bad1 --kind lava --definition "$work/nodev.json" --quiet \
	>/dev/null 2>&1
"$RTLAB" job add --kernel debian-rt --board bad1 \
	--testcase cyclictest-idle >/dev/null 2>"$work/bad1.err"
check "a dispatcher board without a device file is refused, naming the field" \
	has "$work/bad1.err" "needs 'device'"
printf '{"mode": "server", "url": "http://127.0.0.1:9"}\n' >"$work/notok.json"
"$RTLAB" board add bad2 --kind lava --definition "$work/notok.json" --quiet \
	>/dev/null 2>&1
"$RTLAB" job add --kernel debian-rt --board bad2 \
	--testcase cyclictest-idle >/dev/null 2>"$work/bad2.err"
check "a server board without a token is refused" has "$work/bad2.err" "'token'"
printf '{"device": "%s", "colour": "red"}\n' "$dev" >"$work/unk.json"
"$RTLAB" board add bad3 --kind lava --definition "$work/unk.json" --quiet \
	>/dev/null 2>&1
"$RTLAB" job add --kernel debian-rt --board bad3 \
	--testcase cyclictest-idle >/dev/null 2>"$work/bad3.err"
check "an unknown definition field is refused, named" \
	has "$work/bad3.err" "unknown field 'colour'"
"$RTLAB" job add --kernel host --board bad3 \
	--testcase cyclictest-idle >/dev/null 2>"$work/bad4.err"
check "the host kernel on a LAVA board is refused" \
	has "$work/bad4.err" "is a LAVA board"
check "nothing was queued" test "$(sql 'SELECT count(*) FROM jobs')" = 0

# -- a run through lava-run -------------------------------------------------
printf '{"mode": "dispatcher", "device": "%s", "device_type": "qemu"}\n' \
	"$dev" >"$work/lava1.json"
check "lava board registered" sh -c "'$RTLAB' board add lava1 --kind lava \
	--definition '$work/lava1.json' --quiet >/dev/null"
"$RTLAB" job add --kernel debian-rt --board lava1 --testcase cyclictest-idle \
	--duration 3 --quiet >"$work/job1" 2>"$work/add.err"
check "a job for it queued" test "$(wc -l <"$work/job1")" = 1
nice -n 10 "$RTLAB" worker --board lava1 --drain --name wl >"$work/w.log" 2>&1
check "the worker drained the queue" test $? = 0
sed 's/^/# /' "$work/w.log" | tail -n 5
check "the job is done" test "$(sql "SELECT state FROM jobs")" = done
"$RTLAB" runs --board lava1 --json >"$work/runs.json"
check "one complete run stored" jqt 'length == 1 and .[0].status == "complete"' \
	"$work/runs.json"
run=$(jq -r '.[0].id' "$work/runs.json")
"$RTLAB" show "$run" >"$work/show.txt" 2>&1
check "its histograms have samples" has "$work/show.txt" '^ *0 +0 +[1-9][0-9]* '
check "LAVA's job log is its console.log" has "$work/show.txt" '^ *console\.log +[1-9]'
check "... and the whole log its lava.log" has "$work/show.txt" '^ *lava\.log +[1-9]'
check "the run booted Debian's PREEMPT_RT kernel" \
	has "$work/show.txt" 'PREEMPT_RT.*\(realtime\)'
"$RTLAB" db psql -tAc "SELECT convert_from(a.data, 'UTF8') FROM artifacts a \
	JOIN runs r ON r.id = a.run_id WHERE r.id = $run AND a.name = 'lava.log'" \
	>"$work/lava1.log" 2>&1
check "no upload_url: the bundle came back in LAVA's log" \
	has "$work/lava1.log" 'RTLAB-B64-BEGIN v1'

# -- the board uploads the bundle to rtlab's server itself ------------------
# The device's QEMU network without restrict=on: the guest (10.0.2.15, no
# default route) reaches this host's loopback as 10.0.2.2, where rtlab's
# server listens; the worker gives the board's token to the job.  Then the
# same with a server the board cannot reach: it falls back to the log.
start_server "$work" || exit 1
sed 's/-net user,restrict=on/-net user/' "$dev" >"$work/qemu-user.yaml"
check "the upload device has a network to the host" \
	has "$work/qemu-user.yaml" '-net user$'
printf '{"device": "%s", "upload_url": "http://10.0.2.2:%s"}\n' \
	"$work/qemu-user.yaml" "$PORT" >"$work/up.json"
uptok=$("$RTLAB" board add lavaup --kind lava --definition "$work/up.json" \
	--quiet)
"$RTLAB" job add --kernel debian-rt --board lavaup --testcase cyclictest-idle \
	--duration 3 --quiet >"$work/jup" 2>>"$work/add.err"
nice -n 10 "$RTLAB" worker --board lavaup --token "$uptok" --drain \
	--name wup >"$work/wup.log" 2>&1
check "the worker drained the upload board's queue" test $? = 0
sed 's/^/# /' "$work/wup.log" | tail -n 3
check "the job is done" test "$(sql "SELECT state FROM jobs WHERE id = \
	$(cat "$work/jup")")" = done
"$RTLAB" runs --board lavaup --json >"$work/runsup.json"
check "one complete run stored" \
	jqt 'length == 1 and .[0].status == "complete"' "$work/runsup.json"
runup=$(jq -r '.[0].id' "$work/runsup.json")
"$RTLAB" show "$runup" >"$work/showup.txt" 2>&1
check "its histograms have samples" has "$work/showup.txt" '^ *0 +0 +[1-9][0-9]* '
check "the worker added LAVA's log as console.log and lava.log" \
	has "$work/showup.txt" '^ *lava\.log +[1-9]'
get "/api/v1/runs/$runup/artifacts/lava.json" >/dev/null
check "lava.json says the bundle came by upload" \
	jqt '.bundle_via == "upload"' "$work/resp"
get "/api/v1/runs/$runup/artifacts/lava.log" >/dev/null
cp "$work/resp" "$work/lavaup.log"
check "the agent on the board uploaded it to rtlab's server" \
	has "$work/lavaup.log" "stored by http://10\\.0\\.2\\.2:$PORT/api/v1/runs"
check "the board said so in LAVA's log, which carries no bundle" \
	sh -c "grep -q 'RTLAB-UPLOADED v1 run=' '$work/lavaup.log' && \
	! grep -q 'RTLAB-B64-BEGIN' '$work/lavaup.log'"
# The same board with a server it cannot reach (a port of the host's
# loopback nothing listens on): the bundle comes back in LAVA's log.
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf '{"device": "%s", "upload_url": "http://10.0.2.2:%s"}\n' \
	"$work/qemu-user.yaml" "$dead" >"$work/updead.json"
deadtok=$("$RTLAB" board add lavadead --kind lava \
	--definition "$work/updead.json" --quiet)
"$RTLAB" job add --kernel debian-rt --board lavadead \
	--testcase cyclictest-idle --duration 1 --quiet >"$work/jdead" \
	2>>"$work/add.err"
nice -n 10 "$RTLAB" worker --board lavadead --token "$deadtok" --drain \
	--name wdead >"$work/wdead.log" 2>&1
check "server unreachable: the job is done all the same" \
	test "$(sql "SELECT state FROM jobs WHERE id = $(cat "$work/jdead")")" = done
rundead=$("$RTLAB" runs --board lavadead --json | jq -r '.[0].id')
get "/api/v1/runs/$rundead/artifacts/lava.log" >/dev/null
cp "$work/resp" "$work/lavadead.log"
check "... the board said the upload failed, and its bundle came in the log" \
	sh -c "grep -q 'RTLAB-UPLOAD-FAILED' '$work/lavadead.log' && \
	grep -q 'RTLAB-B64-BEGIN v1' '$work/lavadead.log'"
sql "SELECT convert_from(data, 'UTF8') FROM artifacts WHERE run_id = \
	$rundead AND name = 'manifest.json'" >"$work/deadman.json"
check "... and its manifest says so" \
	jqt '.status == "complete" and .lava.bundle_via == "log"' \
	"$work/deadman.json"


# -- LAVA's failures and the kernel's; the queue keeps moving ---------------
# A device configuration LAVA cannot use (its ConfigurationError): no run,
# the job is retried as infrastructure and ends infra-failed.
printf 'sundial: 1\n' >"$work/baddev.yaml"
printf '{"device": "%s"}\n' "$work/baddev.yaml" >"$work/dt.json"
"$RTLAB" board add lavadt --kind lava --definition "$work/dt.json" --quiet \
	>/dev/null 2>&1
# A kernel whose init is missing: it panics before the agent starts.
printf 'name: rt-noinit\nkind: debian\npackage: linux-image-rt-amd64\ntree: debian-rt\ncmdline: rdinit=/nosuch\n' \
	>"$work/rt-noinit.yaml"
printf '{"device": "%s", "boot_timeout_s": 120}\n' "$dev" >"$work/lava2.json"
"$RTLAB" board add lava2 --kind lava --definition "$work/lava2.json" --quiet \
	>/dev/null 2>&1
"$RTLAB" job add --kernel debian-rt --board lavadt --testcase cyclictest-idle \
	--duration 1 --quiet >"$work/jdt" 2>>"$work/add.err"
# A LAVA server that is down (nothing listens on that loopback port).
printf '{"url": "http://127.0.0.1:9", "token": "t0ken"}\n' >"$work/down.json"
"$RTLAB" board add lavadown --kind lava --definition "$work/down.json" \
	--quiet >/dev/null 2>&1
"$RTLAB" job add --kernel debian-rt --board lavadown \
	--testcase cyclictest-idle --duration 1 --quiet >"$work/jdown" \
	2>>"$work/add.err"
"$RTLAB" job add --kernel "$work/rt-noinit.yaml" --board lava2 \
	--testcase cyclictest-idle --duration 1 --quiet >"$work/jbf" \
	2>>"$work/add.err"
"$RTLAB" job add --kernel debian-rt --board lava1 --testcase cyclictest-idle \
	--duration 1 --quiet >"$work/jgood" 2>>"$work/add.err"
check "four more jobs queued" test "$(cat "$work/jdt" "$work/jdown" \
	"$work/jbf" "$work/jgood" | wc -l)" = 4
nice -n 10 "$RTLAB" worker --drain --name wl2 >"$work/w2.log" 2>&1
sed 's/^/# /' "$work/w2.log" | grep -v 'claimed' | tail -n 8
state() { sql "SELECT state || '/' || coalesce(failure, '') FROM jobs WHERE id = $1"; }
err() { sql "SELECT error FROM jobs WHERE id = $1"; }
check "unusable device: infra-failed after its retries ($(state "$(cat "$work/jdt")"))" \
	test "$(state "$(cat "$work/jdt")")" = failed/infrastructure
err "$(cat "$work/jdt")" >"$work/jdt.err"
check "... its error is LAVA's ConfigurationError" \
	has "$work/jdt.err" 'Configuration: Invalid device configuration'
check "LAVA server down: infra-failed ($(state "$(cat "$work/jdown")"))" \
	test "$(state "$(cat "$work/jdown")")" = failed/infrastructure
err "$(cat "$work/jdown")" >"$work/jdown.err"
check "... its error names the server" \
	has "$work/jdown.err" 'LAVA server http://127.0.0.1:9: .*onnect'
check "no run was stored for either" test "$(sql "SELECT count(*) FROM runs r \
	JOIN boards b ON b.id = r.board_id WHERE b.name IN ('lavadt', 'lavadown')")" = 0
check "missing init: the job failed with a run ($(state "$(cat "$work/jbf")"))" \
	test "$(state "$(cat "$work/jbf")")" = failed/run
"$RTLAB" runs --board lava2 --json >"$work/runs2.json"
check "... stored as boot_failed with LAVA's log" \
	jqt '.[0].status == "boot_failed"' "$work/runs2.json"
check "the good job after them is done" \
	test "$(state "$(cat "$work/jgood")")" = done/
