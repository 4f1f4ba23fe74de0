// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `rtlab-agent run`: one measurement on this board, start to finish.
 * Record the environment, save and set the knobs, start ftrace, start the
 * loads, run cyclictest for its whole duration (when tracing, a hist
 * trigger keeps the trace of the measuring threads' worst wakeup in the
 * snapshot buffer), stop tracing and the loads, save trace.dat,
 * restore the knobs (on every exit path, SIGINT/SIGTERM included), check
 * what cyclictest wrote, and hand over a bundle: written to a file, or
 * uploaded (spooled when the server cannot take it).  A run that fails
 * still yields a bundle with status agent_error, what was captured, and
 * agent.log.
 */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>
#include <jansson.h>

#include "clock.h"
#include "bundle.h"
#include "cmd.h"
#include "cyclictest.h"
#include "rtla.h"
#include "rttests.h"
#include "env.h"
#include "injectlog.h"
#include "ftrace.h"
#include "knob.h"
#include "load.h"
#include "nic.h"
#include "log.h"
#include "manifest.h"
#include "measure.h"
#include "parse.h"
#include "proc.h"
#include "progress.h"
#include "testcase.h"
#include "extras.h"
#include "upload.h"

#define RUN_LOAD_SETTLE_MS 1000
/* iperf3 -s of an iperf3-nic load: how long it may take to listen */
#define RUN_NIC_LISTEN_MS 20000
#define RUN_NIC_NET_ROOT "/sys/class/net"
#define RUN_LOAD_GRACE_MS 3000
#define RUN_FILE_MAX (64u << 20)

static volatile sig_atomic_t run_stop_signal;

static void run_on_signal(int sig)
{
	run_stop_signal = sig;
}

struct run_opts {
	const char *testcase, *board, *run_id, *tracefs, *out, *upload;
	const char *token, *spool, *clock;
	const char *kernel_name, *kernel_tree; /* what the lab calls it */
	const char *extras;		       /* --extras DIR, or NULL */
	unsigned int duration_s;	       /* 0: the testcase's */
	unsigned int interval_us;	       /* 0: the testcase's */
};

struct run_ctx {
	struct run_opts o;
	char run_id[37];
	char workdir[64];
	FILE *log;
	char *error; /* first error: the run is agent_error */
	struct testcase tc;
	bool tc_ok;
	unsigned int duration_s;
	unsigned int interval_us; /* cyclictest -i */
	enum rt_tool tool;	  /* measurement.tool */
	json_t *results;	  /* a summary tool's pass/fail and counts */
	json_t *commands, *trace; /* trace: the manifest's "trace" */
	json_t *measurement;	  /* the manifest's "measurement" */
	json_t *injections;	  /* the manifest's "injections" */
	const char *trace_root;	  /* set once prepared */
	bool trace_on;		  /* started, not yet stopped */
	bool trace_started;
	struct ftrace_snapshot snap; /* the worst wakeup's trace */
	json_t *kernel, *env;
	struct bundle *files; /* everything but the manifest */
	struct knob_list knobs;
	struct load_set loads;
	struct extras_run extras; /* the testcase's modules, files, commands */
	bool extras_ok;		  /* extras_init() done */
	/* an iperf3-nic load: the NIC and its counters around the
	 * measurement; @nic is the manifest's record of them */
	char nic_if[64], nic_driver[64];
	struct nic_stats nic_before;
	bool nic_up;
	json_t *nic;
	char *started_at, *finished_at;
	double t0;
	struct progress prog; /* on a terminal only */
};

static void run_kernel_label(struct run_ctx *r);

/* A line for agent.log; with @level below INFO, for stderr too. */
static void __printf(3, 4)
	rlog(struct run_ctx *r, enum log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->log) {
		fprintf(r->log, "[%8.3f] %s%s\n", clock_mono_s() - r->t0,
			level == LOG_LEVEL_ERROR ? "error: " :
			level == LOG_LEVEL_WARN	 ? "warning: " :
						   "",
			msg);
		fflush(r->log);
	}
	if (level == LOG_LEVEL_ERROR)
		log_error("run %s: %s", r->run_id, msg);
	else if (level == LOG_LEVEL_WARN)
		log_warn("run %s: %s", r->run_id, msg);
}

