#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The nightly matrix: a tree of fake-named kernel packages in a local apt
# repository (as tests/integration/trees.sh makes it), a schedule of that
# tree on a virtual board and two testcases.  A tick queues exactly the
# runs the tree's newest kernels need and a second tick queues nothing; a
# new kernel gets exactly its own runs; a verdict asking for its next look
# gets exactly the missing runs; jobs of higher priority are claimed
# first; a regression of the tree is told once by mail and webhook (to a
# sink on loopback), and its change later as a reply in the same thread.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-farm.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
apt_repo_init rtlabfarm
apt_repo_deb 10 6.1.10-1
apt_repo_deb 11 6.1.11-1
apt_repo_deb 9 6.1.9-1
check "a local apt repository with three kernels" apt_repo_publish
cat >"$work/ft.yaml" <<'YAML'
description: farm test tree
kind: debian-series
packages: linux-image-6.1.0-*-rtlabfarm-amd64
YAML

start_notify_sink
check "mail and webhook sink on loopback" test -n "$SMTP_PORT"
cat >"$work/rtlab.conf" <<CONF
smtp_url = smtp://127.0.0.1:$SMTP_PORT
mail_from = rtlab@lab.test
farm_schedule = $work/farm.yaml
public_url = http://127.0.0.1:8470
CONF
export RTLAB_CONFIG="$work/rtlab.conf"
cat >"$work/farm.yaml" <<YAML
matrix:
  - tree: $work/ft.yaml
    boards: [vb]
    testcases: [cyclictest-idle, cyclictest-churn]
    kernels: 2
    runs: 3
    duration_s: 2
    notify:
      email: [rt-list@lab.test, dev@lab.test]
      webhook: http://127.0.0.1:$HOOK_PORT/hook
YAML

need_db
sql() { "$RTLAB" db psql -X -q -t -A -c "$1"; }
echo '{"board": "qemu-icount"}' >"$work/vb.json"
"$RTLAB" board add vb --kind qemu --definition "$work/vb.json" --quiet \
	>/dev/null 2>"$work/board.err"
check "virtual board vb registered" test $? = 0

"$RTLAB" farm tick --dry-run >"$work/dry.out" 2>&1
check "a dry-run tick: 12 jobs to queue, nothing queued" \
	sh -c "grep -q '12 jobs to queue' '$work/dry.out' && test \$(\"$RTLAB\" db psql -X -q -t -A -c 'SELECT count(*) FROM jobs') = 0"
"$RTLAB" farm tick >"$work/t1.out" 2>&1
check "the first tick: 3 new kernels, 2 newest x 2 testcases x 3 runs queued" \
	has "$work/t1.out" "^tick: 3 new kernels, 4 cells, 12 jobs queued"
check "... of the two newest kernels only, at nightly priority" \
	test "$(sql "SELECT string_agg(DISTINCT kernel || ' ' || priority || ' ' || origin, ',') FROM jobs")" = \
	"linux-image-6.1.0-10-rtlabfarm-amd64=6.1.10-1 10 farm,linux-image-6.1.0-11-rtlabfarm-amd64=6.1.11-1 10 farm"
check "... each run as long as the entry's duration_s (2 s)" \
	test "$(sql "SELECT string_agg(DISTINCT duration_s::text, ',') FROM jobs")" = 2
"$RTLAB" farm tick >"$work/t2.out" 2>&1
check "a second tick queues nothing" \
	has "$work/t2.out" "^tick: 0 new kernels, 4 cells, 0 jobs queued"
check "... the queue still holds 12" test "$(sql 'SELECT count(*) FROM jobs')" = 12

apt_repo_deb 12 6.1.12-1
check "a fourth kernel published" apt_repo_publish
"$RTLAB" farm tick >"$work/t3.out" 2>&1
check "the next tick queues the new kernel's runs alone (6)" \
	sh -c "grep -q '^tick: 1 new kernels, 4 cells, 6 jobs queued' '$work/t3.out' && test \$(\"$RTLAB\" db psql -X -q -t -A -c \"SELECT count(*) FROM jobs WHERE kernel LIKE '%-12-%'\") = 6"

