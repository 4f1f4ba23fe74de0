// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The board watchdog's pure parts: the /proc/PID/stat and schedstat
 * parsers, the accounting of a sample (stopped and waiting time do not
 * count), a real stopped child seen through /proc, and the table that
 * tells a kernel fault from an infrastructure error.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "../../boards/watchdog.h"

static void test_proc_stat(void)
{
	struct proc_stat ps;

	CHECK_INT(proc_stat_parse("4242 (qemu-system-x86) S 1 4242 4242 0 -1 "
				  "4194560 2200 0 0 0 731 88 0 0 20 0 6 0 "
				  "1234 0 0\n",
				  &ps),
		  0, "proc stat: a QEMU line parses");
	CHECK_INT(ps.state, 'S', "proc stat: state");
	CHECK_INT(ps.utime_ticks, 731, "proc stat: utime");
	CHECK_INT(ps.stime_ticks, 88, "proc stat: stime");
	CHECK_INT(proc_stat_parse("7 (a) b) (c) T 1 7 7 0 -1 0 0 0 0 0 5 6\n",
				  &ps),
		  0, "proc stat: a name with spaces and parentheses");
	CHECK_INT(ps.state, 'T', "proc stat: state after the last ')'");
	CHECK_INT(ps.utime_ticks + ps.stime_ticks, 11,
		  "proc stat: utime + stime after the odd name");
	CHECK_INT(proc_stat_parse("7 (x) R 1 2 3\n", &ps), -EINVAL,
		  "proc stat: a short line is refused");
	CHECK_INT(proc_stat_parse("no parenthesis", &ps), -EINVAL,
		  "proc stat: no command name is refused");
	CHECK_INT(proc_stat_parse(NULL, &ps), -EINVAL, "proc stat: NULL");
}

static void test_schedstat(void)
{
	unsigned long long run = 0, wait = 0;

	CHECK_INT(schedstat_parse("160291 1366291 2\n", &run, &wait), 0,
		  "schedstat: parses");
	CHECK_INT(run, 160291, "schedstat: time on a CPU");
	CHECK_INT(wait, 1366291, "schedstat: time waiting for one");
	CHECK_INT(schedstat_parse("12\n", &run, &wait), -EINVAL,
		  "schedstat: a short line is refused");
}

static void test_step(void)
{
	CHECK(watchdog_step(0.1, false, 0) == 0.1,
	      "step: a running QEMU gets the whole interval");
	CHECK(watchdog_step(0.1, true, 0) == 0,
	      "step: a stopped QEMU gets nothing");
	CHECK(watchdog_step(0.1, false, 0.075) > 0.024 &&
		      watchdog_step(0.1, false, 0.075) < 0.026,
	      "step: the time it waited for a CPU does not count");
	CHECK(watchdog_step(0.1, false, 0.3) == 0,
	      "step: waiting longer than the interval gives nothing");
	CHECK(watchdog_step(-1, false, 0) == 0, "step: no time, no credit");
}

/* A child stopped with SIGSTOP, watched through /proc: its wall time
 * passes, none of it counts. */
