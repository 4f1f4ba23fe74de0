// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Latency injectors for calibrating the lab: a SCHED_FIFO 99 spinner per
 * CPU in user space, or the rtlab_inject kernel module driven through
 * finit_module/delete_module.  Both jitter their period from a recorded
 * seed, because on a board with an instruction-counting clock a strictly
 * periodic injector can phase-lock with cyclictest and never be seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cmd.h"
#include "inject.h"
#include "testcase.h"

#define INJECT_MAX_CPUS CPU_SETSIZE
#define INJECT_PRIO 99

void inject_rng_init(struct inject_rng *r, uint64_t seed, unsigned int cpu)
{
	r->state = seed ^ (0x9e3779b97f4a7c15ULL * (cpu + 1));
}

static uint64_t rng_next(struct inject_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t inject_sleep_ns(struct inject_rng *r, unsigned int period_ms,
			 unsigned int jitter_pct)
{
	uint64_t period_ns = (uint64_t)period_ms * 1000000ULL;
	uint64_t span_ns =
		period_ns * (jitter_pct > 100 ? 100 : jitter_pct) / 100;

	if (!span_ns)
		return period_ns;
	return period_ns - span_ns + rng_next(r) % (2 * span_ns + 1);
}

int inject_parse_cpus(const char *list, cpu_set_t *set, struct rtlab_err *err)
{
	const char *s = list;
	char *end;

	CPU_ZERO(set);
	if (!s || !*s)
		goto bad;
	while (*s) {
		unsigned long a, b;

		if (*s < '0' || *s > '9')
			goto bad;
		a = b = strtoul(s, &end, 10);
		s = end;
		if (*s == '-') {
			if (s[1] < '0' || s[1] > '9')
				goto bad;
			b = strtoul(s + 1, &end, 10);
			s = end;
		}
		if (b < a || b >= INJECT_MAX_CPUS)
			goto bad;
		for (; a <= b; a++)
			CPU_SET(a, set);
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			goto bad;
	}
	return 0;
bad:
	return rtlab_err_set(
		err,
		"--cpus '%s': expected a cpuset such as '0', '1-3' or '0,2-3' (CPUs below %d)",
		list ? list : "", INJECT_MAX_CPUS);
}

char *inject_format_cpus(const cpu_set_t *set, char *buf, size_t size)
{
	size_t n = 0;
	int c = 0;

	buf[0] = '\0';
	while (c < INJECT_MAX_CPUS) {
		int a;

		if (!CPU_ISSET(c, set)) {
			c++;
			continue;
		}
		a = c;
		while (c + 1 < INJECT_MAX_CPUS && CPU_ISSET(c + 1, set))
			c++;
		if (n < size)
			n += snprintf(buf + n, size - n, "%s%d", n ? "," : "",
				      a);
		if (c > a && n < size)
			n += snprintf(buf + n, size - n, "-%d", c);
		c++;
	}
	return buf;
}

struct inject_opts {
	enum tc_inject_mode mode;
	unsigned int spin_us, period_ms, jitter_pct, duration_s;
	unsigned long long seed;
	cpu_set_t cpus;
	char cpus_str[256];
	const char *module;
};

/* A line for stdout and, where we may write it, the kernel log: the run's
 * dmesg.txt then says what was injected. */
static void __printf(1, 2) inject_note(const char *fmt, ...)
{
	char line[512], rec[560];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("rtlab-agent inject: %s\n", line);
	fflush(stdout);
	/* One write() is one record (dprintf() gives up on this device). */
	n = snprintf(rec, sizeof(rec), "rtlab-agent inject: %s\n", line);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, rec,
			  n > (int)sizeof(rec) - 1 ? sizeof(rec) - 1 :
						     (size_t)n) < 0) {
			/* Not fatal: stdout has the line too. */
		}
		close(fd);
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Block the stop signals (every thread inherits that) and wait for one,
 * or for @duration_s (0: no limit).  Return: the signal, or 0. */
static int wait_stop(const sigset_t *stop, unsigned int duration_s)
{
	struct timespec ts = { duration_s, 0 };
	int sig;

	do {
		sig = duration_s ? sigtimedwait(stop, NULL, &ts) :
				   sigwaitinfo(stop, NULL);
	} while (sig < 0 && errno == EINTR);
	return sig < 0 ? 0 : sig;
}

/* ---- user space: a SCHED_FIFO 99 spinner per CPU ---- */

struct spinner {
	pthread_t tid;
	bool started;
	unsigned int cpu;
	const struct inject_opts *o;
	atomic_ullong count;
	int error;	  /* errno of a failed setup, 0 when fine */
	const char *what; /* what failed */
};

