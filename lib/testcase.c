// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Testcase definitions: parse a testcase YAML file (libyaml document API)
 * into struct testcase, with every default filled in, and turn it back
 * into JSON for the manifest.  Every key is known; anything else is an
 * error naming the file, line and key.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>
#include "config.h"

#include "run-limits.h"
#include "rttests.h"
#include "testcase.h"
#include "yamlmap.h"

#define TC_DEFAULT_DURATION_S 60
#define TC_DEFAULT_PRIORITY 95
#define TC_DEFAULT_INTERVAL_US 1000
#define TC_DEFAULT_HISTOGRAM_US 1000
#define TC_DEFAULT_BUFFER_KB 4096
#define TC_DEFAULT_IPERF3_PORT 5201
#define TC_DEFAULT_CHURN_LOOPS 200
#define TC_DEFAULT_SPIN_US 200
#define TC_DEFAULT_PERIOD_MS 100
#define TC_DEFAULT_JITTER_PCT 50
#define TC_MAX_DURATION_S (7 * 24 * 3600)

static const char *const load_kind_names[] = {
	[TC_LOAD_HACKBENCH] = "hackbench",
	[TC_LOAD_HACKBENCH_CHURN] = "hackbench-churn",
	[TC_LOAD_STRESS_NG] = "stress-ng",
	[TC_LOAD_NETWORK] = "network",
	[TC_LOAD_INJECTOR] = "injector",
};

static const char *const inject_mode_names[] = {
	[TC_INJECT_USER] = "user",
	[TC_INJECT_PREEMPT] = "preempt",
	[TC_INJECT_IRQ] = "irq",
	[TC_INJECT_TICK] = "tick",
};

bool testcase_needs_inject_module(const struct testcase *tc)
{
	size_t i;

	for (i = 0; i < tc->nloads; i++)
		if (tc->loads[i].kind == TC_LOAD_INJECTOR &&
		    tc->loads[i].inject_mode != TC_INJECT_USER &&
		    !tc->loads[i].module)
			return true;
	return false;
}

const char *tc_inject_mode_name(enum tc_inject_mode m)
{
	if ((size_t)m >=
	    sizeof(inject_mode_names) / sizeof(inject_mode_names[0]))
		return "?";
	return inject_mode_names[m];
}

const char *tc_net_mode_name(enum tc_net_mode m)
{
	switch (m) {
	case TC_NET_IPERF3:
		return "iperf3";
	case TC_NET_PING:
		return "ping";
	case TC_NET_IPERF3_NIC:
		return "iperf3-nic";
	}
	return "?";
}

const struct tc_load *testcase_nic_load(const struct testcase *tc)
{
	size_t i;

	for (i = 0; i < tc->nloads; i++)
		if (tc->loads[i].kind == TC_LOAD_NETWORK &&
		    tc->loads[i].net_mode == TC_NET_IPERF3_NIC)
			return &tc->loads[i];
	return NULL;
}

const char *tc_load_kind_name(enum tc_load_kind k)
{
	if ((size_t)k >= sizeof(load_kind_names) / sizeof(load_kind_names[0]))
		return "?";
	return load_kind_names[k];
}

/* Parser state: the document and where messages point. */
struct tcp {
	yaml_document_t *doc;
	const char *path;
	struct rtlab_err *err;
};

static int tc_fail(struct tcp *p, const yaml_node_t *n, const char *key,
		   const char *what)
{
	const char *got = "";

	if (n && n->type == YAML_SCALAR_NODE)
		got = (const char *)n->data.scalar.value;
	else if (n && n->type == YAML_SEQUENCE_NODE)
		got = "a list";
	else if (n && n->type == YAML_MAPPING_NODE)
		got = "a mapping";
	return rtlab_err_set(p->err, "%s:%lu: %s: expected %s, got '%s'",
			     p->path,
			     n ? (unsigned long)n->start_mark.line + 1 : 0, key,
			     what, got);
}

static const char *scalar(const yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *)n->data.scalar.value;
}

static int get_uint(struct tcp *p, const yaml_node_t *n, const char *key,
		    unsigned int lo, unsigned int hi, unsigned int *out)
{
	const char *s = scalar(n);
	char what[64], *end;
	unsigned long v;

	snprintf(what, sizeof(what), "an integer %u..%u", lo, hi);
	if (!s || !*s || *s == '-' || *s == '+')
		return tc_fail(p, n, key, what);
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return tc_fail(p, n, key, what);
	*out = (unsigned int)v;
	return 0;
}

static int get_bool(struct tcp *p, const yaml_node_t *n, const char *key,
		    bool *out)
{
	const char *s = scalar(n);

	if (s && (!strcmp(s, "true") || !strcmp(s, "yes"))) {
		*out = true;
		return 0;
	}
	if (s && (!strcmp(s, "false") || !strcmp(s, "no"))) {
		*out = false;
		return 0;
	}
	return tc_fail(p, n, key, "true or false");
}

