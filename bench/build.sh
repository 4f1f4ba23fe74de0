#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/build.sh [RUNS]: the cost of a git tree's new commit, on the tree
# the tests build (Debian's linux-source-6.12 as a git repository, the
# virtual board's PREEMPT_RT config):
#   - a build of the tree's first commit: cold, or from the tree's build
#     directory and ccache in the lab's cache ($RTLAB_CACHE_DIR, default
#     /var/lib/rtlab/cache as the tests use it) when an earlier run or
#     `make check` left them;
#   - a one-file change (kernel/time/timer.c), and a change to a header
#     most of the kernel includes (include/linux/sched.h);
#   - a new commit's way to its verdict on the virtual board: `rtlab farm
#     tick` discovers it and queues RUNS (default 5, the fewest one look at
#     the default alpha can decide with) runs of it and of its
#     parent, a worker builds and boots them, and the verdict is stored:
#     the wall time, and the part of it that was the build.
# Prints figures; asserts nothing.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
RTLAB=$build/rtlab
runs=${1:-5}
RTLAB_CACHE_DIR=${RTLAB_CACHE_DIR:-/var/lib/rtlab/cache}
export RTLAB_CACHE_DIR

RTLAB_STATE_DIR=$(mktemp -d /tmp/rtlab-bench.XXXXXX)
chmod 755 "$RTLAB_STATE_DIR"
export RTLAB_STATE_DIR
unset RTLAB_DB
work=$RTLAB_STATE_DIR/work
mkdir -p "$work"
cleanup() {
	"$RTLAB" db stop >/dev/null 2>&1 || true
	rm -rf "$RTLAB_STATE_DIR"
}
trap cleanup EXIT INT TERM
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{printf "%.1f", $2 - $1}'; }
sql() { "$RTLAB" db psql -X -q -t -A -c "$1"; }

repo=$(sh "$top/tests/linux-repo.sh")
git clone -q --shared "$repo" "$work/linux"
git -C "$work/linux" config gc.auto 0
gitc() {
	git -C "$work/linux" -c user.name='rtlab bench' \
		-c user.email=bench@rtlab.invalid "$@"
}
# the tree the tests use (same name and config: same build directory)
data=$work/data
sh "$top/tests/t612-datadir.sh" "$data" "$work/linux" main 1
export RTLAB_DATADIR=$data
RTLAB_CONFIG=$work/rtlab.conf
export RTLAB_CONFIG
cat >"$work/farm.yaml" <<YAML
matrix:
  - tree: t612
    boards: [vb]
    testcases: [cyclictest-idle]
    kernels: 2
    runs: $runs
    duration_s: 5
YAML
echo "farm_schedule = $work/farm.yaml" >"$RTLAB_CONFIG"

timed_build() {
	_t0=$(now)
	"$RTLAB" build "$1" >"$work/build.out" 2>&1
	_t1=$(now)
	grep -q '(built now)' "$work/build.out" && _how=built || _how=cached
	echo "$(secs "$_t0" "$_t1") s ($_how)"
}

echo "bench/build: t612 (linux-source-6.12, tinyconfig + rt-virtual-board.config), cache $RTLAB_CACHE_DIR"
printf '%-52s %s\n' "figure" "value"
printf '%-52s %s\n' "first commit (cold unless the tree's build dir is warm)" \
	"$(timed_build "t612@main")"
printf '\n/* bench: a one-file change %s */\n' "$$" >>"$work/linux/kernel/time/timer.c"
gitc commit -q -a -m "timers: a comment"
printf '%-52s %s\n' "a one-file change (kernel/time/timer.c)" "$(timed_build "t612@main")"
printf '\n/* bench: a header change %s */\n' "$$" >>"$work/linux/include/linux/sched.h"
gitc commit -q -a -m "sched.h: a comment"
printf '%-52s %s\n' "a change to include/linux/sched.h" "$(timed_build "t612@main")"

# a new commit, from its appearance to its verdict
"$RTLAB" db start >/dev/null
echo '{"board": "qemu-icount"}' >"$work/vb.json"
"$RTLAB" board add vb --kind qemu --definition "$work/vb.json" --quiet >/dev/null
"$RTLAB" farm tick --no-notify >/dev/null 2>&1
"$RTLAB" worker --board vb --drain >/dev/null 2>&1
"$RTLAB" testcase set cyclictest-idle --min-runs "$runs" --looks 1 >/dev/null
printf '\n/* bench: a new commit %s */\n' "$$" >>"$work/linux/kernel/time/timer.c"
gitc commit -q -a -m "timers: the new commit"
t0=$(now)
"$RTLAB" farm tick --no-notify >"$work/tick1.out" 2>&1
"$RTLAB" worker --board vb --drain >"$work/worker.out" 2>&1
"$RTLAB" farm tick --no-notify >"$work/tick2.out" 2>&1
t1=$(now)
# the worker builds inside the job; the kernel's build log says how long
sha=$(git -C "$work/linux" rev-parse HEAD)
bt=$(sed -n 's/^=== done in \([0-9]*\) s$/\1/p' \
	"$RTLAB_CACHE_DIR"/kernels/build_t612_$(printf %.12s "$sha")_*/build.log 2>/dev/null | tail -n 1)
verdicts=$(sql "SELECT count(*) FROM verdicts")
printf '%-52s %s\n' "new commit -> verdict ($runs runs a side, 5 s each)" \
	"$(secs "$t0" "$t1") s, of which the build ${bt:-?} s; $verdicts verdict(s) stored"
