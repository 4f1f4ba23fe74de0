#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Verdicts end to end: a throwaway PostgreSQL and a real `rtlab server` on
# loopback, synthetic cyclictest runs of several kernels of one tree (5 per
# kernel, as min_runs needs) uploaded as bundles.  The verdict must appear
# by itself once a candidate's runs land (NO_CHANGE-like for the same
# distribution, REGRESSION for a tail moved up 30 us), follow a pinned
# baseline, answer the API's filters, agree between the database and the
# offline bundle comparison, refuse to compare different clocks, stay
# INCONCLUSIVE against a baseline without runs or with invalid stored
# floors, take its floors from the lab (never from a manifest; offline
# comparisons from the bundles' definition).  Last, an A/A comparison
# of real cyclictest runs on this host (rtlab-agent) must not be a
# regression.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-verdicttest.XXXXXX) || exit 1
on_exit "rm -rf '$work'"

need_db

TOKEN=$("$RTLAB" board add b1 --kind qemu --quiet 2>"$work/board.err")
check "board b1 registered" test ${#TOKEN} = 64

start_server "$work" --threads 2 || { not_ok "server starts"; exit 1; }
check "server listens on a loopback port" test -n "$PORT"

# -- synthetic runs -----------------------------------------------------------
# Bundles of one kernel: each run two threads of a lognormal body around
# 14 us plus a 0.5 % tail band 25..40 us (moved by --tail-shift), with
# run-to-run wander, written as cyclictest --json.  Fresh run ids.
cat >"$work/mkruns.py" <<'EOF'
import argparse, json, math, os, random, sys, uuid
sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
import bundletar

ap = argparse.ArgumentParser()
ap.add_argument("--prefix", required=True)
ap.add_argument("--count", type=int, default=5)
ap.add_argument("--board", default="b1")
ap.add_argument("--testcase", default="synth-idle")
ap.add_argument("--release", required=True)
ap.add_argument("--tree", default="rt-test")
ap.add_argument("--clock", default="icount:3")
ap.add_argument("--status", default="complete")
ap.add_argument("--tail-shift", type=float, default=0.0)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--samples", type=int, default=20000)
ap.add_argument("--range", type=int, default=200)
ap.add_argument("--verdict", help="JSON for testcase.definition.verdict")
a = ap.parse_args()

rng = random.Random(a.seed)


def thread(cpu):
    shift = rng.gauss(0.0, 0.25)
    frac = 0.005 * max(0.2, 1.0 + rng.gauss(0.0, 0.15))
    hist = {}
    vals = []
    for _ in range(a.samples):
        if rng.random() < frac:
            v = rng.uniform(25 + a.tail_shift, 40 + a.tail_shift)
        else:
            v = 10.0 + shift + rng.lognormvariate(math.log(4.0), 0.35)
        v = max(0, int(v))
        vals.append(v)
        if v < a.range:
            hist[str(v)] = hist.get(str(v), 0) + 1
    return {"histogram": dict(sorted(hist.items(), key=lambda x: int(x[0]))),
            "cycles": a.samples, "min": min(vals), "max": max(vals),
            "avg": round(sum(vals) / len(vals), 2), "cpu": cpu, "node": 0}


for i in range(a.count):
    files = {}
    if a.status == "complete":
        ct = {"file_version": 1, "cmdline:": "cyclictest -m -p95 -t -h %d" % a.range,
              "rt_test_version:": "2.5", "return_code": 0,
              "sysinfo": {"realtime": 1}, "num_threads": 2,
              "resolution_in_ns": 0,
              "thread": {"0": thread(0), "1": thread(1)}}
        files["cyclictest.json"] = json.dumps(ct).encode()
    definition = {"measurement": {"tool": "cyclictest"}}
    if a.verdict:
        definition["verdict"] = json.loads(a.verdict)
    rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    m = {"format": "rtlab-bundle", "format_version": 1, "run_id": rid,
         "board": a.board, "status": a.status,
         "testcase": {"name": a.testcase, "duration_s": 20,
                      "hist_range_us": a.range, "definition": definition},
         "kernel": {"release": a.release, "version": "#1 SMP PREEMPT_RT",
                    "realtime": True, "config_sha256": "cd" * 32,
                    "name": "synthetic", "tree": a.tree},
         "environment": {"cpus": 2, "clock": a.clock},
         "commands": ["cyclictest -m -p95 -t -h %d" % a.range],
         "started_at": "2026-12-03T03:14:08Z",
         "finished_at": "2026-12-03T03:14:28Z",
         "files": bundletar.files_entry(files)}
    if a.status != "complete":
        m["error"] = "kernel panic - not syncing"
    tgz = bundletar.tgz(m, files)
    path = "%s%d.bundle" % (a.prefix, i + 1)
    open(path, "wb").write(tgz)
    print(path)
EOF

# mkruns NAME ARGS...: bundles $work/NAME-1.bundle ... (default 5)
mkruns() {
	_n=$1
	shift
	python3 "$work/mkruns.py" --prefix "$work/$_n-" "$@" >/dev/null
}

# upload_all NAME: every bundle of NAME; fails unless each is stored
upload_all() {
	for _b in "$work/$1"-*.bundle; do
		[ "$(upload "$_b")" = 201 ] || return 1
	done
}

verdicts_json() {	# ARGS: rtlab verdicts --json ARGS
	"$RTLAB" verdicts --json "$@" 2>"$work/verdicts.err"
}

# jq over the newest verdict of candidate kernel $1
latest() {
	verdicts_json --kernel "$1" | jq -r --arg k "$1" \
		"[.[] | select(.candidate_kernel == \$k)][0] | $2"
}

T=synth-idle
mkruns k1 --release 6.1.0-1-rt --seed 11
mkruns k2 --release 6.1.0-2-rt --seed 12
mkruns k3 --release 6.1.0-3-rt --seed 13 --tail-shift 30

check "first kernel of the tree: 5 runs stored" upload_all k1
check "... and no verdict (nothing to compare with)" \
	test "$(verdicts_json | jq length)" = 0

for i in 1 2 3 4 5; do
	check "same-distribution kernel: run $i stored" \
		test "$(upload "$work/k2-$i.bundle")" = 201
	if [ $i = 1 ]; then
		check "... a verdict appears with the first run: INCONCLUSIVE" \
			test "$(latest 6.1.0-2-rt .verdict)" = INCONCLUSIVE
		check "... saying how many more runs" \
			test "$(latest 6.1.0-2-rt .more_runs)" -ge 1
	fi
done
check "after 5 runs: one verdict for the pair (recomputed in place)" \
	test "$(verdicts_json --kernel 6.1.0-2-rt | jq length)" = 1
check "... against the previous kernel of the tree" \
	test "$(latest 6.1.0-2-rt .baseline_kernel)" = 6.1.0-1-rt
check "... over 5 + 5 runs" \
	test "$(latest 6.1.0-2-rt '"\(.baseline_runs)/\(.candidate_runs)"')" = 5/5
V2=$(latest 6.1.0-2-rt .verdict)
check "... same distribution is not a REGRESSION ($V2)" \
	test "$V2" != REGRESSION -a "$V2" != null
check "... it is NO_CHANGE" test "$V2" = NO_CHANGE

check "tail +30 us kernel: 5 runs stored" upload_all k3
check "... verdict REGRESSION" test "$(latest 6.1.0-3-rt .verdict)" = REGRESSION
check "... against the kernel before it" \
	test "$(latest 6.1.0-3-rt .baseline_kernel)" = 6.1.0-2-rt
check "... p99.9 figure moved up" test "$(latest 6.1.0-3-rt \
	'(.figures."p99.9".candidate - .figures."p99.9".baseline) > 20')" = true
check "server log names the stored verdict" \
	grep -q "verdict [0-9]* .*REGRESSION" "$work/server.log"
VID=$(latest 6.1.0-3-rt .id)

# -- CLI views -----------------------------------------------------------------
"$RTLAB" verdicts >"$work/list.txt" 2>&1
check "rtlab verdicts lists both verdicts" \
	test "$(grep -c '6\.1\.0-[23]-rt ' "$work/list.txt")" = 2
check "rtlab verdicts --verdict REGRESSION filters" test "$("$RTLAB" verdicts \
	--verdict REGRESSION --json | jq -r '[.[].candidate_kernel] | join(",")')" = 6.1.0-3-rt
check "rtlab verdicts --verdict BOGUS: usage error (2)" \
	test "$("$RTLAB" verdicts --verdict BOGUS >/dev/null 2>&1; echo $?)" = 2
"$RTLAB" verdict "$VID" >"$work/one.txt" 2>&1
check "rtlab verdict ID: exit 0" test $? = 0
check "... names the verdict" grep -q "^verdict $VID: REGRESSION" "$work/one.txt"
for m in p99 p99.9 max tail_rate w1; do
	check "... a line for $m with baseline -> candidate and interval" \
		grep -Eq "^  $m +[A-Z_]+ +[0-9.?e-]+ -> [0-9.?e-]+.*\[.*\]" "$work/one.txt"
done
check "... the runs of both sides" test "$(grep -c '^ *runs [0-9]' "$work/one.txt")" = 2
check "... which look of the plan decided and the alpha it spent" has "$work/one.txt" \
	'^look +look 1 of 3 planned \(5, 10, 15 runs per side\), alpha spent 0\.0226 of 0\.05; decided on the first 5 of 5 baseline and 5 of 5 candidate runs; next look at 10 runs per side'
check "rtlab verdict 999999: exit 1, says not found" sh -c \
	"! '$RTLAB' verdict 999999 2>'$work/e' && grep -q 'verdict 999999 not found' '$work/e'"

# -- API -------------------------------------------------------------------------
check "GET /api/v1/verdicts: 200" test "$(get /api/v1/verdicts)" = 200
check "... both verdicts" test "$(jq length "$work/resp")" = 2
get "/api/v1/verdicts?verdict=REGRESSION" >/dev/null
check "?verdict=REGRESSION: only the regression" \
	test "$(jq -r '[.[].candidate_kernel] | join(",")' "$work/resp")" = 6.1.0-3-rt
get "/api/v1/verdicts?board=b1&testcase=$T&limit=1" >/dev/null
check "?board&testcase&limit=1: the newest only" \
	test "$(jq -r '.[0].id' "$work/resp")/$(jq length "$work/resp")" = "$VID/1"
get "/api/v1/verdicts?board=nosuch" >/dev/null
check "?board=nosuch: none" test "$(jq length "$work/resp")" = 0
check "?verdict=bogus: 400" test "$(get '/api/v1/verdicts?verdict=bogus')" = 400
check "... naming the query" test "$(jq '.error | contains("verdict")' "$work/resp")" = true
check "GET /api/v1/verdicts/ID: 200" test "$(get /api/v1/verdicts/$VID)" = 200
check "... in full: verdict, runs of both sides, every metric" jq -e >/dev/null \
	'.verdict == "REGRESSION" and (.baseline.runs | length) == 5 and
	 (.candidate.runs | length) == 5 and (.details.metrics | length) == 5' \
	"$work/resp"
check "GET /api/v1/verdicts/999999: 404" test "$(get /api/v1/verdicts/999999)" = 404
check "POST /api/v1/verdicts: 405" test "$(curl -s -o /dev/null -w '%{http_code}' \
	-X POST --data x "$URL/api/v1/verdicts")" = 405
check "GET /api/v1/compare k1 vs k3: 200" test "$(get \
	"/api/v1/compare?board=b1&testcase=$T&baseline=6.1.0-1-rt&candidate=6.1.0-3-rt")" = 200
check "... REGRESSION, nothing stored" test "$(jq -r .verdict "$work/resp")/$(verdicts_json | jq length)" = REGRESSION/2
check "GET /api/v1/compare without candidate: 400" test "$(get \
	"/api/v1/compare?board=b1&testcase=$T&baseline=6.1.0-1-rt")" = 400
check "... naming the missing query" test "$(jq '.error | contains("candidate")' "$work/resp")" = true
check "GET /api/v1/compare with an unknown kernel: 404" test "$(get \
	"/api/v1/compare?board=b1&testcase=$T&baseline=9.9&candidate=6.1.0-3-rt")" = 404

# -- compare: database and offline bundles agree ----------------------------------
"$RTLAB" compare --board b1 --testcase $T --baseline 6.1.0-2-rt \
	--candidate 6.1.0-3-rt --json >"$work/db.json" 2>"$work/db.err"
check "rtlab compare (database): exit 0" test $? = 0
"$RTLAB" compare --json "$work"/k2-*.bundle -- "$work"/k3-*.bundle \
	>"$work/off.json" 2>"$work/off.err"
check "rtlab compare (bundles): exit 0" test $? = 0
summary='[.verdict, (.details.metrics | to_entries | sort_by(.key) | map([.key,
	.value.verdict, .value.baseline, .value.candidate, .value.effect])),
	.details.tail.k1, .details.tail.k2, .details.baseline.samples,
	.details.candidate.samples]'
