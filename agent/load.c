// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Loads: build their command lines, run each under a supervisor process
 * in its own process group, and stop the groups (SIGTERM, then SIGKILL).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "load.h"

/* A tool that ran for less than this was probably refused: pause. */
#define LOAD_QUICK_EXIT_MS 1000
#define LOAD_RESPAWN_PAUSE_MS 200
#define LOAD_CHURN_PAUSE_MS 20
#define LOAD_SAFETY_MARGIN_S 120

static long long now_ms(void);

static void cmds_init(struct argv cmds[LOAD_MAX_CMDS])
{
	size_t i;

	for (i = 0; i < LOAD_MAX_CMDS; i++)
		argv_init(&cmds[i]);
}

static void add_args(struct argv *a, char *const *args)
{
	for (; args && *args; args++)
		argv_add(a, *args);
}

static bool has_arg(char *const *args, const char *a1, const char *a2)
{
	for (; args && *args; args++)
		if (!strcmp(*args, a1) || !strcmp(*args, a2) ||
		    !strncmp(*args, a1, strlen(a1)) ||
		    !strncmp(*args, a2, strlen(a2)))
			return true;
	return false;
}

/*
 * The injector is this very program (`rtlab-agent inject`).  A seed left
 * to chance is drawn here, so the command line in the manifest says which
 * one the run used.
 */
static int injector_cmd(const struct tc_load *l, unsigned int limit_s,
			struct argv *a)
{
	unsigned long long seed = l->seed;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0 || (size_t)n >= sizeof(self) - 1)
		snprintf(self, sizeof(self), "rtlab-agent");
	else
		self[n] = '\0';
	while (!seed)
		if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
			seed = (unsigned long long)now_ms() ^ getpid();
	argv_add(a, self);
	argv_add(a, "inject");
	argv_add(a, "--mode");
	argv_add(a, tc_inject_mode_name(l->inject_mode));
	argv_add(a, "--spin-us");
	argv_addf(a, "%u", l->spin_us);
	argv_add(a, "--period-ms");
	argv_addf(a, "%u", l->period_ms);
	argv_add(a, "--jitter-pct");
	argv_addf(a, "%u", l->jitter_pct);
	argv_add(a, "--seed");
	argv_addf(a, "%llu", seed);
	if (l->cpus) {
		argv_add(a, "--cpus");
		argv_add(a, l->cpus);
	}
	if (l->module) {
		argv_add(a, "--module");
		argv_add(a, l->module);
	}
	argv_add(a, "--duration");
	argv_addf(a, "%u", limit_s);
	return argv_failed(a) ? -ENOMEM : 0;
}

int load_build_cmds(const struct tc_load *l, unsigned int duration_s,
		    struct argv cmds[LOAD_MAX_CMDS], size_t *ncmds)
{
	unsigned int limit_s = duration_s + LOAD_SAFETY_MARGIN_S;
	size_t i;
	int ret;

	cmds_init(cmds);
	*ncmds = 1;
	switch (l->kind) {
	case TC_LOAD_HACKBENCH:
		argv_add(&cmds[0], "hackbench");
		add_args(&cmds[0], l->args);
		break;
	case TC_LOAD_HACKBENCH_CHURN:
		argv_add(&cmds[0], "hackbench");
		argv_add(&cmds[0], "-l");
		argv_addf(&cmds[0], "%u", l->loops);
		add_args(&cmds[0], l->args);
		break;
	case TC_LOAD_STRESS_NG:
		argv_add(&cmds[0], "stress-ng");
		add_args(&cmds[0], l->args);
		if (!has_arg(l->args, "--timeout", "-t")) {
			argv_add(&cmds[0], "--timeout");
			argv_addf(&cmds[0], "%us", limit_s);
		}
		break;
	case TC_LOAD_INJECTOR:
		ret = injector_cmd(l, limit_s, &cmds[0]);
		if (ret)
			return ret;
		break;
	case TC_LOAD_NETWORK:
		if (l->net_mode == TC_NET_PING) {
			argv_add(&cmds[0], "ping");
			argv_add(&cmds[0], "-f");
			argv_add(&cmds[0], "-q");
			argv_add(&cmds[0], "-w");
			argv_addf(&cmds[0], "%u", limit_s);
			add_args(&cmds[0], l->args);
			argv_add(&cmds[0], "127.0.0.1");
			break;
		}
		if (l->net_mode == TC_NET_IPERF3_NIC) {
			/* The client is the host's (its args too): the
			 * traffic arrives through the NIC's interrupt. */
			argv_add(&cmds[0], "iperf3");
			argv_add(&cmds[0], "-s");
			argv_add(&cmds[0], "-B");
			argv_add(&cmds[0], TC_NIC_GUEST_ADDR);
			argv_add(&cmds[0], "-p");
			argv_addf(&cmds[0], "%u", l->port);
			break;
		}
		*ncmds = 2;
		argv_add(&cmds[0], "iperf3");
		argv_add(&cmds[0], "-s");
		argv_add(&cmds[0], "-B");
		argv_add(&cmds[0], "127.0.0.1");
		argv_add(&cmds[0], "-p");
		argv_addf(&cmds[0], "%u", l->port);
		argv_add(&cmds[1], "iperf3");
		argv_add(&cmds[1], "-c");
		argv_add(&cmds[1], "127.0.0.1");
		argv_add(&cmds[1], "-p");
		argv_addf(&cmds[1], "%u", l->port);
		argv_add(&cmds[1], "-t");
		argv_addf(&cmds[1], "%u", limit_s);
		add_args(&cmds[1], l->args);
		break;
	}
	for (i = 0; i < *ncmds; i++)
		if (argv_failed(&cmds[i]))
			return -ENOMEM;
	return 0;
}

