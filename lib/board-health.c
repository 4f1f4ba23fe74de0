// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Board health, the pure part: environment drift between two manifests'
 * environments, a calibration's reference figures, and the pass or fail of
 * a health run against them.  No database: services/health.c stores what
 * these decide.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board-health.h"

/* Not the clock (icount, realtime, host): the verdicts already refuse to
 * compare runs of different clocks, and one board may measure with
 * several on purpose. */
const char *const health_env_keys[] = { "cpu_model",   "cpus",	   "microcode",
					"clocksource", "isolcpus", "cmdline",
					NULL };

/* A field's value for people: strings as they are, null or absent
 * "(none)", others as compact JSON. */
static void value_text(json_t *v, char *buf, size_t size)
{
	char *s;

	if (!v || json_is_null(v)) {
		snprintf(buf, size, "(none)");
		return;
	}
	if (json_is_string(v)) {
		snprintf(buf, size, "%s", json_string_value(v));
		return;
	}
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	snprintf(buf, size, "%s", s ? s : "?");
	free(s);
}

/* A kernel command line parameter that names the image booted, not the
 * board: a new kernel changes it. */
static bool cmdline_ignored(const char *tok, size_t n)
{
	return (n >= 11 && !strncmp(tok, "BOOT_IMAGE=", 11)) ||
	       (n >= 7 && !strncmp(tok, "initrd=", 7));
}

/* Whether parameter @tok (@n bytes) is among those of @line. */
static bool cmdline_has(const char *line, const char *tok, size_t n)
{
	const char *p = line;
	size_t m;

	while (*p) {
		p += strspn(p, " \t\n");
		m = strcspn(p, " \t\n");
		if (m == n && !strncmp(p, tok, n))
			return true;
		p += m;
	}
	return false;
}

/* The parameters of @a missing from @b, each after @sign, appended to
 * @out at @len.  Return: the new length. */
static size_t cmdline_missing(const char *a, const char *b, char sign,
			      char *out, size_t size, size_t len)
{
	const char *p = a;
	size_t n;

	while (*p) {
		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n && !cmdline_ignored(p, n) && !cmdline_has(b, p, n) &&
		    len < size)
			len += snprintf(out + len, size - len, "%s%c%.*s",
					len ? " " : "", sign, (int)n, p);
		p += n;
	}
	return len;
}

bool health_env_drift(json_t *before, json_t *now, char *reason, size_t size)
{
	char a[160], b[160];
	size_t len = 0, n;
	bool drift = false;
	int i;

	if (size)
		reason[0] = '\0';
	if (!json_is_object(before))
		return false;
	for (i = 0; health_env_keys[i]; i++) {
		json_t *x = json_object_get(before, health_env_keys[i]);
		json_t *y = json_object_get(now, health_env_keys[i]);

		if (!x || (x == y) || (y && json_equal(x, y)))
			continue;
		/* Compared as a set of parameters, without the image's. */
		if (!strcmp(health_env_keys[i], "cmdline") &&
		    json_is_string(x) && json_is_string(y)) {
			n = cmdline_missing(json_string_value(x),
					    json_string_value(y), '-', a,
					    sizeof(a), 0);
			n = cmdline_missing(json_string_value(y),
					    json_string_value(x), '+', a,
					    sizeof(a), n);
			if (!n)
				continue;
			drift = true;
			if (len < size)
				len += snprintf(reason + len, size - len,
						"%scmdline %s", len ? "; " : "",
						a);
			continue;
		}
		drift = true;
		value_text(x, a, sizeof(a));
		value_text(y, b, sizeof(b));
		if (len < size)
			len += snprintf(reason + len, size - len,
					"%s%s %s → %s", len ? "; " : "",
					health_env_keys[i], a, b);
	}
	return drift;
}

/* The estimate of quantile @q ("p99") of side @side of a verdict, -1
 * when it has none (no runs, or among the overflows). */
static long side_est(json_t *v, const char *side, const char *q)
{
	json_t *d = json_object_get(v, "details");
	json_t *e = json_object_get(json_object_get(json_object_get(d ? d : v,
								    side),
						    q),
				    "est_us");

	return json_is_integer(e) && json_integer_value(e) >= 0 ?
		       (long)json_integer_value(e) :
		       -1;
}

json_t *health_reference_json(json_t *const *verdicts, size_t n)
{
	static const char *const sides[] = { "baseline", "candidate" };
	long p99 = -1, p999 = -1, x;
	size_t i, s;

	for (i = 0; i < n; i++)
		for (s = 0; s < 2; s++) {
			x = side_est(verdicts[i], sides[s], "p99");
			if (x > p99)
				p99 = x;
			x = side_est(verdicts[i], sides[s], "p99.9");
			if (x > p999)
				p999 = x;
		}
	if (p99 < 0 && p999 < 0)
		return NULL;
	return json_pack("{s:o, s:o}", "p99_us",
			 p99 >= 0 ? json_integer(p99) : json_null(), "p999_us",
			 p999 >= 0 ? json_integer(p999) : json_null());
}

static long ref_field(json_t *ref, const char *key)
{
	json_t *v = json_object_get(ref, key);

	return json_is_integer(v) && json_integer_value(v) >= 0 ?
		       (long)json_integer_value(v) :
		       -1;
}

int health_reference_get(json_t *calibration, struct health_reference *ref)
{
	json_t *r = json_object_get(calibration, "reference");

	ref->p99_us = ref_field(r, "p99_us");
	ref->p999_us = ref_field(r, "p999_us");
	return ref->p99_us < 0 && ref->p999_us < 0 ? -ENOENT : 0;
}

/* Whether @got is beyond what @ref allows; @what names it in @reason. */
static bool beyond(const char *what, long got, long ref, char *reason,
		   size_t size)
{
	long limit = ref * HEALTH_FACTOR + HEALTH_FLOOR_US;

	if (ref < 0 || got <= limit)
		return false;
	snprintf(reason, size,
		 "%s %ld us is beyond the calibration's %ld us (limit %d × %ld + %d = %ld us)",
		 what, got, ref, HEALTH_FACTOR, ref, HEALTH_FLOOR_US, limit);
	return true;
}

bool health_judge(const struct health_run *run, json_t *calibration,
		  char *reason, size_t size)
{
	struct health_reference ref;

	if (!run->status || strcmp(run->status, "complete")) {
		snprintf(reason, size, "the health run is %s",
			 run->status ? run->status : "missing");
		return false;
	}
	if (!calibration || json_is_null(calibration)) {
		snprintf(reason, size,
			 "the run is complete; the board has no calibration to compare with");
		return true;
	}
	if (health_reference_get(calibration, &ref)) {
		snprintf(reason, size,
			 "the run is complete; the calibration has no reference figures (run rtlab calibrate again)");
		return true;
	}
	if (run->p99_us < 0 || run->p999_us < 0) {
		snprintf(reason, size,
			 "the run's p99 or p99.9 lies among the overflows, beyond its histogram");
		return false;
	}
	if (beyond("p99", run->p99_us, ref.p99_us, reason, size) ||
	    beyond("p99.9", run->p999_us, ref.p999_us, reason, size))
		return false;
	snprintf(reason, size,
		 "p99 %ld us, p99.9 %ld us within the calibration's %ld, %ld us",
		 run->p99_us, run->p999_us, ref.p99_us, ref.p999_us);
	return true;
}
