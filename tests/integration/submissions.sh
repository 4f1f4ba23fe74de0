#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Developer submissions end to end: a throwaway PostgreSQL, the real
# server on loopback, Debian's PREEMPT_RT kernel submitted as a built
# kernel (bzImage, .config and a tarball of the modules the virtual
# board loads) by a developer token with Debian's non-RT kernel as the
# baseline; two workers boot both on the icount virtual board; the
# farm's tick settles the submission with a verdict and mails it to the
# tree's people (a sink on loopback).  Bad submissions (not a tar, not a
# kernel, no PREEMPT_RT, a package that holds no kernel, unknown board,
# no baseline, a tree reference without a git tree to build in, the wrong
# token) get a clear answer and queue nothing; a developer cannot read
# another's submission, a maintainer can.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-submit.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
mkdir -p "$work/sink" "$work/state"

rt=$("$RTLAB" kernel fetch debian-rt 2>"$work/fetch.err" | sed -n 's/^release: *//p')
"$RTLAB" kernel fetch debian >/dev/null 2>>"$work/fetch.err"
check "Debian's RT and non-RT kernels fetched ($rt)" test -n "$rt"
root=$(ls -d "$RTLAB_CACHE_DIR"/kernels/linux-image-"$rt"_*/root | tail -n 1)
sh "$TOP/scripts/submission-kernel.sh" "$root" "$rt" "$work"
check "a modules tarball of what the virtual board loads" test -s "$work/modules.tar"

start_notify_sink
cat >"$work/farm.yaml" <<YAML
matrix:
  - tree: debian-6.1-rt
    boards: [vb]
    testcases: [cyclictest-idle]
    notify:
      email: [rt-list@lab.test]
YAML
cat >"$work/rtlab.conf" <<CONF
smtp_url = smtp://127.0.0.1:$SMTP_PORT
farm_schedule = $work/farm.yaml
CONF
export RTLAB_CONFIG="$work/rtlab.conf"

need_db
sql() { "$RTLAB" db psql -X -q -t -A -c "$1"; }
echo '{"board": "qemu-icount"}' >"$work/vb.json"
"$RTLAB" board add vb --kind qemu --definition "$work/vb.json" --quiet \
	>/dev/null 2>&1
TDEV=$("$RTLAB" token add --role developer dev1 --quiet)
TDEV2=$("$RTLAB" token add --role developer dev2 --quiet)
TMNT=$("$RTLAB" token add --role maintainer maint1 --quiet)
TBRD=$("$RTLAB" board token vb --quiet 2>/dev/null || "$RTLAB" board token vb | tail -n 1)
start_server "$work" --threads 2 || { not_ok "server starts"; exit 1; }

submit() { "$RTLAB" submit --server "$URL" --board vb --testcase cyclictest-idle "$@"; }
jobs_count() { sql 'SELECT count(*) FROM jobs'; }

# -- bad submissions: a clear answer, nothing queued -------------------------
submit --token "$TDEV" --git https://git.example/linux.git --ref v6.12-rt \
	--baseline debian >"$work/b.out" 2>&1
check "a tree reference without the lab's git tree to build it in: 400 saying so" \
	has "$work/b.out" "HTTP 400.*kind 'tree': give 'tree', the lab's git tree"
head -c 5000 /dev/urandom >"$work/junk"
curl -s -o "$work/resp" -w '%{http_code}' -H "Authorization: Bearer $TDEV" \
	-H 'Content-Type: application/x-tar' --data-binary @"$work/junk" \
	"$URL/api/v1/submissions" >"$work/code"
check "not a tar archive: 400 saying what is expected" \
	sh -c "test \$(cat '$work/code') = 400 && grep -q 'not a tar archive.*submission.json' '$work/resp'"
submit --token "$TDEV" --image "$work/junk" --config "$work/config" \
	--modules "$work/modules.tar" --baseline debian >"$work/b.out" 2>&1
check "random bytes as the image: 400, not a kernel" \
	has "$work/b.out" "HTTP 400.*not a kernel.*image"
grep -v '^CONFIG_PREEMPT_RT=' "$work/config" >"$work/config-nort"
submit --token "$TDEV" --image "$work/bzImage" --config "$work/config-nort" \
	--modules "$work/modules.tar" --baseline debian >"$work/b.out" 2>&1
check "a config without PREEMPT_RT: 400 naming it" \
	has "$work/b.out" "HTTP 400.*CONFIG_PREEMPT_RT is not set"
mkdir -p "$work/fake/DEBIAN"
printf 'Package: notakernel\nVersion: 1\nArchitecture: all\nMaintainer: t <t@t>\nDescription: x\n' \
	>"$work/fake/DEBIAN/control"
