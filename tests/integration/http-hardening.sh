#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The server's limits and defences (docs/api.md "Limits", docs/security.md)
# against a throwaway PostgreSQL and real `rtlab server`s on loopback:
# security headers on every answer, board-supplied HTML/SVG artifacts
# served as inert attachments, a large artifact streamed in constant
# memory, a chunked upload cut off once past the limit, the trend plot of
# a kernel without a tree, the connection caps (in total and per client
# address), the whole-request deadline that trickled bytes do not extend,
# and slow work (plots) kept off the connection threads: a busy slow pool
# answers 503 with Retry-After while /healthz keeps answering.
# Nothing here asserts a time: each check waits for a condition.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-hardtest.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
FIX=$TOP/tests/fixtures/cyclictest

if ! start_db; then
	not_ok "throwaway database starts"
	exit 1
fi
ok "throwaway database starts"
TOKEN=$("$RTLAB" board add hard1 --kind qemu --quiet 2>"$work/board.err")
check "board registered" test ${#TOKEN} = 64

# A bundle as the agent builds it; --tree '' leaves the kernel's tree
# empty, --big N adds a compressible artifact of N MiB.
cat >"$work/mkbundle.py" <<'EOF'
import argparse, hashlib, io, json, tarfile, uuid

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--json", required=True)
ap.add_argument("--tree", default="debian")
ap.add_argument("--big", type=int, default=0)
ap.add_argument("--release", default="6.1.0-57-rt-amd64")
a = ap.parse_args()

files = {"cyclictest.json": open(a.json, "rb").read(),
         "dmesg.txt": b"[    0.000000] Linux version 6.1.0-57-rt-amd64\n",
         "evil.html": b"<script>document.title='owned'</script>\n",
         "evil.svg": b"<svg xmlns='http://www.w3.org/2000/svg'>"
                     b"<script>alert(1)</script></svg>\n"}
if a.big:
    files["big.bin"] = (b"rtlab-stream-" + bytes(range(256))) * \
        (a.big * 1048576 // 269) + b"end"
m = {"format": "rtlab-bundle", "format_version": 1,
     "run_id": str(uuid.uuid4()), "board": "hard1", "status": "complete",
     "testcase": {"name": "cyclictest-idle", "duration_s": 3,
                  "hist_range_us": 100,
                  "definition": {"measurement": {"tool": "cyclictest"}}},
     "kernel": {"release": a.release, "version": "#1 SMP",
                "realtime": True, "config_sha256": "ab" * 32,
                "name": "debian-rt", "tree": a.tree},
     "environment": {"cpus": 2, "clock": "icount:3"},
     "commands": ["cyclictest -h 100"],
     "started_at": "2026-12-03T03:14:08Z",
     "finished_at": "2026-12-03T03:14:12Z",
     "files": {n: {"size": len(b), "sha256": hashlib.sha256(b).hexdigest()}
               for n, b in files.items()}}
if not a.tree:
    del m["kernel"]["tree"]
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz") as t:
    for name, data in [("manifest.json", json.dumps(m).encode())] + \
            list(files.items()):
        ti = tarfile.TarInfo(name)
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
open(a.out, "wb").write(buf.getvalue())
EOF

upload() {	# BUNDLE: prints the run id, or nothing
	curl -s -o "$work/up" -H "Authorization: Bearer $TOKEN" \
		--data-binary @"$1" "$URL/api/v1/runs" &&
		jq -r '.id // empty' "$work/up"
}
# head PATH: the response headers (lower-cased names) land in $work/hdr,
# the body in $work/resp; prints the status.
head_of() {
	curl -s -D "$work/hdr.raw" -o "$work/resp" -w '%{http_code}' \
		--max-time 120 "$URL$1"
	tr -d '\r' <"$work/hdr.raw" | sed 's/^\([^:]*\):/\L\1:/' >"$work/hdr"
}
jqt() {	# jq -e, quietly: JQ-ARGS... FILE
	jq -e "$@" >/dev/null
}
has_header() {	# NAME VALUE-PART
	grep -qi "^$1: .*$2" "$work/hdr"
}

# == security headers, artifacts, streaming, uploads, trend =================
# Each server gets a directory of its own: start_server reads the address
# from DIR/server.out, which a previous server's output must not feed.
srv() {	# NAME: a fresh directory for the next server
	mkdir "$work/$1" && echo "$work/$1"
}
S=$(srv limits)
start_server "$S" --max-upload-mb 1 || { not_ok "server starts"; exit 1; }
python3 "$work/mkbundle.py" --out "$work/a.tgz" --json "$FIX/idle.json" \
	--big 48
python3 "$work/mkbundle.py" --out "$work/notree.tgz" \
	--json "$FIX/idle.json" --tree '' --release 6.1.0-58-rt-amd64
RUN=$(upload "$work/a.tgz")
NOTREE=$(upload "$work/notree.tgz")
check "bundles stored (runs $RUN $NOTREE)" test -n "$RUN" -a -n "$NOTREE"

st=$(head_of /)
check "GET / is 200 (got $st)" test "$st" = 200
check "the page has a Content-Security-Policy of default-src 'self'" \
	has_header content-security-policy "default-src 'self'"
check "the page has X-Content-Type-Options: nosniff" \
	has_header x-content-type-options nosniff
head_of /healthz >/dev/null
check "JSON answers have nosniff too" has_header x-content-type-options nosniff
head_of /api/v1/nothing >/dev/null
check "error answers have nosniff too" has_header x-content-type-options nosniff

st=$(head_of "/api/v1/runs/$RUN/artifacts/evil.html")
check "board-supplied .html artifact: 200 (got $st)" test "$st" = 200
check "... not served as HTML ($(grep content-type "$work/hdr"))" \
	sh -c "! grep -qi '^content-type: text/html' '$work/hdr'"
check "... as an attachment" has_header content-disposition attachment
check "... sandboxed" has_header content-security-policy sandbox
check "... with nosniff" has_header x-content-type-options nosniff
st=$(head_of "/api/v1/runs/$RUN/artifacts/evil.svg")
check "board-supplied .svg artifact: not image/svg+xml, an attachment" \
	sh -c "test $st = 200 &&
	       ! grep -qi '^content-type: image/svg' '$work/hdr' &&
	       grep -qi '^content-disposition: attachment' '$work/hdr'"

# A 48 MiB artifact: byte for byte, and the server's memory grows by much
# less than the artifact (the peak is reset first; the kernel keeps it).
python3 -c 'import sys, tarfile
t = tarfile.open(sys.argv[1])
sys.stdout.buffer.write(t.extractfile("big.bin").read())' "$work/a.tgz" \
	>"$work/big.want"
rss_kb() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$SPID/status"; }
echo 5 >"/proc/$SPID/clear_refs"
before=$(rss_kb VmRSS)
st=$(curl -s -o "$work/big.got" -w '%{http_code}' \
	"$URL/api/v1/runs/$RUN/artifacts/big.bin")
peak=$(rss_kb VmHWM)
check "48 MiB artifact: 200 (got $st)" test "$st" = 200
check "... byte for byte" cmp -s "$work/big.got" "$work/big.want"
check "... streamed: peak memory grew ${before}->${peak} kB, under 16 MiB" \
	test $((peak - before)) -lt 16384

# A chunked upload past the limit is cut off, not read to its end.
cat >"$work/chunked.py" <<'EOF'
import socket, sys
port, token = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"POST /api/v1/runs HTTP/1.1\r\nHost: x\r\n"
          b"Authorization: Bearer " + token.encode() + b"\r\n"
          b"Transfer-Encoding: chunked\r\n\r\n")
chunk = b"%x\r\n" % 65536 + b"\0" * 65536 + b"\r\n"
sent = 0
try:
    for i in range(1024):            # 64 MiB against a 1 MiB limit
        s.sendall(chunk)
        sent += 65536
except OSError:
    print("cut off after %d KiB" % (sent >> 10))
    sys.exit(0)
print("all %d KiB were read: %r" % (sent >> 10, s.recv(200)))
sys.exit(1)
EOF
out=$(python3 "$work/chunked.py" "$PORT" "$TOKEN" 2>&1)
check "chunked upload over the limit: cut off early ($out)" test $? = 0
check "... logged as 413" grep -q 'POST /api/v1/runs 413' "$S/server.log"

st=$(head_of "/api/v1/plots/trend.svg?board=hard1&testcase=cyclictest-idle")
check "trend plot of a kernel without a tree: 200 (got $st: $(head -c 200 \
	"$work/resp"))" test "$st" = 200
check "... an SVG" grep -q '<svg' "$work/resp"
kill "$SPID"
wait "$SPID" 2>/dev/null

# == connection caps =======================================================
cat >"$work/conns.py" <<'EOF'
# conns.py PORT SRC N: hold N idle connections from address SRC, then say
# whether one more from SRC gets an answer, and whether 127.0.0.1 does.
import socket, sys
port, src, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def conn(addr):
    s = socket.socket()
    s.bind((addr, 0))
    s.connect(("127.0.0.1", port))
    return s
def answers(s):
    s.settimeout(60)
    try:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                  b"Connection: close\r\n\r\n")
        return s.recv(100).startswith(b"HTTP/1.1 200")
    except OSError:
        return False
