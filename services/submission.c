// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Developer submissions: check a built kernel, store it as a kernel
 * definition, queue its runs and the baseline's, and settle it once they
 * ended (docs/farm.md).
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <archive.h>
#include <archive_entry.h>

#include "../db/db-farm.h"
#include "../db/db-jobs.h"
#include "../db/db-submissions.h"
#include "../db/db.h"
#include "../kernels/kernel.h"
#include "../kernels/tree.h"
#include "farm.h"
#include "fsutil.h"
#include "jobs.h"
#include "notify.h"
#include "strbuf.h"
#include "submission.h"
#include "verdict.h"

#define SUBMISSION_FILES                                                 \
	"submission.json and either kernel.deb, or bzImage, config and " \
	"modules.tar[.gz|.xz]"

/* Where a member of the archive is kept: its base name, checked. */
static const char *member_name(const char *path)
{
	static const char *const ok[] = { "submission.json", "bzImage",
					  "config",	     "modules.tar",
					  "modules.tar.gz",  "modules.tar.xz",
					  "modules.tgz",     NULL };
	const char *b = strrchr(path, '/');
	size_t i, n;

	b = b ? b + 1 : path;
	for (i = 0; ok[i]; i++)
		if (!strcmp(b, ok[i]))
			return ok[i];
	n = strlen(b);
	if (n > 4 && !strcmp(b + n - 4, ".deb") && !strchr(b, '\\'))
		return "kernel.deb";
	return NULL;
}

static int extract(const void *data, size_t len, const char *dir,
		   struct rtlab_err *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char path[4096];
	int r, fd, ret = 0;

	if (!a)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_memory(a, data, len) != ARCHIVE_OK) {
		ret = rtlab_err_set(err,
				    "submission: not a tar archive (%s); "
				    "expected " SUBMISSION_FILES,
				    archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = member_name(archive_entry_pathname(e));

		if (archive_entry_filetype(e) == AE_IFDIR)
			continue;
		if (!name || archive_entry_filetype(e) != AE_IFREG) {
			ret = rtlab_err_set(err,
					    "submission: unexpected member "
					    "'%s' (expected " SUBMISSION_FILES
					    ")",
					    archive_entry_pathname(e));
			goto out;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			ret = rtlab_err_set(err,
					    "submission: member '%s' twice, or "
					    "cannot be stored (%s)",
					    name, strerror(errno));
			goto out;
		}
		r = archive_read_data_into_fd(a, fd);
		if (close(fd) || r != ARCHIVE_OK) {
			ret = rtlab_err_set(err,
					    "submission: damaged member '%s' "
					    "(%s)",
					    name, archive_error_string(a));
			goto out;
		}
	}
	if (r != ARCHIVE_EOF)
		ret = rtlab_err_set(err, "submission: damaged tar archive (%s)",
				    archive_error_string(a));
out:
	archive_read_free(a);
	return ret;
}

static bool exists(const char *dir, const char *name)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !stat(p, &st) && S_ISREG(st.st_mode);
}

/* The single directory under DIR/root/lib/modules, malloc'd, or NULL. */
static char *modules_release(const char *dir)
{
	char p[4096];
	struct dirent *d;
	char *rel = NULL;
	int n = 0;
	DIR *dh;

	snprintf(p, sizeof(p), "%s/root/lib/modules", dir);
	dh = opendir(p);
	while (dh && (d = readdir(dh)))
		if (d->d_name[0] != '.') {
			n++;
			free(rel);
			rel = strdup(d->d_name);
		}
	if (dh)
		closedir(dh);
	if (n != 1) {
		free(rel);
		rel = NULL;
	}
	return rel;
}

static int run(char *const argv[], const char *what, struct rtlab_err *err)
{
	char *out = NULL;
	int rc = spawn_capture(argv, NULL, 1, &out, err);

	if (rc > 0)
		rc = rtlab_err_set(err, "submission: %s: %s failed: %.300s",
				   what, argv[0], out ? out : "");
	free(out);
	return rc;
}

/*
 * Unpack the kernel's files in @dir and write @dir/kernel.yaml, a local
 * kernel definition named @name.  *@kind gets "deb" or "image".
 */
