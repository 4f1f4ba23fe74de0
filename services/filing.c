// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Filing a regression report into a Bugzilla 5, fitted to what the server
 * takes: its attachment limit (GET /rest/parameters, else the configured
 * bugzilla_max_attachment_kb), its comment limit, the values its fields
 * offer.  One bug per regression: the regression's tag (whiteboard) finds
 * the bug an earlier verdict filed, here or in another lab, and a new
 * verdict comments on it.  The reports row records what is still missing
 * from the bug, so nothing is claimed that did not happen and a later call
 * can complete it.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "../db/db-reports.h"
#include "../reports/bugzilla.h"
#include "../reports/report.h"
#include "filing.h"
#include "reporting.h"

const char *filing_lab_url(const struct rtlab_config *cfg, char *buf,
			   size_t size)
{
	if (cfg->public_url && *cfg->public_url) {
		snprintf(buf, size, "%s", cfg->public_url);
		size = strlen(buf);
		while (size > 8 && buf[size - 1] == '/')
			buf[--size] = '\0';
	} else {
		snprintf(buf, size, "http://%s",
			 cfg->listen ? cfg->listen : RTLAB_DEFAULT_LISTEN);
	}
	return buf;
}

static void say(const struct filing_opts *o, const char *msg)
{
	if (o->say)
		o->say(o->arg, "%s", msg);
}

/* What the reports row keeps: the attachments and those still missing. */
static json_t *files_of(const struct report *r, const char *tag,
			const char *kind, const char *version)
{
	json_t *f = json_pack("{s:s, s:s, s:s, s:s?, s:[], s:[]}", "summary",
			      r->summary, "regression", tag, "kind", kind,
			      "bugzilla_version", version, "attachments",
			      "missing");
	size_t i;

	for (i = 0; f && i < r->natt; i++) {
		json_array_append_new(json_object_get(f, "attachments"),
				      json_string(r->att[i].file_name));
		json_array_append_new(json_object_get(f, "missing"),
				      json_string(r->att[i].file_name));
	}
	return f;
}

static int files_save(PGconn *conn, int64_t id, const json_t *files,
		      struct rtlab_err *err)
{
	char *text = json_dumps(files, JSON_COMPACT);
	int ret;

	if (!text)
		return -ENOMEM;
	ret = db_report_files_set(conn, id, text, err);
	free(text);
	return ret;
}

static bool listed(const json_t *names, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach(names, i, v)
		if (json_string_value(v) && !strcmp(json_string_value(v), name))
			return true;
	return false;
}

static void drop_name(json_t *names, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach(names, i, v)
		if (json_string_value(v) &&
		    !strcmp(json_string_value(v), name)) {
			json_array_remove(names, i);
			return;
		}
}

/*
 * Post the attachments of @r that @files lists as missing, dropping each
 * that lands from the list (saved after each, so a crash loses nothing).
 * Return: how many failed; @err names the last failure.
 */
static size_t post_missing(PGconn *conn, int64_t verdict_id,
			   const struct bz_client *bz, int64_t bug_id,
			   const struct report *r, json_t *files,
			   const struct filing_opts *o, struct rtlab_err *err)
{
	json_t *missing = json_object_get(files, "missing");
	struct rtlab_err aerr = { "" };
	size_t i, failed = 0;
	int64_t att_id;
	char msg[RTLAB_ERR_LEN + 200];

	for (i = 0; i < r->natt; i++) {
		json_t *att;
		int ret;

		if (!listed(missing, r->att[i].file_name))
			continue;
		att = report_attachment_json(&r->att[i], bug_id);
		ret = att ? bz_attachment_add(bz, bug_id, att, &att_id, &aerr) :
			    -ENOMEM;
		json_decref(att);
		if (ret) {
			snprintf(msg, sizeof(msg),
				 "bug %" PRId64 ": attachment %s (%zu bytes) "
				 "not added: %s",
				 bug_id, r->att[i].file_name, r->att[i].size,
				 ret == -ENOMEM ? "out of memory" : aerr.msg);
			say(o, msg);
			rtlab_err_seterr(err, EAGAIN, "%s", msg);
			failed++;
			continue;
		}
		drop_name(missing, r->att[i].file_name);
		if (files_save(conn, verdict_id, files, &aerr))
			say(o, aerr.msg);
	}
	return failed;
}

