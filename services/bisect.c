// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bisection in the lab: the rules of lib/bisect.c played with jobs on a
 * board.  Each call of bisect_advance() reads what the bisection's jobs
 * produced (complete runs per position), compares with the verdict
 * engine and either waits, queues the runs the next look needs, records a
 * step's decision, or finishes.  State lives in the database only, so any
 * worker (or `rtlab bisect start`) can advance it.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "jobs.h"
#include "lab.h"
#include "verdict.h"
#include "../db/db-bisect.h"
#include "../db/db-boards.h"
#include "../db/db-jobs.h"
#include "../db/db-trees.h"
#include "../db/db-verdicts.h"
#include "../db/db.h"
#include "../kernels/kernel.h"
#include "../kernels/tree.h"
#include "../lib/bisect.h"
#include "../lib/fsutil.h"
#include "../lib/log.h"
#include "../lib/testcase.h"

/* -- the range ------------------------------------------------------------ */

static const char *series_kernel(const struct bisect_range *r, size_t i)
{
	return i < r->n ? r->kernels[i] : NULL;
}

/* A package version has no commit: the id is PACKAGE=VERSION, the
 * subject says which package version it is. */
static json_t *series_describe(const struct bisect_range *r, size_t i)
{
	const char *k = series_kernel(r, i), *eq = k ? strchr(k, '=') : NULL;
	char subject[512];

	if (!k)
		return NULL;
	if (eq)
		snprintf(subject, sizeof(subject), "%.*s version %s%s%s",
			 (int)(eq - k), k, eq + 1, r->tree ? " of tree " : "",
			 r->tree ? r->tree : "");
	else
		snprintf(subject, sizeof(subject), "kernel %s", k);
	return json_pack("{s:s, s:s, s:n}", "id", k, "subject", subject,
			 "author");
}

/* Built kernels need no build. */
static int series_prepare(const struct bisect_range *r, size_t i,
			  struct rtlab_err *err)
{
	(void)r;
	(void)i;
	(void)err;
	return 0;
}

static const struct bisect_range_ops series_ops = {
	.kind = "series",
	.kernel = series_kernel,
	.describe = series_describe,
	.prepare = series_prepare,
};

void bisect_range_cleanup(struct bisect_range *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; r->kernels && i < r->n; i++)
		free(r->kernels[i]);
	free(r->kernels);
	free(r->tree);
	json_decref(r->commits);
	memset(r, 0, sizeof(*r));
}

static int range_add(struct bisect_range *r, const char *k, size_t len)
{
	char **m = realloc(r->kernels, (r->n + 1) * sizeof(*m));

	if (!m)
		return -ENOMEM;
	r->kernels = m;
	m[r->n] = strndup(k, len);
	if (!m[r->n])
		return -ENOMEM;
	r->n++;
	return 0;
}

/* The tree holding PACKAGE=VERSION @k, or NULL. */
static char *tree_of(PGconn *conn, const char *k)
{
	const char *eq = strchr(k, '=');
	char *pkg, *tree = NULL;
	const char *p[2];
	json_t *j = NULL;

	if (!eq)
		return NULL;
	pkg = strndup(k, (size_t)(eq - k));
	p[0] = pkg;
	p[1] = eq + 1;
	if (pkg &&
	    !db_query_json(conn,
			   "SELECT to_json(tree) FROM tree_kernels "
			   "WHERE package = $1 AND version = $2 "
			   "ORDER BY seen_at DESC LIMIT 1",
			   2, p, &j, NULL, "finding a kernel's tree") &&
	    json_is_string(j))
		tree = strdup(json_string_value(j));
	json_decref(j);
	free(pkg);
	return tree;
}

static int find_pos(json_t *tk, const char *k)
{
	const char *eq = strchr(k, '=');
	size_t i, len = eq ? (size_t)(eq - k) : 0;
	json_t *e;

	json_array_foreach(tk, i, e) {
		const char *pkg =
			json_string_value(json_object_get(e, "package"));
		const char *ver =
			json_string_value(json_object_get(e, "version"));

		if (eq && pkg && ver && strlen(pkg) == len &&
		    !strncmp(pkg, k, len) && !strcmp(ver, eq + 1))
			return (int)i;
	}
	return -1;
}

int bisect_range_series(PGconn *conn, const char *good, const char *bad,
			const char *list, struct bisect_range *r,
			struct rtlab_err *err)
{
	char *tg = NULL, *tb = NULL, buf[600];
	json_t *tk = NULL, *e;
	const char *s, *c;
	int ret = 0, pg, pb, i;

	memset(r, 0, sizeof(*r));
	r->ops = &series_ops;
	if (!good || !*good || !bad || !*bad)
		return rtlab_err_set(err, "--good and --bad: both kernels are "
					  "needed");
	if (!list && !strcmp(good, bad))
		return rtlab_err_set(err,
				     "--good and --bad are the same kernel "
				     "(%s): nothing to bisect",
				     good);
	if (list) {
		for (s = list; *s; s = *c ? c + 1 : c) {
			c = strchr(s, ',');
			if (!c)
				c = s + strlen(s);
			if (c == s) {
				ret = rtlab_err_set(err,
						    "--kernels '%s': an "
						    "empty kernel name",
						    list);
				goto fail;
			}
			if (range_add(r, s, (size_t)(c - s))) {
				ret = rtlab_err_seterr(err, ENOMEM,
						       "out of memory");
				goto fail;
			}
		}
		if (r->n < 2 || strcmp(r->kernels[0], good) ||
		    strcmp(r->kernels[r->n - 1], bad)) {
			ret = rtlab_err_set(err,
					    "--kernels '%s': expected the "
					    "ordered range from --good %s "
					    "(first) to --bad %s (last)",
					    list, good, bad);
			goto fail;
		}
		return 0;
	}
	tg = tree_of(conn, good);
	tb = tree_of(conn, bad);
	if (!tg || !tb || strcmp(tg, tb)) {
		ret = rtlab_err_set(err,
				    "--good %s, --bad %s: %s; give both as "
				    "PACKAGE=VERSION of one tree "
				    "(rtlab tree discover, rtlab tree show) "
				    "or the range with --kernels",
				    good, bad,
				    !tg || !tb ? "no recorded tree holds both" :
						 "they belong to different "
						 "trees");
		goto fail;
	}
	ret = db_tree_kernels(conn, tg, &tk, err);
	if (ret)
		goto fail;
	pg = find_pos(tk, good);
	pb = find_pos(tk, bad);
	if (pg < 0 || pb < 0) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "tree %s: kernel %s unknown", tg,
				       pg < 0 ? good : bad);
		goto fail;
	}
	if (pg > pb) {
		ret = rtlab_err_set(err,
				    "--good %s comes after --bad %s in tree "
				    "%s: good and bad reversed?",
				    good, bad, tg);
		goto fail;
	}
	for (i = pg; i <= pb; i++) {
		e = json_array_get(tk, (size_t)i);
		snprintf(buf, sizeof(buf), "%s=%s",
			 json_string_value(json_object_get(e, "package")),
			 json_string_value(json_object_get(e, "version")));
		if (range_add(r, buf, strlen(buf))) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			goto fail;
		}
	}
	r->tree = tg;
	tg = NULL;
	goto out;
