// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the environment the agent records (agent/env.c), on a
 * faked /proc and /sys below a scratch directory: the fields a board
 * health check compares (docs/farm.md, "Board health") are read from
 * where the kernel puts them, and a field the board lacks is null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "../../agent/env.h"
#include "../../agent/knob.h"
#include "check.h"
#include "scratch.h"

static const char *const dirs[] = {
	"proc",
	"sys",
	"sys/devices",
	"sys/devices/system",
	"sys/devices/system/cpu",
	"sys/devices/system/cpu/cpu0",
	"sys/devices/system/cpu/cpu0/microcode",
	"sys/devices/system/clocksource",
	"sys/devices/system/clocksource/clocksource0",
	"sys/kernel",
	NULL,
};

static const char *str(json_t *env, const char *key)
{
	const char *s = json_string_value(json_object_get(env, key));

	return s ? s : "(null)";
}

int main(void)
{
	json_t *env;
	int i;

	if (scratch_create("rtlab-env-test")) {
		perror("scratch");
		return 1;
	}
	for (i = 0; dirs[i]; i++)
		mkdir(scratch_path(dirs[i]), 0755);
	scratch_put("proc/cmdline", "BOOT_IMAGE=/vmlinuz isolcpus=1\n");
	scratch_put("proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU\n"
				    "processor\t: 1\nmodel name\t: Test CPU\n");
	scratch_put("sys/devices/system/cpu/isolated", "1\n");
	scratch_put("sys/devices/system/clocksource/clocksource0/"
		    "current_clocksource",
		    "tsc\n");
	scratch_put("sys/devices/system/cpu/cpu0/microcode/version", "0xf0\n");

	env = env_environment_json(scratch_dir, "host");
	CHECK(env != NULL, "an environment");
	CHECK_STR(str(env, "cmdline"), "BOOT_IMAGE=/vmlinuz isolcpus=1",
		  "cmdline from /proc/cmdline");
	CHECK_STR(str(env, "cpu_model"), "Test CPU", "cpu_model from cpuinfo");
	CHECK_INT(json_integer_value(json_object_get(env, "cpus")), 2,
		  "cpus counted in cpuinfo");
	CHECK_STR(str(env, "isolcpus"), "1", "isolcpus from sysfs");
	CHECK_STR(str(env, "clocksource"), "tsc", "the current clocksource");
	CHECK_STR(str(env, "microcode"), "0xf0",
		  "microcode: CPU 0's revision from sysfs");
	CHECK_STR(str(env, "clock"), "host", "the clock given");
	json_decref(env);

	remove(scratch_path("sys/devices/system/cpu/cpu0/microcode/version"));
	env = env_environment_json(scratch_dir, "host");
	CHECK(json_is_null(json_object_get(env, "microcode")),
	      "no microcode file: microcode null");
	json_decref(env);

	scratch_destroy();
	return check_exit();
}