check "... both REGRESSION" test "$(jq -r .verdict "$work/db.json")/$(jq -r \
	.verdict "$work/off.json")" = REGRESSION/REGRESSION
check "... same figures, metric by metric" test "$(jq -c "$summary" \
	"$work/db.json")" = "$(jq -c "$summary" "$work/off.json")"
check "... and the stored verdict agrees" test "$(jq -c "$summary" \
	"$work/db.json")" = "$("$RTLAB" verdict --json "$VID" | jq -c "$summary")"
"$RTLAB" compare "$work"/k1-*.bundle -- "$work"/k2-*.bundle >"$work/aa.txt" 2>&1
check "offline compare of the same distribution: exit 0, not REGRESSION" \
	sh -c "grep -q '^verdict: ' '$work/aa.txt' && ! grep -q '^verdict: REGRESSION' '$work/aa.txt'"
check "rtlab compare without arguments: usage error (2)" \
	test "$("$RTLAB" compare >/dev/null 2>&1; echo $?)" = 2
check "rtlab compare BUNDLE -- (no candidate): usage error (2)" \
	test "$("$RTLAB" compare "$work/k1-1.bundle" -- >/dev/null 2>&1; echo $?)" = 2
"$RTLAB" compare "$work"/k1-*.bundle -- "$work/k2-1.bundle" "$work/k2-1.bundle" \
	"$work/k2-1.bundle" "$work/k2-1.bundle" "$work/k2-1.bundle" >"$work/dup.txt" 2>&1
