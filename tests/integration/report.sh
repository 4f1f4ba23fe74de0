#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Regression reports end to end: a throwaway PostgreSQL and a real `rtlab
# server` on loopback get 5 runs of a PREEMPT_RT kernel and 5 of a
# candidate built without PREEMPT_RT (tests/fixtures/report/mkruns.py);
# the server's own verdict is a REGRESSION.  Then:
#  - `rtlab report` writes report.txt and bug.json equal to the golden
#    files in tests/fixtures/report/ (attachment sizes normalized), HTML,
#    and attachments whose base64 decodes to the stored bytes;
#  - a verdict that is not a regression is refused, unless --force;
#  - `rtlab report file` against the Bugzilla stand-in
#    (tests/bugzilla-standin.py): filed with every attachment and recorded,
#    never twice; a Tree value or a field the server lacks is dropped;
#    server errors (HTTP 500, Bugzilla error JSON, bad key) are surfaced
#    and nothing is recorded; an unreachable server says so;
#  - `rtlab export kcidb` passes a JSON-schema check of the KCIDB v5.3
#    rules the export follows, and the cross-checks of ids and links.
# RTLAB_UPDATE_GOLDEN=1 rewrites the golden files.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-reporttest.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
FIX=$TOP/tests/fixtures/report
STANDIN=$TOP/tests/bugzilla-standin.py
unset RTLAB_BUGZILLA_API_KEY

need_db

