// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The agent's NIC functions against a faked sysfs and /proc/net/tcp: the
 * interface backed by a device, its receive counters, a listening socket.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "scratch.h"
#include "../../agent/nic.h"

static void test_find(void)
{
	char ifname[32], drv[32];
	struct nic_stats st = { 0 };

	mkdir(scratch_path("net"), 0755);
	CHECK_INT(nic_find(scratch_path("net"), ifname, sizeof(ifname), drv,
			   sizeof(drv)),
		  -ENOENT, "no interface at all: -ENOENT");
	mkdir(scratch_path("net/lo"), 0755);
	mkdir(scratch_path("net/sit0"), 0755);
	CHECK_INT(nic_find(scratch_path("net"), ifname, sizeof(ifname), drv,
			   sizeof(drv)),
		  -ENOENT, "lo and a tunnel have no device: -ENOENT");
	mkdir(scratch_path("drivers"), 0755);
	mkdir(scratch_path("drivers/virtio_net"), 0755);
	mkdir(scratch_path("virtio1"), 0755);
	CHECK(!symlink("../drivers/virtio_net", scratch_path("virtio1/driver")),
	      "fake driver link");
	mkdir(scratch_path("net/eth0"), 0755);
	CHECK(!symlink("../../virtio1", scratch_path("net/eth0/device")),
	      "fake device link");
	mkdir(scratch_path("net/eth0/statistics"), 0755);
	scratch_put("net/eth0/statistics/rx_bytes", "71555879\n");
	scratch_put("net/eth0/statistics/rx_packets", "47294\n");
	CHECK_INT(nic_find(scratch_path("net"), ifname, sizeof(ifname), drv,
			   sizeof(drv)),
		  0, "the interface with a device is found");
	CHECK_STR(ifname, "eth0", "... eth0");
	CHECK_STR(drv, "virtio_net", "... its driver, from the device's link");
	CHECK_INT(nic_stats_get(scratch_path("net"), "eth0", &st), 0,
		  "eth0's counters read");
	CHECK(st.rx_bytes == 71555879ULL && st.rx_packets == 47294ULL,
	      "rx_bytes and rx_packets");
	CHECK(nic_stats_get(scratch_path("net"), "eth1", &st) < 0,
	      "an interface without counters: an error");
}

static void test_listening(void)
{
	const char *tcp = scratch_path("tcp");

	scratch_put("tcp",
		    "  sl  local_address rem_address   st tx_queue rx_queue tr "
		    "tm->when retrnsmt   uid  timeout inode\n"
		    "   0: 0100007F:1451 00000000:0000 0A 00000000:00000000 "
		    "00:00000000 00000000     0        0 1 1 0 100 0 0 10 0\n"
		    "   1: 0F02000A:1452 0202000A:C000 01 00000000:00000000 "
		    "00:00000000 00000000     0        0 2 1 0 100 0 0 10 0\n");
	CHECK(!nic_tcp_listening(tcp, "10.0.2.15", 5201),
	      "listening on 127.0.0.1 only is not the NIC's address");
	CHECK(!nic_tcp_listening(tcp, "10.0.2.15", 5202),
	      "an established connection is not listening");
	scratch_put("tcp",
		    "  sl  local_address rem_address   st\n"
		    "   0: 0F02000A:1451 00000000:0000 0A 00000000:00000000 "
		    "00:00000000 00000000     0        0 1 1 0 100 0 0 10 0\n");
	CHECK(nic_tcp_listening(tcp, "10.0.2.15", 5201),
	      "listening on 10.0.2.15:5201");
	scratch_put("tcp",
		    "  sl  local_address rem_address   st\n"
		    "   0: 00000000:1451 00000000:0000 0A 00000000:00000000 "
		    "00:00000000 00000000     0        0 1 1 0 100 0 0 10 0\n");
	CHECK(nic_tcp_listening(tcp, "10.0.2.15", 5201),
	      "listening on every address counts");
	CHECK(!nic_tcp_listening(scratch_path("none"), "10.0.2.15", 5201),
	      "no table: not listening");
}

int main(void)
{
	if (scratch_create("rtlab-nic")) {
		perror("mkdtemp");
		return 1;
	}
	test_find();
	test_listening();
	scratch_destroy();
	return check_exit();
}