check "rtlab compare of one run given five times: exit 1" test $? = 1
check "... naming the run given twice" has "$work/dup.txt" \
	'candidate run [^ ]+ is given twice \(#1 and #2\)'
check "rtlab compare of a missing bundle: exit 1" \
	test "$("$RTLAB" compare "$work/nope.bundle" -- "$work/k1-1.bundle" >/dev/null 2>&1; echo $?)" = 1

# -- floors from the testcase definition ----------------------------------------
mkruns f3 --release 6.1.0-3-rt --seed 13 --tail-shift 30 --verdict '{"floor_us": 50}'
"$RTLAB" compare "$work"/k2-*.bundle -- "$work"/f3-*.bundle >"$work/f.txt" 2>&1
check "floor_us 50 in the definition: the 30 us shift is NO_CHANGE" \
	grep -q '^verdict: NO_CHANGE' "$work/f.txt"
check "... and the floor is printed" grep -q 'floor 50 us' "$work/f.txt"
mkruns c3 --release 6.1.0-3-rt --seed 13 --tail-shift 30 --verdict '{"floor_us": 5, "floor_abs_us": 8}' --count 1
"$RTLAB" compare "$work"/k2-*.bundle -- "$work"/c3-1.bundle >"$work/c.txt" 2>&1
check "conflicting floors: exit 0 with INCONCLUSIVE" sh -c \
	"grep -q '^verdict: INCONCLUSIVE' '$work/c.txt'"
