#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Calibration on the icount virtual board with Debian's PREEMPT_RT kernel:
# the rtlab_inject module builds against the kernel's own Debian headers
# and its vermagic matches the release; then `rtlab calibrate` boots the
# board 15 times (3 s runs): 5 clean against 5 clean (the module not
# loaded: must not be a REGRESSION) and 5 with the module spinning 300 us
# with preemption off every 100 ms +/- 50 % (must be a REGRESSION, and
# each such run's kernel log shows the module loaded, injecting with its
# recorded seed, and removed).  About 4-5 minutes on 2 cores.
#
# The kernel cache persists in $RTLAB_BUILD/test-state between runs (set
# RTLAB_TEST_STATE, or RTLAB_CACHE_DIR, to put it elsewhere), so only the
# first run downloads.
set -u
. "$(dirname "$0")/../lib.sh"
export RTLAB_DATADIR="$TOP"
export RTLAB_STATE_DIR=${RTLAB_TEST_STATE:-$RTLAB_BUILD/test-state}
mkdir -p "$RTLAB_STATE_DIR"

tmp=$(mktemp -d /tmp/rtlab-calibrate-vboard.XXXXXX)
on_exit "rm -rf '$tmp'"

"$RTLAB" kernel fetch debian-rt >"$tmp/k.out" 2>&1
check "kernel fetch debian-rt" test $? = 0
release=$(sed -n 's/^release: *//p' "$tmp/k.out")

"$RTLAB" calibrate --board qemu-icount --kernel debian-rt --pairs 1 \
	--runs 5 --spins 300 --duration 3 --json --no-store \
	--keep "$tmp/keep" >"$tmp/cal.json" 2>"$tmp/cal.err"
rc=$?
check "rtlab calibrate --board qemu-icount ran (status $rc)" test $rc = 0
[ $rc = 0 ] || sed 's/^/#   /' "$tmp/cal.err" | tail -n 30

# The module, as calibrate built it into the kernel cache.
ko=$(ls "${RTLAB_CACHE_DIR:-$RTLAB_STATE_DIR/cache}"/kernels/modules/"$release"/rtlab_inject-*/rtlab_inject.ko 2>/dev/null | head -n 1)
check "rtlab_inject.ko was built for $release" test -n "$ko"
vm=$(modinfo -F vermagic "$ko" 2>/dev/null)
check "its vermagic matches the kernel ($vm)" \
	sh -c "case '$vm' in '$release '*) exit 0 ;; esac; exit 1"
check "the module travels in an initramfs archive" \
	sh -c "gzip -dc '$tmp/keep/inject.cpio.gz' | cpio -t 2>/dev/null |
		grep -qx 'lib/modules/$release/extra/rtlab_inject.ko'"

aa=$(jq -r '.comparisons[] | select(.kind == "aa") | .verdict' \
	"$tmp/cal.json" 2>/dev/null)
check "clean vs clean (module unloaded) is not a REGRESSION ($aa)" \
	sh -c "test -n '$aa' && test '$aa' != REGRESSION"
det=$(jq -r '.comparisons[] | select(.kind == "injected") | .verdict' \
	"$tmp/cal.json" 2>/dev/null)
check "300 us preempt-off spins are a REGRESSION ($det)" \
	test "$det" = REGRESSION
check "the result says the board's clock (icount)" \
	sh -c "jq -r .clock '$tmp/cal.json' | grep -q '^icount'"

# Sets 0 and 1 are clean, set 2 injected (see `rtlab calibrate --keep`).
ok_runs=0
for i in 0 1 2 3 4; do
	b=$tmp/keep/set2-run$i.bundle
	tar -xzf "$b" -O dmesg.txt >"$tmp/d$i" 2>/dev/null || continue
	seed=$(tar -xzf "$b" -O manifest.json | jq -r '.commands[]' |
		sed -n 's/.* inject --mode preempt .*--seed \([0-9]*\).*/\1/p')
	[ -n "$seed" ] || continue
	grep -q "rtlab-agent inject: insmod /lib/modules/$release/extra/rtlab_inject.ko .*seed=$seed" "$tmp/d$i" &&
	grep -Eq "rtlab_inject: stopped after [1-9][0-9]* injections \(seed=$seed\)" "$tmp/d$i" &&
	grep -q "rtlab-agent inject: rmmod rtlab_inject" "$tmp/d$i" &&
		ok_runs=$((ok_runs + 1))
done
check "every injected run loaded the module with its seed, injected, removed it ($ok_runs/5)" \
	test $ok_runs = 5
tar -xzf "$tmp/keep/set0-run0.bundle" -O dmesg.txt >"$tmp/clean" 2>/dev/null
check "a clean run never saw the module" \
	sh -c "test -s '$tmp/clean' && ! grep -q rtlab_inject '$tmp/clean'"
