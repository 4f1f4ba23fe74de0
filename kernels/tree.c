// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel trees: read kernels/trees/NAME.yaml and discover a tree's kernels
 * through apt (apt-cache pkgnames + show), in Debian version order, or
 * from a git repository mirrored into the lab's cache.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "log.h"
#include "tree.h"
#include "yamlmap.h"

#define TREE_KEYS                                                           \
	"name, kind, description, packages, cmdline, git, branch, config, " \
	"fragments, follow"
/* Names apt may match: a Debian package name's characters and a glob's. */
#define GLOB_CHARS "abcdefghijklmnopqrstuvwxyz0123456789.+-*?[]"
/* A tree's name is part of its kernels' names and of cache paths. */
#define NAME_CHARS \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_"

void tree_def_free(struct tree_def *t)
{
	size_t i;

	if (!t)
		return;
	free(t->path);
	free(t->name);
	free(t->description);
	free(t->packages);
	free(t->cmdline);
	free(t->git);
	free(t->branch);
	free(t->config);
	for (i = 0; i < t->nfragments; i++)
		free(t->fragments[i]);
	free(t->fragments);
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

/* @rel made absolute against the directory of the YAML file @yaml. */
static char *beside(const char *yaml, const char *rel)
{
	char *dir, *slash, *p;

	if (rel[0] == '/')
		return strdup(rel);
	dir = realpath(yaml, NULL);
	if (!dir)
		dir = strdup(yaml);
	if (!dir)
		return NULL;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	p = slash ? path_join(dir, rel) : strdup(rel);
	free(dir);
	return p;
}

static int debian_series_check(struct tree_def *t, struct ymap *m,
			       struct rtlab_err *err)
{
	if (!t->packages)
		return rtlab_err_set(err,
				     "%s: kind 'debian-series' needs field "
				     "'packages' (a glob such as "
				     "linux-image-6.1.0-*-rt-amd64)",
				     t->path);
	if (t->git || t->branch || t->config || t->nfragments)
		return rtlab_err_set(err,
				     "%s: fields 'git', 'branch', 'config' "
				     "and 'fragments' belong to kind 'git', "
				     "not 'debian-series'",
				     t->path);
	if (!*t->packages || t->packages[strspn(t->packages, GLOB_CHARS)] ||
	    !strpbrk(t->packages, "*?["))
		return rtlab_err_set(err,
				     "%s: line %lu: field 'packages': '%s' is "
				     "not a glob of Debian package names "
				     "(lower-case letters, digits, '.+-', and "
				     "'*?[]', at least one of them)",
				     t->path, ymap_get(m, "packages")->line,
				     t->packages);
	return 0;
}

static int git_check(struct tree_def *t, struct ymap *m, const char *frags,
		     struct rtlab_err *err)
{
	char *copy, *f, *save = NULL, **bigger;
	struct stat st;

	if (!t->git || !t->branch)
		return rtlab_err_set(err,
				     "%s: kind 'git' needs fields 'git' (a "
				     "repository's URL or path) and 'branch'",
				     t->path);
	if (t->packages)
		return rtlab_err_set(err,
				     "%s: field 'packages' belongs to kind "
				     "'debian-series', not 'git'",
				     t->path);
	if (t->branch[0] == '-' || strpbrk(t->branch, " \t:~^?*[\\"))
		return rtlab_err_set(err,
				     "%s: line %lu: field 'branch': '%s' is "
				     "not a branch name",
				     t->path, ymap_get(m, "branch")->line,
				     t->branch);
	if (t->config &&
	    (t->config[0] == '-' || t->config[strspn(t->config, NAME_CHARS)]))
		return rtlab_err_set(err,
				     "%s: line %lu: field 'config': '%s' is "
				     "not a make target (defconfig, "
				     "tinyconfig, ...)",
				     t->path, ymap_get(m, "config")->line,
				     t->config);
	if (!t->config && !(t->config = strdup("defconfig")))
		return -ENOMEM;
	/* a path without a scheme or host is a local repository, relative
	 * to the definition */
	if (!strchr(t->git, ':') && t->git[0] != '/') {
		char *abs = beside(t->path, t->git);

		if (!abs)
			return -ENOMEM;
		free(t->git);
		t->git = abs;
	}
	if (t->git[0] == '-')
		return rtlab_err_set(err, "%s: field 'git': '%s' is not a URL",
				     t->path, t->git);
	if (!frags)
		return 0;
	copy = strdup(frags);
	if (!copy)
		return -ENOMEM;
	for (f = strtok_r(copy, " \t,", &save); f;
	     f = strtok_r(NULL, " \t,", &save)) {
		bigger = realloc(t->fragments,
				 (t->nfragments + 1) * sizeof(*bigger));
		if (!bigger)
			goto nomem;
		t->fragments = bigger;
		bigger[t->nfragments] = beside(t->path, f);
		if (!bigger[t->nfragments])
			goto nomem;
		if (stat(bigger[t->nfragments++], &st) < 0 ||
		    !S_ISREG(st.st_mode)) {
			rtlab_err_set(err,
				      "%s: line %lu: field 'fragments': no "
				      "file %s",
				      t->path, ymap_get(m, "fragments")->line,
				      t->fragments[t->nfragments - 1]);
			free(copy);
			return -ENOENT;
		}
	}
	free(copy);
	return 0;
nomem:
	free(copy);
	return -ENOMEM;
}

struct tree_def *tree_def_load(const char *path, struct rtlab_err *err)
{
	struct tree_def *t;
	struct ymap m;
	char *kind = NULL, *frags = NULL;
	int ret;

	if (ymap_load(path, &m, err))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path)))
		goto nomem;
	t->follow = 1;
	if (ymap_str(&m, "name", false, &t->name, err) ||
	    ymap_str(&m, "kind", true, &kind, err) ||
	    ymap_str(&m, "description", false, &t->description, err) ||
	    ymap_str(&m, "packages", false, &t->packages, err) ||
	    ymap_str(&m, "cmdline", false, &t->cmdline, err) ||
	    ymap_str(&m, "git", false, &t->git, err) ||
	    ymap_str(&m, "branch", false, &t->branch, err) ||
	    ymap_str(&m, "config", false, &t->config, err) ||
	    ymap_str(&m, "fragments", false, &frags, err) ||
	    ymap_uint(&m, "follow", 1, 10000, &t->follow, err) ||
	    ymap_unused(&m, TREE_KEYS, err))
		goto fail;
	if (!t->name && !(t->name = base_name_noext(path)))
		goto nomem;
	if (!*t->name || t->name[strspn(t->name, NAME_CHARS)] ||
	    t->name[0] == '.' || t->name[0] == '-') {
		rtlab_err_set(err,
			      "%s: tree name '%s': expected letters, digits "
			      "and '.+-_'",
			      path, t->name);
		goto fail;
	}
	if (!strcmp(kind, "debian-series")) {
		t->kind = TREE_KIND_DEBIAN_SERIES;
		ret = debian_series_check(t, &m, err);
	} else if (!strcmp(kind, "git")) {
		t->kind = TREE_KIND_GIT;
		ret = git_check(t, &m, frags, err);
	} else {
		ret = rtlab_err_set(err,
				    "%s: line %lu: field 'kind': expected "
				    "'debian-series' or 'git', got '%s'",
				    path, ymap_get(&m, "kind")->line, kind);
	}
	if (ret == -ENOMEM)
		goto nomem;
	if (ret)
		goto fail;
	free(frags);
	free(kind);
	ymap_cleanup(&m);
	return t;
