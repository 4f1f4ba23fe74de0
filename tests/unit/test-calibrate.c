// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of calibration's pure parts: the Clopper-Pearson interval,
 * the result's rates and smallest reliable spin, the injected testcase
 * (parsed back by the agent's own parser), and the injector's seeded
 * jitter and cpuset parsing.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agent/inject.h"
#include "testcase.h"
#include "../../services/calibrate.h"
#include "check.h"

static json_t *verdict(const char *v)
{
	return json_pack("{s:s, s:s}", "verdict", v, "reason", "test");
}

static void test_ci(void)
{
	double lo, hi;

	CHECK(!calibrate_proportion_ci(0, 1, 0.95, &lo, &hi) && lo == 0 &&
		      fabs(hi - 0.975) < 1e-6,
	      "0/1: [0, 0.975] (got %g, %g)", lo, hi);
	CHECK(!calibrate_proportion_ci(1, 1, 0.95, &lo, &hi) && hi == 1 &&
		      fabs(lo - 0.025) < 1e-6,
	      "1/1: [0.025, 1] (got %g, %g)", lo, hi);
	/* A textbook value: 5/20 at 95 % is [0.0866, 0.4910]. */
	CHECK(!calibrate_proportion_ci(5, 20, 0.95, &lo, &hi) &&
		      fabs(lo - 0.0866) < 1e-3 && fabs(hi - 0.4910) < 1e-3,
	      "5/20: [0.0866, 0.4910] (got %.4f, %.4f)", lo, hi);
	CHECK(calibrate_proportion_ci(0, 0, 0.95, &lo, &hi) == -EINVAL,
	      "no trials is -EINVAL");
	CHECK(calibrate_proportion_ci(3, 2, 0.95, &lo, &hi) == -EINVAL,
	      "k > n is -EINVAL");
}

static void test_result(void)
{
	json_t *v[8] = { verdict("NO_CHANGE"),	  verdict("INCONCLUSIVE"),
			 verdict("REGRESSION"),	  verdict("IMPROVEMENT"),
			 verdict("INCONCLUSIVE"), verdict("REGRESSION"),
			 verdict("REGRESSION"),	  verdict("REGRESSION") };
	struct calib_cmp c[8 + 36] = {
		{ false, 0, v[0] },  { false, 0, v[1] },  { false, 0, v[2] },
		{ false, 0, v[3] },  { true, 50, v[4] },  { true, 50, v[5] },
		{ true, 200, v[6] }, { true, 200, v[7] },
	};
	json_t *about = json_pack("{s:s}", "board", "b");
	json_t *r = calibrate_result_json(about, c, 8), *d;
	size_t i;

	CHECK(r != NULL, "result built");
	CHECK_INT(json_integer_value(json_object_get(
			  json_object_get(r, "false_alarm"), "hits")),
		  2, "A/A REGRESSION and IMPROVEMENT are both false alarms");
	CHECK_INT(json_integer_value(json_object_get(
			  json_object_get(json_object_get(r, "false_alarm"),
					  "verdicts"),
			  "INCONCLUSIVE")),
		  1, "verdicts counted by kind");
	d = json_object_get(r, "detection");
	CHECK_INT(json_array_size(d), 2, "two spin sizes");
	CHECK_INT(json_integer_value(json_object_get(json_array_get(d, 0),
						     "spin_us")),
		  50, "sizes in ascending order");
	CHECK_INT(json_integer_value(json_object_get(json_array_get(d, 0),
						     "hits")),
		  1, "50 us: 1 of 2");
	CHECK(json_is_null(json_object_get(r, "smallest_reliable_spin_us")),
	      "2 caught of 2 does not show a 90 %% detection rate");
	CHECK_STR(json_string_value(json_object_get(r, "board")), "b",
		  "the caller's fields are kept");
	json_decref(r);

	/* 36 of 36 at 300 us: the interval's lower end passes 90 %. */
	for (i = 8; i < 8 + 36; i++)
		c[i] = (struct calib_cmp){ true, 300, v[7] };
	r = calibrate_result_json(about, c, 8 + 35);
	CHECK(json_is_null(json_object_get(r, "smallest_reliable_spin_us")),
	      "35 of 35 is not yet enough");
	json_decref(r);
	r = calibrate_result_json(about, c, 8 + 36);
	CHECK_INT(json_integer_value(json_object_get(r,
						     "smallest_reliable_spin_us")),
		  300, "36 of 36 at 300 us is reliable");
	json_decref(r);
	json_decref(about);
	for (i = 0; i < 8; i++)
		json_decref(v[i]);
}

static void test_testcase(void)
{
	char base[] = "/tmp/test-calibrate-XXXXXX", in[64], out[64];
	struct calib_inject inj = { "preempt", 300, 100, 40, "0" };
	struct rtlab_err err = { "" };
	struct testcase tc;
	FILE *f;

	CHECK(mkdtemp(base) != NULL, "temporary directory");
	snprintf(in, sizeof(in), "%s/in.yaml", base);
	snprintf(out, sizeof(out), "%s/out.yaml", base);
	f = fopen(in, "w");
	fprintf(f,
		"name: cal\nduration_s: 3\nmeasurement:\n  histogram_us: 5000\nloads: []\n");
	fclose(f);
	CHECK(!calibrate_injected_testcase(in, &inj, out, &err),
	      "injected testcase written (%s)", err.msg);
	CHECK(!testcase_load(out, &tc, &err), "the agent parses it (%s)",
	      err.msg);
	CHECK_STR(tc.name, "cal", "same name as the clean testcase");
	CHECK_INT(tc.measurement.histogram_us, 5000, "measurement kept");
	CHECK_INT(tc.nloads, 1, "one load");
	if (tc.nloads == 1) {
		CHECK(tc.loads[0].kind == TC_LOAD_INJECTOR &&
			      tc.loads[0].inject_mode == TC_INJECT_PREEMPT,
		      "an injector in preempt mode");
		CHECK_INT(tc.loads[0].spin_us, 300, "spin_us");
		CHECK_INT(tc.loads[0].period_ms, 100, "period_ms");
		CHECK_INT(tc.loads[0].jitter_pct, 40, "jitter_pct");
		CHECK_STR(tc.loads[0].cpus, "0", "cpus");
	}
	testcase_cleanup(&tc);
	/* No loads key at all: one is added. */
	f = fopen(in, "w");
	fprintf(f, "name: cal2\n");
	fclose(f);
	CHECK(!calibrate_injected_testcase(in, &inj, out, &err) &&
		      !testcase_load(out, &tc, &err) && tc.nloads == 1,
	      "a testcase without loads gets one (%s)", err.msg);
	testcase_cleanup(&tc);
	CHECK(calibrate_injected_testcase("/nonexistent.yaml", &inj, out,
					  &err) < 0 &&
		      strstr(err.msg, "/nonexistent.yaml"),
	      "a missing file is an error naming it");
	unlink(in);
	unlink(out);
	rmdir(base);
}

static void test_inject(void)
{
	struct inject_rng a, b;
	struct rtlab_err err = { "" };
	uint64_t x, min = UINT64_MAX, max = 0, first = 0;
	bool varied = false, same = true;
	cpu_set_t set;
	char buf[64];
	int i;

	inject_rng_init(&a, 42, 0);
	inject_rng_init(&b, 42, 0);
	for (i = 0; i < 10000; i++) {
		x = inject_sleep_ns(&a, 100, 50);
		same &= x == inject_sleep_ns(&b, 100, 50);
		if (!i)
			first = x;
		varied |= x != first;
		min = x < min ? x : min;
		max = x > max ? x : max;
	}
	CHECK(same, "the same seed gives the same sleeps");
	CHECK(varied, "sleeps vary");
	CHECK(min >= 50000000 && max <= 150000000,
	      "sleeps within 100 ms +/- 50 %% (%llu..%llu ns)",
	      (unsigned long long)min, (unsigned long long)max);
	CHECK(min < 55000000 && max > 145000000, "and they cover the range");
	inject_rng_init(&b, 42, 1);
	inject_rng_init(&a, 42, 0);
	CHECK(inject_sleep_ns(&a, 100, 50) != inject_sleep_ns(&b, 100, 50),
	      "each CPU has its own stream");
	CHECK_INT((long long)inject_sleep_ns(&a, 100, 0), 100000000,
		  "no jitter: exactly the period");
	CHECK(!inject_parse_cpus("0,2-3", &set, &err) && CPU_COUNT(&set) == 3,
	      "cpuset 0,2-3");
	CHECK_STR(inject_format_cpus(&set, buf, sizeof(buf)), "0,2-3",
		  "formatted back");
	CHECK(inject_parse_cpus("3-1", &set, &err) == -EINVAL &&
		      strstr(err.msg, "'3-1'"),
	      "a reversed range is refused");
	CHECK(inject_parse_cpus("1,", &set, &err) == -EINVAL,
	      "a trailing comma is refused");
}

int main(void)
{
	test_ci();
	test_result();
	test_testcase();
	test_inject();
	return check_exit();
}
