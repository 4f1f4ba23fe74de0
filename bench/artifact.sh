#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/artifact.sh [MB [CLIENTS]]: the server's memory while it serves a
# large stored artifact.  Starts a throwaway embedded PostgreSQL and the
# server on loopback, stores a run with an MB-MiB artifact (500), then
# downloads it CLIENTS times at once (2) and prints the server's resident
# memory before and its peak during the downloads, and each download's
# time and size.  An upload may carry at most 64 MiB per file
# (lib/run-limits.h), so the run is uploaded with an 8 MiB artifact that
# is then grown in the database to MB MiB: the bench measures serving.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
RTLAB=$build/rtlab
mb=${1:-500}
clients=${2:-2}
port=${RTLAB_BENCH_PORT:-8473}

RTLAB_STATE_DIR=$(mktemp -d /tmp/rtlab-bench.XXXXXX)
chmod 755 "$RTLAB_STATE_DIR"
export RTLAB_STATE_DIR
unset RTLAB_DB RTLAB_CONFIG
work=$RTLAB_STATE_DIR
server_pid=""
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	"$RTLAB" db stop >/dev/null 2>&1 || true
	rm -rf "$RTLAB_STATE_DIR"
}
trap cleanup EXIT INT TERM

"$RTLAB" db start >/dev/null
"$RTLAB" server --listen "127.0.0.1:$port" --quiet >"$work/server.log" 2>&1 &
server_pid=$!
until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do sleep 0.2; done
token=$("$RTLAB" board add bench --quiet)

# A bundle whose chunk.bin member is 8 MiB of a repeating pattern.
RTLAB_TOP=$top python3 - "$work/big.tgz" 8 \
	"$top/tests/fixtures/cyclictest/idle.json" <<'EOF'
import os, sys, uuid
sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
import bundletar
out, mb, ctj = sys.argv[1], int(sys.argv[2]), open(sys.argv[3], "rb").read()
big = (b"rtlab-artifact-" + bytes(range(256))) * (mb * 1048576 // 271 + 1)
files = {"cyclictest.json": ctj, "chunk.bin": big[:mb * 1048576]}
m = {"format": "rtlab-bundle", "format_version": 1,
     "run_id": str(uuid.uuid4()), "board": "bench", "status": "complete",
     "testcase": {"name": "bench-artifact", "duration_s": 3,
                  "hist_range_us": 100},
     "kernel": {"release": "6.1.0-57-rt-amd64"},
     "files": bundletar.files_entry(files)}
open(out, "wb").write(bundletar.tgz(m, files))
EOF
run=$(curl -fsS -H "Authorization: Bearer $token" \
	--data-binary @"$work/big.tgz" "http://127.0.0.1:$port/api/v1/runs" |
	sed -n 's/.*"id": *\([0-9]*\).*/\1/p')
[ -n "$run" ] || { echo "artifact: the upload was not stored" >&2; exit 1; }
# big.bin: chunk.bin MB/8 times over (and its sha256), written by SQL
"$RTLAB" db psql -q -v ON_ERROR_STOP=1 <<SQL
INSERT INTO artifacts (run_id, name, content_type, size, sha256, data)
SELECT $run, 'big.bin', content_type, 0, '', string_agg(data, ''::bytea)
  FROM artifacts, generate_series(1, ($mb + 7) / 8)
 WHERE run_id = $run AND name = 'chunk.bin' GROUP BY content_type;
UPDATE artifacts SET size = length(data), sha256 = encode(sha256(data), 'hex')
 WHERE run_id = $run AND name = 'big.bin';
SQL

rss_kb() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$server_pid/status"; }
before=$(rss_kb VmRSS)
i=0
pids=
while [ $i -lt "$clients" ]; do
	i=$((i + 1))
	curl -sS -o /dev/null -w "download $i: %{size_download} bytes in %{time_total} s\n" \
		"http://127.0.0.1:$port/api/v1/runs/$run/artifacts/big.bin" \
		>"$work/dl.$i" &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
cat "$work"/dl.*
peak=$(rss_kb VmHWM)
echo "server RSS: $((before / 1024)) MB before, peak $((peak / 1024)) MB" \
	"while serving a $(( (mb + 7) / 8 * 8 )) MiB artifact $clients times at once"
