#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Who may write what: a throwaway PostgreSQL and a real `rtlab server`.
# A board writes only its own runs (another board's uuid is 409, another
# board's job 403, an unknown job 400); a manifest never changes the lab's
# testcase definition or verdict parameters (the run is flagged instead,
# shown by the API, `rtlab show`, the run page and the report); each role
# may do what it may and gets 401/403 naming the role needed otherwise;
# revoked tokens are refused; only hashes are stored; and the closed-reads
# switch (RTLAB_READS, `reads` in the configuration file) closes every
# read but /healthz.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-owntest.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
FIX=$TOP/tests/fixtures/cyclictest
TC=cyclictest-idle

need_db

TA=$("$RTLAB" board add boarda --quiet 2>"$work/err")
TB=$("$RTLAB" board add boardb --quiet 2>>"$work/err")
check "rtlab board add still prints a 64-hex-digit board token" \
	sh -c "printf '%s\n%s\n' '$TA' '$TB' | grep -Ecx '[0-9a-f]{64}' | grep -qx 2"
TDEV=$("$RTLAB" token add --role developer dev1 --quiet)
TMNT=$("$RTLAB" token add --role maintainer maint1 --quiet)
TADM=$("$RTLAB" token add --role admin admin1 --quiet)
check "rtlab token add --role developer|maintainer|admin prints tokens" \
	sh -c "printf '%s\n%s\n%s\n' '$TDEV' '$TMNT' '$TADM' | grep -Ecx '[0-9a-f]{64}' | grep -qx 3"
"$RTLAB" token add --role wizard w1 >"$work/out" 2>&1
check "rtlab token add --role wizard: usage error (2)" test $? = 2
check "... naming the roles" grep -q "expected board, developer, maintainer or admin" "$work/out"
"$RTLAB" token add --role board nosuchboard >"$work/out" 2>&1
check "a board token of an unknown board is refused" grep -q "no board named 'nosuchboard'" "$work/out"

sql() { "$RTLAB" db psql -tAc "$1"; }
check "tokens are stored hashed: no token text in the table" \
	test "$(sql "SELECT count(*) FROM tokens WHERE position(convert_to('$TADM', 'UTF8') IN sha256) > 0 OR encode(sha256, 'hex') IN ('$TA', '$TB', '$TDEV', '$TMNT', '$TADM')")" = 0
check "... the hash is sha256 of the token" \
	test "$(sql "SELECT role || ':' || name FROM tokens WHERE sha256 = sha256(convert_to('$TMNT', 'UTF8'))")" = maintainer:maint1
check "... a board's token is a board token of that board" \
	test "$(sql "SELECT t.role || ':' || b.name FROM tokens t JOIN boards b ON b.id = t.board_id WHERE t.sha256 = sha256(convert_to('$TA', 'UTF8'))")" = board:boarda
"$RTLAB" token list >"$work/list" 2>&1
check "rtlab token list shows every token's role and name" \
	sh -c "grep -Eq ' board +boarda +boarda ' '$work/list' && grep -Eq ' maintainer +maint1 ' '$work/list'"
check "... never a token" sh -c "! grep -q '$TADM' '$work/list'"

start_server "$work" --threads 2 || { not_ok "server starts"; exit 1; }
check "server listens" test -n "$PORT"

# -- bundles ------------------------------------------------------------------
# --definition: the testcase definition the board claims (JSON text);
# --set PATH=JSON changes one field of it.
cat >"$work/mk.py" <<'PY'
import argparse, json, os, sys, uuid
sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
import bundletar

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--uuid")
ap.add_argument("--board", default="boarda")
ap.add_argument("--testcase", default="cyclictest-idle")
ap.add_argument("--release", default="6.1.0-1-rt")
ap.add_argument("--job-id")
ap.add_argument("--definition", default="null")
ap.add_argument("--set", action="append", default=[])
a = ap.parse_args()

d = json.loads(a.definition)
for s in a.set:
    path, val = s.split("=", 1)
    o = d
    for p in path.split(".")[:-1]:
        o = o.setdefault(p, {})
    o[path.split(".")[-1]] = json.loads(val)
