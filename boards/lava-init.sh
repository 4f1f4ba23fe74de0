#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the initramfs rtlab hands to LAVA (boards/lava.c).  As PID 1 it
# mounts what the agent needs and leaves a shell on the console with the
# prompt the job's boot action waits for ("rtlab-lava# "); LAVA's test
# shell then runs "/init run", which runs the agent on the job in /job and
# prints the result bundle on the console in base64 between
#
#   RTLAB-B64-BEGIN v1 <size> <sha256>
#   RTLAB-B64-END v1
#
# so that it comes back in LAVA's job log.  When the job gives rtlab's
# server as the board reaches it (RTLAB_UPLOAD_URL, the board's token in
# RTLAB_TOKEN), the agent uploads the bundle there first and only says
#
#   RTLAB-UPLOADED v1 run=<run id> size=<size> sha256=<sha256>
#
# falling back to the log when the server cannot be reached or refuses it.
# Progress markers (RTLAB-...) are the virtual board's.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root

if [ "${1:-}" != run ]; then
	/bin/busybox --install -s
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
	if [ -n "${RTLAB_UPLOAD_URL:-}" ]; then
		# QEMU's user network: the guest is 10.0.2.15, the host
		# 10.0.2.2; no default route, so nothing beyond that subnet.
		modprobe virtio_pci 2>/dev/null
		modprobe virtio_net 2>/dev/null
		netif=""
		i=0
		while [ -z "$netif" ] && [ $i -lt 100 ]; do
			for d in /sys/class/net/*; do
				[ -e "$d/device" ] && netif=${d##*/} && break
			done
			[ -n "$netif" ] || sleep 0.1
			i=$((i + 1))
		done
		if [ -n "$netif" ]; then
			ip link set "$netif" up
			ip addr add 10.0.2.15/24 dev "$netif"
			echo "RTLAB-NET-UP if=$netif"
		else
			echo "RTLAB-NO-NETWORK (no network interface appeared)"
		fi
	fi
	echo "RTLAB-BOARD-UP release=$(uname -r) run=$RTLAB_RUN_ID"
	echo 'export PS1="rtlab-lava# "' >/etc/profile
	# A shell on the console for LAVA, again whenever it exits.
	while :; do
		setsid cttyhack /bin/sh -l
	done
fi

. /job/params
fault=""
[ -f /job/fault ] && fault=$(cat /job/fault)
echo "RTLAB-AGENT-START run=$RTLAB_RUN_ID"
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
rm -f "$out"
set --
[ "${RTLAB_INTERVAL:-0}" != 0 ] && set -- --interval "$RTLAB_INTERVAL"
# A testcase's own modules, carried by the job archive.
[ -d /job/extras ] && set -- "$@" --extras /job/extras
# The agent's own output stays off the console: the log carries the bundle.
rtlab-agent run --testcase /job/testcase.yaml "$@" \
	--duration "$RTLAB_DURATION" --board "$RTLAB_BOARD" \
	--run-id "$RTLAB_RUN_ID" --clock "$RTLAB_CLOCK" \
	--kernel-name "${RTLAB_KERNEL_NAME:-}" \
	--kernel-tree "${RTLAB_KERNEL_TREE:-}" --out "$out" >/tmp/agent.log 2>&1
rc=$?
tail -n 5 /tmp/agent.log
echo "RTLAB-AGENT-END rc=$rc"
if [ -s "$out" ] && [ -n "${RTLAB_UPLOAD_URL:-}" ]; then
	size=$(wc -c <"$out")
	sum=$(sha256sum "$out")
	sum=${sum%% *}
	dmesg -n 1 # no kernel message inside the marker line
	spool=/tmp/spool
	mkdir -p $spool
	cp "$out" "$spool/$RTLAB_RUN_ID.bundle"
	rtlab-agent flush --force --spool $spool --upload "$RTLAB_UPLOAD_URL" \
		--token "$RTLAB_TOKEN" >/tmp/upload.log 2>&1
	tail -n 3 /tmp/upload.log
	if [ ! -e "$spool/$RTLAB_RUN_ID.bundle" ] &&
		[ ! -e "$spool/quarantine/$RTLAB_RUN_ID.bundle" ]; then
		echo "RTLAB-UPLOADED v1 run=$RTLAB_RUN_ID size=$size sha256=$sum"
		exit 0
	fi
	echo "RTLAB-UPLOAD-FAILED (the bundle follows in the log)"
fi
if [ -s "$out" ]; then
	size=$(wc -c <"$out")
	sum=$(sha256sum "$out")
	sum=${sum%% *}
	# kernel messages would land inside the lines (panics still print)
	dmesg -n 1
	echo "RTLAB-B64-BEGIN v1 $size $sum"
	base64 "$out"
	echo "RTLAB-B64-END v1"
	echo "RTLAB-SENT size=$size"
else
	echo "RTLAB-NOT-SENT (no bundle)"
fi
exit 0
