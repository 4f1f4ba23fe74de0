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

# A lab of schema version 3, whose board tokens lived in boards, first.
mkdir -p "$work/v3/schema"
cp "$TOP"/schema/001_*.sql "$TOP"/schema/002_*.sql "$TOP"/schema/003_*.sql \
	"$work/v3/schema/"
RTLAB_DATADIR=$work/v3
export RTLAB_DATADIR
need_db
unset RTLAB_DATADIR
sql() { "$RTLAB" db psql -tAc "$1"; }
TOLD=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
sql "INSERT INTO boards (name, token_sha256) VALUES ('oldboard', sha256(convert_to('$TOLD', 'UTF8')))" >/dev/null
"$RTLAB" db migrate >"$work/migrate.txt" 2>&1
check "rtlab db migrate applies 004 to a lab with board tokens" test $? = 0
check "... the board's token moved into tokens, a board token of its board" \
	test "$(sql "SELECT t.role || ':' || t.name || ':' || b.name FROM tokens t JOIN boards b ON b.id = t.board_id WHERE t.sha256 = sha256(convert_to('$TOLD', 'UTF8'))")" = board:oldboard:oldboard

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

# -- the lab's testcase, not the manifest's -------------------------------------
U=$(mk --out "$work/v1.tgz" --release 6.1.0-2-rt --definition "$LAB" \
	--set 'verdict={"floor_us": 999, "alpha": 0.5}')
check "a manifest carrying verdict parameters is stored: 201" \
	test "$(upload "$work/v1.tgz" "$TA")" = 201
RV=$(jq .id "$work/resp")
check "... flagged: its testcase differs from the lab's in 'verdict'" \
	test "$(flags "$RV")" = '{"testcase_mismatch":["verdict"]}'
check "... the lab's testcase keeps no verdict parameters of it" \
	test "$(sql "SELECT definition ? 'verdict' FROM testcases WHERE name = '$TC'")" = f
"$RTLAB" testcase show $TC --json >"$work/tc.json"
check "... verdicts still use the default floor and alpha" \
	jqt '.verdict.floor_us == 5 and .verdict.alpha == 0.05' "$work/tc.json"
VID=$("$RTLAB" verdicts --json --testcase $TC | jq '.[0].id')
"$RTLAB" verdict --json "$VID" >"$work/v.json" 2>&1
check "... the verdict of that run used the lab's floor and alpha" \
	jqt '.details.params.floor_abs_us == 5 and .details.params.alpha == 0.05' "$work/v.json"
"$RTLAB" show "$RV" >"$work/show.txt" 2>&1
check "rtlab show prints the flag" \
	has "$work/show.txt" "^flagged +testcase differs from the lab's definition: verdict"
curl -s "$URL/runs/$RV" >"$work/run.html"
check "the run page shows the flag" grep -q "testcase differs from the lab&#39;s definition: verdict\|testcase differs from the lab.s definition: verdict" "$work/run.html"
U=$(mk --out "$work/m1.tgz" --release 6.1.0-2-rt --definition "$LAB" \
	--set measurement.interval_us=200 --set duration_s=5)
check "a manifest whose interval and duration differ: stored, 201" \
	test "$(upload "$work/m1.tgz" "$TA")" = 201
check "... flagged with both fields" \
	test "$(flags "$(jq .id "$work/resp")")" = '{"testcase_mismatch":["duration_s","measurement.interval_us"]}'
check "... the lab's definition still has interval 1000" \
	test "$(sql "SELECT definition->'measurement'->>'interval_us' FROM testcases WHERE name = '$TC'")" = 1000
check "... and the run keeps what the board ran" \
	test "$(sql "SELECT manifest->'testcase'->'definition'->'measurement'->>'interval_us' FROM runs WHERE uuid = '$U'")" = 200
mk --out "$work/n1.tgz" --testcase synth-none --definition '{"verdict": {"alpha": 0.4}}' >/dev/null
check "a testcase the lab does not define: stored, 201" \
	test "$(upload "$work/n1.tgz" "$TA")" = 201
flags "$(jq .id "$work/resp")" >"$work/nf.json"
check "... flagged 'not in lab' and its verdict parameters" \
	jqt '(.testcase_not_in_lab | contains("no lab definition")) and .testcase_mismatch == ["verdict"]' "$work/nf.json"
