#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the virtual board's initramfs.  Mounts what the agent and
# cyclictest need, runs the agent on the job in /job, and sends the result
# bundle to the host over the virtio-serial port "rtlab.0", framed as
#
#   RTLAB-BUNDLE v1 <size> <sha256>\n  <size bytes>  RTLAB-END v1\n
#
# then powers off.  On an ssh board (/job/ssh, RTLAB_TRANSPORT=ssh) it
# brings up the board's network and an sshd instead, keeps the bundle in
# /tmp/bundle.tar.gz and says how far it got in /tmp/rtlab-status
# ("up|agent|done|not-sent RUN_ID"); the host fetches the bundle over ssh
# and the board stays up for the next kexec.  Progress markers on the console (RTLAB-...) tell the
# host where the board got to; the host turns silence, panics and missing
# markers into boot_failed / panic / hang results.

/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/shm /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up

. /job/params
RTLAB_TRANSPORT=virtio
[ -f /job/ssh ] && . /job/ssh
echo "RTLAB-BOARD-UP release=$(uname -r) run=$RTLAB_RUN_ID"
status() { echo "$1 $RTLAB_RUN_ID" >/tmp/rtlab-status; }

# net_up TRIES ADDR MAC: wait (TRIES times 0.1 s) for the interface with
# MAC, or with MAC empty the first one backed by a device (names differ
# between kernels), and bring it up at ADDR; its name in $netif.
net_up() {
	netif=""
	i=0
	while [ -z "$netif" ] && [ $i -lt "$1" ]; do
		for d in /sys/class/net/*; do
			if [ -n "$3" ]; then
				[ "$(cat "$d/address" 2>/dev/null)" = "$3" ] &&
					netif=${d##*/}
			else
				[ -e "$d/device" ] && netif=${d##*/} && break
			fi
		done
		[ -n "$netif" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -n "$netif" ] || return 1
	ip link set "$netif" up
	ip addr add "$2" dev "$netif"
}

if [ "$RTLAB_TRANSPORT" = ssh ]; then
	# The board's interface, found by its MAC (names differ between
	# kernels), with the address it had before the kexec.
	modprobe virtio_pci 2>/dev/null # the bus of a virtual board's NIC
	for m in $RTLAB_NET_MODULES; do modprobe "$m" 2>/dev/null; done
	if net_up 100 "$RTLAB_NET_ADDR" "$RTLAB_NET_MAC"; then
		[ -n "$RTLAB_NET_GW" ] &&
			ip route add default via "$RTLAB_NET_GW" dev "$netif"
	else
		echo "RTLAB-NO-NETWORK (no interface with MAC $RTLAB_NET_MAC)"
	fi
	echo 'root:x:0:0:root:/root:/bin/sh' >/etc/passwd
	echo 'root:x:0:' >/etc/group
	mkdir -p /root/.ssh /etc/dropbear
	chmod 700 /root /root/.ssh
	cp /job/authorized_keys /root/.ssh/authorized_keys
	dropbearkey -t ed25519 -f /etc/dropbear/host_key >/dev/null 2>&1
	dropbear -r /etc/dropbear/host_key -p "${RTLAB_SSH_PORT:-22}"
	status up
fi

# The channel: virtio_console may be a module (shipped in the kernel archive).
port=""
i=0
[ "$RTLAB_TRANSPORT" = ssh ] && i=50
[ $i = 0 ] && modprobe virtio_pci 2>/dev/null
[ $i = 0 ] && modprobe virtio_console 2>/dev/null
while [ $i -lt 50 ]; do
	for p in /sys/class/virtio-ports/*; do
		[ -e "$p/name" ] || continue
		if [ "$(cat "$p/name")" = rtlab.0 ]; then
			port=/dev/${p##*/}
		fi
	done
	[ -n "$port" ] && [ -e "$port" ] && break
	sleep 0.1
	i=$((i + 1))
done
[ -n "$port" ] || [ "$RTLAB_TRANSPORT" = ssh ] || echo "RTLAB-NO-CHANNEL (no virtio port named rtlab.0)"

# A load from outside the board (network mode iperf3-nic): QEMU's user
# network behind a virtio-net NIC, at the guest address it expects; the
# host sends into it once the agent says RTLAB-NIC-LOAD-UP.
if [ -n "${RTLAB_NIC_ADDR:-}" ]; then
	modprobe virtio_pci 2>/dev/null
	modprobe virtio_net 2>/dev/null
	if net_up 50 "$RTLAB_NIC_ADDR" ""; then
		echo "RTLAB-NIC-UP if=$netif addr=$RTLAB_NIC_ADDR"
	else
		echo "RTLAB-NO-NIC (no network interface appeared)"
	fi
