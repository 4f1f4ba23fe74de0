// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The watchdog of a booting board: how much of the wall time QEMU could
 * run (not stopped, not waiting for a CPU), read from /proc, and the table
 * that tells a kernel fault from an infrastructure error once the watch is
 * over.  The parsers and the table are pure, for the unit tests.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watchdog.h"

int proc_stat_parse(const char *text, struct proc_stat *ps)
{
	const char *p = text ? strrchr(text, ')') : NULL;
	unsigned long long v[13];
	char state;
	int n;

	/* after "pid (comm)": state ppid pgrp session tty_nr tpgid flags
	 * minflt cminflt majflt cmajflt utime stime */
	if (!p)
		return -EINVAL;
	n = sscanf(p + 1,
		   " %c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
		   "%llu %llu",
		   &state, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
		   &v[7], &v[8], &v[9], &v[10], &v[11]);
	if (n != 13)
		return -EINVAL;
	ps->state = state;
	ps->utime_ticks = v[10];
	ps->stime_ticks = v[11];
	return 0;
}

int schedstat_parse(const char *text, unsigned long long *run_ns,
		    unsigned long long *wait_ns)
{
	unsigned long long slices;

	if (!text ||
	    sscanf(text, "%llu %llu %llu", run_ns, wait_ns, &slices) != 3)
		return -EINVAL;
	return 0;
}

double watchdog_step(double dt_s, bool stopped, double wait_s)
{
	if (dt_s <= 0 || stopped)
		return 0;
	if (wait_s <= 0)
		return dt_s;
	return wait_s >= dt_s ? 0 : dt_s - wait_s;
}

/* A small /proc file into @buf; 0 or -errno. */
static int read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	return 0;
}

static struct watchdog_task *task_get(struct watchdog *w, pid_t tid)
{
	size_t i;

	for (i = 0; i < w->ntasks; i++)
		if (w->tasks[i].tid == tid)
			return &w->tasks[i];
	if (w->ntasks == WATCHDOG_MAX_TASKS)
		return NULL;
	w->tasks[w->ntasks].tid = tid;
	w->tasks[w->ntasks].wait_ns = 0;
	return &w->tasks[w->ntasks++];
}

/* The largest run-queue wait any thread of @w->pid added since the last
 * sample, in seconds. */
static double tasks_wait_s(struct watchdog *w)
{
	unsigned long long run_ns, wait_ns, most = 0;
	struct watchdog_task *t;
	char path[96], buf[128];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)w->pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat",
			 (int)w->pid, (int)tid);
		if (read_small(path, buf, sizeof(buf)) ||
		    schedstat_parse(buf, &run_ns, &wait_ns))
			continue;
		w->schedstat = true;
		t = task_get(w, tid);
		if (!t)
			continue;
		/* a thread born since the last sample waited since birth */
		if (wait_ns - t->wait_ns > most)
			most = wait_ns - t->wait_ns;
		t->wait_ns = wait_ns;
	}
	closedir(d);
	return most / 1e9;
}

void watchdog_init(struct watchdog *w, pid_t pid, double now_s)
{
	memset(w, 0, sizeof(*w));
	w->pid = pid;
	w->last_s = now_s;
	/* the wait so far is the baseline, not this watch's */
	tasks_wait_s(w);
}

void watchdog_sample(struct watchdog *w, double now_s)
{
	double dt = now_s - w->last_s, wait, got;
	struct proc_stat ps = { 0 };
	char path[64], buf[1024];
	long hz = sysconf(_SC_CLK_TCK);
	bool stopped;

	if (dt <= 0)
		return;
	w->last_s = now_s;
	w->wall_s += dt;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)w->pid);
	if (read_small(path, buf, sizeof(buf)) || proc_stat_parse(buf, &ps)) {
		w->runnable_s += dt;
		return;
	}
	stopped = ps.state == 'T' || ps.state == 't';
	wait = stopped ? 0 : tasks_wait_s(w);
	got = watchdog_step(dt, stopped, wait);
	w->runnable_s += got;
	if (stopped)
		w->stopped_s += dt;
	else
		w->starved_s += dt - got;
	if (hz > 0)
		w->cpu_s = (double)(ps.utime_ticks + ps.stime_ticks) / hz;
}

enum board_result board_end_classify(const struct board_end *e)
{
	/* A whole, checked bundle is the run, however QEMU ended after. */
	if (e->bundle_ok)
		return BOARD_RESULT_BUNDLE;
	/* Then what the host did wrong: none of it is the kernel's fault. */
	if (e->watch == BOARD_WATCH_STARVED)
		return BOARD_RESULT_INFRA_STARVED;
	if (e->watch == BOARD_WATCH_EXITED && e->qemu_signalled)
		return BOARD_RESULT_INFRA_QEMU_KILLED;
	/* A guest's poweroff or reboot (-no-reboot) ends QEMU with 0. */
	if (e->watch == BOARD_WATCH_EXITED && e->qemu_exit)
		return BOARD_RESULT_INFRA_QEMU_FAILED;
	if (e->channel_broken)
		return BOARD_RESULT_INFRA_CHANNEL;
	/* The kernel's faults. */
	if (e->watch == BOARD_WATCH_PANIC || e->panic_seen)
		return e->agent_started ? BOARD_RESULT_PANIC :
					  BOARD_RESULT_BOOT_PANIC;
	if (e->watch == BOARD_WATCH_BOOT_TIMEOUT)
		return BOARD_RESULT_BOOT_TIMEOUT;
	if (e->watch == BOARD_WATCH_HANG)
		return BOARD_RESULT_HANG;
	if (!e->agent_started)
		return BOARD_RESULT_BOOT_EXIT;
	return BOARD_RESULT_AGENT_ERROR;
}

bool board_result_is_infra(enum board_result r)
{
	return r >= BOARD_RESULT_INFRA_QEMU_FAILED;
}

const char *board_result_name(enum board_result r)
{
	static const char *const names[] = {
		[BOARD_RESULT_BUNDLE] = "bundle",
		[BOARD_RESULT_BOOT_PANIC] = "boot_panic",
		[BOARD_RESULT_PANIC] = "panic",
		[BOARD_RESULT_BOOT_TIMEOUT] = "boot_timeout",
		[BOARD_RESULT_BOOT_EXIT] = "boot_exit",
		[BOARD_RESULT_HANG] = "hang",
		[BOARD_RESULT_AGENT_ERROR] = "agent_error",
		[BOARD_RESULT_INFRA_QEMU_FAILED] = "infra_qemu_failed",
		[BOARD_RESULT_INFRA_QEMU_KILLED] = "infra_qemu_killed",
		[BOARD_RESULT_INFRA_STARVED] = "infra_starved",
		[BOARD_RESULT_INFRA_CHANNEL] = "infra_channel",
	};

	return (unsigned int)r < sizeof(names) / sizeof(names[0]) ? names[r] :
								    "?";
}
