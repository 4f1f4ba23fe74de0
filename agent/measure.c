// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Running cyclictest: build its command line from the testcase and
 * supervise the process until it ends, is stopped, or overruns.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "clock.h"
#include "measure.h"
#include "rttests.h"

/* cyclictest may take a while to start (mlockall) and to write its JSON. */
#define MEASURE_MARGIN_S 60
#define MEASURE_STOP_GRACE_S 10

/* The command line of a tool other than cyclictest (docs/agent.md,
 * "Other tools"); the output file names are rt_tool_output()'s. */
static void other_argv(const struct testcase *tc, enum rt_tool t,
		       unsigned int duration_s, unsigned int interval_us,
		       struct argv *a)
{
	const struct tc_measurement *m = &tc->measurement;

	switch (t) {
	case RT_TOOL_TIMERLAT:
	case RT_TOOL_OSNOISE:
		argv_add(a, "rtla");
		argv_add(a, t == RT_TOOL_TIMERLAT ? "timerlat" : "osnoise");
		argv_add(a, "hist");
		argv_add(a, "-d");
		argv_addf(a, "%us", duration_s);
		argv_add(a, "-p");
		argv_addf(a, "%u", interval_us);
		if (t == RT_TOOL_OSNOISE) {
			/* Half of each period measures: the other half
			 * leaves a one-CPU board to everything else. */
			argv_add(a, "-r");
			argv_addf(a, "%u",
				  interval_us / 2 ? interval_us / 2 : 1);
		}
		argv_add(a, "-P");
		argv_addf(a, "f:%u", m->priority);
		argv_add(a, "-b");
		argv_add(a, "1");
		argv_add(a, "-E");
		argv_addf(a, "%u", m->histogram_us);
		if (m->affinity) {
			argv_add(a, "-c");
			argv_add(a, m->affinity);
		}
		break;
	case RT_TOOL_SIGNALTEST:
		argv_add(a, "signaltest");
		if (m->mlockall)
			argv_add(a, "-m");
		argv_add(a, "-p");
		argv_addf(a, "%u", m->priority);
		if (m->threads)
			argv_addf(a, "--threads=%u", m->threads);
		break;
	case RT_TOOL_PMQTEST:
		argv_add(a, "pmqtest");
		/* -S: a sender/receiver pair per CPU (or -t N pairs). */
		argv_add(a, "-S");
		if (m->threads)
			argv_addf(a, "--threads=%u", m->threads);
		argv_add(a, "-p");
		argv_addf(a, "%u", m->priority);
		argv_add(a, "-i");
		argv_addf(a, "%u", interval_us);
		break;
	case RT_TOOL_CYCLICDEADLINE:
		argv_add(a, "cyclicdeadline");
		argv_add(a, "-i");
		argv_addf(a, "%u", interval_us);
		argv_add(a, "-t");
		argv_addf(a, "%u", m->threads ? m->threads : 1);
		break;
	case RT_TOOL_PI_STRESS:
		argv_add(a, "pi_stress");
		if (m->mlockall)
			argv_add(a, "-m");
		argv_add(a, "-g");
		argv_addf(a, "%u", m->threads ? m->threads : 1);
		break;
	default:
		break;
	}
	if (t == RT_TOOL_TIMERLAT || t == RT_TOOL_OSNOISE)
		return;
	if (m->affinity && t != RT_TOOL_PI_STRESS)
		argv_addf(a, "--affinity=%s", m->affinity);
	argv_add(a, "-q");
	argv_add(a, "-D");
	argv_addf(a, "%u", duration_s);
	argv_addf(a, "--json=%s", rt_tool_output(t));
}

int measure_build_argv(const struct testcase *tc, unsigned int duration_s,
		       unsigned int interval_us, const char *json_path,
		       struct argv *a)
{
	const struct tc_measurement *m = &tc->measurement;
	enum rt_tool t = RT_TOOL_CYCLICTEST;
	char **x;

	argv_init(a);
	if (!rt_tool_lookup(m->tool, &t) && t != RT_TOOL_CYCLICTEST) {
		other_argv(tc, t, duration_s,
			   interval_us ? interval_us : m->interval_us, a);
		for (x = m->extra_args; x && *x; x++)
			argv_add(a, *x);
		return argv_failed(a) ? -ENOMEM : 0;
	}
	argv_add(a, "cyclictest");
	if (m->mlockall)
		argv_add(a, "-m");
	argv_add(a, "-p");
	argv_addf(a, "%u", m->priority);
	argv_add(a, "-i");
	argv_addf(a, "%u", interval_us ? interval_us : m->interval_us);
	/* -t and -a take optional arguments: attach them with '='. */
	if (m->threads)
		argv_addf(a, "--threads=%u", m->threads);
	else
		argv_add(a, "-t");
	if (m->affinity)
		argv_addf(a, "--affinity=%s", m->affinity);
	argv_add(a, "-h");
	argv_addf(a, "%u", m->histogram_us);
	argv_add(a, "-q");
	argv_add(a, "-D");
	argv_addf(a, "%u", duration_s);
	argv_addf(a, "--json=%s", json_path);
	for (x = m->extra_args; x && *x; x++)
		argv_add(a, *x);
	return argv_failed(a) ? -ENOMEM : 0;
}