static atomic_bool spin_stop;
static pthread_barrier_t spin_ready;

static void on_wake(int sig)
{
}

static void *spinner_main(void *arg)
{
	struct spinner *s = arg;
	struct sched_param sp = { .sched_priority = INJECT_PRIO };
	struct inject_rng rng;
	cpu_set_t one;
	int ret;

	CPU_ZERO(&one);
	CPU_SET(s->cpu, &one);
	ret = pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	if (ret) {
		s->error = ret;
		s->what = "sched_setaffinity";
	} else {
		ret = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (ret) {
			s->error = ret;
			s->what = "SCHED_FIFO 99 (needs root or CAP_SYS_NICE)";
		}
	}
	pthread_barrier_wait(&spin_ready);
	if (s->error)
		return NULL;
	inject_rng_init(&rng, s->o->seed, s->cpu);
	while (!atomic_load(&spin_stop)) {
		uint64_t ns = inject_sleep_ns(&rng, s->o->period_ms,
					      s->o->jitter_pct);
		struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };
		uint64_t t0;

		/* A wake-up signal cuts the sleep short: we are stopping. */
		if (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL))
			continue;
		if (atomic_load(&spin_stop))
			break;
		t0 = mono_ns();
		while (mono_ns() - t0 < s->o->spin_us * 1000ULL)
			;
		atomic_fetch_add(&s->count, 1);
	}
	return NULL;
}

static int inject_user(const struct inject_opts *o, const sigset_t *stop)
{
	struct spinner *sp;
	unsigned long long total = 0;
	unsigned int i, n = 0, cpu;
	struct sigaction sa;
	double t0;
	int ret = AGENT_EXIT_OK, sig;

	sp = calloc(CPU_COUNT(&o->cpus), sizeof(*sp));
	if (!sp) {
		fprintf(stderr, "rtlab-agent inject: out of memory\n");
		return AGENT_EXIT_FAILURE;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr,
			"rtlab-agent inject: warning: mlockall: %s (spinning anyway)\n",
			strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake; /* no SA_RESTART: sleeps end early */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (cpu = 0; cpu < INJECT_MAX_CPUS; cpu++)
		if (CPU_ISSET(cpu, &o->cpus)) {
			sp[n].cpu = cpu;
			sp[n].o = o;
			n++;
		}
	pthread_barrier_init(&spin_ready, NULL, n + 1);
	for (i = 0; i < n; i++) {
		ret = pthread_create(&sp[i].tid, NULL, spinner_main, &sp[i]);
		if (ret) {
			fprintf(stderr,
				"rtlab-agent inject: cannot start a thread for CPU %u: %s\n",
				sp[i].cpu, strerror(ret));
			/* The barrier counts on every thread: stop now. */
			_exit(AGENT_EXIT_FAILURE);
		}
		sp[i].started = true;
	}
	pthread_barrier_wait(&spin_ready);
	ret = AGENT_EXIT_OK;
	for (i = 0; i < n; i++)
		if (sp[i].error) {
			fprintf(stderr, "rtlab-agent inject: CPU %u: %s: %s\n",
				sp[i].cpu, sp[i].what, strerror(sp[i].error));
			ret = AGENT_EXIT_FAILURE;
		}
	t0 = clock_mono_s();
	if (ret == AGENT_EXIT_OK) {
		inject_note("start mode=user spin_us=%u period_ms=%u jitter_pct=%u seed=%llu cpus=%s (SCHED_FIFO %d)",
			    o->spin_us, o->period_ms, o->jitter_pct, o->seed,
			    o->cpus_str, INJECT_PRIO);
		sig = wait_stop(stop, o->duration_s);
		(void)sig;
	}
	atomic_store(&spin_stop, true);
	for (i = 0; i < n; i++)
		if (sp[i].started)
			pthread_kill(sp[i].tid, SIGUSR1);
	for (i = 0; i < n; i++)
		if (sp[i].started) {
			pthread_join(sp[i].tid, NULL);
			total += atomic_load(&sp[i].count);
		}
	pthread_barrier_destroy(&spin_ready);
	if (ret == AGENT_EXIT_OK)
		inject_note("stop mode=user seed=%llu injections=%llu seconds=%.1f",
			    o->seed, total, clock_mono_s() - t0);
	free(sp);
	return ret;
}

/* ---- kernel: the rtlab_inject module ---- */

static unsigned long cpus_mask(const cpu_set_t *set)
{
	unsigned long m = 0;
	unsigned int c;

	for (c = 0; c < 8 * sizeof(m); c++)
		if (CPU_ISSET(c, set))
			m |= 1UL << c;
	return m;
}

static long long module_injections(void)
{
	char buf[64] = "";
	long long v = -1;
	FILE *f = fopen("/sys/module/" INJECT_MODULE_NAME
			"/parameters/injections",
			"r");

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtoll(buf, NULL, 10);
		fclose(f);
	}
	return v;
}