nomem:
	rtlab_err_set(err, "%s: out of memory", path);
fail:
	free(frags);
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

static int debian_discover(const struct tree_def *t, struct tree_kernel **out,
			   size_t *n, struct rtlab_err *err)
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

char *tree_kernel_name(const struct tree_def *t, const char *package,
		       const char *version)
{
	char *s;

	if (asprintf(&s, "%s%c%s", package,
		     t->kind == TREE_KIND_GIT ? '@' : '=', version) < 0)
		return NULL;
	return s;
}

const char *tree_kind_name(const struct tree_def *t)
{
	return t->kind == TREE_KIND_GIT ? "git" : "debian-series";
}

char *tree_source(const struct tree_def *t)
{
	char *s;

	if (t->kind != TREE_KIND_GIT)
		return strdup(t->packages);
	if (asprintf(&s, "%s branch %s, %s + %zu fragment%s", t->git, t->branch,
		     t->config, t->nfragments,
		     t->nfragments == 1 ? "" : "s") < 0)
		return NULL;
	return s;
}

/* Run git with @argv (argv[0] "git"); a failure names the tree and what
 * git said last. */
static int git(const struct tree_def *t, char *const argv[], char **out,
	       const char *what, struct rtlab_err *err)
{
	char *text = NULL, *last;
	int rc = spawn_capture(argv, NULL, out ? 2 : 1, &text, err);

	if (rc > 0) {
		/* git's last line says why */
		while (text && *text && text[strlen(text) - 1] == '\n')
			text[strlen(text) - 1] = '\0';
		last = text ? strrchr(text, '\n') : NULL;
		rc = rtlab_err_seterr(err, EIO, "tree %s: %s %s failed: %s",
				      t->name, what, t->git,
				      last ? last + 1 :
				      text ? text :
					     "");
	}
	if (!rc && out)
		*out = text;
	else
		free(text);
	return rc;
}

