#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Spike analysis of stored runs: bundles carrying a real trace.dat (the
# rtlab_inject preempt-off fixture) go through a throwaway database and
# server; `rtlab analyze RUN [--json] [--store]` and
# GET /api/v1/runs/{id}/spike(.json) name the injector; a run whose
# kernel is not the trace's, a run without a trace and a truncated trace
# are refused with a message saying so.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-spiketest.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
TRACES=$TOP/tests/fixtures/traces

# A bundle the way the agent writes one, holding TRACE (or none).
mkbundle() {	# OUT RELEASE TRACE|-
	python3 - "$@" "$TOP/tests/fixtures/cyclictest/idle.json" <<'EOF'
import json, os, sys, uuid
sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
import bundletar
out, release, trace, ct = sys.argv[1:5]
files = {"cyclictest.json": open(ct, "rb").read(),
         "dmesg.txt": b"[    0.000000] Linux version %s\n" % release.encode()}
if trace != "-":
    files["trace.dat"] = open(trace, "rb").read()
m = {
    "format": "rtlab-bundle", "format_version": 1,
    "run_id": str(uuid.uuid4()), "board": "qemu1", "status": "complete",
    "testcase": {"name": "calibrate-idle", "duration_s": 10,
                 "hist_range_us": 100,
                 "definition": {"measurement": {"tool": "cyclictest"}}},
    "kernel": {"release": release, "version": "#1 SMP Debian 6.1.192-3",
               "realtime": "-rt-" in release, "config_sha256": "ab" * 32,
               "name": "debian", "tree": "debian"},
    "environment": {"cmdline": "console=ttyS0", "cpus": 1,
                    "cpu_model": "QEMU TCG", "clock": "icount:3"},
    "commands": ["cyclictest -m -p 95 -i 1000 -t -b 150 --tracemark"],
    "started_at": "2026-12-03T03:14:08Z",
    "finished_at": "2026-12-03T03:14:12Z",
    "files": bundletar.files_entry(files),
}
open(out, "wb").write(bundletar.tgz(m, files))
EOF
}

if ! start_db; then
	not_ok "throwaway database starts"
	exit 1
