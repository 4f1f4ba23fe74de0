#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The plans of the hot queries, so that a query that turns O(table) is
# caught before a year of runs shows it.  A throwaway PostgreSQL gets a
# small farm (build/bench/scale fill: 1000 series, 3 kernels, a long-term
# series of 1000 kernels, 10^4 queued jobs); auto_explain then logs the
# plan of every statement the real server and CLI send, with sequential
# scans priced out (enable_seqscan = off), so that a big table read
# whole means no index can answer.  Each request below must leave no
# "Seq Scan" on runs, histograms, verdicts, jobs or artifacts in the log,
# and the queries built for scale must use the index made for them.  An
# upload is planned too: its series' default baseline must walk
# series_kernels, not group the series' runs.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-plans.XXXXXX) || exit 1
on_exit "rm -rf '$work'"

need_db
if ! "$RTLAB_BUILD/bench/scale" fill --runs 7000 >"$work/fill.out" 2>&1; then
	not_ok "a small farm is generated (bench/scale fill)"
	sed 's/^/#   /' "$work/fill.out"
	exit 1
fi
ok "a small farm is generated (bench/scale fill)"

# Every new session of rtlab's database logs its plans.
"$RTLAB" db psql -q -v ON_ERROR_STOP=1 >"$work/psql.out" 2>&1 <<'SQL'
DO $$ BEGIN
EXECUTE format('ALTER DATABASE %I SET session_preload_libraries = %L',
	       current_database(), 'auto_explain');
EXECUTE format('ALTER DATABASE %I SET auto_explain.log_min_duration = 0',
	       current_database());
EXECUTE format('ALTER DATABASE %I SET auto_explain.log_level = %L',
	       current_database(), 'warning');
EXECUTE format('ALTER DATABASE %I SET auto_explain.log_nested_statements = on',
	       current_database());
EXECUTE format('ALTER DATABASE %I SET enable_seqscan = off',
	       current_database());
END $$;
SQL
check "auto_explain is set up for rtlab's database" test $? = 0

start_server "$work" || { not_ok "server starts"; exit 1; }
LOG=$RTLAB_STATE_DIR/pg/log

# plan NAME EXPECT CMD...: run CMD; the plans logged meanwhile must hold
# no sequential scan of a big table, and name index EXPECT (- for none).
plan() {
	_name=$1
	_expect=$2
	shift 2
	_from=$(($(wc -c <"$LOG") + 1))
	if ! "$@" >"$work/out" 2>&1; then
		not_ok "$_name: the request succeeds"
		sed 's/^/#   /' "$work/out" | head -n 10
		return
	fi
	# the server's statement is logged when it ends, before the answer
	tail -c +"$_from" "$LOG" >"$work/plan"
	if ! grep -q 'Query Text' "$work/plan"; then
		not_ok "$_name: its plans are logged"
		return
	fi
	if grep -Eq 'Seq Scan on (runs|histograms|verdicts|jobs|artifacts)( |$)' \
		"$work/plan"; then
		not_ok "$_name: no sequential scan of a big table"
		grep -E -B2 -A2 'Seq Scan on (runs|histograms|verdicts|jobs|artifacts)' \
			"$work/plan" | sed 's/^/#   /' | head -n 20
	elif [ "$_expect" != - ] && ! grep -q "$_expect" "$work/plan"; then
		not_ok "$_name: the plan uses $_expect"
		sed 's/^/#   /' "$work/plan" | head -n 40
	else
		[ "$_expect" = - ] && _expect=indexes
		ok "$_name: the plan uses $_expect"
	fi
}

get() { curl -fsS -o /dev/null "$URL$1"; }

last=$("$RTLAB" db psql -tAc 'SELECT max(id) FROM runs' 2>/dev/null)
mid=$((last / 2))

plan "GET /api/v1/runs" runs_pkey get /api/v1/runs
plan "GET /api/v1/runs?before=" runs_pkey get "/api/v1/runs?before=$mid"
plan "GET /api/v1/runs?board=" runs_board_id get "/api/v1/runs?board=scale-042"
plan "GET /api/v1/runs?kernel=&testcase=" - \
	get "/api/v1/runs?kernel=5.500.0-scale-lts&testcase=scale-tc-1"