/* Remember the first error; the run carries on to clean up. */
static void __printf(2, 3) run_fail(struct run_ctx *r, const char *fmt, ...)
{
	char msg[RTLAB_ERR_LEN + 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rlog(r, LOG_LEVEL_ERROR, "%s", msg);
	if (!r->error)
		r->error = strdup(msg);
}

static bool run_stopped(struct run_ctx *r)
{
	if (run_stop_signal && !r->error)
		run_fail(r, "interrupted by SIG%s",
			 sigabbrev_np(run_stop_signal) ?
				 sigabbrev_np(run_stop_signal) :
				 "?");
	return run_stop_signal != 0;
}

static void phase(struct run_ctx *r, const char *name)
{
	rlog(r, LOG_LEVEL_DEBUG, "phase: %s", name);
	progress_phase(&r->prog, name);
}

static void run_stop_trace(struct run_ctx *r);

static void measure_tick(void *ctx, double elapsed_s)
{
	struct run_ctx *r = ctx;

	progress_update(&r->prog);
	/* An end-of-run trace ends with the measurement: what the tool
	 * and the loads do afterwards (a histogram written under load can
	 * take seconds on a slow board) would push it out of the buffer. */
	if (r->trace_on && r->tc.trace.capture == TC_CAPTURE_END_OF_RUN &&
	    elapsed_s >= r->duration_s)
		run_stop_trace(r);
}

static void sleep_ms_interruptible(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (!run_stop_signal && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void append_file_to_log(struct run_ctx *r, const char *path,
			       const char *what);

static void add_command(struct run_ctx *r, const struct argv *a)
{
	char *s = argv_join(a);

	rlog(r, LOG_LEVEL_INFO, "command: %s", s ? s : "?");
	if (!s || json_array_append_new(r->commands, json_string(s)))
		run_fail(r, "out of memory recording a command line");
	free(s);
}

static char *work_path(struct run_ctx *r, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", r->workdir, name) < 0)
		return NULL;
	return p;
}

static void add_file(struct run_ctx *r, const char *name, const void *data,
		     size_t size)
{
	int ret = bundle_add(r->files, name, data, size);

	if (ret)
		run_fail(r, "bundle: cannot add %s: %s", name, strerror(-ret));
}

/* The environment, the kernel config. */
static void run_capture_env(struct run_ctx *r)
{
	struct rtlab_err err = { "" };
	char *config = NULL, *source = NULL, sha[65];
	size_t len = 0;

	phase(r, "environment");
	r->kernel = env_kernel_json("");
	r->env = env_environment_json("", r->o.clock);
	run_kernel_label(r);
	if (!r->kernel || !r->env) {
		run_fail(r, "out of memory recording the environment");
		return;
	}
	if (env_read_config("", &config, &len, &source, &err)) {
		/* Not fatal: a kernel without IKCONFIG is still measured. */
		rlog(r, LOG_LEVEL_WARN, "%s", err.msg);
		json_object_set_new(r->kernel, "config_sha256", json_null());
	} else {
		sha256_hex(config, len, sha);
		json_object_set_new(r->kernel, "config_sha256",
				    json_string(sha));
		json_object_set_new(r->env, "config_source",
				    json_string(source));
		add_file(r, "config", config, len);
		rlog(r, LOG_LEVEL_INFO, "kernel config from %s, sha256 %s",
		     source, sha);
	}
	free(config);
	free(source);
}

static void run_check_tools(struct run_ctx *r)
{
	const char **tools = testcase_tools(&r->tc);
	size_t i;

	if (!tools) {
		run_fail(r, "out of memory");
		return;
	}
	for (i = 0; tools[i]; i++) {
		char *path = path_which(tools[i]);

		if (!path)
			run_fail(r,
				 "testcase %s needs '%s', which is not on PATH",
				 r->tc.name, tools[i]);
		free(path);
	}
	free(tools);
}

static void trace_unavailable(struct run_ctx *r, const char *reason)
{
	json_object_set_new(r->trace, "status", json_string("unavailable"));
	json_object_set_new(r->trace, "reason", json_string(reason));
}

/* Check and set the tracefs knobs; tracing stays off until started. */
static void run_prepare_trace(struct run_ctx *r)
{
	struct rtlab_err err = { "" };
	const struct tc_trace *t = &r->tc.trace;
	json_t *events, *missing;
	const char *root;
	char *tool;
	size_t i;

	if (!t->enabled)
		return;
	events = json_array();
	missing = json_array();
	r->trace = json_pack("{s:s, s:o, s:o, s:I, s:s}", "status", "prepared",
			     "events", events, "missing_optional", missing,
			     "buffer_kb", (json_int_t)t->buffer_kb, "capture",
			     "end_of_run");
	if (!r->trace) {
		run_fail(r, "out of memory");
		return;
	}
	root = ftrace_find_root(r->o.tracefs, &err);
	if (!root && !r->o.tracefs) {
		/* Measure anyway; the manifest says the trace is absent. */
		rlog(r, LOG_LEVEL_WARN, "%s; measuring without ftrace",
		     err.msg);
		trace_unavailable(r, err.msg);
		return;
	}
	if (!root) {
		run_fail(r, "%s", err.msg);
		return;
	}
	tool = path_which("trace-cmd");
	if (!tool) {
		rlog(r, LOG_LEVEL_WARN,
		     "trace-cmd is not on PATH (it writes trace.dat); measuring without ftrace");
		trace_unavailable(r,
				  "trace-cmd is not on PATH (it writes trace.dat)");
		return;
	}
	free(tool);
	json_object_set_new(r->trace, "tracefs", json_string(root));
	for (i = 0; i < t->noptional_events; i++)
		if (!ftrace_event_exists(root, t->optional_events[i])) {
			rlog(r, LOG_LEVEL_WARN,
			     "optional trace event '%s' is not in this kernel; tracing without it",
			     t->optional_events[i]);
			json_array_append_new(missing,
					      json_string(t->optional_events[i]));
		}
	if (ftrace_prepare(root, t, &r->knobs, &err)) {
		run_fail(r, "%s", err.msg);
		trace_unavailable(r, err.msg);
		return;
	}
	for (i = 0; i < t->nevents; i++)
		json_array_append_new(events, json_string(t->events[i]));
	for (i = 0; i < t->noptional_events; i++)
		if (ftrace_event_exists(root, t->optional_events[i]))
			json_array_append_new(events,
					      json_string(t->optional_events[i]));
	r->trace_root = root;
	rlog(r, LOG_LEVEL_INFO,
	     "tracefs %s: buffer_size_kb %u, %zu event(s) enabled, tracing off until the start",
	     root, t->buffer_kb, json_array_size(events));
	if (t->capture == TC_CAPTURE_END_OF_RUN) {
		rlog(r, LOG_LEVEL_INFO,
		     "trace.capture end_of_run: the trace will hold the end of the run");
		json_object_set_new(
			r->trace, "capture_reason",
			json_string("the testcase asks for it (trace.capture)"));
		return;
	}
	if (ftrace_snapshot_arm(root, r->tc.measurement.priority, &r->snap,
				&r->knobs, &err)) {
		/* Still a trace, but of the run's end, not of its worst. */
		rlog(r, LOG_LEVEL_WARN,
		     "%s; the trace will hold the end of the run, not its worst wakeup",
		     err.msg);
		json_object_set_new(r->trace, "capture_reason",
				    json_string(err.msg));
		return;
	}
	json_object_set_new(r->trace, "capture",
			    json_string("snapshot_at_max"));
	json_object_set_new(r->trace, "latency",
			    json_string(ftrace_snapshot_latency(&r->snap)));
	if (r->snap.fallback_reason[0]) {
		rlog(r, LOG_LEVEL_WARN,
		     "%s; measuring the wakeup from sched_waking instead",
		     r->snap.fallback_reason);
		json_object_set_new(r->trace, "latency_reason",
				    json_string(r->snap.fallback_reason));
	}
	rlog(r, LOG_LEVEL_INFO,
	     "hist triggers keep the trace of the measuring threads' worst wakeup (onmax snapshot, %s)",
	     ftrace_snapshot_latency(&r->snap));
}

/*
 * The triggers off (the maximum read first), the kept trace back in the
 * top-level buffer.  Safe to call again.
 */
static void run_snapshot_collect(struct run_ctx *r)
{
	struct rtlab_err err = { "" };
	bool had = r->snap.narmed != 0;

	if (!r->trace_root || !r->snap.narmed)
		return;
	if (ftrace_snapshot_disarm(r->trace_root, &r->snap, &err))
		run_fail(r, "%s", err.msg);
	if (!had || !r->trace_started)
		return;
	if (!r->snap.taken) {
		rlog(r, LOG_LEVEL_WARN,
		     "no wakeup of a measuring thread was seen: no snapshot, the trace holds the end of the run");
		json_object_set_new(r->trace, "capture",
				    json_string("end_of_run"));
		json_object_set_new(
			r->trace, "capture_reason",
			json_string("no wakeup of a measuring thread was seen"));
		return;
	}
	if (r->snap.negative) {
		/* Kept, but not the worst: say so, and mark nothing. */
		rlog(r, LOG_LEVEL_WARN,
		     "the kept trace is of a switch-in before its timer's expiry (pid %ld), not of the worst wakeup",
		     r->snap.pid);
		json_object_set_new(r->trace, "capture",
				    json_string("end_of_run"));
		json_object_set_new(
			r->trace, "capture_reason",
			json_string(
				"the maximum was a switch-in before its timer's expiry"));
		return;
	}
	if (ftrace_snapshot_restore(r->trace_root, &r->snap, &err)) {
		run_fail(r, "%s", err.msg);
		return;
	}
	if (ftrace_snapshot_mark(r->trace_root, &r->snap, &err))
		rlog(r, LOG_LEVEL_WARN, "%s", err.msg);
	json_object_set_new(r->trace, "spike_us",
			    json_integer((json_int_t)r->snap.lat_us));
	if (r->snap.pid >= 0)
		json_object_set_new(r->trace, "spike_pid",
				    json_integer(r->snap.pid));
	rlog(r, LOG_LEVEL_INFO,
	     "worst wakeup of a measuring thread: %llu us (pid %ld, %s); its trace is kept",
	     r->snap.lat_us, r->snap.pid, ftrace_snapshot_latency(&r->snap));
}

/* Before the loads: a heavy load can starve whoever starts tracing. */
static void run_start_trace(struct run_ctx *r)
{
	struct rtlab_err err = { "" };

	if (!r->trace_root)
		return;
	phase(r, "trace");
	if (ftrace_start(r->trace_root, &r->knobs, &err)) {
		run_fail(r, "%s", err.msg);
		trace_unavailable(r, err.msg);
		return;
	}
	r->trace_on = r->trace_started = true;
	json_object_set_new(r->trace, "status", json_string("tracing"));
	rlog(r, LOG_LEVEL_INFO, "tracing on (top-level buffer of %s)",
	     r->trace_root);
}

/* Tracing off, then the snapshot's trace back to the top level. */
static void run_stop_trace(struct run_ctx *r)
{
	struct rtlab_err err = { "" };
	bool was_on = true;

	if (!r->trace_on)
		return;
	r->trace_on = false;
	if (ftrace_stop(r->trace_root, &r->knobs, &was_on, &err)) {
		run_fail(r, "%s", err.msg);
		return;
	}
	if (!was_on)
		rlog(r, LOG_LEVEL_WARN,
		     "tracing was already off at the end: something else stopped it during the run");
	else
		rlog(r, LOG_LEVEL_INFO, "tracing off");
	run_snapshot_collect(r);
}

/* What the kept buffer holds and lost, before trace-cmd reads it. */
static void run_trace_stats(struct run_ctx *r)
{
	struct ftrace_stats st;
	unsigned long long lost;

	if (ftrace_stats_read(r->trace_root, &st)) {
		rlog(r, LOG_LEVEL_WARN,
		     "%s/per_cpu/cpu0/stats is missing: lost events unknown",
		     r->trace_root);
		return;
	}
	lost = st.overrun + st.commit_overrun + st.dropped;
	json_object_set_new(r->trace, "entries",
			    json_integer((json_int_t)st.entries));
	json_object_set_new(r->trace, "lost_events",
			    json_integer((json_int_t)lost));
	if (lost)
		rlog(r, LOG_LEVEL_WARN,
		     "the kept trace lost %llu event(s) (overrun %llu, commit overrun %llu, dropped %llu) and holds %llu: its oldest part is gone; a larger buffer_kb or fewer events keep more before the spike",
		     lost, st.overrun, st.commit_overrun, st.dropped,
		     st.entries);
	else
		rlog(r, LOG_LEVEL_INFO,
		     "the kept trace holds %llu event(s), none lost",
		     st.entries);
}

/* trace.dat through trace-cmd, into the bundle; the spike from its mark. */
static void run_save_trace(struct run_ctx *r)
{
	struct rtlab_err err = { "" };
	char *path = work_path(r, "trace.dat");
	char *log = work_path(r, "trace.dat.log");
	const struct bundle_file *f;
	int ret;

	if (!r->trace_started || !path || !log)
		goto out;
	if (run_stop_signal) {
		trace_unavailable(r,
				  "run interrupted before the trace was saved");
		goto out;
	}
	phase(r, "trace.dat");
	run_trace_stats(r);
	ret = ftrace_extract(r->trace_root, r->workdir, "trace.dat",
			     &run_stop_signal, &err);
	append_file_to_log(r, log, "trace-cmd extract");
	if (ret == -EXDEV || ret == -ENOENT) {
		/* A --tracefs copy or no trace-cmd: no file, but no fault of
		 * the kernel's either. */
		rlog(r, LOG_LEVEL_WARN, "no trace.dat: %s", err.msg);
		trace_unavailable(r, err.msg);
		goto out;
	}
	if (ret) {
		run_fail(r, "%s", err.msg);
		trace_unavailable(r, err.msg);
		goto out;
	}
	ret = bundle_add_path(r->files, "trace.dat", path, &err);
	if (ret) {
		run_fail(r, "bundle: %s", err.msg);
		trace_unavailable(r, err.msg);
		goto out;
	}
	f = bundle_get(r->files, "trace.dat");
	json_object_set_new(r->trace, "status", json_string("captured"));
	json_object_set_new(r->trace, "file", json_string("trace.dat"));
	rlog(r, LOG_LEVEL_INFO, "trace.dat: %zu bytes (%s)", f->size,
	     json_string_value(json_object_get(r->trace, "capture")));
out:
	free(path);
	free(log);
}

/*
 * An iperf3-nic load: once its server listens on the NIC, note the NIC's
 * counters and tell whoever drives the board (the console line
 * RTLAB-NIC-LOAD-UP, boards/README.md) to start sending.
 */
static void run_nic_up(struct run_ctx *r, const struct tc_load *l)
{
	unsigned int waited_ms = 0;
	int ret;

	ret = nic_find(RUN_NIC_NET_ROOT, r->nic_if, sizeof(r->nic_if),
		       r->nic_driver, sizeof(r->nic_driver));
	if (ret) {
		run_fail(r,
			 "load network (iperf3-nic): the board has no network "
			 "interface backed by a device (%s)",
			 strerror(-ret));
		return;
	}
	while (!nic_tcp_listening("/proc/net/tcp", TC_NIC_GUEST_ADDR,
				  l->port) &&
	       waited_ms < RUN_NIC_LISTEN_MS && !run_stopped(r)) {
		sleep_ms_interruptible(100);
		waited_ms += 100;
	}
	if (!nic_tcp_listening("/proc/net/tcp", TC_NIC_GUEST_ADDR, l->port)) {
		run_fail(r,
			 "load network (iperf3-nic): iperf3 -s did not listen "
			 "on %s:%u within %u s (has %s that address?)",
			 TC_NIC_GUEST_ADDR, l->port, RUN_NIC_LISTEN_MS / 1000,
			 r->nic_if);
		return;
	}
	ret = nic_stats_get(RUN_NIC_NET_ROOT, r->nic_if, &r->nic_before);
	if (ret) {
		run_fail(r, "load network (iperf3-nic): %s statistics: %s",
			 r->nic_if, strerror(-ret));
		return;
	}
	r->nic_up = true;
	printf("RTLAB-NIC-LOAD-UP port=%u if=%s\n", l->port, r->nic_if);
	fflush(stdout);
	rlog(r, LOG_LEVEL_INFO,
	     "load network (iperf3-nic): listening on %s:%u (%s, %s), rx "
	     "%llu packets so far",
	     TC_NIC_GUEST_ADDR, l->port, r->nic_if, r->nic_driver,
	     r->nic_before.rx_packets);
}

/* The measurement is over: what the NIC received meanwhile, and the
 * sender told to stop (RTLAB-NIC-LOAD-DOWN). */
static void run_nic_down(struct run_ctx *r)
{
	const struct tc_load *l = testcase_nic_load(&r->tc);
	struct nic_stats after;
	int ret;

	if (!r->nic_up)
		return;
	r->nic_up = false;
	ret = nic_stats_get(RUN_NIC_NET_ROOT, r->nic_if, &after);
	printf("RTLAB-NIC-LOAD-DOWN if=%s\n", r->nic_if);
	fflush(stdout);
	if (ret) {
		run_fail(r, "load network (iperf3-nic): %s statistics: %s",
			 r->nic_if, strerror(-ret));
		return;
	}
	r->nic =
		json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I}",
			  "source", "outside", "interface", r->nic_if, "driver",
			  r->nic_driver, "address", TC_NIC_GUEST_ADDR, "port",
			  (int)l->port, "rx_bytes_before",
			  (json_int_t)r->nic_before.rx_bytes, "rx_bytes_after",
			  (json_int_t)after.rx_bytes, "rx_bytes",
			  (json_int_t)(after.rx_bytes - r->nic_before.rx_bytes),
			  "rx_packets_before",
			  (json_int_t)r->nic_before.rx_packets,
			  "rx_packets_after", (json_int_t)after.rx_packets,
			  "rx_packets",
			  (json_int_t)(after.rx_packets -
				       r->nic_before.rx_packets));
	rlog(r, LOG_LEVEL_INFO,
	     "load network (iperf3-nic): %s received %llu packets, %llu "
	     "bytes during the measurement",
	     r->nic_if, after.rx_packets - r->nic_before.rx_packets,
	     after.rx_bytes - r->nic_before.rx_bytes);
}

static void run_start_loads(struct run_ctx *r)
{
	struct rtlab_err err = { "" };
	struct argv cmds[LOAD_MAX_CMDS];
	size_t i, j, n;

	for (i = 0; i < r->tc.nloads && !r->error; i++) {
		const char *label = tc_load_kind_name(r->tc.loads[i].kind);

		phase(r, "loads");
		if (load_build_cmds(&r->tc.loads[i], r->duration_s, cmds, &n)) {
			run_fail(r, "out of memory building load %s", label);
		} else {
			for (j = 0; j < n; j++)
				add_command(r, &cmds[j]);
			if (load_start(&r->loads, label, cmds, n, &err))
				run_fail(r, "%s", err.msg);
			else
				rlog(r, LOG_LEVEL_INFO,
				     "load %s started (process group %d)",
				     label,
				     (int)r->loads.v[r->loads.n - 1].pgid);
		}
		for (j = 0; j < LOAD_MAX_CMDS; j++)
			argv_cleanup(&cmds[j]);
	}
	if (!r->error && testcase_nic_load(&r->tc))
		run_nic_up(r, testcase_nic_load(&r->tc));
	/* Let the loads get going before measuring under them. */
	if (r->tc.nloads && !r->error)
		sleep_ms_interruptible(RUN_LOAD_SETTLE_MS);
}

static void append_file_to_log(struct run_ctx *r, const char *path,
			       const char *what)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		rlog(r, LOG_LEVEL_INFO, "%s: %s", what,
		     strtok(line, "\n") ?: "");
	fclose(f);
}

