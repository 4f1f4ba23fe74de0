#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Kernels built from a git tree: a repository of Debian's linux-source-6.12
# (tests/linux-repo.sh) followed as a tree with the lab's minimal
# PREEMPT_RT config for the virtual board.  Discovery lists the branch's
# newest commits; `rtlab build` builds one (cold: several minutes of two
# cores; the tree's build directory and ccache in the lab's cache, which
# survives a new clone, make later runs incremental), caches it and
# reuses it; the kernel boots on the
# virtual board through a queued job and its run is stored as PREEMPT_RT;
# the nightly tick queues a new commit's runs once; a commit that does not
# compile and a fragment whose option does not survive are results with
# their reason and log, remembered, and tried again on request.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-build.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
tree_cache || exit 1

repo=$(sh "$TOP/tests/linux-repo.sh" 2>"$work/repo.err")
check "a git repository of linux-source-6.12" test -d "$repo/.git"
[ -d "$repo/.git" ] || { cat "$work/repo.err"; exit 1; }
# the tree the test follows: a clone of it, where commits are added
git clone -q --shared "$repo" "$work/linux" || exit 1
git -C "$work/linux" config gc.auto 0
gitc() {
	git -C "$work/linux" -c user.name='rtlab tests' \
		-c user.email=tests@rtlab.invalid "$@"
}

# A data directory with the lab's own files and the test's trees.
data=$work/data
sh "$TOP/tests/t612-datadir.sh" "$data" "$work/linux" main 2 || exit 1
export RTLAB_DATADIR=$data

# -- definitions: errors name the file and the field ------------------------
printf 'kind: git\ngit: /nowhere\n' >"$work/nobranch.yaml"
"$RTLAB" tree discover --dry-run "$work/nobranch.yaml" >"$work/e1.out" 2>&1
check "a git tree without a branch: refused, naming the field" \
	has "$work/e1.out" "nobranch.yaml: kind 'git' needs fields 'git'.*'branch'"
printf 'kind: git\ngit: /nowhere\nbranch: main\nfragments: nosuch.config\n' \
	>"$work/nofrag.yaml"
"$RTLAB" tree discover --dry-run "$work/nofrag.yaml" >"$work/e2.out" 2>&1
check "a missing fragment: refused, naming the file" \
	has "$work/e2.out" "nofrag.yaml: line 4: field 'fragments': no file .*nosuch.config"
printf 'kind: git\ngit: %s/nosuch\nbranch: main\n' "$work" >"$work/norepo.yaml"
"$RTLAB" tree discover --dry-run "$work/norepo.yaml" >"$work/e3.out" 2>&1
check "a repository that is not there: git clone's failure, naming the URL" \
	has "$work/e3.out" "tree norepo: git clone --mirror $work/nosuch failed"
"$RTLAB" build nosuchtree@main >"$work/e4.out" 2>&1
check "rtlab build of an unknown tree: says how to list them" \
	has "$work/e4.out" "rtlab tree list"
"$RTLAB" build t612@nosuchref >"$work/e5.out" 2>&1
check "rtlab build of a ref the tree lacks: named" \
	has "$work/e5.out" "tree t612: no commit 'nosuchref'"

# -- discovery ----------------------------------------------------------------
base=$(git -C "$work/linux" rev-parse HEAD)
printf '\n/* rtlab test: a second commit */\n' >>"$work/linux/kernel/sched/core.c"
gitc commit -q -a -m "sched: a comment"
second=$(git -C "$work/linux" rev-parse HEAD)
"$RTLAB" tree discover --dry-run t612 >"$work/d.out" 2>&1
check "discovery: the branch's two newest commits, oldest first" \
	sh -c "grep -q '^tree t612: 2 kernels' '$work/d.out' &&
	       grep '^ *0 ' '$work/d.out' | grep -q $base &&
	       grep '^ *1 ' '$work/d.out' | grep -q $second"