static int inject_module(const struct inject_opts *o, const sigset_t *stop)
{
	char params[256], path[512];
	struct utsname u;
	long long count;
	int fd, ret = AGENT_EXIT_OK;

	if (o->module) {
		snprintf(path, sizeof(path), "%s", o->module);
	} else {
		uname(&u);
		snprintf(path, sizeof(path), "/lib/modules/%s/%s/%s", u.release,
			 INJECT_MODULE_SUBDIR, INJECT_MODULE_FILE);
	}
	snprintf(params, sizeof(params),
		 "spin_us=%u period_ms=%u jitter_pct=%u mode=%s seed=%llu cpus=0x%lx",
		 o->spin_us, o->period_ms, o->jitter_pct,
		 tc_inject_mode_name(o->mode), o->seed, cpus_mask(&o->cpus));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr,
			"rtlab-agent inject: %s: %s (build it with `rtlab calibrate` or give --module)\n",
			path, strerror(errno));
		return AGENT_EXIT_FAILURE;
	}
	if (syscall(SYS_finit_module, fd, params, 0)) {
		int e = errno;

		fprintf(stderr, "rtlab-agent inject: insmod %s %s: %s%s\n",
			path, params, strerror(e),
			e == EEXIST ?
				" (rtlab_inject is already loaded: rmmod it)" :
			e == ENOEXEC ?
				" (built for another kernel? compare its vermagic with uname -r)" :
			e == EPERM ?
				" (needs root; or modules are locked down)" :
				"");
		close(fd);
		return AGENT_EXIT_FAILURE;
	}
	close(fd);
	inject_note("insmod %s %s", path, params);
	wait_stop(stop, o->duration_s);
	count = module_injections();
	while (syscall(SYS_delete_module, INJECT_MODULE_NAME, O_NONBLOCK)) {
		if (errno == EAGAIN || errno == EBUSY) {
			usleep(10000);
			continue;
		}
		fprintf(stderr, "rtlab-agent inject: rmmod %s: %s\n",
			INJECT_MODULE_NAME, strerror(errno));
		ret = AGENT_EXIT_FAILURE;
		break;
	}
	if (ret == AGENT_EXIT_OK)
		inject_note("rmmod %s", INJECT_MODULE_NAME);
	inject_note("stop mode=%s seed=%llu injections=%lld",
		    tc_inject_mode_name(o->mode), o->seed, count);
	return ret;
}

/* ---- the command ---- */

static void inject_usage(FILE *f)
{
	fprintf(f,
		"usage: rtlab-agent inject --spin-us N --period-ms M [--jitter-pct P]\n"
		"                          [--seed S] [--cpus LIST] [--duration SECONDS]\n"
		"                          [--mode user|preempt|irq|tick] [--module FILE.ko]\n"
		"\n"
		"Inject a known latency until SIGTERM (or --duration): on each CPU, sleep\n"
		"M ms +/- P %% (random, from seed S), then spin N us.\n"
		"\n"
		"  --mode user      a SCHED_FIFO %d busy loop per CPU (default; any board)\n"
		"  --mode preempt   the rtlab_inject module spins with preemption off\n"
		"  --mode irq       the rtlab_inject module spins with interrupts off\n"
		"  --mode tick      the rtlab_inject module spins with interrupts off in\n"
		"                   the tick itself, every M ms rounded up to ticks\n"
		"                   (P varies the count of ticks, never the phase)\n"
		"  --spin-us N      1..100000, at most half the period\n"
		"  --period-ms M    1..60000\n"
		"  --jitter-pct P   0..100 (default 50; 0 is strictly periodic, which an\n"
		"                   instruction-counting clock may never see)\n"
		"  --seed S         1..2^64-1 (default: a random one, printed)\n"
		"  --cpus LIST      cpuset, e.g. 0,2-3 (default: every CPU we may use)\n"
		"  --duration S     stop after S seconds (default: at SIGTERM)\n"
		"  --module FILE    the module (default /lib/modules/RELEASE/%s/%s)\n"
		"\n"
		"The insmod/rmmod lines, the seed and the injection count are printed\n"
		"and written to the kernel log.  Exit status: 0 done, 1 could not inject,\n"
		"2 usage error.\n",
		INJECT_PRIO, INJECT_MODULE_SUBDIR, INJECT_MODULE_FILE);
}