static int slurp(const char *path, char **data, size_t *len)
{
	struct bundle *tmp = bundle_alloc();
	struct rtlab_err err;
	const struct bundle_file *f;
	int ret;

	/* bundle_add_path() already reads a file whole, with a limit. */
	if (!tmp)
		return -ENOMEM;
	ret = bundle_add_path(tmp, "f", path, &err);
	if (!ret) {
		f = bundle_get(tmp, "f");
		*data = malloc(f->size + 1);
		if (*data) {
			memcpy(*data, f->data, f->size);
			(*data)[f->size] = '\0';
			*len = f->size;
		} else {
			ret = -ENOMEM;
		}
	}
	bundle_free(tmp);
	return ret;
}

/* Check both outputs parse and agree, then bundle them. */
static void run_collect(struct run_ctx *r, const char *json_path,
			const char *hist_path)
{
	struct ct_result js = { 0 }, hs = { 0 };
	struct rtlab_err err = { "" };
	char *jtext = NULL, *htext = NULL;
	size_t jlen = 0, hlen = 0, i;
	uint64_t lo = UINT64_MAX;
	json_t *samples;
	int ret;

	if (slurp(json_path, &jtext, &jlen)) {
		run_fail(r, "cyclictest wrote no %s", json_path);
	} else {
		ret = measure_json_repair(&jtext, &jlen);
		if (ret < 0)
			run_fail(r, "out of memory reading cyclictest.json");
		else if (ret)
			rlog(r, LOG_LEVEL_WARN,
			     "cyclictest.json had 'nan' averages (threads without samples); rewritten without them");
		add_file(r, "cyclictest.json", jtext, jlen);
		if (ct_json_parse(jtext, jlen, r->tc.measurement.histogram_us,
				  &js, &err)) {
			run_fail(r, "cyclictest.json: %s", err.msg);
		} else {
			if (js.version)
				json_object_set_new(r->env, "rt_tests_version",
						    json_string(js.version));
			for (i = 0; i < js.nthreads && !r->error; i++)
				if (hist_check(&js.threads[i], &err))
					run_fail(r,
						 "cyclictest.json thread %zu: %s",
						 i, err.msg);
			if (!js.nthreads)
				run_fail(r,
					 "cyclictest.json: no thread measured");
		}
	}
	if (slurp(hist_path, &htext, &hlen)) {
		run_fail(r, "cyclictest's histogram output %s is missing",
			 hist_path);
	} else {
		add_file(r, "cyclictest.hist", htext, hlen);
		if (ct_hist_parse(htext, hlen, &hs, &err))
			run_fail(r, "cyclictest.hist: %s", err.msg);
		else if (js.nthreads && hs.nthreads != js.nthreads)
			run_fail(r,
				 "cyclictest.hist has %u threads but cyclictest.json %u",
				 hs.nthreads, js.nthreads);
	}
	samples = json_array();
	for (i = 0; samples && i < js.nthreads; i++) {
		json_array_append_new(samples,
				      json_integer((json_int_t)js.threads[i]
							   .samples));
		if (js.threads[i].samples < lo)
			lo = js.threads[i].samples;
	}
	if (samples)
		json_object_set_new(r->measurement, "samples", samples);
	if (js.nthreads && !r->error)
		rlog(r, LOG_LEVEL_INFO,
		     "cyclictest measured %u thread(s), at least %llu sample(s) each of the %llu its duration and interval make",
		     js.nthreads, (unsigned long long)lo,
		     (unsigned long long)
			     measure_samples_planned(r->duration_s,
						     r->interval_us));
	ct_result_cleanup(&js);
	ct_result_cleanup(&hs);
	free(jtext);
	free(htext);
}