static int unpack_kernel(const char *dir, const char *name, const char *tree,
			 const char **kind, struct rtlab_err *err)
{
	char root[4096], file[4096], image[600], config[600], mods[600];
	char *rel = NULL;
	FILE *f;
	int ret;

	snprintf(root, sizeof(root), "%s/root", dir);
	if (mkdir(root, 0755))
		return rtlab_err_set(err, "%s: %s", root, strerror(errno));
	if (exists(dir, "kernel.deb")) {
		char *dpkg[] = { "dpkg-deb", "-x", file, root, NULL };

		*kind = "deb";
		snprintf(file, sizeof(file), "%s/kernel.deb", dir);
		ret = run(dpkg, "kernel.deb: not a Debian package", err);
		if (ret)
			return ret;
		rel = modules_release(dir);
		if (!rel)
			return rtlab_err_set(err,
					     "submission: kernel.deb: not a "
					     "kernel package (expected one "
					     "lib/modules/RELEASE directory)");
		snprintf(image, sizeof(image), "root/boot/vmlinuz-%s", rel);
		snprintf(config, sizeof(config), "root/boot/config-%s", rel);
		if (!exists(dir, image)) {
			ret = rtlab_err_set(err,
					    "submission: kernel.deb: not a "
					    "kernel package (no "
					    "boot/vmlinuz-%s)",
					    rel);
			goto out;
		}
		if (!exists(dir, config)) {
			ret = rtlab_err_set(err,
					    "submission: kernel.deb: no "
					    "boot/config-%s: the lab needs "
					    "the kernel's .config",
					    rel);
			goto out;
		}
	} else if (exists(dir, "bzImage")) {
		static const char *const tars[] = { "modules.tar",
						    "modules.tar.gz",
						    "modules.tar.xz",
						    "modules.tgz", NULL };
		size_t i;

		*kind = "image";
		if (!exists(dir, "config"))
			return rtlab_err_set(err, "submission: bzImage without "
						  "config: the lab needs the "
						  "kernel's .config (member "
						  "'config')");
		for (i = 0; tars[i] && !exists(dir, tars[i]); i++)
			;
		if (!tars[i])
			return rtlab_err_set(err,
					     "submission: bzImage without its "
					     "modules: expected "
					     "modules.tar[.gz|.xz] holding "
					     "lib/modules/RELEASE/");
		{
			char *tar[] = { "tar", "-x", "--no-same-owner",
					"-C",  root, "-f",
					file,  NULL };

			snprintf(file, sizeof(file), "%s/%s", dir, tars[i]);
			ret = run(tar, tars[i], err);
			if (ret)
				return ret;
		}
		rel = modules_release(dir);
		if (!rel)
			return rtlab_err_set(err,
					     "submission: %s: expected exactly "
					     "one lib/modules/RELEASE/ "
					     "directory",
					     tars[i]);
		snprintf(image, sizeof(image), "bzImage");
		snprintf(config, sizeof(config), "config");
	} else {
		return rtlab_err_set(err, "submission: no kernel: expected "
					  "kernel.deb or bzImage (with config "
					  "and modules.tar[.gz|.xz])");
	}
	{
		char *depmod[] = { "depmod", "-b", root, rel, NULL };

		ret = run(depmod, "modules", err);
		if (ret)
			goto out;
	}
	snprintf(mods, sizeof(mods), "root/lib/modules/%s", rel);
	snprintf(file, sizeof(file), "%s/kernel.yaml", dir);
	f = fopen(file, "w");
	if (!f) {
		ret = rtlab_err_set(err, "%s: %s", file, strerror(errno));
		goto out;
	}
	fprintf(f,
		"# a developer submission's kernel, as submitted\n"
		"name: %s\nkind: local\nimage: %s\nconfig: %s\nmodules: %s\n",
		name, image, config, mods);
	if (tree)
		fprintf(f, "tree: %s\n", tree);
	ret = fclose(f) ? rtlab_err_set(err, "%s: %s", file, strerror(errno)) :
			  0;
out:
	free(rel);
	return ret;
}