int tree_git_mirror(const struct tree_def *t, bool update, char **dir,
		    struct rtlab_err *err)
{
	char *cache = rtlab_cache_dir(), *root = NULL, *lock = NULL;
	char *tmp = NULL, *d = NULL;
	struct stat st;
	int fd = -1, ret;

	*dir = NULL;
	root = cache ? path_join(cache, "trees") : NULL;
	if (!root || asprintf(&d, "%s/%s.git", root, t->name) < 0 ||
	    asprintf(&lock, "%s/%s.lock", root, t->name) < 0 ||
	    asprintf(&tmp, "%s/.%s.git.tmp", root, t->name) < 0) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = mkdir_p(root, 0755, err);
	if (ret)
		goto out;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		ret = rtlab_err_seterr(err, errno, "%s: %s", lock,
				       strerror(errno));
		goto out;
	}
	if (stat(d, &st) < 0) {
		char *clone[] = { "git", "clone", "--mirror", "--quiet",
				  "--",	 t->git,  tmp,	      NULL };

		log_info("tree %s: cloning %s", t->name, t->git);
		rmtree(tmp);
		ret = git(t, clone, NULL, "git clone --mirror", err);
		/* no automatic gc: fetches bring packs, and a gc of a kernel
		 * repository cloned from loose objects would take minutes
		 * of CPU in the middle of a build */
		if (!ret) {
			char *nogc[] = { "git",	    "-C", tmp, "config",
					 "gc.auto", "0",  NULL };

			ret = git(t, nogc, NULL, "git config", err);
		}
		if (!ret && rename(tmp, d) < 0)
			ret = rtlab_err_seterr(err, errno, "rename %s: %s", tmp,
					       strerror(errno));
		rmtree(tmp);
	} else if (update) {
		char *seturl[] = { "git", "-C",	    d,	    "remote", "set-url",
				   "--",  "origin", t->git, NULL };
		/* no --prune: refs/rtlab/ holds what submissions fetched */
		char *fetch[] = { "git",     "-C",     d,   "fetch",
				  "--quiet", "origin", NULL };

		ret = git(t, seturl, NULL, "git remote set-url", err) ?:
			      git(t, fetch, NULL, "git fetch", err);
	}
	if (!ret) {
		*dir = d;
		d = NULL;
	}
out:
	if (fd >= 0)
		close(fd); /* drops the lock */
	free(cache);
	free(root);
	free(lock);
	free(tmp);
	free(d);
	return ret;
}