/* What a tool other than cyclictest wrote: rtla's histogram text on
 * stdout, or the --json of a summary tool (its stdout kept beside). */
static void run_collect_other(struct run_ctx *r, const char *out_path,
			      const char *json_path)
{
	const char *name = rt_tool_output(r->tool);
	struct rtlab_err err = { "" };
	struct rt_summary sum = { 0 };
	struct ct_result hs = { 0 };
	char *text = NULL, *otext = NULL;
	size_t len = 0, olen = 0, i;
	json_t *samples;
	int ret;

	if (rt_tool_has_hist(r->tool)) {
		if (slurp(out_path, &text, &len)) {
			run_fail(r, "%s wrote no %s", rt_tool_name(r->tool),
				 name);
			return;
		}
		add_file(r, name, text, len);
		if (rtla_hist_parse(r->tool, text, len,
				    r->tc.measurement.histogram_us, &hs,
				    &err)) {
			run_fail(r, "%s", err.msg);
		} else {
			samples = json_array();
			for (i = 0; samples && i < hs.nthreads; i++)
				json_array_append_new(
					samples,
					json_integer((json_int_t)hs.threads[i]
							     .samples));
			if (samples)
				json_object_set_new(r->measurement, "samples",
						    samples);
			rlog(r, LOG_LEVEL_INFO, "%s measured %u histogram(s)",
			     rt_tool_name(r->tool), hs.nthreads);
		}
		ct_result_cleanup(&hs);
		free(text);
		return;
	}
	if (!slurp(out_path, &otext, &olen)) {
		char oname[64];

		snprintf(oname, sizeof(oname), "%s.out", rt_tool_name(r->tool));
		add_file(r, oname, otext, olen);
	}
	free(otext);
	if (slurp(json_path, &text, &len)) {
		run_fail(r, "%s wrote no %s", rt_tool_name(r->tool), name);
		return;
	}
	ret = measure_json_repair(&text, &len);
	if (ret < 0) {
		run_fail(r, "out of memory reading %s", name);
		free(text);
		return;
	}
	add_file(r, name, text, len);
	if (rt_summary_parse(r->tool, text, len, &sum, &err)) {
		run_fail(r, "%s", err.msg);
	} else {
		if (sum.version)
			json_object_set_new(r->env, "rt_tests_version",
					    json_string(sum.version));
		json_decref(r->results);
		r->results = rt_summary_to_json(&sum);
		rlog(r, LOG_LEVEL_INFO, "%s %s (return code %d, %u thread(s))",
		     rt_tool_name(r->tool), sum.passed ? "passed" : "FAILED",
		     sum.return_code, sum.nthreads);
	}
	rt_summary_cleanup(&sum);
	free(text);
}

