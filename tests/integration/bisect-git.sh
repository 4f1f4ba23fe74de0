#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Bisection over the commits of a git tree, end to end: a clone of
# linux-source-6.12 (tests/linux-repo.sh) gets 16 small commits (comments
# in different files); the 11th also holds interrupts off for 300 us in
# every tick (udelay(300) in update_process_times(), after
# run_local_timers()).  The tree t612 is built with the virtual board's
# PREEMPT_RT config, as in tests/integration/build.sh (same name, config
# and cache: one build directory and ccache, so a step is an incremental
# build).  `rtlab bisect start` over t612@<base>..t612@<16th> and one
# worker draining the queue must name the 11th commit, its subject and
# author, with no one deciding a step; the workers build every step on
# demand.  Then a range whose every step fails to build: each is skipped
# as git bisect skip would, and the result is the smallest range, said so.
# Runs are 2 s of cyclictest on the icount board, 4 per side at one look
# (the fewest at which alpha 0.15 can decide).
set -u
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-bisect-git.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
tree_cache || exit 1

repo=$(sh "$TOP/tests/linux-repo.sh" 2>"$work/repo.err")
check "a git repository of linux-source-6.12" test -d "$repo/.git"
[ -d "$repo/.git" ] || { cat "$work/repo.err"; exit 1; }
# The files the 16 commits touch, one each (the 11th: the tick).
files="kernel/fork.c kernel/exit.c kernel/sched/core.c kernel/sched/fair.c
mm/page_alloc.c mm/memory.c fs/namei.c fs/open.c kernel/softirq.c
kernel/printk/printk.c kernel/time/timer.c lib/string.c kernel/signal.c
kernel/sys.c mm/mmap.c init/main.c"
# A clone with only the files the commits touch checked out (sparse: the
# whole tree is 1.5 GB to write and remove), on a branch of its own: a
# bisection names commits, not a branch, and the tree's mirror (shared
# with build.sh's t612) then holds no stale 'main' of ours.
git clone -q --shared --no-checkout "$repo" "$work/linux" &&
	git -C "$work/linux" sparse-checkout set --no-cone \
		$(for f in $files; do echo "/$f"; done) &&
	git -C "$work/linux" checkout -q -b bisect-demo &&
	git -C "$work/linux" branch -q -D main || exit 1
# Fixed dates and authors: the same commits every time, so a second run of
# the test finds their builds in the kernel cache.
n=0
gitc() {
	n=$((n + 1))
	GIT_AUTHOR_DATE="2025-02-01T00:00:${n}Z" \
		GIT_COMMITTER_DATE="2025-02-01T00:00:${n}Z" \
		git -C "$work/linux" -c user.name="Developer $1" \
		-c user.email="dev$1@example.invalid" commit -q -a -m "$2"
}
base=$(git -C "$work/linux" rev-parse HEAD)

# -- 16 commits; the 11th brings the latency ---------------------------------
i=0
for f in $files; do
	i=$((i + 1))
	if [ $i = 11 ]; then
		awk '{ print }
		/^\trun_local_timers\(\);$/ && !done {
			print "\t{"
			print "\t\tunsigned long flags;"
			print ""
			print "\t\tlocal_irq_save(flags);"
			print "\t\tudelay(300);"
			print "\t\tlocal_irq_restore(flags);"
			print "\t}"
			done = 1
		}' "$work/linux/$f" >"$work/timer.c" &&
			mv "$work/timer.c" "$work/linux/$f"
		gitc $i "timers: account the tick's local timers in one place"
		culprit=$(git -C "$work/linux" rev-parse HEAD)
	else
		printf '\n/* rtlab bisection test: change %d */\n' $i \
			>>"$work/linux/$f"
		gitc $i "$(echo "$f" | sed 's,/[^/]*$,,; s,.*/,,'): comment $i"
	fi
done
bad=$(git -C "$work/linux" rev-parse HEAD)
check "16 commits after the base, the 11th with udelay(300) in the tick" \
	sh -c "test \$(git -C '$work/linux' rev-list --count $base..$bad) = 16 &&
	       git -C '$work/linux' show $culprit | grep -q '^+.*udelay(300);'"

