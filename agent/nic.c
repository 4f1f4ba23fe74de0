// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NIC an outside load sends into: found in sysfs by its device, its
 * receive counters read before and after the measurement (so the manifest
 * can show the traffic came in through it), and the load's server seen
 * listening in /proc/net/tcp before the host is told to send.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nic.h"

static int names_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int nic_find(const char *net_root, char *ifname, size_t ifsize, char *driver,
	     size_t drvsize)
{
	char path[PATH_MAX], link[PATH_MAX], **names = NULL, **nn;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	ssize_t len;
	DIR *d;
	int ret = -ENOENT;

	d = opendir(net_root);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				ret = -ENOMEM;
				goto out;
			}
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			ret = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), names_cmp);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/device", net_root,
			 names[i]);
		if (access(path, F_OK))
			continue;
		snprintf(ifname, ifsize, "%s", names[i]);
		driver[0] = '\0';
		snprintf(path, sizeof(path), "%s/%s/device/driver", net_root,
			 names[i]);
		len = readlink(path, link, sizeof(link) - 1);
		if (len > 0) {
			link[len] = '\0';
			snprintf(driver, drvsize, "%s",
				 strrchr(link, '/') ? strrchr(link, '/') + 1 :
						      link);
		}
		ret = 0;
		break;
	}
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return ret;
}

static int read_ull(const char *path, unsigned long long *v)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (fscanf(f, "%llu", v) != 1)
		ret = -EINVAL;
	fclose(f);
	return ret;
}

int nic_stats_get(const char *net_root, const char *ifname,
		  struct nic_stats *st)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/%s/statistics/rx_bytes", net_root,
		 ifname);
	ret = read_ull(path, &st->rx_bytes);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s/statistics/rx_packets", net_root,
		 ifname);
	return read_ull(path, &st->rx_packets);
}

bool nic_tcp_listening(const char *proc_net_tcp, const char *addr,
		       unsigned int port)
{
	char line[512];
	struct in_addr want;
	unsigned int a, p, st;
	bool yes = false;
	FILE *f;

	if (inet_pton(AF_INET, addr, &want) != 1)
		return false;
	f = fopen(proc_net_tcp, "re");
	if (!f)
		return false;
	/* "  0: 0F02000A:1451 00000000:0000 0A ...": the address in the
	 * kernel's byte order, state 0A is LISTEN */
	while (!yes && fgets(line, sizeof(line), f))
		if (sscanf(line, " %*u: %8x:%4x %*8x:%*4x %2x", &a, &p, &st) ==
			    3 &&
		    st == 0x0A && p == port &&
		    (a == want.s_addr || a == INADDR_ANY))
			yes = true;
	fclose(f);
	return yes;
}
