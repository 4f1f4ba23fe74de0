// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The farm's nightly tick: the schedule, the runs each kernel of a tree
 * still needs on each board and testcase, and telling people about
 * regressions (docs/farm.md).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../db/db-farm.h"
#include "../db/db-jobs.h"
#include "../db/db-testcases.h"
#include "../db/db-trees.h"
#include "../db/db.h"
#include "../kernels/tree.h"
#include "bisect.h"
#include "farm.h"
#include "health.h"
#include "jobs.h"
#include "notify.h"
#include "regress.h"
#include "strbuf.h"
#include "submission.h"
#include "verdict.h"
#include "yamlmap.h"

#define FARM_DEFAULT_KERNELS 2
#define FARM_MAX_KERNELS 50

/* A YAML node as JSON: scalars stay strings, with their line kept apart. */
static json_t *node_json(yaml_document_t *d, yaml_node_t *n)
{
	json_t *j = NULL;

	if (!n)
		return NULL;
	if (n->type == YAML_SCALAR_NODE) {
		return json_stringn((const char *)n->data.scalar.value,
				    n->data.scalar.length);
	} else if (n->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it;

		j = json_array();
		for (it = n->data.sequence.items.start;
		     j && it < n->data.sequence.items.top; it++)
			if (json_array_append_new(
				    j,
				    node_json(d,
					      yaml_document_get_node(d, *it))))
				return json_decref(j), NULL;
	} else if (n->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *p;

		j = json_object();
		for (p = n->data.mapping.pairs.start;
		     j && p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(d, p->key);

			if (!k || k->type != YAML_SCALAR_NODE ||
			    json_object_set_new(
				    j, (const char *)k->data.scalar.value,
				    node_json(d,
					      yaml_document_get_node(d,
								     p->value))))
				return json_decref(j), NULL;
		}
	}
	return j;
}

static char **strv_dup(json_t *a, const char *what, const char *path,
		       size_t idx, bool may_be_empty, struct rtlab_err *err)
{
	char **v;
	json_t *x;
	size_t i;

	if (json_is_string(a)) { /* one name without brackets */
		v = calloc(2, sizeof(*v));
		if (v && !(v[0] = strdup(json_string_value(a))))
			return free(v), NULL;
		return v;
	}
	if (!json_is_array(a) || (!may_be_empty && !json_array_size(a))) {
		rtlab_err_set(err,
			      "%s: matrix[%zu].%s: expected a list of names",
			      path, idx, what);
		return NULL;
	}
	v = calloc(json_array_size(a) + 1, sizeof(*v));
	if (!v)
		return NULL;
	json_array_foreach(a, i, x) {
		if (!json_is_string(x) || !*json_string_value(x)) {
			rtlab_err_set(err,
				      "%s: matrix[%zu].%s[%zu]: expected a "
				      "name",
				      path, idx, what, i);
			goto fail;
		}
		v[i] = strdup(json_string_value(x));
		if (!v[i])
			goto fail;
	}
	return v;
fail:
	for (i = 0; v[i]; i++)
		free(v[i]);
	free(v);
	return NULL;
}

static void strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int uint_field(json_t *o, const char *key, const char *path, size_t idx,
		      unsigned long min, unsigned long max, unsigned int *out,
		      struct rtlab_err *err)
{
	json_t *x = json_object_get(o, key);
	const char *s;
	char *end;
	unsigned long v;

	if (!x)
		return 0;
	s = json_string_value(x);
	errno = 0;
	v = s ? strtoul(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || v < min || v > max)
		return rtlab_err_set(err,
				     "%s: matrix[%zu].%s: expected a whole "
				     "number from %lu to %lu",
				     path, idx, key, min, max);
	*out = (unsigned int)v;
	return 0;
}

static int entry_parse(json_t *o, const char *path, size_t idx,
		       struct farm_entry *e, struct rtlab_err *err)
{
	static const char *const known[] = { "tree",	"boards", "testcases",
					     "kernels", "runs",	  "priority",
					     "notify",	"bisect", "duration_s",
					     NULL };
	json_t *x, *notify;
	const char *key;
	size_t i;