"$RTLAB" tree list >"$work/list.out" 2>&1
check "tree list: the git tree, its URL and branch" \
	has "$work/list.out" "^t612 +git +$work/linux branch main, tinyconfig \+ 1 fragment"

# -- a build --------------------------------------------------------------------
echo "# building t612@main (a cold build takes minutes)"
"$RTLAB" build t612 >"$work/b1.out" 2>"$work/b1.err"
rc=$?
check "rtlab build t612: exit 0 (exit $rc)" test $rc = 0
[ $rc = 0 ] || sed 's/^/#   /' "$work/b1.err" | tail -n 20
check "... it is the branch's head, 6.12, PREEMPT_RT from its config" \
	sh -c "grep -q '^kernel: *t612@$second' '$work/b1.out' &&
	       grep -q '^release: *6\.12\.' '$work/b1.out' &&
	       grep -q '^realtime: *yes' '$work/b1.out'"
check "... progress said per step" has "$work/b1.err" "build t612@.*: bzImage"
img=$(sed -n 's/^image: *//p' "$work/b1.out")
check "... its image is a bzImage" sh -c "od -A d -t c -j 514 -N 4 '$img' | grep -q 'H   d   r   S'"
log=$(sed -n 's/^log: *//p' "$work/b1.out")
check "... its build log is kept" has "$log" "=== bzImage: make"
"$RTLAB" build t612@$second >"$work/b2.out" 2>&1
check "built once: a second build is the cached kernel" \
	has "$work/b2.out" "^commit: *$second  \(cached\)"

# -- the built kernel runs on the virtual board, through the queue ----------
need_db
echo '{"board": "qemu-icount"}' >"$work/vb.json"
"$RTLAB" board add vb --kind qemu --definition "$work/vb.json" --quiet \
	>/dev/null 2>"$work/board.err"
check "virtual board vb registered" test $? = 0
"$RTLAB" job add --kernel t612@main --board vb --testcase cyclictest-idle \
	--duration 3 --quiet >"$work/job.out" 2>&1
check "a job for t612@main: queued by its commit id" \
	test "$("$RTLAB" db psql -X -q -t -A -c 'SELECT kernel FROM jobs')" = "t612@$second"
"$RTLAB" worker --board vb --once >"$work/w.out" 2>&1
check "the worker boots the built kernel: a run stored" \
	test "$("$RTLAB" db psql -X -q -t -A -c "SELECT count(*) FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE k.name = 't612@$second' AND r.status = 'complete'")" = 1 ||
	sed 's/^/#   /' "$work/w.out" | tail -n 20
check "... recorded as a PREEMPT_RT 6.12 kernel" \
	test "$("$RTLAB" db psql -X -q -t -A -c "SELECT realtime::text || ' ' || (release LIKE '6.12.%')::text FROM kernels WHERE name = 't612@$second'")" = "true true"

# -- the nightly tick queues a git tree's new commits once -----------------
cat >"$work/farm.yaml" <<YAML
matrix:
  - tree: t612
    boards: [vb]
    testcases: [cyclictest-idle]
    kernels: 2
    runs: 1
    duration_s: 2
YAML
"$RTLAB" farm tick --no-notify --schedule "$work/farm.yaml" >"$work/t1.out" 2>&1
check "a tick of the git tree: the missing run of its two commits queued" \
	has "$work/t1.out" "1 jobs queued"
"$RTLAB" farm tick --no-notify --schedule "$work/farm.yaml" >"$work/t2.out" 2>&1
check "a second tick: nothing more" has "$work/t2.out" "0 jobs queued"
check "... the job names the older commit, which had no run" \
	test "$("$RTLAB" db psql -X -q -t -A -c "SELECT string_agg(kernel, ' ') FROM jobs WHERE origin = 'farm'")" = "t612@$base"

