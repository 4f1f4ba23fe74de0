#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Calibration on the local board (this host, real cyclictest): the
# user-space injector's options and its record of what it did; then
# `rtlab calibrate --board local` with 5 clean runs against 5 clean runs
# (A/A: must not be a REGRESSION) and 5 runs with 2 ms SCHED_FIFO 99 spins
# every ~50 ms on the measured CPUs (must be a REGRESSION), both judged by
# calibrate and again offline by `rtlab compare` on the kept bundles; the
# result lands in boards.calibration of a throwaway database, with the
# reference figures a board health job is judged by.  2 s runs,
# about a minute in all.
set -u
. "$(dirname "$0")/../lib.sh"
export RTLAB_DATADIR="$TOP"

tmp=$(mktemp -d /tmp/rtlab-calibrate-local.XXXXXX)
on_exit "rm -rf '$tmp'"

# --- rtlab-agent inject ------------------------------------------------
"$AGENT" inject --period-ms 50 >"$tmp/u1" 2>&1
check "inject without --spin-us is a usage error (2)" test $? = 2
"$AGENT" inject --spin-us 2000 --period-ms 2 >"$tmp/u2" 2>&1
check "inject: a spin over half the period is a usage error" test $? = 2
check "  and the message says what was expected" \
	has "$tmp/u2" 'expected at most half of --period-ms'
"$AGENT" inject --spin-us 10 --period-ms 10 --cpus 0-x >"$tmp/u3" 2>&1
check "inject: a bad --cpus is a usage error naming it" \
	has "$tmp/u3" "--cpus '0-x': expected a cpuset"
"$AGENT" inject --mode preempt --spin-us 10 --period-ms 10 \
	--module "$tmp/nosuch.ko" --duration 1 >"$tmp/u4" 2>&1
check "inject: a missing module fails (1) naming the file" \
	sh -c "test $? = 1 && grep -q 'nosuch.ko: No such file' '$tmp/u4'"

"$AGENT" inject --spin-us 500 --period-ms 20 --seed 4242 --duration 1 \
	>"$tmp/inj.out" 2>&1
check "inject --duration 1 ends by itself with status 0" test $? = 0
check "inject reports its seed at the start" \
	has "$tmp/inj.out" 'start mode=user spin_us=500 period_ms=20 jitter_pct=50 seed=4242 '
n=$(sed -n 's/.*stop mode=user seed=4242 injections=\([0-9]*\).*/\1/p' \
	"$tmp/inj.out")
check "inject counted its spins (${n:-none})" test "${n:-0}" -gt 0

"$AGENT" inject --spin-us 100 --period-ms 20 >"$tmp/term.out" 2>&1 &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
check "inject exits 0 on SIGTERM" test $? = 0
check "  and reports its count" has "$tmp/term.out" 'stop mode=user .*injections=[1-9]'

# --- the injector as a testcase load -----------------------------------
"$AGENT" check --testcase "$TOP/testcases/calibrate-inject-user.yaml" \
	>"$tmp/chk" 2>&1
check "calibrate-inject-user.yaml is a valid testcase" test $? = 0
printf 'name: x\nloads:\n  - name: injector\n    spin_us: 10\n    args: [a]\n' \
	>"$tmp/bad.yaml"
"$AGENT" check --testcase "$tmp/bad.yaml" >"$tmp/bad.out" 2>&1
check "an injector with 'args' is refused, naming the key" \
	has "$tmp/bad.out" "loads\[0\]\.args: unknown key for load 'injector'"
printf 'name: x\nloads:\n  - name: injector\n    mode: kernel\n' \
	>"$tmp/bad2.yaml"
"$AGENT" check --testcase "$tmp/bad2.yaml" >"$tmp/bad2.out" 2>&1
check "an unknown injector mode is refused" \
	has "$tmp/bad2.out" "loads\[0\]\.mode: expected user, preempt, irq or tick"

# --- rtlab calibrate --board local ---------------------------------------
"$RTLAB" calibrate --board local --kernel debian-rt >"$tmp/k.out" 2>&1
check "calibrate: --kernel with the local board is a usage error" \
	test $? = 2
"$RTLAB" calibrate --board local --spins 40000 >"$tmp/s.out" 2>&1
check "calibrate: a spin over half the period is a usage error" \
	has "$tmp/s.out" 'expected at most half of the period'

"$RTLAB" calibrate --board local --runs 2 >"$tmp/r.out" 2>&1
check "calibrate: fewer runs than the verdict's first look is a usage error" \
	test $? = 2
check "  saying how many the verdict needs" \
	has "$tmp/r.out" '--runs 2: .* decides first at 5 runs per side'

# The host has no rtlab_inject.ko: an injected run that injected nothing
# must stop the calibration, not count as a missed detection.
"$RTLAB" calibrate --board local --mode preempt --pairs 1 --runs 5 \
	--spins 100 --duration 1 --no-store -q >"$tmp/nomod.out" 2>&1
