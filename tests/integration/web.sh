#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The maintainers' pages end to end: a throwaway PostgreSQL, a real
# `rtlab server` on loopback, bundles built from the cyclictest fixtures
# for two kernels of one tree (5 runs each, so the verdict engine stores
# a verdict by itself), a spike analysis and a written report.  Every
# page is loaded in real headless Chromium: its rendered DOM must hold the
# fixture runs' figures, a screenshot must be rendered, and each plot it
# shows must be a real PNG or SVG.  Also: unknown run and verdict give a
# 404 page, a testcase named like a script tag stays text, the plot
# endpoints refuse bad queries, and `rtlab plot compare|trend` write the
# same kinds of images.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/web/chromium.sh"

work=$(mktemp -d /tmp/rtlab-webtest.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
FIX=$TOP/tests/fixtures/cyclictest
CHROMIUM_LOG=$work/chromium.log

if ! command -v "$CHROMIUM" >/dev/null; then
	not_ok "chromium is installed (make deps)"
	exit 1
fi

need_db

TOKEN=$("$RTLAB" board add web1 --kind qemu --quiet 2>"$work/board.err")
check "board web1 registered" test ${#TOKEN} = 64

start_server "$work" --threads 3 || { not_ok "server starts"; exit 1; }
check "server listens on a loopback port" test -n "$PORT"

# -- fixture runs ---------------------------------------------------------
# A bundle as the agent builds it, around a real cyclictest --json file.
cat >"$work/mkbundle.py" <<'PYEOF'
import argparse, json, os, sys, uuid
sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
import bundletar

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--json", required=True)
ap.add_argument("--range", type=int, required=True)
ap.add_argument("--release", required=True)
ap.add_argument("--testcase", default="cyclictest-idle")
ap.add_argument("--trace", action="store_true")
a = ap.parse_args()

files = {"cyclictest.json": open(a.json, "rb").read(),
         "dmesg.txt": b"[    0.000000] Linux version " +
                      a.release.encode() + b"\n",
         "console.log": b"Booting\nrtlab-agent: done\n"}
if a.trace:
    files["trace.dat"] = b"\x17\x08\x44tracing6" + bytes(range(256)) * 16
m = {"format": "rtlab-bundle", "format_version": 1,
     "run_id": str(uuid.uuid4()), "board": "web1", "status": "complete",
     "testcase": {"name": a.testcase, "duration_s": 3,
                  "hist_range_us": a.range,
                  "definition": {"measurement": {"tool": "cyclictest"}}},
     "kernel": {"release": a.release,
                "version": "#1 SMP PREEMPT_RT Debian 6.1.192-3",
                "realtime": True, "config_sha256": "ab" * 32,
                "name": "debian-rt", "tree": "debian-rt"},
     "environment": {"cmdline": "console=ttyS0 isolcpus=1", "cpus": 2,
                     "cpu_model": "QEMU TCG", "clock": "icount:3"},
     "commands": ["cyclictest -m -p90 -i1000 -t -h %d" % a.range],
     "started_at": "2026-12-03T03:14:08Z",
     "finished_at": "2026-12-03T03:14:12Z",
     "files": bundletar.files_entry(files)}
open(a.out, "wb").write(bundletar.tgz(m, files))
PYEOF

sql() {
	"$RTLAB" db psql -tAc "$1" 2>>"$work/psql.err"
}

K1=6.1.0-41-rt-amd64
K2=6.1.0-42-rt-amd64
stored=0
for i in 1 2 3 4 5; do
	python3 "$work/mkbundle.py" --out "$work/k1-$i.bundle" \
		--json "$FIX/idle.json" --range 100 --release $K1 \
		$([ $i = 5 ] && echo --trace)
	[ "$(upload "$work/k1-$i.bundle")" = 201 ] && stored=$((stored + 1))
done
for i in 1 2 3 4 5; do
	python3 "$work/mkbundle.py" --out "$work/k2-$i.bundle" \
		--json "$FIX/hackbench.json" --range 200 --release $K2
	[ "$(upload "$work/k2-$i.bundle")" = 201 ] && stored=$((stored + 1))
done
check "10 fixture runs stored (5 idle on $K1, 5 hackbench on $K2)" \
	test $stored = 10
XSS='<script>document.title="pwned"</script>'
python3 "$work/mkbundle.py" --out "$work/xss.bundle" \
	--json "$FIX/histofall.json" --range 40 --release $K2 \
	--testcase "$XSS"
check "a run whose testcase is named like a script tag is stored" \
	test "$(upload "$work/xss.bundle")" = 201

RUN1=$(sql "SELECT min(r.id) FROM runs r JOIN kernels k ON k.id = r.kernel_id
	    WHERE k.release = '$K1'")
TRACED=$(sql "SELECT run_id FROM artifacts WHERE name = 'trace.dat'")
RUN2=$(sql "SELECT max(r.id) FROM runs r JOIN kernels k ON k.id = r.kernel_id
	    JOIN testcases t ON t.id = r.testcase_id
	    WHERE k.release = '$K2' AND t.name = 'cyclictest-idle'")
XRUN=$(sql "SELECT r.id FROM runs r JOIN testcases t ON t.id = r.testcase_id
	    WHERE t.name LIKE '<script>%'")
VID=$(sql "SELECT max(id) FROM verdicts")
VERDICT=$(sql "SELECT verdict FROM verdicts WHERE id = ${VID:-0}")
check "the verdict engine stored a verdict of $K2 against $K1 ($VERDICT)" \
	test -n "$VID" -a -n "$VERDICT"
check "... a REGRESSION (idle -> hackbench tail)" test "$VERDICT" = REGRESSION

# A stored spike analysis on the traced run, as 'rtlab analyze --store'
# leaves it.
SPIKE='## CPU 0 hit stop tracing, analyzing it ##
  IRQ handler delay: 12.00 us (2.1 %) <irq/24-eth0>'
printf '%s\n' "$SPIKE" >"$work/spike.txt"
sql "INSERT INTO artifacts (run_id, name, content_type, size, sha256, data)
     VALUES ($TRACED, 'spike.txt', 'text/plain', $(wc -c <"$work/spike.txt"),
     '$(sha256sum "$work/spike.txt" | cut -c1-64)',
     decode('$(od -An -v -tx1 "$work/spike.txt" | tr -d ' \n')', 'hex'))" \
	>/dev/null
check "spike analysis stored with run $TRACED" \
	test "$(sql "SELECT count(*) FROM artifacts WHERE name = 'spike.txt'")" = 1

"$RTLAB" report "$VID" -o "$work/report" >"$work/report.out" 2>&1
check "rtlab report writes and records the verdict's report" \
	test "$(sql "SELECT count(*) FROM reports WHERE verdict_id = $VID")" = 1

# Expected figures, from what the server stored.
fig() { sql "SELECT $1 FROM histograms h JOIN runs r ON r.id = h.run_id
	     JOIN kernels k ON k.id = r.kernel_id
	     JOIN testcases t ON t.id = r.testcase_id
	     WHERE k.release = '$2' AND t.name = 'cyclictest-idle'"; }
MAX1=$(fig 'max(h.max_us)' $K1)
P1=$(fig 'max(h.p999_us)' $K1)
MAX2=$(fig 'max(h.max_us)' $K2)
P2=$(fig 'max(h.p999_us)' $K2)
check "fixture figures known ($K1: max $MAX1 p99.9 $P1; $K2: max $MAX2 p99.9 $P2)" \
	test -n "$MAX1" -a -n "$P1" -a -n "$MAX2" -a -n "$P2"

# -- pages in Chromium ----------------------------------------------------

# page NAME PATH: loads PATH in Chromium into $work/NAME.dom and
# $work/NAME.png; the raw answer lands in $work/NAME.html.
page() {
	_st=$(curl -s -o "$work/$1.html" -w '%{http_code} %{content_type}' \
		"$URL$2")
	check "$2: 200 text/html; charset=utf-8" \
		test "$_st" = "200 text/html; charset=utf-8"
	chromium_dom "$URL$2" "$work/$1.dom"
	check "$2: Chromium renders a DOM" grep -q '</html>' "$work/$1.dom"
	chromium_shot "$URL$2" "$work/$1.png"
	check "$2: Chromium screenshot is a PNG of some substance" \
		is_image "$work/$1.png" png 5000
}

# is_image FILE png|svg MINBYTES
is_image() {
	[ -f "$1" ] && [ "$(wc -c <"$1")" -ge "$3" ] || return 1
	case $2 in
	png) [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = \
	       89504e470d0a1a0a ] ;;
	svg) head -c 2000 "$1" | grep -q '<svg' &&
	     tail -c 100 "$1" | grep -q '</svg>' ;;
	esac
}

# imgs NAME: every <img src> of page NAME's DOM, one per line, unescaped
imgs() {
	grep -o '<img[^>]*src="[^"]*"' "$work/$1.dom" |
		sed 's/.*src="\([^"]*\)"/\1/; s/&amp;/\&/g'
}

# check_imgs NAME N: the page shows N images, each a real PNG or SVG
check_imgs() {
	_n=0
	_good=0
	for _src in $(imgs "$1"); do
		_n=$((_n + 1))
		case $_src in
		/*) _u=$URL$_src ;;
		*) _u=$_src ;;
		esac
		_f=$work/$1-img$_n
		_st=$(curl -s -o "$_f" -w '%{http_code}' "$_u")
		case $_src in
		*.svg*) _kind=svg ;;
		*) _kind=png ;;
		esac
		if [ "$_st" = 200 ] && is_image "$_f" $_kind 2000; then
			_good=$((_good + 1))
		else
			echo "# $_src: status $_st, $(head -c 200 "$_f")"
		fi
	done
	check "$1: $2 plot images, each a real image ($_good of $_n)" \
		test $_n = "$2" -a $_good = "$2"
}

page overview /
check "/: a row for web1 / cyclictest-idle" \
	grep -q 'web1 / cyclictest-idle' "$work/overview.dom"
check "/: both kernels as columns" \
	sh -c "grep -q '$K1' '$work/overview.dom' &&
	       grep -q '$K2' '$work/overview.dom'"
check "/: $K1 cell shows max $MAX1 µs and p99.9 $P1 µs" \
	grep -q "max $MAX1 µs<br>p99.9 $P1 µs" "$work/overview.dom"
check "/: $K2 cell shows max $MAX2 µs and p99.9 $P2 µs" \
	grep -q "max $MAX2 µs<br>p99.9 $P2 µs" "$work/overview.dom"
check "/: the $K2 cell is coloured by its verdict and links to it" \
	grep -q "class=\"cell v-$(echo "$VERDICT" | tr A-Z a-z)\"><a href=\"/verdicts/$VID\"" \
	"$work/overview.dom"
check "/: the $K1 cell (no verdict) is white and links to its run" \
	grep -q 'class="cell v-none"><a href="/runs/' "$work/overview.dom"

page run /runs/$TRACED
check "/runs/$TRACED: the run's figures per CPU (max $MAX1)" \
	grep -q "<td class=\"num\">$MAX1</td></tr>" "$work/run.dom"
check "/runs/$TRACED: its environment (cmdline)" \
	grep -q 'console=ttyS0 isolcpus=1' "$work/run.dom"
check "/runs/$TRACED: trace download link" \
	grep -q "href=\"/api/v1/runs/$TRACED/trace.dat\"" "$work/run.dom"
check "/runs/$TRACED: the spike analysis, escaped" \
	grep -q 'IRQ handler delay: 12.00 us (2.1 %) &lt;irq/24-eth0&gt;' \
	"$work/run.dom"
check "/runs/$TRACED: artifacts listed with links" \
	grep -q "href=\"/api/v1/runs/$TRACED/artifacts/cyclictest.json\"" \
	"$work/run.dom"
check_imgs run 1
check "/runs/$TRACED: the trace link answers with the bytes" \
	test "$(get /api/v1/runs/$TRACED/trace.dat)" = 200

chromium_dom "$URL/runs/$RUN2" "$work/run2.dom"
check "/runs/$RUN2 (no trace, no analysis) says so" \
	sh -c "grep -q 'No trace captured' '$work/run2.dom' &&
	       grep -q 'no analysis' '$work/run2.dom'"
check "/runs/$RUN2: hackbench figures (max $MAX2)" \
	grep -q "<td class=\"num\">$MAX2</td></tr>" "$work/run2.dom"

page regressions /regressions
check "/regressions: lists verdict $VID" \
	grep -q "<a href=\"/verdicts/$VID\">$VID</a>" "$work/regressions.dom"
check "/regressions: with its kernels and max figures" \
	sh -c "grep -q '$K1 → $K2' '$work/regressions.dom' &&
	       grep -q 'µs → [0-9.]* µs' '$work/regressions.dom'"

page verdict /verdicts/$VID
check "/verdicts/$VID: the verdict" \
	grep -q "Verdict $VID: <span class=\"badge v-" "$work/verdict.dom"
check "/verdicts/$VID: metrics table with max baseline → candidate" \
	grep -q "<th>max</th><td>[A-Z_]*</td><td class=\"num\">$MAX1 µs → $MAX2 µs" \
	"$work/verdict.dom"
check "/verdicts/$VID: p99.9 row with interval and test" \
	grep -q '<th>p99.9</th>.*\[.*\]' "$work/verdict.dom"
check "/verdicts/$VID: links every run of both sides" \
	test "$(grep -o 'href="/runs/[0-9]*"' "$work/verdict.dom" | sort -u |
		wc -l)" = 10
check_imgs verdict 3
check "/verdicts/$VID: links the report's files" \
	grep -q "href=\"/verdicts/$VID/report/report.txt\"" "$work/verdict.dom"
check "/verdicts/$VID/report/report.txt is the written report" \
	sh -c "[ \"\$(curl -s -o '$work/rep.txt' -w '%{http_code}' \
		'$URL/verdicts/$VID/report/report.txt')\" = 200 ] &&
		cmp -s '$work/rep.txt' '$work/report/report.txt'"
ATT=$(grep -o "/verdicts/$VID/report/attachments/[^\"]*" \
	"$work/verdict.dom" | head -1)
check "/verdicts/$VID: an attachment link answers JSON ($ATT)" \
	sh -c "[ -n '$ATT' ] && curl -sf '$URL$ATT' | jq -e .file_name >/dev/null"
check "a file the report did not record: 404" \
	test "$(get "/verdicts/$VID/report/..%2F..%2Fetc%2Fpasswd")" = 404

# -- not found and escaping -------------------------------------------------
st=$(curl -s -o "$work/nf.html" -w '%{http_code} %{content_type}' \
	"$URL/runs/999999")
check "/runs/999999: 404 text/html" \
	test "$st" = "404 text/html; charset=utf-8"
chromium_dom "$URL/runs/999999" "$work/nf.dom"
check "... a page that says the run was not found" \
	grep -q "run '999999' not found" "$work/nf.dom"
check "/verdicts/999999: 404 page" \
	test "$(get /verdicts/999999)" = 404
check "/verdicts/abc: 404 page" test "$(get /verdicts/abc)" = 404
check "/runs/ with a uuid of no run: 404" \
	test "$(get /runs/01234567-89ab-cdef-0123-456789abcdef)" = 404

chromium_dom "$URL/runs/$XRUN" "$work/xss.dom"
check "script-named testcase: its run page shows the name as text" \
	grep -qF '&lt;script&gt;document.title="pwned"&lt;/script&gt;' \
	"$work/xss.dom"
check "... and the script did not run" \
	sh -c "! grep -q '<title>pwned' '$work/xss.dom' &&
	       grep -q '<title>Run $XRUN' '$work/xss.dom'"
chromium_dom "$URL/" "$work/xss-overview.dom"
check "... nor on the overview, where the name is text too" \
	sh -c "! grep -q '<title>pwned' '$work/xss-overview.dom' &&
	       grep -qF 'web1 / &lt;script&gt;' '$work/xss-overview.dom'"
curl -s "$URL/" >"$work/raw.html"
check "... and the raw HTML never holds the tag" \
	sh -c "! grep -qF '<script>document' '$work/raw.html'"

# -- plot endpoints and the command line ------------------------------------
check "compare.png without candidate: 400" \
	test "$(get "/api/v1/plots/compare.png?board=web1&testcase=cyclictest-idle&baseline=$K1")" = 400
check "trend.svg of an unknown board: 404" \
	test "$(get "/api/v1/plots/trend.svg?board=nope&testcase=cyclictest-idle")" = 404
check "compare.png of an unknown kernel: 404" \
	test "$(get "/api/v1/plots/compare.png?board=web1&testcase=cyclictest-idle&baseline=9.9&candidate=$K2")" = 404
get "/api/v1/plots/compare.png?board=web1&testcase=cyclictest-idle&baseline=$K1&candidate=$K2" >/dev/null
check "compare.png by release: a PNG" is_image "$work/resp" png 5000
cp "$work/resp" "$work/compare.png"
get "/api/v1/plots/trend.png?board=web1&testcase=cyclictest-idle&tree=debian-rt" >/dev/null
check "trend.png by tree: a PNG" is_image "$work/resp" png 5000
get "/api/v1/plots/longterm.svg?board=web1&testcase=cyclictest-idle&tree=debian-rt" >/dev/null
check "longterm.svg by tree: an SVG naming both kernels" \
	sh -c "is_image() { :; }; grep -q 'long-term view of tree' '$work/resp' &&
	       grep -q '$K1' '$work/resp' && grep -q '$K2' '$work/resp' &&
	       grep -q '2 kernel(s), oldest at the bottom' '$work/resp'"
check "longterm.png?kernels=0: 400 naming the range" \
	test "$(get "/api/v1/plots/longterm.png?board=web1&testcase=cyclictest-idle&kernels=0")" = 400
check "POST on a page: 405" \
	test "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/regressions")" = 405

"$RTLAB" plot compare --board web1 --testcase cyclictest-idle \
	--baseline $K1 --candidate $K2 -o "$work/cmp.svg" >"$work/plot.out" 2>&1
check "rtlab plot compare -o F.svg: an SVG" is_image "$work/cmp.svg" svg 2000
check "... naming both releases with their run counts" \
	sh -c "grep -q 'baseline $K1, 5 runs' '$work/cmp.svg' &&
	       grep -q 'candidate $K2, 5 runs' '$work/cmp.svg'"
"$RTLAB" plot trend --board web1 --testcase cyclictest-idle --tree debian-rt \
	-o "$work/trend.png" >>"$work/plot.out" 2>&1
check "rtlab plot trend -o F.png: a PNG" is_image "$work/trend.png" png 5000
"$RTLAB" plot trend --board web1 -o "$work/x.png" >/dev/null 2>&1
check "rtlab plot trend without --testcase: usage error (2)" test $? = 2
"$RTLAB" plot longterm --board web1 --testcase cyclictest-idle \
	--tree debian-rt --kernels 1 -o "$work/lt.png" >>"$work/plot.out" 2>&1
check "rtlab plot longterm --kernels 1 -o F.png: a PNG" \
	is_image "$work/lt.png" png 5000
"$RTLAB" plot longterm --board web1 --testcase cyclictest-idle \
	--kernels 501 -o "$work/x.png" >/dev/null 2>"$work/plot.err"
check "rtlab plot longterm --kernels 501: usage error naming the range" \
	sh -c "[ $? = 2 ] && grep -q 'expected a number from 1 to 500' '$work/plot.err'"
"$RTLAB" plot compare --board web1 --testcase cyclictest-idle \
	--baseline $K1 --candidate 9.9-nope -o "$work/x.png" \
	>/dev/null 2>"$work/plot.err"
check "rtlab plot compare of an unknown kernel: 1, naming it" \
	sh -c "[ $? = 1 ] && grep -q '9.9-nope' '$work/plot.err'"

# RTLAB_WEB_KEEP=DIR keeps the screenshots and plots to look at, and a
# full-length screenshot of the verdict page.
if [ -n "$RTLAB_WEB_KEEP" ]; then
	cp "$work"/*.png "$RTLAB_WEB_KEEP"/ 2>/dev/null
	_chromium --window-size=1200,3000 --hide-scrollbars \
		--screenshot="$RTLAB_WEB_KEEP/verdict-full.png" \
		"$URL/verdicts/$VID" >/dev/null
fi
