// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of lib/injectlog.c: the injections a run really made, read
 * back from its kernel log, and a module that is not rtlab's (no report
 * of its own) left without a module count.
 */

#include <string.h>

#include "check.h"
#include "injectlog.h"

static const char dmesg[] =
	"[    3.1] rtlab-agent inject: insmod /lib/modules/6.1/extra/rtlab_inject.ko spin_us=300 period_ms=100 jitter_pct=50 mode=preempt seed=18446744073709551615 cpus=0x1\n"
	"[    3.1] rtlab_inject: started on 1 CPU(s): mode=preempt spin_us=300 period_ms=100 jitter_pct=50 seed=18446744073709551615 cpus=0x1\n"
	"[    6.2] rtlab_inject: stopped after 45 injections (seed=18446744073709551615)\n"
	"[    6.2] rtlab-agent inject: rmmod rtlab_inject\n"
	"[    6.2] rtlab-agent inject: stop mode=preempt seed=18446744073709551615 injections=45\n"
	"[    9.0] rtlab-agent inject: stop mode=irq seed=42 injections=7\n"
	"[    9.5] rtlab-agent inject: stop mode=user seed=7 injections=-1 seconds=2.0";

static void test_parse(void)
{
	json_t *a = injectlog_parse(dmesg, strlen(dmesg), NULL), *o;
	json_t *cmds;

	CHECK(a && json_array_size(a) == 3, "three injectors stopped");
	o = json_array_get(a, 0);
	CHECK_STR(json_string_value(json_object_get(o, "mode")), "preempt",
		  "mode");
	CHECK_STR(json_string_value(json_object_get(o, "seed")),
		  "18446744073709551615", "a 64-bit seed kept whole");
	CHECK_INT(json_integer_value(json_object_get(o, "injections")), 45,
		  "the injector's count");
	CHECK_INT(json_integer_value(json_object_get(o, "module_injections")),
		  45, "the module's own count for that seed");
	o = json_array_get(a, 1);
	CHECK(json_is_null(json_object_get(o, "module_injections")),
	      "a module that did not report (not rtlab's) has a null count");
	o = json_array_get(a, 2);
	CHECK(json_is_null(json_object_get(o, "injections")) &&
		      !json_object_get(o, "module_injections"),
	      "user mode: no count known, and no module (last line without a newline)");
	json_decref(a);
	a = injectlog_parse("", 0, NULL);
	CHECK(a && json_array_size(a) == 0, "no injector: an empty array");
	json_decref(a);

	/* The ring buffer holds earlier runs too: keep this run's seeds. */
	cmds = json_pack("[s, s]", "cyclictest -m -p95 -h 400",
			 "rtlab-agent inject --mode irq --seed 42 --spin-us 5");
	a = injectlog_parse(dmesg, strlen(dmesg), cmds);
	CHECK(a && json_array_size(a) == 1 &&
		      !strcmp(json_string_value(json_object_get(json_array_get(a,
									       0),
								"seed")),
			      "42"),
	      "only the injector whose seed is in the run's commands");
	json_decref(a);
	json_decref(cmds);
}

/* mode=tick: the module's start line says where and how often. */
static void test_tick(void)
{
	static const char log[] =
		"[    3.0] rtlab_inject: started on 1 CPU(s): mode=tick probe=update_process_times tick_every=25 hz=250 spin_us=300 period_ms=100 jitter_pct=0 seed=9 cpus=0x0\n"
		"[    3.0] rtlab_inject: started on 1 CPU(s): mode=tick probe=scheduler_tick tick_every=1 hz=250 spin_us=300 period_ms=4 jitter_pct=0 seed=10 cpus=0x0\n"
		"[    6.0] rtlab_inject: stopped after 30 injections (seed=9)\n"
		"[    6.0] rtlab-agent inject: stop mode=tick seed=9 injections=30\n"
		"[    7.0] rtlab-agent inject: stop mode=tick seed=11 injections=2\n";
	json_t *a = injectlog_parse(log, strlen(log), NULL), *o;

	CHECK(a && json_array_size(a) == 2, "two tick injectors stopped");
	o = json_array_get(a, 0);
	CHECK_STR(json_string_value(json_object_get(o, "probe")),
		  "update_process_times", "the probed function of its seed");
	CHECK_INT(json_integer_value(json_object_get(o, "tick_every")), 25,
		  "ticks between spins");
	CHECK_INT(json_integer_value(json_object_get(o, "hz")), 250, "HZ");
	CHECK_INT(json_integer_value(json_object_get(o, "module_injections")),
		  30, "the module's count");
	o = json_array_get(a, 1);
	CHECK(json_is_null(json_object_get(o, "probe")) &&
		      json_is_null(json_object_get(o, "tick_every")) &&
		      json_is_null(json_object_get(o, "hz")),
	      "no start line for that seed: null, not another seed's figures");
	json_decref(a);
	a = injectlog_parse(dmesg, strlen(dmesg), NULL);
	CHECK(a && !json_object_get(json_array_get(a, 0), "probe"),
	      "other modes carry no tick keys");
	json_decref(a);
}

int main(void)
{
	test_parse();
	test_tick();
	return check_exit();
}
