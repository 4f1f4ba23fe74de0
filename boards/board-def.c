// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Board definitions: reads boards/NAME.yaml and refuses what cannot boot
 * (icount with several CPUs hangs at SMP bring-up, kvm without a usable
 * /dev/kvm, too little memory for the initramfs) before QEMU is started.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "yamlmap.h"
#include "config.h"
#include "testcase.h"
#include "board.h"

#define BOARD_KEYS                                             \
	"name, kind, description, clock, icount_shift, cpus, " \
	"memory_mb, cmdline, qemu, boot_timeout_s, "           \
	"hang_margin_s, slowdown, interval_us"
#define BOARD_MIN_MEMORY_MB 256

const char *board_clock_name(enum board_clock c)
{
	switch (c) {
	case BOARD_CLOCK_ICOUNT:
		return "icount";
	case BOARD_CLOCK_REALTIME:
		return "realtime";
	case BOARD_CLOCK_KVM:
		return "kvm";
	}
	return "?";
}

void board_def_free(struct board_def *b)
{
	if (!b)
		return;
	free(b->path);
	free(b->dir);
	free(b->name);
	free(b->description);
	free(b->cmdline);
	free(b->qemu);
	free(b);
}

/* /dev/kvm is there on hosts where it does not work: ask it for a VM. */
static int kvm_usable(void)
{
	int fd, vm, ret = 0;

	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION) {
		ret = -ENOTSUP;
	} else {
		vm = ioctl(fd, KVM_CREATE_VM, 0);
		if (vm < 0)
			ret = -errno;
		else
			close(vm);
	}
	close(fd);
	return ret;
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= '0' && *s <= '9') &&
		    *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

struct board_def *board_def_load(const char *path, struct rtlab_err *err)
{
	unsigned long shift = 3, cpus = 1, mem = 1024, boot = 120, margin = 60,
		      slow = 40, interval = 0;
	char *kind = NULL, *clock = NULL, *slash;
	struct ymap_entry *e;
	struct board_def *b;
	struct ymap m;
	int ret;