held = [conn(src) for i in range(n)]
# Each held connection sends a first byte, so the server has them all.
for s in held:
    s.sendall(b"G")
print("extra-from-same:", "answered" if answers(conn(src)) else "refused")
print("from-127.0.0.1:", "answered" if answers(conn("127.0.0.1")) else
      "refused")
EOF
start_server "$(srv perip)" --max-connections-per-ip 3 ||
	{ not_ok "server starts with --max-connections-per-ip"; exit 1; }
python3 "$work/conns.py" "$PORT" 127.0.0.2 3 >"$work/perip.out" 2>&1
check "per-address cap: a 4th connection from one address is refused" \
	grep -q 'extra-from-same: refused' "$work/perip.out"
check "... while another address is answered" \
	grep -q 'from-127.0.0.1: answered' "$work/perip.out"
kill "$SPID"
wait "$SPID" 2>/dev/null

cat >"$work/total.py" <<'EOF'
# total.py PORT N: hold N connections; one more must wait in the kernel's
# accept backlog (the server stops accepting), and be answered once one
# of the N goes.
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
def backlog():
    for line in open("/proc/net/tcp"):
        f = line.split()
        if f[1].endswith(":%04X" % port) and f[3] == "0A":
            return int(f[4].split(":")[1], 16)
    return 0
