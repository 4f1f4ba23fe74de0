// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The agent's ftrace capture: find the tracefs, check a testcase's events
 * against it (libtracefs lists them), set the knobs a capture needs (each
 * saved for restore), start and stop the top-level buffer around the
 * measurement, and have trace-cmd write trace.dat from it.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "clock.h"
#include "ftrace.h"
#include "proc.h"

/* Extraction reads the whole buffer; a slow board takes a while. */
#define FTRACE_EXTRACT_LIMIT_S 600
#define FTRACE_EXTRACT_GRACE_S 5

static bool is_tracefs(const char *root)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/buffer_size_kb", root);
	return !access(path, F_OK);
}

const char *ftrace_find_root(const char *opt, struct rtlab_err *err)
{
	if (opt) {
		if (is_tracefs(opt))
			return opt;
		rtlab_err_seterr(
			err, ENOENT,
			"--tracefs %s: no buffer_size_kb there (expected a tracefs mount)",
			opt);
		return NULL;
	}
	if (is_tracefs(FTRACE_DEFAULT_ROOT))
		return FTRACE_DEFAULT_ROOT;
	if (is_tracefs(FTRACE_DEBUGFS_ROOT))
		return FTRACE_DEBUGFS_ROOT;
	rtlab_err_seterr(err, ENOENT,
			 "no tracefs at %s or %s (mount -t tracefs nodev %s)",
			 FTRACE_DEFAULT_ROOT, FTRACE_DEBUGFS_ROOT,
			 FTRACE_DEFAULT_ROOT);
	return NULL;
}

/*
 * The event names @event stands for, in a list built by libtracefs (free
 * with tracefs_list_free()); NULL when none (or out of memory).
 * @sys gets the subsystem.
 */
static char **event_names(const char *root, const char *event, char *sys,
			  size_t sys_size)
{
	const char *colon = strchr(event, ':');
	char **all, **out = NULL, **v, path[4096];
	struct stat st;
	size_t i;

	if (!colon || (size_t)(colon - event) >= sys_size)
		return NULL;
	snprintf(sys, sys_size, "%.*s", (int)(colon - event), event);
	if (!strchr(colon + 1, '*')) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/enable", root,
			 sys, colon + 1);
		if (stat(path, &st))
			return NULL;
		return tracefs_list_add(NULL, colon + 1);
	}
	all = tracefs_system_events(root, sys);
	for (i = 0; all && all[i]; i++) {
		if (fnmatch(colon + 1, all[i], 0))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/enable", root,
			 sys, all[i]);
		if (stat(path, &st))
			continue;
		v = tracefs_list_add(out, all[i]);
		if (!v) {
			tracefs_list_free(out);
			out = NULL;
			break;
		}
		out = v;
	}
	tracefs_list_free(all);
	return out;
}

bool ftrace_event_exists(const char *root, const char *event)
{
	char sys[256], **names = event_names(root, event, sys, sizeof(sys));

	tracefs_list_free(names);
	return names != NULL;
}

int ftrace_check(const char *root, const struct tc_trace *t,
		 struct rtlab_err *err)
{
	static const char *const needed[] = { "buffer_size_kb", "tracing_on",
					      "trace_marker",	"trace",
					      "events",		NULL };
	struct stat st;
	char path[4096];
	size_t i;

	for (i = 0; needed[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, needed[i]);
		if (stat(path, &st))
			return rtlab_err_seterr(err, ENOENT,
						"tracefs %s: %s is missing",
						root, needed[i]);
	}
	for (i = 0; i < t->nevents; i++) {
		const char *ev = t->events[i];

		if (!strchr(ev, ':'))
			return rtlab_err_set(
				err,
				"trace event '%s': expected 'subsystem:event'",
				ev);
		if (!ftrace_event_exists(root, ev))
			return rtlab_err_seterr(
				err, ENOENT,
				"trace event '%s': not in this kernel (nothing matches it under %s/events)",
				ev, root);
	}
	return 0;
}

/* Set @name under @root when the file exists (kernels differ). */
static int set_if_there(struct knob_list *knobs, const char *root,
			const char *name, const char *value,
			struct rtlab_err *err)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	if (access(path, F_OK))
		return 0;
	return knob_set(knobs, path, value, NULL, err);
}