fail:
	bisect_range_cleanup(r);
out:
	json_decref(tk);
	free(tg);
	free(tb);
	return ret;
}

/* -- a git range ---------------------------------------------------------- */

/* What git said of the commit when the range was made. */
static json_t *git_describe(const struct bisect_range *r, size_t i)
{
	json_t *c = json_array_get(r->commits, i);
	const char *k = series_kernel(r, i), *at = k ? strchr(k, '@') : NULL;

	if (c)
		return json_deep_copy(c);
	if (!k)
		return NULL;
	return json_pack("{s:s, s:s, s:n}", "id", at ? at + 1 : k, "subject", k,
			 "author");
}

/* A commit whose build failed (remembered in the kernel cache) cannot be
 * had: -ENOEXEC with the build's reason.  One not built yet can: the
 * job's worker builds it. */
static int git_prepare(const struct bisect_range *r, size_t i,
		       struct rtlab_err *err)
{
	struct kernel_ident id = { 0 };
	struct kernel_def *k;
	const char *name = series_kernel(r, i);
	int ret;

	if (!name)
		return rtlab_err_set(err, "position %zu: no such kernel", i);
	k = kernel_def_find(name, err);
	if (!k)
		return -ENOENT;
	ret = kernel_cached(k, NULL, &id, err);
	/* The kernel cache answers a remembered failed build with -EIO and
	 * its reason, "... (an earlier build)"; a git or disk failure (also
	 * -EIO) is no verdict on the commit. */
	if (ret == -EIO && strstr(err->msg, "(an earlier build)"))
		ret = -ENOEXEC;
	else if (ret == -EIO)
		ret = 0; /* the job will say */
	kernel_ident_cleanup(&id);
	kernel_def_free(k);
	return ret == -ENOENT ? 0 : ret;
}

static const struct bisect_range_ops git_ops = {
	.kind = "git",
	.kernel = series_kernel,
	.describe = git_describe,
	.prepare = git_prepare,
};

bool bisect_range_is_git(const char *good, const char *bad)
{
	return good && bad && strchr(good, '@') && strchr(bad, '@');
}

/* Run git on @mirror; 0 with its output in *@out, or the exit status
 * (> 0) or a negative errno.  Its error output is discarded: the caller
 * says what failed. */
static int git_out(const char *mirror, const char *a1, const char *a2,
		   const char *a3, const char *a4, const char *a5, char **out,
		   struct rtlab_err *err)
{
	char *argv[] = { "git",	     "--git-dir", (char *)mirror,
			 (char *)a1, (char *)a2,  (char *)a3,
			 (char *)a4, (char *)a5,  NULL };

	*out = NULL;
	return spawn_capture(argv, NULL, 2, out, err);
}

/* One line of `git log --format=%H%x1f%an <%ae>%x1f%s` added to @r as
 * TREE@COMMIT and {id, subject, author}; -EINVAL when it is not one. */
static int git_add_commit(struct bisect_range *r, const char *tree, char *line)
{
	char *us1 = strchr(line, '\x1f'),
	     *us2 = us1 ? strchr(us1 + 1, '\x1f') : NULL;
	char name[256];

	if (!us1 || !us2 || us1 - line != 40)
		return -EINVAL;
	*us1 = *us2 = '\0';
	snprintf(name, sizeof(name), "%s@%s", tree, line);
	if (range_add(r, name, strlen(name)) ||
	    json_array_append_new(r->commits,
				  json_pack("{s:s, s:s, s:s}", "id", line,
					    "subject", us2 + 1, "author",
					    us1 + 1)))
		return -ENOMEM;
	return 0;
}

int bisect_range_git(const char *good, const char *bad, struct bisect_range *r,
		     struct rtlab_err *err)
{
	const char *ag = good ? strchr(good, '@') : NULL;
	const char *ab = bad ? strchr(bad, '@') : NULL;
	char sg[41], sb[41], range[90], *tree = NULL, *mirror = NULL;
	char *out = NULL, *line, *save = NULL;
	struct tree_def *t = NULL;
	int ret, rc;

	memset(r, 0, sizeof(*r));
	r->ops = &git_ops;
	if (!ag || !ab || ag - good != ab - bad ||
	    strncmp(good, bad, (size_t)(ag - good)))
		return rtlab_err_set(err,
				     "--good %s, --bad %s: expected two "
				     "commits TREE@REF of one git tree",
				     good ? good : "", bad ? bad : "");
	tree = strndup(good, (size_t)(ag - good));
	r->commits = json_array();
	if (!tree || !r->commits) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto fail;
	}
	t = tree_def_find(tree, err);
	if (!t) {
		ret = -ENOENT;
		goto fail;
	}
	if (t->kind != TREE_KIND_GIT) {
		ret = rtlab_err_set(err,
				    "--good %s: tree %s is not a git tree "
				    "(its kernels are named PACKAGE=VERSION)",
				    good, tree);
		goto fail;
	}
	ret = tree_git_resolve(t, ag + 1, sg, err)	   ?:
		      tree_git_resolve(t, ab + 1, sb, err) ?:
		      tree_git_mirror(t, false, &mirror, err);
	if (ret)
		goto fail;
	if (!strcmp(sg, sb)) {
		ret = rtlab_err_set(err,
				    "--good %s and --bad %s are the same "
				    "commit %s of tree %s: nothing to bisect",
				    good, bad, sg, tree);
		goto fail;
	}
	rc = git_out(mirror, "merge-base", "--is-ancestor", sg, sb, NULL, &out,
		     err);
	free(out);
	out = NULL;
	if (rc < 0) {
		ret = rc;
		goto fail;
	}
	if (rc > 1) {
		snprintf(range, sizeof(range), "%.12s %.12s", sg, sb);
		goto git_failed;
	}
	if (rc) {
		ret = rtlab_err_set(err,
				    "--good %s (%.12s) is not an ancestor of "
				    "--bad %s (%.12s) in tree %s: good and bad "
				    "reversed?",
				    good, sg, bad, sb, tree);
		goto fail;
	}
	snprintf(range, sizeof(range), "%s..%s", sg, sb);
	rc = git_out(mirror, "log", "--no-walk",
		     "--format=%H%x1f%an <%ae>%x1f%s", sg, NULL, &out, err);
	line = rc ? NULL : strtok_r(out, "\n", &save);
	if (rc || !line || git_add_commit(r, tree, line))
		goto git_failed;
	free(out);
	out = NULL;
	save = NULL;
	/* git bisect --first-parent: a merge is one step, the commits it
	 * brings are not tested one by one */
	rc = git_out(mirror, "log", "--first-parent", "--reverse",
		     "--format=%H%x1f%an <%ae>%x1f%s", range, &out, err);
	if (rc)
		goto git_failed;
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (git_add_commit(r, tree, line))
			goto git_failed;
	if (r->n < 2 ||
	    strcmp(json_string_value(json_object_get(json_array_get(r->commits,
								    r->n - 1),
						     "id")),
		   sb)) {
		ret = rtlab_err_seterr(err, EIO,
				       "tree %s: git log --first-parent %s "
				       "does not end at --bad %s",
				       tree, range, bad);
		goto fail;
	}
	r->tree = tree;
	tree = NULL;
	ret = 0;
	goto out;
