// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of board health's pure parts (lib/board-health.c): which
 * environment changes are a drift and how the reason names them, the
 * reference figures taken from a calibration's A/A verdicts, and the pass
 * or fail of a health run against them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "board-health.h"
#include "check.h"

static json_t *env(const char *clocksource, const char *isolcpus)
{
	return json_pack("{s:s, s:s, s:i, s:s, s:s?, s:s, s:s, s:s}", "cmdline",
			 "BOOT_IMAGE=/vmlinuz quiet", "cpu_model",
			 "Intel(R) Xeon(R)", "cpus", 4, "clocksource",
			 clocksource, "isolcpus", isolcpus, "clock", "host",
			 "microcode", "0xde", "rt_tests_version", "2.5");
}

static void test_drift(void)
{
	json_t *a = env("tsc", "1-3"), *b = env("tsc", "1-3");
	char why[256];

	CHECK(!health_env_drift(a, b, why, sizeof(why)) && !why[0],
	      "the same environment is no drift");
	json_object_set_new(b, "rt_tests_version", json_string("2.6"));
	CHECK(!health_env_drift(a, b, why, sizeof(why)),
	      "a field health does not depend on (rt-tests version) is no drift");
	json_object_set_new(b, "clock", json_string("icount:3"));
	CHECK(!health_env_drift(a, b, why, sizeof(why)),
	      "nor is the clock: the verdicts never compare two clocks");
	json_decref(b);

	b = env("hpet", "1-3");
	CHECK(health_env_drift(a, b, why, sizeof(why)),
	      "a changed clocksource is a drift");
	CHECK_STR(why, "clocksource tsc → hpet", "... named with both values");
	json_decref(b);

	b = env("hpet", NULL);
	json_object_set_new(b, "microcode", json_string("0xf0"));
	CHECK(health_env_drift(a, b, why, sizeof(why)),
	      "several changes are a drift");
	CHECK_STR(why,
		  "microcode 0xde → 0xf0; clocksource tsc → hpet; isolcpus 1-3 → (none)",
		  "... each named, in a fixed order, a vanished value as (none)");
	json_decref(b);

	b = env("tsc", "1-3");
	json_object_set_new(
		a, "cmdline",
		json_string(
			"BOOT_IMAGE=/vmlinuz-6.1.0-1-rt root=/dev/sda1 isolcpus=1 quiet"));
	json_object_set_new(
		b, "cmdline",
		json_string(
			"BOOT_IMAGE=/vmlinuz-6.1.0-2-rt quiet  root=/dev/sda1 isolcpus=1\n"));
	CHECK(!health_env_drift(a, b, why, sizeof(why)),
	      "a command line naming another image, its parameters reordered, is no drift");
	json_object_set_new(
		b, "cmdline",
		json_string(
			"BOOT_IMAGE=/vmlinuz-6.1.0-2-rt root=/dev/sda1 isolcpus=2 quiet nohz_full=2"));
	CHECK(health_env_drift(a, b, why, sizeof(why)),
	      "a changed kernel parameter is a drift");
	CHECK_STR(why, "cmdline -isolcpus=1 +isolcpus=2 +nohz_full=2",
		  "... naming the parameters removed and added");
	json_object_set_new(a, "cmdline",
			    json_string("BOOT_IMAGE=/vmlinuz quiet"));
	json_decref(b);

	b = env("tsc", "1-3");
	json_object_set_new(b, "cpus", json_integer(2));
	health_env_drift(a, b, why, sizeof(why));
	CHECK_STR(why, "cpus 4 → 2", "a number is shown as a number");
	json_decref(b);

	/* An environment recorded before microcode was: not compared. */
	json_object_del(a, "microcode");
	b = env("tsc", "1-3");
	CHECK(!health_env_drift(a, b, why, sizeof(why)),
	      "a field the healthy environment lacks is not compared");
	json_decref(b);
	CHECK(!health_env_drift(NULL, a, why, sizeof(why)),
	      "no healthy environment yet: no drift");
	b = json_pack("{s:s}", "clocksource", "acpi_pm");
	health_env_drift(a, b, why, 12);
	CHECK(strlen(why) == 11, "the reason is truncated to its buffer");
	json_decref(b);
	json_decref(a);
}