files = {"cyclictest.json": open(os.path.join(os.environ["FIX"], "idle.json"), "rb").read()}
m = {
    "format": "rtlab-bundle", "format_version": 1,
    "run_id": a.uuid or str(uuid.uuid4()),
    "board": a.board, "status": "complete",
    "testcase": {"name": a.testcase, "duration_s": 3, "hist_range_us": 100,
                 "definition": d},
    "kernel": {"release": a.release, "version": "#1 SMP PREEMPT_RT",
               "realtime": True, "config_sha256": "ab" * 32,
               "name": "debian-rt", "tree": "rt-own"},
    "environment": {"clock": "host"},
    "commands": ["cyclictest -m -p90 -i1000 -t -h 100"],
    "files": bundletar.files_entry(files),
}
if a.job_id is not None:
    m["job_id"] = json.loads(a.job_id) if a.job_id.isdigit() else a.job_id
open(a.out, "wb").write(bundletar.tgz(m, files))
print(m["run_id"])
PY
export FIX
mk() { python3 "$work/mk.py" "$@"; }
err_has() { jq -r .error "$work/resp" | grep -q -- "$1"; }
flags() { curl -s "$URL/api/v1/runs/$1" | jq -c .flags; }

"$RTLAB" testcase show $TC --json >"$work/tc.json" 2>"$work/err"
check "rtlab testcase show NAME --json: the lab's definition from testcases/" \
	jqt '.lab_file.measurement.interval_us == 1000 and .lab == true' "$work/tc.json"
LAB=$(jq -c .lab_file "$work/tc.json")

# -- ownership of run ids -------------------------------------------------------
U=$(mk --out "$work/a1.tgz" --definition "$LAB")
check "board A uploads its run: 201" test "$(upload "$work/a1.tgz" "$TA")" = 201
RA1=$(jq .id "$work/resp")
check "... the lab's own definition: no flags" test "$(flags "$RA1")" = '{}'
mk --out "$work/b1.tgz" --board boardb --uuid "$U" --definition "$LAB" >/dev/null
check "board B uploading A's run id: 409" test "$(upload "$work/b1.tgz" "$TB")" = 409
check "... the error names the board that has it" err_has "already stored by board 'boarda'"
check "... and A's run is untouched" \
	test "$(sql "SELECT b.name FROM runs r JOIN boards b ON b.id = r.board_id WHERE r.uuid = '$U'")" = boarda
check "board A re-uploading its run: 200 duplicate" test "$(upload "$work/a1.tgz" "$TA")" = 200
check "... marked duplicate" jqt '.duplicate == true' "$work/resp"
check "board B sending a manifest of board A: 403" test "$(upload "$work/a1.tgz" "$TB")" = 403

# -- jobs ---------------------------------------------------------------------------
JA=$("$RTLAB" job add --kernel host --board boarda --testcase $TC --quiet)
JB=$("$RTLAB" job add --kernel host --board boardb --testcase $TC --quiet)
check "jobs queued for both boards" test -n "$JA" -a -n "$JB"
mk --out "$work/jb.tgz" --job-id "$JB" --definition "$LAB" >/dev/null
check "board A naming board B's job: 403" test "$(upload "$work/jb.tgz" "$TA")" = 403
check "... naming the job and its board" err_has "job_id $JB is queued for board 'boardb', not 'boarda'"
mk --out "$work/jx.tgz" --job-id 999999 --definition "$LAB" >/dev/null
st=$(upload "$work/jx.tgz" "$TA")
check "an unknown job id: 400 ($st)" test "$st" = 400
check "... naming it" err_has "job_id 999999: no such job"
mk --out "$work/jt.tgz" --job-id abc --definition "$LAB" >/dev/null
check "a job id that is no number: 400" test "$(upload "$work/jt.tgz" "$TA")" = 400
check "... naming the field" err_has "field 'job_id'"
U=$(mk --out "$work/ja.tgz" --job-id "$JA" --definition "$LAB")
check "board A naming its own job: 201" test "$(upload "$work/ja.tgz" "$TA")" = 201
check "... the run is linked to the job" \
	test "$(sql "SELECT job_id FROM runs WHERE uuid = '$U'")" = "$JA"
