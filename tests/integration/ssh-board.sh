#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The ssh board end to end, through a real sshd: the "board" is a QEMU guest
# booting Debian's PREEMPT_RT kernel with its own small system (busybox,
# dropbear, kexec-tools), reachable only through a port forwarded to
# 127.0.0.1 (user networking with restrict=on: the guest reaches nothing).
# Its power commands kill and restart that QEMU, its console is QEMU's
# serial port.  A job queued with `rtlab job add` runs on it (kexec into the
# job's kernel and initramfs, the bundle fetched over ssh) and is stored
# like any other; a kernel that panics comes back as a panic run after a
# power cycle; a wrong key and an unreachable board are infrastructure
# errors that requeue the job and end infra-failed, storing no run.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-sshtest.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
export TMPDIR=$work

for t in dropbear dropbearkey kexec ssh ssh-keygen qemu-system-x86_64 cpio; do
	if ! command -v $t >/dev/null 2>&1 && [ ! -x /usr/sbin/$t ]; then
		not_ok "$t is installed (make deps)"
		exit 1
	fi
done

need_db
sql() { "$RTLAB" db psql -X -q -t -A -c "$1" 2>>"$work/psql.err"; }

"$RTLAB" kernel fetch debian-rt >"$work/kfetch.out" 2>&1
check "kernel fetch debian-rt" test $? = 0
image=$(sed -n 's/^image: *//p' "$work/kfetch.out")
moddir=$(sed -n 's/^modules: *//p' "$work/kfetch.out")

# -- the board's own system ---------------------------------------------------
ssh-keygen -q -t ed25519 -N '' -f "$work/key" </dev/null >/dev/null
ssh-keygen -q -t ed25519 -N '' -f "$work/wrongkey" </dev/null >/dev/null

# resident_initrd OUT: busybox, dropbear, kexec and the virtio network
# driver; brings up 10.0.2.15 and dropbear on port 22.
resident_initrd() {
	s=$work/resident
	rm -rf "$s"
	mkdir -p "$s/bin" "$s/usr/sbin" "$s/etc/dropbear" "$s/root/.ssh" \
		"$s/proc" "$s/sys" "$s/dev" "$s/tmp"
	cp /usr/bin/busybox "$s/bin/busybox" || return 1
	for b in /usr/sbin/dropbear /usr/sbin/kexec; do
		cp "$b" "$s$b" || return 1
		for l in $(ldd "$b" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p;
				s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
			mkdir -p "$s$(dirname "$l")"
			cp -L "$l" "$s$l" || return 1
		done
	done
	rel=$(basename "$moddir")
	mkdir -p "$s/lib/modules/$rel"
	for m in $(grep -E '/(virtio_net|virtio_pci)\.ko[^:]*:' \
		"$moddir/modules.dep" | tr -d :); do
		mkdir -p "$s/lib/modules/$rel/$(dirname "$m")"
		cp "$moddir/$m" "$s/lib/modules/$rel/$m" || return 1
		grep "^$m:" "$moddir/modules.dep" >>"$s/lib/modules/$rel/modules.dep"
	done
	cp "$work/key.pub" "$s/root/.ssh/authorized_keys"
	dropbearkey -t ed25519 -f "$s/etc/dropbear/host_key" >/dev/null 2>&1
	echo 'root:x:0:0:root:/root:/bin/sh' >"$s/etc/passwd"
	echo 'root:x:0:' >"$s/etc/group"
	cat >"$s/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
modprobe virtio_pci
modprobe virtio_net
i=0
while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
dropbear -r /etc/dropbear/host_key -p 22
echo RESIDENT-UP
while :; do sleep 3600; done
EOF
	chmod 755 "$s/init"
	(cd "$s" && find . | cpio -o -H newc --quiet) | gzip -1 >"$1"
}
resident_initrd "$work/resident.img"
check "the board's own system (busybox, dropbear, kexec) is built" \
	test -s "$work/resident.img"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The power commands: the board is a QEMU whose console is a file.
cat >"$work/power-on" <<EOF
#!/bin/sh
exec nice -n 10 qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 \\
	-nodefaults -no-reboot -display none -daemonize \\
	-pidfile "$work/board.pid" -serial file:"$work/board-console" \\
	-netdev user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$port-:22 \\
	-device virtio-net-pci,netdev=n0 \\
	-kernel "$image" -initrd "$work/resident.img" \\
	-append "console=ttyS0 noirqdebug"
EOF
cat >"$work/power-off" <<EOF
#!/bin/sh
pid=\$(cat "$work/board.pid" 2>/dev/null) || exit 0
kill -9 \$pid 2>/dev/null
while kill -0 \$pid 2>/dev/null; do sleep 0.1; done
rm -f "$work/board.pid"
EOF
chmod +x "$work/power-on" "$work/power-off"
on_exit "'$work/power-off'"
# board NAME KEY PORT: an ssh board definition
board() {
	cat >"$work/$1.yaml" <<EOF
kind: ssh
description: a QEMU guest standing in for a board
host: 127.0.0.1
port: $3
user: root
key: $2
cmdline: console=ttyS0 noirqdebug
console: exec tail -n 0 -F $work/board-console
power_on: $work/power-on
power_off: $work/power-off
power_cycle: $work/power-off; $work/power-on
boot_timeout_s: 600
hang_margin_s: 300
slowdown: 40
up_timeout_s: 600
EOF
	printf '{"board": "%s"}\n' "$work/$1.yaml" >"$work/$1.json"
	"$RTLAB" board add "$1" --kind ssh --definition "$work/$1.json" \
		--quiet >/dev/null 2>>"$work/board.err"
}
board ssh1 "$work/key" "$port"
check "an ssh board is registered" \
	test "$(sql "SELECT kind FROM boards WHERE name = 'ssh1'")" = ssh

"$work/power-on"
i=0
while ! grep -q RESIDENT-UP "$work/board-console" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 3000 ] && break
	sleep 0.1