static void run_measure(struct run_ctx *r)
{
	struct rtlab_err err = { "" };
	const char *tn = rt_tool_name(r->tool);
	bool ct = r->tool == RT_TOOL_CYCLICTEST;
	char jname[64], oname[64], ename[64];
	char *json_path, *hist_path, *err_path;
	struct argv a;
	char why[64];
	int status = 0, ret;
	double t0, took;

	snprintf(jname, sizeof(jname), "%s.json", tn);
	snprintf(oname, sizeof(oname), "%s",
		 ct			   ? "cyclictest.hist" :
		 rt_tool_has_hist(r->tool) ? rt_tool_output(r->tool) :
					     "tool.out");
	snprintf(ename, sizeof(ename), "%s.stderr", tn);
	json_path = work_path(r, jname);
	hist_path = work_path(r, oname);
	err_path = work_path(r, ename);

	/* The testcase's own interval beside the one used: a board that
	 * overrides it (a deterministic clock, whose tick a divisor of the
	 * tick period would phase-lock with) shows what it replaced. */
	r->measurement =
		json_pack("{s:I, s:I, s:s, s:I, s:I, s:b}", "planned_s",
			  (json_int_t)r->duration_s, "interval_us",
			  (json_int_t)r->interval_us, "interval_source",
			  r->o.interval_us ? "board" : "testcase",
			  "testcase_interval_us",
			  (json_int_t)r->tc.measurement.interval_us,
			  "samples_planned",
			  (json_int_t)measure_samples_planned(r->duration_s,
							      r->interval_us),
			  "stopped_early", 0);
	if (!r->measurement || !json_path || !hist_path || !err_path ||
	    measure_build_argv(&r->tc, r->duration_s, r->interval_us,
			       "cyclictest.json", &a)) {
		run_fail(r, "out of memory building the cyclictest command");
		goto out;
	}
	add_command(r, &a);
	rlog(r, LOG_LEVEL_INFO, "measuring for %u s", r->duration_s);
	phase(r, "measure");
	/* Run where its output lands, so the recorded command line
	 * carries no temporary path. */
	t0 = clock_mono_s();
	ret = measure_run(&a, r->workdir, hist_path, err_path, r->duration_s,
			  &run_stop_signal, measure_tick, r, &status, &err);
	took = clock_mono_s() - t0;
	json_object_set_new(r->measurement, "measured_s",
			    json_real((long)(took * 1000) / 1000.0));
	/* Only a failure ends a run early: interrupted, killed, or a
	 * cyclictest that quit before its duration. */
	if (ret || took < r->duration_s)
		json_object_set_new(r->measurement, "stopped_early",
				    json_true());
	argv_cleanup(&a);
	snprintf(why, sizeof(why), "%s stderr", tn);
	append_file_to_log(r, err_path, why);
	if (ret == -EINTR)
		run_stopped(r);
	else if (ret)
		run_fail(r, "%s", err.msg);
	else if (WIFEXITED(status) && WEXITSTATUS(status) && !ct &&
		 !rt_tool_has_hist(r->tool))
		/* A pass/fail tool's failure is its result, not the
		 * agent's: its --json says it (return_code). */
		rlog(r, LOG_LEVEL_WARN, "%s exited with %d", tn,
		     WEXITSTATUS(status));
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		run_fail(r, "%s failed (%s); its stderr is in agent.log", tn,
			 proc_status_str(status, why, sizeof(why)));
	else if (took < r->duration_s)
		run_fail(r,
			 "%s ended after %.3f s of its %u s duration; a run measures its whole duration",
			 tn, took, r->duration_s);
	/* Even a failed measurement may have left output worth keeping. */
	if (ct)
		run_collect(r, json_path, hist_path);
	else
		run_collect_other(r, hist_path, json_path);
out:
	free(json_path);
	free(hist_path);
	free(err_path);
}

