// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/trace-analysis: how long the spike analysis (reports/spike.c, two
 * passes through libtracecmd) takes on a trace.dat, next to
 * `trace-cmd report FILE > /dev/null` on the same file -- what reading
 * the trace as text would cost before any analysis.  Alternates the two
 * REPS times and prints the medians and their ratio; asserts nothing.
 *
 *   trace-analysis [--reps N] TRACE.DAT...
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "../reports/spike.h"
#include "common/bench-util.h"

extern char **environ;

/* CPU seconds (user + system) of this process or of its waited-for
 * children: steadier than wall time on a busy machine. */
static double cpu_s(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* trace-cmd report FILE > /dev/null; its stderr too (warnings). */
static int report_once(const char *path, double *s, double *cpu)
{
	char *argv[] = { "trace-cmd", "report", (char *)path, NULL };
	posix_spawn_file_actions_t fa;
	double t0 = clock_mono_s(), c0 = cpu_s(RUSAGE_CHILDREN);
	int status, ret;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	ret = posix_spawnp(&pid, "trace-cmd", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret) {
		fprintf(stderr, "trace-analysis: trace-cmd: %s\n",
			strerror(ret));
		return -ret;
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	*s = clock_mono_s() - t0;
	*cpu = cpu_s(RUSAGE_CHILDREN) - c0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "trace-analysis: trace-cmd report %s failed\n",
			path);
		return -EIO;
	}
	return 0;
}

static int analyze_once(const char *path, double *s, double *cpu,
			struct spike_result *res)
{
	struct rtlab_err err = { "" };
	double t0 = clock_mono_s(), c0 = cpu_s(RUSAGE_SELF);
	int ret;

	spike_result_cleanup(res);
	ret = spike_analyze_file(path, res, &err);
	*s = clock_mono_s() - t0;
	*cpu = cpu_s(RUSAGE_SELF) - c0;
	if (ret)
		fprintf(stderr, "trace-analysis: %s\n", err.msg);
	return ret;
}

static int bench_file(const char *path, int reps)
{
	struct spike_result res = { 0 };
	double *ta, *tr, *ca, *cr, ma, mr, mca, mcr;
	struct stat st;
	int i, ret = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "trace-analysis: %s: %s\n", path,
			strerror(errno));
		return -errno;
	}
	ta = calloc(reps, sizeof(*ta));
	tr = calloc(reps, sizeof(*tr));
	ca = calloc(reps, sizeof(*ca));
	cr = calloc(reps, sizeof(*cr));
	if (!ta || !tr || !ca || !cr) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < reps && !ret; i++)
		ret = analyze_once(path, &ta[i], &ca[i], &res) ?:
			      report_once(path, &tr[i], &cr[i]);
	if (ret)
		goto out;
	ma = bench_median(ta, reps);
	mr = bench_median(tr, reps);
	mca = bench_median(ca, reps);
	mcr = bench_median(cr, reps);
	printf("%s: %.1f MB, %llu events, spike %llu us on CPU %d (%s)\n", path,
	       st.st_size / 1e6, (unsigned long long)res.nevents,
	       (unsigned long long)res.lat_us, res.cpu,
	       res.source == SPIKE_SOURCE_TRACEMARK ? "tracemark" :
						      "worst wakeup");
	printf("  %-36s %9s %9s %9s %9s\n", "median of ", "wall s", "min",
	       "max", "CPU s");
	printf("  %-36s %9.3f %9.3f %9.3f %9.3f\n",
	       "spike analysis (libtracecmd)", ma, ta[0], ta[reps - 1], mca);
	printf("  %-36s %9.3f %9.3f %9.3f %9.3f\n",
	       "trace-cmd report > /dev/null", mr, tr[0], tr[reps - 1], mcr);
	printf("  report / analysis: %.1fx wall, %.1fx CPU (%d alternating "
	       "rounds)\n",
	       ma > 0 ? mr / ma : 0.0, mca > 0 ? mcr / mca : 0.0, reps);
out:
	spike_result_cleanup(&res);
	free(ta);
	free(tr);
	free(ca);
	free(cr);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "reps", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, reps = 5, rc = 0;

	while ((c = getopt_long(argc, argv, "r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			reps = atoi(optarg);
			if (reps < 1 || reps > 1000) {
				fprintf(stderr,
					"trace-analysis: --reps '%s': "
					"expected 1..1000\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			printf("usage: trace-analysis [--reps N] "
			       "TRACE.DAT...\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: trace-analysis [--reps N] "
				"TRACE.DAT...\n");
		return 2;
	}
	for (; optind < argc; optind++)
		if (bench_file(argv[optind], reps))
			rc = 1;
	return rc;
}