static int get_str(struct tcp *p, const yaml_node_t *n, const char *key,
		   char **out)
{
	const char *s = scalar(n);

	if (!s || !*s)
		return tc_fail(p, n, key, "a non-empty string");
	free(*out);
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

static void strv_free(char **v)
{
	char **s;

	if (!v)
		return;
	for (s = v; *s; s++)
		free(*s);
	free(v);
}

/* A list of non-empty strings into a NULL-terminated array. */
static int get_strv(struct tcp *p, const yaml_node_t *n, const char *key,
		    char ***out, size_t *count)
{
	yaml_node_item_t *it;
	size_t i = 0, len;
	char **v;

	if (!n || n->type != YAML_SEQUENCE_NODE)
		return tc_fail(p, n, key, "a list of strings");
	len = n->data.sequence.items.top - n->data.sequence.items.start;
	v = calloc(len + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		const yaml_node_t *e = yaml_document_get_node(p->doc, *it);
		const char *s = scalar(e);

		if (!s || !*s) {
			strv_free(v);
			return tc_fail(p, e, key, "a list of strings");
		}
		v[i] = strdup(s);
		if (!v[i++]) {
			strv_free(v);
			return -ENOMEM;
		}
	}
	strv_free(*out);
	*out = v;
	*count = len;
	return 0;
}

static int strv_set(char ***out, size_t *count, const char *const *src)
{
	size_t n = 0, i;
	char **v;

	while (src[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		v[i] = strdup(src[i]);
		if (!v[i]) {
			strv_free(v);
			return -ENOMEM;
		}
	}
	strv_free(*out);
	*out = v;
	*count = n;
	return 0;
}

/* A cpuset such as "0", "1-3", "0,2-3". */
static bool cpuset_valid(const char *s)
{
	char *end;

	if (!*s)
		return false;
	while (*s) {
		unsigned long a, b;

		if (*s < '0' || *s > '9')
			return false;
		a = strtoul(s, &end, 10);
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (*s < '0' || *s > '9')
				return false;
			b = strtoul(s, &end, 10);
			s = end;
		}
		if (b < a || b > 4095)
			return false;
		if (*s == ',')
			s++;
		else if (*s)
			return false;
	}
	return true;
}

/* Walks a mapping: key string and value node for each pair, in order. */
#define for_each_pair(p, map, pair)                    \
	for ((pair) = (map)->data.mapping.pairs.start; \
	     (pair) < (map)->data.mapping.pairs.top; (pair)++)

static int key_of(struct tcp *p, const yaml_node_pair_t *pair,
		  const char *where, const char **key, const yaml_node_t **val)
{
	const yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);

	*key = scalar(k);
	*val = yaml_document_get_node(p->doc, pair->value);
	if (!*key)
		return tc_fail(p, k, where, "a plain key");
	return 0;
}

static int unknown_key(struct tcp *p, const yaml_node_t *val, const char *where,
		       const char *key, const char *known)
{
	return rtlab_err_set(p->err,
			     "%s:%lu: %s%s%s: unknown key (expected one of %s)",
			     p->path, (unsigned long)val->start_mark.line + 1,
			     where, *where ? "." : "", key, known);
}

/* A cyclictest option that ends the run before -D: a break or a count. */
static bool cuts_short(const char *arg)
{
	static const char *const opts[] = { "-b", "--breaktrace", "-l",
					    "--loops", NULL };
	size_t i, n;

	for (i = 0; opts[i]; i++) {
		n = strlen(opts[i]);
		/* "-b", "-b100", "--breaktrace", "--breaktrace=100" */
		if (!strncmp(arg, opts[i], n) &&
		    (!arg[n] || opts[i][1] != '-' || arg[n] == '='))
			return true;
	}
	return false;
}

static int parse_measurement(struct tcp *p, const yaml_node_t *map,
			     struct tc_measurement *m)
{
	static const char known[] =
		"tool, priority, interval_us, "
		"histogram_us, threads, affinity, mlockall, extra_args";
	yaml_node_pair_t *pair;
	size_t i;
	int ret;