/* Undo everything the run changed; runs on every path. */
static void extras_note(void *ctx, const char *msg)
{
	rlog(ctx, LOG_LEVEL_INFO, "%s", msg);
}

/* The developer's extras in place before anything is measured. */
static void run_setup_extras(struct run_ctx *r)
{
	struct rtlab_err err = { "" };

	if (!testcase_has_extras(&r->tc))
		return;
	phase(r, "extras");
	if (extras_init(&r->extras, &r->tc, r->o.extras, extras_note, r)) {
		run_fail(r, "out of memory setting up the extras");
		return;
	}
	r->extras_ok = true;
	if (extras_setup(&r->extras, &err))
		run_fail(r, "testcase %s: %s", r->tc.name, err.msg);
}

static void run_restore(struct run_ctx *r)
{
	struct rtlab_err err = { "" };

	run_stop_trace(r);
	phase(r, "restore");
	run_nic_down(r);
	if (r->loads.n)
		rlog(r, LOG_LEVEL_INFO, "stopping %zu load(s)", r->loads.n);
	load_stop_all(&r->loads, RUN_LOAD_GRACE_MS);
	/* With the loads gone, trace-cmd has the board to itself. */
	run_save_trace(r);
	/* On every path: the triggers off, the snapshot buffer freed. */
	run_snapshot_collect(r);
	if (r->trace_root &&
	    ftrace_snapshot_free(r->trace_root, &r->snap, &err))
		run_fail(r, "restoring the board: %s", err.msg);
	/* After the loads, which may use what the extras provide. */
	if (r->extras_ok && extras_teardown(&r->extras, &err))
		run_fail(r, "restoring the board: %s", err.msg);
	if (knob_restore_all(&r->knobs, &err))
		run_fail(r, "restoring the board: %s", err.msg);
}

static void run_capture_dmesg(struct run_ctx *r)
{
	struct rtlab_err err = { "" };
	char *data = NULL;
	size_t len = 0;

	if (env_read_dmesg("", &data, &len, &err)) {
		rlog(r, LOG_LEVEL_WARN, "no kernel log: %s", err.msg);
	} else {
		add_file(r, "dmesg.txt", data, len);
		/* What the injectors did, not what they were asked. */
		r->injections = injectlog_parse(data, len, r->commands);
	}
	free(data);
}

static json_t *run_manifest(struct run_ctx *r)
{
	json_t *m, *files, *tcj;
	const char *tcname;
	char tcbuf[256];
	char sha[65];
	size_t i;

	files = json_object();
	for (i = 0; files && i < r->files->nfiles; i++) {
		const struct bundle_file *f = &r->files->files[i];

		sha256_hex(f->data, f->size, sha);
		json_object_set_new(files, f->name,
				    json_pack("{s:I, s:s}", "size",
					      (json_int_t)f->size, "sha256",
					      sha));
	}
	if (r->tc_ok) {
		tcname = r->tc.name;
		tcj = testcase_to_json(&r->tc);
	} else {
		/* An unreadable testcase is still a run, named by its file. */
		const char *base = strrchr(r->o.testcase, '/');
		size_t n;

		base = base ? base + 1 : r->o.testcase;
		n = strlen(base);
		if (n > 5 && !strcmp(base + n - 5, ".yaml"))
			n -= 5;
		snprintf(tcbuf, sizeof(tcbuf), "%.*s", (int)n, base);
		tcname = tcbuf;
		tcj = json_null();
	}
	m = json_pack("{s:s, s:i, s:s, s:s, s:s, s:{s:s, s:I, s:I, s:o}, "
		      "s:O, s:O, s:O, s:s, s:s, s:o}",
		      "format", MANIFEST_FORMAT, "format_version",
		      MANIFEST_FORMAT_VERSION, "run_id", r->run_id, "board",
		      r->o.board, "status",
		      run_status_name(r->error ? RUN_STATUS_AGENT_ERROR :
						 RUN_STATUS_COMPLETE),
		      "testcase", "name", tcname, "duration_s",
		      (json_int_t)r->duration_s, "hist_range_us",
		      (json_int_t)(r->tc_ok ? r->tc.measurement.histogram_us :
					      0),
		      "definition", tcj, "kernel", r->kernel, "environment",
		      r->env, "commands", r->commands, "started_at",
		      r->started_at, "finished_at", r->finished_at, "files",
		      files);
	if (m && r->error)
		json_object_set_new(m, "error", json_string(r->error));
	if (m && r->tc_ok)
		json_object_set_new(json_object_get(m, "testcase"), "tool",
				    json_string(rt_tool_name(r->tool)));
	if (m && r->extras_ok)
		json_object_set_new(json_object_get(m, "testcase"), "extras",
				    extras_json(&r->extras));
	if (m && r->results)
		json_object_set(m, "results", r->results);
	if (m && r->trace)
		json_object_set(m, "trace", r->trace);
	if (m && r->measurement)
		json_object_set(m, "measurement", r->measurement);
	/* beside the load's definition: the report's load line reads it */
	if (m && r->nic && r->tc_ok && testcase_nic_load(&r->tc))
		json_object_set(json_array_get(json_object_get(tcj, "loads"),
					       testcase_nic_load(&r->tc) -
						       r->tc.loads),
				"nic", r->nic);
	if (m && json_array_size(r->injections))
		json_object_set(m, "injections", r->injections);
	return m;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(path);
}

