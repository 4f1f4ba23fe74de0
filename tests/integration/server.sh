#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The HTTP server end to end: a throwaway PostgreSQL, a registered board, a
# real `rtlab server` on a free loopback port, bundles from the agent and
# from the cyclictest fixtures.  Upload, duplicate upload (also several at
# once), the read endpoints against what the bundle held, plots, artifacts,
# every kind of bad upload (each must leave the row counts alone), the CLI
# views, and a clean stop on SIGTERM.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-srvtest.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
FIX=$TOP/tests/fixtures/cyclictest

need_db

TOKEN=$("$RTLAB" board add qemu1 --kind qemu --quiet 2>"$work/board.err")
check "board qemu1 registered, token printed" test ${#TOKEN} = 64
OTHER=$("$RTLAB" board add other --quiet 2>>"$work/board.err")
check "board other registered" test ${#OTHER} = 64

start_server "$work" --max-upload-mb 1 --threads 3 ||
	{ not_ok "server starts"; exit 1; }
check "server listens on a loopback port" test -n "$PORT"
API=$URL/api/v1/runs

# -- helpers ----------------------------------------------------------------

# Bundles built the way the agent builds them (gzip'd tar, manifest first),
# with switches to break exactly one thing.
cat >"$work/mkbundle.py" <<'EOF'
import argparse, json, os, sys, uuid
sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
import bundletar

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--uuid")
ap.add_argument("--board", default="qemu1")
ap.add_argument("--status", default="complete")
ap.add_argument("--json")
ap.add_argument("--hist")
ap.add_argument("--range", type=int, default=100)
ap.add_argument("--drop")
ap.add_argument("--garble", action="store_true")
ap.add_argument("--bad-sha", action="store_true")
ap.add_argument("--pad", type=int, default=0)
ap.add_argument("--trace", action="store_true")
ap.add_argument("--testcase", default="cyclictest-idle")
ap.add_argument("--zeros", type=int, default=0)
ap.add_argument("--trailing", action="store_true")
a = ap.parse_args()

files = {}
if a.json:
    files["cyclictest.json"] = open(a.json, "rb").read()
if a.hist:
    files["cyclictest.hist"] = open(a.hist, "rb").read()
if a.garble:
    d = json.loads(files["cyclictest.json"])
    d["thread"]["0"]["histogram"]["13"] = "many"
    files["cyclictest.json"] = json.dumps(d).encode()
files["dmesg.txt"] = b"[    0.000000] Linux version 6.1.0-57-rt-amd64\n"
files["console.log"] = b"Booting\nrtlab-agent: done\n"
if a.trace:
    files["trace.dat"] = b"\x17\x08\x44tracing6" + bytes(range(256)) * 64
if a.pad:
    files["padding.bin"] = os.urandom(a.pad)
if a.zeros:
    files["zeros.bin"] = bytes(a.zeros)
m = {
    "format": "rtlab-bundle", "format_version": 1,
    "run_id": a.uuid or str(uuid.uuid4()),
    "board": a.board, "status": a.status,
    "testcase": {"name": a.testcase, "duration_s": 3,
                 "hist_range_us": a.range,
                 "definition": {"measurement": {"tool": "cyclictest"}}},
    "kernel": {"release": "6.1.0-57-rt-amd64",
               "version": "#1 SMP PREEMPT_RT Debian 6.1.192-3",
               "realtime": True, "config_sha256": "ab" * 32,
               "name": "debian-rt", "tree": "debian"},
    "environment": {"cmdline": "console=ttyS0 noirqdebug", "cpus": 2,
                    "cpu_model": "QEMU TCG", "clock": "icount:3"},
    "commands": ["cyclictest -m -p90 -i1000 -t -h %d" % a.range],
    "started_at": "2026-12-03T03:14:08Z",
    "finished_at": "2026-12-03T03:14:12Z",
    "files": bundletar.files_entry(files),
}
if a.status != "complete":
    m["error"] = "kernel panic - not syncing"
if a.bad_sha:
    m["files"]["dmesg.txt"]["sha256"] = "00" * 32
if a.drop:
    o = m
    for p in a.drop.split(".")[:-1]:
        o = o[p]
    del o[a.drop.split(".")[-1]]
tgz = bundletar.tgz(m, files, mtime=1796267648)
open(a.out, "wb").write(tgz + (b"garbage" if a.trailing else b""))
print(m.get("run_id", "-"))
EOF

mkbundle() { python3 "$work/mkbundle.py" "$@"; }

counts() {
	"$RTLAB" db psql -tAc "SELECT (SELECT count(*) FROM runs) || ' ' ||
		(SELECT count(*) FROM histograms) || ' ' ||
		(SELECT count(*) FROM artifacts)"
}

resp_error_has() {	# the response is {"error": "..."} mentioning $1
	jq -e --arg w "$1" '.error | type == "string" and contains($w)' \
		"$work/resp" >/dev/null
}

# bad NAME STATUS WORD FILE [TOKEN]: a refused upload, with its message and
# no trace in the database.
bad() {
	_bn=$1 _want=$2 _word=$3
	shift 3
	_before=$(counts)
	_got=$(upload "$@")
	check "$_bn: status $_want (got $_got)" test "$_got" = "$_want"
	check "$_bn: error names '$_word' ($(head -c 160 "$work/resp"))" \
		resp_error_has "$_word"
	check "$_bn: runs/histograms/artifacts unchanged" \
		test "$(counts)" = "$_before"
}

# -- health -----------------------------------------------------------------
check "GET /healthz is 200" test "$(get /healthz)" = 200
check "healthz says ok" jqt '.status == "ok"' "$work/resp"
for q in "runs?limit=0" "runs?limit=1001" "verdicts?limit=abc" "verdicts?limit=%2B5"; do
	check "GET /api/v1/$q is 400" test "$(get "/api/v1/$q")" = 400
	check "  naming the query and its range" \
		grep -q "query 'limit': expected a number from 1 to 1000" "$work/resp"
done
check "GET /api/v1/runs?limit=1000 is 200" test "$(get "/api/v1/runs?limit=1000")" = 200

# -- a real run from the agent ----------------------------------------------
if "$AGENT" run --testcase "$TOP/testcases/cyclictest-idle.yaml" \
	--duration 2 --board qemu1 --clock host --out "$work/agent.tgz" \
	>"$work/agent.log" 2>&1; then
	ok "agent writes a bundle"
else
	not_ok "agent writes a bundle"
	cat "$work/agent.log"
fi
check "no rows before the first upload" test "$(counts)" = "0 0 0"
st=$(upload "$work/agent.tgz")
check "agent bundle upload is 201 (got $st: $(head -c 200 "$work/resp"))" \
	test "$st" = 201
RUN=$(jq -r .id "$work/resp")
UUID=$(jq -r .uuid "$work/resp")
check "upload answers id and uuid" test "$RUN" -gt 0 -a ${#UUID} = 36
check "upload answers duplicate=false" jqt '.duplicate == false' "$work/resp"
set -- $(counts)
check "one run row" test "$1" = 1
NHIST=$2
NART=$3
check "histogram rows stored" test "$NHIST" -ge 1
check "artifact rows stored" test "$NART" -ge 1

st=$(upload "$work/agent.tgz")
check "same bundle again is 200 (got $st)" test "$st" = 200
check "second upload says duplicate with the same id" \
	jqt --argjson id "$RUN" '.duplicate == true and .id == $id' \
	"$work/resp"
check "duplicate stored nothing" test "$(counts)" = "1 $NHIST $NART"

# The stored histograms are the bundle's cyclictest.json, bucket for bucket.
check "GET histogram is 200" \
	test "$(get "/api/v1/runs/$RUN/histogram")" = 200
cp "$work/resp" "$work/hist.json"
cat >"$work/compare.py" <<'EOF'
import json, sys, tarfile
bundle, api = sys.argv[1], sys.argv[2]
with tarfile.open(bundle) as t:
    ct = json.load(t.extractfile("cyclictest.json"))
got = json.load(open(api))["threads"]
want = ct["thread"]
if len(got) != len(want):
    sys.exit("threads: %d vs %d" % (len(got), len(want)))
for th in got:
    w = want[str(th["thread"])]
    wh = {int(k): v for k, v in w["histogram"].items() if v}
    gh = dict(zip(th["bucket_us"], th["counts"]))
    if gh != wh:
        sys.exit("thread %d: buckets differ" % th["thread"])
    if th["samples"] != w["cycles"] or th["max_us"] != w["max"] \
            or th["cpu"] != w["cpu"]:
        sys.exit("thread %d: samples/max/cpu differ" % th["thread"])
EOF
check "per-CPU buckets, samples, max equal the bundle's cyclictest.json" \
	python3 "$work/compare.py" "$work/agent.tgz" "$work/hist.json"

check "GET run by uuid is 200" test "$(get "/api/v1/runs/$UUID")" = 200
check "run by uuid has the same id, figures per CPU and artifacts" \
	jqt --argjson id "$RUN" --argjson n "$NHIST" \
	'.id == $id and (.cpus | length) == $n and
	 (.artifacts | map(.name) | index("cyclictest.json")) != null and
	 .board == "qemu1" and .status == "complete"' "$work/resp"
check "environment recorded" jqt '.environment | type == "object"' \
	"$work/resp"

check "GET plot.png is 200" test "$(get "/api/v1/runs/$RUN/plot.png")" = 200
check "plot.png is a PNG" \
	test "$(head -c 8 "$work/resp" | od -An -tx1 | tr -d ' \n')" = \
	89504e470d0a1a0a
check "GET plot.svg is 200" test "$(get "/api/v1/runs/$RUN/plot.svg")" = 200
check "plot.svg is SVG" grep -q '<svg' "$work/resp"

# -- fixtures: both records, a trace, overflows --------------------------------
mkbundle --out "$work/idle.tgz" --json "$FIX/idle.json" \
	--hist "$FIX/idle.hist" --trace >/dev/null
st=$(upload "$work/idle.tgz")
check "fixture bundle with json + hist + trace is 201 (got $st)" \
	test "$st" = 201
IDLE=$(jq -r .id "$work/resp")
check "GET trace.dat is 200" test "$(get "/api/v1/runs/$IDLE/trace.dat")" = 200
python3 -c 'import sys, tarfile
t = tarfile.open(sys.argv[1])
sys.stdout.buffer.write(t.extractfile("trace.dat").read())' \
	"$work/idle.tgz" >"$work/trace.want"
check "trace.dat comes back byte for byte" cmp -s "$work/resp" "$work/trace.want"
check "GET artifact dmesg.txt" \
	test "$(get "/api/v1/runs/$IDLE/artifacts/dmesg.txt")" = 200
check "artifact content intact" grep -q 'Linux version 6.1.0-57-rt' "$work/resp"
check "missing artifact is 404" \
	test "$(get "/api/v1/runs/$IDLE/artifacts/nope.txt")" = 404
check "missing artifact names it" resp_error_has "nope.txt"
check "run without trace: trace.dat is 404" \
	test "$(get "/api/v1/runs/$RUN/trace.dat")" = 404
check "run without trace: message says so" resp_error_has "no trace"

mkbundle --out "$work/ovf.tgz" --range 20 --json "$FIX/overflow.json" \
	--hist "$FIX/overflow.hist" >/dev/null
st=$(upload "$work/ovf.tgz")
check "bundle with overflows is 201 (got $st)" test "$st" = 201
OVF=$(jq -r .id "$work/resp")
get "/api/v1/runs/$OVF" >/dev/null
check "overflows counted, quantile among them is null, true max kept" \
	jqt '.cpus[0].overflows == 183 and .cpus[0].p99_us == null and
	       .cpus[0].max_us == 1415 and .cpus[0].p50_us != null' \
	"$work/resp"

# -- runs that did not complete ---------------------------------------------
mkbundle --out "$work/panic.tgz" --status panic >/dev/null
before=$(counts)
st=$(upload "$work/panic.tgz")
check "panic run is stored: 201 (got $st)" test "$st" = 201
PANIC=$(jq -r .id "$work/resp")
set -- $before
check "panic run: a run and its artifacts, no histograms" \
	test "$(counts)" = "$(($1 + 1)) $2 $(($3 + 2))"
get "/api/v1/runs/$PANIC" >/dev/null
check "panic run shows status and error" \
	jqt '.status == "panic" and (.error | contains("panic")) and
	       (.cpus | length) == 0' "$work/resp"
check "panic run has no plot: 404" \
	test "$(get "/api/v1/runs/$PANIC/plot.png")" = 404

# -- concurrent duplicates: exactly one stores ---------------------------------
mkbundle --out "$work/race.tgz" --json "$FIX/idle.json" >/dev/null
before=$(counts)
pids=""
for n in 1 2 3 4; do
	upload "$work/race.tgz" >"$work/race.$n" &
	pids="$pids $!"
done
wait $pids
got=$(cat "$work"/race.[1-4] | fold -w3 | sort | tr '\n' ' ')
check "4 simultaneous uploads of one run: one 201, three 200 ($got)" \
	test "$got" = "200 200 200 201 "
set -- $before
check "...and one run stored" test "$(counts | cut -d' ' -f1)" = $(($1 + 1))

# -- bad uploads ----------------------------------------------------------------
head -c 400 "$work/idle.tgz" >"$work/trunc.tgz"
bad "truncated bundle" 400 truncated "$work/trunc.tgz"
echo "this is not a bundle" >"$work/notar"
bad "not a gzip'd tar" 400 tar "$work/notar"
printf 'plain text' | gzip >"$work/notar.gz"
bad "gzip but not a tar" 400 bundle "$work/notar.gz"
mkbundle --out "$work/norunid.tgz" --json "$FIX/idle.json" --drop run_id \
	>/dev/null
bad "manifest without run_id" 400 run_id "$work/norunid.tgz"
mkbundle --out "$work/norel.tgz" --json "$FIX/idle.json" \
	--drop kernel.release >/dev/null
bad "manifest without kernel.release" 400 kernel.release "$work/norel.tgz"
mkbundle --out "$work/garbled.tgz" --json "$FIX/idle.json" --garble \
	>/dev/null
bad "garbled histogram" 400 histogram "$work/garbled.tgz"
mkbundle --out "$work/incons.tgz" --range 20 \
	--json "$FIX/garbled-inconsistent.json" >/dev/null
bad "inconsistent histogram" 400 cyclictest.json "$work/incons.tgz"
mkbundle --out "$work/disagree.tgz" --json "$FIX/idle.json" \
	--hist "$FIX/hackbench.hist" >/dev/null
bad "cyclictest.hist disagreeing with cyclictest.json" 400 disagrees \
	"$work/disagree.tgz"
mkbundle --out "$work/badsha.tgz" --json "$FIX/idle.json" --bad-sha \
	>/dev/null
bad "file whose sha256 does not match the manifest" 400 dmesg.txt \
	"$work/badsha.tgz"
mkbundle --out "$work/nomeas.tgz" >/dev/null
bad "complete run without measurement" 400 cyclictest.json \
	"$work/nomeas.tgz"
mkbundle --out "$work/foreign.tgz" --board other --json "$FIX/idle.json" \
	>/dev/null
bad "manifest of another board" 403 "board 'other'" "$work/foreign.tgz"
bad "wrong token" 401 token "$work/idle.tgz" \
	0000000000000000000000000000000000000000000000000000000000000000
bad "token of another board" 403 "board" "$work/idle.tgz" "$OTHER"

before=$(counts)
st=$(curl -s -o "$work/resp" -w '%{http_code}' --data-binary @"$work/idle.tgz" "$API")
check "no token: 401 (got $st)" test "$st" = 401
check "no token: error names the Authorization header" \
	resp_error_has Authorization
check "no token: counts unchanged" test "$(counts)" = "$before"

mkbundle --out "$work/big.tgz" --json "$FIX/idle.json" --pad 1500000 \
	>/dev/null
bad "bundle over --max-upload-mb" 413 limit "$work/big.tgz"
before=$(counts)
st=$(curl -s -o "$work/resp" -w '%{http_code}' \
	-H "Authorization: Bearer $TOKEN" -H 'Transfer-Encoding: chunked' \
	--data-binary @"$work/big.tgz" "$API")
# Past the limit the server stops reading and closes the connection
# (tests/integration/http-hardening.sh checks it does so early).
check "chunked upload over the limit: refused (got $st)" \
	test "$st" != 201 -a "$st" != 200
check "chunked upload over the limit: counts unchanged" \
	test "$(counts)" = "$before"
: >"$work/empty"
bad "empty body" 400 "empty" "$work/empty"

# -- limits (docs/api.md, "Limits"): refused before the expensive work -------
mkbundle --out "$work/longname.tgz" --json "$FIX/idle.json" \
	--testcase "$(printf '%03000d' 0)" >/dev/null
bad "a 3000-byte testcase name" 400 "'testcase.name': 3000 bytes, more than the limit of 128" \
	"$work/longname.tgz"
mkbundle --out "$work/range.tgz" --hist "$FIX/hostile-range.hist" >/dev/null
bad "a 1 kB .hist claiming a 2^31 us range" 400 "histogram range limit of 100000 us" \
	"$work/range.tgz"
mkbundle --out "$work/samples.tgz" --range 20 \
	--json "$FIX/hostile-samples.json" >/dev/null
bad "counts adding up to 2^63-1 samples" 400 "more than the limit of 1000000000000000 per run" \
	"$work/samples.tgz"
check "listing runs still works after it (200)" \
	test "$(get /api/v1/runs)" = 200
mkbundle --out "$work/bomb.tgz" --json "$FIX/idle.json" \
	--zeros $((64 * 1048576 + 1)) >/dev/null
check "a member of 64 MiB + 1 compresses under the 1 MB upload limit" \
	test "$(stat -c %s "$work/bomb.tgz")" -lt 1048576
bad "a member expanding beyond 64 MiB" 413 "'zeros.bin'" "$work/bomb.tgz"
check "... the message names the limit" resp_error_has "limit of 64 MiB for one file"
mkbundle --out "$work/trail.tgz" --json "$FIX/idle.json" --trailing >/dev/null
bad "data after the gzip stream" 400 "7 bytes of data after the end of the gzip stream" \
	"$work/trail.tgz"

# -- reads that fail ----------------------------------------------------------
check "unknown run id: 404" test "$(get /api/v1/runs/999999)" = 404
check "unknown run: error names it" \
	jqt '.error == "run '"'"'999999'"'"' not found"' "$work/resp"
check "unknown uuid: 404" \
	test "$(get /api/v1/runs/01234567-89ab-cdef-0123-456789abcdef/histogram)" = 404
check "unknown path: 404" test "$(get /api/v2/things)" = 404
check "unknown path: JSON error" resp_error_has "/api/v2/things"
st=$(curl -s -o "$work/resp" -w '%{http_code}' -X DELETE "$API/$RUN")
check "DELETE a run: 405 (got $st)" test "$st" = 405
check "405 names the allowed methods" resp_error_has "GET"
check "bad limit: 400" test "$(get "/api/v1/runs?limit=zero")" = 400
check "bad status filter: 400" test "$(get "/api/v1/runs?status=fine")" = 400

# -- listing and filters --------------------------------------------------------
get "/api/v1/runs" >/dev/null
check "list is newest first and holds every run" \
	jqt --arg u "$UUID" 'length == 5 and .[0].id > .[1].id and
	  (map(.uuid) | index($u)) != null' "$work/resp"
get "/api/v1/runs?status=panic" >/dev/null
check "filter by status" jqt 'length == 1 and .[0].status == "panic"' \
	"$work/resp"
get "/api/v1/runs?board=other" >/dev/null
check "filter by board" jqt 'length == 0' "$work/resp"
get "/api/v1/runs?kernel=6.1.0-57-rt-amd64&limit=2" >/dev/null
check "filter by kernel with limit" \
	jqt 'length == 2 and all(.kernel == "6.1.0-57-rt-amd64")' \
	"$work/resp"

# -- the CLI reads the same database ------------------------------------------
"$RTLAB" runs >"$work/runs.txt" 2>&1
check "rtlab runs lists the agent's run" \
	grep -q "^$RUN  *$(echo "$UUID" | cut -c1-8) *qemu1 " "$work/runs.txt"
check "rtlab runs --status panic" \
	test "$("$RTLAB" runs --status panic | wc -l)" = 2
"$RTLAB" show "$IDLE" >"$work/show.txt" 2>&1
check "rtlab show prints a row per CPU" \
	test "$(grep -c '^[01] ' "$work/show.txt")" = 2
check "rtlab show prints the environment" \
	grep -q 'cpu_model *QEMU TCG' "$work/show.txt"
"$RTLAB" show "$(echo "$UUID" | cut -c1-8)" >"$work/show2.txt" 2>&1
check "rtlab show by uuid prefix" grep -q "^run  *$RUN  *$UUID" \
	"$work/show2.txt"
# A uuid that starts with eight digits (one in 40 do): no run has that
# number as its id, so it is taken as a uuid prefix.
mkbundle --out "$work/digits.tgz" --json "$FIX/idle.json" \
	--uuid 20261203-0000-4000-8000-000000000001 >/dev/null
st=$(upload "$work/digits.tgz")
check "a bundle whose uuid starts with digits is stored ($st)" test "$st" = 201
DIGITS_RUN=$(jq -r .id "$work/resp")
"$RTLAB" show 20261203 >"$work/show3.txt" 2>&1
check "rtlab show by a uuid prefix of digits only" \
	grep -q "^run  *$DIGITS_RUN  *20261203-" "$work/show3.txt"
"$RTLAB" show 999999 >/dev/null 2>"$work/show.err"
check "rtlab show of an unknown run fails with a message" \
	grep -q "run '999999' not found" "$work/show.err"
"$RTLAB" plot "$IDLE" -o "$work/cli.png" >"$work/plot.out" 2>&1
check "rtlab plot writes a PNG" grep -q "run $IDLE, 2 CPUs" "$work/plot.out"
check "rtlab plot's file has the PNG signature" \
	test "$(head -c 8 "$work/cli.png" | od -An -tx1 | tr -d ' \n')" = \
	89504e470d0a1a0a
check "rtlab plot -o x.svg writes SVG" \
	sh -c '"$1" plot "$2" -o "$3" >/dev/null && grep -q "<svg" "$3"' _ \
	"$RTLAB" "$IDLE" "$work/cli.svg"
"$RTLAB" plot "$IDLE" -o "$work/x.jpg" 2>/dev/null
check "rtlab plot -o x.jpg is a usage error" test $? = 2

# -- the server down, then up: the agent spools, then flush delivers ---------------
down=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
srid=$(cat /proc/sys/kernel/random/uuid)
"$AGENT" run --testcase "$TOP/testcases/cyclictest-idle.yaml" --duration 1 \
	--board qemu1 --run-id "$srid" --spool "$work/spool" --token "$TOKEN" \
	--upload "http://127.0.0.1:$down/api/v1/runs" >"$work/spool.out" 2>&1
check "server down: the agent spools the bundle and exits 0" \
	sh -c "test $? = 0 && test -s '$work/spool/$srid.bundle'"
stored() { "$RTLAB" db psql -tAc "SELECT count(*) FROM runs WHERE uuid = '$1'"; }
check "... the run is not stored yet" test "$(stored "$srid")" = 0
"$AGENT" flush --spool "$work/spool" --upload "$API" --token "$TOKEN" \
	>"$work/flush.out" 2>&1
check "server up: flush exits 0" test $? = 0
check "... the spooled run is stored once" test "$(stored "$srid")" = 1
check "... and the spool is empty" test ! -e "$work/spool/$srid.bundle"

# A bundle the server refuses must not hold back the ones behind it: it is
# quarantined with the server's answer, the good one is delivered.
mkdir -p "$work/spool3"
cp "$work/longname.tgz" "$work/spool3/0-refused.bundle"
gid=$(mkbundle --out "$work/spool3/1-good.bundle" --json "$FIX/idle.json")
"$AGENT" flush --spool "$work/spool3" --upload "$API" --token "$TOKEN" \
	>"$work/flush3.out" 2>&1
check "flush with a refused bundle first: exit 1 (something quarantined)" \
	test $? = 1
check "... the good bundle behind it is stored" test "$(stored "$gid")" = 1
check "... the refused one is in quarantine/" \
	test -s "$work/spool3/quarantine/0-refused.bundle" -a \
	! -e "$work/spool3/0-refused.bundle"
check "... with the server's answer beside it" \
	grep -q "more than the limit of 128" "$work/spool3/quarantine/0-refused.reply"
"$AGENT" flush --spool "$work/spool3" --upload "$API" --token "$TOKEN" \
	>"$work/flush3.out" 2>&1
check "... and the next flush has nothing left to do (exit 0)" test $? = 0

# -- the log and a clean stop ------------------------------------------------------
check "log line per request with status, board and run" \
	grep -q "POST /api/v1/runs 201 .* board=qemu1 run=$RUN\$" \
	"$work/server.log"
kill -TERM $SPID
wait $SPID
check "SIGTERM stops the server with status 0" test $? = 0
check "the server says it stopped" grep -q 'stopping' "$work/server.log"