# -- failures are results ---------------------------------------------------
printf '\nthis is not C;\n' >>"$work/linux/kernel/sched/core.c"
gitc commit -q -a -m "sched: break the build"
broken=$(git -C "$work/linux" rev-parse HEAD)
"$RTLAB" build t612@$broken >"$work/f1.out" 2>&1
check "a commit that does not compile: exit 1" test $? = 1
check "... the reason names the step, the file and the log" \
	has "$work/f1.out" "build of t612@${broken%????????????????????????????} failed at bzImage \(exit 2\): .*kernel/sched/core\.c.*error.*; log: .*\.log"
flog=$(sed -n 's/.*; log: \(.*\.log\).*/\1/p' "$work/f1.out" | head -n 1)
check "... the log holds the compiler's error" has "$flog" "core\.c:.*error"
"$RTLAB" build t612@$broken >"$work/f2.out" 2>&1
check "... asked again: the same failure at once, not rebuilt" \
	sh -c "grep -q 'failed at bzImage.*(an earlier build)' '$work/f2.out' &&
	       ! grep -q '=== checkout' '$work/f2.out'"
"$RTLAB" build --retry t612@$broken >"$work/f3.out" 2>&1
check "... --retry builds it again (and it fails again)" \
	sh -c "grep -q 'failed at bzImage' '$work/f3.out' &&
	       ! grep -q 'an earlier build' '$work/f3.out'"
"$RTLAB" job add --kernel t612@$broken --board vb --testcase cyclictest-idle \
	--duration 3 --quiet >/dev/null 2>&1
"$RTLAB" worker --board vb --once >"$work/w2.out" 2>&1
check "a job whose kernel does not build: failed with the build's reason" \
	has "$work/w2.out" "failed at bzImage"

printf 'CONFIG_RTLAB_NO_SUCH_OPTION=y\n' >"$work/bad.config"
cat >"$data/kernels/trees/t612bad.yaml" <<YAML
kind: git
git: $work/linux
branch: main
config: tinyconfig
fragments: ../configs/rt-virtual-board.config $work/bad.config
YAML
"$RTLAB" build t612bad@$second >"$work/c1.out" 2>&1
check "a fragment option the kernel does not keep: the build fails at config, naming it" \
	has "$work/c1.out" "failed at config: 1 option\(s\) of the fragments are not in the final .config.*CONFIG_RTLAB_NO_SUCH_OPTION=y"

# -- a developer's tree reference: fetched, built, run, settled, told ------
start_notify_sink
cat >"$work/farm.yaml" <<YAML
matrix:
  - tree: t612
    boards: [vb]
    testcases: [cyclictest-idle]
    kernels: 2
    runs: 1
    duration_s: 2
    notify:
      email: [rt-list@lab.test]
YAML
cat >"$work/rtlab.conf" <<CONF
smtp_url = smtp://127.0.0.1:$SMTP_PORT
farm_schedule = $work/farm.yaml
CONF
export RTLAB_CONFIG="$work/rtlab.conf"
TDEV=$("$RTLAB" token add --role developer dev1 --quiet)
TMNT=$("$RTLAB" token add --role maintainer maint1 --quiet)
start_server "$work" --threads 2 || { not_ok "server starts"; exit 1; }
submit() { "$RTLAB" submit --server "$URL" --token "$TDEV" --board vb --testcase cyclictest-idle "$@"; }
# the developer's branch: a change of their own, on the tree's head
gitc checkout -q -b dev "$second"
printf '\n/* a developer change */\n' >>"$work/linux/kernel/time/timer.c"
gitc commit -q -a -m "timers: a developer change"
dev=$(git -C "$work/linux" rev-parse HEAD)
gitc checkout -q main
printf 'CONFIG_LOG_BUF_SHIFT=15\n' >"$work/dev.config"
printf '# CONFIG_PREEMPT_RT is not set\n' >"$work/nort.config"

submit --git "$work/linux" --ref nosuchbranch --tree t612 --baseline "t612@$second" \
	--config-fragment "$work/dev.config" >"$work/s0.out" 2>&1