check "... the reason names both keys" grep -q 'floor_us (5) and verdict.floor_abs_us (8) conflict' "$work/c.txt"

T2=synth-badfloor
mkruns g1 --release 6.1.0-1-rt --seed 21 --testcase $T2 --verdict '{"floor_us": -1}'
mkruns g2 --release 6.1.0-2-rt --seed 22 --testcase $T2 --verdict '{"floor_us": -1}'
upload_all g1 && upload_all g2
check "invalid floor in a manifest's definition: every upload still succeeds" test $? = 0
check "... all 10 stored" test "$("$RTLAB" runs --testcase $T2 --json | jq length)" = 10
check "... each flagged: the manifest's verdict parameters are not the lab's" \
	test "$("$RTLAB" runs --testcase $T2 --json | jq '[.[] | select(.flags.testcase_mismatch == ["verdict"])] | length')" = 10
check "... and the verdict ignores them (not INCONCLUSIVE)" \
	test "$(verdicts_json --testcase $T2 | jq -r '.[0].verdict')" != INCONCLUSIVE
# Verdict parameters stored before the lab owned them may be invalid.
"$RTLAB" db psql -qc "UPDATE testcases SET definition = '{\"verdict\": {\"floor_us\": -1}}' WHERE name = '$T2'" >/dev/null
mkruns g3 --release 6.1.0-2-rt --seed 23 --testcase $T2 --count 1
upload_all g3
check "invalid stored floor: verdict INCONCLUSIVE" test "$(verdicts_json --testcase $T2 | jq -r '.[0].verdict')" = INCONCLUSIVE
check "... with the reason" test "$(verdicts_json --testcase $T2 | \
	jq '.[0].reason | contains("verdict.floor_us")')" = true
