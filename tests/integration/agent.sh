#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rtlab-agent end to end on this machine: usage errors, check, a real
# cyclictest run into a bundle (files, manifest, checksums), a run under
# load stopped by SIGTERM (agent_error bundle, loads gone), an invalid
# testcase, and upload to a closed loopback port (spooled, then flush).
set -u

top=${RTLAB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${RTLAB_BUILD:-$top/build}
agent=$build/rtlab-agent
tmp=$(mktemp -d /tmp/rtlab-agent-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
check() {	# description, command...
	d=$1; shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}
jqt() {	# jq -e, quietly: JQ-ARGS... FILE
	jq -e "$@" >/dev/null
}
status_of() {	# command... -> prints the exit status
	"$@" >"$tmp/out" 2>&1
	echo $?
}
# A file's size and sha256 as manifest.json lists them, "SIZE SHA".
listed() {	# manifest, file
	grep -A2 "\"$2\": {" "$1" | sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p;s/.*"size": \([0-9]*\).*/\1/p' |
		tr '\n' ' '
}

cd "$top" || exit 1
check "rtlab-agent is built" test -x "$agent"

check "no command: usage error (2)" test "$(status_of "$agent")" = 2
check "unknown command: usage error (2)" test "$(status_of "$agent" frob)" = 2
check "run --help exits 0" test "$(status_of "$agent" run --help)" = 0
check "flush --help exits 0" test "$(status_of "$agent" flush --help)" = 0
check "check --help exits 0" test "$(status_of "$agent" check --help)" = 0
check "run without --out/--upload: 2" test "$(status_of "$agent" run \
	--testcase testcases/cyclictest-idle.yaml)" = 2
check "run with a bad --duration: 2" test "$(status_of "$agent" run \
	--testcase testcases/cyclictest-idle.yaml --duration 2x --out x)" = 2
check "run with a bad --run-id: 2" test "$(status_of "$agent" run \
	--testcase testcases/cyclictest-idle.yaml --run-id nope --out x)" = 2
check "upload without a token: 2" test "$(env -u RTLAB_TOKEN "$agent" run \
	--testcase testcases/cyclictest-idle.yaml \
	--upload http://127.0.0.1:1/api/v1/runs >/dev/null 2>&1; echo $?)" = 2

for t in testcases/*.yaml; do
	check "check $t" test "$(status_of "$agent" check --testcase "$t")" = 0
done
printf 'name: broken\nmeasurement:\n  priority: 200\n' >"$tmp/bad.yaml"
check "check of an invalid testcase fails (1)" \
	test "$(status_of "$agent" check --testcase "$tmp/bad.yaml")" = 1
check "... naming the file and key" \
	grep -q "bad.yaml:3: measurement.priority" "$tmp/out"
printf 'name: nettool\nloads:\n  - name: network\n' >"$tmp/net.yaml"
check "check reports a missing tool" test "$(PATH=/nonexistent \
	"$agent" check --testcase "$tmp/net.yaml" >"$tmp/out" 2>&1; echo $?)" = 1
check "... by name" grep -q "tool iperf3: MISSING" "$tmp/out"

# A real, short measurement.
rid=0b7c1e9a-4d2f-4a57-9a0e-5b1d2c3e4f50
check "run idle 2 s into a bundle" test "$(status_of "$agent" run \
	--testcase testcases/cyclictest-idle.yaml --duration 2 \
	--run-id $rid --board testboard --out "$tmp/idle.bundle")" = 0
tar tzf "$tmp/idle.bundle" >"$tmp/list" 2>/dev/null
for f in manifest.json cyclictest.json cyclictest.hist config dmesg.txt \
	agent.log; do
	check "bundle holds $f" grep -qx "$f" "$tmp/list"
done
check "manifest.json comes first" test "$(head -n 1 "$tmp/list")" = manifest.json
mkdir -p "$tmp/x"
tar xzf "$tmp/idle.bundle" -C "$tmp/x"
m=$tmp/x/manifest.json
check "status complete" grep -q '"status": "complete"' "$m"
check "run id kept" grep -q "\"run_id\": \"$rid\"" "$m"
check "board kept" grep -q '"board": "testboard"' "$m"
check "duration override recorded" grep -q '"duration_s": 2,' "$m"
check "cyclictest command recorded" grep -q \
	'"cyclictest -m -p 95 -i 1000 -t -h 1000 -q -D 2 --json=cyclictest.json"' "$m"
check "clock recorded" grep -q '"clock": "host"' "$m"
check "kernel release recorded" grep -q "\"release\": \"$(uname -r)\"" "$m"
check "timings recorded" grep -q '"finished_at": "20[0-9-]*T[0-9:]*Z"' "$m"
for f in cyclictest.json cyclictest.hist config dmesg.txt agent.log; do
	want="$(sha256sum "$tmp/x/$f" | cut -d' ' -f1) $(stat -c %s "$tmp/x/$f") "
	check "manifest lists $f with its sha256 and size" \
		test "$(listed "$m" "$f")" = "$want"
done
check "config sha256 in kernel.config_sha256" grep -q \
	"\"config_sha256\": \"$(sha256sum "$tmp/x/config" | cut -d' ' -f1)\"" "$m"
check "cyclictest.hist has the histogram" grep -q '^# Max Latencies:' \
	"$tmp/x/cyclictest.hist"
check "full length: the testcase's interval, 2000 samples planned, each thread took them ($(jq -c .measurement "$m"))" \
	jqt '.measurement | .interval_us == 1000 and
	 .interval_source == "testcase" and .samples_planned == 2000 and
	 .stopped_early == false and (.samples | length > 0) and
	 all(.samples[]; . * 100 >= 2000 * 95)' "$m"

# The board's interval replaces the testcase's.
check "run idle 1 s at --interval 997" test "$(status_of "$agent" run \
	--testcase testcases/cyclictest-idle.yaml --duration 1 \
	--interval 997 --out "$tmp/iv.bundle")" = 0
tar xzf "$tmp/iv.bundle" -O manifest.json >"$tmp/iv.json"
check "... cyclictest ran at -i 997, the manifest says it came from the board, replacing the testcase's 1000" \
	jqt '(.commands | any(startswith("cyclictest") and
	 contains(" -i 997 "))) and .measurement.interval_us == 997 and
	 .measurement.interval_source == "board" and
	 .measurement.testcase_interval_us == 1000 and
	 .measurement.samples_planned == 1003' "$tmp/iv.json"
check "--interval 10 is a usage error naming the range" sh -c \
	'"$1" run --testcase testcases/cyclictest-idle.yaml --interval 10 \
	 --out "$2" 2>&1 | grep -q "interval 10: expected whole microseconds, 50..10000000"; test $? = 0' \
	- "$agent" "$tmp/never.bundle"

# Under load, stopped by SIGTERM: a bundle all the same, and no load left.
"$agent" run --testcase testcases/cyclictest-hackbench.yaml --duration 60 \
	--out "$tmp/term.bundle" >"$tmp/out" 2>&1 &
pid=$!
sleep 4
kill -TERM $pid
wait $pid
check "SIGTERM: exit status 1" test $? = 1
rm -rf "$tmp/y" && mkdir -p "$tmp/y"
tar xzf "$tmp/term.bundle" -C "$tmp/y" 2>/dev/null
check "SIGTERM: bundle says agent_error" grep -q '"status": "agent_error"' \
	"$tmp/y/manifest.json"
check "SIGTERM: error says why" grep -q '"error": "interrupted by SIGTERM"' \
	"$tmp/y/manifest.json"
check "SIGTERM: both loads were started" test "$(grep -c 'process group' \
	"$tmp/y/agent.log")" = 2
left=0
for g in $(sed -n 's/.*(process group \([0-9]*\)).*/\1/p' "$tmp/y/agent.log"); do
	kill -0 -- "-$g" 2>/dev/null && left=$((left + 1))
done
check "SIGTERM: every load process group is gone" test $left = 0

# An invalid testcase still yields an agent_error bundle.
check "invalid testcase: exit 1" test "$(status_of "$agent" run \
	--testcase "$tmp/bad.yaml" --out "$tmp/bad.bundle")" = 1
check "invalid testcase: agent_error bundle naming the key" sh -c \
	"tar xzf '$tmp/bad.bundle' -O manifest.json | grep -q 'measurement.priority'"

# Upload to a closed loopback port: spooled, exit 0; flush keeps it.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 9)
url=http://127.0.0.1:$port/api/v1/runs
check "upload to a closed port: spooled, exit 0" test "$(status_of "$agent" \
	run --testcase testcases/cyclictest-idle.yaml --duration 1 \
	--run-id $rid --upload "$url" --token t0k --spool "$tmp/spool")" = 0
check "... the message says so" grep -q "spooled at $tmp/spool/$rid.bundle" \
	"$tmp/out"
check "... and the bundle is in the spool" test -s "$tmp/spool/$rid.bundle"
check "flush to a closed port: exit 1" test "$(status_of "$agent" flush \
	--spool "$tmp/spool" --upload "$url" --token t0k)" = 1
check "... and the bundle stays" test -s "$tmp/spool/$rid.bundle"
check "RTLAB_SPOOL is honoured" test "$(RTLAB_SPOOL="$tmp/spool2" status_of \
	"$agent" run --testcase testcases/cyclictest-idle.yaml --duration 1 \
	--upload "$url" --token t0k)" = 0
check "... bundle in \$RTLAB_SPOOL" sh -c "ls '$tmp/spool2'/*.bundle >/dev/null"
