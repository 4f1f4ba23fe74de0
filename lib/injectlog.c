// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading back, from a run's kernel log, what its injectors did: the
 * agent's stop line per injector and the module's own report, so a
 * manifest and a calibration record the injections that happened rather
 * than the ones asked for.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "injectlog.h"

#define STOP_KEY "rtlab-agent inject: stop mode="
#define MODULE_KEY "rtlab_inject: stopped after "
#define START_KEY "rtlab_inject: started on "

/* The value of " KEY=" in the line [@p, @end) as a new string, or NULL. */
static char *field(const char *p, const char *end, const char *key)
{
	char pat[32];
	const char *v, *e;
	size_t n;

	snprintf(pat, sizeof(pat), " %s=", key);
	n = strlen(pat);
	for (v = p; v + n <= end; v++)
		if (!memcmp(v, pat, n))
			break;
	if (v + n > end)
		return NULL;
	v += n;
	for (e = v; e < end && *e != ' ' && *e != '\n'; e++)
		;
	return strndup(v, (size_t)(e - v));
}

/* The count the module reported for @seed, or -1. */
static long long module_count(const char *text, size_t len, const char *seed)
{
	const char *p = text, *end = text + len, *nl;
	char tail[48];
	long long n;

	snprintf(tail, sizeof(tail), " injections (seed=%s)", seed);
	for (; p < end; p = nl + 1) {
		const char *m;
		char *after;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		m = memmem(p, (size_t)(nl - p), MODULE_KEY, strlen(MODULE_KEY));
		if (!m)
			continue;
		m += strlen(MODULE_KEY);
		n = strtoll(m, &after, 10);
		if (after != m && (size_t)(nl - after) >= strlen(tail) &&
		    !memcmp(after, tail, strlen(tail)))
			return n;
	}
	return -1;
}

/*
 * mode=tick: where and how often the module stalled, from its start line
 * for @seed ("... mode=tick probe=update_process_times tick_every=25
 * hz=250 ... seed=S ..."), set on @o.  Return: 0, -1 on ENOMEM.
 */
static int module_tick(const char *text, size_t len, const char *seed,
		       json_t *o)
{
	const char *p = text, *end = text + len, *nl;
	char *probe = NULL, *every = NULL, *hz = NULL, *s;
	int bad = 0;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (!memmem(p, (size_t)(nl - p), START_KEY, strlen(START_KEY)))
			continue;
		s = field(p, nl, "seed");
		if (s && !strcmp(s, seed)) {
			probe = field(p, nl, "probe");
			every = field(p, nl, "tick_every");
			hz = field(p, nl, "hz");
		}
		free(s);
		if (probe || every || hz)
			break;
	}
	bad |= json_object_set_new(o, "probe",
				   probe ? json_string(probe) : json_null());
	bad |= json_object_set_new(o, "tick_every",
				   every ? json_integer(strtoll(every, NULL,
								10)) :
					   json_null());
	bad |= json_object_set_new(o, "hz",
				   hz ? json_integer(strtoll(hz, NULL, 10)) :
					json_null());
	free(probe);
	free(every);
	free(hz);
	return bad ? -1 : 0;
}

/* Whether one of @commands is an injector started with --seed @seed. */
static int seed_of_run(json_t *commands, const char *seed)
{
	size_t i, n = strlen(seed);
	json_t *c;

	json_array_foreach(commands, i, c) {
		const char *s = json_string_value(c), *p;

		p = s && strstr(s, " inject ") ? strstr(s, " --seed ") : NULL;
		if (p && !strncmp(p + 8, seed, n) &&
		    (p[8 + n] == ' ' || p[8 + n] == '\0'))
			return 1;
	}
	return 0;
}

json_t *injectlog_parse(const char *text, size_t len, json_t *commands)
{
	const char *p = text, *end = text + len, *nl;
	json_t *out = json_array();

	if (!out)
		return NULL;
	for (; text && p < end; p = nl + 1) {
		const char *s;
		char *mode, *seed, *inj;
		json_t *o = NULL;
		long long n = -1, mn;
		int bad = 0;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		s = memmem(p, (size_t)(nl - p), STOP_KEY, strlen(STOP_KEY));
		if (!s)
			continue;
		s += strlen(STOP_KEY) - strlen(" mode=");
		mode = field(s, nl, "mode");
		seed = field(s, nl, "seed");
		inj = field(s, nl, "injections");
		if (inj)
			n = strtoll(inj, NULL, 10);
		if (mode && seed &&
		    (!commands || seed_of_run(commands, seed))) {
			o = json_pack("{s:s, s:s, s:o}", "mode", mode, "seed",
				      seed, "injections",
				      n >= 0 ? json_integer(n) : json_null());
			if (o && strcmp(mode, "user")) {
				mn = module_count(text, len, seed);
				json_object_set_new(o, "module_injections",
						    mn >= 0 ? json_integer(mn) :
							      json_null());
			}
			if (o && !strcmp(mode, "tick") &&
			    module_tick(text, len, seed, o))
				bad = 1;
		}
		free(mode);
		free(seed);
		free(inj);
		if (bad || (o && json_array_append_new(out, o))) {
			if (bad)
				json_decref(o);
			json_decref(out);
			return NULL;
		}
	}
	return out;
}