check "... and an error logged" grep -q "error: .*verdict.floor_us" "$work/server.log"
check "rtlab testcase show names what is invalid" \
	sh -c "'$RTLAB' testcase show $T2 | grep -q 'invalid .*verdict.floor_us'"

# -- baseline pinning ------------------------------------------------------------
"$RTLAB" baseline set --board b1 --testcase $T --kernel 6.1.0-1-rt \
	>"$work/pin.txt" 2>&1
check "rtlab baseline set k1 for the series" test $? = 0
"$RTLAB" baseline show --board b1 --testcase $T >"$work/show.txt" 2>&1
check "rtlab baseline show: k1 pinned" grep -Eq "^b1 +$T +rt-test +6\.1\.0-1-rt +pinned" "$work/show.txt"
mkruns k3b --release 6.1.0-3-rt --seed 31 --tail-shift 30 --count 1
check "one more run of k3 stored" test "$(upload "$work/k3b-1.bundle")" = 201
check "... its verdict is now against the pinned k1" \
	test "$(latest 6.1.0-3-rt .baseline_kernel)" = 6.1.0-1-rt
check "... over all 6 runs of k3" test "$(latest 6.1.0-3-rt .candidate_runs)" = 6
check "... the verdict against k2 is kept" test "$(verdicts_json --kernel 6.1.0-3-rt | \
	jq '[.[] | select(.baseline_kernel == "6.1.0-2-rt")] | length')" = 1