# A verdict that needs its next look (6 runs per side) asks for 3 more of
# each side; a kernel whose run failed on the board keeps that job counted.
k11=linux-image-6.1.0-11-rtlabfarm-amd64=6.1.11-1
k12=linux-image-6.1.0-12-rtlabfarm-amd64=6.1.12-1
sql "INSERT INTO kernels (release) VALUES ('r11'), ('r12');
     UPDATE jobs SET kernel_id = (SELECT id FROM kernels WHERE release = 'r11') WHERE kernel = '$k11';
     UPDATE jobs SET kernel_id = (SELECT id FROM kernels WHERE release = 'r12') WHERE kernel = '$k12';
     INSERT INTO verdicts (board_id, testcase_id, baseline_kernel_id, candidate_kernel_id, verdict, details)
     SELECT b.id, t.id, (SELECT id FROM kernels WHERE release = 'r11'), (SELECT id FROM kernels WHERE release = 'r12'),
            'INCONCLUSIVE', '{\"sequential\": {\"next_look_runs\": 6}}'
       FROM boards b, testcases t WHERE b.name = 'vb' AND t.name = 'cyclictest-idle'" >/dev/null
"$RTLAB" farm tick --no-discover >"$work/t4.out" 2>&1
check "an INCONCLUSIVE verdict at its first look: 3 more runs of each side" \
	sh -c "grep -q '^tick: 0 new kernels, 4 cells, 6 jobs queued' '$work/t4.out' && grep -q '6.1.11-1 vb cyclictest-idle: 3 of 6 runs, queueing 3' '$work/t4.out' && grep -q '6.1.12-1 vb cyclictest-idle: 3 of 6 runs, queueing 3' '$work/t4.out'"
"$RTLAB" farm tick --no-discover >"$work/t5.out" 2>&1
check "... and only once" has "$work/t5.out" "^tick: 0 new kernels, 4 cells, 0 jobs queued"

"$RTLAB" farm status >"$work/status.out" 2>&1
check "farm status: queued per tree and board" \
	has "$work/status.out" "^ft +vb +24 +0 +0 +0"
"$RTLAB" farm status --json >"$work/status.json"
check "farm status --json" jqt '.cells[0].queued == 24' "$work/status.json"

# -- priorities: a worker takes the most urgent job first ----------------------
"$RTLAB" board add lb --kind local --quiet >/dev/null 2>&1
lo=$("$RTLAB" job add --kernel host --board lb --testcase cyclictest-idle \
	--duration 1 --priority 5 --quiet)
hi=$("$RTLAB" job add --kernel host --board lb --testcase cyclictest-idle \
	--duration 1 --priority 90 --quiet)
"$RTLAB" worker --board lb --once >"$work/w.out" 2>&1
check "the priority-90 job queued last is run before the priority-5 one" \
	test "$(sql "SELECT state FROM jobs WHERE id = $hi")/$(sql "SELECT state FROM jobs WHERE id = $lo")" = "done/queued"
"$RTLAB" job add --kernel host --board lb --testcase cyclictest-idle \
	--priority 101 >"$work/p.out" 2>&1
check "--priority out of range: usage error naming it" \
	sh -c "test $? = 2 && grep -q -- '--priority' '$work/p.out'"

# -- telling people ------------------------------------------------------------
sql "DELETE FROM verdicts" >/dev/null
sql "UPDATE kernels SET tree = 'ft' WHERE release IN ('r11', 'r12');
     INSERT INTO verdicts (board_id, testcase_id, baseline_kernel_id, candidate_kernel_id, verdict, details)
     SELECT b.id, t.id, (SELECT id FROM kernels WHERE release = 'r11'), (SELECT id FROM kernels WHERE release = 'r12'),
            'REGRESSION', '{\"reason\": \"max 40 -> 75 us\"}'
       FROM boards b, testcases t WHERE b.name = 'vb' AND t.name = 'cyclictest-churn'" >/dev/null