/* Check the kernel a definition describes: an image, PREEMPT_RT. */
static int check_kernel(const char *yaml, struct rtlab_err *err)
{
	struct kernel_ident id = { 0 };
	struct kernel_def *k = kernel_def_load(yaml, err);
	int ret;

	if (!k)
		return -EINVAL;
	ret = kernel_fetch(k, NULL, &id, err);
	if (ret) {
		/* the files were the developer's: name them, not our paths */
		const char *m = strstr(err->msg, "field '");

		if (m) {
			char msg[RTLAB_ERR_LEN];

			snprintf(msg, sizeof(msg),
				 "submission: not a kernel: %s", m);
			snprintf(err->msg, sizeof(err->msg), "%s", msg);
		}
		ret = -EINVAL;
	} else if (id.realtime != 1) {
		ret = rtlab_err_set(err,
				    "submission: config: CONFIG_PREEMPT_RT is "
				    "not set in kernel %s; the lab's "
				    "testcases measure PREEMPT_RT kernels",
				    id.release);
	}
	kernel_ident_cleanup(&id);
	kernel_def_free(k);
	return ret;
}

static int names(json_t *req, const char *key, json_t **out,
		 struct rtlab_err *err)
{
	json_t *a = json_object_get(req, key), *x;
	size_t i;

	*out = NULL;
	if (!json_is_array(a) || !json_array_size(a) ||
	    json_array_size(a) > SUBMISSION_MAX_NAMES)
		return rtlab_err_set(err,
				     "submission.json: '%s': expected a list "
				     "of 1 to %d names",
				     key, SUBMISSION_MAX_NAMES);
	json_array_foreach(a, i, x)
		if (!json_is_string(x) || !*json_string_value(x) ||
		    strchr(json_string_value(x), '/'))
			return rtlab_err_set(err,
					     "submission.json: '%s'[%zu]: "
					     "expected a name",
					     key, i);
	*out = a;
	return 0;
}

static int uint_key(json_t *req, const char *key, unsigned int min,
		    unsigned int max, unsigned int *v, struct rtlab_err *err)
{
	json_t *x = json_object_get(req, key);

	if (!x)
		return 0;
	if (!json_is_integer(x) || json_integer_value(x) < min ||
	    json_integer_value(x) > max)
		return rtlab_err_set(err,
				     "submission.json: '%s': expected a whole "
				     "number from %u to %u",
				     key, min, max);
	*v = (unsigned int)json_integer_value(x);
	return 0;
}

/* The common fields of every kind; *@baseline malloc'd. */
static int request_check(PGconn *conn, json_t *req, struct db_submission_new *s,
			 char **baseline, struct rtlab_err *err)
{
	static const char *const known[] = { "kind",	   "boards",
					     "testcases",  "baseline",
					     "tree",	   "runs",
					     "duration_s", "git",
					     "ref",	   "config_fragment",
					     NULL };
	const char *key, *b;
	json_t *x;
	size_t i;
	int ret;

	*baseline = NULL;
	if (!json_is_object(req))
		return rtlab_err_set(err, "submission.json: expected a JSON "
					  "object");
	json_object_foreach(req, key, x) {
		for (i = 0; known[i] && strcmp(known[i], key); i++)
			;
		if (!known[i])
			return rtlab_err_set(err,
					     "submission.json: unknown field "
					     "'%s' (expected boards, "
					     "testcases, baseline, tree, runs, "
					     "duration_s)",
					     key);
	}
	ret = names(req, "boards", &s->boards, err) ?:
		      names(req, "testcases", &s->testcases, err);
	if (ret)
		return ret;
	s->runs = 0;
	ret = uint_key(req, "runs", 2, SUBMISSION_MAX_RUNS, &s->runs, err) ?:
		      uint_key(req, "duration_s", 1, JOBS_MAX_DURATION_S,
			       &s->duration_s, err);
	if (ret)
		return ret;
	x = json_object_get(req, "tree");
	if (x) {
		struct tree_def *t;

		if (!json_is_string(x) || strchr(json_string_value(x), '/'))
			return rtlab_err_set(err, "submission.json: 'tree': "
						  "expected a tree name (rtlab "
						  "tree list)");
		t = tree_def_find(json_string_value(x), err);
		if (!t)
			return -ENOENT;
		tree_def_free(t);
		s->tree = json_string_value(x);
	}
	x = json_object_get(req, "baseline");
	if (x && (!json_is_string(x) || !*json_string_value(x)))
		return rtlab_err_set(err, "submission.json: 'baseline': "
					  "expected a kernel (a definition "
					  "name or PACKAGE=VERSION)");
	b = json_string_value(x);
	if (b) {
		struct kernel_def *k;

		if (strchr(b, '/'))
			return rtlab_err_set(err,
					     "submission.json: 'baseline': "
					     "'%s': expected a definition "
					     "name or PACKAGE=VERSION, not a "
					     "path",
					     b);
		k = kernel_def_find(b, err);
		if (!k)
			return -EINVAL;
		kernel_def_free(k);
		*baseline = strdup(b);
	} else if (s->tree) {
		ret = db_submission_tree_baseline(conn, s->tree, baseline, err);
		if (ret == -ENOENT)
			return rtlab_err_set(err,
					     "submission.json: no 'baseline' "
					     "and tree %s has no tested "
					     "kernel yet: name one",
					     s->tree);
		if (ret)
			return ret;
	} else {
		return rtlab_err_set(err, "submission.json: give 'baseline' "
					  "(a kernel) or 'tree' (its latest "
					  "tested kernel is the baseline)");
	}
	return *baseline ? 0 : -ENOMEM;
}