check "... source pinned" test "$("$RTLAB" verdict --json "$(latest 6.1.0-3-rt .id)" | \
	jq -r .baseline.source)" = pinned
"$RTLAB" baseline unset --board b1 --testcase $T --tree rt-test >/dev/null 2>&1
check "rtlab baseline unset" test $? = 0
"$RTLAB" baseline show --board b1 --testcase $T >"$work/show.txt" 2>&1
check "... the default (k2 before the latest k3) applies again" \
	grep -Eq "^b1 +$T +rt-test +6\.1\.0-2-rt +default +6\.1\.0-3-rt" "$work/show.txt"
check "unset again: exit 1" test "$("$RTLAB" baseline unset --board b1 \
	--testcase $T --tree rt-test >/dev/null 2>&1; echo $?)" = 1
check "baseline set with an unknown kernel: exit 1" test "$("$RTLAB" baseline \
	set --board b1 --testcase $T --kernel 9.9-nope >/dev/null 2>&1; echo $?)" = 1

# -- a baseline without runs -------------------------------------------------------
mkruns p5 --release 6.1.0-5-rt --seed 51 --status panic --count 1
check "a panicked run of k5 stored" test "$(upload "$work/p5-1.bundle")" = 201
"$RTLAB" compare --board b1 --testcase $T --baseline 6.1.0-5-rt \
	--candidate 6.1.0-2-rt >"$work/nb.txt" 2>&1
check "compare against a baseline without complete runs: exit 0" test $? = 0
check "... INCONCLUSIVE, saying why" sh -c "grep -q '^verdict: INCONCLUSIVE' '$work/nb.txt' && grep -q 'has no complete runs' '$work/nb.txt'"
"$RTLAB" baseline set --board b1 --testcase $T --kernel 6.1.0-5-rt >/dev/null 2>"$work/pin5.err"
check "pinning it warns" grep -q "no complete runs" "$work/pin5.err"
mkruns k6 --release 6.1.0-6-rt --seed 61 --count 1
check "a run of k6 stored" test "$(upload "$work/k6-1.bundle")" = 201
check "... its stored verdict is INCONCLUSIVE (baseline has no runs)" \
	test "$(latest 6.1.0-6-rt .verdict)" = INCONCLUSIVE
check "... against k5" test "$(latest 6.1.0-6-rt .baseline_kernel)" = 6.1.0-5-rt
"$RTLAB" baseline unset --board b1 --testcase $T --tree rt-test >/dev/null 2>&1

# -- different clocks ----------------------------------------------------------------
mkruns t7 --release 6.1.0-7-rt --seed 71 --clock tcg
check "kernel k7 on another clock: 5 runs stored" upload_all t7
check "... its verdict is INCONCLUSIVE, not a confident one" \
	test "$(latest 6.1.0-7-rt .verdict)" = INCONCLUSIVE
check "... the reason says the clocks differ" sh -c \
	"'$RTLAB' verdicts --json --kernel 6.1.0-7-rt | jq -e '.[0].reason | contains(\"clocks differ\")' >/dev/null"
"$RTLAB" compare --board b1 --testcase $T --baseline 6.1.0-2-rt \
	--candidate 6.1.0-7-rt >"$work/clk.txt" 2>&1
check "rtlab compare across clocks: exit 1" test $? = 1
check "... with a clear message" grep -q "clocks differ: candidate kernel 6.1.0-7-rt ran with clock 'tcg'" "$work/clk.txt"
check "... and no verdict printed" sh -c "! grep -q '^verdict' '$work/clk.txt'"
check "GET /api/v1/compare across clocks: 400" test "$(get \
	"/api/v1/compare?board=b1&testcase=$T&baseline=6.1.0-2-rt&candidate=6.1.0-7-rt")" = 400