check "calibrate stops (1) when the injector did not inject" test $? = 1
check "  and says so, naming the seed and dmesg.txt" \
	has "$tmp/nomod.out" 'the injector \(seed [0-9]+\) did not inject: .*dmesg.txt'

if ! start_db; then
	not_ok "throwaway database for boards.calibration"
	exit 1
fi
"$RTLAB" calibrate --board local --pairs 1 --runs 5 --spins 2000 \
	--duration 2 --json --keep "$tmp/keep" >"$tmp/cal.json" \
	2>"$tmp/cal.err"
rc=$?
check "rtlab calibrate --board local ran (status $rc)" test $rc = 0
[ $rc = 0 ] || sed 's/^/#   /' "$tmp/cal.err" | tail -n 30
fa=$(jq -r '.false_alarm.hits' "$tmp/cal.json" 2>/dev/null)
aa=$(jq -r '.comparisons[] | select(.kind == "aa") | .verdict' \
	"$tmp/cal.json" 2>/dev/null)
check "A/A (same kernel, 5 vs 5 runs) is no false alarm ($aa)" \
	sh -c "test -n '$aa' && test '$aa' != REGRESSION && test '$aa' != IMPROVEMENT && test '$fa' = 0"
det=$(jq -r '.comparisons[] | select(.kind == "injected") | .verdict' \
	"$tmp/cal.json" 2>/dev/null)
check "2 ms injected spins are a REGRESSION ($det)" test "$det" = REGRESSION
check "1 caught of 1 is not called reliable (its interval is 2.5-100 %)" \
	test "$(jq -r '.smallest_reliable_spin_us' "$tmp/cal.json")" = null
check "the false-alarm rate has a 95 % interval" \
	test "$(jq -r '.false_alarm.ci95 | length' "$tmp/cal.json")" = 2

stored=$("$RTLAB" db psql -tAc "SELECT calibration->'detection'->0->>'hits' FROM boards WHERE name = 'local'" 2>&1)
check "stored in boards.calibration ($stored)" test "$stored" = 1
ref=$(jq -r '"\(.reference.p99_us) \(.reference.p999_us)"' "$tmp/cal.json" 2>/dev/null)
check "the reference figures a health check compares with ($ref)" \
	sh -c "echo '$ref' | grep -Eqx '[0-9]+ [0-9]+'"
hj=$("$RTLAB" board health local --duration 1 --quiet 2>"$tmp/health.err")
check "a health job for the calibrated board: its calibration's testcase" \
	test "$("$RTLAB" db psql -tAc "SELECT j.kind || ':' || t.name FROM jobs j JOIN testcases t ON t.id = j.testcase_id WHERE j.id = '$hj'" 2>&1)" = health:calibrate-idle

# What was injected is recorded in the manifest, read back from the
# kernel log (the seed of the run's own injector, its count).
inj=$(tar -xOf "$tmp/keep/set2-run1.bundle" manifest.json 2>/dev/null |
	jq -r '[.injections[] | "\(.mode) \(.injections > 0)"] | join(",")')
clean=$(tar -xOf "$tmp/keep/set0-run1.bundle" manifest.json 2>/dev/null |
	jq -r '.injections | length')
check "the injected run's manifest records its injector's count ($inj)" \
	test "$inj" = "user true"
check "... and a clean run's none, whatever earlier runs left in dmesg ($clean)" \
	test "$clean" = 0

# The same verdicts offline, from the bundles calibrate kept: sets 0 and 1
# are clean, set 2 injected.
"$RTLAB" compare --json "$tmp"/keep/set0-run*.bundle -- \
	"$tmp"/keep/set1-run*.bundle >"$tmp/aa.json" 2>"$tmp/aa.err"
v=$(jq -r .verdict "$tmp/aa.json" 2>/dev/null)
check "offline rtlab compare, clean vs clean: not REGRESSION ($v)" \
	sh -c "test -n '$v' && test '$v' != REGRESSION"
"$RTLAB" compare --json "$tmp"/keep/set0-run*.bundle -- \
	"$tmp"/keep/set2-run*.bundle >"$tmp/inj.json" 2>"$tmp/inj.err"
v=$(jq -r .verdict "$tmp/inj.json" 2>/dev/null)
check "offline rtlab compare, clean vs injected: REGRESSION ($v)" \
	test "$v" = REGRESSION

# Every injected run says which seed it used, and its kernel log what
# that seed did.
b=$tmp/keep/set2-run0.bundle
seed=$(tar -xzf "$b" -O manifest.json | jq -r '.commands[]' |
	sed -n 's/.* inject .*--seed \([0-9]*\).*/\1/p')
check "an injected run's manifest records its seed (${seed:-none})" \
	test -n "$seed"
tar -xzf "$b" -O dmesg.txt >"$tmp/dmesg.txt"
check "  and its dmesg.txt the injections of that seed" \
	has "$tmp/dmesg.txt" "rtlab-agent inject: stop mode=user seed=$seed injections=[1-9]"
