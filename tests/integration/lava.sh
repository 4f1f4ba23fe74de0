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
"$RTLAB" worker --board lava1 --drain --name wl >"$work/w.log" 2>&1
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