static int enable_event(const char *root, const char *event,
			struct knob_list *knobs, struct rtlab_err *err)
{
	char sys[256], path[4096], **names;
	size_t i;
	int ret = 0;

	names = event_names(root, event, sys, sizeof(sys));
	if (!names)
		return rtlab_err_seterr(err, ENOENT,
					"trace event '%s': not in this kernel",
					event);
	for (i = 0; !ret && names[i]; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/enable", root,
			 sys, names[i]);
		ret = knob_set(knobs, path, "1", NULL, err);
	}
	tracefs_list_free(names);
	return ret;
}

int ftrace_prepare(const char *root, const struct tc_trace *t,
		   struct knob_list *knobs, struct rtlab_err *err)
{
	char path[4096], value[32], orig[32];
	char *cur, *exp;
	size_t i;
	int ret;

	ret = ftrace_check(root, t, err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/tracing_on", root);
	ret = knob_set(knobs, path, "0", NULL, err);
	if (!ret)
		ret = set_if_there(knobs, root, "current_tracer", "nop", err);
	/* Emptying set_event disables every event; its saved content (the
	 * board's enabled events) is written back at restore. */
	if (!ret)
		ret = set_if_there(knobs, root, "set_event", "", err);
	if (!ret)
		ret = set_if_there(knobs, root, "options/overwrite", "1", err);
	if (ret)
		return ret;

	snprintf(path, sizeof(path), "%s/buffer_size_kb", root);
	cur = knob_read(path);
	if (!cur)
		return rtlab_err_seterr(err, errno, "%s: cannot read: %s", path,
					strerror(errno));
	/* Before first use it reads "7 (expanded: 1408)": the buffer is
	 * kept tiny until tracing starts.  Restore the size it would expand
	 * to -- a number, which is all the file accepts. */
	exp = strstr(cur, "expanded:");
	snprintf(orig, sizeof(orig), "%lu",
		 strtoul(exp ? exp + strlen("expanded:") : cur, NULL, 10));
	free(cur);
	snprintf(value, sizeof(value), "%u", t->buffer_kb);
	ret = knob_set(knobs, path, value, orig, err);

	for (i = 0; !ret && i < t->nevents; i++)
		ret = enable_event(root, t->events[i], knobs, err);
	for (i = 0; !ret && i < t->noptional_events; i++)
		if (ftrace_event_exists(root, t->optional_events[i]))
			ret = enable_event(root, t->optional_events[i], knobs,
					   err);
	return ret;
}

int ftrace_start(const char *root, struct knob_list *knobs,
		 struct rtlab_err *err)
{
	char path[4096];
	int ret;

	/* Opening "trace" for writing with O_TRUNC clears the buffer. */
	snprintf(path, sizeof(path), "%s/trace", root);
	ret = knob_write(path, "");
	if (ret)
		return rtlab_err_seterr(err, -ret,
					"%s: cannot clear the trace buffer: %s",
					path, strerror(-ret));
	snprintf(path, sizeof(path), "%s/tracing_on", root);
	return knob_set(knobs, path, "1", NULL, err);
}

int ftrace_stop(const char *root, struct knob_list *knobs, bool *was_on,
		struct rtlab_err *err)
{
	char path[4096], *cur;

