#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The virtual board end to end: fetch Debian's PREEMPT_RT kernel (and its
# non-RT twin), refuse bad definitions before booting, boot under the icount
# clock with a short run and check the bundle that comes back; then the
# faults, each of which must still yield a bundle with console.log: a bad
# init (boot_failed), a panic, a hang, a bundle damaged in transit.  The
# watchdog: QEMU stopped past the boot timeout still completes (a busy host
# is not a hung kernel); QEMU killed by a signal is an infrastructure error,
# no bundle.
#
# The kernel cache persists in $RTLAB_BUILD/test-state between runs (set
# RTLAB_TEST_STATE to put it elsewhere), so only the first run downloads.
set -u

top=${RTLAB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${RTLAB_BUILD:-$top/build}
rtlab=$build/rtlab
export RTLAB_STATE_DIR=${RTLAB_TEST_STATE:-$build/test-state}
export RTLAB_DATADIR=$top
tmp=$(mktemp -d /tmp/rtlab-vboard-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
check() {	# description, command...
	d=$1; shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}
# has FILE REGEX: FILE has a line matching REGEX (shown when it does not)
has() {
	if grep -Eq -- "$2" "$1"; then return 0; fi
	echo "# $1 lacks /$2/:"; sed 's/^/#   /' "$1" | head -n 40
	return 1
}

if [ ! -x "$rtlab" ]; then
	notok "rtlab binary at $rtlab (run make first)"
	exit 1
fi

# --- kernels -----------------------------------------------------------
"$rtlab" kernel fetch debian-rt >"$tmp/k-rt.out" 2>&1
check "kernel fetch debian-rt succeeds" test $? = 0
check "debian-rt resolves to a versioned -rt-amd64 package" \
	has "$tmp/k-rt.out" '^package: +linux-image-[0-9].*-rt-amd64 '
check "debian-rt is PREEMPT_RT per its config" \
	has "$tmp/k-rt.out" '^realtime: yes'
check "debian-rt records a config sha256" \
	has "$tmp/k-rt.out" '^config: +[0-9a-f]{64}$'
"$rtlab" kernel fetch debian-rt >"$tmp/k-rt2.out" 2>&1
check "second fetch is served from the cache" \
	has "$tmp/k-rt2.out" '\(cached\)'
# a cache entry names its files relative to itself: moved, it is still used
"$rtlab" kernel fetch --cache "$tmp/kc" debian-rt >/dev/null 2>&1
mv "$tmp/kc" "$tmp/kc-moved"
"$rtlab" kernel fetch --cache "$tmp/kc-moved" debian-rt >"$tmp/k-moved.out" 2>&1
check "a moved kernel cache is served as it is, not fetched again" \
	sh -c "grep -q '(cached)' '$tmp/k-moved.out' &&
	       grep -q '^image: *$tmp/kc-moved/' '$tmp/k-moved.out'"
rm -rf "$tmp/kc-moved"
# the same package named PACKAGE=VERSION, as the farm names a tree's
# kernels: recorded as of the tree whose packages glob holds it
pv=$(sed -n 's/^package: *\([^ ]*\) \([^ ]*\) .*/\1=\2/p' "$tmp/k-rt.out")
"$rtlab" kernel fetch "$pv" >"$tmp/k-pv.out" 2>&1
check "$pv: of tree debian-6.1-rt (kernels/trees/)" \
	has "$tmp/k-pv.out" '^kernel: .* tree debian-6\.1-rt$'
"$rtlab" kernel fetch debian >"$tmp/k.out" 2>&1
check "kernel fetch debian (the non-RT twin) succeeds" test $? = 0
check "debian is not PREEMPT_RT" has "$tmp/k.out" '^realtime: no'
rtver=$(sed -n 's/^package: *[^ ]* \([^ ]*\) .*/\1/p' "$tmp/k-rt.out")
check "the twin has the same package version ($rtver)" \
	has "$tmp/k.out" "^package: +linux-image-[0-9][^ ]*-amd64 $rtver "

printf 'kind: debian\npackage: linux-image-nosuch-rt-amd64\n' \
	>"$tmp/nosuch.yaml"
"$rtlab" kernel fetch "$tmp/nosuch.yaml" >"$tmp/nosuch.out" 2>&1
check "unknown package is refused" test $? = 1
check "... naming the file and field 'package'" \
	has "$tmp/nosuch.out" "nosuch.yaml: field 'package'"

img=$(sed -n 's/^image: *//p' "$tmp/k-rt.out")
head -c 3000000 "$img" >"$tmp/trunc.bzImage"
printf 'kind: local\nimage: trunc.bzImage\n' >"$tmp/trunc.yaml"
"$rtlab" kernel fetch "$tmp/trunc.yaml" >"$tmp/trunc.out" 2>&1
check "a truncated bzImage is refused" test $? = 1
check "... saying it is truncated" has "$tmp/trunc.out" "truncated"
printf 'kind: local\nimage: %s\n' "$img" >"$tmp/local.yaml"
"$rtlab" kernel fetch "$tmp/local.yaml" >"$tmp/local.out" 2>&1
check "a local bzImage is accepted, release read from its header" \
	has "$tmp/local.out" '^release: +[0-9].*-rt-amd64$'

# --- board definitions ---------------------------------------------------
bad_board() {	# name, expected regex, yaml lines...
	n=$1 re=$2; shift 2
	printf '%s\n' "$@" >"$tmp/$n.yaml"
	"$rtlab" boot -q --board "$tmp/$n.yaml" --testcase \
		"$top/testcases/cyclictest-idle.yaml" --duration 1 \
		--out "$tmp/$n.bundle" >"$tmp/$n.out" 2>&1
	rc=$?
	check "board $n refused before booting (exit 1)" test "$rc" = 1
	check "... naming file and field" has "$tmp/$n.out" "$n.yaml.*$re"
	check "... and no bundle written" test ! -e "$tmp/$n.bundle"
}
bad_board icount-smp "field 'cpus'" "kind: qemu" "clock: icount" "cpus: 2"
bad_board zero-cpus "field 'cpus'" "kind: qemu" "clock: realtime" "cpus: 0"
bad_board tiny-mem "field 'memory_mb'" "kind: qemu" "clock: icount" \
	"memory_mb: 64"
bad_board unknown-key "unknown field 'cpu_count'" "kind: qemu" \
	"clock: icount" "cpu_count: 1"
bad_board bad-clock "field 'clock'" "kind: qemu" "clock: sundial"

# --- testcases the board cannot run: refused before anything boots ----------
printf 'name: x\nmeasurement:\n  priority: 300\n' >"$tmp/badtc.yaml"
"$rtlab" boot -q --board qemu-icount --kernel debian-rt --testcase \
	"$tmp/badtc.yaml" --duration 1 --out "$tmp/badtc.bundle" \
	>"$tmp/badtc.out" 2>&1
check "an invalid testcase is refused before booting (exit 1)" test $? = 1
check "... naming file, line and key" has "$tmp/badtc.out" \
	"badtc.yaml:3: measurement.priority"
check "... and no bundle written" test ! -e "$tmp/badtc.bundle"
# A board whose tools come from a directory without iperf3.
mkdir -p "$tmp/tools"
for t in busybox cyclictest hackbench; do
	ln -sf "$(command -v $t)" "$tmp/tools/$t"
done
RTLAB_BOARD_TOOLS_PATH=$tmp/tools "$rtlab" boot -q --board qemu-icount \
	--kernel debian-rt --testcase "$top/testcases/cyclictest-network.yaml" \
	--duration 1 --out "$tmp/notool.bundle" >"$tmp/notool.out" 2>&1
check "a testcase needing a tool the board lacks is refused (exit 1)" \
	test $? = 1
check "... naming the testcase and the tool" has "$tmp/notool.out" \
	"cyclictest-network.yaml: needs 'iperf3'"
check "... before booting: no bundle" test ! -e "$tmp/notool.bundle"

# --- boots ---------------------------------------------------------------
# boot NAME KERNEL TESTCASE [rtlab boot options...]: bundle in $tmp/NAME
boot() {
	n=$1 k=$2 tc=$3; shift 3
	"$rtlab" boot -q --board qemu-icount --kernel "$k" \
		--testcase "$top/testcases/$tc.yaml" --duration 3 \
		--out "$tmp/$n.bundle" "$@" >"$tmp/$n.out" 2>&1
	echo "# $n: exit $?: $(tr '\n' ' ' <"$tmp/$n.out")"
	"$rtlab" boot --inspect "$tmp/$n.bundle" >"$tmp/$n.info" 2>&1
	tar -xzOf "$tmp/$n.bundle" manifest.json >"$tmp/$n.manifest" \
		2>/dev/null
	tar -xzOf "$tmp/$n.bundle" console.log >"$tmp/$n.console" \
		2>/dev/null
}

boot rt debian-rt cyclictest-hackbench
check "RT boot: bundle complete" has "$tmp/rt.info" '^status=complete$'
check "RT boot: kernel realtime in the manifest" \
	has "$tmp/rt.info" '^kernel_realtime=1$'
check "RT boot: environment says /sys/kernel/realtime is 1" \
	has "$tmp/rt.manifest" '"sys_kernel_realtime": *"?1"?'
check "RT boot: clock recorded as icount:3" \
	has "$tmp/rt.info" '^clock=icount:3$'
check "RT boot: files match the manifest's sizes and sha256" \
	has "$tmp/rt.info" '^files_verified=yes$'
check "RT boot: cyclictest.json is valid" \
	has "$tmp/rt.info" '^cyclictest=valid threads=[1-9]'
check "RT boot: cyclictest counted samples" \
	has "$tmp/rt.info" '^cyclictest_thread=0 samples=[1-9]'
check "RT boot: console.log in the bundle shows the kernel booting" \
	has "$tmp/rt.console" 'Linux version .*PREEMPT_RT'
check "RT boot: the board's facts are in the manifest" \
	has "$tmp/rt.manifest" '"qemu_command": .*-icount shift=3'
check "RT boot: boot time printed" has "$tmp/rt.out" '^boot: +[0-9.]+ s'
check "RT boot: channel throughput printed" \
	has "$tmp/rt.out" '^channel: +[0-9]+ bytes in .*MiB/s'

boot nonrt debian cyclictest-idle
check "non-RT boot: bundle complete" has "$tmp/nonrt.info" \
	'^status=complete$'
check "non-RT boot: kernel not realtime in the manifest" \
	has "$tmp/nonrt.info" '^kernel_realtime=0$'

boot badinit debian-rt cyclictest-idle --append rdinit=/nonexistent
check "bad init: status boot_failed" has "$tmp/badinit.info" \
	'^status=boot_failed$'
check "bad init: console.log attached and holds the panic" \
	has "$tmp/badinit.console" 'Kernel panic'
check "bad init: rtlab boot reports boot_failed" \
	has "$tmp/badinit.out" '^status: +boot_failed'

boot panic debian-rt cyclictest-idle --inject-fault panic
check "panic: status panic" has "$tmp/panic.info" '^status=panic$'
check "panic: error quotes the console" \
	has "$tmp/panic.info" '^error=kernel panic while measuring: Kernel panic'
check "panic: console.log attached" has "$tmp/panic.console" \
	'sysrq triggered crash'

boot hang debian-rt cyclictest-idle --inject-fault hang --hang-timeout 10
check "hang: status hang" has "$tmp/hang.info" '^status=hang$'
check "hang: console.log attached" has "$tmp/hang.console" \
	'RTLAB-AGENT-START'
check "hang: the timeout counted the time QEMU could run" \
	has "$tmp/hang.info" '^error=board silent for 10 s of QEMU running'

# --- the watchdog: a busy host is not a hung kernel -----------------------
# qemu_pid DIR PID: the QEMU booting with its work directory under DIR,
# looked for while rtlab boot PID lives.
qemu_pid() {
	while kill -0 "$2" 2>/dev/null; do
		_q=$(pgrep -f -- "-serial file:$1/" | head -n 1)
		if [ -n "$_q" ]; then
			echo "$_q"
			return 0
		fi
		sleep 0.2
	done
	return 1
}
# watched NAME SIGNAL [rtlab boot options...]: boot in the background, send
# SIGNAL to its QEMU; rtlab boot's pid in $bp, QEMU's in $qp.
watched() {
	n=$1 sig=$2; shift 2
	mkdir -p "$tmp/$n.d"
	TMPDIR=$tmp/$n.d "$rtlab" boot -q --board qemu-icount \
		--kernel debian-rt --duration 1 --out "$tmp/$n.bundle" \
		--testcase "$top/testcases/cyclictest-idle.yaml" "$@" \
		>"$tmp/$n.out" 2>&1 &
	bp=$!
	qp=$(qemu_pid "$tmp/$n.d" $bp) && kill "-$sig" "$qp"
}

# QEMU stopped (as on a host too busy to run it) for longer than the boot
# timeout: none of that time counts, so the boot completes.
watched stop STOP --boot-timeout 40
sleep 45	# the stop must outlast the boot timeout
kill -CONT "$qp" 2>/dev/null
wait $bp
rc=$?
echo "# stop: exit $rc: $(tr '\n' ' ' <"$tmp/stop.out")"
check "QEMU stopped past the boot timeout: the run completes" test $rc = 0
check "... the watchdog saw QEMU stopped, not running" awk \
	'/^watchdog:/ { s = $0; sub(/.*stopped /, "", s); exit !(s + 0 >= 40) }' \
	"$tmp/stop.out"

# QEMU killed from outside: the host's failure, no run, no bundle.
watched killed KILL
wait $bp
rc=$?
echo "# killed: exit $rc: $(tr '\n' ' ' <"$tmp/killed.out")"
check "QEMU killed with SIGKILL: no bundle (exit 1)" test $rc = 1
check "... an infrastructure error naming the signal" has "$tmp/killed.out" \
	'infrastructure error: board qemu-icount: QEMU was killed by signal 9'
check "... and no bundle written" test ! -e "$tmp/killed.bundle"

boot corrupt debian-rt cyclictest-idle --inject-fault corrupt
check "damaged transfer: status agent_error" has "$tmp/corrupt.info" \
	'^status=agent_error$'
check "damaged transfer: error says so" has "$tmp/corrupt.info" \
	'^error=channel: .*damaged in transit'
check "damaged transfer: console.log attached" \
	has "$tmp/corrupt.info" '^file=console.log [1-9]'
exit 0
