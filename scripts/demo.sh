#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The main job: a demo of the lab on its embedded defaults.  Starts the
# embedded PostgreSQL and the server on loopback, registers this host as the
# `local` board, measures it with the real cyclictest idle and under
# hackbench, uploads both runs, and prints what the lab stored.
# Re-running it adds two more runs.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
RTLAB=$build/rtlab
AGENT=$build/rtlab-agent
PORT=${RTLAB_DEMO_PORT:-8470}
DURATION=${RTLAB_DEMO_DURATION:-5}
URL=http://127.0.0.1:$PORT

say() { printf '\n== %s\n' "$*"; }

say "starting the embedded PostgreSQL"
"$RTLAB" db start
state=$("$RTLAB" db status | sed -n 's/^state dir: *//p')
out=$state/demo
mkdir -p "$out"

say "starting the server on $URL"
"$RTLAB" server --listen "127.0.0.1:$PORT" >"$out/server.log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null; wait $server_pid 2>/dev/null' EXIT INT TERM
i=0
until curl -fsS "$URL/healthz" >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 50 ] || ! kill -0 $server_pid 2>/dev/null; then
		echo "rtlab demo: the server did not come up; its log:" >&2
		cat "$out/server.log" >&2
		exit 1
	fi
	sleep 0.2
done

say "registering this host as board 'local'"
if "$RTLAB" board list 2>/dev/null | grep -q '^local\b'; then
	token=$("$RTLAB" board token local --quiet)
else
	token=$("$RTLAB" board add local --kind local --quiet)
fi

runs=""
for tc in cyclictest-idle cyclictest-hackbench; do
	say "measuring: $tc for ${DURATION}s (real cyclictest on this host)"
	"$AGENT" run --testcase "$top/testcases/$tc.yaml" --board local \
		--duration "$DURATION" --upload "$URL/api/v1/runs" \
		--token "$token" --spool "$out/spool" 2>&1 | tee "$out/$tc.upload"
	id=$(sed -n "s/.*run \([0-9a-f-]*\) stored.*/\1/p" "$out/$tc.upload" | tail -n 1)
	runs="$runs $tc:$id"
done