	snprintf(path, sizeof(path), "%s/tracing_on", root);
	cur = knob_read(path);
	if (!cur)
		return rtlab_err_seterr(err, errno, "%s: cannot read: %s", path,
					strerror(errno));
	*was_on = strcmp(cur, "0") != 0;
	free(cur);
	return knob_set(knobs, path, "0", NULL, err);
}

/* @root is the tracefs trace-cmd will read (same file behind tracing_on). */
static bool is_mounted_tracefs(const char *root)
{
	const char *mounted = tracefs_tracing_dir();
	char a[4096], b[4096];
	struct stat sa, sb;

	if (!mounted)
		return false;
	snprintf(a, sizeof(a), "%s/tracing_on", root);
	snprintf(b, sizeof(b), "%s/tracing_on", mounted);
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* The last line of @path into @buf ("" when none). */
static void last_line(const char *path, char *buf, size_t size)
{
	char *text = knob_read(path), *nl;

	buf[0] = '\0';
	if (!text)
		return;
	nl = strrchr(text, '\n');
	snprintf(buf, size, "%s", nl ? nl + 1 : text);
	free(text);
}

int ftrace_extract(const char *root, const char *dir, const char *name,
		   volatile sig_atomic_t *stop, struct rtlab_err *err)
{
	struct timespec pause = { 0, 100 * 1000000L };
	char *tool = NULL, log[4096], out[4096], why[64], last[256];
	double deadline, kill_at = 0;
	int fd, status = 0, ret = 0, sig = 0;
	struct stat st;
	pid_t pid, w;

	if (!is_mounted_tracefs(root))
		return rtlab_err_seterr(
			err, EXDEV,
			"trace-cmd reads the mounted tracefs (%s), not %s",
			tracefs_tracing_dir() ?: "none found", root);
	tool = path_which("trace-cmd");
	if (!tool)
		return rtlab_err_seterr(
			err, ENOENT,
			"trace-cmd is not on PATH; it writes trace.dat");
	snprintf(log, sizeof(log), "%s/%s.log", dir, name);
	snprintf(out, sizeof(out), "%s/%s", dir, name);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = rtlab_err_seterr(err, errno, "%s: cannot create: %s", log,
				       strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = rtlab_err_seterr(err, errno, "trace-cmd: fork: %s",
				       strerror(errno));
		close(fd);
		goto out;
	}
	if (!pid) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (chdir(dir))
			_exit(127);
		/* Uncompressed: the board spends no time on it, the bundle is
		 * gzip'd anyway, and the spike's mark stays findable. */
		execl(tool, "trace-cmd", "extract", "--compression", "none",
		      "-o", name, (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", tool, strerror(errno));
		_exit(127);
	}
	close(fd);
	deadline = clock_mono_s() + FTRACE_EXTRACT_LIMIT_S;
	for (;;) {
		double t;

		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			ret = rtlab_err_seterr(err, errno,
					       "trace-cmd: wait: %s",
					       strerror(errno));
			goto out;
		}
		t = clock_mono_s();
		if (!sig && ((stop && *stop) || t > deadline)) {
			sig = SIGINT;
			kill(pid, sig);
			kill_at = t + FTRACE_EXTRACT_GRACE_S;
		} else if (sig == SIGINT && t > kill_at) {
			sig = SIGKILL;
			kill(pid, sig);
		}
		nanosleep(&pause, NULL);
	}
	if (sig && stop && *stop) {
		ret = rtlab_err_seterr(
			err, EINTR,
			"trace-cmd extract: stopped by a signal to the agent");
	} else if (sig) {
		ret = rtlab_err_seterr(
			err, ETIMEDOUT,
			"trace-cmd extract: still running after %d s; killed",
			FTRACE_EXTRACT_LIMIT_S);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		last_line(log, last, sizeof(last));
		ret = rtlab_err_set(err, "trace-cmd extract failed (%s): %s",
				    proc_status_str(status, why, sizeof(why)),
				    last);
	} else if (stat(out, &st) || !st.st_size) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "trace-cmd extract exited 0 but wrote no %s",
				       name);
	}
out:
	free(tool);
	return ret;
}

/*
 * The hist triggers that keep the trace of the worst wakeup
 * (Documentation/trace/histogram.rst, onmax().snapshot()).  The first
 * event stores a time per thread, the switch-in of a real-time cyclictest
 * thread computes its latency, and a new maximum swaps the running buffer
 * into the snapshot.  cyclictest's main thread runs SCHED_OTHER (prio >=
 * 100) and is left out.
 *
 * Preferred: from the timer's expiry (hrtimer_start's expires, the
 * thread arming its own clock_nanosleep timer) to the switch-in, in the
 * "mono" trace clock so both are CLOCK_MONOTONIC -- what cyclictest
 * measures, interrupt-off delays before the timer interrupt included.
 * Else: from sched_waking to the switch-in, which misses those.
 */
