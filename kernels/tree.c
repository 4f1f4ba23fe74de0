// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel trees: read kernels/trees/NAME.yaml and discover a tree's kernels
 * through apt (apt-cache pkgnames + show), in Debian version order.
 */

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "tree.h"
#include "yamlmap.h"

#define TREE_KEYS "name, kind, description, packages, cmdline"
/* Names apt may match: a Debian package name's characters and a glob's. */
#define GLOB_CHARS "abcdefghijklmnopqrstuvwxyz0123456789.+-*?[]"

void tree_def_free(struct tree_def *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->name);
	free(t->description);
	free(t->packages);
	free(t->cmdline);
	free(t);
}

static char *base_name_noext(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".yaml"))
		n -= 5;
	return strndup(b, n);
}

struct tree_def *tree_def_load(const char *path, struct rtlab_err *err)
{
	struct tree_def *t;
	struct ymap m;
	char *kind = NULL;

	if (ymap_load(path, &m, err))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path)))
		goto nomem;
	if (ymap_str(&m, "name", false, &t->name, err) ||
	    ymap_str(&m, "kind", true, &kind, err) ||
	    ymap_str(&m, "description", false, &t->description, err) ||
	    ymap_str(&m, "packages", false, &t->packages, err) ||
	    ymap_str(&m, "cmdline", false, &t->cmdline, err) ||
	    ymap_unused(&m, TREE_KEYS, err))
		goto fail;
	if (!t->name && !(t->name = base_name_noext(path)))
		goto nomem;
	if (strcmp(kind, "debian-series")) {
		rtlab_err_set(err,
			      "%s: line %lu: field 'kind': expected "
			      "'debian-series', got '%s'",
			      path, ymap_get(&m, "kind")->line, kind);
		goto fail;
	}
	t->kind = TREE_KIND_DEBIAN_SERIES;
	if (!t->packages) {
		rtlab_err_set(err,
			      "%s: kind 'debian-series' needs field "
			      "'packages' (a glob such as "
			      "linux-image-6.1.0-*-rt-amd64)",
			      path);
		goto fail;
	}
	if (!*t->packages || t->packages[strspn(t->packages, GLOB_CHARS)] ||
	    !strpbrk(t->packages, "*?[")) {
		rtlab_err_set(err,
			      "%s: line %lu: field 'packages': '%s' is not a "
			      "glob of Debian package names (lower-case "
			      "letters, digits, '.+-', and '*?[]', at least "
			      "one of them)",
			      path, ymap_get(&m, "packages")->line,
			      t->packages);
		goto fail;
	}
	free(kind);
	ymap_cleanup(&m);
	return t;
nomem:
	rtlab_err_set(err, "%s: out of memory", path);
fail:
	free(kind);
	tree_def_free(t);
	ymap_cleanup(&m);
	return NULL;
}

char *tree_defs_dir(void)
{
	struct stat st;
	char *k = rtlab_data_path("kernels"), *d;

	d = k ? path_join(k, "trees") : NULL;
	free(k);
	if (d && !stat(d, &st) && S_ISDIR(st.st_mode))
		return d;
	free(d);
	return NULL;
}

char *tree_of_package(const char *package)
{
	struct rtlab_err err = { "" };
	struct dirent **ents = NULL;
	char *dir = tree_defs_dir(), *path, *name = NULL;
	struct tree_def *t;
	int i, n;

	n = dir ? scandir(dir, &ents, NULL, alphasort) : -1;
	for (i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name);

		if (!name && len > 5 &&
		    !strcmp(ents[i]->d_name + len - 5, ".yaml") &&
		    (path = path_join(dir, ents[i]->d_name))) {
			t = tree_def_load(path, &err);
			if (t && t->packages &&
			    !fnmatch(t->packages, package, 0))
				name = strdup(t->name);
			tree_def_free(t);
			free(path);
		}
		free(ents[i]);
	}
	free(ents);
	free(dir);
	return name;
}

struct tree_def *tree_def_find(const char *name, struct rtlab_err *err)
{
	struct tree_def *t = NULL;
	char *dir, *path = NULL;
	size_t n = strlen(name);

	if (strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".yaml")))
		return tree_def_load(name, err);
	dir = tree_defs_dir();
	if (!dir) {
		rtlab_err_set(err,
			      "tree '%s': no kernels/trees/ directory found "
			      "(set RTLAB_DATADIR)",
			      name);
		return NULL;
	}
	if (asprintf(&path, "%s/%s.yaml", dir, name) < 0)
		path = NULL;
	if (!path)
		rtlab_err_set(err, "out of memory");
	else if (access(path, R_OK) < 0)
		rtlab_err_set(err,
			      "tree '%s': no definition %s ('rtlab tree "
			      "list' shows the known ones)",
			      name, path);
	else
		t = tree_def_load(path, err);
	free(path);
	free(dir);
	return t;
}