"$RTLAB" farm tick --no-discover >"$work/n1.out" 2>&1
wait_file() { _i=0; while [ ! -f "$1" ] && [ $_i -lt 300 ]; do sleep 0.1; _i=$((_i + 1)); done; test -f "$1"; }
check "a regression of the tree: one message told" \
	has "$work/n1.out" "^tick: .* 1 messages, 0 errors"
check "... a mail in the sink to both recipients" \
	sh -c "wait_file() { :; }; grep -q '^To: rt-list@lab.test, dev@lab.test' '$work/sink/mail-1.eml' && grep -q '^Subject: \[rtlab\] ft: REGRESSION r12 on vb/cyclictest-churn (vs r11)' '$work/sink/mail-1.eml' && grep -q 'max 40 -> 75 us' '$work/sink/mail-1.eml' && grep -q '/verdicts/' '$work/sink/mail-1.eml'"
check "... and a webhook call with the verdict" \
	jqt '.state == "REGRESSION" and .data.candidate == "r12" and .in_reply_to == null' "$work/sink/hook-1.json"
"$RTLAB" farm tick --no-discover >"$work/n2.out" 2>&1
check "the next tick tells nobody again" \
	sh -c "grep -q '^tick: .* 0 messages, 0 errors' '$work/n2.out' && test ! -e '$work/sink/mail-2.eml'"
sql "UPDATE verdicts SET verdict = 'NO_CHANGE'" >/dev/null
"$RTLAB" farm tick --no-discover >"$work/n3.out" 2>&1
root=$(sed -n 's/^Message-ID: //p' "$work/sink/mail-1.eml" | tr -d '\r')
check "the verdict changed: one reply in the thread" \
	sh -c "grep -q '^tick: .* 1 messages, 0 errors' '$work/n3.out' && grep -q '^Subject: Re: \[rtlab\] ft: NO_CHANGE' '$work/sink/mail-2.eml' && grep -q '^In-Reply-To: $root' '$work/sink/mail-2.eml' && grep -q '^References: $root' '$work/sink/mail-2.eml'"
check "... the webhook says which message it follows" \
	jqt --arg r "$root" '.state == "NO_CHANGE" and .in_reply_to == $r' "$work/sink/hook-2.json"
check "... one notification row, two messages" \
	test "$(sql 'SELECT messages FROM notifications')" = 2

# -- bisecting a regression ----------------------------------------------------
# An entry with 'bisect: true': a REGRESSION from r10 to r12, with r11
# untested between them in the tree, is bisected once, over the tree's
# kernels; the neighbours' REGRESSION (r11 to r12) is not: nothing is
# between them.
k10=linux-image-6.1.0-10-rtlabfarm-amd64=6.1.10-1
sed 's/^    runs: 3$/    runs: 3\n    bisect: true/' "$work/farm.yaml" \
	>"$work/farm-bisect.yaml"
sql "INSERT INTO kernels (release) VALUES ('r10');
     UPDATE jobs SET kernel_id = (SELECT id FROM kernels WHERE release = 'r10') WHERE kernel = '$k10';
     UPDATE verdicts SET verdict = 'REGRESSION';
     INSERT INTO verdicts (board_id, testcase_id, baseline_kernel_id, candidate_kernel_id, verdict, details)
     SELECT b.id, t.id, (SELECT id FROM kernels WHERE release = 'r10'), (SELECT id FROM kernels WHERE release = 'r12'),
            'REGRESSION', '{\"reason\": \"max 40 -> 90 us\"}'
       FROM boards b, testcases t WHERE b.name = 'vb' AND t.name = 'cyclictest-churn'" >/dev/null
vid=$(sql "SELECT max(id) FROM verdicts")
nbisect() { sql "SELECT count(*) FROM bisections"; }
"$RTLAB" farm tick --no-discover --dry-run --schedule "$work/farm-bisect.yaml" \
	>"$work/b0.out" 2>&1