dpkg-deb -b "$work/fake" "$work/fake.deb" >/dev/null
submit --token "$TDEV" --deb "$work/fake.deb" --baseline debian >"$work/b.out" 2>&1
check "a package without a kernel: 400" \
	has "$work/b.out" "HTTP 400.*kernel.deb: not a kernel package"
"$RTLAB" submit --server "$URL" --token "$TDEV" --board nosuch \
	--testcase cyclictest-idle --image "$work/bzImage" --config "$work/config" \
	--modules "$work/modules.tar" --baseline debian >"$work/b.out" 2>&1
check "an unknown board: 404 naming it" has "$work/b.out" "HTTP 404.*nosuch"
submit --token "$TDEV" --image "$work/bzImage" --config "$work/config" \
	--modules "$work/modules.tar" >"$work/b.out" 2>&1
check "neither baseline nor tree: 400 saying to give one" \
	has "$work/b.out" "HTTP 400.*give 'baseline'"
submit --token "$TBRD" --image "$work/bzImage" --config "$work/config" \
	--modules "$work/modules.tar" --baseline debian >"$work/b.out" 2>&1
check "a board token may not submit: 403" has "$work/b.out" "HTTP 403"
check "... none of them queued anything or left a submission" \
	test "$(jobs_count)/$(sql 'SELECT count(*) FROM submissions')/$(ls "$RTLAB_STATE_DIR/submissions" 2>/dev/null | wc -l)" = "0/0/0"

# -- a built kernel, end to end ------------------------------------------------
submit --token "$TDEV" --image "$work/bzImage" --config "$work/config" \
	--modules "$work/modules.tar" --baseline debian --tree debian-6.1-rt \
	--runs 3 --duration 1 >"$work/s.out" 2>&1
check "the RT kernel submitted: 6 jobs (3 per side) queued" \
	has "$work/s.out" "^submission [0-9]+: queued, 6 jobs queued"
S=$(sed -n 's/^submission \([0-9]*\):.*/\1/p' "$work/s.out")
check "... at submission priority" \
	test "$(sql "SELECT string_agg(DISTINCT priority::text, ',') FROM jobs")" = 70
"$RTLAB" submit --server "$URL" --token "$TDEV2" --status "$S" >"$work/o.out" 2>&1
check "another developer may not read it: 403" has "$work/o.out" "HTTP 403.*another developer"
"$RTLAB" submit --server "$URL" --token "$TMNT" --status "$S" >"$work/m.json" 2>&1
check "a maintainer may" jqt '.owner == "dev1" and .state == "queued"' "$work/m.json"

# Three runs a side and one planned look keep the virtual board's part
# short: the verdict comes at the first look.
check "the testcase's plan: one look at 3 runs a side" test "$(curl -s \
	-o "$work/resp" -w '%{http_code}' -X PUT -H "Authorization: Bearer $TMNT" \
	-H 'Content-Type: application/json' \
	-d '{"min_runs": 3, "looks": 1, "alpha": 0.5}' \
	"$URL/api/v1/testcases/cyclictest-idle/verdict")" = 200
nice -n 10 "$RTLAB" worker --board vb --drain --name w1 >"$work/w1.log" 2>&1 &
w1=$!
nice -n 10 "$RTLAB" worker --board vb --drain --name w2 >"$work/w2.log" 2>&1 &
w2=$!
on_exit "kill $w1 $w2 2>/dev/null"
wait $w1
wait $w2
check "the workers ran the six jobs" \
	test "$(sql "SELECT count(*) FROM jobs WHERE state IN ('done', 'failed')")" = 6
"$RTLAB" farm tick --no-discover >"$work/tick.out" 2>&1
check "the tick settles the submission with a verdict" \
	has "$work/tick.out" "^submission $S: done: vb/cyclictest-idle: [A-Z_]+ \(verdict [0-9]+\)"
"$RTLAB" submit --server "$URL" --token "$TDEV" --status "$S" >"$work/s.json" 2>&1
check "its status: done, its runs, its verdict" \
	jqt '.state == "done" and (.jobs | length) == 6 and (.verdicts | length) == 1 and .verdicts[0].board == "vb"' "$work/s.json"
check "a mail to the tree's people says so" \
	sh -c "grep -q '^Subject: \[rtlab\] submission $S of dev1: done' '$work/sink/mail-1.eml' && grep -q '/verdicts/' '$work/sink/mail-1.eml'"
"$RTLAB" farm tick --no-discover >"$work/tick2.out" 2>&1
check "the next tick settles and tells nothing again" \
	sh -c "grep -q '0 submissions settled, 0 messages' '$work/tick2.out' && test ! -e '$work/sink/mail-2.eml'"
