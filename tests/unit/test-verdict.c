// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the pure parts of services/verdict.c: the regression
 * parameters taken from a testcase definition (defaults, overrides, every
 * kind of invalid or conflicting floor, with the key named), and the
 * offline comparison's refusals that need no database.
 */

#include <errno.h>
#include <math.h>
#include <string.h>

#include "../../services/verdict.h"
#include "check.h"

static int same(const struct regress_params *a, const struct regress_params *b)
{
	return a->floor_abs_us == b->floor_abs_us &&
	       a->floor_rel == b->floor_rel && a->tail_q == b->tail_q &&
	       a->alpha == b->alpha && a->min_runs == b->min_runs;
}

/* Parse @text as a definition; returns verdict_params_parse()'s result. */
static int parse(const char *text, struct regress_params *p,
		 struct rtlab_err *err)
{
	json_t *def = text ? json_loads(text, 0, NULL) : NULL;
	int ret = verdict_params_parse(def, "tc", p, err);

	json_decref(def);
	return ret;
}

static void test_defaults(void)
{
	struct regress_params p, d;
	struct rtlab_err err = { "" };

	regress_params_init(&d);
	CHECK_INT(parse(NULL, &p, &err), 0, "no definition: defaults");
	CHECK(same(&p, &d), "no definition gives the defaults");
	CHECK_INT(parse("{\"loads\": []}", &p, &err), 0,
		  "definition without verdict: defaults");
	CHECK(p.floor_abs_us == d.floor_abs_us && p.min_runs == d.min_runs,
	      "... the defaults");
}

static void test_overrides(void)
{
	struct regress_params p;
	struct rtlab_err err = { "" };

	CHECK_INT(parse("{\"verdict\": {\"floor_us\": 50, \"floor_rel\": 0.2, "
			"\"tail_q\": 0.99, \"alpha\": 0.1, \"min_runs\": 8, "
			"\"looks\": 4}}",
			&p, &err),
		  0, "every key set");
	CHECK(p.floor_abs_us == 50 && p.floor_rel == 0.2 && p.tail_q == 0.99 &&
		      p.alpha == 0.1 && p.min_runs == 8 && p.looks == 4,
	      "... all applied");
	CHECK_INT(parse("{\"verdict\": {\"floor_abs_us\": 7}}", &p, &err), 0,
		  "alias floor_abs_us");
	CHECK(p.floor_abs_us == 7, "... applied");
	CHECK_INT(parse("{\"verdict\": {\"floor_us\": 7, \"floor_abs_us\": 7}}",
			&p, &err),
		  0, "floor_us and its alias agreeing");
}

static void test_invalid(void)
{
	static const struct {
		const char *def, *words;
	} cases[] = {
		{ "{\"verdict\": 5}", "'verdict': expected an object" },
		{ "{\"verdict\": {\"floor_us\": -1}}", "verdict.floor_us" },
		{ "{\"verdict\": {\"floor_us\": \"5\"}}",
		  "verdict.floor_us: expected a number" },
		{ "{\"verdict\": {\"floor_rel\": 10}}", "verdict.floor_rel" },
		{ "{\"verdict\": {\"tail_q\": 1}}", "verdict.tail_q" },
		{ "{\"verdict\": {\"tail_q\": 0.5}}", "verdict.tail_q" },
		{ "{\"verdict\": {\"alpha\": 0}}", "verdict.alpha" },
		{ "{\"verdict\": {\"alpha\": 0.6}}", "verdict.alpha" },
		{ "{\"verdict\": {\"min_runs\": 4.5}}", "verdict.min_runs" },
		{ "{\"verdict\": {\"min_runs\": 1}}", "verdict.min_runs" },
		{ "{\"verdict\": {\"looks\": 0}}", "verdict.looks" },
		{ "{\"verdict\": {\"looks\": 2.5}}", "verdict.looks" },
		{ "{\"verdict\": {\"min_runs\": 3}}",
		  "cannot decide at look 1 of 3" },
		{ "{\"verdict\": {\"alpha\": 0.01}}",
		  "cannot decide at look 1 of 3" },
		{ "{\"verdict\": {\"floor\": 5}}",
		  "verdict.floor: unknown key" },
		{ "{\"verdict\": {\"floor_us\": 5, \"floor_abs_us\": 8}}",
		  "verdict.floor_us (5) and verdict.floor_abs_us (8) conflict" },
	};
	struct regress_params p, d;
	size_t i;

	regress_params_init(&d);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rtlab_err err = { "" };

		CHECK_INT(parse(cases[i].def, &p, &err), -EINVAL, cases[i].def);
		CHECK(strstr(err.msg, cases[i].words) &&
			      strstr(err.msg, "testcase 'tc'"),
		      "... message '%s' names the testcase and '%s'", err.msg,
		      cases[i].words);
		CHECK(same(&p, &d), "... and leaves the defaults");
	}
}

static void test_offline_refusals(void)
{
	const char *const a[] = { "/nonexistent/a.bundle" };
	struct rtlab_err err = { "" };
	json_t *v = NULL;

	CHECK_INT(verdict_compare_bundles(a, 1, NULL, 0, &v, &err), -EINVAL,
		  "no candidate bundles: -EINVAL");
	CHECK(strstr(err.msg, "no candidate bundles") != NULL,
	      "... saying so: %s", err.msg);
	CHECK(verdict_compare_bundles(a, 1, a, 1, &v, &err) < 0 && !v,
	      "a missing bundle file: an error, no verdict");
	CHECK(strstr(err.msg, "/nonexistent/a.bundle") != NULL,
	      "... naming the file: %s", err.msg);
}

int main(void)
{
	test_defaults();
	test_overrides();
	test_invalid();
	test_offline_refusals();
	return check_exit();
}