/* Drop the custom fields or values the server does not offer, and fit
 * platform, op_sys, severity and priority to its lists. */
static int adapt_fields(const struct bz_client *bz, json_t *bug,
			const struct filing_opts *o, struct rtlab_err *err)
{
	static const char *const platforms[] = { "x86_64", "PC", "All", NULL };
	static const char *const arm[] = { "ARM", "arm64", "All", NULL };
	static const char *const op_sys[] = { "Linux", "All", NULL };
	static const char *const sev_high[] = { "major", "critical", "high",
						"normal", NULL };
	static const char *const sev_normal[] = { "normal", "medium", NULL };
	struct {
		const char *key, *field;
		const char *const *cands;
	} std[] = {
		{ "platform", "rep_platform", platforms },
		{ "op_sys", "op_sys", op_sys },
		{ "severity", "bug_severity", sev_normal },
		{ "priority", "priority", NULL },
	};
	const char *key;
	json_t *v, *keys = json_array();
	char note[512];
	size_t i;
	int ret = 0;

	if (!keys)
		return -ENOMEM;
	if (json_string_value(json_object_get(bug, "product"))) {
		json_t *product = NULL;

		ret = bz_product_get(bz,
				     json_string_value(json_object_get(bug,
								       "product")),
				     &product, err);
		if (ret == -ENOENT)
			say(o, "the server shows no product by that name to "
			       "anonymous readers: sent as configured");
		else if (ret)
			goto out;
		ret = 0;
		if (product &&
		    bz_bug_fit_product(bug, product, note, sizeof(note)))
			say(o, note);
		json_decref(product);
	}
	if (json_string_value(json_object_get(bug, "platform")) &&
	    !strcmp(json_string_value(json_object_get(bug, "platform")), "ARM"))
		std[0].cands = arm;
	if (json_string_value(json_object_get(bug, "severity")) &&
	    strcmp(json_string_value(json_object_get(bug, "severity")),
		   "normal"))
		std[2].cands = sev_high;
	for (i = 0; i < sizeof(std) / sizeof(std[0]); i++) {
		json_t *field = NULL;

		if (!json_object_get(bug, std[i].key))
			continue;
		ret = bz_field_get(bz, std[i].field, &field, err);
		if (ret && ret != -ENOENT)
			goto out;
		ret = 0;
		if (bz_bug_choose(bug, std[i].key, field, std[i].cands, note,
				  sizeof(note)))
			say(o, note);
		json_decref(field);
	}
	json_object_foreach(bug, key, v)
		if (!strncmp(key, "cf_", 3))
			json_array_append_new(keys, json_string(key));
	json_array_foreach(keys, i, v) {
		const char *name = json_string_value(v);
		json_t *field = NULL;

		ret = bz_field_get(bz, name, &field, err);
		if (ret && ret != -ENOENT)
			break;
		ret = 0;
		if (bz_bug_adapt(bug, name, field, note, sizeof(note)))
			say(o, note);
		json_decref(field);
	}
out:
	json_decref(keys);
	return ret;
}

/* The server's limits into @f, its version into *@version. */
static int ask_server(const struct bz_client *bz, const struct filing_opts *o,
		      struct report_fields *f, char **version,
		      struct rtlab_err *err)
{
	json_t *params = NULL;
	char msg[200];
	int ret;

	ret = bz_version(bz, version, err);
	if (ret)
		return ret;
	ret = bz_parameters(bz, &params, err);
	if (ret && ret != -ENOENT)
		return ret;
	f->max_attachment_bytes =
		bz_max_attachment_bytes(params,
					(size_t)o->cfg->bugzilla_max_attachment_kb *
						1024);
	snprintf(msg, sizeof(msg),
		 "attachments up to %zu KB (%s), comments up to %d "
		 "characters",
		 f->max_attachment_bytes / 1024,
		 params ? "the server's maxattachmentsize" :
			  "bugzilla_max_attachment_kb: the server does not "
			  "publish it",
		 REPORT_COMMENT_MAX);
	say(o, msg);
	json_decref(params);
	return 0;
}