fi

fault=""
[ -f /job/fault ] && fault=$(cat /job/fault)
# ... or from the kernel's command line (a test's kernel definition with
# cmdline "rtlab.fault=panic": a kernel that panics, queued like any job)
for a in $(cat /proc/cmdline); do
	case "$a" in
	rtlab.fault=*) fault=${a#rtlab.fault=} ;;
	esac
done

echo "RTLAB-AGENT-START run=$RTLAB_RUN_ID"
status agent
# Test-only faults, asked for by the test suite through /job/fault; a
# normal job never carries that file.
case "$fault" in
panic)
	echo 1 >/proc/sys/kernel/sysrq
	echo c >/proc/sysrq-trigger
	;;
hang)
	while :; do sleep 3600; done
	;;
esac

out=/tmp/bundle.tar.gz
if [ -x /usr/bin/rtlab-agent ]; then
	# The board's interval, when it has one, replaces the testcase's.
	set --
	[ "${RTLAB_INTERVAL:-0}" != 0 ] && set -- --interval "$RTLAB_INTERVAL"
	# A testcase's own modules, carried by the job archive.
	[ -d /job/extras ] && set -- "$@" --extras /job/extras
	rtlab-agent run --testcase /job/testcase.yaml "$@" \
		--duration "$RTLAB_DURATION" --board "$RTLAB_BOARD" \
		--run-id "$RTLAB_RUN_ID" --clock "$RTLAB_CLOCK" \
		--kernel-name "${RTLAB_KERNEL_NAME:-}" \
		--kernel-tree "${RTLAB_KERNEL_TREE:-}" --out "$out"
	rc=$?
else
	# No agent in this initramfs: measure with cyclictest alone so the
	# boot and the channel can still be proven.
	d=/tmp/bundle
	mkdir -p $d
	start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	iv=${RTLAB_INTERVAL:-0}
	[ "$iv" = 0 ] && iv=1000
	cyclictest -m -p95 -i"$iv" -h 1000 -q -D "${RTLAB_DURATION}s" \
		--json=$d/cyclictest.json >$d/cyclictest.hist 2>$d/stderr.txt
	rc=$?
	rt=false
	[ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ] && rt=true
	status=complete
	[ $rc = 0 ] || status=agent_error
	dmesg >$d/dmesg.txt
	cat >$d/manifest.json <<EOF
{"format":"rtlab-bundle","format_version":1,"run_id":"$RTLAB_RUN_ID",
"board":"$RTLAB_BOARD","status":"$status",
"testcase":{"name":"cyclictest-only","duration_s":$RTLAB_DURATION,"hist_range_us":1000},
"kernel":{"release":"$(uname -r)","version":"$(uname -v)","realtime":$rt},
"environment":{"clock":"$RTLAB_CLOCK","cmdline":"$(cat /proc/cmdline)"},
"commands":["cyclictest -m -p95 -i$iv -h 1000 -q -D ${RTLAB_DURATION}s --json=cyclictest.json"],
"started_at":"$start","finished_at":"$(date -u +%Y-%m-%dT%H:%M:%SZ)"}
EOF
	tar -czf $out -C $d manifest.json cyclictest.json cyclictest.hist \
		dmesg.txt stderr.txt
fi
echo "RTLAB-AGENT-END rc=$rc"

if [ "$RTLAB_TRANSPORT" = ssh ]; then
	# The host fetches the bundle; the board waits for the next job.
	sync
	if [ -s "$out" ]; then
		status done
		echo "RTLAB-SENT size=$(wc -c <"$out")"
	else
		status not-sent
		echo "RTLAB-NOT-SENT (no bundle)"
	fi
	while :; do sleep 3600; done
fi

if [ -n "$port" ] && [ -s "$out" ]; then
	size=$(wc -c <"$out")
	sum=$(sha256sum "$out")
	sum=${sum%% *}
	if [ "$fault" = corrupt ]; then
		# damage one byte after the checksum was taken
		printf 'X' | dd of="$out" bs=1 seek=$((size / 2)) conv=notrunc \
			2>/dev/null
	fi
	{
		printf 'RTLAB-BUNDLE v1 %s %s\n' "$size" "$sum"
		cat "$out"
		printf 'RTLAB-END v1\n'
	} >"$port"
	echo "RTLAB-SENT size=$size"
else
	echo "RTLAB-NOT-SENT (no bundle or no channel)"
fi
sync
poweroff -f