# A data directory with the lab's own files and the test's tree (the same
# name, config and fragments as tests/integration/build.sh's: the same
# build directory, and the same builds of the base commit).
data=$work/data
sh "$TOP/tests/t612-datadir.sh" "$data" "$work/linux" bisect-demo 2 || exit 1
export RTLAB_DATADIR=$data

# The ends are built first (the nightly would have); the steps are built
# by the worker when their jobs run.
t0=$(date +%s)
for c in $base $bad; do
	echo "# building t612@$c (a cold build takes minutes)"
	nice -n 10 "$RTLAB" build t612@$c >"$work/build.out" 2>"$work/build.err"
	check "t612@$(echo $c | cut -c1-12) built" test $? = 0 ||
		tail -n 20 "$work/build.err" | sed 's/^/#   /'
done
echo "# the ends built in $(($(date +%s) - t0)) s"

need_db
printf '{"board": "qemu-icount"}\n' >"$work/vb.json"
check "virtual board vb registered" sh -c \
	"'$RTLAB' board add vb --kind qemu --definition '$work/vb.json' --quiet >/dev/null"
TC=cyclictest-idle
check "testcase $TC: 4 runs per side, one look, alpha 0.15" sh -c \
	"'$RTLAB' testcase set $TC --min-runs 4 --looks 1 --alpha 0.15 >/dev/null"

# -- bad input ------------------------------------------------------------------
"$RTLAB" bisect start --board vb --testcase $TC --good t612@$bad \
	--bad t612@$base >"$work/rev.out" 2>&1
rc=$?
check "good after bad: refused as a usage error (exit $rc)" test $rc = 2
check "... 'not an ancestor ... reversed?'" has "$work/rev.out" \
	"is not an ancestor of --bad .* good and bad reversed?"
"$RTLAB" bisect start --board vb --testcase $TC \
	--good t612@$(echo $bad | cut -c1-12) --bad t612@$bad >"$work/same.out" 2>&1
check "the same commit twice: refused" has "$work/same.out" "same commit"

# -- the bisection ----------------------------------------------------------
t0=$(date +%s)
id=$("$RTLAB" bisect start --board vb --testcase $TC --duration 2 \
	--good t612@$base --bad t612@$bad 2>"$work/start.err")
check "bisection started over the git range (id ${id:-none})" test -n "$id"
[ -n "$id" ] || sed 's/^/#   /' "$work/start.err"
"$RTLAB" bisect status "$id" >"$work/st0" 2>&1
check "the range: the base and its 16 first-parent commits" has "$work/st0" \
	"range: +17 kernels \\(git tree t612, first-parent commits\\): good t612@$base, bad t612@$bad"

nice -n 10 "$RTLAB" worker --board vb --drain --name w1 >"$work/w1.log" 2>&1 &
w1=$!
on_exit "kill $w1 2>/dev/null"
wait $w1
echo "# the bisection took $(($(date +%s) - t0)) s"
"$RTLAB" bisect status "$id" >"$work/st1" 2>&1
"$RTLAB" bisect log "$id" >"$work/log1" 2>&1
sed 's/^/#   /' "$work/log1"
check "the bisection ended ($(sed -n 's/^result: *//p' "$work/st1"))" \
	has "$work/st1" "^bisection $id: done"
check "the culprit is the 11th commit" has "$work/st1" \
	"^culprit: +t612@$culprit\$"
check "... named with its subject and author" sh -c \
	"grep -q '^commit: *$culprit\$' '$work/st1' &&
	 grep -q '^subject: *timers: account the tick' '$work/st1' &&
	 grep -q '^author: *Developer 11 <dev11@example.invalid>\$' '$work/st1'"
check "... and in the result" has "$work/st1" \
	"^result: .*commit $culprit \"timers: account the tick.*\" by Developer 11"
check "the ends reproduced the regression first" has "$work/log1" \
	"bad/good REGRESSION"