unsigned long long measure_samples_planned(unsigned int duration_s,
					   unsigned int interval_us)
{
	return interval_us ? duration_s * 1000000ULL / interval_us : 0;
}

int measure_run(const struct argv *a, const char *cwd, const char *hist_path,
		const char *stderr_path, unsigned int duration_s,
		volatile sig_atomic_t *stop, measure_tick_fn tick, void *ctx,
		int *status, struct rtlab_err *err)
{
	struct timespec pause = { 0, 200 * 1000000L };
	double start, stop_at = 0, deadline;
	int out_fd, err_fd, ret = 0, sig_sent = 0;
	pid_t pid, w;

	out_fd =
		open(hist_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out_fd < 0)
		return rtlab_err_seterr(err, errno, "%s: cannot create: %s",
					hist_path, strerror(errno));
	err_fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0644);
	if (err_fd < 0) {
		ret = rtlab_err_seterr(err, errno, "%s: cannot create: %s",
				       stderr_path, strerror(errno));
		goto out_close;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = rtlab_err_seterr(err, errno, "cyclictest: fork: %s",
				       strerror(errno));
		goto out_close2;
	}
	if (!pid) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(out_fd, 1);
		dup2(err_fd, 2);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (cwd && chdir(cwd)) {
			fprintf(stderr, "cannot enter %s: %s\n", cwd,
				strerror(errno));
			_exit(127);
		}
		execvp(a->v[0], a->v);
		fprintf(stderr, "cannot run %s: %s\n", a->v[0],
			strerror(errno));
		_exit(127);
	}
	start = clock_mono_s();
	deadline = start + duration_s + MEASURE_MARGIN_S;
	for (;;) {
		double t;

		w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			ret = rtlab_err_seterr(err, errno,
					       "cyclictest: wait: %s",
					       strerror(errno));
			break;
		}
		t = clock_mono_s();
		if (*stop && !sig_sent) {
			kill(pid, SIGINT);
			sig_sent = SIGINT;
			stop_at = t;
		} else if (!sig_sent && t > deadline) {
			kill(pid, SIGTERM);
			sig_sent = SIGTERM;
			stop_at = t;
		} else if (sig_sent && sig_sent != SIGKILL &&
			   t > stop_at + MEASURE_STOP_GRACE_S) {
			kill(pid, SIGKILL);
			sig_sent = SIGKILL;
		}
		if (tick)
			tick(ctx, t - start);
		nanosleep(&pause, NULL);
	}
	if (!ret && *stop)
		ret = rtlab_err_seterr(
			err, EINTR,
			"cyclictest: stopped by a signal to the agent");
	else if (!ret && sig_sent)
		ret = rtlab_err_seterr(
			err, ETIMEDOUT,
			"cyclictest: still running %d s after its %u s duration; killed",
			MEASURE_MARGIN_S, duration_s);
out_close2:
	close(err_fd);
out_close:
	close(out_fd);
	return ret;
}

/* @p starts a bare nan/-nan/inf/-inf token: its length, else 0. */
static size_t nan_token(const char *p, const char *end)
{
	static const char *const toks[] = { "-nan", "nan", "-inf", "inf" };
	size_t i, n;

	for (i = 0; i < sizeof(toks) / sizeof(toks[0]); i++) {
		n = strlen(toks[i]);
		if ((size_t)(end - p) >= n && !strncmp(p, toks[i], n) &&
		    (p + n == end || !strchr("abcdefghijklmnopqrstuvwxyz"
					     "0123456789_",
					     p[n])))
			return n;
	}
	return 0;
}

int measure_json_repair(char **text, size_t *len)
{
	const char *p = *text, *end = *text + *len;
	json_t *root = NULL, *threads, *t, *avg;
	char *fixed, *q, *out = NULL;
	bool in_str = false, changed = false;
	const char *key;
	size_t n;
	int ret = 0;

	root = json_loadb(*text, *len, 0, NULL);
	if (root) {
		json_decref(root);
		return 0;
	}
	/* "null" is as long as "-nan" and longer than "nan"/"inf". */
	fixed = malloc(*len * 2 + 1);
	if (!fixed)
		return -ENOMEM;
	for (q = fixed; p < end;) {
		if (in_str) {
			if (*p == '\\' && p + 1 < end)
				*q++ = *p++;
			else if (*p == '"')
				in_str = false;
			*q++ = *p++;
		} else if (*p == '"') {
			in_str = true;
			*q++ = *p++;
		} else if ((n = nan_token(p, end))) {
			memcpy(q, "null", 4);
			q += 4;
			p += n;
			changed = true;
		} else {
			*q++ = *p++;
		}
	}
	*q = '\0';
	if (changed)
		root = json_loadb(fixed, q - fixed, 0, NULL);
	free(fixed);
	threads = json_object_get(root, "thread");
	if (!json_is_object(threads))
		goto out;
	json_object_foreach(threads, key, t) {
		avg = json_object_get(t, "avg");
		if (json_is_null(avg))
			json_object_del(t, "avg");
	}
	out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!out) {
		ret = -ENOMEM;
		goto out;
	}
	free(*text);
	*text = out;
	*len = strlen(out);
	ret = 1;
out:
	json_decref(root);
	return ret;
}