git_failed:
	ret = rc < 0 ? rc :
		       rtlab_err_seterr(err, EIO,
					"tree %s: git of %s in %s failed "
					"(exit %d)",
					tree, range, mirror, rc);
fail:
	bisect_range_cleanup(r);
	r->ops = &git_ops;
out:
	free(out);
	free(mirror);
	free(tree);
	tree_def_free(t);
	return ret;
}

/* The range of a bisection as stored (db_bisect_get()): its kernels, and
 * the commits of a git range. */
static int range_of(json_t *b, struct bisect_range *r, struct rtlab_err *err)
{
	const char *kind = json_string_value(json_object_get(b, "range_kind"));
	json_t *ks = json_object_get(b, "kernels"), *e;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->ops = kind && !strcmp(kind, "git") ? &git_ops : &series_ops;
	json_array_foreach(ks, i, e)
		if (range_add(r, json_string_value(e) ?: "?",
			      strlen(json_string_value(e) ?: "?")))
			goto nomem;
	if (json_is_string(json_object_get(b, "tree"))) {
		r->tree = strdup(json_string_value(json_object_get(b, "tree")));
		if (!r->tree)
			goto nomem;
	}
	if (json_is_array(json_object_get(b, "commits")))
		r->commits = json_incref(json_object_get(b, "commits"));
	return 0;
nomem:
	bisect_range_cleanup(r);
	return rtlab_err_seterr(err, ENOMEM, "out of memory");
}

/* -- queueing ------------------------------------------------------------- */

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static int jint(json_t *o, const char *k, int dflt)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

/* Where a position stands: its complete runs, queued and failed jobs. */
struct pos {
	json_t *runs; /* borrowed array of run ids */
	int queued, failed, kernel_id;
};

static struct pos pos_of(json_t *b, int i)
{
	struct pos p = { 0 };
	size_t k;
	json_t *e;

	json_array_foreach(json_object_get(b, "positions"), k, e) {
		if (jint(e, "position", -1) != i)
			continue;
		p.runs = json_object_get(e, "runs");
		p.queued = jint(e, "queued", 0);
		p.failed = jint(e, "failed", 0);
		p.kernel_id = (int)json_integer_value(
			json_array_get(json_object_get(e, "kernel_ids"), 0));
	}
	return p;
}

static int nruns(const struct pos *p)
{
	return p->runs ? (int)json_array_size(p->runs) : 0;
}

/* One more job of position @i. */
static int queue_one(PGconn *conn, json_t *b, int i, struct rtlab_err *err)
{
	int plant = jint(b, "plant_from", -1);
	struct job_spec js = { 0 };
	int64_t *ids = NULL;
	size_t nids = 0;
	int ret;

	js.kernel =
		json_string_value(json_array_get(json_object_get(b, "kernels"),
						 (size_t)i));
	js.board = jstr(b, "board");
	js.testcase = plant >= 0 && i >= plant ? jstr(b, "plant_file") :
						 jstr(b, "testcase_file");
	js.repeat = 1;
	js.duration_s = (unsigned int)jint(b, "duration_s", 0);
	js.priority = JOB_PRIORITY_BISECT;
	js.bisect_id = json_integer_value(json_object_get(b, "id"));
	js.bisect_pos = i;
	ret = jobs_add(conn, &js, &ids, &nids, err);
	free(ids);
	return ret;
}

/*
 * Queue runs of each of the @n positions @at[] until it has @want (runs
 * and queued jobs), one of each in turn: the board's drift over time then
 * falls on every side alike instead of on whichever was measured last.
 */
static int queue_to(PGconn *conn, json_t *b, const int *at, size_t n, int want,
		    struct rtlab_err *err)
{
	int missing[3] = { 0 }, left = 0, ret = 0;
	int64_t id = json_integer_value(json_object_get(b, "id"));
	struct pos p;
	size_t k;

	for (k = 0; k < n && k < 3; k++) {
		p = pos_of(b, at[k]);
		missing[k] = want - nruns(&p) - p.queued;
		if (missing[k] < 0)
			missing[k] = 0;
		left += missing[k];
		if (missing[k])
			log_info("bisect %" PRId64 ": %d run(s) of position "
				 "%d (%s) to queue",
				 id, missing[k], at[k],
				 json_string_value(json_array_get(
					 json_object_get(b, "kernels"),
					 (size_t)at[k])));
	}
	while (left && !ret)
		for (k = 0; k < n && k < 3 && !ret; k++)
			if (missing[k]) {
				ret = queue_one(conn, b, at[k], err);
				missing[k]--;
				left--;
			}
	return ret;
}

/* -- comparing ------------------------------------------------------------ */

static char *ids_text(json_t *runs)
{
	char *s = NULL, *t;
	size_t i;
	json_t *e;

	if (asprintf(&s, "{") < 0)
		return NULL;
	json_array_foreach(runs, i, e) {
		if (asprintf(&t, "%s%s%" JSON_INTEGER_FORMAT, s, i ? "," : "",
			     json_integer_value(e)) < 0) {
			free(s);
			return NULL;
		}
		free(s);
		s = t;
	}
	if (asprintf(&t, "%s}", s) < 0)
		t = NULL;
	free(s);
	return t;
}

