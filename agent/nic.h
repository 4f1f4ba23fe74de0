/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_NIC_H
#define RTLAB_AGENT_NIC_H

/*
 * The board's NIC for a load whose traffic comes from outside the board
 * (a network load in mode iperf3-nic): which interface it is, what it
 * received, and when the load's server listens.
 */

#include <stdbool.h>
#include <stddef.h>
#include "error.h"

struct nic_stats {
	unsigned long long rx_bytes;
	unsigned long long rx_packets;
};

/**
 * nic_find() - the first network interface under @net_root (normally
 * /sys/class/net) that is backed by a device (so not lo, not a bridge or
 * tunnel), in name order.  Fills @ifname and @driver (the device's
 * driver, "virtio_net"; "" when unknown).
 * Return: 0, or -ENOENT when the board has no such interface.
 */
int nic_find(const char *net_root, char *ifname, size_t ifsize, char *driver,
	     size_t drvsize) __must_check;

/**
 * nic_stats_get() - @ifname's statistics/rx_bytes and rx_packets under
 * @net_root.  Return: 0 or a negative errno.
 */
int nic_stats_get(const char *net_root, const char *ifname,
		  struct nic_stats *st) __must_check;

/**
 * nic_tcp_listening() - does the table @proc_net_tcp (/proc/net/tcp)
 * hold a listening socket on @addr (dotted IPv4) port @port?
 */
bool nic_tcp_listening(const char *proc_net_tcp, const char *addr,
		       unsigned int port);

#endif
