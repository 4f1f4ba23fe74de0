#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/farm.sh [JOBS]: the farm's scheduling overhead with JOBS (default
# 10000) jobs already queued, in a throwaway embedded PostgreSQL: the cost
# per job of a tick that queues the runs of 50 new kernels x 2 testcases,
# of a tick that finds nothing to queue (per cell), of `rtlab job add`,
# and of picking the most urgent job the way a worker claims it.  Prints
# figures; asserts nothing.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
RTLAB=$build/rtlab
jobs=${1:-10000}

RTLAB_STATE_DIR=$(mktemp -d /tmp/rtlab-bench.XXXXXX)
chmod 755 "$RTLAB_STATE_DIR"
export RTLAB_STATE_DIR
unset RTLAB_DB RTLAB_CONFIG
cleanup() {
	"$RTLAB" db stop >/dev/null 2>&1 || true
	rm -rf "$RTLAB_STATE_DIR"
}
trap cleanup EXIT INT TERM
now() { date +%s.%N; }
ms() { echo "$1 $2 $3" | awk '{printf "%.3f", ($2 - $1) * 1000 / $3}'; }
sql() { "$RTLAB" db psql -X -q -t -A -c "$1"; }

"$RTLAB" db start >/dev/null
echo '{"board": "qemu-icount"}' >"$RTLAB_STATE_DIR/vb.json"
"$RTLAB" board add vb --kind qemu --definition "$RTLAB_STATE_DIR/vb.json" \
	--quiet >/dev/null
# JOBS queued jobs of other kernels, nightly and by hand, on the board
sql "INSERT INTO testcases (name) VALUES ('cyclictest-idle'), ('cyclictest-churn') ON CONFLICT DO NOTHING;
     INSERT INTO jobs (board_id, testcase_id, kernel, testcase_file, duration_s, priority, origin)
     SELECT (SELECT id FROM boards WHERE name = 'vb'), (SELECT min(id) FROM testcases),
            'old-' || (g % 500), '$top/testcases/cyclictest-idle.yaml', 10,
            CASE WHEN g % 3 = 0 THEN 50 ELSE 10 END, 'farm'
       FROM generate_series(1, $jobs) g; ANALYZE jobs" >/dev/null
# a tree of 50 kernels, recorded as discovered
printf 'kind: debian-series\npackages: linux-image-bench-*-rt\n' \
	>"$RTLAB_STATE_DIR/bench.yaml"
sql "INSERT INTO tree_kernels (tree, package, version, position)
     SELECT 'bench', 'linux-image-bench-' || g || '-rt', '6.1.' || g || '-1', g
       FROM generate_series(0, 49) g" >/dev/null
cat >"$RTLAB_STATE_DIR/farm.yaml" <<YAML
matrix:
  - tree: $RTLAB_STATE_DIR/bench.yaml
    boards: [vb]
    testcases: [cyclictest-idle, cyclictest-churn]
    kernels: 50
    runs: 5
YAML
t0=$(now)
"$RTLAB" farm tick --no-discover --no-notify \
	--schedule "$RTLAB_STATE_DIR/farm.yaml" >"$RTLAB_STATE_DIR/t1.out"
t1=$(now)
q=$(sed -n 's/^tick: .* \([0-9]*\) jobs queued.*/\1/p' "$RTLAB_STATE_DIR/t1.out")
echo "queued before: $jobs jobs"
echo "tick queueing $q jobs (50 kernels x 2 testcases x 5 runs): $(ms "$t0" "$t1" 1) ms, $(ms "$t0" "$t1" "$q") ms per queued job"
t0=$(now)
"$RTLAB" farm tick --no-discover --no-notify \
	--schedule "$RTLAB_STATE_DIR/farm.yaml" >"$RTLAB_STATE_DIR/t2.out"
t1=$(now)
echo "tick with nothing to queue (100 cells): $(ms "$t0" "$t1" 1) ms, $(ms "$t0" "$t1" 100) ms per cell"
t0=$(now)
"$RTLAB" job add --kernel debian-rt --board vb --testcase cyclictest-idle \
	--repeat 1000 --quiet >/dev/null
t1=$(now)
echo "rtlab job add --repeat 1000: $(ms "$t0" "$t1" 1000) ms per job"
# the claim's choice: the most urgent claimable job, 200 times
sql "PREPARE pick AS SELECT c.id FROM jobs c JOIN boards cb ON cb.id = c.board_id
       WHERE (c.state = 'queued' OR (c.state = 'running' AND c.lease_until < now()))
         AND c.attempts < c.max_attempts AND cb.name = 'vb'
         AND cb.kind = ANY('{local,qemu}'::text[])
       ORDER BY c.priority DESC, c.id FOR UPDATE OF c SKIP LOCKED LIMIT 1" >/dev/null 2>&1 || true
n=200
i=0
: >"$RTLAB_STATE_DIR/pick.sql"
while [ $i -lt $n ]; do
	echo "SELECT c.id FROM jobs c JOIN boards cb ON cb.id = c.board_id WHERE (c.state = 'queued' OR (c.state = 'running' AND c.lease_until < now())) AND c.attempts < c.max_attempts AND cb.name = 'vb' AND cb.kind = ANY('{local,qemu}'::text[]) ORDER BY c.priority DESC, c.id FOR UPDATE OF c SKIP LOCKED LIMIT 1;" >>"$RTLAB_STATE_DIR/pick.sql"
	i=$((i + 1))
done
t0=$(now)
"$RTLAB" db psql -X -q -t -A -f "$RTLAB_STATE_DIR/pick.sql" >/dev/null
t1=$(now)
echo "a worker's pick of the most urgent of $(sql "SELECT count(*) FROM jobs WHERE state = 'queued'") queued jobs: $(ms "$t0" "$t1" "$n") ms"