plan "GET /api/v1/runs/{run}" - get "/api/v1/runs/$mid"
plan "run page" verdicts_candidate_runs get "/runs/$mid"
plan "overview page" runs_kernel_created get /
plan "overview page's boards (open jobs per board)" jobs_board_open get /
plan "regressions page" verdicts_verdict_id get /regressions
plan "GET /api/v1/verdicts" - get /api/v1/verdicts
plan "trend plot of 1000 kernels" runs_series \
	get "/api/v1/plots/trend.svg?board=scale-001&testcase=scale-tc-1&tree=scale-lts"
plan "rtlab jobs" - "$RTLAB" jobs
plan "GET /api/v1/jobs?before=" jobs_pkey get "/api/v1/jobs?before=$mid"
plan "GET /api/v1/jobs?board=" - get "/api/v1/jobs?board=scale-042"
plan "rtlab jobs --state queued" - "$RTLAB" jobs --state queued
plan "rtlab runs --before" runs_pkey "$RTLAB" runs --before "$mid"
# The farm's tick over the year's 100 boards x 10 testcases (its 2
# kernels), every cell with its runs: what each kernel has, cell by cell.
schedule=$("$RTLAB_BUILD/bench/scale" schedule "$work")
plan "rtlab farm tick over 1000 series" jobs_farm_key \
	"$RTLAB" farm tick --no-discover --no-notify --schedule "$schedule"
check "... which queued nothing (every cell has its runs)" \
	grep -q ' 2000 cells, 0 jobs queued' "$work/out"

# An upload whose kernel has a baseline in its series: the series and its
# default baseline (series_kernels, not a grouping of the series' runs),
# the verdict's loads and its store.
TOKEN=$("$RTLAB" board add plans-up --kind qemu --quiet 2>"$work/board.err")
python3 - "$work" "$TOP/tests/fixtures/cyclictest/idle.json" <<'EOF_PY'
import json, os, sys, uuid
sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
import bundletar
out, ctj = sys.argv[1], open(sys.argv[2], "rb").read()
for name, release in (("base", "6.1.0-plans-1-rt"), ("cand", "6.1.0-plans-2-rt")):
    files = {"cyclictest.json": ctj}
    m = {"format": "rtlab-bundle", "format_version": 1,
         "run_id": str(uuid.uuid4()), "board": "plans-up",
         "status": "complete",
         "testcase": {"name": "plans-upload", "duration_s": 3,
                      "hist_range_us": 100},
         "kernel": {"release": release, "tree": "plans-tree"},
         "files": bundletar.files_entry(files)}
    open("%s/%s.tgz" % (out, name), "wb").write(bundletar.tgz(m, files))
EOF_PY
uploaded() { test "$(upload "$1")" = 201; }
check "the baseline's run is stored" uploaded "$work/base.tgz"
plan "upload with a verdict after it" series_kernels_order \
	uploaded "$work/cand.tgz"
check "... which stored the candidate's verdict" \
	sh -c "'$RTLAB' verdicts --json 2>/dev/null | jq -e \
		'any(.[]; .candidate_kernel == \"6.1.0-plans-2-rt\")' >/dev/null"

# The keyset page itself: the runs just older than the id, newest first.
curl -fsS "$URL/api/v1/runs?before=$mid&limit=3" >"$work/page.json"
check "GET /api/v1/runs?before=ID&limit=3 is the 3 runs before ID" \
	jqt --argjson m "$mid" '[.[].id] == [$m - 1, $m - 2, $m - 3]' \
	"$work/page.json"
check "rtlab runs --before ID starts after ID" \
	sh -c "'$RTLAB' runs --before '$mid' --limit 1 --json 2>/dev/null |
		jq -e '.[0].id == $((mid - 1))' >/dev/null"
code=$(curl -s -o "$work/bad.json" -w '%{http_code}' "$URL/api/v1/runs?before=x")
check "before=x is refused with 400 naming the argument" \
	sh -c "[ '$code' = 400 ] && grep -q before '$work/bad.json'"