struct snap_variant {
	const char *name;  /* the manifest's trace.latency */
	const char *clock; /* trace_clock to select, NULL: leave it */
	unsigned int n;	   /* triggers, sched_switch's last */
	const char *files[3];
	const char *triggers[3];
	const char *taken;	   /* "Snapshot taken" detail line's prefix */
	unsigned int per_us;	   /* units of the maximum per µs */
	unsigned long long offset; /* added to the latency, in its units */
};

#define SNAP_SWITCH_FILE "events/sched/sched_switch/trigger"
#define SNAP_SWITCH_HIST "events/sched/sched_switch/hist"
#define SNAP_WAKING_FILE "events/sched/sched_waking/trigger"
/* %d: the measuring threads' kernel prio (99 - cyclictest -p): the main
 * thread is left out, SCHED_OTHER or SCHED_FIFO 1 (kernel prio 98). */
#define SNAP_FILTER " if next_comm==\"cyclictest\" && next_prio==%d"

/*
 * From sched_waking, the measuring thread's wakeup, to its switch-in.
 * Timing from the timer's expiry (hrtimer_start's expires against the
 * mono trace clock) was tried on the icount board and kept cycles
 * cyclictest does not count (a thread's first, armed during start-up,
 * 2.8 ms against a 149 us maximum): the table takes another variant once
 * one is shown to keep the worst spike.
 */
static const struct snap_variant snap_variants[] = {
	{ "waking_to_switch",
	  NULL,
	  2,
	  { SNAP_WAKING_FILE, SNAP_SWITCH_FILE },
	  { "hist:keys=pid:rtlab_ts0=common_timestamp.usecs if "
	    "comm==\"cyclictest\" && prio==%d",
	    "hist:keys=next_pid:rtlab_lat=common_timestamp.usecs-$rtlab_ts0:"
	    "onmax($rtlab_lat).snapshot()" SNAP_FILTER },
	  "triggering value { onmax($rtlab_lat) }:",
	  1,
	  0 },
};

#define SNAP_NVARIANTS (sizeof(snap_variants) / sizeof(snap_variants[0]))
#define FTRACE_SNAPSHOT_KEY "next_pid:"

/*
 * Append @value to @root/@name without O_TRUNC: truncating a trigger file
 * removes every trigger of the event, the board's own included.
 */
static int append_file(const char *root, const char *name, const char *value)
{
	char path[4096];
	size_t len = strlen(value);
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* The kernel's last complaint in @root/error_log, for a message. */
static void last_error_log(const char *root, char *buf, size_t size)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/error_log", root);
	last_line(path, buf, size);
	if (!buf[0])
		snprintf(buf, size, "(nothing in error_log)");
}

static bool file_there(const char *root, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	return !access(path, W_OK);
}

/* The selected clock of a trace_clock text: "[local] global ..." -> local */
static bool selected_clock(const char *text, char *buf, size_t size)
{
	const char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;

	if (!b || (size_t)(b - a - 1) >= size)
		return false;
	snprintf(buf, size, "%.*s", (int)(b - a - 1), a + 1);
	return true;
}

static bool variant_supported(const char *root, const struct snap_variant *v)
{
	char path[4096], *text, *q;
	bool ok;

	unsigned int i;

	if (!file_there(root, "snapshot"))
		return false;
	for (i = 0; i < v->n; i++)
		if (!file_there(root, v->files[i]))
			return false;
	if (!v->clock)
		return true;
	snprintf(path, sizeof(path), "%s/trace_clock", root);
	text = knob_read(path);
	if (!text)
		return false;
	/* the clock must be offered as a whole word */
	q = strstr(text, v->clock);
	ok = q && (q == text || strchr(" [", q[-1])) &&
	     strchr(" ]", q[strlen(v->clock)] ? q[strlen(v->clock)] : ' ');
	free(text);
	return ok;
}

bool ftrace_snapshot_supported(const char *root)
{
	size_t i;

	for (i = 0; i < SNAP_NVARIANTS; i++)
		if (variant_supported(root, &snap_variants[i]))
			return true;
	return false;
}

/* Select @v's clock (a knob) and add its triggers; undone on failure. */
static int arm_variant(const char *root, const struct snap_variant *v,
		       int kprio, struct ftrace_snapshot *s,
		       struct knob_list *knobs, struct rtlab_err *err)
{
	char path[4096], why[256], orig[32], *text;
	unsigned int i;
	int ret;

