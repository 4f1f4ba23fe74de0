/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_BOARD_H
#define RTLAB_BOARD_H

/*
 * Boards: the interface every board kind implements (struct board_kind,
 * looked up with board_kind_find()), and the virtual board's definitions
 * (boards/NAME.yaml) and driver.  Kinds: "local" runs rtlab-agent on this
 * host (boards/local.c); "qemu" boots a kernel in QEMU with TCG, its clock
 * icount, realtime or kvm, an initramfs running the agent and sending the
 * bundle over virtio-serial (boards/qemu.c); "ssh" kexecs it on a board
 * reachable by ssh (boards/ssh.c); "lava" can be registered but has no
 * driver yet.  Nothing outside boards/ tests a kind
 * by name.  See boards/README.md.
 */

#include <stdbool.h>
#include "error.h"
#include "../kernels/kernel.h"

/* The kernel a board that boots none runs: the host's. */
#define BOARD_KERNEL_HOST "host"

enum board_clock {
	BOARD_CLOCK_ICOUNT,
	BOARD_CLOCK_REALTIME,
	BOARD_CLOCK_KVM,
};

struct board_kind;

struct board_def {
	const struct board_kind *kind; /* board_kind_find() of field kind */
	char *path;		       /* the YAML file */
	char *dir; /* its directory (guest-init.sh lives there) */
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
	const char *work_dir;	     /* NULL: a fresh directory in
					 * $TMPDIR (default /tmp),
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
	/* the watchdog (boards/watchdog.h): of the wall time QEMU lived */
	double runnable_s; /* it could run: what the timeouts count */
	double stopped_s;  /* it was stopped (SIGSTOP) */
	double starved_s;  /* it waited for a CPU */
	double qemu_cpu_s; /* CPU it consumed */
	bool infra;	   /* no bundle because of the host, not the kernel
			    * (board_run() returned an error) */
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
 * kernel not fetchable, tools missing, disk full) or when the host failed
 * the board: QEMU not startable, killed by a signal or crashed, never run
 * within the outer wall-clock limit, the channel's host end broken
 * (@info->infra set, @err starting "infrastructure error").  The boot and
 * hang timeouts count the time QEMU could run (boards/watchdog.h).
 */
int board_run(const struct board_def *b, const struct kernel_def *k,
	      const char *testcase_path, const struct board_run_opts *o,
	      const char *out_bundle, struct board_run_info *info,
	      struct rtlab_err *err) __must_check;

/* -- board kinds ----------------------------------------------------------- */

/* One run on an opened board; nothing is owned. */
struct board_job {
	const char *testcase_path; /* required */
	unsigned int duration_s;   /* required, > 0 */
	const char *run_id;	   /* uuid; NULL: generated */
	const char *extra_archive; /* kinds that boot: a cpio archive for the
				    * initrd (a module), may be NULL */
	const char *log_path;	   /* local: the agent's output goes here;
				    * NULL: to this process's stdout/stderr */
	const char *spool_dir;	   /* local: the agent's spool, may be NULL */
	const char *upload_token;  /* the board's rtlab upload token, for
				    * kinds whose board can upload its bundle
				    * itself (lava: upload_url); may be NULL */
};

/*
 * run() of a kind whose board uploads its bundle to rtlab's server itself:
 * the run is stored under the job's run id, and @out holds no run but the
 * host's side of it, a bundle of log files (console.log, ...) for the
 * run's artifacts, whose manifest.json only names the run
 * ({"run_id": ..., "stored_by": "board"}).
 */
#define BOARD_RUN_STORED 1

struct board;

/*
 * What a board kind implements.  Kinds without a driver have NULL hooks;
 * the board_*() wrappers below turn that into "board kind K has no driver
 * in this build".  To add a kind: a boards/KIND.c defining a const struct
 * board_kind, listed in boards/board.c (boards/README.md, "Board kinds").
 */
struct board_kind {
	const char *name;  /* as registered: "local", "qemu", ... */
	bool boots_kernel; /* boots a kernel definition; else runs the
			    * host's (the job's kernel is "host") */
	bool host_nic;	   /* takes traffic the host sends into its NIC
			    * (an iperf3-nic load); else such a job is
			    * refused (board_refuse_nic_load()) */
	/* Before a job is queued: the kernel and the testcase fit the
	 * board; *stored_kernel gets what the job keeps (malloc'd). */
	int (*check_job)(const char *board, const char *definition_json,
			 const char *kernel, const char *testcase_path,
			 char **stored_kernel, struct rtlab_err *err);
	/* Fill b's kind-specific part from the registered definition (JSON
	 * text, may be NULL) or a board definition name or path. */
	int (*open)(struct board *b, const char *definition_json,
		    const char *def_name, struct rtlab_err *err);
	/* Once before runs: fetch the kernel, find the agent, fill
	 * b->release. */
	int (*prepare)(struct board *b, struct rtlab_err *err);
	/* One run: a result bundle at @out (kernel faults are bundles too);
	 * BOARD_RUN_STORED when the board uploaded it itself; an error only
	 * when there is none (an infrastructure error). */
	int (*run)(struct board *b, const struct board_job *job,
		   const char *out, struct board_run_info *info,
		   struct rtlab_err *err);
	void (*release)(struct board *b); /* free the kind's part */
};