	if (map->type != YAML_MAPPING_NODE)
		return tc_fail(p, map, "measurement", "a mapping");
	for_each_pair(p, map, pair)
	{
		const yaml_node_t *v;
		const char *k;

		ret = key_of(p, pair, "measurement", &k, &v);
		if (ret)
			return ret;
		if (!strcmp(k, "tool")) {
			enum rt_tool t;

			if (!scalar(v) || rt_tool_lookup(scalar(v), &t))
				return tc_fail(p, v, "measurement.tool",
					       "one of cyclictest, timerlat, "
					       "osnoise, signaltest, pmqtest, "
					       "cyclicdeadline, pi_stress");
			ret = get_str(p, v, "measurement.tool", &m->tool);
		} else if (!strcmp(k, "priority")) {
			ret = get_uint(p, v, "measurement.priority", 1, 99,
				       &m->priority);
		} else if (!strcmp(k, "interval_us")) {
			ret = get_uint(p, v, "measurement.interval_us",
				       TC_MIN_INTERVAL_US, TC_MAX_INTERVAL_US,
				       &m->interval_us);
		} else if (!strcmp(k, "histogram_us")) {
			/* the server refuses a wider range */
			ret = get_uint(p, v, "measurement.histogram_us", 10,
				       RTLAB_MAX_HIST_RANGE_US,
				       &m->histogram_us);
		} else if (!strcmp(k, "threads")) {
			if (scalar(v) && !strcmp(scalar(v), "all"))
				m->threads = 0;
			else if (get_uint(p, v, "measurement.threads", 1, 4096,
					  &m->threads))
				return tc_fail(p, v, "measurement.threads",
					       "'all' or an integer 1..4096");
			ret = 0;
		} else if (!strcmp(k, "affinity")) {
			if (!scalar(v) || !cpuset_valid(scalar(v)))
				return tc_fail(p, v, "measurement.affinity",
					       "a cpuset such as '1' or '0,2-3'");
			ret = get_str(p, v, "measurement.affinity",
				      &m->affinity);
		} else if (!strcmp(k, "mlockall")) {
			ret = get_bool(p, v, "measurement.mlockall",
				       &m->mlockall);
		} else if (!strcmp(k, "extra_args")) {
			ret = get_strv(p, v, "measurement.extra_args",
				       &m->extra_args, &m->nextra_args);
			for (i = 0; !ret && i < m->nextra_args; i++)
				if (cuts_short(m->extra_args[i]))
					return rtlab_err_set(
						p->err,
						"%s:%lu: measurement.extra_args: '%s' would end cyclictest before its duration (-b, --breaktrace, -l, --loops are refused): a run measures its whole duration",
						p->path,
						(unsigned long)v->start_mark
								.line +
							1,
						m->extra_args[i]);
		} else {
			return unknown_key(p, v, "measurement", k, known);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* One key of an injector load; -ENOENT for a key it does not take. */
static int parse_injector_key(struct tcp *p, const char *k,
			      const yaml_node_t *v, const char *key,
			      struct tc_load *l)
{
	unsigned int u;
	size_t i;
	int ret;

	if (!strcmp(k, "mode")) {
		for (i = 0; i < sizeof(inject_mode_names) /
					sizeof(inject_mode_names[0]);
		     i++)
			if (scalar(v) &&
			    !strcmp(scalar(v), inject_mode_names[i])) {
				l->inject_mode = i;
				return 0;
			}
		return tc_fail(p, v, key, "user, preempt, irq or tick");
	}
	if (!strcmp(k, "spin_us"))
		return get_uint(p, v, key, 1, 100000, &l->spin_us);
	if (!strcmp(k, "period_ms"))
		return get_uint(p, v, key, 1, 60000, &l->period_ms);
	if (!strcmp(k, "jitter_pct"))
		return get_uint(p, v, key, 0, 100, &l->jitter_pct);
	if (!strcmp(k, "seed")) {
		ret = get_uint(p, v, key, 0, UINT_MAX, &u);
		l->seed = u;
		return ret;
	}
	if (!strcmp(k, "cpus")) {
		if (!scalar(v) || !cpuset_valid(scalar(v)))
			return tc_fail(p, v, key,
				       "a cpuset such as '1' or '0,2-3'");
		return get_str(p, v, key, &l->cpus);
	}
	if (!strcmp(k, "module"))
		return get_str(p, v, key, &l->module);
	return -ENOENT;
}

static int parse_load(struct tcp *p, const yaml_node_t *map, size_t idx,
		      struct tc_load *l)
{
	static const char *const def_hackbench[] = { "-g", "4", "-l", "100000",
						     NULL };
	static const char *const def_stress[] = { "--cpu", "0", "--cpu-method",
						  "all", NULL };
	static const char *const def_none[] = { NULL };
	const yaml_node_t *name = NULL;
	yaml_node_pair_t *pair;
	char where[48], key[80];
	bool have_args = false;
	size_t i;
	int ret;

	snprintf(where, sizeof(where), "loads[%zu]", idx);
	if (map->type != YAML_MAPPING_NODE)
		return tc_fail(p, map, where, "a mapping with a 'name'");
	/* The name decides which other keys are allowed: find it first. */
	for_each_pair(p, map, pair)
	{
		const yaml_node_t *v;
		const char *k;

		ret = key_of(p, pair, where, &k, &v);
		if (ret)
			return ret;
		if (!strcmp(k, "name"))
			name = v;
	}
	if (!name)
		return rtlab_err_set(p->err, "%s:%lu: %s: missing key 'name'",
				     p->path,
				     (unsigned long)map->start_mark.line + 1,
				     where);
	for (i = 0; i < sizeof(load_kind_names) / sizeof(*load_kind_names); i++)
		if (scalar(name) && !strcmp(scalar(name), load_kind_names[i]))
			break;
	if (i == sizeof(load_kind_names) / sizeof(*load_kind_names)) {
		snprintf(key, sizeof(key), "%s.name", where);
		return tc_fail(p, name, key,
			       "one of hackbench, "
			       "hackbench-churn, stress-ng, network, injector");
	}
	l->kind = i;
	l->net_mode = TC_NET_IPERF3;
	l->port = TC_DEFAULT_IPERF3_PORT;
	l->loops = TC_DEFAULT_CHURN_LOOPS;
	l->inject_mode = TC_INJECT_USER;
	l->spin_us = TC_DEFAULT_SPIN_US;
	l->period_ms = TC_DEFAULT_PERIOD_MS;
	l->jitter_pct = TC_DEFAULT_JITTER_PCT;

	for_each_pair(p, map, pair)
	{
		const yaml_node_t *v;
		const char *k;

		ret = key_of(p, pair, where, &k, &v);
		if (ret)
			return ret;
		snprintf(key, sizeof(key), "%s.%s", where, k);
		if (!strcmp(k, "name")) {
			ret = 0;
		} else if (l->kind == TC_LOAD_INJECTOR && strcmp(k, "args")) {
			ret = parse_injector_key(p, k, v, key, l);
			if (ret == -ENOENT)
				goto unknown;
		} else if (!strcmp(k, "args") && l->kind != TC_LOAD_INJECTOR) {
			ret = get_strv(p, v, key, &l->args, &l->nargs);
			have_args = true;
		} else if (!strcmp(k, "mode") && l->kind == TC_LOAD_NETWORK) {
			if (scalar(v) && !strcmp(scalar(v), "iperf3"))
				l->net_mode = TC_NET_IPERF3;
			else if (scalar(v) && !strcmp(scalar(v), "ping"))
				l->net_mode = TC_NET_PING;
			else if (scalar(v) && !strcmp(scalar(v), "iperf3-nic"))
				l->net_mode = TC_NET_IPERF3_NIC;
			else
				return tc_fail(p, v, key,
					       "iperf3, ping or iperf3-nic");
			ret = 0;
		} else if (!strcmp(k, "port") && l->kind == TC_LOAD_NETWORK) {
			ret = get_uint(p, v, key, 1024, 65535, &l->port);
		} else if (!strcmp(k, "loops") &&
			   l->kind == TC_LOAD_HACKBENCH_CHURN) {
			ret = get_uint(p, v, key, 1, 1000000, &l->loops);
		} else {
unknown:;
			const char *known =
				l->kind == TC_LOAD_NETWORK ?
					"name, mode, port, args" :
				l->kind == TC_LOAD_HACKBENCH_CHURN ?
					"name, loops, args" :
				l->kind == TC_LOAD_INJECTOR ?
					"name, mode, spin_us, "
					"period_ms, jitter_pct, seed, cpus, module" :
					"name, args";

			return rtlab_err_set(
				p->err,
				"%s:%lu: %s: unknown key for load '%s' (expected one of %s)",
				p->path, (unsigned long)v->start_mark.line + 1,
				key, load_kind_names[l->kind], known);
		}
		if (ret)
			return ret;
	}
	if (l->kind == TC_LOAD_INJECTOR &&
	    (unsigned long long)l->spin_us * 2 >
		    (unsigned long long)l->period_ms * 1000)
		return rtlab_err_set(
			p->err,
			"%s:%lu: %s.spin_us: expected at most half of period_ms (%u ms), got %u us",
			p->path, (unsigned long)map->start_mark.line + 1, where,
			l->period_ms, l->spin_us);
	if (have_args)
		return 0;
	switch (l->kind) {
	case TC_LOAD_HACKBENCH:
		return strv_set(&l->args, &l->nargs, def_hackbench);
	case TC_LOAD_STRESS_NG:
		return strv_set(&l->args, &l->nargs, def_stress);
	default:
		return strv_set(&l->args, &l->nargs, def_none);
	}
}

static int parse_loads(struct tcp *p, const yaml_node_t *seq,
		       struct testcase *tc)
{
	yaml_node_item_t *it;
	size_t n;
	int ret;

	if (seq->type != YAML_SEQUENCE_NODE)
		return tc_fail(p, seq, "loads", "a list of loads");
	n = seq->data.sequence.items.top - seq->data.sequence.items.start;
	free(tc->loads);
	tc->nloads = 0;
	tc->loads = calloc(n ? n : 1, sizeof(*tc->loads));
	if (!tc->loads)
		return -ENOMEM;
	for (it = seq->data.sequence.items.start;
	     it < seq->data.sequence.items.top; it++) {
		const yaml_node_t *e = yaml_document_get_node(p->doc, *it);

		/* Counted first so cleanup frees a half-parsed load. */
		tc->nloads++;
		ret = parse_load(p, e, tc->nloads - 1,
				 &tc->loads[tc->nloads - 1]);
		if (ret)
			return ret;
		/* One NIC, one forwarded port: one load from outside. */
		if (tc->loads[tc->nloads - 1].net_mode == TC_NET_IPERF3_NIC &&
		    tc->loads[tc->nloads - 1].kind == TC_LOAD_NETWORK &&
		    testcase_nic_load(tc) != &tc->loads[tc->nloads - 1])
			return rtlab_err_set(p->err,
					     "%s:%lu: loads[%zu]: only one network load "
					     "may have mode iperf3-nic",
					     p->path,
					     (unsigned long)e->start_mark.line +
						     1,
					     tc->nloads - 1);
	}
	return 0;
}

static bool event_valid(const char *ev)
{
	const char *colon = strchr(ev, ':');
	size_t sys;

	if (!colon || colon == ev || !colon[1] || strchr(colon + 1, ':'))
		return false;
	sys = colon - ev;
	if (strspn(ev, "abcdefghijklmnopqrstuvwxyz0123456789_") != sys)
		return false;
	colon++;
	return strspn(colon, "abcdefghijklmnopqrstuvwxyz0123456789_*") ==
	       strlen(colon);
}

static int parse_trace(struct tcp *p, const yaml_node_t *map,
		       struct tc_trace *t)
{
	static const char known[] =
		"events, optional_events, buffer_kb, capture";
	yaml_node_pair_t *pair;
	size_t i;
	int ret;

	if (map->type != YAML_MAPPING_NODE)
		return tc_fail(p, map, "trace", "a mapping");
	t->enabled = true;
	for_each_pair(p, map, pair)
	{
		const yaml_node_t *v;
		const char *k;

		ret = key_of(p, pair, "trace", &k, &v);
		if (ret)
			return ret;
		if (!strcmp(k, "events") || !strcmp(k, "optional_events")) {
			bool opt = k[0] == 'o';
			char ***ev = opt ? &t->optional_events : &t->events;
			size_t *nev = opt ? &t->noptional_events : &t->nevents;

			ret = get_strv(p, v,
				       opt ? "trace.optional_events" :
					     "trace.events",
				       ev, nev);
			for (i = 0; !ret && i < *nev; i++)
				if (!event_valid((*ev)[i]))
					return rtlab_err_set(
						p->err,
						"%s:%lu: trace.%s: expected 'subsystem:event' (e.g. irq:softirq_entry, sched:*), got '%s'",
						p->path,
						(unsigned long)v->start_mark
								.line +
							1,
						k, (*ev)[i]);
		} else if (!strcmp(k, "buffer_kb")) {
			ret = get_uint(p, v, "trace.buffer_kb", 64, 1048576,
				       &t->buffer_kb);
		} else if (!strcmp(k, "capture")) {
			if (scalar(v) && !strcmp(scalar(v), "worst_wakeup"))
				t->capture = TC_CAPTURE_WORST_WAKEUP;
			else if (scalar(v) && !strcmp(scalar(v), "end_of_run"))
				t->capture = TC_CAPTURE_END_OF_RUN;
			else
				return tc_fail(p, v, "trace.capture",
					       "worst_wakeup or end_of_run");
		} else if (!strcmp(k, "break_us")) {
			/* cyclictest -b ended runs at their first spike. */
			return rtlab_err_set(
				p->err,
				"%s:%lu: trace.break_us is no longer taken: a run measures its whole duration and the trace of its worst wakeup is kept by a snapshot; remove the key",
				p->path, (unsigned long)v->start_mark.line + 1);
		} else {
			return unknown_key(p, v, "trace", k, known);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* -- extras: a developer's modules, files and commands ------------------- */

const char *testcase_module_file(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

bool testcase_has_extras(const struct testcase *tc)
{
	const struct tc_extras *x = &tc->extras;

	return x->nmodules || x->nfiles || x->nsetup || x->nteardown;
}

char *testcase_extra_path(const struct testcase *tc, const char *rel)
{
	const char *slash = tc->path ? strrchr(tc->path, '/') : NULL;
	char *out;

	if (rel[0] == '/' || !slash)
		return strdup(rel);
	if (asprintf(&out, "%.*s/%s", (int)(slash - tc->path), tc->path, rel) <
	    0)
		return NULL;
	return out;
}

/* A path with a ".." component could name anything; one with a newline
 * or a control character would garble the board's logs. */
static bool extra_path_valid(const char *s)
{
	const char *c;

	for (c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	return strcmp(s, "..") && strncmp(s, "../", 3) && !strstr(s, "/../") &&
	       !(strlen(s) >= 3 && !strcmp(s + strlen(s) - 3, "/.."));
}

/* Where a file may go: an absolute path outside what the board itself
 * provides (/job carries the job, /proc, /sys and /dev are the kernel's). */
static bool extra_dest_valid(const char *s)
{
	static const char *const refused[] = { "/job", "/proc", "/sys", "/dev",
					       "/init" };
	size_t i, n;

	if (s[0] != '/' || !s[1] || s[strlen(s) - 1] == '/' ||
	    !extra_path_valid(s))
		return false;
	for (i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		n = strlen(refused[i]);
		if (!strncmp(s, refused[i], n) && (!s[n] || s[n] == '/'))
			return false;
	}
	return true;
}

static size_t seq_len(const yaml_node_t *n)
{
	return n->data.sequence.items.top - n->data.sequence.items.start;
}

static int parse_extra_module(struct tcp *p, const yaml_node_t *map, size_t idx,
			      struct tc_module *m)
{
	yaml_node_pair_t *pair;
	char where[48], key[80];
	const char *base;
	int ret;

	snprintf(where, sizeof(where), "extras.modules[%zu]", idx);
	if (map->type == YAML_SCALAR_NODE)
		ret = get_str(p, map, where, &m->path);
	else if (map->type != YAML_MAPPING_NODE)
		return tc_fail(p, map, where, "a mapping with a 'path'");
	else
		ret = 0;
	for (pair = map->type == YAML_MAPPING_NODE ?
			    map->data.mapping.pairs.start :
			    NULL;
	     !ret && pair && pair < map->data.mapping.pairs.top; pair++) {
		const yaml_node_t *v;
		const char *k;

		ret = key_of(p, pair, where, &k, &v);
		if (ret)
			return ret;
		snprintf(key, sizeof(key), "%s.%s", where, k);
		if (!strcmp(k, "path"))
			ret = get_str(p, v, key, &m->path);
		else if (!strcmp(k, "params"))
			ret = get_str(p, v, key, &m->params);
		else
			return unknown_key(p, v, where, k, "path, params");
		if (!ret && m->params && strpbrk(m->params, "\n\r\t'\"\\`$"))
			return tc_fail(p, v, key,
				       "insmod parameters (name=value separated "
				       "by spaces, no quotes or shell characters)");
	}
	if (ret)
		return ret;
	if (!m->path)
		return rtlab_err_set(p->err, "%s:%lu: %s: missing key 'path'",
				     p->path,
				     (unsigned long)map->start_mark.line + 1,
				     where);
	base = testcase_module_file(m->path);
	snprintf(key, sizeof(key), "%s.path", where);
	if (!extra_path_valid(m->path) || strlen(base) < 4 ||
	    strcmp(base + strlen(base) - 3, ".ko") ||
	    strspn(base, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789-_.") != strlen(base))
		return rtlab_err_set(
			p->err,
			"%s:%lu: %s: expected a kernel module file NAME.ko (letters, digits, '-', '_'; no '..'), got '%s'",
			p->path, (unsigned long)map->start_mark.line + 1, key,
			m->path);
	return 0;
}

static int parse_extra_file(struct tcp *p, const yaml_node_t *map, size_t idx,
			    struct tc_file *f)
{
	yaml_node_pair_t *pair;
	char where[48], key[80];
	int ret;

	snprintf(where, sizeof(where), "extras.files[%zu]", idx);
	if (map->type != YAML_MAPPING_NODE)
		return tc_fail(p, map, where,
			       "a mapping with 'src' and 'dest'");
	for_each_pair(p, map, pair)
	{
		const yaml_node_t *v;
		const char *k;

		ret = key_of(p, pair, where, &k, &v);
		if (ret)
			return ret;
		snprintf(key, sizeof(key), "%s.%s", where, k);
		if (!strcmp(k, "src")) {
			ret = get_str(p, v, key, &f->src);
			if (!ret && !extra_path_valid(f->src))
				return tc_fail(p, v, key,
					       "a file path without '..'");
		} else if (!strcmp(k, "dest")) {
			ret = get_str(p, v, key, &f->dest);
			if (!ret && !extra_dest_valid(f->dest))
				return tc_fail(
					p, v, key,
					"an absolute file path on the board, not under /job, /proc, /sys or /dev, without '..'");
		} else {
			return unknown_key(p, v, where, k, "src, dest");
		}
		if (ret)
			return ret;
	}
	if (!f->src || !f->dest)
		return rtlab_err_set(p->err, "%s:%lu: %s: missing key '%s'",
				     p->path,
				     (unsigned long)map->start_mark.line + 1,
				     where, f->src ? "dest" : "src");
	return 0;
}

static int parse_extras(struct tcp *p, const yaml_node_t *map,
			struct tc_extras *x)
{
	static const char known[] = "modules, files, setup, teardown";
	yaml_node_pair_t *pair;
	yaml_node_item_t *it;
	size_t i, j;
	int ret;

	if (map->type != YAML_MAPPING_NODE)
		return tc_fail(p, map, "extras", "a mapping");
	for_each_pair(p, map, pair)
	{
		const yaml_node_t *v;
		const char *k;
		char key[48];

		ret = key_of(p, pair, "extras", &k, &v);
		if (ret)
			return ret;
		snprintf(key, sizeof(key), "extras.%s", k);
		if (strcmp(k, "modules") && strcmp(k, "files") &&
		    strcmp(k, "setup") && strcmp(k, "teardown"))
			return unknown_key(p, v, "extras", k, known);
		if (v->type != YAML_SEQUENCE_NODE)
			return tc_fail(p, v, key, "a list");
		if (seq_len(v) > TC_MAX_EXTRAS)
			return rtlab_err_set(p->err,
					     "%s:%lu: %s: at most %u entries",
					     p->path,
					     (unsigned long)v->start_mark.line +
						     1,
					     key, TC_MAX_EXTRAS);
		if (!strcmp(k, "setup")) {
			ret = get_strv(p, v, key, &x->setup, &x->nsetup);
		} else if (!strcmp(k, "teardown")) {
			ret = get_strv(p, v, key, &x->teardown, &x->nteardown);
		} else if (!strcmp(k, "modules")) {
			x->modules =
				calloc(seq_len(v) + 1, sizeof(*x->modules));
			if (!x->modules)
				return -ENOMEM;
			for (it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++) {
				x->nmodules++;
				ret = parse_extra_module(
					p, yaml_document_get_node(p->doc, *it),
					x->nmodules - 1,
					&x->modules[x->nmodules - 1]);
				if (ret)
					return ret;
			}
		} else {
			x->files = calloc(seq_len(v) + 1, sizeof(*x->files));
			if (!x->files)
				return -ENOMEM;
			for (it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++) {
				x->nfiles++;
				ret = parse_extra_file(
					p, yaml_document_get_node(p->doc, *it),
					x->nfiles - 1,
					&x->files[x->nfiles - 1]);
				if (ret)
					return ret;
			}
		}
		if (ret)
			return ret;
	}
	/* One name on the board for each: a second would overwrite the first. */
	for (i = 0; i < x->nmodules; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(testcase_module_file(x->modules[i].path),
				    testcase_module_file(x->modules[j].path)))
				return rtlab_err_set(
					p->err,
					"%s: extras.modules[%zu]: '%s' has the file name of extras.modules[%zu]",
					p->path, i, x->modules[i].path, j);
	for (i = 0; i < x->nfiles; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(x->files[i].dest, x->files[j].dest))
				return rtlab_err_set(
					p->err,
					"%s: extras.files[%zu]: dest '%s' is also extras.files[%zu]'s",
					p->path, i, x->files[i].dest, j);
	return 0;
}

static int parse_root(struct tcp *p, const yaml_node_t *root,
		      struct testcase *tc)
{
	static const char known[] = "name, description, duration_s, "
				    "measurement, loads, trace, extras";
	yaml_node_pair_t *pair;
	int ret;

	if (!root || root->type != YAML_MAPPING_NODE)
		return tc_fail(p, root, "(top level)", "a mapping");
	for_each_pair(p, root, pair)
	{
		const yaml_node_t *v;
		const char *k;

		ret = key_of(p, pair, "(top level)", &k, &v);
		if (ret)
			return ret;
		if (!strcmp(k, "name")) {
			ret = get_str(p, v, "name", &tc->name);
			if (!ret && strspn(tc->name,
					   "abcdefghijklmnopqrstuvwxyz"
					   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789-_.") != strlen(tc->name))
				return tc_fail(p, v, "name",
					       "letters, digits, '-', '_', '.'");
		} else if (!strcmp(k, "description")) {
			ret = get_str(p, v, "description", &tc->description);
		} else if (!strcmp(k, "duration_s")) {
			ret = get_uint(p, v, "duration_s", 1, TC_MAX_DURATION_S,
				       &tc->duration_s);
		} else if (!strcmp(k, "measurement")) {
			ret = parse_measurement(p, v, &tc->measurement);
		} else if (!strcmp(k, "loads")) {
			ret = parse_loads(p, v, tc);
		} else if (!strcmp(k, "trace")) {
			ret = parse_trace(p, v, &tc->trace);
		} else if (!strcmp(k, "extras")) {
			ret = parse_extras(p, v, &tc->extras);
		} else {
			return unknown_key(p, v, "", k, known);
		}
		if (ret)
			return ret;
	}
	if (!tc->name)
		return rtlab_err_set(p->err, "%s: missing key 'name'", p->path);
	return 0;
}

/* A key given twice in one mapping would be parsed twice (the second
 * silently winning, and leaking what the first allocated): refuse it
 * anywhere in the document, naming the key and both lines. */
static int check_duplicate_keys(struct tcp *p)
{
	const yaml_node_pair_t *a, *b;
	const yaml_node_t *n, *ka, *kb;

	for (n = p->doc->nodes.start; n < p->doc->nodes.top; n++) {
		if (n->type != YAML_MAPPING_NODE)
			continue;
		for_each_pair(p, n, a)
		{
			ka = yaml_document_get_node(p->doc, a->key);
			if (!scalar(ka))
				continue;
			for (b = n->data.mapping.pairs.start; b < a; b++) {
				kb = yaml_document_get_node(p->doc, b->key);
				if (scalar(kb) &&
				    !strcmp(scalar(ka), scalar(kb)))
					return rtlab_err_set(
						p->err,
						"%s:%lu: duplicate key '%s' (first at line %lu)",
						p->path,
						(unsigned long)ka->start_mark
								.line +
							1,
						scalar(ka),
						(unsigned long)kb->start_mark
								.line +
							1);
			}
		}
	}
	return 0;
}

static int tc_defaults(struct testcase *tc, const char *path)
{
	struct tc_measurement *m = &tc->measurement;

	memset(tc, 0, sizeof(*tc));
	tc->path = strdup(path);
	m->tool = strdup("cyclictest");
	if (!tc->path || !m->tool)
		return -ENOMEM;
	tc->duration_s = TC_DEFAULT_DURATION_S;
	m->priority = TC_DEFAULT_PRIORITY;
	m->interval_us = TC_DEFAULT_INTERVAL_US;
	m->histogram_us = TC_DEFAULT_HISTOGRAM_US;
	m->mlockall = true;
	tc->trace.buffer_kb = TC_DEFAULT_BUFFER_KB;
	return 0;
}

int testcase_parse(const char *path, const char *text, size_t len,
		   struct testcase *tc, struct rtlab_err *err)
{
	yaml_document_t doc;
	struct tcp p = { .doc = &doc, .path = path, .err = err };
	int ret;

	ret = tc_defaults(tc, path);
	if (ret)
		return rtlab_err_seterr(err, -ret, "%s: out of memory", path);
	ret = yaml_doc_load(path, NULL, text, len, &doc, err);
	if (ret)
		return ret;
	ret = check_duplicate_keys(&p);
	if (!ret)
		ret = parse_root(&p, yaml_document_get_root_node(&doc), tc);
	if (ret == -ENOMEM)
		rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
	yaml_document_delete(&doc);
	return ret;
}

int testcase_load(const char *path, struct testcase *tc, struct rtlab_err *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	memset(tc, 0, sizeof(*tc));
	f = fopen(path, "r");
	if (!f)
		return rtlab_err_seterr(err, errno, "%s: cannot open: %s", path,
					strerror(errno));
	text = malloc(1 << 20);
	if (!text) {
		fclose(f);
		return rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
	}
	len = fread(text, 1, (1 << 20) - 1, f);
	if (ferror(f) || !feof(f)) {
		ret = rtlab_err_set(err,
				    "%s: cannot read (or larger than 1 MiB)",
				    path);
		goto out;
	}
	ret = testcase_parse(path, text, len, tc, err);
out:
	free(text);
	fclose(f);
	return ret;
}

void testcase_cleanup(struct testcase *tc)
{
	size_t i;

	if (!tc)
		return;
	free(tc->path);
	free(tc->name);
	free(tc->description);
	free(tc->measurement.tool);
	free(tc->measurement.affinity);
	strv_free(tc->measurement.extra_args);
	for (i = 0; i < tc->nloads; i++) {
		strv_free(tc->loads[i].args);
		free(tc->loads[i].cpus);
		free(tc->loads[i].module);
	}
	free(tc->loads);
	strv_free(tc->trace.events);
	strv_free(tc->trace.optional_events);
	for (i = 0; i < tc->extras.nmodules; i++) {
		free(tc->extras.modules[i].path);
		free(tc->extras.modules[i].params);
	}
	free(tc->extras.modules);
	for (i = 0; i < tc->extras.nfiles; i++) {
		free(tc->extras.files[i].src);
		free(tc->extras.files[i].dest);
	}
	free(tc->extras.files);
	strv_free(tc->extras.setup);
	strv_free(tc->extras.teardown);
	memset(tc, 0, sizeof(*tc));
}

static json_t *strv_json(char *const *v)
{
	json_t *a = json_array();

	for (; a && v && *v; v++)
		if (json_array_append_new(a, json_string(*v))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *extras_json(const struct testcase *tc)
{
	const struct tc_extras *x = &tc->extras;
	json_t *mods = json_array(), *files = json_array();
	size_t i;
	int bad = !mods || !files;

	for (i = 0; !bad && i < x->nmodules; i++)
		bad |= json_array_append_new(mods,
					     json_pack("{s:s, s:s?}", "path",
						       x->modules[i].path,
						       "params",
						       x->modules[i].params));
	for (i = 0; !bad && i < x->nfiles; i++)
		bad |= json_array_append_new(files,
					     json_pack("{s:s, s:s}", "src",
						       x->files[i].src, "dest",
						       x->files[i].dest));
	if (bad) {
		json_decref(mods);
		json_decref(files);
		return NULL;
	}
	return json_pack("{s:o, s:o, s:o, s:o}", "modules", mods, "files",
			 files, "setup", strv_json(x->setup), "teardown",
			 strv_json(x->teardown));
}

json_t *testcase_to_json(const struct testcase *tc)
{
	const struct tc_measurement *m = &tc->measurement;
	json_t *root, *loads;
	size_t i;
	int bad = 0;

	loads = json_array();
	for (i = 0; loads && i < tc->nloads; i++) {
		const struct tc_load *l = &tc->loads[i];
		json_t *o = json_pack("{s:s, s:o}", "name",
				      tc_load_kind_name(l->kind), "args",
				      strv_json(l->args));

		if (o && l->kind == TC_LOAD_NETWORK) {
			bad |= json_object_set_new(
				o, "mode",
				json_string(tc_net_mode_name(l->net_mode)));
			bad |= json_object_set_new(o, "port",
						   json_integer(l->port));
		}
		if (o && l->kind == TC_LOAD_HACKBENCH_CHURN)
			bad |= json_object_set_new(o, "loops",
						   json_integer(l->loops));
		if (o && l->kind == TC_LOAD_INJECTOR)
			bad |= json_object_update_new(
				o,
				json_pack("{s:s, s:I, s:I, s:I, s:I, s:s?, s:s?}",
					  "mode",
					  tc_inject_mode_name(l->inject_mode),
					  "spin_us", (json_int_t)l->spin_us,
					  "period_ms", (json_int_t)l->period_ms,
					  "jitter_pct",
					  (json_int_t)l->jitter_pct, "seed",
					  (json_int_t)l->seed, "cpus", l->cpus,
					  "module", l->module));
		if (!o || json_array_append_new(loads, o))
			bad = 1;
	}
	root = json_pack("{s:s, s:s?, s:I, s:{s:s, s:I, s:I, s:I, s:o, s:s?, "
			 "s:b, s:o}, s:o}",
			 "name", tc->name, "description", tc->description,
			 "duration_s", (json_int_t)tc->duration_s,
			 "measurement", "tool", m->tool, "priority",
			 (json_int_t)m->priority, "interval_us",
			 (json_int_t)m->interval_us, "histogram_us",
			 (json_int_t)m->histogram_us, "threads",
			 m->threads ? json_integer(m->threads) :
				      json_string("all"),
			 "affinity", m->affinity, "mlockall", m->mlockall,
			 "extra_args", strv_json(m->extra_args), "loads",
			 loads);
	if (root && tc->trace.enabled) {
		json_t *t = json_pack("{s:o, s:o, s:I}", "events",
				      strv_json(tc->trace.events),
				      "optional_events",
				      strv_json(tc->trace.optional_events),
				      "buffer_kb",
				      (json_int_t)tc->trace.buffer_kb);

		/* Only when not the default: definitions stored before the
		 * key existed stay the same. */
		if (t && tc->trace.capture == TC_CAPTURE_END_OF_RUN)
			bad |= json_object_set_new(t, "capture",
						   json_string("end_of_run"));
		bad |= json_object_set_new(root, "trace", t);
	}
	/* Only when there are some: definitions without stay the same. */
	if (root && testcase_has_extras(tc))
		bad |= json_object_set_new(root, "extras", extras_json(tc));
	if (bad) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static void tools_add(const char **v, size_t *n, const char *tool)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(v[i], tool))
			return;
	v[(*n)++] = tool;
}

const char **testcase_tools(const struct testcase *tc)
{
	const char **v = calloc(tc->nloads + 2, sizeof(*v));
	size_t i, n = 0;
	enum rt_tool t = RT_TOOL_CYCLICTEST;

	if (!v)
		return NULL;
	if (rt_tool_lookup(tc->measurement.tool, &t))
		t = RT_TOOL_CYCLICTEST;
	tools_add(v, &n, rt_tool_program(t));
	for (i = 0; i < tc->nloads; i++) {
		const struct tc_load *l = &tc->loads[i];

		switch (l->kind) {
		case TC_LOAD_HACKBENCH:
		case TC_LOAD_HACKBENCH_CHURN:
			tools_add(v, &n, "hackbench");
			break;
		case TC_LOAD_STRESS_NG:
			tools_add(v, &n, "stress-ng");
			break;
		case TC_LOAD_NETWORK:
			tools_add(v, &n,
				  l->net_mode == TC_NET_PING ? "ping" :
							       "iperf3");
			break;
		case TC_LOAD_INJECTOR:
			/* rtlab-agent itself: nothing to look for. */
			break;
		}
	}
	return v;
}

/* Append "@prefix@key" to @out; returns nonzero when out of memory. */
static int diff_add(json_t *out, const char *prefix, const char *key)
{
	char path[256];

	snprintf(path, sizeof(path), "%s%s", prefix, key);
	return json_array_append_new(out, json_string(path));
}

/* The keys of @a and @b whose values differ, in @a's order then @b's. */
static int diff_objects(const json_t *a, const json_t *b, const char *prefix,
			bool descend, json_t *out)
{
	const char *key;
	json_t *va, *vb;
	char sub[128];
	int bad = 0;

	json_object_foreach((json_t *)a, key, va) {
		if (!strcmp(key, "description"))
			continue;
		vb = json_object_get(b, key);
		/* A null value says no more than a missing key. */
		if ((vb && json_equal(va, vb)) || (json_is_null(va) && !vb))
			continue;
		if (descend && json_is_object(va) && json_is_object(vb)) {
			snprintf(sub, sizeof(sub), "%s%s.", prefix, key);
			bad |= diff_objects(va, vb, sub, false, out);
		} else {
			bad |= diff_add(out, prefix, key);
		}
	}
	json_object_foreach((json_t *)b, key, vb) {
		if (!strcmp(key, "description") || json_object_get(a, key) ||
		    json_is_null(vb))
			continue;
		bad |= diff_add(out, prefix, key);
	}
	return bad;
}

json_t *testcase_json_diff(const json_t *lab, const json_t *ran)
{
	json_t *out = json_array();
	json_t *empty = NULL;

	if (!out)
		return NULL;
	if (!json_is_object(ran))
		return out;
	if (!json_is_object(lab))
		lab = empty = json_object();
	if (!lab || diff_objects(lab, ran, "", true, out)) {
		json_decref(out);
		out = NULL;
	}
	json_decref(empty);
	return out;
}

int testcase_lab_load(const char *name, json_t **out, struct rtlab_err *err)
{
	struct testcase tc = { 0 };
	char *rel = NULL, *path = NULL;
	int ret;

	*out = NULL;
	/* A name, never a path: the lab's files are testcases/NAME.yaml. */
	if (!name || !*name || name[0] == '.' || strchr(name, '/') ||
	    strlen(name) > RTLAB_MAX_NAME_LEN)
		return rtlab_err_seterr(err, ENOENT,
					"testcase '%s': not a lab testcase "
					"name",
					name ? name : "");
	if (asprintf(&rel, "testcases/%s.yaml", name) < 0 ||
	    !(path = rtlab_data_path(rel))) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	if (access(path, F_OK)) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "testcase '%s': no lab definition %s",
				       name, path);
		goto out;
	}
	ret = testcase_load(path, &tc, err);
	if (ret)
		goto out;
	if (strcmp(tc.name, name)) {
		ret = rtlab_err_set(err,
				    "%s: name '%s' is not the file's name "
				    "'%s'",
				    path, tc.name, name);
		goto out;
	}
	*out = testcase_to_json(&tc);
	if (!*out)
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
out:
	testcase_cleanup(&tc);
	free(path);
	free(rel);
	return ret;
}

char *testcase_flags_text(const json_t *flags)
{
	const json_t *why = json_object_get(flags, "testcase_not_in_lab");
	const json_t *diff = json_object_get(flags, "testcase_mismatch");
	const json_t *f;
	char *out = NULL;
	size_t len = 0, i;
	FILE *m;

	if (!why && !json_array_size(diff))
		return NULL;
	m = open_memstream(&out, &len);
	if (!m)
		return NULL;
	if (why)
		fprintf(m, "not a lab testcase (%s)",
			json_is_string(why) ? json_string_value(why) :
					      "no lab definition");
	if (json_array_size(diff)) {
		fprintf(m, "%stestcase differs from the lab's definition:",
			why ? "; " : "");
		json_array_foreach(diff, i, f)
			fprintf(m, "%s %s", i ? "," : "",
				json_is_string(f) ? json_string_value(f) : "?");
	}
	fprintf(m, "; verdicts use the lab's parameters");
	if (fclose(m)) {
		free(out);
		return NULL;
	}
	return out;
}