"$RTLAB" compare "$work"/k2-*.bundle -- "$work"/t7-*.bundle >"$work/clko.txt" 2>&1
check "offline compare across clocks: exit 1" test $? = 1
check "... naming the run and the clocks" grep -q "clock 'tcg' differs from 'icount:3'" "$work/clko.txt"

# -- A/A with real cyclictest on this host ------------------------------------------
# Two identities cannot run on one host, so the sides are two sets of
# reruns of this kernel, interleaved, compared offline.
aa_ok=1
for i in 1 2 3 4 5; do
	for side in a b; do
		"$AGENT" run --testcase "$TOP/testcases/cyclictest-idle.yaml" \
			--duration 2 --board local \
			--out "$work/real-$side-$i.bundle" >>"$work/agent.log" 2>&1 ||
			aa_ok=0
	done
done
check "10 real cyclictest runs of 2 s (rtlab-agent)" test $aa_ok = 1
"$RTLAB" compare "$work"/real-a-*.bundle -- "$work"/real-b-*.bundle \
	>"$work/real.txt" 2>&1
check "real A/A compare: exit 0" test $? = 0
check "real A/A: not REGRESSION ($(sed -n 's/^verdict: //p' "$work/real.txt"))" \
	sh -c "grep -q '^verdict: ' '$work/real.txt' && ! grep -q '^verdict: REGRESSION' '$work/real.txt'"
check "... clock host, 10 runs' ids printed" test "$(grep -c '^ *runs [0-9a-f]' "$work/real.txt")" = 2

# -- compare chosen runs; --store keeps the verdict ------------------------------
ids() {	# ids of a kernel's complete runs on b1, oldest first, comma-separated
	"$RTLAB" runs --board b1 --kernel "$1" --testcase $T --status complete \
		--limit 100 --json | jq -r 'map(.id) | sort | .[:5] | map(tostring) | join(",")'
}
ids2=$(ids 6.1.0-2-rt) ids3=$(ids 6.1.0-3-rt)
"$RTLAB" compare --board b1 --testcase $T --baseline 6.1.0-2-rt \
	--candidate 6.1.0-3-rt --baseline-runs "$ids2" --candidate-runs "$ids3" \
	--json >"$work/sel.json" 2>"$work/sel.err"
check "compare chosen runs: exit 0" test $? = 0
check "... REGRESSION on exactly the runs chosen" test "$(jq -r '.verdict + " " +
	(.details.candidate.runs | length | tostring)' "$work/sel.json")" = "REGRESSION 5"
"$RTLAB" compare --board b1 --testcase $T --baseline 6.1.0-2-rt \
	--candidate 6.1.0-3-rt --baseline-runs "$ids2" \
	--candidate-runs "${ids3%%,*}" >"$work/sel1.txt" 2>&1
check "one candidate run chosen: INCONCLUSIVE, not a confident verdict" \
	grep -q '^verdict: INCONCLUSIVE' "$work/sel1.txt"
check "a malformed run list is a usage error" test "$("$RTLAB" compare \
	--board b1 --testcase $T --baseline 6.1.0-2-rt --candidate 6.1.0-3-rt \
	--candidate-runs '4,,5' >/dev/null 2>&1; echo $?)" = 2
nv=$(verdicts_json | jq length)
"$RTLAB" compare --board b1 --testcase $T --baseline 6.1.0-2-rt \
	--candidate 6.1.0-3-rt --baseline-runs "$ids2" --candidate-runs "$ids3" \
	--store >"$work/store.txt" 2>&1
sid=$(sed -n 's/^stored as verdict \([0-9]*\)$/\1/p' "$work/store.txt")
check "compare --store says which verdict it stored" test -n "$sid"
check "... and rtlab verdict shows it: REGRESSION" test "$("$RTLAB" verdict \
	--json "$sid" 2>/dev/null | jq -r .verdict)" = REGRESSION
check "... stored once (replacing or adding, never more)" \
	test "$(verdicts_json | jq length)" -le $((nv + 1))
