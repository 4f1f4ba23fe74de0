#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# An upload answered 2xx must be durable: the agent deletes its copy on
# that answer.  Two background loops upload distinct bundles and record
# every uuid the server acknowledged; once some are acknowledged the whole
# PostgreSQL server (postmaster and backends) is killed with SIGKILL
# mid-loop, restarted with 'rtlab db start' (crash recovery), and every
# acknowledged uuid must be in the database.  The server must also take
# uploads again once the database is back.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-durability.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
FIX=$TOP/tests/fixtures/cyclictest
NBUNDLES=400

need_db
TOKEN=$("$RTLAB" board add dur1 --quiet 2>"$work/board.err")
check "board registered" test ${#TOKEN} = 64
start_server "$work" --threads 4 || { not_ok "server starts"; exit 1; }
ok "server starts"
API=$URL/api/v1/runs

# Distinct bundles, made up front: one file per run, named by its uuid.
mkdir -p "$work/b"
python3 - "$work/b" "$FIX/idle.json" "$NBUNDLES" <<'EOF'
import json, os, sys, uuid
sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
import bundletar
out, ctj, n = sys.argv[1], open(sys.argv[2], "rb").read(), int(sys.argv[3])
for i in range(n):
    rid = str(uuid.uuid4())
    files = {"cyclictest.json": ctj}
    m = {"format": "rtlab-bundle", "format_version": 1, "run_id": rid,
         "board": "dur1", "status": "complete",
         "testcase": {"name": "durability", "duration_s": 3,
                      "hist_range_us": 100},
         "kernel": {"release": "6.1.0-57-rt-amd64"},
         "files": bundletar.files_entry(files)}
    tgz = bundletar.tgz(m, files)
    open("%s/%04d-%s.tgz" % (out, i, rid), "wb").write(tgz)
EOF
check "$NBUNDLES distinct bundles made" \
	test "$(ls "$work/b" | wc -l)" = $NBUNDLES

# uploader N: every other bundle; an acknowledged uuid goes to acked.N,
# a refusal to failed.N.  Like the agent's spool, a refused bundle is
# tried again until it is acknowledged, so the uploaders are still at
# work when the database comes back however long its restart takes.
# Stops when $work/stop appears.
uploader() {
	_k=0
	for _f in "$work"/b/*.tgz; do
		_k=$((_k + 1))
		[ $((_k % 2)) = "$1" ] || continue
		_u=$(basename "$_f" .tgz | cut -d- -f2-)
		while [ ! -e "$work/stop" ]; do
			_st=$(curl -s -o /dev/null -w '%{http_code}' \
				--max-time 30 -H "Authorization: Bearer $TOKEN" \
				--data-binary @"$_f" "$API")
			case $_st in
			2??)
				echo "$_u" >>"$work/acked.$1"
				break
				;;
			esac
			echo "$_u $_st" >>"$work/failed.$1"
			sleep 0.1
		done
		[ -e "$work/stop" ] && break
	done
}
lines() { cat "$@" 2>/dev/null | wc -l; }
# wait_for WHAT CMD...: until CMD succeeds, while the uploaders run
wait_for() {
	_what=$1
	shift
	until "$@"; do
		if ! kill -0 $U0 2>/dev/null && ! kill -0 $U1 2>/dev/null; then
			echo "# the uploaders ended before: $_what"
			return 1
		fi
		sleep 0.05
	done
}

uploader 0 &
U0=$!
uploader 1 &
U1=$!
on_exit "touch '$work/stop'; wait $U0 $U1 2>/dev/null"

check "uploads are acknowledged before the crash" \
	wait_for "20 acknowledged" sh -c "test \$(cat '$work'/acked.* 2>/dev/null | wc -l) -ge 20"

# The crash: every process of the PostgreSQL server at once, mid-loop.
pmfile=$RTLAB_STATE_DIR/pg/data/postmaster.pid
PM=$(head -n 1 "$pmfile")
before=$(lines "$work"/acked.*)
kids() { ps -o pid= --ppid "$PM" | tr '\n' ' '; }
# Until its parent reaps it, a killed postmaster is a zombie that both
# 'rtlab db start' and PostgreSQL take for a running server: wait for it.
alive() { kill -0 "$1" 2>/dev/null; }
# shellcheck disable=SC2046
kill -9 "$PM" $(kids)
# a backend forked in that instant is killed too: none may keep the
# shared memory attached, or the restart would refuse
_n=0
while alive "$PM" || [ -n "$(kids)" ]; do
	# shellcheck disable=SC2046
	kill -9 $(kids) 2>/dev/null
	_n=$((_n + 1))
	[ $_n -gt 2400 ] && break
	sleep 0.05
done
check "PostgreSQL killed with SIGKILL mid-loop ($before acknowledged)" \
	sh -c "! kill -0 $PM 2>/dev/null"

# Uploads fail while it is down; then it comes back.
wait_for "an upload refused while the database is down" \
	sh -c "test \$(cat '$work'/failed.* 2>/dev/null | wc -l) -ge 1"
if "$RTLAB" db start >"$work/restart.log" 2>&1; then
	ok "rtlab db start after the crash (crash recovery)"
else
	not_ok "rtlab db start after the crash (crash recovery)"
	cat "$work/restart.log"
	tail -n 20 "$RTLAB_STATE_DIR"/pg/log/* 2>/dev/null
fi
after=$(lines "$work"/acked.*)
check "the server takes uploads again once the database is back" \
	wait_for "an upload acknowledged after the restart" \
	sh -c "test \$(cat '$work'/acked.* 2>/dev/null | wc -l) -gt $after"
touch "$work/stop"
wait $U0 $U1

cat "$work"/acked.* | sort >"$work/acked"
"$RTLAB" db psql -tAc "SELECT uuid FROM runs" | sort >"$work/stored"
comm -23 "$work/acked" "$work/stored" >"$work/lost"
check "$(lines "$work/acked") uploads acknowledged, $(lines "$work/failed".*) refusals" \
	test "$(lines "$work/acked")" -gt "$before"
check "every acknowledged upload is in the database ($(lines "$work/lost") lost)" \
	test ! -s "$work/lost"
if [ -s "$work/lost" ]; then
	echo "# lost: $(tr '\n' ' ' <"$work/lost")"
fi