check "... its testcase row is not the lab's and has no parameters" \
	test "$(sql "SELECT lab || ':' || definition::text FROM testcases WHERE name = 'synth-none'")" = 'false:{}'

# -- verdict parameters: the maintainer's -----------------------------------------
# (a smaller alpha needs more runs at the first of the planned looks)
"$RTLAB" testcase set $TC --floor-us 12 --alpha 0.02 --min-runs 6 \
	>"$work/set.txt" 2>&1
check "rtlab testcase set --floor-us --alpha" has "$work/set.txt" "floor_us 12, .*alpha 0.02"
"$RTLAB" testcase set $TC --alpha 0.9 >"$work/set.txt" 2>&1
check "rtlab testcase set --alpha 0.9: refused, naming the key" \
	has "$work/set.txt" "verdict.alpha: expected a level in \(0, 0.5\], e.g. 0.05, got 0.9"
put() { # PATH TOKEN JSON: prints the status
	curl -s -o "$work/resp" -w '%{http_code}' -X PUT ${2:+-H "Authorization: Bearer $2"} \
		-H 'Content-Type: application/json' --data "$3" "$URL$1"
}
P=/api/v1/testcases/$TC/verdict
check "PUT $P without a token: 401" test "$(put $P "" '{"alpha": 0.01}')" = 401
check "... naming the role needed" err_has "this needs a maintainer or admin token"
check "PUT $P with a board token: 403" test "$(put $P "$TA" '{"alpha": 0.01}')" = 403
check "... naming the role needed and the token's" err_has "is a board token.*this needs a maintainer or admin token"
check "PUT $P with a developer token: 403" test "$(put $P "$TDEV" '{"alpha": 0.01}')" = 403
check "PUT $P with a maintainer token: 200" test "$(put $P "$TMNT" '{"alpha": 0.01, "min_runs": 7, "floor_us": null}')" = 200
check "... alpha set, floor back to its default" jqt '.verdict.alpha == 0.01 and .verdict.floor_us == 5' "$work/resp"
check "... recorded who set it" jqt '.updated_by == "maintainer token '"'maint1'"'"' "$work/resp"
check "... and the request log names the token" \
	has "$work/server.log" "PUT $P 200 .* token=maint1 board=- run=-\$"
check "PUT $P with an invalid value: 400 naming it" test "$(put $P "$TMNT" '{"min_runs": 1}')" = 400
check "GET $P answers the parameters in force" \
	sh -c "test \"\$(curl -s '$URL$P' | jq -c '[.alpha, .floor_us]')\" = '[0.01,5]'"
mk --out "$work/v2.tgz" --release 6.1.0-2-rt --definition "$LAB" \
	--set 'verdict={"alpha": 0.5}' >/dev/null
upload "$work/v2.tgz" "$TA" >/dev/null
VID=$("$RTLAB" verdicts --json --testcase $TC | jq '.[0].id')
"$RTLAB" verdict --json "$VID" >"$work/v.json" 2>&1
check "the next verdict uses the maintainer's alpha, not the manifest's" \
	jqt '.details.params.alpha == 0.01' "$work/v.json"

# -- roles, endpoint by endpoint --------------------------------------------------
req() { # METHOD PATH TOKEN [JSON]: prints the status
	curl -s -o "$work/resp" -w '%{http_code}' -X "$1" \
		${3:+-H "Authorization: Bearer $3"} \
		${4:+-H 'Content-Type: application/json' --data "$4"} "$URL$2"
}
for t in "board:$TA" "developer:$TDEV" "maintainer:$TMNT" "admin:$TADM"; do
	st=$(req GET /api/v1/whoami "${t#*:}")
	check "GET /api/v1/whoami with a ${t%%:*} token: 200 and its role" \
		sh -c "test $st = 200 && jq -e '.role == \"${t%%:*}\"' '$work/resp' >/dev/null"
done
check "... a board token's answer names its board" \
	test "$(req GET /api/v1/whoami "$TA"; jq -r .board "$work/resp")" = 200boarda