/* Manifest, bundle, hand-over.  Return: the exit status. */
static int run_finish(struct run_ctx *r)
{
	struct rtlab_err err = { "" };
	struct bundle *b = NULL;
	json_t *m = NULL;
	char *text = NULL, *log_path = work_path(r, "agent.log");
	void *data = NULL;
	size_t size = 0;
	int ret, status = r->error ? AGENT_EXIT_FAILURE : AGENT_EXIT_OK;

	free(r->finished_at);
	r->finished_at = clock_iso_now();
	if (!r->kernel) {
		r->kernel = env_kernel_json("");
		run_kernel_label(r);
	}
	if (!r->env)
		r->env = env_environment_json("", r->o.clock);
	rlog(r, LOG_LEVEL_INFO, "run %s: %s%s%s", r->run_id,
	     r->error ? "agent_error" : "complete", r->error ? ": " : "",
	     r->error ? r->error : "");
	if (r->log) {
		fclose(r->log);
		r->log = NULL;
		if (log_path &&
		    bundle_add_path(r->files, "agent.log", log_path, &err))
			fprintf(stderr, "rtlab-agent: %s\n", err.msg);
	}
	m = run_manifest(r);
	text = m ? json_dumps(m, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
	b = bundle_alloc();
	if (!text || !b) {
		fprintf(stderr,
			"rtlab-agent: out of memory writing the manifest\n");
		status = AGENT_EXIT_FAILURE;
		goto out;
	}
	/* The bundle owns copies; r->files keeps the originals. */
	ret = bundle_add(b, BUNDLE_MANIFEST, text, strlen(text));
	for (size_t i = 0; !ret && i < r->files->nfiles; i++)
		ret = bundle_add(b, r->files->files[i].name,
				 r->files->files[i].data,
				 r->files->files[i].size);
	if (ret) {
		fprintf(stderr, "rtlab-agent: bundle: %s\n", strerror(-ret));
		status = AGENT_EXIT_FAILURE;
		goto out;
	}
	if (r->o.out) {
		if (bundle_write(b, r->o.out, &err)) {
			fprintf(stderr, "rtlab-agent: %s\n", err.msg);
			status = AGENT_EXIT_FAILURE;
			goto out;
		}
		printf("rtlab-agent: run %s %s: bundle written to %s\n",
		       r->run_id, r->error ? "agent_error" : "complete",
		       r->o.out);
		goto out;
	}
	if (bundle_write_mem(b, &data, &size, &err)) {
		fprintf(stderr, "rtlab-agent: %s\n", err.msg);
		status = AGENT_EXIT_FAILURE;
		goto out;
	}
	ret = upload_deliver(r->o.upload, r->o.token,
			     upload_spool_dir(r->o.spool), r->run_id, data,
			     size, &err);
	if (ret && ret != -EBADMSG)
		fprintf(stderr, "rtlab-agent: %s\n", err.msg);
	if (ret)
		status = AGENT_EXIT_FAILURE;
out:
	free(data);
	bundle_free(b);
	free(text);
	json_decref(m);
	free(log_path);
	return status;
}

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: rtlab-agent run --testcase FILE [--duration SECONDS] [--interval US]\n"
		"                       [--board NAME]\n"
		"                       [--run-id UUID] [--tracefs DIR] [--clock CLOCK]\n"
		"                       [--kernel-name NAME] [--kernel-tree TREE]\n"
		"                       (--out BUNDLE | --upload URL --token TOKEN)\n"
		"                       [--spool DIR] [--extras DIR]\n"
		"\n"
		"Run the testcase's loads and cyclictest on this board, restore the board,\n"
		"and write the result bundle to a file or upload it.\n"
		"\n"
		"  --testcase FILE     testcase YAML (see testcases/README.md)\n"
		"  --duration SECONDS  measure this long instead of the testcase's duration_s\n"
		"  --interval US       cyclictest -i instead of the testcase's interval_us (a\n"
		"                      board whose clock keeps a fixed phase against the\n"
		"                      tick measures off it, e.g. 997)\n"
		"  --board NAME        board name for the manifest (default: local)\n"
		"  --run-id UUID       the run's id (default: a new random one)\n"
		"  --tracefs DIR       tracefs root (default %s, then %s)\n"
		"  --clock CLOCK       what the board's clock is: host (default), icount:3,\n"
		"                      ...  (runs on different clocks are never compared)\n"
		"  --kernel-name NAME  the lab's name for the booted kernel (its definition)\n"
		"  --kernel-tree TREE  the kernel's tree, e.g. debian-rt: runs of one tree,\n"
		"                      board and testcase form a series\n"
		"  --out BUNDLE        write the bundle to this file\n"
		"  --upload URL        POST the bundle, e.g. http://127.0.0.1:8080/api/v1/runs\n"
		"  --token TOKEN       the board's token (default $RTLAB_TOKEN)\n"
		"  --spool DIR         where undeliverable bundles wait for `flush`\n"
		"                      (default $RTLAB_SPOOL or %s)\n"
		"  --extras DIR        the testcase's modules are in DIR (put there by the\n"
		"                      board, with its files at their dest); without it,\n"
		"                      paths are relative to the testcase file and files\n"
		"                      are copied to their dest and removed after\n"
		"\n"
		"Exit status: 0 complete and written, stored or spooled; 1 agent_error or\n"
		"rejected (a bundle is still written or kept); 2 usage error.\n",
		FTRACE_DEFAULT_ROOT, FTRACE_DEBUGFS_ROOT, UPLOAD_DEFAULT_SPOOL);
}

/* The booted kernel knows its release, not what the lab calls it. */
static void run_kernel_label(struct run_ctx *r)
{
	if (!r->kernel)
		return;
	if (r->o.kernel_name && *r->o.kernel_name)
		json_object_set_new(r->kernel, "name",
				    json_string(r->o.kernel_name));
	if (r->o.kernel_tree && *r->o.kernel_tree)
		json_object_set_new(r->kernel, "tree",
				    json_string(r->o.kernel_tree));
}