	if (!json_is_object(o))
		return rtlab_err_set(err,
				     "%s: matrix[%zu]: expected a mapping "
				     "(tree, boards, testcases, ...)",
				     path, idx);
	json_object_foreach(o, key, x) {
		for (i = 0; known[i] && strcmp(known[i], key); i++)
			;
		if (!known[i])
			return rtlab_err_set(err,
					     "%s: matrix[%zu]: unknown field "
					     "'%s' (expected tree, boards, "
					     "testcases, kernels, runs, "
					     "duration_s, priority, notify or "
					     "bisect)",
					     path, idx, key);
	}
	x = json_object_get(o, "tree");
	if (!json_is_string(x) || !*json_string_value(x))
		return rtlab_err_set(err,
				     "%s: matrix[%zu].tree: expected a tree "
				     "name (rtlab tree list)",
				     path, idx);
	e->tree = strdup(json_string_value(x));
	e->kernels = FARM_DEFAULT_KERNELS;
	e->priority = JOB_PRIORITY_NIGHTLY;
	if (!e->tree)
		return -ENOMEM;
	e->boards = strv_dup(json_object_get(o, "boards"), "boards", path, idx,
			     false, err);
	if (!e->boards)
		return -EINVAL;
	e->testcases = strv_dup(json_object_get(o, "testcases"), "testcases",
				path, idx, false, err);
	if (!e->testcases)
		return -EINVAL;
	if (uint_field(o, "kernels", path, idx, 1, FARM_MAX_KERNELS,
		       &e->kernels, err) ||
	    uint_field(o, "runs", path, idx, 1, JOBS_MAX_REPEAT, &e->runs,
		       err) ||
	    uint_field(o, "duration_s", path, idx, 1, JOBS_MAX_DURATION_S,
		       &e->duration_s, err) ||
	    uint_field(o, "priority", path, idx, 1, 100, &e->priority, err))
		return -EINVAL;
	x = json_object_get(o, "bisect");
	if (x &&
	    (!json_is_string(x) || (strcmp(json_string_value(x), "true") &&
				    strcmp(json_string_value(x), "false"))))
		return rtlab_err_set(err,
				     "%s: matrix[%zu].bisect: expected true "
				     "or false",
				     path, idx);
	e->bisect = x && !strcmp(json_string_value(x), "true");
	notify = json_object_get(o, "notify");
	if (notify && !json_is_object(notify))
		return rtlab_err_set(err,
				     "%s: matrix[%zu].notify: expected a "
				     "mapping (email, webhook)",
				     path, idx);
	json_object_foreach(notify, key, x)
		if (strcmp(key, "email") && strcmp(key, "webhook"))
			return rtlab_err_set(err,
					     "%s: matrix[%zu].notify: unknown "
					     "field '%s' (expected email or "
					     "webhook)",
					     path, idx, key);
	x = json_object_get(notify, "email");
	e->emails = x ? strv_dup(x, "notify.email", path, idx, true, err) :
			calloc(1, sizeof(*e->emails));
	if (!e->emails)
		return -EINVAL;
	for (i = 0; e->emails[i]; i++)
		if (!strchr(e->emails[i], '@') ||
		    strpbrk(e->emails[i], " <>,\r\n"))
			return rtlab_err_set(err,
					     "%s: matrix[%zu].notify.email: "
					     "'%s' is not an address",
					     path, idx, e->emails[i]);
	x = json_object_get(notify, "webhook");
	if (x) {
		const char *u = json_string_value(x);

		if (!u ||
		    (strncmp(u, "http://", 7) && strncmp(u, "https://", 8)))
			return rtlab_err_set(err,
					     "%s: matrix[%zu].notify.webhook: "
					     "expected an http:// or https:// "
					     "URL",
					     path, idx);
		e->webhook = strdup(u);
		if (!e->webhook)
			return -ENOMEM;
	}
	return 0;
}

