// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The maintainers' decisions: pinned baselines and testcase verdict
 * parameters, shared by the CLI and the HTTP API so both check the same
 * way and answer the same JSON.
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../db/db-boards.h"
#include "../db/db-testcases.h"
#include "../db/db-verdicts.h"
#include "lab.h"
#include "testcase.h"
#include "verdict.h"

int lab_baseline_set(PGconn *conn, const char *board, const char *testcase,
		     const char *kernel, const char *tree, json_t **out,
		     struct rtlab_err *err)
{
	int board_id, testcase_id, kernel_id, ret;
	json_t *clocks = NULL, *v;
	json_int_t runs = 0;
	char ktree[256];
	const char *key;

	*out = NULL;
	ret = db_board_lookup(conn, board, &board_id, err);
	if (!ret)
		ret = db_testcase_lookup(conn, testcase, &testcase_id, err);
	if (!ret)
		ret = db_kernel_resolve(conn, kernel, &kernel_id, err);
	if (!ret)
		ret = db_kernel_tree(conn, kernel_id, ktree, sizeof(ktree),
				     err);
	if (ret)
		return ret;
	if (!tree)
		tree = ktree;
	ret = db_baseline_set(conn, board_id, testcase_id, tree, kernel_id,
			      err);
	if (!ret)
		ret = db_series_clocks(conn, board_id, testcase_id, kernel_id,
				       &clocks, err);
	if (ret)
		return ret;
	json_object_foreach(clocks, key, v)
		runs += json_integer_value(v);
	json_decref(clocks);
	*out = json_pack("{sssssssssisssI}", "board", board, "testcase",
			 testcase, "tree", tree, "kernel", kernel, "kernel_id",
			 kernel_id, "kernel_tree", ktree, "complete_runs",
			 runs);
	return *out ? 0 : rtlab_err_seterr(err, ENOMEM, "out of memory");
}

int lab_baseline_unset(PGconn *conn, const char *board, const char *testcase,
		       const char *tree, struct rtlab_err *err)
{
	int board_id, testcase_id, ret;

	ret = db_board_lookup(conn, board, &board_id, err);
	if (!ret)
		ret = db_testcase_lookup(conn, testcase, &testcase_id, err);
	if (!ret)
		ret = db_baseline_unset(conn, board_id, testcase_id, tree, err);
	return ret;
}

/* The parameters verdicts use, as JSON (floor_us for floor_abs_us). */
static json_t *params_json(const struct regress_params *p)
{
	return json_pack("{sfsfsfsfsi}", "floor_us", p->floor_abs_us,
			 "floor_rel", p->floor_rel, "tail_q", p->tail_q,
			 "alpha", p->alpha, "min_runs", (int)p->min_runs);
}

int lab_testcase_get(PGconn *conn, const char *name, json_t **out,
		     struct rtlab_err *err)
{
	struct rtlab_err lerr = { "" }, perr = { "" };
	struct regress_params p;
	json_t *row = NULL, *file = NULL, *def;
	int ret, fret;

	*out = NULL;
	fret = testcase_lab_load(name, &file, &lerr);
	if (fret == -ENOMEM)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	ret = db_testcase_get(conn, name, &row, err);
	if (ret == -ENOENT && !fret) {
		/* The lab defines it; no run has used it yet. */
		row = json_pack("{sssbsOsnsn}", "name", name, "lab", 1,
				"definition", file, "updated_at", "updated_by");
		ret = row ? 0 : rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	if (ret)
		goto out;
	def = json_object_get(row, "definition");
	if (verdict_params_parse(def, name, &p, &perr))
		regress_params_init(&p);
	if (json_object_set_new(row, "lab_file",
				file ? json_incref(file) : json_null()) ||
	    json_object_set_new(row, "verdict", params_json(&p)) ||
	    json_object_set_new(row, "verdict_error",
				perr.msg[0] ? json_string(perr.msg) :
					      json_null())) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	json_object_del(row, "id");
	*out = row;
	row = NULL;
out:
	json_decref(row);
	json_decref(file);
	return ret;
}

int lab_testcase_verdict_set(PGconn *conn, const char *name,
			     const json_t *changes, const char *by,
			     json_t **out, struct rtlab_err *err)
{
	struct regress_params p;
	json_t *row = NULL, *verdict = NULL, *def = NULL, *v;
	const char *key;
	int ret;

	*out = NULL;
	if (!json_is_object(changes) || !json_object_size(changes))
		return rtlab_err_set(err,
				     "testcase '%s': expected verdict "
				     "parameters to set {floor_us, floor_rel, "
				     "tail_q, alpha, min_runs}",
				     name);
	if (!name || !*name || strlen(name) > 128)
		return rtlab_err_set(err,
				     "testcase name '%s': expected 1 to "
				     "128 characters",
				     name ? name : "");
	ret = db_testcase_get(conn, name, &row, err);
	if (ret && ret != -ENOENT)
		return ret;
	v = json_object_get(json_object_get(row, "definition"), "verdict");
	verdict = json_is_object(v) ? json_deep_copy(v) : json_object();
	if (!verdict) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	json_object_foreach((json_t *)changes, key, v) {
		/* floor_abs_us is the alias the stored form may hold. */
		if (!strcmp(key, "floor_us"))
			json_object_del(verdict, "floor_abs_us");
		if (json_is_null(v))
			json_object_del(verdict, key);
		else if (json_object_set(verdict, key, v)) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	def = json_pack("{sO}", "verdict", verdict);
	ret = def ? verdict_params_parse(def, name, &p, err) :
		    rtlab_err_seterr(err, ENOMEM, "out of memory");
	if (!ret)
		ret = db_testcase_verdict_put(conn, name, verdict, by, err);
	if (!ret)
		ret = lab_testcase_get(conn, name, out, err);
out:
	json_decref(def);
	json_decref(verdict);
	json_decref(row);
	return ret;
}