check "a dry run names the bisection it would start and starts none" \
	sh -c "grep -q '^  would bisect verdict $vid on vb/cyclictest-churn: $k10 \.\. $k12' '$work/b0.out' &&
	       grep -q '^tick: .* 1 bisections to start' '$work/b0.out' &&
	       test $(nbisect) = 0"
"$RTLAB" farm tick --no-discover --no-notify --schedule "$work/farm-bisect.yaml" \
	>"$work/b1.out" 2>&1
check "a regression with an untested kernel between its two: one bisection started" \
	sh -c "grep -q '^tick: .* 0 errors, 1 bisections started' '$work/b1.out' &&
	       test $(nbisect) = 1"
check "... over the tree's kernels from the baseline to the candidate, for that verdict" \
	test "$(sql "SELECT array_to_string(kernels, ' ') || ' ' || regression_id FROM bisections")" = \
	"$k10 $k11 $k12 $vid"
check "... its first runs queued at bisection priority (90)" \
	test "$(sql "SELECT count(*) FROM jobs WHERE bisect_id IS NOT NULL AND priority = 90 AND state = 'queued'")" -gt 0
"$RTLAB" farm tick --no-discover --no-notify --schedule "$work/farm-bisect.yaml" \
	>"$work/b2.out" 2>&1
check "the next tick starts none again; the neighbours' regression is never bisected" \
	sh -c "grep -q '^tick: .* 0 bisections started' '$work/b2.out' &&
	       test $(nbisect) = 1"
sql "DELETE FROM jobs WHERE bisect_id IS NOT NULL; DELETE FROM bisections;
     UPDATE verdicts SET verdict = 'NO_CHANGE'" >/dev/null

# -- bad schedules -------------------------------------------------------------
printf 'matrix:\n  - tree: ft\n    boards: [vb]\n    testcase: [x]\n' >"$work/bad1.yaml"
"$RTLAB" farm tick --schedule "$work/bad1.yaml" >"$work/bad.out" 2>&1
check "an unknown field: refused, naming the entry and the field" \
	has "$work/bad.out" "bad1.yaml: matrix\[0\]: unknown field 'testcase'"
printf 'matrix:\n  - tree: ft\n    boards: [vb]\n    testcases: [x]\n    runs: 0\n' >"$work/bad2.yaml"
"$RTLAB" farm tick --schedule "$work/bad2.yaml" >"$work/bad.out" 2>&1
check "runs 0: refused with the range" \
	has "$work/bad.out" "matrix\[0\]\.runs: expected a whole number from 1 to"
printf 'matrix:\n  - tree: %s\n    boards: [nosuch]\n    testcases: [cyclictest-idle]\n' "$work/ft.yaml" >"$work/bad3.yaml"
"$RTLAB" farm tick --no-discover --schedule "$work/bad3.yaml" >"$work/bad.out" 2>&1
check "an unknown board: exit 1, the cell named, nothing queued for it" \
	sh -c "test $? = 1 && grep -q 'nosuch cyclictest-idle: .*nosuch' '$work/bad.out'"

printf 'matrix:\n  - tree: ft\n    boards: [vb]\n    testcases: [x]\n    bisect: often\n' >"$work/bad4.yaml"
"$RTLAB" farm tick --schedule "$work/bad4.yaml" >"$work/bad.out" 2>&1
check "bisect neither true nor false: refused, naming the field" \
	has "$work/bad.out" "bad4.yaml: matrix\[0\]\.bisect: expected true or false"

# -- the web page ----------------------------------------------------------------
start_server "$work" --threads 2 || { not_ok "server starts"; exit 1; }
check "GET /farm shows the night per tree and board" \
	sh -c "test \$(curl -s -o '$work/farm.html' -w '%{http_code}' '$URL/farm') = 200 && grep -q '<td>ft</td><td>vb</td>' '$work/farm.html'"