int farm_schedule_load(const char *path, struct farm_schedule *s,
		       struct rtlab_err *err)
{
	yaml_document_t doc;
	json_t *j = NULL, *m, *x;
	const char *key;
	size_t i;
	int ret;

	FILE *f;

	memset(s, 0, sizeof(*s));
	f = fopen(path, "r");
	if (!f)
		return rtlab_err_set(err, "%s: %s", path, strerror(errno));
	ret = yaml_doc_load(path, f, NULL, 0, &doc, err);
	fclose(f);
	if (ret)
		return ret;
	j = node_json(&doc, yaml_document_get_root_node(&doc));
	yaml_document_delete(&doc);
	s->path = strdup(path);
	if (!json_is_object(j)) {
		ret = rtlab_err_set(err,
				    "%s: expected a mapping with 'matrix', a "
				    "list of entries",
				    path);
		goto out;
	}
	json_object_foreach(j, key, x)
		if (strcmp(key, "matrix")) {
			ret = rtlab_err_set(err,
					    "%s: unknown field '%s' (expected "
					    "matrix)",
					    path, key);
			goto out;
		}
	m = json_object_get(j, "matrix");
	if (!json_is_array(m)) {
		ret = rtlab_err_set(err,
				    "%s: field 'matrix': expected a list of "
				    "entries (tree, boards, testcases)",
				    path);
		goto out;
	}
	s->e = calloc(json_array_size(m) + 1, sizeof(*s->e));
	if (!s->e || !s->path) {
		ret = -ENOMEM;
		goto out;
	}
	json_array_foreach(m, i, x) {
		s->n = i + 1;
		ret = entry_parse(x, path, i, &s->e[i], err);
		if (ret)
			goto out;
	}
out:
	json_decref(j);
	if (ret)
		farm_schedule_cleanup(s);
	return ret;
}