check "a ref git cannot fetch: 400 with git's reason, nothing stored" \
	sh -c "grep -q 'HTTP 400.*git fetch $work/linux nosuchbranch failed' '$work/s0.out' &&
	       test \$(\"$RTLAB\" db psql -X -q -t -A -c 'SELECT count(*) FROM submissions') = 0"
submit --git "$work/linux" --ref dev --tree t612 --baseline "t612@$second" \
	--config-fragment "$work/nort.config" >"$work/s0.out" 2>&1
check "a fragment that turns PREEMPT_RT off: 400 naming it" \
	has "$work/s0.out" "HTTP 400.*turns CONFIG_PREEMPT_RT off"

check "the testcase's plan: one look at 3 runs a side" test "$(curl -s \
	-o "$work/resp" -w '%{http_code}' -X PUT -H "Authorization: Bearer $TMNT" \
	-H 'Content-Type: application/json' \
	-d '{"min_runs": 3, "looks": 1, "alpha": 0.5}' \
	"$URL/api/v1/testcases/cyclictest-idle/verdict")" = 200
submit --git "$work/linux" --ref dev --tree t612 --baseline "t612@$second" \
	--config-fragment "$work/dev.config" --runs 3 --duration 2 >"$work/s1.out" 2>&1
check "the developer's branch submitted: its runs queued" \
	has "$work/s1.out" "^submission [0-9]+: queued"
S=$(sed -n 's/^submission \([0-9]*\):.*/\1/p' "$work/s1.out")
check "... its kernel: the fetched commit, the tree's config and the fragment" \
	sh -c "grep -q '^commit: $dev' '$RTLAB_STATE_DIR/submissions/$S/kernel.yaml' &&
	       grep -q '^fragment: config-fragment' '$RTLAB_STATE_DIR/submissions/$S/kernel.yaml'"
submit --git "$work/linux" --ref "$broken" --tree t612 --baseline "t612@$second" \
	--runs 2 --duration 2 >"$work/s2.out" 2>&1
S2=$(sed -n 's/^submission \([0-9]*\):.*/\1/p' "$work/s2.out")
check "a commit that does not build: accepted (the build is the test)" test -n "$S2"
nice -n 10 "$RTLAB" worker --board vb --drain >"$work/w3.out" 2>&1
check "the worker built and ran the developer's kernel" \
	test "$("$RTLAB" db psql -X -q -t -A -c "SELECT count(*) FROM jobs WHERE submission_id = $S AND state = 'done' AND kernel LIKE '%/kernel.yaml'")" = 3 ||
	sed 's/^/#   /' "$work/w3.out" | tail -n 20
"$RTLAB" farm tick --no-discover >"$work/tick.out" 2>&1
check "the tick settles it with a verdict" \
	has "$work/tick.out" "^submission $S: done: vb/cyclictest-idle: [A-Z_]+ \(verdict [0-9]+\)"
check "... and the one that does not build: failed, with the build's reason" \
	has "$work/tick.out" "^submission $S2: failed: .*failed at bzImage"
check "a mail to the tree's people for each" \
	sh -c "grep -l '^Subject: \[rtlab\] submission $S of dev1: done' '$work'/sink/mail-*.eml >/dev/null &&
	       grep -l '^Subject: \[rtlab\] submission $S2 of dev1: failed' '$work'/sink/mail-*.eml >/dev/null"
curl -s "$URL/submissions/$S" >"$work/sub.html"
check "the submission's page: done, its verdict and its runs linked" \
	sh -c "grep -q '<h1>Submission $S: done' '$work/sub.html' &&
	       grep -q 'href=\"/verdicts/[0-9]*\"' '$work/sub.html' &&
	       test \$(grep -o 'href=\"/runs/[0-9a-f-]*\"' '$work/sub.html' | wc -l) -ge 3"
curl -s "$URL/submissions/$S2" >"$work/sub2.html"
check "... and the failed one's page says why" has "$work/sub2.html" "failed at bzImage"