def until(cond):        # poll, at most ~60 s
    for i in range(600):
        if cond():
            return True
        time.sleep(0.1)
    return cond()
held = [socket.create_connection(("127.0.0.1", port)) for i in range(n)]
for s in held:
    s.sendall(b"G")
extra = socket.create_connection(("127.0.0.1", port))
print("extra-waits:", "yes" if until(lambda: backlog() >= 1) else "no")
held.pop().close()
extra.settimeout(60)
extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
print("extra-answered:", "yes" if extra.recv(100).startswith(b"HTTP/1.1 200")
      else "no")
EOF
start_server "$(srv total)" --max-connections 4 --threads 1 \
	--max-connections-per-ip 0 ||
	{ not_ok "server starts with --max-connections"; exit 1; }
python3 "$work/total.py" "$PORT" 4 >"$work/total.out" 2>&1
check "total cap: a 5th connection waits, not accepted" \
	grep -q 'extra-waits: yes' "$work/total.out"
check "... and is answered once one of the 4 goes" \
	grep -q 'extra-answered: yes' "$work/total.out"
kill "$SPID"
wait "$SPID" 2>/dev/null

# == the whole-request deadline ============================================
cat >"$work/trickle.py" <<'EOF'
# A slowloris: headers a byte at a time, each well within the idle
# timeout; the server must close the connection before the trickle ends.
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
try:
    for i in range(240):
        s.sendall(b"X-Slow-%d: y\r\n" % i)
        time.sleep(0.5)
except OSError:
    print("closed by the server after %d headers" % i)
    sys.exit(0)
print("still open after 240 trickled headers")
sys.exit(1)
EOF
S=$(srv deadline)
start_server "$S" --request-timeout 2 ||
	{ not_ok "server starts with --request-timeout"; exit 1; }
out=$(python3 "$work/trickle.py" "$PORT" 2>&1)
check "a trickled request is closed at the deadline ($out)" \
	test "${out#closed by the server}" != "$out"
check "... and logged with the client's address" \
	grep -q 'connection of 127.0.0.1: its request was not in' \
	"$S/server.log"
check "... while a normal request is answered" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "$URL/healthz")" = 200
kill "$SPID"
wait "$SPID" 2>/dev/null

# == slow work off the connection threads ==================================
# One connection thread, one slow thread, no queue.  A plot is held up by a
# lock on its table; a second plot gets 503, /healthz still answers.
start_server "$(srv slow)" --threads 1 --slow-threads 1 --slow-queue 0 ||
	{ not_ok "server starts with --slow-threads"; exit 1; }
mkfifo "$work/lock.fifo"
"$RTLAB" db psql -q <"$work/lock.fifo" >"$work/lock.out" 2>&1 &
LOCKPID=$!
exec 3>"$work/lock.fifo"
on_exit "exec 3>&-; kill $LOCKPID 2>/dev/null"
echo "BEGIN; LOCK TABLE histograms IN ACCESS EXCLUSIVE MODE;" >&3
sql() { "$RTLAB" db psql -tAc "$1"; }
waitfor() {	# SQL: poll until it prints t (at most ~60 s)
	_n=0
	while [ "$(sql "$1")" != t ] && [ $_n -lt 600 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	[ "$(sql "$1")" = t ]
}
check "the lock is held" waitfor "SELECT EXISTS (SELECT 1 FROM pg_locks
	WHERE relation = 'histograms'::regclass AND granted)"