void farm_schedule_cleanup(struct farm_schedule *s)
{
	size_t i;

	for (i = 0; s->e && i < s->n; i++) {
		free(s->e[i].tree);
		strv_free(s->e[i].boards);
		strv_free(s->e[i].testcases);
		strv_free(s->e[i].emails);
		free(s->e[i].webhook);
	}
	free(s->e);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

/* The runs per side at the first look: the testcase's min_runs. */
static unsigned int first_look(PGconn *conn, const char *testcase)
{
	struct rtlab_err err = { "" };
	struct regress_params p;
	json_t *tc = NULL;
	unsigned int n;

	regress_params_init(&p);
	n = p.min_runs;
	if (!db_testcase_get(conn, testcase, &tc, &err) &&
	    !verdict_params_parse(json_object_get(tc, "definition"), testcase,
				  &p, &err))
		n = p.min_runs;
	json_decref(tc);
	return n;
}

/* Queue what kernel @spec still needs on (@board, @testcase), where it
 * has @have jobs, needs @want and a verdict asks for @look runs a side. */
static int tick_cell(PGconn *conn, const struct farm_entry *e, const char *tree,
		     const char *spec, const char *board, const char *testcase,
		     int64_t have, int64_t look, unsigned int want,
		     const struct farm_tick_opts *o, FILE *out,
		     struct farm_tick_result *r, struct rtlab_err *err)
{
	struct job_spec js = { 0 };
	int64_t *ids = NULL;
	size_t nids = 0;
	int ret;

	if (look > want)
		want = (unsigned int)look;
	r->cells++;
	if (have >= want)
		return 0;
	fprintf(out,
		"  %s %s %s: %" PRId64 " of %u runs, queueing %" PRId64 "%s\n",
		spec, board, testcase, have, want, want - have,
		o->dry_run ? " (dry run)" : "");
	if (o->dry_run) {
		r->queued += want - have;
		return 0;
	}
	js.kernel = spec;
	js.board = board;
	js.testcase = testcase;
	js.repeat = want - (unsigned int)have;
	js.duration_s = e->duration_s;
	js.priority = e->priority;
	js.origin = "farm";
	js.tree = tree;
	js.no_transaction = true;
	ret = jobs_add(conn, &js, &ids, &nids, err);
	free(ids);
	if (!ret)
		r->queued += nids;
	return ret;
}

static int tick_entry(PGconn *conn, const struct farm_entry *e,
		      const struct farm_tick_opts *o, FILE *out,
		      struct farm_tick_result *r, struct rtlab_err *err)
{
	struct tree_kernel *k = NULL;
	struct tree_def *t;
	json_t *known = NULL, *row, *boards = json_array(),
	       *testcases = json_array();
	size_t nk = 0, i, first, b, c;
	unsigned int *want = NULL;
	int ret = 0;

	t = tree_def_find(e->tree, err);
	if (!t) {
		fprintf(out, "tree %s: %s\n", e->tree, err->msg);
		r->errors++;
		return 0;
	}
	if (o->discover) {
		const char **pk = NULL, **ver = NULL;
		unsigned int nnew = 0;

		ret = tree_discover(t, &k, &nk, err);
		if (ret) {
			fprintf(out, "tree %s: %s\n", e->tree, err->msg);
			r->errors++;
			ret = 0;
			goto out;
		}
		pk = calloc(nk + 1, sizeof(*pk));
		ver = calloc(nk + 1, sizeof(*ver));
		for (i = 0; pk && ver && i < nk; i++) {
			pk[i] = k[i].package;
			ver[i] = k[i].version;
		}
		if (!pk || !ver)
			ret = -ENOMEM;
		else if (!o->dry_run)
			ret = db_tree_record(conn, t->name,
					     (const char *const *)pk,
					     (const char *const *)ver, nk,
					     &nnew, err);
		free(pk);
		free(ver);
		if (ret)
			goto out;
		r->new_kernels += nnew;
		fprintf(out, "tree %s: %zu kernels, %u new%s\n", t->name, nk,
			nnew, o->dry_run ? " (dry run: not recorded)" : "");
	}
	if (o->discover && o->dry_run) {
		/* nothing recorded: what apt offers now */
		known = json_array();
		for (i = 0; known && i < nk; i++)
			json_array_append_new(known,
					      json_pack("{s:s, s:s}", "package",
							k[i].package, "version",
							k[i].version));
		ret = known ? 0 : -ENOMEM;
	} else {
		ret = db_tree_kernels(conn, t->name, &known, err);
	}
	if (ret)
		goto out;
	if (!o->discover)
		fprintf(out, "tree %s: %zu kernels recorded\n", t->name,
			json_array_size(known));
	first = json_array_size(known) > e->kernels ?
			json_array_size(known) - e->kernels :
			0;
	for (b = 0; !ret && e->boards[b]; b++)
		ret = json_array_append_new(boards, json_string(e->boards[b]));
	for (c = 0; !ret && e->testcases[c]; c++)
		ret = json_array_append_new(testcases,
					    json_string(e->testcases[c]));
	want = ret ? NULL : calloc(c + 1, sizeof(*want));
	if (!want) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	/* the runs a cell needs: the entry's, or its testcase's first look */
	for (c = 0; e->testcases[c]; c++)
		want[c] = e->runs ? e->runs : first_look(conn, e->testcases[c]);
	ret = db_begin(conn, err);
	if (!ret)
		ret = db_farm_lock(conn, err);
	for (i = first; !ret && i < json_array_size(known); i++) {
		char spec[512], *name;
		json_t *cells = NULL;

		row = json_array_get(known, i);
		name = tree_kernel_name(
			t, json_string_value(json_object_get(row, "package")),
			json_string_value(json_object_get(row, "version")));
		if (!name) {
			ret = -ENOMEM;
			break;
		}
		snprintf(spec, sizeof(spec), "%s", name);
		free(name);
		ret = db_farm_cells(conn, spec, boards, testcases, &cells, err);
		for (b = 0; !ret && e->boards[b]; b++)
			for (c = 0; !ret && e->testcases[c]; c++) {
				int64_t have, look;

				db_farm_cell(cells, e->boards[b],
					     e->testcases[c], &have, &look);
				ret = tick_cell(conn, e, t->name, spec,
						e->boards[b], e->testcases[c],
						have, look, want[c], o, out, r,
						err);
				if (ret == -EINVAL || ret == -ENOENT) {
					/* this cell cannot be queued (its
					 * checks ran before any write): say
					 * so, go on with the others */
					fprintf(out, "  %s %s %s: %s\n", spec,
						e->boards[b], e->testcases[c],
						err->msg);
					r->errors++;
					ret = 0;
				}
			}
		json_decref(cells);
	}
	if (ret)
		db_rollback(conn);
	else
		ret = db_commit(conn, err);
out:
	free(want);
	json_decref(testcases);
	json_decref(boards);
	json_decref(known);
	tree_kernels_free(k, nk);
	tree_def_free(t);
	return ret;
}

/* Tell @e's people about the regressions of its tree not told yet. */
static int tell_regressions(PGconn *conn, const struct rtlab_config *cfg,
			    const struct farm_entry *e, FILE *out,
			    struct farm_tick_result *r, struct rtlab_err *err)
{
	struct notify_to to = { (const char *const *)e->emails, e->webhook };
	json_t *regs = NULL, *v;
	size_t i;
	struct tree_def *t;
	const char *tree;
	int ret;

	if (!e->emails[0] && !e->webhook)
		return 0;
	t = tree_def_find(e->tree, err);
	if (!t)
		return 0; /* said by tick_entry() */
	tree = t->name;
	ret = db_farm_regressions(conn, tree, &regs, err);
	if (ret) {
		tree_def_free(t);
		return ret;
	}
	json_array_foreach(regs, i, v) {
		struct notify_msg m = { 0 };
		char key[160], title[400], state[96];
		struct strbuf sb = { 0 };
		bool sent = false;

		snprintf(key, sizeof(key), "regression:%lld:%lld:%lld:%lld",
			 json_integer_value(json_object_get(v, "board_id")),
			 json_integer_value(json_object_get(v, "testcase_id")),
			 json_integer_value(json_object_get(v,
							    "baseline_kernel_id")),
			 json_integer_value(
				 json_object_get(v, "candidate_kernel_id")));
		snprintf(state, sizeof(state), "%s",
			 json_string_value(json_object_get(v, "verdict")));
		snprintf(title, sizeof(title),
			 "[rtlab] %s: %s %s on %s/%s (vs %s)", tree, state,
			 json_string_value(json_object_get(v, "candidate")),
			 json_string_value(json_object_get(v, "board")),
			 json_string_value(json_object_get(v, "testcase")),
			 json_string_value(json_object_get(v, "baseline")));
		strbuf_addf(&sb,
			    "Tree:      %s\nBoard:     %s\nTestcase:  %s\n"
			    "Baseline:  %s\nCandidate: %s\nVerdict:   %s\n"
			    "Reason:    %s\nRuns:      %lld candidate runs\n\n",
			    tree,
			    json_string_value(json_object_get(v, "board")),
			    json_string_value(json_object_get(v, "testcase")),
			    json_string_value(json_object_get(v, "baseline")),
			    json_string_value(json_object_get(v, "candidate")),
			    state,
			    json_string_value(json_object_get(v, "reason")) ?:
									      "",
			    json_integer_value(json_object_get(v, "runs")));
		strbuf_addf(&sb,
			    "Verdict:   %s/verdicts/%lld\n"
			    "Report:    rtlab report %lld\n",
			    cfg->public_url ? cfg->public_url :
					      "http://127.0.0.1:8470",
			    json_integer_value(json_object_get(v, "id")),
			    json_integer_value(json_object_get(v, "id")));
		m.subject_key = key;
		m.state = state;
		m.title = title;
		m.text = sb.buf ? sb.buf : "";
		m.data = v;
		ret = sb.failed ? -ENOMEM :
				  notify_send(conn, cfg, &to, &m, &sent, err);
		strbuf_cleanup(&sb);
		if (ret) {
			fprintf(out, "  telling %s: %s\n", key, err->msg);
			r->errors++;
			ret = 0;
			continue;
		}
		if (sent) {
			fprintf(out, "  told %s: %s\n", key, title);
			r->told++;
		}
	}
	json_decref(regs);
	tree_def_free(t);
	return 0;
}

/*
 * Start a bisection of each REGRESSION of @e's tree that has none yet and
 * whose kernels have untested kernels of the tree between them (between
 * neighbours the culprit is the candidate itself).  A bisection that
 * cannot start is said and counted; the tick goes on.
 */
static int bisect_regressions(PGconn *conn, const struct farm_entry *e,
			      const struct farm_tick_opts *o, FILE *out,
			      struct farm_tick_result *r, struct rtlab_err *err)
{
	json_t *regs = NULL, *v;
	struct tree_def *t;
	size_t i;
	int ret;

	t = tree_def_find(e->tree, err);
	if (!t)
		return 0; /* said by tick_entry() */
	ret = db_farm_bisectable(conn, t->name, &regs, err);
	tree_def_free(t);
	if (ret)
		return ret;
	json_array_foreach(regs, i, v) {
		struct bisect_spec spec = { 0 };
		struct rtlab_err berr = { "" };
		int64_t id = 0;

		spec.board = json_string_value(json_object_get(v, "board"));
		spec.testcase =
			json_string_value(json_object_get(v, "testcase"));
		spec.good = json_string_value(json_object_get(v, "good"));
		spec.bad = json_string_value(json_object_get(v, "bad"));
		spec.verdict_id = json_integer_value(json_object_get(v, "id"));
		if (o->dry_run) {
			fprintf(out,
				"  would bisect verdict %" PRId64
				" on %s/%s: %s .. %s\n",
				spec.verdict_id, spec.board, spec.testcase,
				spec.good, spec.bad);
			r->bisections++;
			continue;
		}
		if (bisect_start(conn, &spec, &id, &berr)) {
			fprintf(out,
				"  bisecting verdict %" PRId64
				" on %s/%s: %s\n",
				spec.verdict_id, spec.board, spec.testcase,
				berr.msg);
			r->errors++;
			continue;
		}
		fprintf(out,
			"  bisection %" PRId64 " of verdict %" PRId64
			" on %s/%s: %s .. %s\n",
			id, spec.verdict_id, spec.board, spec.testcase,
			spec.good, spec.bad);
		r->bisections++;
	}
	json_decref(regs);
	return 0;
}

int farm_tick(PGconn *conn, const struct rtlab_config *cfg,
	      const struct farm_schedule *s, const struct farm_tick_opts *o,
	      FILE *out, struct farm_tick_result *r, struct rtlab_err *err)
{
	size_t i;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	/* Health checks first: a board due one runs nothing else before. */
	if (!o->dry_run)
		ret = health_queue_due(conn, HEALTH_MAX_AGE_H, out, &r->health,
				       err);
	for (i = 0; !ret && i < s->n; i++)
		ret = tick_entry(conn, &s->e[i], o, out, r, err);
	if (!ret && !o->dry_run)
		ret = submission_settle_all(conn, cfg, s, o->no_notify, out,
					    &r->settled, &r->told, err);
	for (i = 0; !ret && !o->dry_run && !o->no_notify && i < s->n; i++)
		ret = tell_regressions(conn, cfg, &s->e[i], out, r, err);
	for (i = 0; !ret && i < s->n; i++)
		if (s->e[i].bisect)
			ret = bisect_regressions(conn, &s->e[i], o, out, r,
						 err);
	return ret;
}
