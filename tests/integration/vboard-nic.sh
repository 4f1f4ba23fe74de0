#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A network load from outside the board, end to end: the shipped
# cyclictest-network-nic testcase, shortened, on the icount virtual board
# with Debian's PREEMPT_RT kernel.  QEMU's user network (restrict=on, one
# port forwarded from 127.0.0.1) feeds a virtio-net NIC; the host's iperf3
# client sends into the board's iperf3 server.  Checks that the NIC
# received a real flow (rx_packets in the manifest), that the end-of-run
# trace shows the packets taken in by the virtio device's interrupt
# thread under the NET_RX softirq, and that the host's client is gone
# once the run is over.  Then a client the board never answers: the run
# ends as agent_error with the reason, not a hang.
#
# The kernel is fetched once into the cache all tests share
# ($RTLAB_CACHE_DIR, see tests/lib.sh).
. "$(dirname "$0")/../lib.sh"

DURATION_S=3
MIN_PACKETS=1000
vb_state=${RTLAB_TEST_STATE:-$RTLAB_BUILD/test-state}
work=$(mktemp -d /tmp/rtlab-vbnic.XXXXXX) || exit 1
on_exit "rm -rf '$work'"

if ! command -v iperf3 >/dev/null; then
	not_ok "iperf3 on the host (make deps installs it)"
	exit 1
fi

# The shipped testcase, its buffer lowered and kept as the run ends (the
# traffic runs the whole measurement, so the last events hold it).
sed -e 's/^  buffer_kb: .*/  buffer_kb: 2048\n  capture: end_of_run/' \
	"$TOP/testcases/cyclictest-network-nic.yaml" >"$work/testcase.yaml"
check "short variant of cyclictest-network-nic.yaml keeps the end of the run" \
	grep -qx "  capture: end_of_run" "$work/testcase.yaml"

vboard_boot b "the board ran the testcase" "$work/testcase.yaml" \
	--duration $DURATION_S || exit 1
check "manifest: status complete ($(jq -r '"\(.status) \(.error)"' "$m"))" \
	test "$(jq -r .status "$m")" = complete

# The host's side: the netdev, the forwarded port, the client.
vb=$(jq -c .virtual_board.nic_load "$m")
qcmd=$(jq -r .virtual_board.qemu_command "$m")
port=$(jq -r .virtual_board.nic_load.host_port "$m")
check "manifest: virtual_board.nic_load, answered, no error ($vb)" \
	jqt '.virtual_board.nic_load | .device == "virtio-net-pci" and
	 .answered == true and .error == null and .client_starts >= 1 and
	 .host_port > 0' "$m"
check "QEMU ran user networking with restrict=on, forwarding 127.0.0.1:$port only" \
	sh -c 'case "$1" in
	*"-netdev user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$2-10.0.2.15:5201 "*"-device virtio-net-pci,netdev=n0"*) ;;
	*) exit 1 ;; esac' - "$qcmd" "$port"
check "the host's iperf3 client is gone after the run" \
	sh -c '! pgrep -f "^iperf3 -c 127.0.0.1 -p $1 " >/dev/null' - "$port"

# The board's side: the NIC and what it received.
nic=$(jq -c '.testcase.definition.loads[0].nic' "$m")
check "manifest: the load's nic names a virtio_net interface ($nic)" \
	jqt '.testcase.definition.loads[0].nic | .source == "outside" and
	 .driver == "virtio_net" and (.interface | length > 0)' "$m"
packets=$(jq -r '.testcase.definition.loads[0].nic.rx_packets' "$m")
check "the NIC received more than $MIN_PACKETS packets during the measurement ($packets)" \
	test "$packets" -gt $MIN_PACKETS
check "rx counters: after - before = received" \
	jqt '.testcase.definition.loads[0].nic |
	 .rx_packets == .rx_packets_after - .rx_packets_before and
	 .rx_bytes == .rx_bytes_after - .rx_bytes_before' "$m"
ifname=$(jq -r '.testcase.definition.loads[0].nic.interface' "$m")
echo "# $packets packets, $(jq -r '.testcase.definition.loads[0].nic.rx_bytes' "$m") bytes in $DURATION_S s of measurement on $ifname"

# The trace: packets taken in under NET_RX by the NIC's interrupt thread.
if ! trace-cmd report "$work/b/trace.dat" >"$work/report" \
	2>"$work/report.err"; then
	not_ok "trace-cmd report on this host parses trace.dat"
	tail -5 "$work/report.err"
	exit 1
fi
ok "trace-cmd report on this host parses trace.dat"
rx=$(grep -c " netif_receive_skb: *dev=$ifname " "$work/report")
check "trace: net:netif_receive_skb events on $ifname ($rx)" test "$rx" -gt 0
vth=$(grep " netif_receive_skb: *dev=$ifname " "$work/report" |
	grep -c '^ *irq/[0-9]*-virtio')
check "trace: ... taken in by a virtio interrupt thread ($vth)" \
	test "$vth" -gt 0
netrx=$(grep -c " softirq_entry: *vec=3 " "$work/report")
check "trace: irq:softirq_entry vec=3 (NET_RX) ($netrx)" test "$netrx" -gt 0
input=$(grep -c " irq_handler_entry: *irq=[0-9]* name=virtio[0-9]*-input" \
	"$work/report")
check "trace: the virtio-net receive queue's interrupt ($input)" \
	test "$input" -gt 0

# A client that never gets an answer (here: refused by iperf3 itself, an
# option it does not know, passed through the load's args) does not hang
# the run: the host retries until the measurement ends, the run becomes
# agent_error with the reason, and no client is left behind.
sed -e 's/^    port: 5201$/    port: 5201\n    args: [--no-such-option]/' \
	"$TOP/testcases/cyclictest-network-nic.yaml" >"$work/bad.yaml"
check "variant with a client that cannot run" \
	grep -q -- "--no-such-option" "$work/bad.yaml"
RTLAB_STATE_DIR=$vb_state "$RTLAB" boot --board qemu-icount \
	--kernel debian-rt --testcase "$work/bad.yaml" \
	--duration 2 --out "$work/bad.bundle" -q \
	>"$work/bad.out" 2>&1
rc=$?
check "rtlab boot with the unanswered client ends, exit non-zero ($rc)" \
	test $rc != 0
check "rtlab boot says why on stderr" \
	grep -q "network load (iperf3-nic): the board's iperf3 server" \
	"$work/bad.out"
mkdir "$work/bad"
tar xzf "$work/bad.bundle" -C "$work/bad" 2>/dev/null
bm=$work/bad/manifest.json
check "manifest: agent_error, the reason in error ($(jq -r .error "$bm" 2>/dev/null))" \
	jqt '.status == "agent_error" and
	 (.error | test("never answered")) and
	 .virtual_board.nic_load.answered == false and
	 .virtual_board.nic_load.client_starts >= 1' "$bm"
bport=$(jq -r .virtual_board.nic_load.host_port "$bm")
check "no host client left behind" \
	sh -c '! pgrep -f "^iperf3 -c 127.0.0.1 -p $1 " >/dev/null' - "$bport"
