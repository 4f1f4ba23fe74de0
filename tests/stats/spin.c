// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A latency injector for tests/stats/capture.sh: pinned to one CPU and run
 * under `chrt -f 99`, it busy-waits SPIN_US every PERIOD_US on average.  The
 * period is jittered (uniform 0.5x..1.5x, fixed seed) so the spins cannot
 * phase-lock with cyclictest's wakeups and hide between them.
 *
 *   spin CPU SPIN_US PERIOD_US SECONDS SEED
 */

#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	double spin_us, period_us, end, t, nap;
	struct timespec req;
	cpu_set_t set;
	int cpu;

	if (argc != 6) {
		fprintf(stderr, "usage: spin CPU SPIN_US PERIOD_US SECONDS SEED\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	spin_us = atof(argv[2]);
	period_us = atof(argv[3]);
	end = now_us() + atof(argv[4]) * 1e6;
	srand48(atol(argv[5]));
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("spin: sched_setaffinity");
		return 1;
	}
	while (now_us() < end) {
		nap = period_us * (0.5 + drand48());
		req.tv_sec = (time_t)(nap / 1e6);
		req.tv_nsec = (long)((nap - req.tv_sec * 1e6) * 1e3);
		nanosleep(&req, NULL);
		t = now_us();
		while (now_us() - t < spin_us)
			;
	}
	return 0;
}