	if (ymap_load(path, &m, err))
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b || !(b->path = strdup(path)) || !(b->dir = strdup(path)))
		goto nomem;
	slash = strrchr(b->dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(b->dir, ".");
	if (ymap_str(&m, "name", false, &b->name, err) ||
	    ymap_str(&m, "kind", true, &kind, err) ||
	    ymap_str(&m, "description", false, &b->description, err) ||
	    ymap_str(&m, "clock", true, &clock, err) ||
	    ymap_uint(&m, "icount_shift", 0, 10, &shift, err) ||
	    ymap_uint(&m, "cpus", 0, 64, &cpus, err) ||
	    ymap_uint(&m, "memory_mb", 0, 1 << 20, &mem, err) ||
	    ymap_str(&m, "cmdline", false, &b->cmdline, err) ||
	    ymap_str(&m, "qemu", false, &b->qemu, err) ||
	    ymap_uint(&m, "boot_timeout_s", 5, 3600, &boot, err) ||
	    ymap_uint(&m, "hang_margin_s", 5, 86400, &margin, err) ||
	    ymap_uint(&m, "slowdown", 1, 1000, &slow, err) ||
	    ymap_uint(&m, "interval_us", TC_MIN_INTERVAL_US, TC_MAX_INTERVAL_US,
		      &interval, err) ||
	    ymap_unused(&m, BOARD_KEYS, err))
		goto fail;
	if (!b->name) {
		const char *base = strrchr(path, '/');

		b->name = strdup(base ? base + 1 : path);
		if (!b->name)
			goto nomem;
		if (strrchr(b->name, '.'))
			*strrchr(b->name, '.') = '\0';
	}
	if (!valid_name(b->name)) {
		rtlab_err_set(err,
			      "%s: field 'name': '%s' may only hold "
			      "a-z, 0-9, '-', '_', '.'",
			      path, b->name);
		goto fail;
	}
	/* The settings below are the virtual board's; a definition of
	 * another kind is named as such before anything boots. */
	b->kind = board_kind_find(kind);
	if (b->kind != &board_kind_qemu) {
		e = ymap_get(&m, "kind");
		rtlab_err_set(err,
			      "%s: line %lu: field 'kind': %s'%s'%s, "
			      "expected '%s'",
			      path, e->line,
			      b->kind ? "board kind " : "unknown kind ", kind,
			      b->kind ? " is not a virtual board's" : "",
			      board_kind_qemu.name);
		goto fail;
	}
	e = ymap_get(&m, "clock");
	if (!strcmp(clock, "icount")) {
		b->clock = BOARD_CLOCK_ICOUNT;
	} else if (!strcmp(clock, "realtime")) {
		b->clock = BOARD_CLOCK_REALTIME;
	} else if (!strcmp(clock, "kvm")) {
		b->clock = BOARD_CLOCK_KVM;
		ret = kvm_usable();
		if (ret) {
			rtlab_err_set(err,
				      "%s: line %lu: field 'clock': kvm, "
				      "but /dev/kvm is not usable here (%s); "
				      "use icount or realtime",
				      path, e->line, strerror(-ret));
			goto fail;
		}
	} else {
		rtlab_err_set(err,
			      "%s: line %lu: field 'clock': expected "
			      "icount, realtime or kvm, got '%s'",
			      path, e->line, clock);
		goto fail;
	}
	e = ymap_get(&m, "cpus");
	if (cpus == 0) {
		rtlab_err_set(err,
			      "%s: line %lu: field 'cpus': a board needs "
			      "at least 1 CPU",
			      path, e->line);
		goto fail;
	}
	if (b->clock == BOARD_CLOCK_ICOUNT && cpus > 1) {
		rtlab_err_set(err,
			      "%s: line %lu: field 'cpus': the icount "
			      "clock runs one CPU (with %lu QEMU hangs at SMP "
			      "bring-up); use cpus: 1 or clock: realtime",
			      path, e ? e->line : 0, cpus);
		goto fail;
	}
	e = ymap_get(&m, "icount_shift");
	if (e && b->clock != BOARD_CLOCK_ICOUNT) {
		rtlab_err_set(err,
			      "%s: line %lu: field 'icount_shift' only "
			      "applies to clock: icount",
			      path, e->line);
		goto fail;
	}
	e = ymap_get(&m, "memory_mb");
	if (mem < BOARD_MIN_MEMORY_MB) {
		rtlab_err_set(err,
			      "%s: line %lu: field 'memory_mb': %lu MiB "
			      "is too small, the kernel and initramfs need at "
			      "least %d",
			      path, e ? e->line : 0, mem, BOARD_MIN_MEMORY_MB);
		goto fail;
	}
	if (!b->qemu && !(b->qemu = strdup("qemu-system-x86_64")))
		goto nomem;
	b->icount_shift = shift;
	b->cpus = cpus;
	b->memory_mb = mem;
	b->boot_timeout_s = boot;
	b->hang_margin_s = margin;
	b->slowdown = slow;
	b->interval_us = interval;
	free(kind);
	free(clock);
	ymap_cleanup(&m);
	return b;
nomem:
	rtlab_err_set(err, "%s: out of memory", path);
fail:
	free(kind);
	free(clock);
	board_def_free(b);
	ymap_cleanup(&m);
	return NULL;
}

struct board_def *board_def_find(const char *name, struct rtlab_err *err)
{
	struct board_def *b = NULL;
	char *dir, *path = NULL;
	size_t n = strlen(name);

	if (strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".yaml")))
		return board_def_load(name, err);
	dir = rtlab_data_path("boards");
	if (!dir || asprintf(&path, "%s/%s.yaml", dir, name) < 0) {
		free(dir);
		return NULL;
	}
	if (access(path, R_OK) < 0)
		rtlab_err_set(err, "board '%s': no definition %s", name, path);
	else
		b = board_def_load(path, err);
	free(path);
	free(dir);
	return b;
}