TOKEN=$("$RTLAB" board add qemu-icount --kind qemu --quiet 2>"$work/board.err")
check "board qemu-icount registered" test ${#TOKEN} = 64

start_server "$work" --threads 2 || { not_ok "server starts"; exit 1; }

python3 "$FIX/mkruns.py" --out "$work" --side baseline --seed 1 >/dev/null &&
	python3 "$FIX/mkruns.py" --out "$work" --side candidate --seed 2 \
		>/dev/null
check "fixture bundles written" test -f "$work/candidate-5.bundle"
uploaded=0
for b in "$work"/baseline-*.bundle "$work"/candidate-*.bundle; do
	st=$(curl -s -o "$work/resp" -w '%{http_code}' \
		-H "Authorization: Bearer $TOKEN" \
		-H 'Content-Type: application/gzip' \
		--data-binary @"$b" "$URL/api/v1/runs")
	[ "$st" = 201 ] && uploaded=$((uploaded + 1))
done
check "10 runs uploaded (got $uploaded)" test $uploaded = 10

"$RTLAB" verdicts --json >"$work/verdicts.json" 2>"$work/verdicts.err"
VID=$(jq -r '[.[] | select(.verdict == "REGRESSION")][0].id // empty' \
	"$work/verdicts.json")
check "the server stored a REGRESSION verdict (id '$VID')" test -n "$VID"
[ -n "$VID" ] || { cat "$work/verdicts.json" "$work/server.log"; exit 1; }

# -- rtlab report ---------------------------------------------------------------
OUT=$work/rep
"$RTLAB" report "$VID" -o "$OUT" >"$work/report.out" 2>&1
check "rtlab report $VID: exit 0 ($(cat "$work/report.out"))" test $? = 0
for f in bug.json report.txt report.html; do
	check "report writes $f" test -s "$OUT/$f"
done

norm_txt() {	# attachment sizes depend on gnuplot's PNG encoder
	sed -E 's/\([0-9]+ bytes\)/(N bytes)/g' "$1"
}
norm_bug() {
	jq -S '.description = "(report.txt)"' "$1"
}
if [ "${RTLAB_UPDATE_GOLDEN:-}" = 1 ]; then
	norm_txt "$OUT/report.txt" >"$FIX/report.txt"
	norm_bug "$OUT/bug.json" >"$FIX/bug.json"
fi
norm_txt "$OUT/report.txt" >"$work/report.norm"
norm_bug "$OUT/bug.json" >"$work/bug.norm"
if diff -u "$FIX/report.txt" "$work/report.norm" >"$work/txt.diff"; then
	ok "report.txt equals the golden file"
else
	not_ok "report.txt equals the golden file"
	head -n 40 "$work/txt.diff"
fi
if diff -u "$FIX/bug.json" "$work/bug.norm" >"$work/bug.diff"; then
	ok "bug.json equals the golden file"
else
	not_ok "bug.json equals the golden file"
	head -n 40 "$work/bug.diff"
fi
# Comment 0 is read in half a minute: Bugzilla's limit, 150 lines, 80
# columns, and the sections in the order a maintainer asks them.
check "report.txt: within Bugzilla's 65,535 characters" test "$(python3 -c \
	'import sys; print(len(open(sys.argv[1]).read()))' "$OUT/report.txt")" \
	-le 65535
check "report.txt: at most 150 lines ($(wc -l <"$OUT/report.txt"))" \
	test "$(wc -l <"$OUT/report.txt")" -le 150
check "report.txt: no line wider than 80 columns" \
	test "$(awk 'length > 80' "$OUT/report.txt" | wc -l)" = 0
for s in "== What regressed ==" "== Which kernels ==" "== Where ==" \
	"== Spike analysis ==" "== How to reproduce ==" "== Runs =="; do
	grep -n -F -x "$s" "$OUT/report.txt" | cut -d: -f1
done >"$work/sections"
check "report.txt: regressed, kernels, where, spike, reproduce, runs, in order" \
	sh -c 'test "$(wc -l <"$1")" = 6 && sort -n -c "$1"' - "$work/sections"
check "bug.json: description is report.txt" \
	jqt --rawfile t "$OUT/report.txt" '.description == $t' "$OUT/bug.json"
check "bug.json: summary tagged [PREEMPT_RT], names figures and kernels" \
	jqt '.summary | startswith("[PREEMPT_RT] max latency ") and
		contains("qemu-icount/cyclictest-hackbench") and
		contains("6.1.0-57-rt-amd64 vs 6.1.0-56-rt-amd64")' "$OUT/bug.json"
check "report.txt: the config delta shows CONFIG_PREEMPT_RT removed" \
	grep -qx '    -CONFIG_PREEMPT_RT=y' "$OUT/report.txt"
check "report.txt: the trace of the worst run is named" \
	grep -q 'trace.dat of candidate run [0-9]* captured' "$OUT/report.txt"
check "report.html inlines the plots" \
	grep -q '<img alt="[^"]*" src="data:image/png;base64,' "$OUT/report.html"

# Every attachment is a POST /rest/bug/{id}/attachment body whose data is
# the stored bytes.
WORST=$("$RTLAB" db psql -tAc \
	"SELECT r.uuid FROM verdicts v, runs r JOIN histograms h
	 ON h.run_id = r.id WHERE v.id = $VID AND r.id = ANY (v.candidate_runs)
	 ORDER BY h.max_us DESC LIMIT 1")
natt=0 badatt=""
for a in "$OUT"/attachments/*.json; do
	natt=$((natt + 1))
	name=$(jq -r .file_name "$a")
	jq -e '(.ids == [0]) and (.is_patch == false) and
		(.summary | length > 0) and (.content_type | length > 0)' \
		"$a" >/dev/null || badatt="$badatt $name(fields)"
	jq -r .data "$a" | base64 -d >"$work/att.bin" 2>/dev/null ||
		badatt="$badatt $name(base64)"
	case $name in
	*.png)
		[ "$(head -c 8 "$work/att.bin" | od -An -tx1 | tr -d ' ')" = \
			89504e470d0a1a0a ] || badatt="$badatt $name(png)" ;;
	histograms.json)
		jq -e '(.baseline | length) == 5 and (.candidate | length) == 5' \
			"$work/att.bin" >/dev/null || badatt="$badatt $name" ;;
	histograms.csv)
		head -n 1 "$work/att.bin" | grep -q '^side,run_id' ||
			badatt="$badatt $name" ;;
	config-*)
		cmp -s "$work/att.bin" "$work/files/$WORST/config" ||
			badatt="$badatt $name" ;;
	spike-analysis.txt)
		grep -q 'blocking thread: rtlab_inject/0' "$work/att.bin" ||
			badatt="$badatt $name" ;;
	trace-window.dat)
		trace-cmd report -i "$work/att.bin" 2>/dev/null |
			grep -q 'hit latency threshold (300 > 150)' ||
			badatt="$badatt $name" ;;
	*)
		cmp -s "$work/att.bin" "$work/files/$WORST/$name" ||
			badatt="$badatt $name" ;;
	esac
done
check "10 attachments written (got $natt)" test $natt = 10
check "attachments decode to the stored bytes (bad:${badatt:- none})" \
	test -z "$badatt"
check "trace.dat (4.9 MB) over the default 1000 KB: its window attached" \
	test -f "$OUT/attachments/06-trace-window.dat.json"
check "report.txt: the spike analysis names the blocking kthread" \
	grep -q '^  blocking thread: rtlab_inject/0' "$OUT/report.txt"
check "the report is recorded, not filed" test "$("$RTLAB" db psql -tAc \
	"SELECT count(*) || '/' || count(bug_id) FROM reports
	 WHERE verdict_id = $VID")" = 1/0

# Not a regression: refused, nothing written; --force writes it.
"$RTLAB" db psql -qc "INSERT INTO verdicts (board_id, testcase_id,
	baseline_kernel_id, candidate_kernel_id, verdict, details,
	baseline_runs, candidate_runs) SELECT board_id, testcase_id,
	baseline_kernel_id, baseline_kernel_id, 'NO_CHANGE', details,
	baseline_runs, baseline_runs FROM verdicts WHERE id = $VID" >/dev/null
NID=$("$RTLAB" db psql -tAc "SELECT max(id) FROM verdicts
	WHERE verdict = 'NO_CHANGE'")
"$RTLAB" report "$NID" -o "$work/nc" >"$work/nc.out" 2>&1
check "a NO_CHANGE verdict: exit 1" test $? = 1
check "... saying it is not a REGRESSION ($(cat "$work/nc.out"))" \
	grep -q "is NO_CHANGE, not a REGRESSION" "$work/nc.out"
check "... and nothing written" test ! -e "$work/nc"
"$RTLAB" report "$NID" --force -o "$work/nc" >/dev/null 2>&1
check "--force reports it anyway" test -s "$work/nc/report.txt"
"$RTLAB" report 999999 -o "$work/none" >"$work/none.out" 2>&1
check "an unknown verdict: exit 1, 'not found'" \
	test $? = 1 -a -n "$(grep 'verdict 999999 not found' "$work/none.out")"
"$RTLAB" report abc >/dev/null 2>&1
check "a verdict id that is not a number: usage error (2)" test $? = 2

# -- filing ---------------------------------------------------------------------
BZ_PID=""
start_bz() {	# NAME ARGS...: a fresh stand-in; sets BZ and BZ_PID
	_n=$1
	shift
	mkdir -p "$work/bz-$_n"
	python3 "$STANDIN" --log "$work/bz-$_n.log" --store "$work/bz-$_n" \
		"$@" >"$work/bz-$_n.out" 2>&1 &
	BZ_PID=$!
	on_exit "kill $BZ_PID 2>/dev/null"
	_i=0
	while ! grep -q '^listening on' "$work/bz-$_n.out" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -gt 100 ]; then
			echo "stand-in $_n did not start:"
			cat "$work/bz-$_n.out"
			return 1
		fi
		sleep 0.1
	done
	BZ=http://127.0.0.1:$(sed -n 's/^listening on //p' "$work/bz-$_n.out")
	touch "$work/bz-$_n.log"
}
stop_bz() {
	kill $BZ_PID 2>/dev/null
	wait $BZ_PID 2>/dev/null
}
filed_count() {
	"$RTLAB" db psql -tAc "SELECT count(*) FROM reports
		WHERE verdict_id = $VID AND bug_id IS NOT NULL"
}
posts() {	# NAME PATH-REGEX: POSTs to matching paths in the stand-in log
	jq -s --arg p "$2" '[.[] | select(.method == "POST" and
		(.path | test($p)))] | length' "$work/bz-$1.log"
}
file_it() {	# OUTFILE ARGS...: rtlab report file $VID, exit status in $rc
	_o=$1
	shift
	RTLAB_BUGZILLA_API_KEY=${KEY-secret-key} \
		"$RTLAB" report file "$VID" "$@" >"$work/$_o" 2>&1
	rc=$?
}

start_bz ok || exit 1
file_it dry.out --bugzilla "$BZ" --dry-run
check "--dry-run: exit 0" test $rc = 0
check "--dry-run: nothing posted, nothing recorded" \
	test "$(posts ok .)/$(filed_count)" = 0/0
check "--dry-run prints the bug and the attachments" \
	grep -q 'POST /rest/bug/ID/attachment: trace-window.dat' "$work/dry.out"

file_it file.out --bugzilla "$BZ"
check "filing: exit 0 ($(tail -n 1 "$work/file.out"))" test $rc = 0
check "filing: says the bug and its URL" grep -q \
	"filed as bug 1000: $BZ/show_bug.cgi?id=1000 (10 of 10 attachments)" \
	"$work/file.out"
check "filing: bug id and URL recorded for the verdict" \
	test "$("$RTLAB" db psql -tAc "SELECT bug_id || ' ' || bug_url
		FROM reports WHERE verdict_id = $VID AND bug_id IS NOT NULL")" = \
	"1000 $BZ/show_bug.cgi?id=1000"
check "filing (and the dry run): /rest/version, 3 custom and 4 stock fields asked" \
	test "$(jq -s '[.[] | select(.method == "GET") | .path] |
		index("/rest/version") == 0 and
		(map(select(. == "/rest/version")) | length) == 2 and
		(map(select(startswith("/rest/field/bug/cf_"))) | length) == 6 and
		(map(select(. == "/rest/field/bug/rep_platform" or
			. == "/rest/field/bug/bug_severity")) | length) == 4' \
		"$work/bz-ok.log")" = true
check "filing: POST /rest/bug as JSON with api_key in the body, no header" \
	test "$(jq -s '[.[] | select(.method == "POST")] | all(
		(.content_type | startswith("application/json")) and
		.api_key_body and (.x_bugzilla_api_key | not))' \
		"$work/bz-ok.log")" = true
check "filing: cf_tree PREEMPT_RT and the rest sent" \
	test "$(jq -s '[.[] | select(.method == "POST" and .path == "/rest/bug")][0].body |
		.cf_tree == "PREEMPT_RT" and .cf_regression == "Yes" and
		.op_sys == "Linux" and (.whiteboard | test("^rtlab:[0-9a-f]{16}$"))' \
		"$work/bz-ok.log")" = true
check "filing: a stock server's Hardware and Severity: the closest value, said" \
	test "$(jq -s '[.[] | select(.method == "POST" and .path == "/rest/bug")][0].body |
		.platform == "PC" and .severity == "major"' \
		"$work/bz-ok.log")" = true -a -n "$(grep \
		"offers no platform 'x86-64': sent 'PC'" "$work/file.out")"
check "filing: the API key never in a URL" \
	test "$(jq -s 'all(.api_key_query | not)' "$work/bz-ok.log")" = true
check "filing: the server's attachment limit asked and said" \
	grep -q "attachments up to 1000 KB (the server's maxattachmentsize)" \
	"$work/file.out"
check "filing: 10 attachments posted" test "$(posts ok attachment)" = 10
trace_checks() {	# NAME FILE: the filing into stand-in NAME reduced the trace
	_s=$work/bz-$1
	check "$1: trace.dat itself not posted" test ! -e "$_s/1000-trace.dat"
	check "$1: $2 posted" test -s "$_s/1000-$2"
	case $2 in
	*.xz) xz -dc "$_s/1000-$2" >"$work/$1-window.dat" 2>/dev/null ;;
	*) cp "$_s/1000-$2" "$work/$1-window.dat" ;;
	esac
	trace-cmd report -i "$work/$1-window.dat" >"$work/$1-window.txt" 2>/dev/null
	check "$1: trace-cmd report reads the window, spike included" \
		grep -q 'hit latency threshold (300 > 150)' "$work/$1-window.txt"
	"$RTLAB" analyze "$work/$1-window.dat" 2>&1 |
		grep -v '^  trace: ' >"$work/$1-window.spike"
	"$RTLAB" analyze "$work/files/$WORST/trace.dat" 2>&1 |
		grep -v '^  trace: ' >"$work/$1-full.spike"
	check "$1: the window's spike analysis equals the full trace's" \
		cmp -s "$work/$1-window.spike" "$work/$1-full.spike"
	"$RTLAB" db psql -tAc "SELECT files FROM reports WHERE verdict_id = $VID
		AND bug_id IS NOT NULL" >"$work/$1-files.json"
	check "$1: the reports row lists the window, not trace.dat" \
		jqt --arg w "$2" '(.attachments | index($w)) and
			(.attachments | index("trace.dat") | not) and
			(.missing == [])' "$work/$1-files.json"
}
# A stock server's 1000 KB: trace.dat (4.9 MB) goes as the window around its
# spike, a trace.dat trace-cmd reads, with the same spike analysis.
trace_checks ok trace-window.dat

file_it again.out --bugzilla "$BZ"
check "filing again: exit 1" test $rc = 1
check "... 'already filed as bug 1000'" \
	grep -q "already filed as bug 1000" "$work/again.out"
check "... and nothing posted" test "$(posts ok '^/rest/bug$')" = 1
stop_bz

refile() {	# forget the filing so the same verdict can be filed again
	"$RTLAB" db psql -qc "DELETE FROM reports WHERE verdict_id = $VID" \
		>/dev/null
}

refile
start_bz notree --tree-values=---,Mainline,Fedora \
	--no-field cf_kernel_version || exit 1
file_it notree.out --bugzilla "$BZ"
check "no PREEMPT_RT Tree on the server: still filed (exit $rc)" test $rc = 0
check "... saying cf_tree was dropped" \
	grep -q "no value 'PREEMPT_RT' for cf_tree" "$work/notree.out"
check "... and cf_kernel_version (no such field)" \
	grep -q "has no field cf_kernel_version" "$work/notree.out"
check "... sent without them, summary still tagged" \
	test "$(jq -s '[.[] | select(.method == "POST" and .path == "/rest/bug")][0].body |
		(has("cf_tree") | not) and (has("cf_kernel_version") | not) and
		(.summary | startswith("[PREEMPT_RT]"))' \
		"$work/bz-notree.log")" = true
check "... and recorded" test "$(filed_count)" = 1
stop_bz

refile
start_bz e500 --fail-bug 500 || exit 1
file_it e500.out --bugzilla "$BZ"
check "HTTP 500 on POST /rest/bug: exit 1" test $rc = 1
check "... the status surfaced ($(head -c 160 "$work/e500.out"))" \
	grep -q "POST /bug: HTTP 500" "$work/e500.out"
check "... nothing recorded as filed" test "$(filed_count)" = 0
stop_bz

start_bz eprod --fail-bug product || exit 1
file_it eprod.out --bugzilla "$BZ"
check "Bugzilla error JSON: exit 1" test $rc = 1
check "... code and message surfaced ($(head -c 160 "$work/eprod.out"))" \
	grep -q "error 51: There is no Product named 'Linux'. (HTTP 400)" \
	"$work/eprod.out"
check "... nothing recorded as filed" test "$(filed_count)" = 0
KEY=wrong file_it badkey.out --bugzilla "$BZ"
check "a bad API key: exit 1, Bugzilla's code 306 surfaced" \
	test $rc = 1 -a -n "$(grep 'error 306' "$work/badkey.out")"
check "... nothing recorded as filed" test "$(filed_count)" = 0
KEY= file_it nokey.out --bugzilla "$BZ"
check "no API key at all: usage error (2) naming RTLAB_BUGZILLA_API_KEY" \
	test $rc = 2 -a -n "$(grep RTLAB_BUGZILLA_API_KEY "$work/nokey.out")"
stop_bz

file_it down.out --bugzilla "$BZ"
check "unreachable Bugzilla: exit 1" test $rc = 1
check "... 'unreachable' and the URL ($(head -c 160 "$work/down.out"))" \
	grep -q "Bugzilla at $BZ is unreachable" "$work/down.out"
check "... nothing recorded as filed" test "$(filed_count)" = 0
file_it nourl.out
check "no Bugzilla URL: usage error (2)" test $rc = 2

# bugzilla_url and the bug fields from the configuration file.
start_bz conf || exit 1
cat >"$work/rtlab.conf" <<EOF
bugzilla_url = $BZ
bugzilla_product = Process Management
bugzilla_component = scheduler
bugzilla_version = 2.5
EOF
RTLAB_CONFIG=$work/rtlab.conf file_it conf.out
check "filing with bugzilla_url from the configuration file (exit $rc)" \
	test $rc = 0
check "... the component's spelling taken from the server's product" grep -q \
	"component 'scheduler' is 'Scheduler' on this server" "$work/conf.out"
check "... product, component, version from it" \
	test "$(jq -s '[.[] | select(.method == "POST" and .path == "/rest/bug")][0].body |
		.product == "Process Management" and
		.component == "Scheduler" and .version == "2.5"' \
		"$work/bz-conf.log")" = true
stop_bz

# A version the product does not offer: "unspecified", said.
refile
start_bz ver || exit 1
printf 'bugzilla_version = 9.9\n' >"$work/ver.conf"
RTLAB_CONFIG=$work/ver.conf file_it ver.out --bugzilla "$BZ"
check "a version the product lacks: 'unspecified' sent and said (exit $rc)" \
	test $rc = 0 -a "$(jq -s '[.[] | select(.method == "POST" and
		.path == "/rest/bug")][0].body.version' "$work/bz-ver.log")" = \
	'"unspecified"' -a -n "$(grep "offers no version '9.9': sent \
'unspecified'" "$work/ver.out")"
stop_bz

# -- the server's limits ---------------------------------------------------------
# A 900 KB limit: the window's zstd sections still weigh 941 KB, so it goes
# xz-compressed; the full trace is linked, and the text says exactly that.
refile
start_bz limit --max-attachment-kb 900 || exit 1
file_it limit.out --bugzilla "$BZ"
check "a 900 KB limit: filed whole (exit $rc, $(tail -n 1 "$work/limit.out"))" \
	test $rc = 0
check "... the server's 900 KB said" grep -q "attachments up to 900 KB" \
	"$work/limit.out"
trace_checks limit trace-window.dat.xz
"$RTLAB" db psql -tAc "SELECT id FROM runs WHERE uuid = '$WORST'" \
	>"$work/worst.id"
RTLAB_CONFIG=$work/limit.conf
printf 'bugzilla_max_attachment_kb = 900\npublic_url = https://lab.example/\n' \
	>"$RTLAB_CONFIG"
RTLAB_CONFIG=$RTLAB_CONFIG "$RTLAB" report "$VID" -o "$work/rep900" \
	>/dev/null 2>&1
# the text as one line: wrapping at 80 columns may break any sentence
tr '\n' ' ' <"$work/rep900/report.txt" | tr -s ' ' >"$work/rep900.joined"
check "report.txt: trace.dat not attached, over the 900 KB limit" grep -q \
	"not attached: over the server's attachment limit of 900 KB" \
	"$work/rep900.joined"
check "report.txt: the window attached instead, same analysis" grep -q \
	"Attached instead: trace-window.dat.xz (.* bytes), .* its spike analysis equals the full trace's" \
	"$work/rep900.joined"
check "report.txt: the full trace linked on the lab's server" grep -q \
	"The full trace: https://lab.example/api/v1/runs/$(cat "$work/worst.id")/trace.dat" \
	"$work/rep900.joined"
check "report.txt: the attachments listed are the ones sent" \
	grep -q "trace-window.dat.xz" "$work/rep900/report.txt"
check "report.txt: at most 80 columns" \
	test "$(awk 'length > 80' "$work/rep900/report.txt" | wc -l)" = 0
stop_bz

refile
start_bz noparam --no-parameters || exit 1
printf 'bugzilla_max_attachment_kb = 900\n' >"$work/noparam.conf"
RTLAB_CONFIG=$work/noparam.conf file_it noparam.out --bugzilla "$BZ"
check "no /rest/parameters: bugzilla_max_attachment_kb used (exit $rc)" \
	test $rc = 0 -a -n "$(grep 'attachments up to 900 KB (bugzilla_max_attachment_kb' \
	"$work/noparam.out")"
trace_checks noparam trace-window.dat.xz
stop_bz

# An attachment that fails: the bug is filed and recorded with it missing,
# and the next `rtlab report file` adds it.
refile
start_bz flaky --fail-attachment-once console.log || exit 1
file_it flaky.out --bugzilla "$BZ"
check "an attachment fails: exit 1 (got $rc)" test $rc = 1
check "... filed as bug 1000 with 9 of 10 attachments" grep -q \
	"filed as bug 1000: .* (9 of 10 attachments)" "$work/flaky.out"
check "... the failure named, whole (HTML page as text)" grep -q \
	"attachment console.log (.* bytes) not added: .*HTTP 500, expected a JSON object: Internal Server Error" \
	"$work/flaky.out"
check "... recorded as filed, console.log missing" test "$("$RTLAB" db psql \
	-tAc "SELECT files->'missing' FROM reports WHERE verdict_id = $VID
	AND bug_id = 1000")" = '["console.log"]'
check "... the bug says so in a comment" test "$(jq -s '[.[] |
	select(.path == "/rest/bug/1000/comment")][0].comment_head |
	test("1 of 10 attachments .* could not be added yet")' \
	"$work/bz-flaky.log")" = true
file_it flaky2.out --bugzilla "$BZ"
check "filing again adds the missing attachment (exit $rc)" test $rc = 0 -a \
	-n "$(grep '1 of 1 missing attachments added' "$work/flaky2.out")"
check "... console.log on the bug now" test -s "$work/bz-flaky/1000-console.log"
check "... nothing missing any more, no second bug" test "$("$RTLAB" db psql \
	-tAc "SELECT files->'missing' FROM reports WHERE verdict_id = $VID
	AND bug_id = 1000")/$(posts flaky '^/rest/bug$')" = '[]/1'
file_it flaky3.out --bugzilla "$BZ"
check "and once more: already filed, exit 1" test $rc = 1 -a \
	-n "$(grep 'already filed as bug 1000' "$work/flaky3.out")"

# One bug per regression: a second verdict of the same kernels, board and
# testcase comments on bug 1000.
"$RTLAB" db psql -qc "INSERT INTO verdicts (board_id, testcase_id,
	baseline_kernel_id, candidate_kernel_id, verdict, details,
	baseline_runs, candidate_runs) SELECT board_id, testcase_id,
	baseline_kernel_id, candidate_kernel_id, verdict, details,
	baseline_runs, candidate_runs FROM verdicts WHERE id = $VID" >/dev/null
V2=$("$RTLAB" db psql -tAc "SELECT max(id) FROM verdicts
	WHERE verdict = 'REGRESSION'")
RTLAB_BUGZILLA_API_KEY=secret-key "$RTLAB" report file "$V2" --bugzilla "$BZ" \
	>"$work/second.out" 2>&1
check "a second verdict of the regression: exit $? and a comment on bug 1000" \
	grep -q "verdict $V2 added to bug 1000 as a comment" "$work/second.out"
check "... no second bug" test "$(posts flaky '^/rest/bug$')" = 1
check "... the comment carries the new verdict's report" test "$(jq -s '[.[] |
	select(.path == "/rest/bug/1000/comment")] | last | .comment_head |
	startswith("rtlab verdict '"$V2"', a new verdict of this regression")' \
	"$work/bz-flaky.log")" = true
check "... recorded against bug 1000" test "$("$RTLAB" db psql -tAc \
	"SELECT bug_id || ' ' || (files->>'kind') FROM reports
	WHERE verdict_id = $V2")" = "1000 comment"
# Another lab (or database) that never filed it: found by the whiteboard tag.
"$RTLAB" db psql -qc "DELETE FROM reports WHERE verdict_id = $V2;
	UPDATE reports SET regression = NULL WHERE verdict_id = $VID" >/dev/null
RTLAB_BUGZILLA_API_KEY=secret-key "$RTLAB" report file "$V2" --bugzilla "$BZ" \
	>"$work/third.out" 2>&1
check "a database that never filed it finds bug 1000 by its tag" \
	grep -q "verdict $V2 added to bug 1000 as a comment" "$work/third.out"
check "... still one bug" test "$(posts flaky '^/rest/bug$')" = 1
"$RTLAB" db psql -qc "DELETE FROM reports WHERE verdict_id = $V2;
	DELETE FROM verdicts WHERE id = $V2" >/dev/null
stop_bz

# -- KCIDB export -------------------------------------------------------------------
"$RTLAB" export kcidb -o "$work/kcidb.json" 2>"$work/kcidb.err"
check "rtlab export kcidb: exit 0 ($(cat "$work/kcidb.err"))" test $? = 0
cat >"$work/kcidb-check.py" <<'EOF'
# The KCIDB v5.3 rules rtlab's export follows, as a JSON schema (a subset
# of the official one: the properties rtlab writes, with the official
# types, patterns and required lists), plus the links between objects.
import json, sys
import jsonschema

ORIGIN = "^[a-z0-9_]+$"
ID = "^rtlab:.+$"
TIME = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"
STATUS = {"enum": ["FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"]}
S = {"type": "string"}
def obj(props, required):
    return {"type": "object", "properties": props,
            "additionalProperties": False, "required": required}
schema = obj({
    "version": obj({"major": {"const": 5},
                    "minor": {"type": "integer", "minimum": 0,
                              "maximum": 3}}, ["major"]),
    "checkouts": {"type": "array", "items": obj({
        "id": {"type": "string", "pattern": ID},
        "origin": {"type": "string", "pattern": ORIGIN},
        "tree_name": S, "comment": S, "valid": {"type": "boolean"},
        "git_commit_hash": {"type": "string", "pattern": "^[0-9a-f]{40}([0-9a-f]{24})?$"},
        "start_time": {"type": "string", "pattern": TIME},
        "misc": {"type": "object"}}, ["id", "origin"])},
    "builds": {"type": "array", "items": obj({
        "id": {"type": "string", "pattern": ID},
        "checkout_id": {"type": "string", "pattern": ID},
        "origin": {"type": "string", "pattern": ORIGIN},
        "architecture": {"type": "string", "pattern": "^[a-z0-9_]*$"},
        "config_name": S, "comment": S, "status": STATUS,
        "misc": {"type": "object"}}, ["checkout_id", "id", "origin"])},
    "tests": {"type": "array", "items": obj({
        "id": {"type": "string", "pattern": ID},
        "build_id": {"type": "string", "pattern": ID},
        "origin": {"type": "string", "pattern": ORIGIN},
        "path": {"type": "string",
                 "pattern": "^(|[a-zA-Z0-9_-]+(\\.[a-zA-Z0-9_-]+)*)$"},
        "status": STATUS, "comment": S,
        "start_time": {"type": "string", "pattern": TIME},
        "duration": {"type": "number"},
        "environment": obj({"comment": S, "misc": {"type": "object"}}, []),
        "number": obj({"value": {"type": "number"}, "unit": S,
                       "prefix": {"enum": ["metric", "binary"]}},
                      ["value"]),
        "misc": {"type": "object"}}, ["build_id", "id", "origin"])},
    "issues": {"type": "array", "items": obj({
        "id": {"type": "string", "pattern": ID},
        "version": {"type": "integer", "minimum": 0},
        "origin": {"type": "string", "pattern": ORIGIN},
        "report_url": {"type": "string", "pattern": "^https?://"},
        "report_subject": S, "comment": S,
        "categories": {"type": "array", "items": {"type": "string"}},
        "culprit": obj({"code": {"type": "boolean"},
                        "tool": {"type": "boolean"},
                        "harness": {"type": "boolean"}}, []),
        "misc": {"type": "object"}}, ["id", "version", "origin"])},
    "incidents": {"type": "array", "items": obj({
        "id": {"type": "string", "pattern": ID},
        "origin": {"type": "string", "pattern": ORIGIN},
        "issue_id": {"type": "string", "pattern": ID},
        "issue_version": {"type": "integer", "minimum": 0},
        "test_id": {"type": "string", "pattern": ID},
        "build_id": {"type": "string", "pattern": ID},
        "present": {"type": "boolean"}},
        ["id", "origin", "issue_id", "issue_version"])},
}, ["version"])

doc = json.load(open(sys.argv[1]))
res = []
def check(cond, name):
    print(("ok - " if cond else "not ok - ") + "kcidb: " + name)
try:
    jsonschema.validate(doc, schema)
    check(True, "valid against the v5.3 rules")
except jsonschema.ValidationError as e:
    check(False, "valid against the v5.3 rules: %s at %s"
          % (e.message, list(e.absolute_path)))
def nulls(v):
    if v is None:
        return True
    if isinstance(v, dict):
        return any(nulls(x) for x in v.values())
    if isinstance(v, list):
        return any(nulls(x) for x in v)
    return False
check(not nulls(doc), "no null anywhere")
ids = {k: {o["id"] for o in doc[k]} for k in
       ("checkouts", "builds", "tests", "issues", "incidents")}
check(all(b["checkout_id"] in ids["checkouts"] for b in doc["builds"]),
      "every build names an exported checkout")
check(all(t["build_id"] in ids["builds"] for t in doc["tests"]),
      "every test names an exported build")
check(all(i["issue_id"] in ids["issues"] and i["test_id"] in ids["tests"]
          for i in doc["incidents"]), "incidents link issue and test")
check(len(doc["checkouts"]) == 2 and len(doc["builds"]) == 2,
      "a checkout and a build per kernel")
check(len(doc["tests"]) == 10, "a test per run")
check(all(t["path"] == "rtlab.cyclictest.hackbench" for t in doc["tests"]),
      "test path rtlab.cyclictest.hackbench")
check(len(doc["issues"]) == 1 and len(doc["incidents"]) == 5,
      "one issue, an incident per candidate run")
fails = sorted(t["misc"]["uuid"] for t in doc["tests"]
               if t["status"] == "FAIL")
linked = sorted(i["test_id"][len("rtlab:run-"):] for i in doc["incidents"])
check(fails == linked, "the regressed runs are the FAIL tests")
check(all(abs(t["number"]["value"] * 1e6 - t["misc"]["max_us"]) < 1e-6
          and t["number"]["unit"] == "s" for t in doc["tests"]),
      "number is max latency in seconds")
check(doc["issues"][0]["report_subject"].startswith("[PREEMPT_RT]"),
      "issue subject is the bug summary")
check(doc["issues"][0].get("report_url", "").endswith("show_bug.cgi?id=1000"),
      "issue links the filed bug")
EOF
# max_us of each run for the cross-check above
"$RTLAB" db psql -tAc "SELECT json_object_agg(r.uuid, (SELECT max(max_us)
	FROM histograms WHERE run_id = r.id)) FROM runs r" >"$work/max.json"
jq --slurpfile m "$work/max.json" \
	'.tests |= map(.misc.max_us = $m[0][.misc.uuid])' "$work/kcidb.json" \
	>"$work/kcidb-max.json"
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 "$work/kcidb-check.py" "$work/kcidb-max.json" 2>&1
else
	not_ok "python3 has jsonschema (scripts/deps.sh installs python3-jsonschema)"
fi
"$RTLAB" export kcidb --since 2999-01-01 -o "$work/later.json" 2>/dev/null
check "--since in the future: nothing but the version" \
	jqt '(.tests | length) == 0 and (.issues | length) == 0 and
		.version.major == 5' "$work/later.json"
"$RTLAB" export kcidb --since yesterdayish >/dev/null 2>"$work/since.err"
check "--since that is not a date: exit 1 naming it" \
	test $? = 1 -a -n "$(grep "'yesterdayish'" "$work/since.err")"
"$RTLAB" export kcidb --origin Bad-Name >/dev/null 2>&1
check "--origin with capitals: usage error (2)" test $? = 2
"$RTLAB" export kcidb --origin lab_2 >"$work/o2.json" 2>/dev/null
check "--origin lab_2 prefixes every id" jqt \
	'[.checkouts, .builds, .tests, .issues, .incidents] | flatten |
	all(.id | startswith("lab_2:")) and all(.origin == "lab_2")' \
	"$work/o2.json"
"$RTLAB" export csv >/dev/null 2>&1
check "an unknown export format: usage error (2)" test $? = 2