/* The verdict of position @c against position @base_pos. */
static int compare(PGconn *conn, json_t *b, int testcase_id, int base_pos,
		   int c, json_t **out, struct rtlab_err *err)
{
	struct pos pb = pos_of(b, base_pos), pc = pos_of(b, c);
	struct verdict_pair vp = { 0 };
	char *bt = ids_text(pb.runs), *ct = ids_text(pc.runs);
	int ret;

	*out = NULL;
	if (!bt || !ct) {
		free(bt);
		free(ct);
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	vp.board_id = jint(b, "board_id", 0);
	vp.testcase_id = testcase_id;
	vp.base_kernel_id = pb.kernel_id;
	vp.cand_kernel_id = pc.kernel_id;
	vp.base_runs = bt;
	vp.cand_runs = ct;
	vp.baseline_source = "requested";
	ret = verdict_compute(conn, &vp, out, err);
	free(bt);
	free(ct);
	return ret;
}

static enum regress_verdict verdict_of(json_t *v)
{
	int r = regress_verdict_parse(jstr(v, "verdict"));

	return r < 0 ? REGRESS_INCONCLUSIVE : (enum regress_verdict)r;
}

static int look_of(json_t *v)
{
	return jint(json_object_get(json_object_get(v, "details"),
				    "sequential"),
		    "look", 0);
}

/* The testcase's plan: runs per side at each look.  Its definition as
 * the lab has it (stored, or testcases/NAME.yaml), else @file's. */
static int plan_of(PGconn *conn, const char *testcase, const char *file,
		   struct regress_seq *seq, struct rtlab_err *err)
{
	struct regress_params p;
	struct testcase t;
	json_t *tc = NULL, *def = NULL;
	int ret;

	ret = lab_testcase_get(conn, testcase, &tc, err);
	if (ret == -ENOENT && file) {
		ret = testcase_load(file, &t, err);
		if (!ret) {
			def = testcase_to_json(&t);
			testcase_cleanup(&t);
			ret = def ? 0 :
				    rtlab_err_seterr(err, ENOMEM,
						     "out of memory");
		}
	} else if (!ret) {
		def = json_incref(json_object_get(tc, "definition"));
	}
	if (!ret)
		ret = verdict_params_parse(def, testcase, &p, err);
	if (!ret)
		ret = regress_plan(&p, 0, seq, err);
	json_decref(def);
	json_decref(tc);
	return ret;
}

/* -- the state machine ---------------------------------------------------- */

static int update(PGconn *conn, int64_t id, json_t *set, struct rtlab_err *err)
{
	int ret;

	if (!set)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	ret = db_bisect_update(conn, id, set, err);
	json_decref(set);
	return ret;
}

static int finish(PGconn *conn, int64_t id, json_t *b, const char *state,
		  const char *why, struct rtlab_err *err)
{
	log_info("bisect %" PRId64 ": %s: %s", id, state, why);
	(void)b;
	return update(conn, id,
		      json_pack("{s:s, s:s, s:n}", "state", state, "result",
				why, "step"),
		      err);
}

static const char *kname(json_t *b, int i)
{
	const char *k =
		json_string_value(json_array_get(json_object_get(b, "kernels"),
						 (size_t)i));

	return k ? k : "?";
}

/*
 * A bisection started without --verdict bisects the REGRESSION its ends
 * just reproduced: that verdict is stored (as `rtlab compare --store`
 * would) and becomes the bisection's regression, so its report carries
 * the culprit.
 */
static int ends_regression(PGconn *conn, int64_t id, json_t *b, int testcase_id,
			   const struct pos *g, const struct pos *d, json_t *v,
			   struct rtlab_err *err)
{
	struct verdict_pair vp = { 0 };
	int64_t vid;
	int ret;

	if (json_is_integer(json_object_get(b, "regression_id")))
		return 0;
	vp.board_id = jint(b, "board_id", 0);
	vp.testcase_id = testcase_id;
	vp.base_kernel_id = g->kernel_id;
	vp.cand_kernel_id = d->kernel_id;
	ret = verdict_store(conn, &vp, v, &vid, NULL, err);
	if (ret)
		return ret;
	log_info("bisect %" PRId64 ": the ends' REGRESSION stored as verdict "
		 "%" PRId64,
		 id, vid);
	return update(conn, id,
		      json_pack("{s:I}", "regression_id", (json_int_t)vid),
		      err);
}

/*
 * Whether position @i cannot be had at all (its build failed: the
 * range's prepare() says -ENOEXEC), with the reason in @why.  Any other
 * answer leaves it to the jobs.
 */
static bool unbuildable(json_t *b, int i, char *why, size_t len)
{
	struct rtlab_err perr = { "" };
	struct bisect_range r;
	int ret;

	if (range_of(b, &r, &perr))
		return false;
	ret = r.ops->prepare(&r, (size_t)i, &perr);
	bisect_range_cleanup(&r);
	if (ret == -ENOEXEC)
		snprintf(why, len, "%s", perr.msg);
	return ret == -ENOEXEC;
}

/* The ends: does the bad one reproduce the regression? 1: go on. */
static int advance_ends(PGconn *conn, int64_t id, json_t *b, int testcase_id,
			const struct regress_seq *seq, struct rtlab_err *err)
{
	int n = (int)json_array_size(json_object_get(b, "kernels"));
	struct pos g = pos_of(b, 0), d = pos_of(b, n - 1);
	json_t *v = NULL;
	enum bisect_ends e;
	char why[600];
	char reason[RTLAB_ERR_LEN];
	int look, ret, e_at;

	/* An end that does not build: nothing can be bisected. */
	for (e_at = 0; e_at < 2; e_at++) {
		struct pos *ep = e_at ? &d : &g;

		if (nruns(ep) || !ep->failed ||
		    !unbuildable(b, e_at ? n - 1 : 0, reason, sizeof(reason)))
			continue;
		if (db_bisect_cancel_jobs(conn, id, -1, NULL, err))
			return -EIO;
		snprintf(why, sizeof(why),
			 "the %s kernel %s does not build: %.400s; cannot "
			 "bisect",
			 e_at ? "bad" : "good", kname(b, e_at ? n - 1 : 0),
			 reason);
		return finish(conn, id, b, "failed", why, err);
	}
	if (g.queued || d.queued)
		return 0;
	/* A failed run (boot, panic, hang, agent) is replaced; a whole
	 * look's worth of failures without a run is an answer. */
	if ((!nruns(&g) && g.failed >= (int)seq->runs_at[0]) ||
	    (!nruns(&d) && d.failed >= (int)seq->runs_at[0])) {
		snprintf(why, sizeof(why),
			 "the %s kernel %s produced no complete run on board "
			 "%s (%d job(s) failed): cannot bisect",
			 !nruns(&g) ? "good" : "bad",
			 kname(b, !nruns(&g) ? 0 : n - 1), jstr(b, "board"),
			 !nruns(&g) ? g.failed : d.failed);
		return finish(conn, id, b, "failed", why, err);
	}
	if (nruns(&g) < (int)seq->runs_at[0] ||
	    nruns(&d) < (int)seq->runs_at[0]) {
		int at[2] = { 0, n - 1 };

		return queue_to(conn, b, at, 2, (int)seq->runs_at[0], err);
	}
	ret = compare(conn, b, testcase_id, 0, n - 1, &v, err);
	if (ret)
		return ret;
	look = look_of(v);
	e = bisect_ends_decide(verdict_of(v), (unsigned int)look, seq->looks);
	ret = update(conn, id, json_pack("{s:O}", "ends_verdict", v), err);
	if (ret)
		goto out;
	switch (e) {
	case BISECT_ENDS_MORE: {
		int at[2] = { 0, n - 1 };

		ret = queue_to(conn, b, at, 2, (int)seq->runs_at[look], err);
		break;
	}
	case BISECT_ENDS_REPRODUCED:
		log_info("bisect %" PRId64 ": %s against %s: REGRESSION "
			 "reproduced at look %d",
			 id, kname(b, n - 1), kname(b, 0), look);
		ret = ends_regression(conn, id, b, testcase_id, &g, &d, v, err);
		if (!ret)
			ret = update(conn, id,
				     json_pack("{s:s}", "state", "stepping"),
				     err);
		ret = ret ?: 1;
		break;
	case BISECT_ENDS_REVERSED:
		snprintf(why, sizeof(why),
			 "good and bad reversed: the bad kernel %s is better "
			 "than the good kernel %s (IMPROVEMENT at look %d: "
			 "%.300s); nothing bisected",
			 kname(b, n - 1), kname(b, 0), look, jstr(v, "reason"));
		ret = finish(conn, id, b, "failed", why, err);
		break;
	case BISECT_ENDS_NO_REGRESSION:
		snprintf(why, sizeof(why),
			 "the bad kernel %s does not reproduce the regression "
			 "against %s on board %s (%s at look %d of %u: "
			 "%.300s); nothing bisected",
			 kname(b, n - 1), kname(b, 0), jstr(b, "board"),
			 jstr(v, "verdict"), look, seq->looks,
			 jstr(v, "reason"));
		ret = finish(conn, id, b, "failed", why, err);
		break;
	}
out:
	json_decref(v);
	return ret;
}

/* Rebuild the marks from the stored steps. */
static int marks_of(json_t *b, struct bisect *bs, struct rtlab_err *err)
{
	size_t n = json_array_size(json_object_get(b, "kernels")), i;
	json_t *s;
	int ret, m;

	ret = bisect_init(bs, n, err);
	json_array_foreach(json_object_get(b, "steps"), i, s) {
		m = bisect_mark_parse(jstr(s, "mark"));
		if (ret || m < 0)
			break;
		ret = bisect_mark(bs, (size_t)jint(s, "position", 0),
				  (enum bisect_mark)m, err);
	}
	return ret;
}

static int record_step(PGconn *conn, int64_t id, json_t *b, int i,
		       enum bisect_mark m, const char *decision,
		       const char *reason, int look, json_t *vg, json_t *vb,
		       struct rtlab_err *err)
{
	int ret;

	log_info("bisect %" PRId64 ": position %d (%s): %s (%s, look %d)%s%s",
		 id, i, kname(b, i), bisect_mark_name(m), decision, look,
		 reason ? ": " : "", reason ? reason : "");
	ret = db_bisect_step_store(conn, id, i, kname(b, i),
				   bisect_mark_name(m), decision, reason, look,
				   vg, vb, err);
	if (!ret)
		ret = update(conn, id, json_pack("{s:n}", "step"), err);
	return ret;
}

/* One step: 1 when it was decided (choose the next), 0 to wait. */
static int advance_step(PGconn *conn, int64_t id, json_t *b, int i,
			int testcase_id, const struct regress_seq *seq,
			struct rtlab_err *err)
{
	int n = (int)json_array_size(json_object_get(b, "kernels"));
	struct pos g = pos_of(b, 0), d = pos_of(b, n - 1), s = pos_of(b, i);
	json_t *vg = NULL, *vb = NULL;
	char reason[RTLAB_ERR_LEN];
	enum bisect_step st;
	enum bisect_mark m;
	int look, ret;

	/* A commit that does not build is skipped at once, as git bisect
	 * skip would: its build failed for good (the failure is remembered
	 * by the kernel cache), so its other jobs would fail alike. */
	if (!nruns(&s) && unbuildable(b, i, reason, sizeof(reason))) {
		ret = db_bisect_cancel_jobs(conn, id, i, NULL, err) ?:
			      record_step(conn, id, b, i, BISECT_SKIP,
					  "unbuildable", reason, 0, NULL, NULL,
					  err);
		return ret ?: 1;
	}
	if (g.queued || d.queued || s.queued)
		return 0;
	if ((!nruns(&s) && s.failed >= (int)seq->runs_at[0]) ||
	    s.failed >= 2 * (int)seq->runs_at[seq->looks - 1]) {
		ret = record_step(conn, id, b, i, BISECT_SKIP, "failed", NULL,
				  0, NULL, NULL, err);
		return ret ?: 1;
	}
	if (nruns(&s) < (int)seq->runs_at[0]) {
		ret = queue_to(conn, b, &i, 1, (int)seq->runs_at[0], err);
		if (ret == -EINVAL || ret == -ENOENT) {
			/* The kernel cannot be queued on this board (no
			 * such definition, not for this kind): skip it. */
			log_warn("bisect %" PRId64 ": position %d: %s", id, i,
				 err->msg);
			snprintf(reason, sizeof(reason), "%s", err->msg);
			ret = record_step(conn, id, b, i, BISECT_SKIP,
					  "unqueueable", reason, 0, NULL, NULL,
					  err);
			return ret ?: 1;
		}
		return ret;
	}
	ret = compare(conn, b, testcase_id, 0, i, &vg, err);
	if (!ret)
		ret = compare(conn, b, testcase_id, n - 1, i, &vb, err);
	if (ret)
		goto out;
	look = look_of(vg) < look_of(vb) ? look_of(vg) : look_of(vb);
	st = bisect_step_decide(verdict_of(vg), verdict_of(vb),
				(unsigned int)look < seq->looks);
	if (st == BISECT_STEP_MORE) {
		int at[3] = { i, 0, n - 1 };

		ret = queue_to(conn, b, at, 3, (int)seq->runs_at[look], err);
		goto out;
	}
	m = st == BISECT_STEP_GOOD ? BISECT_GOOD :
	    st == BISECT_STEP_BAD  ? BISECT_BAD :
				     BISECT_SKIP;
	ret = record_step(conn, id, b, i, m, bisect_step_name(st), NULL, look,
			  vg, vb, err);
	ret = ret ?: 1;
out:
	json_decref(vg);
	json_decref(vb);
	return ret;
}

/* How many kernels strictly between @lo and @hi were skipped for
 * @decision. */
static int skipped_for(json_t *b, size_t lo, size_t hi, const char *decision)
{
	size_t i;
	json_t *s;
	int n = 0, p;

	json_array_foreach(json_object_get(b, "steps"), i, s) {
		p = jint(s, "position", 0);
		n += p > (int)lo && p < (int)hi &&
		     !strcmp(jstr(s, "mark") ?: "", "skip") &&
		     !strcmp(jstr(s, "decision") ?: "", decision);
	}
	return n;
}

static int conclude(PGconn *conn, int64_t id, json_t *b, struct bisect *bs,
		    struct rtlab_err *err)
{
	struct rtlab_err rerr = { "" };
	struct bisect_range r = { 0 };
	json_t *desc = NULL;
	size_t lo, hi, c;
	char why[1200], what[400] = "";
	int nb, nf, nu;

	bisect_range(bs, &lo, &hi);
	if (bisect_culprit(bs, &c) && !range_of(b, &r, &rerr) &&
	    r.ops == &git_ops)
		desc = r.ops->describe(&r, c);
	if (desc)
		snprintf(what, sizeof(what), ": commit %s \"%.200s\" by %.100s",
			 jstr(desc, "id") ?: "?", jstr(desc, "subject") ?: "?",
			 jstr(desc, "author") ?: "?");
	nb = skipped_for(b, lo, hi, "unbuildable");
	nf = skipped_for(b, lo, hi, "failed");
	nu = skipped_for(b, lo, hi, "unqueueable");
	if (bisect_culprit(bs, &c))
		snprintf(why, sizeof(why),
			 "culprit: %s (the first bad kernel; %s is the last "
			 "good one)%s",
			 kname(b, (int)c), kname(b, (int)lo), what);
	else
		snprintf(why, sizeof(why),
			 "no single culprit: the regression lies between %s "
			 "(good) and %s (bad); the %zu kernel(s) between "
			 "could not be decided (skipped: %d did not build, "
			 "%d failed their runs, %d could not be queued, %d "
			 "not settled by the verdicts)",
			 kname(b, (int)lo), kname(b, (int)hi), hi - lo - 1, nb,
			 nf, nu,
			 (int)(hi - lo - 1) - nb - nf - nu > 0 ?
				 (int)(hi - lo - 1) - nb - nf - nu :
				 0);
	json_decref(desc);
	bisect_range_cleanup(&r);
	log_info("bisect %" PRId64 ": done: %s", id, why);
	return update(conn, id,
		      bisect_culprit(bs, &c) ?
			      json_pack("{s:s, s:s, s:n, s:i, s:i, s:i}",
					"state", "done", "result", why, "step",
					"lo", (int)lo, "hi", (int)hi, "culprit",
					(int)c) :
			      json_pack("{s:s, s:s, s:n, s:i, s:i, s:n}",
					"state", "done", "result", why, "step",
					"lo", (int)lo, "hi", (int)hi,
					"culprit"),
		      err);
}

static int advance_locked(PGconn *conn, int64_t id, struct rtlab_err *err)
{
	struct regress_seq seq;
	struct bisect bs = { 0 };
	json_t *b = NULL;
	const char *state;
	size_t lo, hi, next;
	int testcase_id = 0, ret, round;

	for (round = 0; round < 1000; round++) {
		json_decref(b);
		b = NULL;
		bisect_cleanup(&bs);
		ret = db_bisect_get(conn, id, &b, err);
		if (ret)
			break;
		state = jstr(b, "state");
		if (!state ||
		    (strcmp(state, "ends") && strcmp(state, "stepping"))) {
			ret = 0;
			break;
		}
		ret = plan_of(conn, jstr(b, "testcase"),
			      jstr(b, "testcase_file"), &seq, err);
		if (ret)
			break;
		if (!testcase_id &&
		    db_testcase_lookup(conn, jstr(b, "testcase"), &testcase_id,
				       NULL))
			testcase_id = 0; /* no run yet: compared later */
		if (!strcmp(state, "ends")) {
			ret = advance_ends(conn, id, b, testcase_id, &seq, err);
			if (ret <= 0)
				break;
			continue;
		}
		ret = marks_of(b, &bs, err);
		if (ret)
			break;
		if (json_is_integer(json_object_get(b, "step"))) {
			ret = advance_step(conn, id, b, jint(b, "step", 0),
					   testcase_id, &seq, err);
			if (ret <= 0)
				break;
			continue;
		}
		bisect_range(&bs, &lo, &hi);
		next = bisect_next(&bs);
		if (!next) {
			ret = conclude(conn, id, b, &bs, err);
			break;
		}
		log_info("bisect %" PRId64 ": range %s .. %s, testing %s", id,
			 kname(b, (int)lo), kname(b, (int)hi),
			 kname(b, (int)next));
		ret = update(conn, id,
			     json_pack("{s:i, s:i, s:i}", "step", (int)next,
				       "lo", (int)lo, "hi", (int)hi),
			     err);
		if (ret)
			break;
	}
	bisect_cleanup(&bs);
	json_decref(b);
	return ret < 0 ? ret : 0;
}

int bisect_advance(PGconn *conn, int64_t id, struct rtlab_err *err)
{
	char sid[24];
	const char *p[1] = { sid };
	int ret;

	/* One advancer per bisection at a time ("bise", id): workers finish jobs of one
	 * bisection concurrently. */
	snprintf(sid, sizeof(sid), "%" PRId64, id);
	ret = db_exec(conn, err,
		      "SELECT pg_advisory_lock(1651078005, "
		      "$1::bigint::integer)",
		      1, p);
	if (ret)
		return ret;
	ret = advance_locked(conn, id, err);
	if (db_exec(conn, NULL,
		    "SELECT pg_advisory_unlock(1651078005, $1::bigint::integer)",
		    1, p))
		log_warn("bisect %" PRId64 ": could not release its lock", id);
	return ret;
}

void bisect_after_job(PGconn *conn, int64_t job_id)
{
	struct rtlab_err err = { "" };
	int64_t id;

	if (db_bisect_of_job(conn, job_id, &id, &err))
		return;
	if (bisect_advance(conn, id, &err))
		log_warn("bisect %" PRId64 " (after job %" PRId64 "): %s", id,
			 job_id, err.msg);
}

bool bisect_running(PGconn *conn, const char *board)
{
	const char *p[1] = { board };
	int64_t n = 0;

	if (db_query_id(conn,
			"SELECT count(*) FROM jobs j JOIN bisections x ON "
			"x.id = j.bisect_id JOIN boards b ON b.id = j.board_id "
			"WHERE x.state IN ('ends', 'stepping') AND j.state = "
			"'running' AND ($1::text IS NULL OR b.name = $1)",
			1, p, &n, NULL, "bisections running"))
		return false;
	return n > 0;
}

/* -- starting, stopping, reading ------------------------------------------ */

static int testcase_name(const char *arg, char **file, char **name,
			 struct rtlab_err *err)
{
	struct rtlab_err terr = { "" };
	struct testcase tc;
	int ret;

	*name = NULL;
	*file = jobs_testcase_path(arg, err);
	if (!*file)
		return -ENOENT;
	ret = testcase_load(*file, &tc, &terr);
	if (ret)
		return rtlab_err_set(err, "--testcase %s: %s", arg, terr.msg);
	*name = strdup(tc.name);
	testcase_cleanup(&tc);
	return *name ? 0 : rtlab_err_seterr(err, ENOMEM, "out of memory");
}

int bisect_start(PGconn *conn, const struct bisect_spec *spec, int64_t *id,
		 struct rtlab_err *err)
{
	struct bisect_range r = { 0 };
	struct db_bisect_new nb = { 0 };
	struct regress_seq seq;
	char *file = NULL, *name = NULL, *pfile = NULL, *pname = NULL;
	char series[256];
	size_t i;
	int ret;

	*id = 0;
	if (!spec->board || !spec->testcase)
		return rtlab_err_set(err, "--board and --testcase are needed");
	ret = db_board_lookup(conn, spec->board, &nb.board_id, err);
	if (ret)
		goto out;
	ret = testcase_name(spec->testcase, &file, &name, err);
	if (ret)
		goto out;
	ret = plan_of(conn, name, file, &seq, err);
	if (ret) {
		rtlab_err_prefix(err, "--testcase %s", spec->testcase);
		goto out;
	}
	if (!spec->kernels && bisect_range_is_git(spec->good, spec->bad))
		ret = bisect_range_git(spec->good, spec->bad, &r, err);
	else
		ret = bisect_range_series(conn, spec->good, spec->bad,
					  spec->kernels, &r, err);
	if (ret)
		goto out;
	nb.plant_from = -1;
	if (!spec->plant_from != !spec->plant_testcase) {
		ret = rtlab_err_set(err, "--plant-from and --plant-testcase "
					 "go together");
		goto out;
	}
	if (spec->plant_from) {
		char *end;
		unsigned long at = strtoul(spec->plant_from, &end, 10);

		/* A position, or the first kernel of that name after the
		 * good end. */
		if (*spec->plant_from >= '0' && *spec->plant_from <= '9' &&
		    !*end)
			i = at;
		else
			for (i = 1; i < r.n; i++)
				if (!strcmp(r.kernels[i], spec->plant_from))
					break;
		if (i < 1 || i >= r.n) {
			ret = rtlab_err_set(err,
					    "--plant-from %s: not a kernel "
					    "(or position 1 to %zu) after the "
					    "good one in the range",
					    spec->plant_from, r.n - 1);
			goto out;
		}
		nb.plant_from = (int)i;
		ret = testcase_name(spec->plant_testcase, &pfile, &pname, err);
		if (ret)
			goto out;
		if (strcmp(pname, name)) {
			ret = rtlab_err_set(err,
					    "--plant-testcase %s is testcase "
					    "'%s', not '%s': a planted "
					    "regression must stay in the "
					    "testcase's series",
					    spec->plant_testcase, pname, name);
			goto out;
		}
	}
	if (r.ops == &git_ops)
		snprintf(series, sizeof(series),
			 "git tree %s, first-parent commits", r.tree);
	else
		snprintf(series, sizeof(series), "%s%s%s",
			 r.tree ? "tree " : "list of ", r.tree ? r.tree : "",
			 r.tree ? "" : "kernels");
	nb.testcase = name;
	nb.testcase_file = file;
	nb.duration_s = spec->duration_s;
	nb.series = series;
	nb.kernels = (const char *const *)r.kernels;
	nb.nkernels = r.n;
	nb.plant_file = pfile;
	nb.range_kind = r.ops->kind;
	nb.tree = r.tree;
	nb.commits = r.commits;
	ret = db_bisect_create(conn, &nb, id, err);
	if (ret)
		goto out;
	if (spec->verdict_id)
		ret = update(conn, *id,
			     json_pack("{s:I}", "regression_id",
				       (json_int_t)spec->verdict_id),
			     err);
	if (!ret)
		ret = bisect_advance(conn, *id, err);
	if (ret) {
		/* Nothing half-made stays behind. */
		char sid[24];
		const char *p[1] = { sid };

		snprintf(sid, sizeof(sid), "%" PRId64, *id);
		if (db_exec(conn, NULL,
			    "DELETE FROM jobs WHERE bisect_id = $1::bigint", 1,
			    p) ||
		    db_exec(conn, NULL,
			    "DELETE FROM bisections WHERE id = $1::bigint", 1,
			    p))
			log_warn("bisect %" PRId64 ": could not remove it",
				 *id);
		*id = 0;
	}
out:
	bisect_range_cleanup(&r);
	free(file);
	free(name);
	free(pfile);
	free(pname);
	return ret;
}

int bisect_reset(PGconn *conn, int64_t id, struct rtlab_err *err)
{
	json_t *b = NULL;
	unsigned int n = 0;
	const char *state;
	char why[200];
	int ret;

	ret = db_bisect_get(conn, id, &b, err);
	if (ret)
		return ret;
	state = jstr(b, "state");
	if (strcmp(state, "ends") && strcmp(state, "stepping")) {
		ret = rtlab_err_set(err,
				    "bisection %" PRId64 " has already ended "
				    "(%s): nothing to reset",
				    id, state);
		goto out;
	}
	ret = db_bisect_cancel_jobs(conn, id, -1, &n, err);
	if (ret)
		goto out;
	snprintf(why, sizeof(why),
		 "reset while %s; %u queued job(s) removed; the steps "
		 "decided so far are kept",
		 !strcmp(state, "ends") ? "measuring the ends" : "stepping", n);
	ret = finish(conn, id, b, "reset", why, err);
out:
	json_decref(b);
	return ret;
}

int bisect_get(PGconn *conn, int64_t id, json_t **out, struct rtlab_err *err)
{
	json_t *b = NULL;
	int ret;

	struct bisect_range r;

	ret = db_bisect_get(conn, id, &b, err);
	if (ret)
		return ret;
	if (json_is_integer(json_object_get(b, "culprit"))) {
		json_object_set_new(b, "culprit_kernel",
				    json_string(kname(b,
						      jint(b, "culprit", 0))));
		if (!range_of(b, &r, err)) {
			json_object_set_new(b, "culprit_commit",
					    r.ops->describe(&r,
							    (size_t)jint(b,
									 "culprit",
									 0)));
			bisect_range_cleanup(&r);
		}
	}
	json_object_set_new(b, "range_kernels",
			    json_pack("[s, s]", kname(b, jint(b, "lo", 0)),
				      kname(b, jint(b, "hi", 0))));
	*out = b;
	return 0;
}

void bisect_for_report(PGconn *conn, int64_t verdict_id, json_t *ctx)
{
	struct bisect_range r = { 0 };
	struct rtlab_err err = { "" };
	char vid[24];
	const char *p[1] = { vid };
	json_t *b = NULL, *o = NULL;
	int64_t id;

	snprintf(vid, sizeof(vid), "%" PRId64, verdict_id);
	if (db_query_id(conn,
			"SELECT id FROM bisections WHERE regression_id = "
			"$1::bigint AND state = 'done' ORDER BY id DESC LIMIT 1",
			1, p, &id, &err, "finding a verdict's bisection"))
		return;
	if (bisect_get(conn, id, &b, &err) || range_of(b, &r, &err)) {
		log_warn("report of verdict %" PRId64 ": bisection %" PRId64
			 ": %s",
			 verdict_id, id, err.msg);
		json_decref(b);
		return;
	}
	o = json_pack("{s:O, s:i, s:O}", "id", json_object_get(b, "id"),
		      "steps",
		      (int)json_array_size(json_object_get(b, "steps")),
		      "range", json_object_get(b, "range_kernels"));
	if (o && json_is_integer(json_object_get(b, "culprit")))
		json_object_set_new(o, "culprit",
				    r.ops->describe(&r,
						    (size_t)jint(b, "culprit",
								 0)));
	if (!o || json_object_set_new(ctx, "bisect", o))
		log_warn("report of verdict %" PRId64 ": out of memory",
			 verdict_id);
	bisect_range_cleanup(&r);
	json_decref(b);
}

void bisect_print_status(FILE *f, json_t *b)
{
	int n = (int)json_array_size(json_object_get(b, "kernels"));
	const char *state = jstr(b, "state");
	json_t *step = json_object_get(b, "step");

	fprintf(f, "bisection %" JSON_INTEGER_FORMAT ": %s\n",
		json_integer_value(json_object_get(b, "id")), state);
	fprintf(f, "board:    %s\ntestcase: %s\n", jstr(b, "board"),
		jstr(b, "testcase"));
	fprintf(f, "range:    %d kernels (%s): good %s, bad %s\n", n,
		jstr(b, "series"), kname(b, 0), kname(b, n - 1));
	if (json_is_integer(json_object_get(b, "plant_from")))
		fprintf(f,
			"planted:  kernels from %s (position %d) on run %s "
			"(a self-check of the lab)\n",
			kname(b, jint(b, "plant_from", 0)),
			jint(b, "plant_from", 0), jstr(b, "plant_file"));
	fprintf(f, "now:      %s .. %s\n", kname(b, jint(b, "lo", 0)),
		kname(b, jint(b, "hi", n - 1)));
	if (json_is_integer(step))
		fprintf(f, "testing:  %s (position %d)\n",
			kname(b, (int)json_integer_value(step)),
			(int)json_integer_value(step));
	if (!strcmp(state, "ends"))
		fprintf(f, "testing:  the ends, on this board\n");
	if (json_is_integer(json_object_get(b, "culprit")))
		fprintf(f, "culprit:  %s\n", kname(b, jint(b, "culprit", 0)));
	if (json_is_array(json_object_get(b, "commits")) &&
	    json_is_object(json_object_get(b, "culprit_commit")))
		fprintf(f, "commit:   %s\nsubject:  %s\nauthor:   %s\n",
			jstr(json_object_get(b, "culprit_commit"), "id"),
			jstr(json_object_get(b, "culprit_commit"), "subject"),
			jstr(json_object_get(b, "culprit_commit"), "author"));
	if (jstr(b, "result"))
		fprintf(f, "result:   %s\n", jstr(b, "result"));
	fprintf(f, "steps:    %zu decided\n",
		json_array_size(json_object_get(b, "steps")));
}

static void print_verdict(FILE *f, const char *what, json_t *v)
{
	if (!v || json_is_null(v))
		return;
	fprintf(f, "    %-8s %s at look %d: %.200s\n", what,
		jstr(v, "verdict") ? jstr(v, "verdict") : "?", look_of(v),
		jstr(v, "reason") ? jstr(v, "reason") : "");
}

void bisect_print_log(FILE *f, json_t *b)
{
	json_t *s, *c, *ends = json_object_get(b, "ends_verdict");
	struct pos p;
	size_t i;

	fprintf(f, "bisection %" JSON_INTEGER_FORMAT ": %s\n",
		json_integer_value(json_object_get(b, "id")), jstr(b, "state"));
	if (ends && !json_is_null(ends)) {
		fprintf(f, "ends: %s against %s\n",
			kname(b,
			      (int)json_array_size(json_object_get(b,
								   "kernels")) -
				      1),
			kname(b, 0));
		print_verdict(f, "bad/good", ends);
	}
	json_array_foreach(json_object_get(b, "steps"), i, s) {
		p = pos_of(b, jint(s, "position", 0));
		fprintf(f, "step %zu: %s (position %d): %s [%s], %d run(s)%s\n",
			i + 1, jstr(s, "kernel"), jint(s, "position", 0),
			jstr(s, "mark"), jstr(s, "decision"), nruns(&p),
			p.failed ? ", some failed" : "");
		c = json_array_get(json_object_get(b, "commits"),
				   (size_t)jint(s, "position", 0));
		if (c)
			fprintf(f, "    commit   %.12s %s (%s)\n",
				jstr(c, "id"), jstr(c, "subject"),
				jstr(c, "author"));
		if (jstr(s, "reason"))
			fprintf(f, "    why      %s\n", jstr(s, "reason"));
		print_verdict(f, "vs good", json_object_get(s, "vs_good"));
		print_verdict(f, "vs bad", json_object_get(s, "vs_bad"));
	}
	if (jstr(b, "result"))
		fprintf(f, "result: %s\n", jstr(b, "result"));
}