fi
TOKEN=$("$RTLAB" board add qemu1 --kind qemu --quiet 2>"$work/board.err")
check "board registered" test ${#TOKEN} = 64
start_server "$work" || { not_ok "server starts"; exit 1; }
API=$URL/api/v1/runs

upload() {	# BUNDLE: prints the run id, or nothing
	curl -s -o "$work/up" -H "Authorization: Bearer $TOKEN" \
		-H 'Content-Type: application/gzip' \
		--data-binary @"$1" "$API" && jq -r '.id // empty' "$work/up"
}
jqt() {	# FILE EXPR: FILE is JSON and EXPR is true of it
	test -s "$1" && test "$(jq "$2" "$1" 2>/dev/null)" = true
}
get() {	# PATH: prints the status, the body lands in $work/resp
	curl -s -o "$work/resp" -w '%{http_code}' "$API/$1"
}

head -c 500000 "$TRACES/inject-preempt.dat" >"$work/truncated.dat"
mkbundle "$work/good.tgz" 6.1.0-57-rt-amd64 "$TRACES/inject-preempt.dat"
mkbundle "$work/other.tgz" 6.1.0-57-amd64 "$TRACES/inject-preempt.dat"
mkbundle "$work/none.tgz" 6.1.0-57-rt-amd64 -
mkbundle "$work/trunc.tgz" 6.1.0-57-rt-amd64 "$work/truncated.dat"
GOOD=$(upload "$work/good.tgz")
OTHER=$(upload "$work/other.tgz")
NONE=$(upload "$work/none.tgz")
TRUNC=$(upload "$work/trunc.tgz")
check "four bundles stored (ids $GOOD $OTHER $NONE $TRUNC)" \
	test -n "$GOOD" -a -n "$OTHER" -a -n "$NONE" -a -n "$TRUNC"

# -- rtlab analyze RUN ------------------------------------------------------
"$RTLAB" analyze "$GOOD" >"$work/a.txt" 2>"$work/a.err"
rc=$?
check "rtlab analyze $GOOD exits 0 (got $rc: $(head -c 200 "$work/a.err"))" \
	test $rc = 0
check "text starts with '## CPU 0 hit stop tracing, analyzing it ##'" \
	test "$(head -n 1 "$work/a.txt")" = \
	"## CPU 0 hit stop tracing, analyzing it ##"
check "text names the injector as the blocking thread" \
	grep -q '^  blocking thread: rtlab_inject/0:' "$work/a.txt"
"$RTLAB" analyze "$GOOD" --json >"$work/a.json" 2>>"$work/a.err"
check "--json: lat_us 300, threshold 150, blocking rtlab_inject/0" \
	jqt "$work/a.json" '.lat_us == 300 and .threshold_us == 150 and
		.blocking.comm == "rtlab_inject/0"'
check "--json: the injector ran 300-400 us from switch-in to switch-out" \
	jqt "$work/a.json" '.blocking_ran_us >= 300 and .blocking_ran_us <= 400'
nspike() {	# [SQL-CONDITION]: spike artifacts stored
	"$RTLAB" db psql -tAc "SELECT count(*) FROM artifacts
		WHERE name LIKE 'spike%' ${1:+AND $1}"
}
check "nothing stored without --store" test "$(nspike)" = 0
# A GET analyzes and answers, but never writes: storing is --store's.
st=$(get "$GOOD/spike.json")
check "GET spike.json before --store: 200, lat_us 300 (got $st)" \
	sh -c "test $st = 200 && jq -e '.lat_us == 300' '$work/resp' >/dev/null"
st=$(get "$GOOD/spike")
check "GET spike before --store: 200 (got $st)" test "$st" = 200
check "... and the GETs stored nothing" test "$(nspike)" = 0
"$RTLAB" analyze "$GOOD" --store >/dev/null 2>"$work/s.err"
check "--store: spike.txt and spike.json stored with run $GOOD" test \
	"$("$RTLAB" db psql -tAc "SELECT string_agg(name, ' ' ORDER BY name)
		FROM artifacts WHERE run_id = $GOOD AND name LIKE 'spike%'")" \
	= "spike.json spike.txt"
"$RTLAB" analyze "$GOOD" --store >/dev/null 2>>"$work/s.err"
check "--store twice replaces, no duplicate" test "$(nspike)" = 2

# -- the API ---------------------------------------------------------------
st=$(get "$GOOD/spike")
check "GET /runs/$GOOD/spike is 200 (got $st)" test "$st" = 200
check "... the stored text, the injector named" \
	grep -q 'blocking thread: rtlab_inject/0' "$work/resp"
st=$(get "$GOOD/spike.json")
check "GET /runs/$GOOD/spike.json is 200 with lat_us 300 (got $st)" \
	jqt "$work/resp" '.lat_us == 300'
st=$(get "$TRUNC/spike.json")
check "truncated trace: 422 (got $st)" test "$st" = 422
check "... saying it is truncated ($(head -c 200 "$work/resp"))" \
	jqt "$work/resp" '.error | contains("truncated")'
st=$(get "$OTHER/spike")
check "another kernel's trace: 409 (got $st)" test "$st" = 409
check "... naming both kernels ($(head -c 200 "$work/resp"))" \
	jqt "$work/resp" '.error | contains("6.1.0-57-rt-amd64") and
		contains("6.1.0-57-amd64")'
st=$(get "$NONE/spike")
check "run without a trace: 404 (got $st)" test "$st" = 404
check "... saying it has no trace" \
	jqt "$work/resp" '.error | contains("has no trace")'
check "nothing stored for the refused runs" \
	test "$(nspike "run_id <> $GOOD")" = 0

# -- refusals on the command line ------------------------------------------
"$RTLAB" analyze "$OTHER" >/dev/null 2>"$work/e1"
rc=$?
check "rtlab analyze of another kernel's trace exits 1 (got $rc)" test $rc = 1
check "... naming both kernels ($(cat "$work/e1"))" \
	grep -q '6.1.0-57-rt-amd64.*6.1.0-57-amd64' "$work/e1"
"$RTLAB" analyze "$NONE" >/dev/null 2>"$work/e2"
rc=$?
check "rtlab analyze of a run without a trace exits 1 (got $rc)" test $rc = 1
check "... saying so ($(cat "$work/e2"))" grep -q 'has no trace' "$work/e2"
"$RTLAB" analyze "$work/truncated.dat" >/dev/null 2>"$work/e3"
rc=$?
check "rtlab analyze of a truncated file exits 1 (got $rc)" test $rc = 1
check "... naming the file ($(cat "$work/e3"))" \
	grep -q "truncated.dat: not a readable trace.dat" "$work/e3"
"$RTLAB" analyze "$TRACES/inject-preempt.dat" --store >/dev/null 2>&1
rc=$?
check "--store with a file is a usage error (exit $rc)" test $rc = 2
"$RTLAB" analyze "$TRACES/inject-preempt.dat" --cpu x >/dev/null 2>&1
rc=$?
check "--cpu x is a usage error (exit $rc)" test $rc = 2
"$RTLAB" analyze 999999 >/dev/null 2>"$work/e4"
rc=$?
check "an unknown run exits 1 saying so (got $rc: $(cat "$work/e4"))" \
	test $rc = 1 -a -n "$(grep "not found" "$work/e4")"
