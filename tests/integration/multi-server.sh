#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Several servers, one PostgreSQL: the server keeps no state of its own,
# so a lab can run N of them behind a proxy (docs/deployment.md).  Two
# servers on one cluster take 200 distinct uploads from four concurrent
# uploaders spread over both, one of the servers is killed with SIGKILL
# mid-way and its uploaders go on through the other (as a proxy would
# send them): every acknowledged run is stored, none twice.  One run
# uploaded 20 times at once through both is stored once.  Two workers,
# each uploading through its own server, drain six jobs: each runs once.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-multiserver.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
export TMPDIR=$work
FIX=$TOP/tests/fixtures/cyclictest
NBUNDLES=200

need_db
sql() { "$RTLAB" db psql -X -q -t -A -c "$1"; }
TOKEN=$("$RTLAB" board add local1 --quiet 2>"$work/board.err")
check "board registered" test ${#TOKEN} = 64

mkdir "$work/s1" "$work/s2"
start_server "$work/s1" --threads 2 || { not_ok "server 1 starts"; exit 1; }
S1=$SPID
URL1=$URL
start_server "$work/s2" --threads 2 || { not_ok "server 2 starts"; exit 1; }
URL2=$URL
ok "two servers on one database ($URL1, $URL2)"

# bundles DIR N [UUID]: N bundles of board local1, distinct unless UUID
bundles() {
	mkdir -p "$1"
	python3 - "$1" "$FIX/idle.json" "$2" "${3:-}" <<'EOF'
import os, sys, uuid
sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
import bundletar
out, ctj, n, same = sys.argv[1], open(sys.argv[2], "rb").read(), \
    int(sys.argv[3]), sys.argv[4]
for i in range(n):
    rid = same or str(uuid.uuid4())
    files = {"cyclictest.json": ctj}
    m = {"format": "rtlab-bundle", "format_version": 1, "run_id": rid,
         "board": "local1", "status": "complete",
         "testcase": {"name": "multi-server", "duration_s": 3,
                      "hist_range_us": 100},
         "kernel": {"release": "6.1.0-57-rt-amd64"},
         "files": bundletar.files_entry(files)}
    open("%s/%04d-%s.tgz" % (out, i, rid), "wb").write(
        bundletar.tgz(m, files))
EOF
}
bundles "$work/b" $NBUNDLES
check "$NBUNDLES distinct bundles made" \
	test "$(ls "$work/b" | wc -l)" = $NBUNDLES

# post URL FILE: prints the HTTP status (000: no answer)
post() {
	curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 \
		-H "Authorization: Bearer $TOKEN" --data-binary @"$2" \
		"$1/api/v1/runs"
}
# uploader K: every fourth bundle, first through server 1 or 2 by K; a
# bundle not acknowledged goes to the other server, as a proxy retries.
uploader() {
	_k=0
	for _f in "$work"/b/*.tgz; do
		_k=$((_k + 1))
		[ $((_k % 4)) = "$1" ] || continue
		_u=$(basename "$_f" .tgz | cut -d- -f2-)
		_a=$URL1 _b=$URL2
		[ $(($1 % 2)) = 1 ] && _a=$URL2 _b=$URL1
		_n=0
		# 200: stored before, by a request whose answer was lost
		until post "$_a" "$_f" | grep -q '^20[01]$'; do
			_t=$_a _a=$_b _b=$_t
			_n=$((_n + 1))
			[ $_n -gt 100 ] && break
			sleep 0.1
		done
		[ $_n -le 100 ] && echo "$_u" >>"$work/acked.$1"
	done
}
lines() { cat "$@" 2>/dev/null | wc -l; }
for k in 0 1 2 3; do
	uploader $k &
	eval "U$k=\$!"
done
on_exit "kill $U0 $U1 $U2 $U3 2>/dev/null"
# Server 1 dies once a quarter of the uploads are in.
until [ "$(lines "$work"/acked.*)" -ge $((NBUNDLES / 4)) ]; do
	if ! kill -0 $U0 2>/dev/null && ! kill -0 $U1 2>/dev/null; then
		break
	fi
	sleep 0.05
done
kill -9 $S1
{ wait $S1; } 2>/dev/null
check "server 1 killed with SIGKILL after $(lines "$work"/acked.*) uploads" \
	test $? = 137
wait $U0 $U1 $U2 $U3
cat "$work"/acked.* | sort >"$work/acked"
sql "SELECT uuid FROM runs" | sort >"$work/stored"
check "every upload acknowledged ($(lines "$work/acked") of $NBUNDLES)" \
	test "$(lines "$work/acked")" = $NBUNDLES
check "every acknowledged run stored ($(comm -23 "$work/acked" "$work/stored" | wc -l) lost)" \
	test -z "$(comm -23 "$work/acked" "$work/stored")"
check "no run stored twice" \
	test "$(sql 'SELECT count(*) - count(DISTINCT uuid) FROM runs')" = 0
check "server 2 took uploads of its own and server 1's" \
	test "$(grep -c 'POST /api/v1/runs 201' "$work/s2/server.log")" -gt $((NBUNDLES / 2))

# One run, 20 copies at once, through server 2 and a new server 1.
mkdir "$work/s3"
start_server "$work/s3" --threads 2 || { not_ok "server 1 restarts"; exit 1; }
URL1=$URL
U=$(python3 -c 'import uuid; print(uuid.uuid4())')
bundles "$work/same" 1 "$U"
i=0
pids=
while [ $i -lt 20 ]; do
	i=$((i + 1))
	u=$URL1
	[ $((i % 2)) = 0 ] && u=$URL2
	post "$u" "$work/same/0000-$U.tgz" >"$work/same.$i" &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
check "20 copies of one run through two servers: one 201" \
	test "$(cat "$work"/same.* | grep -c 201)" = 1
check "... the other 19 answered 200 (duplicate): $(cat "$work"/same.* | sort | uniq -c | tr '\n' ' ')" \
	test "$(cat "$work"/same.* | grep -c 200)" = 19
check "... and it is stored once" \
	test "$(sql "SELECT count(*) FROM runs WHERE uuid = '$U'")" = 1

# Two workers, each uploading through its own server, race for six jobs.
"$RTLAB" job add --kernel host --board local1 --testcase cyclictest-idle \
	--duration 1 --repeat 6 --quiet >"$work/ids" 2>"$work/add.err"
check "6 jobs queued" test "$(grep -c '^[0-9][0-9]*$' "$work/ids")" = 6
"$RTLAB" worker --drain --board local1 --server "$URL1" --token "$TOKEN" \
	--name wA --lease 5 >"$work/wA.out" 2>"$work/wA.err" &
WA=$!
"$RTLAB" worker --drain --board local1 --server "$URL2" --token "$TOKEN" \
	--name wB --lease 5 >"$work/wB.out" 2>"$work/wB.err" &
WB=$!
wait $WA
RA=$?
wait $WB
RB=$?
check "both workers drain and exit 0 ($RA, $RB)" test $RA = 0 -a $RB = 0
[ $RA = 0 ] && [ $RB = 0 ] || cat "$work/wA.err" "$work/wB.err"
check "all 6 jobs done" \
	test "$(sql "SELECT count(*) FROM jobs WHERE state = 'done'")" = 6
check "every job ran exactly once (one run, one attempt)" \
	test "$(sql 'SELECT count(*) FROM jobs j WHERE attempts <> 1 OR
		(SELECT count(*) FROM runs r WHERE r.job_id = j.id) <> 1')" = 0