	if (v->clock) {
		snprintf(path, sizeof(path), "%s/trace_clock", root);
		text = knob_read(path);
		if (!text || !selected_clock(text, orig, sizeof(orig))) {
			free(text);
			return rtlab_err_seterr(err, EINVAL,
						"%s: no selected clock in it",
						path);
		}
		free(text);
		ret = knob_set(knobs, path, v->clock, orig, err);
		if (ret)
			return ret;
	}
	s->variant = v;
	for (i = 0; i < v->n; i++) {
		/* Templates without %d ignore the argument. */
		snprintf(s->triggers[i], sizeof(s->triggers[i]), v->triggers[i],
			 kprio);
		ret = append_file(root, v->files[i], s->triggers[i]);
		if (ret) {
			last_error_log(root, why, sizeof(why));
			rtlab_err_seterr(err, -ret,
					 "%s/%s: cannot add '%s': %s; %s", root,
					 v->files[i], s->triggers[i],
					 strerror(-ret), why);
			ftrace_snapshot_disarm(root, s, NULL);
			s->variant = NULL;
			return ret;
		}
		s->narmed = i + 1;
	}
	return 0;
}

int ftrace_snapshot_arm(const char *root, unsigned int rt_prio,
			struct ftrace_snapshot *s, struct knob_list *knobs,
			struct rtlab_err *err)
{
	char path[4096], *cur;
	size_t i;
	int ret = -EOPNOTSUPP;

	memset(s, 0, sizeof(*s));
	s->pid = -1;
	if (!ftrace_snapshot_supported(root))
		return rtlab_err_seterr(
			err, EOPNOTSUPP,
			"tracefs %s: no snapshot file or no trigger files of timer:hrtimer_start/sched:sched_waking and sched:sched_switch (CONFIG_TRACER_SNAPSHOT, CONFIG_HIST_TRIGGERS)",
			root);
	/* A snapshot buffer the board already had is left allocated. */
	snprintf(path, sizeof(path), "%s/snapshot", root);
	cur = knob_read(path);
	s->free_after = !cur || strstr(cur, "Snapshot is freed");
	free(cur);
	for (i = 0; i < SNAP_NVARIANTS; i++) {
		if (!variant_supported(root, &snap_variants[i]))
			continue;
		ret = arm_variant(root, &snap_variants[i], 99 - (int)rt_prio, s,
				  knobs, err);
		if (!ret)
			return 0;
		/* the next variant may still work; say why this one did not */
		snprintf(s->fallback_reason, sizeof(s->fallback_reason), "%s",
			 err->msg);
	}
	return ret;
}

const char *ftrace_snapshot_latency(const struct ftrace_snapshot *s)
{
	return s->variant ? s->variant->name : NULL;
}

int ftrace_snapshot_parse(const char *hist, struct ftrace_snapshot *s)
{
	const char *p = NULL;
	unsigned long long lat;
	unsigned int per_us = 1;
	unsigned long long offset = 0;
	long pid;
	size_t i;

	s->taken = false;
	for (i = 0; !p && i < SNAP_NVARIANTS; i++) {
		p = strstr(hist, snap_variants[i].taken);
		if (p) {
			p += strlen(snap_variants[i].taken);
			per_us = snap_variants[i].per_us;
			offset = snap_variants[i].offset;
		}
	}
	if (!p || sscanf(p, "%llu", &lat) != 1)
		return -ENOENT;
	s->taken = true;
	/* A switch-in before its expiry: below the offset, or wrapped
	 * around; no latency. */
	s->negative = lat < offset || lat - offset >= 1ULL << 63;
	s->lat_us = s->negative ? 0 : (lat - offset) / per_us;
	s->pid = -1;
	p = strstr(p, FTRACE_SNAPSHOT_KEY);
	if (p && sscanf(p + strlen(FTRACE_SNAPSHOT_KEY), "%ld", &pid) == 1)
		s->pid = pid;
	return 0;
}

