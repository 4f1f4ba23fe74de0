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
if "$RTLAB" board list | grep -q '^local\b'; then
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
	say "run $id ($tc), as stored in PostgreSQL"
	"$RTLAB" show "$id"
	"$RTLAB" plot "$id" -o "$out/$tc.png"
	echo "plot: $out/$tc.png"
done

say "done"
echo "API:    $URL/api/v1/runs (while a server runs: rtlab server --listen 127.0.0.1:$PORT)"
echo "Stop the embedded PostgreSQL with: $RTLAB db stop"
