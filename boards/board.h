/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_BOARD_H
#define RTLAB_BOARD_H

/*
 * Boards (boards/NAME.yaml) and the driver that boots a kernel on one and
 * brings back a result bundle.  Today's kind is "qemu", the virtual board:
 * QEMU with TCG, its clock either icount (deterministic, one CPU), realtime
 * (plain TCG) or kvm; the kernel boots an initramfs that runs the agent and
 * sends the bundle out over virtio-serial.  See boards/README.md.
 */

#include <stdbool.h>
#include "error.h"

struct kernel_def;

enum board_clock {
	BOARD_CLOCK_ICOUNT,
	BOARD_CLOCK_REALTIME,
	BOARD_CLOCK_KVM,
};

struct board_def {
	char *path; /* the YAML file */
	char *dir;  /* its directory (guest-init.sh lives there) */
	char *name;
	char *description; /* may be NULL */
	enum board_clock clock;
	unsigned int icount_shift; /* icount only */
	unsigned int cpus;
	unsigned int memory_mb;
	char *cmdline; /* extra kernel command line, may be NULL */
	char *qemu;    /* emulator binary */
	unsigned int boot_timeout_s; /* QEMU start to agent start */
	unsigned int hang_margin_s;  /* allowance past the measurement */
	unsigned int slowdown;	     /* wall seconds per guest second, worst */
	unsigned int interval_us;    /* cyclictest -i for every testcase, 0:
				      * each testcase's own */
};

/** board_clock_name() - "icount", "realtime", "kvm". */
const char *board_clock_name(enum board_clock c);

/**
 * board_def_load() - parse and check a board definition, before anything
 * boots: unknown fields, cpus 0, icount with more than one CPU, memory
 * below 256 MiB, kvm where /dev/kvm cannot be used are errors naming the
 * file and field.  Return: the board (caller frees with board_def_free())
 * or NULL with @err set.
 */
struct board_def *board_def_load(const char *path, struct rtlab_err *err);

/**
 * board_def_find() - by name ("qemu-icount", looked up in
 * rtlab_data_path("boards")) or by path.  Return: as board_def_load().
 */
struct board_def *board_def_find(const char *name, struct rtlab_err *err);

/** board_def_free() - NULL is fine. */
void board_def_free(struct board_def *b);

/* Test-only faults the guest init provokes when the job asks for them. */
enum board_fault {
	BOARD_FAULT_NONE,
	BOARD_FAULT_PANIC,   /* sysrq 'c' once the agent would start */
	BOARD_FAULT_HANG,    /* never start the agent, never power off */
	BOARD_FAULT_CORRUPT, /* flip a byte of the bundle in transit */
};

struct board_run_opts {
	unsigned int duration_s;     /* measurement, required */
	const char *run_id;	     /* uuid, NULL: generated */
	const char *agent_path;	     /* NULL: rtlab-agent beside rtlab */
	const char *extra_cmdline;   /* appended last, may be NULL */
	const char *work_dir;	     /* NULL: a fresh directory in /tmp,
					 * removed at the end unless @keep */
	bool keep;		     /* keep the work directory */
	unsigned int boot_timeout_s; /* 0: the board's */
	unsigned int hang_timeout_s; /* 0: from duration, slowdown, margin */
	enum board_fault fault;	     /* tests only */
	bool progress;		     /* lib/progress.h line on a tty */
	const char *extra_archive;   /* a cpio archive appended to the
					 * initrd (a module), may be NULL */
};

/* What a run measured about itself (not about the kernel). */
struct board_run_info {
	char status[16]; /* run_status_name() of the bundle */
	double boot_s;	 /* QEMU start to agent start marker */
	double total_s;	 /* whole board_run() */
	unsigned long long channel_bytes;
	double channel_s; /* first to last byte on the channel */
	char *work_dir;	  /* kept work directory, or NULL */
};

/** board_run_info_cleanup() - free what board_run() filled; safe twice. */
void board_run_info_cleanup(struct board_run_info *info);

/**
 * board_run() - fetch the kernel, build the initramfs, boot @b with it,
 * run @testcase_path through the agent for @o->duration_s, and write the
 * result bundle to @out_bundle.  Faults are results: when the board fails
 * to boot, panics, hangs, or the bundle is lost or damaged in transit, the
 * host writes a bundle itself with status boot_failed, panic, hang or
 * agent_error and console.log attached.  Every bundle gets console.log and
 * the board's description in the manifest ("virtual_board").
 * @info: may be NULL; else filled (release with board_run_info_cleanup()).
 * Return: 0 when a bundle is at @out_bundle (whatever its status);
 * a negative errno with @err set when none could be made (bad definition,
 * kernel not fetchable, tools missing, QEMU not startable, disk full).
 */
int board_run(const struct board_def *b, const struct kernel_def *k,
	      const char *testcase_path, const struct board_run_opts *o,
	      const char *out_bundle, struct board_run_info *info,
	      struct rtlab_err *err) __must_check;

#endif