check "every step decided against both ends, its commit named" sh -c \
	"test \$(grep -c '^    vs good' '$work/log1') = \
	\$(grep -c '^step ' '$work/log1') &&
	 test \$(grep -c '^    commit ' '$work/log1') = \
	\$(grep -c '^step ' '$work/log1')"
"$RTLAB" db psql -tAc "SELECT 'job ' || id || ' (' || kernel || '): ' || \
	state || ': ' || coalesce(error, '') FROM jobs WHERE bisect_id = $id \
	AND state <> 'done'" | sed 's/^/#   /'
vid=$("$RTLAB" bisect status --json "$id" | jq -r '.regression_id // empty')
"$RTLAB" report "${vid:-0}" -o "$work/report" >"$work/report.out" 2>&1
check "the regression's report names the culprit commit" sh -c \
	"grep -q '^  culprit: *$culprit\$' '$work/report/report.txt' &&
	 grep -q '^  subject: *timers: account the tick' '$work/report/report.txt' &&
	 grep -q '^  author: *Developer 11' '$work/report/report.txt'"
check "its bug carries cf_bisect_commit $culprit" sh -c \
	"jq -e --arg c '$culprit' '.cf_bisect_commit == \$c' \
	 '$work/report/bug.json' >/dev/null"

# -- every step fails to build --------------------------------------------------
# From the 10th commit: two commits that do not compile, then one that
# fixes them and brings the tick's udelay (the same source as the 11th).
good2=$(git -C "$work/linux" rev-parse $culprit~1)
git -C "$work/linux" checkout -q -b broken $good2
printf '\nthis is not C;\n' >>"$work/linux/kernel/time/timer.c"
gitc 17 "timers: break the build"
printf '\n/* rtlab bisection test: still broken */\n' >>"$work/linux/kernel/sys.c"
gitc 18 "sys: a comment while the build is broken"
git -C "$work/linux" checkout -q $culprit -- kernel/time/timer.c
git -C "$work/linux" checkout -q $good2 -- kernel/sys.c
gitc 19 "timers: fix the build, hold the tick longer"
bad2=$(git -C "$work/linux" rev-parse HEAD)
git -C "$work/linux" checkout -q bisect-demo
nice -n 10 "$RTLAB" build t612@$bad2 >"$work/build2.out" 2>"$work/build2.err"
check "t612@$(echo $bad2 | cut -c1-12) built" test $? = 0 ||
	tail -n 20 "$work/build2.err" | sed 's/^/#   /'
t0=$(date +%s)
id2=$("$RTLAB" bisect start --board vb --testcase $TC --duration 2 \
	--good t612@$good2 --bad t612@$bad2 2>"$work/start2.err")
check "a second bisection: the 10th commit .. the fix (id ${id2:-none})" \
	test -n "$id2"
[ -n "$id2" ] || sed 's/^/#   /' "$work/start2.err"
nice -n 10 "$RTLAB" worker --board vb --drain --name w2 >"$work/w2.log" 2>&1 &
w2=$!
on_exit "kill $w2 2>/dev/null"
wait $w2
echo "# the second bisection took $(($(date +%s) - t0)) s"
"$RTLAB" bisect status "$id2" >"$work/st2" 2>&1
"$RTLAB" bisect log "$id2" >"$work/log2" 2>&1
sed 's/^/#   /' "$work/log2"
check "it ended without a culprit, the smallest range said" sh -c \
	"grep -q '^bisection $id2: done' '$work/st2' &&
	 ! grep -q '^culprit:' '$work/st2' &&
	 grep -q \"^result: *no single culprit: .*between t612@$good2 (good) and t612@$bad2 (bad); the 2 kernel(s) between could not be decided (skipped: 2 did not build\" '$work/st2'"
check "... both steps skipped as unbuildable, with the build's reason" sh -c \
	"test \$(grep -c 'skip \\[unbuildable\\]' '$work/log2') = 2 &&
	 test \$(grep -c '^    why .*failed at bzImage' '$work/log2') = 2"
check "... no step ran more than the jobs it took to see that" test \
	"$("$RTLAB" db psql -tAc "SELECT count(*) FROM jobs WHERE bisect_id = $id2 \
	AND bisect_pos NOT IN (0, 3)")" -le 2