curl -s -o "$work/plot1" -w '%{http_code}' --max-time 300 \
	"$URL/api/v1/runs/$RUN/plot.svg" >"$work/plot1.st" &
P1=$!
check "the first plot waits on the lock" waitfor "SELECT EXISTS (SELECT 1
	FROM pg_stat_activity WHERE wait_event_type = 'Lock')"
st=$(head_of "/api/v1/runs/$RUN/plot.png")
check "a second plot meanwhile: 503 (got $st)" test "$st" = 503
check "... with Retry-After" has_header retry-after 5
check "... and a JSON error" jqt '.error | contains("busy")' "$work/resp"
st=$(head_of /healthz)
check "/healthz answers meanwhile (got $st)" test "$st" = 200
st=$(head_of "/api/v1/runs/$RUN/artifacts/dmesg.txt")
check "an artifact answers meanwhile (got $st)" test "$st" = 200
echo "COMMIT;" >&3
exec 3>&-
wait "$P1"
check "the first plot completes once the lock goes ($(cat "$work/plot1.st"))" \
	sh -c "test '$(cat "$work/plot1.st")' = 200 && grep -q '<svg' '$work/plot1'"
kill -TERM "$SPID"
wait "$SPID"
check "SIGTERM stops the server with status 0" test $? = 0

# == uploads off the connection threads ====================================
# One connection thread, one upload thread, no queue.  An upload is held up
# by a lock on the runs table; a second upload gets 503, while /healthz and
# a page answer on the connection thread.
start_server "$(srv ingest)" --threads 1 --ingest-threads 1 \
	--ingest-queue 0 || { not_ok "server starts with --ingest-threads"; exit 1; }
for n in 1 2; do
	python3 "$work/mkbundle.py" --out "$work/up$n.tgz" --json "$FIX/idle.json"
done
mkfifo "$work/lock2.fifo"
"$RTLAB" db psql -q <"$work/lock2.fifo" >"$work/lock2.out" 2>&1 &
LOCKPID=$!
exec 3>"$work/lock2.fifo"
on_exit "exec 3>&-; kill $LOCKPID 2>/dev/null"
echo "BEGIN; LOCK TABLE runs IN ACCESS EXCLUSIVE MODE;" >&3
check "the lock on runs is held" waitfor "SELECT EXISTS (SELECT 1 FROM pg_locks
	WHERE relation = 'runs'::regclass AND granted)"
curl -s -o "$work/up1.resp" -w '%{http_code}' --max-time 300 \
	-H "Authorization: Bearer $TOKEN" --data-binary @"$work/up1.tgz" \
	"$URL/api/v1/runs" >"$work/up1.st" &
U1=$!
check "the first upload waits on the lock" waitfor "SELECT EXISTS (SELECT 1
	FROM pg_stat_activity WHERE wait_event_type = 'Lock')"
st=$(curl -s -D "$work/hdr.raw" -o "$work/resp" -w '%{http_code}' \
	--max-time 120 -H "Authorization: Bearer $TOKEN" \
	--data-binary @"$work/up2.tgz" "$URL/api/v1/runs")
tr -d '\r' <"$work/hdr.raw" | sed 's/^\([^:]*\):/\L\1:/' >"$work/hdr"
check "a second upload meanwhile: 503 (got $st)" test "$st" = 503
check "... with Retry-After" has_header retry-after 5
check "... and a JSON error naming the uploads" \
	jqt '.error | contains("upload")' "$work/resp"
st=$(head_of /healthz)
check "/healthz answers meanwhile (got $st)" test "$st" = 200
echo "COMMIT;" >&3
exec 3>&-
wait "$U1"
check "the first upload is stored once the lock goes ($(cat "$work/up1.st"))" \
	test "$(cat "$work/up1.st")" = 201
st=$(curl -s -o "$work/resp" -w '%{http_code}' --max-time 120 \
	-H "Authorization: Bearer $TOKEN" --data-binary @"$work/up2.tgz" \
	"$URL/api/v1/runs")
check "the refused upload, sent again, is stored (got $st)" test "$st" = 201
kill -TERM "$SPID"
wait "$SPID"
check "SIGTERM stops the server with status 0" test $? = 0
