// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command lines the agent runs: cyclictest from a testcase, each load,
 * and their shell-quoted form recorded in manifest.commands.
 */
#include <stdlib.h>
#include <string.h>

#include "../../agent/load.h"
#include "../../agent/measure.h"
#include "testcase.h"
#include "check.h"

static char *joined(const struct argv *a)
{
	static char buf[1024];
	char *s = argv_join(a);

	snprintf(buf, sizeof(buf), "%s", s ? s : "(null)");
	free(s);
	return buf;
}

static void test_cyclictest(void)
{
	struct testcase tc;
	struct rtlab_err e;
	struct argv a;
	static const char full[] =
		"name: x\nmeasurement:\n  priority: 80\n  interval_us: 200\n"
		"  histogram_us: 500\n  threads: 1\n  affinity: 1\n"
		"  mlockall: false\n  extra_args: [--smi]\n";

	CHECK_INT(testcase_parse("t.yaml", "name: x\n", 8, &tc, &e), 0,
		  "default testcase");
	CHECK_INT(measure_build_argv(&tc, 5, 0, "ct.json", &a), 0,
		  "build default cyclictest argv");
	CHECK_STR(joined(&a),
		  "cyclictest -m -p 95 -i 1000 -t -h 1000 -q -D 5 --json=ct.json",
		  "default cyclictest command");
	CHECK(a.v[a.n] == NULL, "argv is NULL-terminated");
	argv_cleanup(&a);
	CHECK_INT(measure_build_argv(&tc, 5, 997, "ct.json", &a), 0,
		  "build with the board's interval");
	CHECK_STR(joined(&a),
		  "cyclictest -m -p 95 -i 997 -t -h 1000 -q -D 5 --json=ct.json",
		  "the board's interval replaces the testcase's; never -b");
	argv_cleanup(&a);
	CHECK(measure_samples_planned(5, 997) == 5015 &&
		      measure_samples_planned(5, 1000) == 5000 &&
		      measure_samples_planned(5, 0) == 0,
	      "samples a full run takes: duration / interval");
	argv_cleanup(&a);
	testcase_cleanup(&tc);

	CHECK_INT(testcase_parse("t.yaml", full, strlen(full), &tc, &e), 0,
		  "full measurement testcase");
	CHECK_INT(measure_build_argv(&tc, 60, 0, "ct.json", &a), 0,
		  "build full cyclictest argv");
	CHECK_STR(joined(&a),
		  "cyclictest -p 80 -i 200 --threads=1 --affinity=1 -h 500 -q -D 60 --json=ct.json --smi",
		  "threads, affinity (attached: optional arguments), no -m, extra args last");
	argv_cleanup(&a);
	testcase_cleanup(&tc);
}

static void check_load(const char *yaml, const char *want0, const char *want1,
		       const char *what)
{
	struct argv cmds[LOAD_MAX_CMDS];
	struct testcase tc;
	struct rtlab_err e;
	size_t n = 0, i;

	CHECK_INT(testcase_parse("t.yaml", yaml, strlen(yaml), &tc, &e), 0,
		  what);
	CHECK_INT(load_build_cmds(&tc.loads[0], 10, cmds, &n), 0, what);
	CHECK_INT(n, want1 ? 2 : 1, "number of commands");
	CHECK_STR(joined(&cmds[0]), want0, what);
	if (want1)
		CHECK_STR(joined(&cmds[1]), want1, what);
	for (i = 0; i < LOAD_MAX_CMDS; i++)
		argv_cleanup(&cmds[i]);
	testcase_cleanup(&tc);
}

static void test_loads(void)
{
	check_load("name: x\nloads:\n  - name: hackbench\n",
		   "hackbench -g 4 -l 100000", NULL, "hackbench defaults");
	check_load("name: x\nloads:\n  - name: hackbench\n    args: [-p, -g, '2']\n",
		   "hackbench -p -g 2", NULL, "hackbench args");
	check_load("name: x\nloads:\n  - name: hackbench-churn\n",
		   "hackbench -l 200", NULL, "churn: hackbench -l 200");
	check_load("name: x\nloads:\n  - name: stress-ng\n    args: [--cpu, '2']\n",
		   "stress-ng --cpu 2 --timeout 130s", NULL,
		   "stress-ng gets a safety timeout");
	check_load("name: x\nloads:\n  - name: stress-ng\n    args: [--cpu, '2', --timeout, 5s]\n",
		   "stress-ng --cpu 2 --timeout 5s", NULL,
		   "stress-ng keeps a given timeout");
	check_load("name: x\nloads:\n  - name: network\n",
		   "iperf3 -s -B 127.0.0.1 -p 5201",
		   "iperf3 -c 127.0.0.1 -p 5201 -t 130",
		   "network: iperf3 server and client on loopback");
	check_load("name: x\nloads:\n  - name: network\n    mode: ping\n",
		   "ping -f -q -w 130 127.0.0.1", NULL,
		   "network: ping flood on loopback");
	check_load("name: x\nloads:\n  - name: network\n    mode: iperf3-nic\n"
		   "    port: 5202\n",
		   "iperf3 -s -B 10.0.2.15 -p 5202", NULL,
		   "network iperf3-nic: the server alone, on the NIC's address");
}

static void test_join(void)
{
	struct argv a;

	argv_init(&a);
	CHECK(argv_failed(&a), "an empty vector counts as failed");
	argv_add(&a, "echo");
	argv_add(&a, "two words");
	argv_add(&a, "it's");
	argv_add(&a, "");
	argv_addf(&a, "--n=%d", 3);
	CHECK(!argv_failed(&a), "vector built");
	CHECK_STR(joined(&a), "echo 'two words' 'it'\\''s' '' --n=3",
		  "shell quoting of spaces, quotes and empty words");
	argv_cleanup(&a);
	argv_cleanup(&a);
	CHECK(a.n == 0 && !a.v, "argv_cleanup twice is harmless");
}

int main(void)
{
	test_cyclictest();
	test_loads();
	test_join();
	return check_exit();
}