/* An opened board; the kind's fields are set by its open(). */
struct board {
	const struct board_kind *kind;
	char *name;	   /* what bundles carry: the registered board's name */
	char *kernel;	   /* the kernel as the job names it */
	char *agent;	   /* rtlab-agent for the board, NULL: the usual one */
	char release[128]; /* after board_prepare(): the kernel release */
	struct board_def *def;	/* qemu: the definition it boots */
	struct kernel_def *k;	/* kinds that boot: the kernel definition */
	struct kernel_ident id; /* ... and its identity, after prepare */
	bool have_id;
	void *kind_data; /* the kind's own, freed by its release() */
};

/** board_kind_find() - the kind named @name, or NULL when unknown. */
const struct board_kind *board_kind_find(const char *name);

/** board_kind_has_driver() - jobs for the kind can run in this build. */
bool board_kind_has_driver(const struct board_kind *kind);

/**
 * board_kind_names() - the known kinds (@with_driver: only those with a
 * driver), NULL-terminated, static.
 */
const char *const *board_kind_names(bool with_driver);

/**
 * board_definition_name() - which boards/NAME.yaml a registered board
 * boots: the "board" field of its definition JSON (@definition_json, may
 * be NULL), else the board's own name.  Return: malloc'd, or NULL with
 * @err set.
 */
char *board_definition_name(const char *board, const char *definition_json,
			    struct rtlab_err *err);

/**
 * board_check_job() - before a job for board @board of kind @kind is
 * queued: the kernel and the testcase fit the board (kind's check_job).
 * Return: 0 with *@stored_kernel (caller frees), or a negative errno with
 * @err set (an unknown kind, a kind without a driver, a kernel or testcase
 * that does not fit).
 */
int board_check_job(const char *kind, const char *board,
		    const char *definition_json, const char *kernel,
		    const char *testcase_path, char **stored_kernel,
		    struct rtlab_err *err) __must_check;

/**
 * board_open() - a registered board: its @kind, @name and definition JSON
 * (may be NULL), to run @kernel (a kernel definition, or "host").
 * Return: the board (close with board_close()) or NULL with @err set.
 */
struct board *board_open(const char *kind, const char *name,
			 const char *definition_json, const char *kernel,
			 struct rtlab_err *err);

/**
 * board_open_def() - a board not registered, as rtlab calibrate names it:
 * "local" (this host) or a board definition name or path
 * (boards/NAME.yaml, its kind from the file).  @kernel: NULL for the
 * default (debian-rt on boards that boot, the host's kernel otherwise).
 * Return: as board_open().
 */
struct board *board_open_def(const char *name, const char *kernel,
			     struct rtlab_err *err);

/** board_prepare() - once before the runs; 0 or -errno with @err set. */
int board_prepare(struct board *b, struct rtlab_err *err) __must_check;

/**
 * board_job_run() - one run on @b into the bundle @out.
 * @info: may be NULL; else filled (status from the bundle's manifest),
 * release with board_run_info_cleanup().
 * Return: 0 when a bundle is at @out, whatever its status;
 * BOARD_RUN_STORED (only with @job->upload_token) when the board uploaded
 * the run to rtlab's server itself and @out holds the host's logs; a
 * negative errno with @err set when none could be made: an infrastructure
 * error, never the kernel's fault.
 */
int board_job_run(struct board *b, const struct board_job *job, const char *out,
		  struct board_run_info *info,
		  struct rtlab_err *err) __must_check;

/** board_close() - release @b; NULL is fine. */
void board_close(struct board *b);

/** board_bundle_status() - the manifest status of bundle @path into
 * @info->status ("" when unreadable). */
void board_bundle_status(const char *path, struct board_run_info *info);

/**
 * board_refuse_nic_load() - for a board without a host-driven NIC (its
 * kind's host_nic false; board_check_job() asks): the testcase at
 * @testcase_path has no iperf3-nic load.
 * Return: 0, or a negative errno with @err naming board @board of kind
 * @kind and the load.
 */
int board_refuse_nic_load(const char *kind, const char *board,
			  const char *testcase_path,
			  struct rtlab_err *err) __must_check;

/* -- for the kinds that boot a kernel definition ---------------------------- */

/**
 * board_check_kernel_job() - a kind's check_job for a kernel definition:
 * --kernel @kernel names one (kernel_def_find()), @check_kernel (may be
 * NULL) accepts it for the kind, and the initramfs can carry the tools of
 * the testcase at @testcase_path (initramfs_check_testcase()).
 * @stored_kernel: what the job keeps (caller frees): the definition's real
 * path when @kernel is a path, else @kernel.
 * Return: 0 or a negative errno with @err set.
 */
int board_check_kernel_job(const char *kernel, const char *testcase_path,
			   int (*check_kernel)(const struct kernel_def *k,
					       struct rtlab_err *err),
			   char **stored_kernel,
			   struct rtlab_err *err) __must_check;

/**
 * board_run_id() - a run's id into @run_id: @given, or a new UUID when
 * @given is NULL.
 */
void board_run_id(char run_id[37], const char *given);

/**
 * board_fetch_kernel() - a kind's prepare, once: fetch @b->k into @b->id
 * and fill @b->release.  Return: 0 or a negative errno with @err set.
 */
int board_fetch_kernel(struct board *b, struct rtlab_err *err) __must_check;

/* The kinds (boards/local.c, boards/qemu.c, boards/ssh.c, boards/lava.c). */
extern const struct board_kind board_kind_local;
extern const struct board_kind board_kind_qemu;
extern const struct board_kind board_kind_ssh;
extern const struct board_kind board_kind_lava;

#endif