/* Add the attachments a filed verdict's bug is still missing. */
static int complete(PGconn *conn, int64_t id, const struct bz_client *bz,
		    int64_t bug_id, const char *bug_url, json_t *files,
		    struct report_fields *f, const struct filing_opts *o,
		    struct filing_result *res, struct rtlab_err *err)
{
	struct report r = { 0 };
	char *version = NULL;
	size_t failed, nmissing;
	int ret;

	nmissing = json_array_size(json_object_get(files, "missing"));
	ret = ask_server(bz, o, f, &version, err);
	if (!ret)
		ret = reporting_build(conn, id, true, f, &r, err);
	if (ret)
		goto out;
	res->outcome = FILING_COMPLETED;
	res->bug_id = bug_id;
	snprintf(res->bug_url, sizeof(res->bug_url), "%s", bug_url);
	res->natt = nmissing;
	if (o->dry_run) {
		res->outcome = FILING_DRY_RUN;
		goto out;
	}
	failed = post_missing(conn, id, bz, bug_id, &r, files, o, err);
	res->attached = nmissing - failed;
	ret = failed ? -EAGAIN : 0;
out:
	free(version);
	report_cleanup(&r);
	return ret;
}

int filing_file(PGconn *conn, int64_t id, const struct filing_opts *o,
		struct filing_result *res, struct rtlab_err *err)
{
	const struct rtlab_config *cfg = o->cfg;
	struct report_fields f = { cfg->bugzilla_product,
				   cfg->bugzilla_component,
				   cfg->bugzilla_version, 0, NULL };
	struct bz_client bz = { 0 };
	struct report r = { 0 };
	char *version = NULL, *bug_url = NULL, *tag = NULL, *files_text = NULL;
	char lab[512], msg[600];
	json_t *files = NULL;
	int64_t bug_id = 0, comment_id;
	bool comment = false;
	size_t failed;
	int ret;

	memset(res, 0, sizeof(*res));
	f.lab_url = filing_lab_url(cfg, lab, sizeof(lab));
	ret = bz_client_init(&bz, o->url, o->api_key, err);
	if (ret)
		return ret;

	ret = db_report_filed(conn, id, &bug_id, &bug_url, err);
	if (!ret) {
		ret = db_report_files_get(conn, id, &files, err);
		if (ret)
			goto out;
		if (!json_array_size(json_object_get(files, "missing"))) {
			ret = rtlab_err_seterr(err, EEXIST,
					       "verdict %" PRId64
					       " is already filed as bug %" PRId64
					       " (%s), every attachment on it",
					       id, bug_id, bug_url);
			goto out;
		}
		ret = complete(conn, id, &bz, bug_id, bug_url, files, &f, o,
			       res, err);
		goto out;
	}
	if (ret != -ENOENT)
		goto out;