/* Queue what @kernel still lacks of @runs on each board and testcase. */
static int queue_side(PGconn *conn, int64_t id, const char *kernel,
		      const char *tree, json_t *boards, json_t *testcases,
		      unsigned int runs, unsigned int duration_s,
		      unsigned int *queued, struct rtlab_err *err)
{
	json_t *b, *t, *cells = NULL;
	size_t i, j;
	int ret;

	ret = db_farm_cells(conn, kernel, boards, testcases, &cells, err);
	if (ret)
		return ret;
	json_array_foreach(boards, i, b)
		json_array_foreach(testcases, j, t) {
			struct job_spec js = { 0 };
			int64_t have, look, *ids = NULL;
			size_t n = 0;

			db_farm_cell(cells, json_string_value(b),
				     json_string_value(t), &have, &look);
			if (have >= runs)
				continue;
			js.kernel = kernel;
			js.board = json_string_value(b);
			js.testcase = json_string_value(t);
			js.repeat = runs - (unsigned int)have;
			js.duration_s = duration_s;
			js.priority = JOB_PRIORITY_SUBMISSION;
			js.origin = "submission";
			js.tree = tree;
			js.submission_id = id;
			js.no_transaction = true;
			ret = jobs_add(conn, &js, &ids, &n, err);
			free(ids);
			if (ret)
				goto out;
			*queued += n;
		}
out:
	json_decref(cells);
	return ret;
}

/*
 * Open the transaction and record submission @s of @kind (the default
 * runs filled in); *@in_tx says whether the caller must roll back.
 */
static int record_submission(PGconn *conn, struct db_submission_new *s,
			     const char *owner, int token_id, const char *kind,
			     const char *baseline, int64_t *id, bool *in_tx,
			     struct rtlab_err *err)
{
	int ret = db_begin(conn, err);

	if (ret)
		return ret;
	*in_tx = true;
	s->owner = owner;
	s->token_id = token_id;
	s->kind = kind;
	s->baseline = baseline;
	if (!s->runs)
		s->runs = 5; /* the default plan's first look */
	return db_submission_create(conn, s, id, err);
}

/* The submission's kernel is @yaml: record it and queue both sides. */
static int queue_submission(PGconn *conn, int64_t id, const char *yaml,
			    const struct db_submission_new *s,
			    const char *baseline, struct rtlab_err *err)
{
	unsigned int queued = 0;

	return db_submission_set_kernel(conn, id, yaml, err) ?:
		       queue_side(conn, id, yaml, s->tree, s->boards, s->testcases, s->runs, s->duration_s, &queued, err) ?:
		       queue_side(conn, id, baseline, s->tree, s->boards,
				  s->testcases, s->runs, s->duration_s, &queued,
				  err);
}

static char *submissions_dir(void)
{
	char *d = NULL;

	if (asprintf(&d, "%s/submissions", rtlab_state_dir()) < 0)
		return NULL;
	return d;
}

int submission_create(PGconn *conn, const char *owner, int token_id,
		      const void *data, size_t len, int64_t *id,
		      struct rtlab_err *err)
{
	struct db_submission_new s = { 0 };
	char *root = submissions_dir(), *tmp = NULL, *final = NULL;
	char *baseline = NULL, *yaml = NULL, name[64], path[4096];
	const char *kind = NULL;
	json_error_t jerr;
	json_t *req = NULL;
	bool in_tx = false;
	int ret;