static void test_stopped_child(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	struct watchdog w;
	double t = 100.0;
	pid_t pid;
	int i, st;

	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	CHECK(pid > 0, "stopped child: forked");
	if (pid <= 0)
		return;
	watchdog_init(&w, pid, t);
	kill(pid, SIGSTOP);
	waitpid(pid, &st, WUNTRACED);
	for (i = 0; i < 5; i++) {
		nanosleep(&ts, NULL);
		t += 1.0;
		watchdog_sample(&w, t);
	}
	CHECK(w.wall_s == 5.0, "stopped child: 5 s of wall time accounted");
	CHECK(w.runnable_s == 0 && w.stopped_s == 5.0,
	      "stopped child: none of it runnable (runnable %.1f, stopped "
	      "%.1f)",
	      w.runnable_s, w.stopped_s);
	kill(pid, SIGCONT);
	t += 1.0;
	watchdog_sample(&w, t);
	CHECK(w.runnable_s > 0,
	      "stopped child: time counts again after SIGCONT (%.2f)",
	      w.runnable_s);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

/* The classification table: one line per case. */
static const struct {
	const char *what;
	struct board_end e;
	enum board_result want;
} table[] = {
	{ "a whole bundle, QEMU powered off",
	  { .watch = BOARD_WATCH_EXITED,
	    .agent_started = true,
	    .bundle_ok = true },
	  BOARD_RESULT_BUNDLE },
	{ "a whole bundle, then QEMU killed by a signal",
	  { .watch = BOARD_WATCH_EXITED,
	    .qemu_signalled = true,
	    .agent_started = true,
	    .bundle_ok = true },
	  BOARD_RESULT_BUNDLE },
	{ "a whole bundle, QEMU would not power off",
	  { .watch = BOARD_WATCH_POWEROFF_TIMEOUT,
	    .agent_started = true,
	    .bundle_ok = true },
	  BOARD_RESULT_BUNDLE },
	{ "QEMU killed by a signal before the agent",
	  { .watch = BOARD_WATCH_EXITED, .qemu_signalled = true },
	  BOARD_RESULT_INFRA_QEMU_KILLED },
	{ "QEMU killed by a signal while measuring",
	  { .watch = BOARD_WATCH_EXITED,
	    .qemu_signalled = true,
	    .agent_started = true },
	  BOARD_RESULT_INFRA_QEMU_KILLED },
	{ "QEMU exits 1 (cannot start)",
	  { .watch = BOARD_WATCH_EXITED, .qemu_exit = 1 },
	  BOARD_RESULT_INFRA_QEMU_FAILED },
	{ "QEMU not found (exit 127)",
	  { .watch = BOARD_WATCH_EXITED, .qemu_exit = 127 },
	  BOARD_RESULT_INFRA_QEMU_FAILED },
	{ "past the outer wall-clock limit",
	  { .watch = BOARD_WATCH_STARVED, .agent_started = true },
	  BOARD_RESULT_INFRA_STARVED },
	{ "the host's end of the channel failed",
	  { .watch = BOARD_WATCH_EXITED,
	    .agent_started = true,
	    .channel_broken = true },
	  BOARD_RESULT_INFRA_CHANNEL },
	{ "panic while measuring",
	  { .watch = BOARD_WATCH_PANIC,
	    .agent_started = true,
	    .panic_seen = true },
	  BOARD_RESULT_PANIC },
	{ "panic before the agent, QEMU rebooted out",
	  { .watch = BOARD_WATCH_EXITED, .panic_seen = true },
	  BOARD_RESULT_BOOT_PANIC },
	{ "no agent start within the boot time",
	  { .watch = BOARD_WATCH_BOOT_TIMEOUT },
	  BOARD_RESULT_BOOT_TIMEOUT },
	{ "no bundle within the hang time",
	  { .watch = BOARD_WATCH_HANG, .agent_started = true },
	  BOARD_RESULT_HANG },
	{ "the guest powered off before the agent",
	  { .watch = BOARD_WATCH_EXITED },
	  BOARD_RESULT_BOOT_EXIT },
	{ "the guest powered off without a whole bundle",
	  { .watch = BOARD_WATCH_EXITED, .agent_started = true },
	  BOARD_RESULT_AGENT_ERROR },
};

static void test_classify(void)
{
	enum board_result got;
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		got = board_end_classify(&table[i].e);
		CHECK(got == table[i].want, "classify: %s: %s (got %s)",
		      table[i].what, board_result_name(table[i].want),
		      board_result_name(got));
	}
	CHECK(board_result_is_infra(BOARD_RESULT_INFRA_STARVED) &&
		      board_result_is_infra(BOARD_RESULT_INFRA_QEMU_KILLED) &&
		      !board_result_is_infra(BOARD_RESULT_HANG) &&
		      !board_result_is_infra(BOARD_RESULT_PANIC) &&
		      !board_result_is_infra(BOARD_RESULT_BOOT_TIMEOUT),
	      "classify: infrastructure errors are not kernel faults");
}

int main(void)
{
	test_proc_stat();
	test_schedstat();
	test_step();
	test_stopped_child();
	test_classify();
	return check_exit();
}