done
check "the board boots its own system" grep -q RESIDENT-UP "$work/board-console"

# -- a job through sshd and kexec --------------------------------------------
J=$("$RTLAB" job add --kernel debian-rt --board ssh1 \
	--testcase cyclictest-idle --duration 2 --quiet 2>"$work/add.err")
check "job add queues a job for the ssh board" test -n "$J"
[ -n "$J" ] || cat "$work/add.err"
"$RTLAB" worker --drain --board ssh1 >"$work/w1.out" 2>"$work/w1.err"
check "the worker runs it and exits 0" test $? = 0
# What the ssh path costs beyond the measurement (printed, not asserted).
echo "# ssh board: $(sql "SELECT 'upload ' ||
	round((manifest->'ssh_board'->>'upload_bytes')::numeric / 1048576, 1) ||
	' MiB in ' || round((manifest->'ssh_board'->>'upload_s')::numeric, 1) ||
	' s, kexec to agent start ' ||
	round((manifest->'ssh_board'->>'boot_s')::numeric, 1) ||
	' s, bundle fetched in ' ||
	round((manifest->'ssh_board'->>'fetch_s')::numeric, 1) || ' s'
	FROM runs WHERE job_id = ${J:-0}")"
check "the job is done" \
	test "$(sql "SELECT state FROM jobs WHERE id = ${J:-0}")" = done
R=$(sql "SELECT run_uuid FROM jobs WHERE id = ${J:-0}")
check "its run is stored, complete, from the ssh board" \
	test "$(sql "SELECT r.status || ':' || b.name FROM runs r
		JOIN boards b ON b.id = r.board_id WHERE r.uuid = '$R'")" \
		= complete:ssh1
grep -q "RTLAB-AGENT-START run=$R" "$work/board-console"
check "the job's kernel ran the agent (kexec'd, seen on the console)" \
	test $? = 0
"$RTLAB" show "$R" >"$work/show.out" 2>&1
check "rtlab show shows the run" has "$work/show.out" "$R"
[ $? = 0 ] || sed 's/^/#   /' "$work/w1.err"

# -- a kernel that panics ----------------------------------------------------
cat >"$work/panicky.yaml" <<EOF
name: panicky
kind: debian
package: linux-image-rt-amd64
tree: debian-rt
cmdline: rtlab.fault=panic
EOF
P=$("$RTLAB" job add --kernel "$work/panicky.yaml" --board ssh1 \
	--testcase cyclictest-idle --duration 2 --quiet 2>>"$work/add.err")
"$RTLAB" worker --drain --board ssh1 >"$work/w2.out" 2>"$work/w2.err"
check "a panicking kernel: its run is stored as panic" \
	test "$(sql "SELECT r.status FROM runs r JOIN jobs j
		ON j.run_uuid = r.uuid WHERE j.id = ${P:-0}")" = panic
perr=$(sql "SELECT r.error FROM runs r JOIN jobs j ON j.run_uuid = r.uuid
	WHERE j.id = ${P:-0}")
case $perr in
*"Kernel panic"*"power-cycled, the board is back"*) ok "... with the panic line and the power cycle in its error" ;;
*) not_ok "... with the panic line and the power cycle in its error"
	echo "# error: $perr"
	sed 's/^/#   /' "$work/w2.err" ;;
esac
check "... the board was power-cycled back to its own system" \
	test "$(grep -c RESIDENT-UP "$work/board-console")" = 1

# -- bad boards: infrastructure errors, nothing stored -----------------------
board ssh-wrongkey "$work/wrongkey" "$port"
W=$("$RTLAB" job add --kernel debian-rt --board ssh-wrongkey \
	--testcase cyclictest-idle --duration 1 --quiet 2>>"$work/add.err")
"$RTLAB" worker --drain --board ssh-wrongkey >"$work/w3.out" 2>"$work/w3.err"
check "a wrong key: the job ends infra-failed after its attempts" \
	test "$(sql "SELECT state || ':' || infra_errors FROM jobs
		WHERE id = ${W:-0}")" = failed:3
check "... saying the board refused the key" \
	test "$(sql "SELECT error LIKE '%board ssh-wrongkey: ssh root@127.0.0.1%Permission denied%'
		FROM jobs WHERE id = ${W:-0}")" = t
check "... no run stored" \
	test "$(sql "SELECT count(*) FROM runs r JOIN jobs j ON j.run_uuid = r.uuid
		WHERE j.id = ${W:-0}")" = 0

noport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
board ssh-gone "$work/key" "$noport"
sed -i '/^power_/d; s/^up_timeout_s: .*/up_timeout_s: 5/' "$work/ssh-gone.yaml"
G=$("$RTLAB" job add --kernel debian-rt --board ssh-gone \
	--testcase cyclictest-idle --duration 1 --quiet 2>>"$work/add.err")
"$RTLAB" worker --drain --board ssh-gone >"$work/w4.out" 2>"$work/w4.err"
check "an unreachable board: infra-failed, naming the address" \
	test "$(sql "SELECT state || ':' || (error LIKE '%port $noport%')
		FROM jobs WHERE id = ${G:-0}")" = failed:true
check "the queue kept moving: nothing left queued or running" \
	test "$(sql "SELECT count(*) FROM jobs WHERE state IN
		('queued', 'running')")" = 0