	*id = 0;
	if (!root || asprintf(&tmp, "%s/new-XXXXXX", root) < 0) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = mkdir_p(root, 0755, err);
	if (ret)
		goto out;
	if (!mkdtemp(tmp)) {
		ret = rtlab_err_set(err, "%s: %s", tmp, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	ret = extract(data, len, tmp, err);
	if (ret)
		goto out;
	snprintf(path, sizeof(path), "%s/submission.json", tmp);
	req = json_load_file(path, 0, &jerr);
	if (!req) {
		ret = rtlab_err_set(err,
				    "submission: %s (expected " SUBMISSION_FILES
				    ")",
				    exists(tmp, "submission.json") ?
					    "submission.json is not JSON" :
					    "no submission.json");
		goto out;
	}
	if (json_object_get(req, "kind") &&
	    !json_is_string(json_object_get(req, "kind"))) {
		ret = rtlab_err_set(err, "submission.json: 'kind': expected "
					 "a string");
		goto out;
	}
	ret = request_check(conn, req, &s, &baseline, err);
	if (ret)
		goto out;
	ret = record_submission(conn, &s, owner, token_id,
				exists(tmp, "kernel.deb") ? "deb" : "image",
				baseline, id, &in_tx, err);
	if (ret)
		goto out;
	snprintf(name, sizeof(name), "submission-%" PRId64, *id);
	ret = unpack_kernel(tmp, name, s.tree, &kind, err);
	if (ret)
		goto out;
	if (asprintf(&final, "%s/%" PRId64, root, *id) < 0 ||
	    asprintf(&yaml, "%s/kernel.yaml", final) < 0) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	rmtree(final); /* a leftover of a transaction that failed */
	if (rename(tmp, final)) {
		ret = rtlab_err_set(err, "%s: %s", final, strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = final; /* removed on failure from here */
	final = NULL;
	ret = check_kernel(yaml, err) ?:
		      queue_submission(conn, *id, yaml, &s, baseline, err);
	if (ret)
		goto out;
	ret = db_commit(conn, err);
	in_tx = false;
	if (!ret) {
		free(tmp);
		tmp = NULL; /* kept */
	}
out:
	if (in_tx)
		db_rollback(conn);
	if (ret)
		*id = 0;
	if (tmp)
		rmtree(tmp);
	json_decref(req);
	free(yaml);
	free(final);
	free(tmp);
	free(baseline);
	free(root);
	return ret;
}

/*
 * A fragment is kconfig lines: CONFIG_X=V, "# CONFIG_X is not set",
 * comments and blank lines; one that turns PREEMPT_RT off is refused now
 * rather than after a build.
 */
static int fragment_check(const char *text, struct rtlab_err *err)
{
	const char *line = text, *end;
	unsigned int n = 1;

	for (; *line; line = *end ? end + 1 : end, n++) {
		char name[128];
		size_t len;

		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		len = (size_t)(end - line);
		if (len && line[0] != '#' &&
		    (strncmp(line, "CONFIG_", 7) || !memchr(line, '=', len)))
			return rtlab_err_set(err,
					     "submission.json: "
					     "'config_fragment': line %u: "
					     "expected CONFIG_NAME=VALUE or "
					     "'# CONFIG_NAME is not set'",
					     n);
		if ((len >= 19 && !strncmp(line, "CONFIG_PREEMPT_RT=", 18) &&
		     line[18] != 'y') ||
		    (sscanf(line, "# %127[A-Za-z0-9_] is not set", name) == 1 &&
		     !strcmp(name, "CONFIG_PREEMPT_RT")))
			return rtlab_err_set(err,
					     "submission: config: the fragment "
					     "turns CONFIG_PREEMPT_RT off "
					     "(line %u); the lab's testcases "
					     "measure PREEMPT_RT kernels",
					     n);
	}
	return 0;
}

int submission_tree(PGconn *conn, const char *owner, int token_id, json_t *req,
		    int64_t *id, struct rtlab_err *err)
{
	struct db_submission_new s = { 0 };
	static const char *const need[] = { "git", "ref", NULL };
	char *root = submissions_dir(), *dir = NULL, *yaml = NULL;
	char *baseline = NULL, *frag_path = NULL, dest[96], sha[41];
	const char *frag;
	struct tree_def *t = NULL;
	bool in_tx = false;
	size_t i;
	FILE *f;
	int ret;

	*id = 0;
	for (i = 0; need[i]; i++)
		if (!json_is_string(json_object_get(req, need[i]))) {
			ret = rtlab_err_set(err,
					    "submission: kind 'tree': '%s' "
					    "is required (git URL, ref and "
					    "config_fragment)",
					    need[i]);
			goto out;
		}
	frag = json_string_value(json_object_get(req, "config_fragment"));
	if (json_object_get(req, "config_fragment") && !frag) {
		ret = rtlab_err_set(err, "submission: 'config_fragment': "
					 "expected the text of a config "
					 "fragment");
		goto out;
	}
	if (frag && (ret = fragment_check(frag, err)))
		goto out;
	ret = request_check(conn, req, &s, &baseline, err);
	if (ret)
		goto out;
	if (!s.tree) {
		ret = rtlab_err_set(err,
				    "submission: kind 'tree': give 'tree', the "
				    "lab's git tree to build it as (its base "
				    "config and fragments, its build directory; "
				    "rtlab tree list)");
		goto out;
	}
	t = tree_def_find(s.tree, err);
	if (!t) {
		ret = -ENOENT;
		goto out;
	}
	if (t->kind != TREE_KIND_GIT) {
		ret = rtlab_err_set(err,
				    "submission: tree %s is a series of "
				    "packages, not a git tree to build in",
				    t->name);
		goto out;
	}
	ret = mkdir_p(root, 0755, err) ?:
		      record_submission(conn, &s, owner, token_id, "tree",
					baseline, id, &in_tx, err);
	if (ret)
		goto out;
	/* the developer's commit joins the tree's mirror, so it builds
	 * incrementally in the tree's build directory */
	snprintf(dest, sizeof(dest), "refs/rtlab/submissions/%" PRId64, *id);
	ret = tree_git_fetch(t, json_string_value(json_object_get(req, "git")),
			     json_string_value(json_object_get(req, "ref")),
			     dest, sha, err);
	if (ret) {
		rtlab_err_prefix(err, "submission");
		ret = -EINVAL;
		goto out;
	}
	if (asprintf(&dir, "%s/%" PRId64, root, *id) < 0 ||
	    asprintf(&yaml, "%s/kernel.yaml", dir) < 0 ||
	    asprintf(&frag_path, "%s/config-fragment", dir) < 0) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	rmtree(dir); /* a leftover of a transaction that failed */
	ret = mkdir_p(dir, 0755, err);
	if (!ret && frag)
		ret = file_write_all(frag_path, frag, strlen(frag), err);
	if (ret)
		goto out;
	f = fopen(yaml, "w");
	if (!f) {
		ret = rtlab_err_set(err, "%s: %s", yaml, strerror(errno));
		goto out;
	}
	fprintf(f,
		"# a developer submission's kernel: %s %s, built as tree %s\n"
		"name: submission-%" PRId64 "\nkind: build\ntree: %s\n"
		"commit: %s\n",
		json_string_value(json_object_get(req, "git")),
		json_string_value(json_object_get(req, "ref")), t->name, *id,
		t->name, sha);
	if (frag)
		fprintf(f, "fragment: config-fragment\n");
	if (fclose(f)) {
		ret = rtlab_err_set(err, "%s: %s", yaml, strerror(errno));
		goto out;
	}
	/* the build runs with the first job: a kernel that does not build
	 * fails its jobs with the build's reason, which settles it */
	ret = queue_submission(conn, *id, yaml, &s, baseline, err);
	if (ret)
		goto out;
	ret = db_commit(conn, err);
	in_tx = false;
out:
	if (in_tx)
		db_rollback(conn);
	if (ret) {
		if (dir)
			rmtree(dir);
		*id = 0;
	}
	tree_def_free(t);
	free(frag_path);
	free(yaml);
	free(dir);
	free(baseline);
	free(root);
	return ret;
}

/* Compare the submission's kernel with its baseline on one pair. */
static int settle_pair(PGconn *conn, json_t *sub, const char *board,
		       const char *testcase, struct strbuf *res,
		       struct strbuf *vids, bool *more, unsigned int *nverd,
		       struct rtlab_err *err)
{
	const char *kernel = json_string_value(json_object_get(sub, "kernel"));
	const char *base = json_string_value(json_object_get(sub, "baseline"));
	struct verdict_pair vp = { 0 };
	int64_t cand_id = 0, base_id = 0, vid = 0, next = 0;
	json_t *v = NULL, *jobs, *j;
	size_t i;
	int ret;

	ret = db_submission_series(conn, board, testcase, &vp.board_id,
				   &vp.testcase_id, err);
	if (ret)
		return ret;
	ret = db_farm_kernel_id(conn, kernel, &cand_id, err);
	if (ret == -ENOENT) {
		const char *why = "no run";

		jobs = json_object_get(sub, "jobs");
		json_array_foreach(jobs, i, j)
			if (!strcmp(json_string_value(json_object_get(j,
								      "side")),
				    "candidate") &&
			    !strcmp(json_string_value(json_object_get(j,
								      "board")),
				    board) &&
			    json_string_value(json_object_get(j, "error")))
				why = json_string_value(json_object_get(j,
									"error"));
		strbuf_addf(res,
			    "%s/%s: the kernel gave no complete run (%s); ",
			    board, testcase, why);
		return 1;
	}
	if (!ret)
		ret = db_farm_kernel_id(conn, base, &base_id, err);
	if (ret == -ENOENT) {
		strbuf_addf(res, "%s/%s: baseline %s has no run; ", board,
			    testcase, base);
		return 1;
	}
	if (ret)
		return ret;
	vp.base_kernel_id = (int)base_id;
	vp.cand_kernel_id = (int)cand_id;
	vp.baseline_source = "requested";
	ret = verdict_compute(conn, &vp, &v, err);
	if (ret == -ENOENT || ret == -EINVAL) {
		strbuf_addf(res, "%s/%s: %s; ", board, testcase, err->msg);
		return 1;
	}
	if (ret)
		return ret;
	next = json_integer_value(json_object_get(
		json_object_get(json_object_get(v, "details"), "sequential"),
		"next_look_runs"));
	if (!strcmp(json_string_value(json_object_get(v, "verdict")),
		    "INCONCLUSIVE") &&
	    next > 0) {
		/* its next look: more runs of both sides, then again */
		unsigned int q = 0;
		json_t *bs = json_pack("[s]", board),
		       *ts = json_pack("[s]", testcase);
		const char *tree =
			json_string_value(json_object_get(sub, "tree"));
		int64_t sid = json_integer_value(json_object_get(sub, "id"));
		unsigned int dur = (unsigned int)
			json_integer_value(json_object_get(sub, "duration_s"));

		ret = queue_side(conn, sid, kernel, tree, bs, ts, (unsigned int)next, dur, &q, err) ?:
			      queue_side(conn, sid, base, tree, bs, ts,
					 (unsigned int)next, dur, &q, err);
		json_decref(bs);
		json_decref(ts);
		if (!ret && q) {
			*more = true;
			json_decref(v);
			return 0;
		}
		if (ret) {
			json_decref(v);
			return ret;
		}
	}
	ret = verdict_store(conn, &vp, v, &vid, NULL, err);
	if (!ret) {
		strbuf_addf(res, "%s/%s: %s (verdict %" PRId64 "); ", board,
			    testcase,
			    json_string_value(json_object_get(v, "verdict")),
			    vid);
		strbuf_addf(vids, "%s%" PRId64, *nverd ? "," : "", vid);
		(*nverd)++;
	}
	json_decref(v);
	return ret;
}

static const struct farm_entry *tree_entry(const struct farm_schedule *s,
					   const char *tree)
{
	size_t i;

	for (i = 0; s && tree && i < s->n; i++) {
		const char *n = strrchr(s->e[i].tree, '/');
		size_t l;

		n = n ? n + 1 : s->e[i].tree;
		l = strlen(tree);
		if (!strncmp(n, tree, l) && (!n[l] || !strcmp(n + l, ".yaml")))
			return &s->e[i];
	}
	return NULL;
}

static int settle_one(PGconn *conn, const struct rtlab_config *cfg,
		      const struct farm_schedule *s, bool quiet, int64_t id,
		      FILE *out, unsigned int *settled, unsigned int *told,
		      struct rtlab_err *err)
{
	struct strbuf res = { 0 }, vids = { 0 };
	json_t *sub = NULL, *b, *t;
	unsigned int nverd = 0, bad = 0;
	bool more = false;
	size_t i, j;
	int ret;

	ret = db_submission_get(conn, id, &sub, err);
	if (ret)
		return ret;
	ret = db_begin(conn, err);
	if (ret)
		goto out;
	json_array_foreach(json_object_get(sub, "boards"), i, b)
		json_array_foreach(json_object_get(sub, "testcases"), j, t) {
			if (ret < 0)
				break;
			ret = settle_pair(conn, sub, json_string_value(b),
					  json_string_value(t), &res, &vids,
					  &more, &nverd, err);
			if (ret > 0) {
				bad++;
				ret = 0;
			}
		}
	if (!ret && !more) {
		char *r = strbuf_take(&res), *v = strbuf_take(&vids);
		char arr[4096];
		size_t l = r ? strlen(r) : 0;

		if (l > 1)
			r[l - 2] = '\0'; /* the last "; " */
		snprintf(arr, sizeof(arr), "{%s}", v ? v : "");
		ret = db_submission_finish(conn, id, bad ? "failed" : "done",
					   r ? r : "", arr, err);
		if (!ret)
			fprintf(out, "submission %" PRId64 ": %s: %s\n", id,
				bad ? "failed" : "done", r ? r : "");
		free(r);
		free(v);
		if (!ret)
			(*settled)++;
	} else if (!ret) {
		fprintf(out,
			"submission %" PRId64
			": a verdict asks for its next look, runs queued\n",
			id);
	}
	if (ret) {
		db_rollback(conn);
		goto out;
	}
	ret = db_commit(conn, err);
	if (ret || more || quiet)
		goto out;
	{
		const struct farm_entry *e =
			tree_entry(s,
				   json_string_value(json_object_get(sub,
								     "tree")));
		struct notify_msg m = { 0 };
		struct notify_to to = { 0 };
		struct strbuf txt = { 0 };
		char key[64], title[300];
		json_t *now = NULL;
		bool sent = false;

		if (!e)
			goto out;
		to.emails = (const char *const *)e->emails;
		to.webhook = e->webhook;
		json_decref(sub);
		sub = NULL;
		ret = db_submission_get(conn, id, &now, err);
		if (ret)
			goto out;
		snprintf(key, sizeof(key), "submission:%" PRId64, id);
		snprintf(title, sizeof(title),
			 "[rtlab] submission %" PRId64 " of %s: %s", id,
			 json_string_value(json_object_get(now, "owner")),
			 json_string_value(json_object_get(now, "state")));
		strbuf_addf(&txt,
			    "Submission: %" PRId64 " (%s, by %s)\nTree:       "
			    "%s\nBaseline:   %s\nState:      %s\nResult:     "
			    "%s\n\nStatus:     %s/api/v1/submissions/%" PRId64
			    "\n",
			    id, json_string_value(json_object_get(now, "kind")),
			    json_string_value(json_object_get(now, "owner")),
			    json_string_value(json_object_get(now, "tree")),
			    json_string_value(json_object_get(now, "baseline")),
			    json_string_value(json_object_get(now, "state")),
			    json_string_value(json_object_get(now, "result")),
			    cfg->public_url ? cfg->public_url :
					      "http://127.0.0.1:8470",
			    id);
		json_array_foreach(json_object_get(now, "verdicts"), i, b)
			strbuf_addf(&txt, "Verdict:    %s/verdicts/%lld (%s)\n",
				    cfg->public_url ? cfg->public_url :
						      "http://127.0.0.1:8470",
				    json_integer_value(json_object_get(b,
								       "id")),
				    json_string_value(json_object_get(b,
								      "verdict")));
		m.subject_key = key;
		m.state = json_string_value(json_object_get(now, "state"));
		m.title = title;
		m.text = txt.buf ? txt.buf : "";
		m.data = now;
		ret = txt.failed ? -ENOMEM :
				   notify_send(conn, cfg, &to, &m, &sent, err);
		strbuf_cleanup(&txt);
		json_decref(now);
		if (ret) {
			fprintf(out, "  telling %s: %s\n", key, err->msg);
			ret = 0;
		} else if (sent) {
			fprintf(out, "  told %s: %s\n", key, title);
			(*told)++;
		}
	}
out:
	strbuf_cleanup(&res);
	strbuf_cleanup(&vids);
	json_decref(sub);
	return ret;
}

int submission_settle_all(PGconn *conn, const struct rtlab_config *cfg,
			  const struct farm_schedule *s, bool quiet, FILE *out,
			  unsigned int *settled, unsigned int *told,
			  struct rtlab_err *err)
{
	json_t *ids = NULL, *x;
	size_t i;
	int ret;

	ret = db_submission_ended(conn, &ids, err);
	json_array_foreach(ids, i, x) {
		if (ret)
			break;
		ret = settle_one(conn, cfg, s, quiet, json_integer_value(x),
				 out, settled, told, err);
	}
	json_decref(ids);
	return ret;
}