static int opt_uint(const char *name, const char *s, unsigned long lo,
		    unsigned long hi, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || *s == '-' || v < lo || v > hi) {
		fprintf(stderr,
			"rtlab-agent inject: --%s '%s': expected an integer %lu..%lu\n",
			name, s, lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int inject_parse_opts(int argc, char **argv, struct inject_opts *o)
{
	static const struct option opts[] = {
		{ "spin-us", required_argument, NULL, 's' },
		{ "period-ms", required_argument, NULL, 'p' },
		{ "jitter-pct", required_argument, NULL, 'j' },
		{ "seed", required_argument, NULL, 'S' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },
		{ "module", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	bool have_spin = false, have_period = false;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->jitter_pct = 50;
	o->mode = TC_INJECT_USER;
	if (sched_getaffinity(0, sizeof(o->cpus), &o->cpus))
		CPU_SET(0, &o->cpus);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (opt_uint("spin-us", optarg, 1, 100000, &o->spin_us))
				return AGENT_EXIT_USAGE;
			have_spin = true;
			break;
		case 'p':
			if (opt_uint("period-ms", optarg, 1, 60000,
				     &o->period_ms))
				return AGENT_EXIT_USAGE;
			have_period = true;
			break;
		case 'j':
			if (opt_uint("jitter-pct", optarg, 0, 100,
				     &o->jitter_pct))
				return AGENT_EXIT_USAGE;
			break;
		case 'S':
			errno = 0;
			o->seed = strtoull(optarg, &end, 10);
			if (errno || !*optarg || *end || *optarg == '-') {
				fprintf(stderr,
					"rtlab-agent inject: --seed '%s': expected an integer 0..18446744073709551615\n",
					optarg);
				return AGENT_EXIT_USAGE;
			}
			break;
		case 'c':
			if (inject_parse_cpus(optarg, &o->cpus, &err)) {
				fprintf(stderr, "rtlab-agent inject: %s\n",
					err.msg);
				return AGENT_EXIT_USAGE;
			}
			break;
		case 'd':
			if (opt_uint("duration", optarg, 1, 7 * 24 * 3600,
				     &o->duration_s))
				return AGENT_EXIT_USAGE;
			break;
		case 'm':
			if (!strcmp(optarg, "user")) {
				o->mode = TC_INJECT_USER;
			} else if (!strcmp(optarg, "preempt")) {
				o->mode = TC_INJECT_PREEMPT;
			} else if (!strcmp(optarg, "irq")) {
				o->mode = TC_INJECT_IRQ;
			} else if (!strcmp(optarg, "tick")) {
				o->mode = TC_INJECT_TICK;
			} else {
				fprintf(stderr,
					"rtlab-agent inject: --mode '%s': expected user, preempt, irq or tick\n",
					optarg);
				return AGENT_EXIT_USAGE;
			}
			break;
		case 'M':
			o->module = optarg;
			break;
		case 'h':
			inject_usage(stdout);
			return -1;
		default:
			inject_usage(stderr);
			return AGENT_EXIT_USAGE;
		}
	}
	if (optind < argc || !have_spin || !have_period) {
		fprintf(stderr, "rtlab-agent inject: %s\n",
			optind < argc ?
				"unexpected argument" :
				"--spin-us and --period-ms are required");
		inject_usage(stderr);
		return AGENT_EXIT_USAGE;
	}
	if (o->spin_us * 2ULL > o->period_ms * 1000ULL) {
		fprintf(stderr,
			"rtlab-agent inject: --spin-us %u: expected at most half of --period-ms (%u ms)\n",
			o->spin_us, o->period_ms);
		return AGENT_EXIT_USAGE;
	}
	if (o->module && o->mode == TC_INJECT_USER) {
		fprintf(stderr,
			"rtlab-agent inject: --module is for --mode preempt, irq or tick\n");
		return AGENT_EXIT_USAGE;
	}
	while (!o->seed)
		if (getrandom(&o->seed, sizeof(o->seed), 0) != sizeof(o->seed))
			o->seed = (unsigned long long)mono_ns() ^ getpid();
	inject_format_cpus(&o->cpus, o->cpus_str, sizeof(o->cpus_str));
	return 0;
}

int cmd_inject(int argc, char **argv)
{
	struct inject_opts o;
	sigset_t stop;
	int ret;

	ret = inject_parse_opts(argc, argv, &o);
	if (ret)
		return ret < 0 ? AGENT_EXIT_OK : ret;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	if (o.mode == TC_INJECT_USER)
		return inject_user(&o, &stop);
	return inject_module(&o, &stop);
}