	ret = ask_server(&bz, o, &f, &version, err);
	if (!ret)
		ret = reporting_build(conn, id, o->force, &f, &r, err);
	if (ret)
		goto out;
	ret = report_fit_comment(&r, REPORT_COMMENT_MAX);
	tag = report_regression_tag(r.ctx);
	if (ret || !tag) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}

	/* One bug per regression: filed from here, or by another lab. */
	ret = db_report_regression_bug(conn, tag, &bug_id, &bug_url, err);
	if (ret == -ENOENT) {
		ret = bz_bug_find_tag(&bz, tag, &bug_id, err);
		if (!ret)
			bug_url = bz_bug_url(&bz, bug_id);
		if (!ret && !bug_url)
			ret = -ENOMEM;
	}
	if (ret && ret != -ENOENT)
		goto out;
	comment = !ret;
	ret = 0;
	if (comment) {
		snprintf(msg, sizeof(msg),
			 "regression %s has bug %" PRId64
			 " already: verdict %" PRId64
			 " goes there as a comment",
			 tag, bug_id, id);
		say(o, msg);
	} else {
		ret = adapt_fields(&bz, r.bug, o, err);
		if (ret)
			goto out;
	}

	if (o->dry_run) {
		json_t *shown = json_deep_copy(r.bug);
		char *dump;

		res->outcome = FILING_DRY_RUN;
		res->bug_id = comment ? bug_id : 0;
		res->natt = r.natt;
		if (shown)
			json_object_set_new(shown, "description",
					    json_sprintf("(report.txt, %zu "
							 "characters)",
							 strlen(r.text)));
		dump = shown ? json_dumps(shown, JSON_INDENT(2) |
							 JSON_PRESERVE_ORDER) :
			       NULL;
		json_decref(shown);
		if (o->say) {
			o->say(o->arg,
			       "dry run against Bugzilla %s at %s; "
			       "nothing filed.",
			       version, bz.url);
			if (comment)
				o->say(o->arg,
				       "POST /rest/bug/%" PRId64
				       "/comment: report.txt",
				       bug_id);
			else
				o->say(o->arg, "POST /rest/bug:\n%s",
				       dump ? dump : "(out of memory)");
			for (failed = 0; failed < r.natt; failed++)
				o->say(o->arg,
				       "POST /rest/bug/ID/attachment: %s (%s, "
				       "%zu bytes)",
				       r.att[failed].file_name,
				       r.att[failed].content_type,
				       r.att[failed].size);
		}
		free(dump);
		goto out;
	}

	if (comment) {
		char *text = NULL;

		if (asprintf(&text,
			     "rtlab verdict %" PRId64 ", a new verdict of "
			     "this regression: the figures now.\n\n%s",
			     id, r.text) < 0) {
			ret = -ENOMEM;
			goto out;
		}
		ret = bz_comment_add(&bz, bug_id, text, &comment_id, err);
		free(text);
	} else {
		ret = bz_bug_create(&bz, r.bug, &bug_id, err);
		if (!ret)
			bug_url = bz_bug_url(&bz, bug_id);
		if (!ret && !bug_url)
			ret = -ENOMEM;
	}
	if (ret) {
		snprintf(msg, sizeof(msg), "%s", "; nothing recorded as filed");
		strncat(err->msg, msg, sizeof(err->msg) - strlen(err->msg) - 1);
		goto out;
	}
	res->outcome = comment ? FILING_COMMENTED : FILING_NEW_BUG;
	res->bug_id = bug_id;
	snprintf(res->bug_url, sizeof(res->bug_url), "%s", bug_url);
	res->natt = r.natt;

	/* Recorded before the attachments, every one of them missing until
	 * it lands: a failure among them can neither file the verdict twice
	 * nor claim an attachment the bug does not have. */
	files = files_of(&r, tag, comment ? "comment" : "bug", version);
	files_text = files ? json_dumps(files, JSON_COMPACT) : NULL;
	if (!files_text) {
		ret = -ENOMEM;
		goto out;
	}
	ret = db_report_record(conn, id, bug_id, bug_url, tag, files_text, err);
	if (ret) {
		struct rtlab_err why = *err;

		rtlab_err_seterr(err, -ret,
				 "filed as bug %" PRId64
				 " but not recorded: %s",
				 bug_id, why.msg);
		goto out;
	}
	failed = post_missing(conn, id, &bz, bug_id, &r, files, o, err);
	res->attached = r.natt - failed;
	if (failed) {
		char *note = NULL;

		if (asprintf(&note,
			     "rtlab: %zu of %zu attachments of verdict %" PRId64
			     " could not be added yet (the last error: %s).\n"
			     "`rtlab report file %" PRId64 "` adds them.",
			     failed, r.natt, id, err->msg, id) >= 0 &&
		    bz_comment_add(&bz, bug_id, note, &comment_id, NULL))
			say(o, "the comment about the missing attachments "
			       "could not be added either");
		free(note);
		ret = -EAGAIN;
	}
out:
	if (ret == -ENOMEM && !err->msg[0])
		rtlab_err_seterr(err, ENOMEM, "out of memory");
	json_decref(files);
	free(files_text);
	free(version);
	free(bug_url);
	free(tag);
	report_cleanup(&r);
	bz_client_cleanup(&bz);
	return ret;
}