for r in $runs; do
	tc=${r%%:*} id=${r#*:}
	say "local board, $tc: run $id as stored in PostgreSQL"
	"$RTLAB" show "$id" | sed -n '/^kernel /p;/^CPU /,/^$/p'
	"$RTLAB" plot "$id" -o "$out/$tc.png" >/dev/null
	echo "plot: $out/$tc.png"
done

# -- the virtual board: Debian's PREEMPT_RT kernel and its non-RT twin -------
#
# QEMU with the icount clock (guest time follows executed instructions), so
# latencies measure the kernel's own code paths rather than this host's
# noise.  Process churn (hackbench start-ups forking hundreds of tasks) is
# the load that separates the two kernels.  Each run is one boot; two
# workers run the queue, one QEMU each.
VRUNS=${RTLAB_DEMO_VRUNS:-5}
VDURATION=${RTLAB_DEMO_VDURATION:-3}
TC=cyclictest-churn

say "virtual board: fetching Debian's RT and non-RT kernels (once)"
"$RTLAB" kernel fetch debian-rt
"$RTLAB" kernel fetch debian

say "registering the icount virtual board as 'vboard'"
printf '{"board": "qemu-icount"}\n' >"$out/vboard.json"
if "$RTLAB" board list 2>/dev/null | grep -q '^vboard\b'; then
	vtoken=$("$RTLAB" board token vboard --quiet)
else
	vtoken=$("$RTLAB" board add vboard --kind qemu \
		--definition "$out/vboard.json" --quiet)
fi

# drain_vboard: two workers run the queued vboard jobs, uploading each
# bundle through the server as the board would.
drain_vboard() {
	pids=""
	for w in 1 2; do
		"$RTLAB" worker --board vboard --drain --server "$URL" \
			--token "$vtoken" --name "demo-worker-$w" \
			>>"$out/worker-$w.log" 2>&1 &
		pids="$pids $!"
	done
	rc=0
	for p in $pids; do
		wait "$p" || rc=1
	done
	"$RTLAB" jobs --limit "$VRUNS"
	return $rc
}

# -- a night of the farm: Debian's PREEMPT_RT builds, newest two ----------------
#
# The farm follows Debian 12's PREEMPT_RT 6.1 series
# (kernels/trees/debian-6.1-rt.yaml): a tick asks apt for the tree's
# builds, queues the runs its two newest still need on the virtual board,
# the workers run them, and the newer build's runs are judged against the
# build before it as they land.  A verdict that cannot decide yet names its
# next look, and the next tick queues exactly those runs: the demo shows
# what that tick would queue (--dry-run) rather than spend the boots.
say "a night of the farm: the two newest builds of Debian's RT 6.1 tree, $VRUNS runs each"
cat >"$out/farm.yaml" <<YAML
matrix:
  - tree: debian-6.1-rt
    boards: [vboard]
    testcases: [$TC]
    kernels: 2
    runs: $VRUNS
    duration_s: $VDURATION
YAML
"$RTLAB" farm tick --schedule "$out/farm.yaml" --no-notify || true
drain_vboard || true
say "the farm's next tick (a dry run): only what the verdicts still ask for"
"$RTLAB" farm tick --schedule "$out/farm.yaml" --no-discover --dry-run || true
"$RTLAB" farm status
rt_release=$("$RTLAB" kernel fetch debian-rt | sed -n 's/^release: *//p')
"$RTLAB" plot trend --board vboard --testcase $TC --tree debian-6.1-rt \
	-o "$out/farm-trend.png" || true
"$RTLAB" plot longterm --board vboard --testcase $TC --tree debian-6.1-rt \
	-o "$out/farm-longterm.png" || true
echo "page:   $URL/farm"
nonrt_release=$("$RTLAB" kernel fetch debian | sed -n 's/^release: *//p')

# -- a developer's submission: a built kernel against the tree's latest ------
#
# A developer, with a token of their own, submits a built kernel (here the
# oldest build of the same tree: its bzImage, .config and the modules the
# board loads) and asks how it compares with the tree's latest tested
# build, the default baseline.  The
# workers run it; a tick settles the submission with a verdict (and would
# mail the tree's people).  The testcase's plan has one look meanwhile, so
# the first runs decide, and the tick's matrix is empty so that it only
# settles submissions.  A tree reference to build (`rtlab submit --git URL
# --ref REF`, kernels/README.md) goes the same way after a kernel build:
# `make check` shows it (tests/integration/build.sh).
oldest=$("$RTLAB" tree show --json debian-6.1-rt |
	jq -r '.[0] | .package + "=" + .version')
say "a developer submits a built kernel ($oldest): $VRUNS runs against the tree's latest tested build"
"$RTLAB" kernel fetch "$oldest" >"$out/oldest.txt"
old_rel=$(sed -n 's/^release: *//p' "$out/oldest.txt")
old_root=$(sed -n 's|^image: *\(.*\)/boot/vmlinuz-.*|\1|p' "$out/oldest.txt")
sh "$(dirname "$0")/submission-kernel.sh" "$old_root" "$old_rel" "$out/submission"
devtoken=$("$RTLAB" token add --role developer "demo-developer-$(date +%s)" --quiet)
printf 'matrix: []\n' >"$out/settle.yaml"
# one look: the submission is settled by its first $VRUNS runs a side
"$RTLAB" testcase set $TC --looks 1 >/dev/null
if "$RTLAB" submit --server "$URL" --token "$devtoken" \
	--image "$out/submission/bzImage" --config "$out/submission/config" \
	--modules "$out/submission/modules.tar" --board vboard --testcase $TC \
	--tree debian-6.1-rt --runs "$VRUNS" --duration "$VDURATION" \
	>"$out/submission.out"; then
	cat "$out/submission.out"
	sub=$(sed -n 's/^submission \([0-9]*\):.*/\1/p' "$out/submission.out")
	drain_vboard || true
	"$RTLAB" farm tick --schedule "$out/settle.yaml" --no-discover --no-notify || true
	echo "page:   $URL/submissions/$sub"
else
	cat "$out/submission.out"
fi
"$RTLAB" testcase set $TC --default looks >/dev/null

# The non-RT kernel's runs are judged against the RT kernel: pin it as the
# baseline of the non-RT kernel's series, so a verdict is stored as its
# runs land, as it would be for a nightly build of a tree.
"$RTLAB" baseline set --board vboard --testcase $TC --tree debian \
	--kernel "$rt_release"

say "non-RT kernel: $VRUNS runs of $TC (${VDURATION}s each) on the virtual board"
"$RTLAB" job add --kernel debian --board vboard --testcase $TC \
	--repeat "$VRUNS" --duration "$VDURATION" --quiet >/dev/null
drain_vboard || true

for rel in "$rt_release" "$nonrt_release"; do
	id=$("$RTLAB" runs --board vboard --kernel "$rel" --status complete \
		--limit 1 --json | jq -r '.[0].id // empty')
	[ -n "$id" ] || continue
	say "virtual board, kernel $rel: latest run $id"
	"$RTLAB" show "$id" | sed -n '/^CPU /,/^$/p'
	"$RTLAB" plot "$id" -o "$out/vboard-$rel.png" >/dev/null
	echo "plot: $out/vboard-$rel.png"
done

say "verdict: non-RT ($nonrt_release) against the RT baseline ($rt_release)"
"$RTLAB" compare --board vboard --testcase $TC --baseline "$rt_release" \
	--candidate "$nonrt_release" || true

# -- the lab checks itself: an injected latency must be caught ------------------
#
# Clean runs and runs with a SCHED_FIFO 99 spinner (2 ms, every 50 ms with
# a seeded jitter) on this host: the same kernel, the same testcase, so the
# only difference is the injected latency.
say "local board: $VRUNS clean runs and $VRUNS with an injected 2 ms latency"
clean="" injected=""
for i in $(seq "$VRUNS"); do
	for side in clean inject-user; do
		tcf=$top/testcases/calibrate-idle.yaml
		[ $side = inject-user ] && tcf=$top/testcases/calibrate-inject-user.yaml
		"$AGENT" run --testcase "$tcf" --board local --duration 3 \
			--upload "$URL/api/v1/runs" --token "$token" \
			--spool "$out/spool" >"$out/calibrate.upload" 2>&1 || true
		uuid=$(sed -n "s/.*run \([0-9a-f-]*\) stored.*/\1/p" "$out/calibrate.upload")
		id=$("$RTLAB" show "$uuid" --json | jq -r .id)
		printf '  %-12s run %s\n' "$side" "$id"
		if [ $side = clean ]; then clean="$clean,$id"; else injected="$injected,$id"; fi
	done
done
say "verdict: injected runs against clean runs of the same kernel"
"$RTLAB" compare --board local --testcase calibrate-idle \
	--baseline "$(uname -r)" --candidate "$(uname -r)" \
	--baseline-runs "${clean#,}" --candidate-runs "${injected#,}" \
	--store | tee "$out/inject-verdict.txt" |
	sed -n '/^verdict:/p;/^  METRIC/,$p'
inject_vid=$(sed -n 's/^stored as verdict //p' "$out/inject-verdict.txt")

# -- reports a maintainer reads ---------------------------------------------------
nonrt_vid=$("$RTLAB" verdicts --board vboard --testcase $TC --verdict REGRESSION \
	--limit 1 --json | jq -r '.[0].id // empty')
for v in "nonrt:$nonrt_vid" "injected:$inject_vid"; do
	name=${v%%:*} vid=${v#*:}
	[ -n "$vid" ] || { echo "no $name regression to report"; continue; }
	say "report of verdict $vid ($name): Bugzilla-ready, with plots and the spike's trace"
	"$RTLAB" report "$vid" -o "$out/report-$name" || true
	head -n 1 "$out/report-$name/report.txt"
	sed -n '/^== Spike analysis/,/^== Runs/p' "$out/report-$name/report.txt" |
		sed '$d'
	echo "files:  $out/report-$name/ (report.txt, report.html, bug.json, attachments/)"
	echo "page:   $URL/verdicts/$vid"
done

say "done"
echo "Web pages: $URL/ (overview), $URL/regressions, $URL/runs/ID"
echo "They are served while 'rtlab server' runs: $RTLAB server --listen 127.0.0.1:$PORT"
echo "File a report: $RTLAB report file VERDICT_ID --bugzilla URL (API key: RTLAB_BUGZILLA_API_KEY)"
echo "Stop the embedded PostgreSQL with: $RTLAB db stop"