int ftrace_snapshot_disarm(const char *root, struct ftrace_snapshot *s,
			   struct rtlab_err *err)
{
	const struct snap_variant *v = s->variant;
	char path[4096], cmd[512], *hist;
	int ret = 0, r;

	if (!v || !s->narmed)
		return 0;
	if (s->narmed == v->n) {
		/* The maximum and its thread, before the histogram goes. */
		snprintf(path, sizeof(path), "%s/%s", root, SNAP_SWITCH_HIST);
		hist = knob_read(path);
		if (hist)
			ftrace_snapshot_parse(hist, s);
		free(hist);
	}
	/* Each trigger refers to the variable of the one before: the last
	 * goes first. */
	while (s->narmed) {
		s->narmed--;
		snprintf(cmd, sizeof(cmd), "!%s", s->triggers[s->narmed]);
		r = append_file(root, v->files[s->narmed], cmd);
		if (r && !ret)
			ret = rtlab_err_seterr(
				err, -r, "%s/%s: cannot remove the trigger: %s",
				root, v->files[s->narmed], strerror(-r));
	}
	return ret;
}

int ftrace_snapshot_restore(const char *root, struct ftrace_snapshot *s,
			    struct rtlab_err *err)
{
	int ret;

	if (!s->taken || s->swapped)
		return 0;
	/* Writing 1 swaps the buffers: the trace kept at the maximum becomes
	 * the top-level buffer, which trace-cmd extracts and whose per-CPU
	 * stats then describe it.  Tracing stays off. */
	ret = append_file(root, "snapshot", "1");
	if (ret)
		return rtlab_err_seterr(
			err, -ret,
			"%s/snapshot: cannot swap the kept trace back: %s",
			root, strerror(-ret));
	s->swapped = true;
	return 0;
}

int ftrace_snapshot_mark(const char *root, const struct ftrace_snapshot *s,
			 struct rtlab_err *err)
{
	char text[160];
	int ret, off;

	if (!s->swapped)
		return 0;
	snprintf(text, sizeof(text),
		 FTRACE_SNAPSHOT_MARK "%llu us, pid %ld, %s)", s->lat_us,
		 s->pid, ftrace_snapshot_latency(s) ?: "?");
	/* A mark is recorded only while tracing is on: for an instant. */
	ret = append_file(root, "tracing_on", "1");
	if (!ret)
		ret = append_file(root, "trace_marker", text);
	off = append_file(root, "tracing_on", "0");
	if (ret || off)
		return rtlab_err_seterr(err, -(ret ?: off),
					"%s: cannot write the spike's mark: %s",
					root, strerror(-(ret ?: off)));
	return 0;
}

int ftrace_snapshot_free(const char *root, struct ftrace_snapshot *s,
			 struct rtlab_err *err)
{
	int ret;

	if (!s->free_after)
		return 0;
	s->free_after = false;
	ret = append_file(root, "snapshot", "0");
	if (ret && ret != -ENOENT)
		return rtlab_err_seterr(err, -ret,
					"%s/snapshot: cannot free it: %s", root,
					strerror(-ret));
	return 0;
}

void ftrace_stats_parse(const char *text, struct ftrace_stats *st)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "entries: ", offsetof(struct ftrace_stats, entries) },
		{ "overrun: ", offsetof(struct ftrace_stats, overrun) },
		{ "commit overrun: ",
		  offsetof(struct ftrace_stats, commit_overrun) },
		{ "dropped events: ", offsetof(struct ftrace_stats, dropped) },
	};
	const char *p, *nl;
	size_t i, n;

	for (p = text; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			n = strlen(keys[i].key);
			if (!strncmp(p, keys[i].key, n))
				*(unsigned long long *)((char *)st +
							keys[i].off) +=
					strtoull(p + n, NULL, 10);
		}
	}
}

int ftrace_stats_read(const char *root, struct ftrace_stats *st)
{
	char path[4096], *text;
	unsigned int cpu;

	memset(st, 0, sizeof(*st));
	for (cpu = 0;; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/stats", root,
			 cpu);
		text = knob_read(path);
		if (!text)
			break;
		ftrace_stats_parse(text, st);
		st->ncpus++;
		free(text);
	}
	return st->ncpus ? 0 : -ENOENT;
}