void tree_kernels_free(struct tree_kernel *k, size_t n)
{
	size_t i;

	for (i = 0; k && i < n; i++) {
		free(k[i].package);
		free(k[i].version);
	}
	free(k);
}

/* dpkg's order of two Debian versions: a < b. */
static int version_lt(const char *a, const char *b, bool *lt,
		      struct rtlab_err *err)
{
	char *argv[] = { "dpkg",    "--compare-versions",
			 (char *)a, "lt",
			 (char *)b, NULL };
	char *out = NULL;
	int rc = spawn_capture(argv, NULL, 1, &out, err);

	if (rc >= 0 && rc != 0 && rc != 1) {
		rc = rtlab_err_seterr(err, EINVAL,
				      "dpkg --compare-versions %s lt %s: "
				      "%s",
				      a, b, out ? out : "failed");
	} else if (rc >= 0) {
		*lt = rc == 0;
		rc = 0;
	}
	free(out);
	return rc;
}

/* Each "Package:"/"Version:" pair of apt-cache show's stanzas that
 * matches @glob, appended to @k. */
static int parse_stanzas(char *text, const char *glob, struct tree_kernel **k,
			 size_t *n)
{
	char *line, *save = NULL, *pkg = NULL;
	struct tree_kernel *bigger;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "Package: ", 9)) {
			pkg = line + 9;
		} else if (!strncmp(line, "Version: ", 9) && pkg) {
			if (!fnmatch(glob, pkg, 0)) {
				bigger = realloc(*k, (*n + 1) * sizeof(**k));
				if (!bigger)
					return -ENOMEM;
				*k = bigger;
				bigger[*n].package = strdup(pkg);
				bigger[*n].version = strdup(line + 9);
				(*n)++;
				if (!bigger[*n - 1].package ||
				    !bigger[*n - 1].version)
					return -ENOMEM;
			}
			pkg = NULL;
		}
	}
	return 0;
}

int tree_discover(const struct tree_def *t, struct tree_kernel **out, size_t *n,
		  struct rtlab_err *err)
{
	size_t plen = strcspn(t->packages, "*?["), i, j, nnames = 0;
	char *prefix = strndup(t->packages, plen), *names = NULL, *text = NULL;
	char **argv = NULL, *line, *save = NULL;
	struct tree_kernel *k = NULL, tmp;
	size_t nk = 0;
	bool lt = false;
	int rc;

	*out = NULL;
	*n = 0;
	if (!prefix)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	{
		char *pn[] = { "apt-cache", "pkgnames", prefix, NULL };

		rc = spawn_capture(pn, NULL, 1, &names, err);
	}
	if (rc > 0) {
		/* no package has the prefix: apt-cache says nothing, exit 0;
		 * anything else is apt failing */
		rc = rtlab_err_seterr(err, EIO,
				      "tree %s: apt-cache pkgnames %s: %s",
				      t->name, prefix, names ? names : "");
		goto out;
	}
	if (rc < 0)
		goto out;
	/* apt-cache show NAME... for the names that match the glob */
	argv = calloc(4, sizeof(*argv));
	if (!argv)
		goto nomem;
	argv[0] = "apt-cache";
	argv[1] = "show";
	argv[2] = "--no-all-versions";
	nnames = 3;
	for (line = strtok_r(names, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char **bigger;

		if (fnmatch(t->packages, line, 0))
			continue;
		bigger = realloc(argv, (nnames + 2) * sizeof(*argv));
		if (!bigger)
			goto nomem;
		argv = bigger;
		argv[nnames++] = line;
		argv[nnames] = NULL;
	}
	if (nnames > 3) {
		rc = spawn_capture(argv, NULL, 2, &text, err);
		if (rc < 0)
			goto out;
		if (rc) {
			rc = rtlab_err_seterr(err, EIO,
					      "tree %s: apt-cache show of its "
					      "%zu packages failed (exit %d)",
					      t->name, nnames - 3, rc);
			goto out;
		}
		if (parse_stanzas(text, t->packages, &k, &nk))
			goto nomem;
	}
	/* insertion sort by Debian version: trees hold tens of kernels */
	for (i = 1; i < nk; i++) {
		for (j = i; j > 0; j--) {
			rc = version_lt(k[j].version, k[j - 1].version, &lt,
					err);
			if (rc)
				goto out;
			if (!lt)
				break;
			tmp = k[j];
			k[j] = k[j - 1];
			k[j - 1] = tmp;
		}
	}
	*out = k;
	*n = nk;
	k = NULL;
	nk = 0;
	rc = 0;
	goto out;
nomem:
	rc = rtlab_err_seterr(err, ENOMEM, "tree %s: out of memory", t->name);
out:
	tree_kernels_free(k, nk);
	free(argv);
	free(text);
	free(names);
	free(prefix);
	return rc;
}
