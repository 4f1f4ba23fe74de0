#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A developer's own code on the virtual board: a tiny module
# (tests/fixtures/extras-module) built against Debian's PREEMPT_RT
# kernel's headers with `rtlab kernel module`, a file and setup/teardown
# commands, brought by a testcase's extras.
#  - a copy of the module whose vermagic names another kernel is refused
#    before anything boots, naming the module and both versions;
#  - a 2-second run: the agent loads the module with its parameter (the
#    kernel log shows it), runs the commands, removes it, and the
#    manifest records all of it;
#  - a parameter the module refuses: the run is agent_error naming it;
#  - through a throwaway database and server: rtlab job add refuses the
#    other kernel's module when queueing; a job given the module on the
#    command line (--module, --file, --setup) runs on a worker, and the
#    API, the web run page and report.txt list the module.
# Three boots of 2 s; about 95 s.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-vbextras.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
vb_state=${RTLAB_TEST_STATE:-$RTLAB_BUILD/test-state}
mkdir -p "$vb_state" "$work/tc/data" "$work/bad"

ko=$("$RTLAB" kernel module debian-rt "$TOP/tests/fixtures/extras-module" \
	rtlab_devmod 2>"$work/module.err")
check "rtlab kernel module builds the fixture for debian-rt ($ko)" \
	test -s "$ko"
[ -s "$ko" ] || { sed 's/^/# /' "$work/module.err"; exit 1; }
release=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
check "... its vermagic names the kernel ($release)" \
	sh -c "'$RTLAB' kernel fetch debian-rt | grep -qx 'release:  $release'"
cp "$ko" "$work/tc/rtlab_devmod.ko"
printf 'x=1\n' >"$work/tc/data/x.conf"
cat >"$work/tc/extras.yaml" <<EOT
name: cyclictest-extras
duration_s: 2
extras:
  modules:
    - path: rtlab_devmod.ko
      params: "level=7"
  files:
    - {src: data/x.conf, dest: /etc/rtlab-extras.conf}
  setup:
    - "cat /sys/module/rtlab_devmod/parameters/level"
    - "grep -qx x=1 /etc/rtlab-extras.conf"
  teardown:
    - "echo teardown ran"
EOT

# -- another kernel's module: refused before boot ---------------------------
# Another ABI number of the same length: the section keeps its size.
abi=$(echo "$release" | cut -d- -f2)
other=$(echo "$release" | sed "s/-$abi-/-$(echo "$abi" | tr 0-9 1-90)-/")
LC_ALL=C sed "s/vermagic=$release /vermagic=$other /" "$ko" \
	>"$work/bad/rtlab_devmod.ko"
check "the copy's vermagic names $other" \
	sh -c "modinfo -F vermagic '$work/bad/rtlab_devmod.ko' | grep -q '^$other '"
sed 's/^name: .*/name: cyclictest-extras-bad/' "$work/tc/extras.yaml" \
	>"$work/bad/extras.yaml"
cp -r "$work/tc/data" "$work/bad/"
RTLAB_STATE_DIR=$vb_state "$RTLAB" boot --board qemu-icount \
	--kernel debian-rt --testcase "$work/bad/extras.yaml" --duration 2 \
	--out "$work/bad.bundle" -q >"$work/bad.out" 2>&1
rc=$?
check "a module for another kernel: rtlab boot fails (exit $rc)" test $rc != 0
check "... naming the module and both versions" has "$work/bad.out" \
	"extras.modules\[0\].*rtlab_devmod.ko.*vermagic '$other .*$release"
# A board that boots yields a bundle whatever happens to it.
check "... before anything booted (no bundle)" test ! -e "$work/bad.bundle"

# -- the module, the file, the commands on the board -------------------------
vboard_boot b "with extras" "$work/tc/extras.yaml" --duration 2 || exit 1
x='.testcase.extras'
check "manifest: status complete" test "$(jq -r .status "$m")" = complete
check "manifest: the module, loaded and removed, its name and params" \
	jqt "$x.modules[0] | .name == \"rtlab_devmod\" and
	    .file == \"rtlab_devmod.ko\" and .params == \"level=7\" and
	    .loaded == true and .removed == true" "$m"