static int run_parse_opts(int argc, char **argv, struct run_opts *o)
{
	static const struct option opts[] = {
		{ "testcase", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "board", required_argument, NULL, 'b' },
		{ "run-id", required_argument, NULL, 'r' },
		{ "tracefs", required_argument, NULL, 'T' },
		{ "clock", required_argument, NULL, 'k' },
		{ "kernel-name", required_argument, NULL, 'N' },
		{ "kernel-tree", required_argument, NULL, 'R' },
		{ "out", required_argument, NULL, 'o' },
		{ "upload", required_argument, NULL, 'u' },
		{ "token", required_argument, NULL, 't' },
		{ "spool", required_argument, NULL, 's' },
		{ "extras", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *why = NULL;
	unsigned long v;
	unsigned int iv;
	uuid_t uu;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->board = "local";
	o->clock = "host";
	o->token = getenv("RTLAB_TOKEN");
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->testcase = optarg;
			break;
		case 'd':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' || !v ||
			    v > 7 * 24 * 3600) {
				fprintf(stderr,
					"rtlab-agent run: --duration %s: expected whole seconds, 1..604800\n",
					optarg);
				return AGENT_EXIT_USAGE;
			}
			o->duration_s = v;
			break;
		case 'i':
			if (parse_uint(optarg, TC_MIN_INTERVAL_US,
				       TC_MAX_INTERVAL_US, &iv)) {
				fprintf(stderr,
					"rtlab-agent run: --interval %s: expected whole microseconds, %u..%u\n",
					optarg, TC_MIN_INTERVAL_US,
					TC_MAX_INTERVAL_US);
				return AGENT_EXIT_USAGE;
			}
			o->interval_us = iv;
			break;
		case 'b':
			o->board = optarg;
			break;
		case 'r':
			o->run_id = optarg;
			break;
		case 'T':
			o->tracefs = optarg;
			break;
		case 'k':
			o->clock = optarg;
			break;
		case 'N':
			o->kernel_name = optarg;
			break;
		case 'R':
			o->kernel_tree = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'u':
			o->upload = optarg;
			break;
		case 't':
			o->token = optarg;
			break;
		case 's':
			o->spool = optarg;
			break;
		case 'x':
			o->extras = optarg;
			break;
		case 'h':
			run_usage(stdout);
			return -1;
		default:
			run_usage(stderr);
			return AGENT_EXIT_USAGE;
		}
	}
	if (optind < argc)
		why = "unexpected argument";
	else if (!o->testcase)
		why = "--testcase FILE is required";
	else if (!o->out == !o->upload)
		why = "give either --out BUNDLE or --upload URL";
	else if (o->upload && (!o->token || !*o->token))
		why = "--upload needs --token TOKEN (or $RTLAB_TOKEN)";
	else if (o->upload && !upload_url_valid(o->upload))
		why = "--upload: expected an http:// or https:// URL";
	else if (o->run_id && uuid_parse(o->run_id, uu))
		why = "--run-id: expected a UUID like 123e4567-e89b-12d3-a456-426614174000";
	else if (!*o->board || !*o->clock)
		why = "--board and --clock must not be empty";
	if (why) {
		fprintf(stderr, "rtlab-agent run: %s\n", why);
		run_usage(stderr);
		return AGENT_EXIT_USAGE;
	}
	return 0;
}

static void run_signals(bool install)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = install ? run_on_signal : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void run_ctx_cleanup(struct run_ctx *r)
{
	if (r->log)
		fclose(r->log);
	testcase_cleanup(&r->tc);
	json_decref(r->commands);
	json_decref(r->trace);
	json_decref(r->measurement);
	json_decref(r->results);
	json_decref(r->injections);
	json_decref(r->nic);
	json_decref(r->kernel);
	json_decref(r->env);
	bundle_free(r->files);
	knob_list_cleanup(&r->knobs);
	extras_cleanup(&r->extras);
	free(r->started_at);
	free(r->finished_at);
	free(r->error);
	if (r->workdir[0])
		nftw(r->workdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

int cmd_run(int argc, char **argv)
{
	struct rtlab_err err = { "" };
	struct run_ctx r;
	char *log_path;
	uuid_t uu;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = run_parse_opts(argc, argv, &r.o);
	if (ret)
		return ret < 0 ? AGENT_EXIT_OK : ret;
	r.t0 = clock_mono_s();
	log_set_prog("rtlab-agent");
	knob_list_init(&r.knobs);
	load_set_init(&r.loads);
	if (r.o.run_id) {
		uuid_parse(r.o.run_id, uu);
	} else {
		uuid_generate_random(uu);
	}
	uuid_unparse_lower(uu, r.run_id);
	r.started_at = clock_iso_now();
	r.commands = json_array();
	r.files = bundle_alloc();
	snprintf(r.workdir, sizeof(r.workdir), "/tmp/rtlab-agent.XXXXXX");
	if (!r.started_at || !r.commands || !r.files || !mkdtemp(r.workdir)) {
		fprintf(stderr,
			"rtlab-agent: cannot set up a working directory in /tmp: %s\n",
			strerror(errno));
		r.workdir[0] = '\0';
		run_ctx_cleanup(&r);
		return AGENT_EXIT_FAILURE;
	}
	log_path = work_path(&r, "agent.log");
	r.log = log_path ? fopen(log_path, "w") : NULL;
	free(log_path);
	/* Orphaned load processes come back to us to be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	run_signals(true);
	rlog(&r, LOG_LEVEL_INFO, "run %s, board %s, testcase %s", r.run_id,
	     r.o.board, r.o.testcase);

	if (testcase_load(r.o.testcase, &r.tc, &err)) {
		run_fail(&r, "%s", err.msg);
	} else {
		r.tc_ok = true;
		r.duration_s = r.o.duration_s ? r.o.duration_s :
						r.tc.duration_s;
		if (rt_tool_lookup(r.tc.measurement.tool, &r.tool))
			r.tool = RT_TOOL_CYCLICTEST;
		/* The board's interval keeps periodic wakeups off the
		 * tick's phase; a tool without a period, or one whose
		 * period is a deadline (cyclicdeadline), keeps its own. */
		if (r.tool != RT_TOOL_CYCLICTEST &&
		    r.tool != RT_TOOL_TIMERLAT && r.tool != RT_TOOL_PMQTEST)
			r.o.interval_us = 0;
		r.interval_us = r.o.interval_us ? r.o.interval_us :
						  r.tc.measurement.interval_us;
	}
	progress_init(&r.prog, r.tc_ok ? r.tc.name : NULL,
		      r.duration_s +
			      (r.tc.nloads ? RUN_LOAD_SETTLE_MS / 1000.0 : 0));
	run_capture_env(&r);
	if (!r.error)
		run_check_tools(&r);
	if (!r.error && !run_stopped(&r))
		run_setup_extras(&r);
	if (!r.error && !run_stopped(&r))
		run_prepare_trace(&r);
	if (!r.error && !run_stopped(&r))
		run_start_trace(&r);
	if (!r.error && !run_stopped(&r))
		run_start_loads(&r);
	if (!r.error && !run_stopped(&r))
		run_measure(&r);
	run_restore(&r);
	run_stopped(&r);
	run_capture_dmesg(&r);
	progress_done(&r.prog);
	ret = run_finish(&r);
	run_signals(false);
	run_ctx_cleanup(&r);
	return ret;
}