check "a board token from before the migration still works, unchanged" \
	test "$(req GET /api/v1/whoami "$TOLD"; jq -r '.role + ":" + .board' "$work/resp")" = 200board:oldboard
check "GET /api/v1/whoami without a token: 401" test "$(req GET /api/v1/whoami)" = 401
check "a malformed token: 401" test "$(req GET /api/v1/whoami nothex)" = 401
check "an unknown token: 401" \
	test "$(req GET /api/v1/whoami 0000000000000000000000000000000000000000000000000000000000000000)" = 401

for t in "developer:$TDEV" "maintainer:$TMNT" "admin:$TADM"; do
	check "POST /api/v1/runs with a ${t%%:*} token: 403 naming the board role" \
		sh -c "test \"\$(curl -s -o '$work/resp' -w '%{http_code}' -H 'Authorization: Bearer ${t#*:}' --data-binary @'$work/a1.tgz' '$URL/api/v1/runs')\" = 403 && jq -r .error '$work/resp' | grep -q 'this needs a board token'"
done

for t in "board:$TA" "developer:$TDEV" "maintainer:$TMNT"; do
	check "GET /api/v1/tokens with a ${t%%:*} token: 403" \
		test "$(req GET /api/v1/tokens "${t#*:}")" = 403
done
check "GET /api/v1/tokens without a token: 401" test "$(req GET /api/v1/tokens)" = 401
check "GET /api/v1/tokens with the admin token: 200" test "$(req GET /api/v1/tokens "$TADM")" = 200
check "... lists the tokens, not their hashes" \
	jqt 'length >= 5 and all(.[]; has("sha256") | not)' "$work/resp"
check "POST /api/v1/tokens with a maintainer token: 403" \
	test "$(req POST /api/v1/tokens "$TMNT" '{"role": "admin", "name": "me"}')" = 403
check "POST /api/v1/tokens with the admin token: 201" \
	test "$(req POST /api/v1/tokens "$TADM" '{"role": "developer", "name": "dev2"}')" = 201
TDEV2=$(jq -r .token "$work/resp")
ID2=$(jq -r .id "$work/resp")
check "... the new token works" \
	test "$(req GET /api/v1/whoami "$TDEV2"; jq -r .name "$work/resp")" = 200dev2
check "POST /api/v1/tokens of an unknown role: 400" \
	test "$(req POST /api/v1/tokens "$TADM" '{"role": "root", "name": "x"}')" = 400
check "DELETE /api/v1/tokens/$ID2 with a developer token: 403" \
	test "$(req DELETE /api/v1/tokens/$ID2 "$TDEV")" = 403
check "DELETE /api/v1/tokens/$ID2 with the admin token: 200" \
	test "$(req DELETE /api/v1/tokens/$ID2 "$TADM")" = 200
check "... the revoked token is refused: 401" test "$(req GET /api/v1/whoami "$TDEV2")" = 401
check "... saying it was revoked" err_has "was revoked"
check "DELETE of a token no longer live: 404" test "$(req DELETE /api/v1/tokens/$ID2 "$TADM")" = 404

B='{"board": "boarda", "testcase": "cyclictest-idle", "kernel": "6.1.0-1-rt"}'
check "PUT /api/v1/baselines with a board token: 403" test "$(req PUT /api/v1/baselines "$TA" "$B")" = 403
check "PUT /api/v1/baselines with a developer token: 403" test "$(req PUT /api/v1/baselines "$TDEV" "$B")" = 403
check "PUT /api/v1/baselines without a token: 401" test "$(req PUT /api/v1/baselines "" "$B")" = 401
check "PUT /api/v1/baselines with a maintainer token: 200" test "$(req PUT /api/v1/baselines "$TMNT" "$B")" = 200
check "... pinned" has "$work/resp" '"tree":"rt-own"'
"$RTLAB" baseline show --board boarda --testcase $TC >"$work/pin.txt" 2>&1
check "... as rtlab baseline show sees it" has "$work/pin.txt" "boarda +$TC +rt-own +6\.1\.0-1-rt +pinned"
check "PUT /api/v1/baselines of an unknown kernel: 404" \
	test "$(req PUT /api/v1/baselines "$TMNT" '{"board": "boarda", "testcase": "cyclictest-idle", "kernel": "9.9"}')" = 404
check "DELETE /api/v1/baselines with the admin token: 200" \
	test "$(req DELETE /api/v1/baselines "$TADM" '{"board": "boarda", "testcase": "cyclictest-idle", "tree": "rt-own"}')" = 200

# -- revoking from the command line ------------------------------------------------
"$RTLAB" token revoke boardb >"$work/rev.txt" 2>&1
check "rtlab token revoke NAME" has "$work/rev.txt" "revoked 1 token 'boardb'"
mk --out "$work/b2.tgz" --board boardb --definition "$LAB" >/dev/null
check "... the board's revoked token cannot upload: 401" test "$(upload "$work/b2.tgz" "$TB")" = 401
check "... saying so" err_has "was revoked"
"$RTLAB" token revoke boardb >"$work/rev.txt" 2>&1
check "revoking it again: exit 1, nothing live" sh -c \
	"! '$RTLAB' token revoke boardb >/dev/null 2>&1 && grep -q \"no live token called 'boardb'\" '$work/rev.txt'"
check "rtlab token list shows when it was revoked" \
	sh -c "'$RTLAB' token list | grep -E ' board +boardb ' | grep -Eq '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]+Z\$'"
TB2=$("$RTLAB" board token boardb --quiet)
check "rtlab board token makes a working board token again" test "$(upload "$work/b2.tgz" "$TB2")" = 201

# -- reads: public by default, closed by the switch ------------------------------
check "reads are public by default: GET /api/v1/runs 200" test "$(req GET /api/v1/runs)" = 200
kill $SPID 2>/dev/null; wait $SPID 2>/dev/null
mkdir -p "$work/s2" "$work/s3"
RTLAB_READS=token start_server "$work/s2" --threads 2 || { not_ok "server starts with RTLAB_READS=token"; exit 1; }
check "RTLAB_READS=token: GET /api/v1/runs without a token: 401" test "$(req GET /api/v1/runs)" = 401
check "... naming what it needs" err_has "this needs a token of any role"
check "... GET /api/v1/runs/$RA1 without a token: 401" test "$(req GET /api/v1/runs/$RA1)" = 401
check "... the web page / without a token: 401" test "$(req GET /)" = 401
check "... /api/v1/testcases without a token: 401" test "$(req GET /api/v1/testcases)" = 401
check "... /api/v1/verdicts without a token: 401" test "$(req GET /api/v1/verdicts)" = 401
check "... /healthz stays public: 200" test "$(req GET /healthz)" = 200
for t in "board:$TA" "developer:$TDEV" "maintainer:$TMNT" "admin:$TADM"; do
	check "... a ${t%%:*} token reads: 200" test "$(req GET /api/v1/runs "${t#*:}")" = 200
done
check "... a revoked token does not: 401" test "$(req GET /api/v1/runs "$TB")" = 401
check "... uploads work as before: 201" \
	test "$(upload "$(mk --out "$work/c1.tgz" --definition "$LAB" >/dev/null; echo "$work/c1.tgz")" "$TA")" = 201
kill $SPID 2>/dev/null; wait $SPID 2>/dev/null
printf 'reads = token\n' >"$work/rtlab.conf"
unset RTLAB_READS
RTLAB_CONFIG=$work/rtlab.conf start_server "$work/s3" --threads 2 || { not_ok "server starts with reads = token"; exit 1; }
check "reads = token in the configuration file: GET /regressions 401" test "$(req GET /regressions)" = 401
check "... with a developer token: 200" test "$(req GET /regressions "$TDEV")" = 200
kill $SPID 2>/dev/null; wait $SPID 2>/dev/null
printf 'reads = sometimes\n' >"$work/rtlab.conf"
RTLAB_CONFIG=$work/rtlab.conf "$RTLAB" server --listen 127.0.0.1:0 >"$work/bad.txt" 2>&1
check "reads = sometimes: the server refuses to start, naming the key" \
	has "$work/bad.txt" "reads: expected public or token, got 'sometimes'"
RTLAB_READS=maybe "$RTLAB" server --listen 127.0.0.1:0 >"$work/bad.txt" 2>&1
check "RTLAB_READS=maybe: refused" has "$work/bad.txt" "RTLAB_READS 'maybe': expected public or token"