static bool is_sha(const char *s)
{
	return strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

int tree_git_resolve(const struct tree_def *t, const char *ref, char sha[41],
		     struct rtlab_err *err)
{
	char *dir = NULL, *spec = NULL, *out = NULL;
	bool fetched = false;
	int ret, rc;

	if (!*ref || ref[0] == '-' || strpbrk(ref, " \t\n:"))
		return rtlab_err_set(err,
				     "tree %s: '%s' is not a commit, branch "
				     "or tag",
				     t->name, ref);
	if (asprintf(&spec, "%s^{commit}", ref) < 0)
		return -ENOMEM;
	/* a full commit id the mirror holds needs no fetch; a branch or tag
	 * may have moved since the mirror last fetched */
	fetched = !is_sha(ref);
	ret = tree_git_mirror(t, fetched, &dir, err);
	while (!ret) {
		char *argv[] = { "git",	     "-C",	dir,  "rev-parse",
				 "--verify", "--quiet", spec, NULL };

		rc = spawn_capture(argv, NULL, 2, &out, err);
		if (rc == 0 && out && is_sha(strtok(out, "\n"))) {
			memcpy(sha, out, 41);
			break;
		}
		free(out);
		out = NULL;
		if (rc < 0) {
			ret = rc;
		} else if (fetched) {
			ret = rtlab_err_seterr(err, ENOENT,
					       "tree %s: no commit '%s' in %s "
					       "(branch %s)",
					       t->name, ref, t->git, t->branch);
		} else {
			free(dir);
			dir = NULL;
			ret = tree_git_mirror(t, true, &dir, err);
			fetched = true;
		}
	}
	free(out);
	free(spec);
	free(dir);
	return ret;
}

int tree_git_fetch(const struct tree_def *t, const char *url, const char *ref,
		   const char *dest, char sha[41], struct rtlab_err *err)
{
	char *dir = NULL, *spec = NULL, *out = NULL, *last, *text = NULL;
	int ret, rc;

	if (!*url || url[0] == '-' || !*ref || ref[0] == '-' ||
	    strpbrk(ref, " \t\n:^~?*[\\"))
		return rtlab_err_set(err,
				     "'%s' '%s': expected a git URL and "
				     "a branch, tag or commit",
				     url, ref);
	ret = tree_git_mirror(t, false, &dir, err);
	if (ret)
		return ret;
	if (asprintf(&spec, "+%s:%s", ref, dest) < 0) {
		free(dir);
		return -ENOMEM;
	}
	{
		char *argv[] = { "git",	    "-C",	 dir,  "fetch",
				 "--quiet", "--no-tags", "--", (char *)url,
				 spec,	    NULL };

		rc = spawn_capture(argv, NULL, 1, &text, err);
	}
	if (rc > 0) {
		while (text && *text && text[strlen(text) - 1] == '\n')
			text[strlen(text) - 1] = '\0';
		last = text ? strrchr(text, '\n') : NULL;
		ret = rtlab_err_seterr(err, EIO, "git fetch %s %s failed: %s",
				       url, ref,
				       last ? last + 1 :
				       text ? text :
					      "");
	} else if (rc < 0) {
		ret = rc;
	} else {
		char *rp[] = { "git",	   "-C",      dir,  "rev-parse",
			       "--verify", "--quiet", NULL, NULL };

		free(spec);
		spec = NULL;
		if (asprintf(&spec, "%s^{commit}", dest) < 0) {
			ret = -ENOMEM;
			goto out;
		}
		rp[6] = spec;
		rc = spawn_capture(rp, NULL, 2, &out, err);
		if (rc == 0 && out && is_sha(strtok(out, "\n")))
			memcpy(sha, out, 41);
		else
			ret = rtlab_err_seterr(err, EIO,
					       "git fetch %s %s: not a commit",
					       url, ref);
	}
out:
	free(text);
	free(out);
	free(spec);
	free(dir);
	return ret;
}

/* The newest t->follow commits of the branch, first parent, oldest first. */
static int git_discover(const struct tree_def *t, struct tree_kernel **out,
			size_t *n, struct rtlab_err *err)
{
	char *dir = NULL, *text = NULL, *line, *save = NULL, *branch = NULL;
	char count[32];
	struct tree_kernel *k = NULL;
	size_t nk = 0, i;
	int ret;

	ret = tree_git_mirror(t, true, &dir, err);
	if (ret)
		return ret;
	snprintf(count, sizeof(count), "--max-count=%lu", t->follow);
	if (asprintf(&branch, "refs/heads/%s", t->branch) < 0) {
		free(dir);
		return -ENOMEM;
	}
	{
		char *argv[] = {
			"git", "-C",   dir,  "rev-list", "--first-parent",
			count, branch, "--", NULL
		};

		ret = git(t, argv, &text, "git rev-list of its branch", err);
	}
	if (ret == -EIO)
		rtlab_err_set(err, "tree %s: %s has no branch '%s'", t->name,
			      t->git, t->branch);
	for (line = ret ? NULL : strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct tree_kernel *bigger = realloc(k, (nk + 1) * sizeof(*k));

		if (!bigger || !is_sha(line)) {
			ret = rtlab_err_seterr(err, bigger ? EIO : ENOMEM,
					       "tree %s: git rev-list said "
					       "'%s'",
					       t->name, line);
			if (bigger)
				k = bigger;
			break;
		}
		k = bigger;
		k[nk].package = strdup(t->name);
		k[nk].version = strdup(line);
		if (!k[nk++].package || !k[nk - 1].version) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			break;
		}
	}
	if (!ret) {
		/* rev-list gives the newest first */
		for (i = 0; i < nk / 2; i++) {
			struct tree_kernel x = k[i];

			k[i] = k[nk - 1 - i];
			k[nk - 1 - i] = x;
		}
		*out = k;
		*n = nk;
		k = NULL;
		nk = 0;
	}
	tree_kernels_free(k, nk);
	free(branch);
	free(text);
	free(dir);
	return ret;
}

int tree_discover(const struct tree_def *t, struct tree_kernel **out, size_t *n,
		  struct rtlab_err *err)
{
	*out = NULL;
	*n = 0;
	if (t->kind == TREE_KIND_GIT)
		return git_discover(t, out, n, err);
	return debian_discover(t, out, n, err);
}
