// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/agent-overhead: does running cyclictest under rtlab-agent change
 * what it measures?  Alternates, round after round, the same cyclictest
 * (the idle testcase's parameters) started directly and started by the
 * agent, and prints p99.9 and max of each side and their ratio.  The
 * agent's own work (environment capture, bundle) happens outside the
 * measurement window, so the ratio should stay near 1.  Prints figures;
 * asserts nothing.
 *
 *   agent-overhead [--rounds N] [--duration S] [--agent PATH] [--testcase F]
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle.h"
#include "cyclictest.h"
#include "hist.h"

#define HIST_RANGE_US 1000

struct side {
	struct hist pooled;
	double p999_sum, max_sum;
	int rounds;
};

static int run_wait(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

static int read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "r");
	long n;

	if (!f)
		return -errno;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	*text = malloc(n + 1);
	if (!*text || fread(*text, 1, n, f) != (size_t)n) {
		fclose(f);
		free(*text);
		*text = NULL;
		return -EIO;
	}
	fclose(f);
	*len = n;
	return 0;
}

/* Pools the run's threads into @s; returns 0 or a negative errno. */
static int side_add(struct side *s, const char *json, size_t len)
{
	struct rtlab_err err = { "" };
	struct ct_result res = { 0 };
	struct hist run = { 0 };
	unsigned int i;
	int ret;

	ret = ct_json_parse(json, len, HIST_RANGE_US, &res, &err);
	if (ret) {
		fprintf(stderr, "agent-overhead: %s\n", err.msg);
		return ret;
	}
	ret = hist_init(&run, HIST_RANGE_US);
	for (i = 0; !ret && i < res.nthreads; i++)
		ret = hist_merge(&run, &res.threads[i]);
	if (!ret)
		ret = hist_merge(&s->pooled, &run);
	if (!ret) {
		int64_t q = hist_quantile(&run, 0.999);

		s->p999_sum += q >= 0 ? q : HIST_RANGE_US;
		s->max_sum += run.max_us;
		s->rounds++;
	}
	hist_cleanup(&run);
	ct_result_cleanup(&res);
	return ret;
}

static int round_direct(struct side *s, const char *dir, int duration_s)
{
	char json[512], dur[32], jopt[600], hopt[32];
	char *argv[] = { "cyclictest", "-m", "-p", "95", "-i", "1000", "-t",
			 hopt,	       "-q", "-D", dur,	 jopt, NULL };
	char *text = NULL;
	size_t len = 0;
	int ret;

	snprintf(json, sizeof(json), "%s/direct.json", dir);
	snprintf(dur, sizeof(dur), "%d", duration_s);
	snprintf(jopt, sizeof(jopt), "--json=%s", json);
	snprintf(hopt, sizeof(hopt), "-h%d", HIST_RANGE_US);
	ret = run_wait(argv);
	if (!ret)
		ret = read_file(json, &text, &len);
	if (!ret)
		ret = side_add(s, text, len);
	free(text);
	return ret;
}

static int round_agent(struct side *s, const char *dir, int duration_s,
		       const char *agent, const char *testcase)
{
	char out[512], dur[32];
	char *argv[] = { (char *)agent,	   "run",	 "--testcase",
			 (char *)testcase, "--duration", dur,
			 "--out",	   out,		 NULL };
	struct rtlab_err err = { "" };
	const struct bundle_file *f;
	struct bundle *b;
	int ret;

	snprintf(out, sizeof(out), "%s/agent.bundle", dir);
	snprintf(dur, sizeof(dur), "%d", duration_s);
	ret = run_wait(argv);
	if (ret)
		return ret;
	b = bundle_read(out, &err);
	if (!b) {
		fprintf(stderr, "agent-overhead: %s\n", err.msg);
		return -EIO;
	}
	f = bundle_get(b, "cyclictest.json");
	ret = f ? side_add(s, (const char *)f->data, f->size) : -ENOENT;
	bundle_free(b);
	return ret;
}

static void print_side(const char *name, const struct side *s)
{
	int64_t q = hist_quantile(&s->pooled, 0.999);

	printf("  %-22s p99.9 %6.1f us (pooled %4lld)   max %7.1f us   "
	       "(means over %d rounds)\n",
	       name, s->p999_sum / s->rounds, (long long)q,
	       s->max_sum / s->rounds, s->rounds);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "duration", required_argument, NULL, 'd' },
		{ "agent", required_argument, NULL, 'a' },
		{ "testcase", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *agent = "build/rtlab-agent";
	const char *testcase = "testcases/cyclictest-idle.yaml";
	int rounds = 5, duration_s = 5, c, i, ret = 1;
	struct side direct = { 0 }, agented = { 0 };
	char dir[] = "/tmp/rtlab-overhead.XXXXXX";

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'd':
			duration_s = atoi(optarg);
			break;
		case 'a':
			agent = optarg;
			break;
		case 't':
			testcase = optarg;
			break;
		case 'h':
			printf("usage: agent-overhead [--rounds N] [--duration S]"
			       " [--agent PATH] [--testcase FILE]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (rounds <= 0 || duration_s <= 0 || !mkdtemp(dir))
		return 2;
	if (hist_init(&direct.pooled, HIST_RANGE_US) ||
	    hist_init(&agented.pooled, HIST_RANGE_US))
		goto out;
	for (i = 0; i < rounds; i++) {
		/* Alternate which goes first, so drift hits both sides. */
		int first_agent = i & 1;

		fprintf(stderr, "round %d/%d\n", i + 1, rounds);
		if ((first_agent &&
		     round_agent(&agented, dir, duration_s, agent, testcase)) ||
		    round_direct(&direct, dir, duration_s) ||
		    (!first_agent &&
		     round_agent(&agented, dir, duration_s, agent, testcase))) {
			fprintf(stderr, "agent-overhead: round %d failed\n", i);
			goto out;
		}
	}
	printf("agent overhead: cyclictest -m -p95 -i1000 -t -h%d, %d s x %d "
	       "rounds each, alternating\n",
	       HIST_RANGE_US, duration_s, rounds);
	print_side("cyclictest alone", &direct);
	print_side("under rtlab-agent", &agented);
	printf("  ratio agent/alone      p99.9 %.3f   max %.3f   "
	       "(target within 2 %%)\n",
	       agented.p999_sum / direct.p999_sum,
	       agented.max_sum / direct.max_sum);
	ret = 0;
out:
	hist_cleanup(&direct.pooled);
	hist_cleanup(&agented.pooled);
	{
		char path[600];

		snprintf(path, sizeof(path), "%s/direct.json", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/agent.bundle", dir);
		unlink(path);
		rmdir(dir);
	}
	return ret;
}