void load_set_init(struct load_set *s)
{
	memset(s, 0, sizeof(*s));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* SIGTERM to the supervisor (from the agent, or at the agent's death)
 * takes the whole group down with it. */
static void supervisor_term(int sig)
{
	signal(sig, SIG_DFL);
	kill(0, sig);
}

static pid_t spawn(struct argv *cmd)
{
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	execvp(cmd->v[0], cmd->v);
	_exit(127);
}

static bool is_injector(const struct argv *cmd)
{
	return cmd->n > 1 && !strcmp(cmd->v[1], "inject");
}

/* Runs in the supervisor process; never returns. */
static void __attribute__((noreturn))
supervise(const char *label, struct argv *cmds, size_t ncmds)
{
	struct sched_param sp = { 0 };
	pid_t pids[LOAD_MAX_CMDS] = { 0 };
	long long started[LOAD_MAX_CMDS] = { 0 };
	sigset_t none;
	size_t i, alive = 0;
	int status;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGTERM, supervisor_term);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	prctl(PR_SET_NAME, label);
	/* Loads compete as ordinary tasks, whatever the agent runs as. */
	sched_setscheduler(0, SCHED_OTHER, &sp);

	for (i = 0; i < ncmds; i++) {
		pids[i] = spawn(&cmds[i]);
		started[i] = now_ms();
		alive += pids[i] > 0;
	}
	while (alive) {
		pid_t pid = wait(&status);
		long long ran_ms;

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		for (i = 0; i < ncmds && pids[i] != pid; i++)
			;
		if (i == ncmds)
			continue;
		/* A missing tool never gets better: stop retrying it.  Nor
		 * does an injector that ended (its module refused, no
		 * SCHED_FIFO, or its --duration over). */
		if ((WIFEXITED(status) && WEXITSTATUS(status) == 127) ||
		    is_injector(&cmds[i])) {
			pids[i] = 0;
			alive--;
			continue;
		}
		ran_ms = now_ms() - started[i];
		if (cmds[i].n > 2 && !strcmp(cmds[i].v[0], "hackbench") &&
		    !strcmp(cmds[i].v[1], "-l"))
			sleep_ms(LOAD_CHURN_PAUSE_MS);
		else if (ran_ms < LOAD_QUICK_EXIT_MS)
			sleep_ms(LOAD_RESPAWN_PAUSE_MS);
		pids[i] = spawn(&cmds[i]);
		started[i] = now_ms();
		if (pids[i] < 0) {
			pids[i] = 0;
			alive--;
		}
	}
	_exit(alive ? 1 : 0);
}

int load_start(struct load_set *s, const char *label, struct argv *cmds,
	       size_t ncmds, struct rtlab_err *err)
{
	struct load_proc *p;
	pid_t pid;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		struct load_proc *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return rtlab_err_seterr(err, ENOMEM,
						"load %s: out of memory",
						label);
		s->v = v;
		s->cap = cap;
	}
	p = &s->v[s->n];
	p->label = strdup(label);
	if (!p->label)
		return rtlab_err_seterr(err, ENOMEM, "load %s: out of memory",
					label);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		free(p->label);
		return rtlab_err_seterr(err, errno, "load %s: fork: %s", label,
					strerror(errno));
	}
	if (!pid) {
		setpgid(0, 0);
		supervise(label, cmds, ncmds);
	}
	/* Both sides set the group, so neither races the other. */
	setpgid(pid, pid);
	p->pgid = pid;
	s->n++;
	return 0;
}

static bool groups_alive(struct load_set *s)
{
	bool any = false;
	size_t i;

	/* Reap whatever ended: our supervisors and, as subreaper, the
	 * orphans they left. */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	for (i = 0; i < s->n; i++) {
		if (!s->v[i].pgid)
			continue;
		if (kill(-s->v[i].pgid, 0) && errno == ESRCH)
			s->v[i].pgid = 0;
		else
			any = true;
	}
	return any;
}

void load_stop_all(struct load_set *s, unsigned int grace_ms)
{
	long long deadline;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		if (s->v[i].pgid)
			kill(-s->v[i].pgid, SIGTERM);
	deadline = now_ms() + grace_ms;
	while (groups_alive(s) && now_ms() < deadline)
		sleep_ms(20);
	for (i = 0; i < s->n; i++)
		if (s->v[i].pgid)
			kill(-s->v[i].pgid, SIGKILL);
	deadline = now_ms() + 2000;
	while (groups_alive(s) && now_ms() < deadline)
		sleep_ms(20);
	for (i = 0; i < s->n; i++)
		free(s->v[i].label);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