static json_t *aa(long b99, long b999, long c99, long c999)
{
	return json_pack("{s:{s:{s:{s:i}, s:{s:i}}, s:{s:{s:i}, s:{s:i}}}}",
			 "details", "baseline", "p99", "est_us", (int)b99,
			 "p99.9", "est_us", (int)b999, "candidate", "p99",
			 "est_us", (int)c99, "p99.9", "est_us", (int)c999);
}

static void test_reference(void)
{
	json_t *v[3] = { aa(10, 20, 12, 18), aa(11, 25, 9, -1),
			 json_pack("{s:s}", "verdict", "INCONCLUSIVE") };
	json_t *ref = health_reference_json(v, 3), *cal;
	struct health_reference r;

	CHECK(ref != NULL, "a reference from A/A verdicts");
	CHECK_INT(json_integer_value(json_object_get(ref, "p99_us")), 12,
		  "reference p99: the largest of either side");
	CHECK_INT(json_integer_value(json_object_get(ref, "p999_us")), 25,
		  "reference p99.9: the largest, overflows (-1) left out");
	CHECK(health_reference_json(v + 2, 1) == NULL,
	      "verdicts without figures give no reference");
	cal = json_pack("{s:O}", "reference", ref);
	CHECK(!health_reference_get(cal, &r) && r.p99_us == 12 &&
		      r.p999_us == 25,
	      "health_reference_get() reads it back");
	json_decref(cal);
	cal = json_object();
	CHECK(health_reference_get(cal, &r) == -ENOENT,
	      "a calibration without a reference: -ENOENT");
	json_decref(cal);
	json_decref(ref);
	json_decref(v[0]);
	json_decref(v[1]);
	json_decref(v[2]);
}

static void test_judge(void)
{
	json_t *cal = json_pack("{s:{s:i, s:i}}", "reference", "p99_us", 10,
				"p999_us", 30);
	struct health_run run = { "complete", 40, 80 };
	char why[256];

	/* limits: p99 2 × 10 + 20 = 40, p99.9 2 × 30 + 20 = 80 */
	CHECK(health_judge(&run, cal, why, sizeof(why)),
	      "figures at the limits pass (%s)", why);
	run.p99_us = 41;
	CHECK(!health_judge(&run, cal, why, sizeof(why)),
	      "p99 one above its limit fails");
	CHECK(strstr(why, "p99 41 us") && strstr(why, "limit 2 × 10 + 20 = 40"),
	      "... saying which figure and its limit (%s)", why);
	run.p99_us = 40;
	run.p999_us = 81;
	CHECK(!health_judge(&run, cal, why, sizeof(why)) &&
		      strstr(why, "p99.9 81 us"),
	      "p99.9 above its limit fails");
	run.p999_us = -1;
	CHECK(!health_judge(&run, cal, why, sizeof(why)),
	      "a quantile among the overflows fails");
	run.status = "panic";
	run.p999_us = 50;
	CHECK(!health_judge(&run, cal, why, sizeof(why)) &&
		      !strcmp(why, "the health run is panic"),
	      "a run that is not complete fails, saying its status");
	run.status = "complete";
	run.p99_us = 5000;
	json_decref(cal);
	cal = json_pack("{s:n}", "reference");
	CHECK(health_judge(&run, cal, why, sizeof(why)) &&
		      strstr(why, "no reference figures"),
	      "a calibration without reference figures: a complete run passes, saying so");
	json_decref(cal);
}

int main(void)
{
	test_drift();
	test_reference();
	test_judge();
	return check_exit();
}