check "manifest: ... its vermagic (the kernel's) and srcversion" \
	jqt --arg v "$(modinfo -F vermagic "$ko")" \
	--arg s "$(modinfo -F srcversion "$ko")" \
	"$x.modules[0] | .vermagic == \$v and
	    .srcversion == (if \$s == \"\" then null else \$s end)" "$m"
check "manifest: ... and its sha256" test \
	"$(jq -r "$x.modules[0].sha256" "$m")" = \
	"$(sha256sum "$ko" | cut -d' ' -f1)"
check "manifest: the file at its dest, with the source's sha256" test \
	"$(jq -r "$x.files[0] | \"\(.dest) \(.sha256)\"" "$m")" = \
	"/etc/rtlab-extras.conf $(sha256sum "$work/tc/data/x.conf" | cut -d' ' -f1)"
check "manifest: the setup commands ran, exit 0, the parameter seen" \
	jqt "[$x.commands[] | select(.phase == \"setup\")] |
	    length == 2 and all(.exit_status == 0) and
	    (.[0].output | startswith(\"7\"))" "$m"
check "manifest: the teardown command ran" \
	jqt "[$x.commands[] | select(.phase == \"teardown\")][0] |
	    .exit_status == 0 and (.output | startswith(\"teardown ran\"))" "$m"
check "manifest: the definition keeps the extras as written" \
	jqt '.testcase.definition.extras.modules[0].path == "rtlab_devmod.ko"' \
	"$m"
check "guest kernel log: the module loaded with its parameter" \
	has "$work/b/dmesg.txt" "rtlab_devmod: loaded, level=7"
check "guest kernel log: ... and was removed" \
	has "$work/b/dmesg.txt" "rtlab_devmod: removed"
check "agent log: insmod and rmmod" \
	sh -c "grep -q 'extras: insmod .*rtlab_devmod.ko level=7: loaded' \
		'$work/b/agent.log' && \
		grep -q 'extras: rmmod rtlab_devmod' '$work/b/agent.log'"

# -- a module the kernel refuses: the run fails, naming it ----------------------
mkdir "$work/refused"
cp "$ko" "$work/refused/"
cat >"$work/refused/refused.yaml" <<EOT
name: cyclictest-extras-refused
duration_s: 2
extras:
  modules: [{path: rtlab_devmod.ko, params: "level=notanumber"}]
  teardown: ["echo teardown ran"]
EOT
RTLAB_STATE_DIR=$vb_state "$RTLAB" boot --board qemu-icount \
	--kernel debian-rt --testcase "$work/refused/refused.yaml" \
	--duration 2 --out "$work/refused.bundle" -q >"$work/refused.out" 2>&1
mkdir "$work/r"
tar xzf "$work/refused.bundle" -C "$work/r" 2>/dev/null
check "a refused insmod: status agent_error" \
	test "$(jq -r .status "$work/r/manifest.json")" = agent_error
check "... the error names the module and the kernel's answer" \
	jqt '.error | test("extras.modules\\[0\\] rtlab_devmod.ko: insmod .*level=notanumber: Invalid argument")' \
	"$work/r/manifest.json"
check "... manifest: not loaded, with the error; teardown still ran" \
	jqt '.testcase.extras | (.modules[0].loaded == false) and
	    (.modules[0].error | length > 0) and
	    ([.commands[] | select(.phase == "teardown")] | length == 1)' \
	"$work/r/manifest.json"

# -- stored, and in the report --------------------------------------------------
if ! start_db; then
	not_ok "throwaway database starts"
	exit 1
fi
board=$(jq -r .board "$m")
token=$("$RTLAB" board add "$board" --kind qemu --quiet 2>"$work/board.err")
check "board $board registered" test ${#token} = 64
start_server "$work" || { not_ok "server starts"; exit 1; }

# The kernel is in the cache now: a job is checked when it is queued.
"$RTLAB" job add --kernel debian-rt --board "$board" \
	--testcase "$work/bad/extras.yaml" --duration 2 >"$work/add-bad.out" 2>&1
rc=$?
check "rtlab job add: another kernel's module refused (exit $rc)" test $rc = 1
check "... naming the module and both versions" has "$work/add-bad.out" \
	"extras.modules\[0\].*rtlab_devmod.ko.*vermagic '$other .*$release"
"$RTLAB" job add --kernel debian-rt --board "$board" --quiet \
	--testcase "$work/tc/extras.yaml" --duration 2 >"$work/add.out" 2>&1
check "rtlab job add: the module built for the kernel is queued" \
	test $? = 0
st=$(upload "$work/b.bundle" "$token")
check "the run is stored (HTTP $st)" test "$st" = 201
# -- a job with a module from the command line, run by a worker, reported -------
cat >"$work/tc/plain.yaml" <<EOT
name: cyclictest-devjob
duration_s: 2
EOT
"$RTLAB" job add --kernel debian-rt --board "$board" --duration 2 \
	--testcase "$work/tc/plain.yaml" \
	--module "$work/bad/rtlab_devmod.ko level=9" >"$work/add-cli-bad.out" 2>&1
check "rtlab job add --module: another kernel's module refused (exit $?)" \
	has "$work/add-cli-bad.out" "vermagic '$other .*$release"
"$RTLAB" job add --kernel debian-rt --board "$board" --duration 2 \
	--testcase "$work/tc/plain.yaml" --module "$ko level=9" \
	--file "$work/tc/data/x.conf:/etc/rtlab-job.conf" \
	--setup "cat /sys/module/rtlab_devmod/parameters/level" \
	--quiet >"$work/add-cli.out" 2>"$work/add-cli.err"
check "rtlab job add --module --file --setup: queued" test $? = 0
check "... as a testcase of its own (not the lab's series)" sh -c \
	"'$RTLAB' db psql -tAc 'SELECT DISTINCT t.name FROM jobs j JOIN
	testcases t ON t.id = j.testcase_id' 2>/dev/null |
	grep -Eqx 'cyclictest-devjob-x[0-9a-f]{8}'"
"$RTLAB" db psql -qc "DELETE FROM jobs WHERE testcase_file NOT LIKE
	'%/jobs/testcases/%'" >/dev/null
"$RTLAB" worker --board "$board" --drain --name w1 >"$work/w1.log" 2>&1
check "the worker ran the job (exit $?)" test "$("$RTLAB" db psql -tAc \
	"SELECT state FROM jobs")" = done
run=$("$RTLAB" db psql -tAc "SELECT uuid FROM runs WHERE job_id IS NOT NULL")
check "... and stored its run ($run)" test -n "$run"
[ -n "$run" ] || sed 's/^/# /' "$work/w1.log" "$work/add-cli.err"
check "the run's manifest: the module from the command line, loaded" \
	test "$("$RTLAB" db psql -tAc "SELECT manifest->'testcase'->'extras'->
	'modules'->0->>'loaded' || ' ' || (manifest->'testcase'->'extras'->
	'modules'->0->>'params') FROM runs WHERE uuid = '$run'")" = \
	"true level=9"
st=$(get "/api/v1/runs/$run")
check "API: the run's testcase.extras (HTTP $st)" \
	jqt '.testcase.extras.modules[0].name == "rtlab_devmod"' "$work/resp"
rid=$("$RTLAB" db psql -tAc "SELECT id FROM runs WHERE uuid = '$run'")
st=$(get "/runs/$rid")
check "web run page: an Extras section with the module (HTTP $st)" sh -c \
	"grep -q '<h2>Extras</h2>' '$work/resp' &&
	 grep -q 'rtlab_devmod (rtlab_devmod.ko level=9): loaded' '$work/resp'"
# One run is no comparison: a verdict against itself, reported with
# --force, is enough to see what the report says about the testcase.
"$RTLAB" db psql -qc "INSERT INTO verdicts (board_id, testcase_id,
	baseline_kernel_id, candidate_kernel_id, verdict, baseline_runs,
	candidate_runs) SELECT board_id, testcase_id, kernel_id, kernel_id,
	'NO_CHANGE', ARRAY[id], ARRAY[id] FROM runs WHERE uuid = '$run'" \
	>/dev/null
vid=$("$RTLAB" db psql -tAc "SELECT max(id) FROM verdicts")
"$RTLAB" report "$vid" --force -o "$work/rep" >"$work/report.out" 2>&1
check "rtlab report $vid --force: exit 0" test $? = 0
check "report.txt: the extras under the testcase" \
	has "$work/rep/report.txt" "^  extras: +the testcase brought its own code"
check "report.txt: the module, loaded, with its parameter" \
	has "$work/rep/report.txt" \
	"^    module rtlab_devmod \(rtlab_devmod.ko level=9\): loaded$"
check "report.txt: ... its vermagic" \
	has "$work/rep/report.txt" "^      vermagic $release "
check "report.txt: the file and the commands" sh -c "
	grep -q '^    file /etc/rtlab-job.conf (from /' \
		'$work/rep/report.txt' &&
	grep -q '^    setup: cat /sys/module/rtlab_devmod/parameters/level: exit status 0' \
		'$work/rep/report.txt'"
