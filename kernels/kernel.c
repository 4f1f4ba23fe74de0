// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel definitions and the kernel cache: reads kernels/NAME.yaml, resolves
 * a Debian kernel package to its versioned image package, downloads and
 * unpacks it once into STATE_DIR/cache/kernels/<package>_<version>/,
 * verifies it, and records the kernel's identity (release, version string,
 * config sha256, PREEMPT_RT or not) in ident.json beside it.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "config.h"
#include "fsutil.h"
#include "kernel.h"
#include "tree.h"
#include "yamlmap.h"

#define KERNEL_KEYS                                         \
	"name, kind, tree, description, package, version, " \
	"image, modules, config, cmdline, commit, fragment"
#define IDENT_FILE "ident.json"

void kernel_def_free(struct kernel_def *k)
{
	if (!k)
		return;
	free(k->path);
	free(k->name);
	free(k->tree);
	free(k->description);
	free(k->package);
	free(k->version);
	free(k->image);
	free(k->modules);
	free(k->config);
	free(k->cmdline);
	free(k->commit);
	free(k->fragment);
	free(k);
}

static bool valid_pkg_name(const char *s)
{
	if (!isalnum((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) &&
		    !isdigit((unsigned char)*s) && !strchr("+-.", *s))
			return false;
	return true;
}

static bool valid_version(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("+-.:~", *s))
			return false;
	return true;
}

/* A relative path in a definition is relative to the definition's folder. */
static int def_path(const char *yaml_path, char **p)
{
	char *dir, *slash, *full;

	if (!*p || (*p)[0] == '/')
		return 0;
	dir = strdup(yaml_path);
	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	full = slash ? path_join(dir, *p) : strdup(*p);
	free(dir);
	if (!full)
		return -ENOMEM;
	free(*p);
	*p = full;
	return 0;
}

static char *base_name_noext(const char *path)
{
	const char *b = strrchr(path, '/');
	char *s, *dot;

	s = strdup(b ? b + 1 : path);
	if (s && (dot = strrchr(s, '.')) && dot != s)
		*dot = '\0';
	return s;
}

struct kernel_def *kernel_def_load(const char *path, struct rtlab_err *err)
{
	struct kernel_def *k;
	struct ymap m;
	struct ymap_entry *e;
	char *kind = NULL;
	int ret;

	if (ymap_load(path, &m, err))
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k || !(k->path = strdup(path)))
		goto nomem;
	if (ymap_str(&m, "name", false, &k->name, err) ||
	    ymap_str(&m, "kind", true, &kind, err) ||
	    ymap_str(&m, "tree", false, &k->tree, err) ||
	    ymap_str(&m, "description", false, &k->description, err) ||
	    ymap_str(&m, "package", false, &k->package, err) ||
	    ymap_str(&m, "version", false, &k->version, err) ||
	    ymap_str(&m, "image", false, &k->image, err) ||
	    ymap_str(&m, "modules", false, &k->modules, err) ||
	    ymap_str(&m, "config", false, &k->config, err) ||
	    ymap_str(&m, "cmdline", false, &k->cmdline, err) ||
	    ymap_str(&m, "commit", false, &k->commit, err) ||
	    ymap_str(&m, "fragment", false, &k->fragment, err) ||
	    ymap_unused(&m, KERNEL_KEYS, err))
		goto fail;
	if (!k->name && !(k->name = base_name_noext(path)))
		goto nomem;
	if ((k->commit || k->fragment) && strcmp(kind, "build")) {
		rtlab_err_set(err,
			      "%s: fields 'commit' and 'fragment' belong to "
			      "kind 'build', not '%s'",
			      path, kind);
		goto fail;
	}
	if (!strcmp(kind, "build")) {
		k->kind = KERNEL_KIND_BUILD;
		if (!k->tree || !k->commit) {
			rtlab_err_set(err,
				      "%s: kind 'build' needs fields 'tree' "
				      "(a git tree: rtlab tree list) and "
				      "'commit'",
				      path);
			goto fail;
		}
		if (k->package || k->version || k->image || k->modules ||
		    k->config) {
			rtlab_err_set(err,
				      "%s: kind 'build' takes 'tree' and "
				      "'commit', not 'package', 'version', "
				      "'image', 'modules' or 'config'",
				      path);
			goto fail;
		}
		/* a tree named by a relative path is beside the definition */
		if ((strchr(k->tree, '/') && def_path(path, &k->tree)) ||
		    def_path(path, &k->fragment))
			goto nomem;
	} else if (!strcmp(kind, "debian")) {
		k->kind = KERNEL_KIND_DEBIAN;
		if (!k->package) {
			rtlab_err_set(err,
				      "%s: kind 'debian' needs field "
				      "'package' (e.g. linux-image-rt-amd64)",
				      path);
			goto fail;
		}
		e = ymap_get(&m, "package");
		if (!valid_pkg_name(k->package)) {
			rtlab_err_set(err,
				      "%s: line %lu: field 'package': "
				      "'%s' is not a Debian package name",
				      path, e->line, k->package);
			goto fail;
		}
		e = ymap_get(&m, "version");
		if (k->version && !valid_version(k->version)) {
			rtlab_err_set(err,
				      "%s: line %lu: field 'version': "
				      "'%s' is not a Debian version",
				      path, e->line, k->version);
			goto fail;
		}
		if (k->image || k->modules || k->config) {
			rtlab_err_set(err,
				      "%s: fields 'image', 'modules', "
				      "'config' belong to kind 'local', not "
				      "'debian'",
				      path);
			goto fail;
		}
	} else if (!strcmp(kind, "local")) {
		k->kind = KERNEL_KIND_LOCAL;
		if (!k->image) {
			rtlab_err_set(err,
				      "%s: kind 'local' needs field "
				      "'image' (path to a bzImage)",
				      path);
			goto fail;
		}
		if (k->package || k->version) {
			rtlab_err_set(err,
				      "%s: fields 'package' and "
				      "'version' belong to kind 'debian', not "
				      "'local'",
				      path);
			goto fail;
		}
		ret = def_path(path, &k->image)		  ?:
			      def_path(path, &k->modules) ?:
			      def_path(path, &k->config);
		if (ret)
			goto nomem;
	} else {
		e = ymap_get(&m, "kind");
		rtlab_err_set(err,
			      "%s: line %lu: field 'kind': expected "
			      "'debian', 'local' or 'build', got '%s'",
			      path, e->line, kind);
		goto fail;
	}
	free(kind);
	ymap_cleanup(&m);
	return k;
nomem:
	rtlab_err_set(err, "%s: out of memory", path);
fail:
	free(kind);
	kernel_def_free(k);
	ymap_cleanup(&m);
	return NULL;
}

char *kernel_defs_dir(void)
{
	struct stat st;
	char *d = rtlab_data_path("kernels");

	if (d && !stat(d, &st) && S_ISDIR(st.st_mode))
		return d;
	free(d);
	return NULL;
}

/* "PACKAGE=VERSION": a Debian kernel package pinned at a version, the way
 * a tree's kernels are named (kernels/tree.h). */
static struct kernel_def *pinned_package(const char *spec,
					 struct rtlab_err *err)
{
	const char *eq = strchr(spec, '=');
	struct kernel_def *k = calloc(1, sizeof(*k));

	if (!k) {
		rtlab_err_set(err, "out of memory");
		return NULL;
	}
	k->kind = KERNEL_KIND_DEBIAN;
	k->path = strdup(spec);
	k->package = strndup(spec, eq - spec);
	k->version = strdup(eq + 1);
	k->name = k->package ? strdup(k->package) : NULL;
	if (!k->path || !k->package || !k->version || !k->name) {
		rtlab_err_set(err, "out of memory");
	} else if (!*k->package || !valid_pkg_name(k->package) ||
		   !*k->version || !valid_version(k->version)) {
		rtlab_err_set(err,
			      "kernel '%s': expected a definition name, a "
			      "FILE.yaml or PACKAGE=VERSION (a Debian package "
			      "and version)",
			      spec);
	} else {
		k->tree = tree_of_package(k->package);
		return k;
	}
	kernel_def_free(k);
	return NULL;
}

/* "TREE@REF": a commit of a git tree, built by the lab (kernels/build.h),
 * the way a git tree's kernels are named (kernels/tree.h). */
static struct kernel_def *pinned_build(const char *spec, struct rtlab_err *err)
{
	const char *at = strchr(spec, '@');
	struct kernel_def *k = calloc(1, sizeof(*k));

	if (!k) {
		rtlab_err_set(err, "out of memory");
		return NULL;
	}
	k->kind = KERNEL_KIND_BUILD;
	k->path = strdup(spec);
	k->name = strdup(spec);
	k->tree = strndup(spec, at - spec);
	k->commit = strdup(at + 1);
	if (!k->path || !k->name || !k->tree || !k->commit) {
		rtlab_err_set(err, "out of memory");
	} else if (!*k->tree || !*k->commit || strchr(k->commit, '@')) {
		rtlab_err_set(err,
			      "kernel '%s': expected TREE@COMMIT (a git "
			      "tree and a commit, branch or tag of it)",
			      spec);
	} else if (strlen(k->commit) == 40 &&
		   strspn(k->commit, "0123456789abcdef") == 40) {
		return k;
	} else {
		/* a branch, tag or abbreviation moves or grows: the kernel
		 * is named by the commit it means now */
		struct tree_def *t = tree_def_find(k->tree, err);
		char sha[41];

		if (t && !tree_git_resolve(t, k->commit, sha, err)) {
			free(k->commit);
			free(k->name);
			k->commit = strdup(sha);
			if (asprintf(&k->name, "%s@%s", t->name, sha) < 0)
				k->name = NULL;
			if (k->commit && k->name) {
				tree_def_free(t);
				return k;
			}
			rtlab_err_set(err, "out of memory");
		}
		tree_def_free(t);
	}
	kernel_def_free(k);
	return NULL;
}

struct kernel_def *kernel_def_find(const char *name, struct rtlab_err *err)
{
	struct kernel_def *k;
	char *dir, *path;
	size_t n = strlen(name);

	if (strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".yaml")))
		return kernel_def_load(name, err);
	if (strchr(name, '='))
		return pinned_package(name, err);
	if (strchr(name, '@'))
		return pinned_build(name, err);
	dir = kernel_defs_dir();
	if (!dir) {
		rtlab_err_set(err,
			      "kernel '%s': no kernels/ directory found "
			      "(set RTLAB_DATADIR)",
			      name);
		return NULL;
	}
	if (asprintf(&path, "%s/%s.yaml", dir, name) < 0) {
		free(dir);
		return NULL;
	}
	if (access(path, R_OK) < 0) {
		rtlab_err_set(err,
			      "kernel '%s': no definition %s ('rtlab "
			      "kernel list' shows the known ones)",
			      name, path);
		k = NULL;
	} else {
		k = kernel_def_load(path, err);
	}
	free(path);
	free(dir);
	return k;
}

char *kernel_cache_root(void)
{
	char *cache = rtlab_cache_dir(), *root;

	root = cache ? path_join(cache, "kernels") : NULL;
	free(cache);
	return root;
}

void kernel_ident_cleanup(struct kernel_ident *id)
{
	if (!id)
		return;
	free(id->name);
	free(id->tree);
	free(id->package);
	free(id->package_version);
	free(id->release);
	free(id->version);
	free(id->image_path);
	free(id->modules_dir);
	free(id->config_path);
	free(id->cache_dir);
	free(id->commit);
	free(id->build_log);
	memset(id, 0, sizeof(*id));
	id->realtime = -1;
}

int kernel_image_check(const char *path, char **release, char **version,
		       struct rtlab_err *err)
{
	unsigned char hdr[0x280];
	char kv[512], *sp;
	uint32_t syssize;
	unsigned int setup_sects, kvoff;
	size_t need;
	struct stat st;
	FILE *f;
	int ret = -EINVAL;

	if (release)
		*release = NULL;
	if (version)
		*version = NULL;
	f = fopen(path, "rb");
	if (!f)
		return rtlab_err_seterr(err, errno,
					"%s: cannot open kernel "
					"image: %s",
					path, strerror(errno));
	if (fstat(fileno(f), &st) < 0 || st.st_size == 0) {
		rtlab_err_set(err, "%s: kernel image is empty", path);
		goto out;
	}
	if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr) ||
	    memcmp(hdr + 0x202, "HdrS", 4)) {
		rtlab_err_set(err,
			      "%s: not an x86 bzImage (no \"HdrS\" at "
			      "offset 0x202)",
			      path);
		goto out;
	}
	setup_sects = hdr[0x1f1] ? hdr[0x1f1] : 4;
	syssize = hdr[0x1f4] | hdr[0x1f5] << 8 | hdr[0x1f6] << 16 |
		  (uint32_t)hdr[0x1f7] << 24;
	need = (size_t)(setup_sects + 1) * 512 + (size_t)syssize * 16;
	if ((size_t)st.st_size < need) {
		rtlab_err_set(err,
			      "%s: kernel image truncated: %lld bytes, "
			      "its header announces %zu",
			      path, (long long)st.st_size, need);
		goto out;
	}
	kvoff = hdr[0x20e] | hdr[0x20f] << 8;
	kv[0] = '\0';
	if (kvoff && !fseek(f, kvoff + 0x200, SEEK_SET) &&
	    fgets(kv, sizeof(kv), f)) {
		kv[strnlen(kv, sizeof(kv) - 1)] = '\0';
	}
	/* "6.1.0-57-rt-amd64 (debian-kernel@...) #1 SMP PREEMPT_RT ..." */
	sp = strchr(kv, ' ');
	if (release && kv[0])
		*release = strndup(kv, sp ? (size_t)(sp - kv) : strlen(kv));
	if (version && sp && (sp = strstr(sp, " #")))
		*version = strdup(sp + 1);
	if (version && *version)
		(*version)[strcspn(*version, "\n")] = '\0';
	ret = 0;
out:
	fclose(f);
	return ret;
}

/* "Key: value" of the first stanza of apt-cache show output; malloc'd. */
static char *stanza_field(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p && *p != '\n') {
		if (!strncmp(p, key, kl) && p[kl] == ':') {
			p += kl + 1;
			while (*p == ' ')
				p++;
			return strndup(p, strcspn(p, "\n"));
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

struct apt_pkg {
	char *package, *version, *sha256;
};

static void apt_pkg_cleanup(struct apt_pkg *a)
{
	free(a->package);
	free(a->version);
	free(a->sha256);
	memset(a, 0, sizeof(*a));
}

static int apt_show(const char *pkg, const char *ver, char **out,
		    struct rtlab_err *err)
{
	char spec[256];
	char *argv[] = { "apt-cache", "show", "--no-all-versions", spec, NULL };
	int rc;

	snprintf(spec, sizeof(spec), ver ? "%s=%s" : "%s", pkg, ver);
	rc = spawn_capture(argv, NULL, 2, out, err);
	if (rc < 0)
		return rc;
	if (rc || !strstr(*out, "Package:")) {
		free(*out);
		*out = NULL;
		return -ENOENT;
	}
	return 0;
}

/* Resolve (metapackage) @k->package to the linux-image-<release> package. */
static int apt_resolve(const struct kernel_def *k, struct apt_pkg *a,
		       struct rtlab_err *err)
{
	char *text = NULL, *deps = NULL, *p, *name = NULL, *ver = NULL;
	int ret;

	memset(a, 0, sizeof(*a));
	ret = apt_show(k->package, k->version, &text, err);
	if (ret == -ENOENT)
		return rtlab_err_seterr(err, ENOENT,
					"%s: field 'package': "
					"apt knows no package '%s%s%s' (check "
					"the name, or run apt-get update)",
					k->path, k->package,
					k->version ? "=" : "",
					k->version ? k->version : "");
	if (ret)
		return ret;
	/* A versioned image ships the kernel itself; a metapackage depends
	 * on one "linux-image-<release> (= version)". */
	if (!strncmp(k->package, "linux-image-", 12) &&
	    isdigit((unsigned char)k->package[12])) {
		name = strdup(k->package);
		ver = stanza_field(text, "Version");
	} else {
		deps = stanza_field(text, "Depends");
		p = deps ? strstr(deps, "linux-image-") : NULL;
		while (p && !isdigit((unsigned char)p[12]))
			p = strstr(p + 12, "linux-image-");
		if (!p) {
			ret = rtlab_err_set(err,
					    "%s: field 'package': '%s' "
					    "neither is a linux-image-<release>"
					    " package nor depends on one",
					    k->path, k->package);
			goto out;
		}
		name = strndup(p, strcspn(p, " ,|("));
		p += strcspn(p, ",|(");
		if (*p == '(' && (p = strchr(p, '=')))
			ver = strndup(p + 2, strcspn(p + 2, " )"));
	}
	free(text);
	text = NULL;
	ret = apt_show(name, ver, &text, err);
	if (ret == -ENOENT)
		ret = rtlab_err_seterr(err, ENOENT,
				       "%s: field 'package': '%s' "
				       "needs %s %s, which apt does not know",
				       k->path, k->package, name,
				       ver ? ver : "");
	if (ret)
		goto out;
	a->package = stanza_field(text, "Package");
	a->version = stanza_field(text, "Version");
	a->sha256 = stanza_field(text, "SHA256");
	if (!a->package || !a->version) {
		ret = rtlab_err_set(err,
				    "%s: apt-cache show %s: no Package/"
				    "Version field",
				    k->path, name);
		apt_pkg_cleanup(a);
	}
out:
	free(text);
	free(deps);
	free(name);
	free(ver);
	return ret;
}

/*
 * ident.json names the entry's files relative to the entry, so a cache
 * that was moved or copied (another state directory, a CI cache restored
 * elsewhere) still finds them.  An absolute path (older entries, or a file
 * outside the entry) is kept as it is.
 */
static const char *path_in_entry(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	if (path && !strncmp(path, dir, n) && path[n] == '/' && path[n + 1])
		return path + n + 1;
	return path;
}

static char *path_from_entry(const char *dir, const char *stored)
{
	if (!stored)
		return NULL;
	return stored[0] == '/' ? strdup(stored) : path_join(dir, stored);
}

static int ident_from_json(const char *dir, struct kernel_ident *id,
			   struct rtlab_err *err)
{
	char *path = path_join(dir, IDENT_FILE);
	json_error_t jerr;
	json_t *j;
	int ret = 0;

	if (!path)
		return -ENOMEM;
	j = json_load_file(path, 0, &jerr);
	if (!j) {
		ret = access(path, F_OK) ?
			      -ENOENT :
			      rtlab_err_set(err, "%s: %s", path, jerr.text);
		goto out;
	}
#define JS(key)                                                       \
	(json_string_value(json_object_get(j, key)) ?                 \
		 strdup(json_string_value(json_object_get(j, key))) : \
		 NULL)
	id->release = JS("release");
	id->version = JS("version");
	if (!id->commit)
		id->commit = JS("commit");
#undef JS
	id->image_path =
		path_from_entry(dir,
				json_string_value(json_object_get(j, "image")));
	id->modules_dir =
		path_from_entry(dir,
				json_string_value(json_object_get(j,
								  "modules")));
	id->config_path =
		path_from_entry(dir,
				json_string_value(json_object_get(j,
								  "config")));
	snprintf(id->config_sha256, sizeof(id->config_sha256), "%s",
		 json_string_value(json_object_get(j, "config_sha256")) ?: "");
	id->realtime = json_is_true(json_object_get(j, "realtime"))  ? 1 :
		       json_is_false(json_object_get(j, "realtime")) ? 0 :
								       -1;
	if (!id->release || !id->image_path)
		ret = rtlab_err_set(err, "%s: missing 'release' or 'image'",
				    path);
	json_decref(j);
out:
	free(path);
	return ret;
}

/* Written into @dir, naming the files relative to the entry @entry. */
static int ident_to_json(const char *dir, const char *entry,
			 const struct kernel_ident *id, struct rtlab_err *err)
{
	char *path = path_join(dir, IDENT_FILE);
	json_t *j;
	int ret = 0;

	j = json_pack("{s:s?, s:s?, s:s?, s:s?, s:s, s:s?, s:s, s:s?, s:s?, "
		      "s:s?, s:o}",
		      "tree", id->commit ? id->tree : NULL, "commit",
		      id->commit, "package", id->package, "package_version",
		      id->package_version, "release", id->release, "version",
		      id->version, "image",
		      path_in_entry(entry, id->image_path), "modules",
		      path_in_entry(entry, id->modules_dir), "config",
		      path_in_entry(entry, id->config_path), "config_sha256",
		      id->config_sha256[0] ? id->config_sha256 : NULL,
		      "realtime",
		      id->realtime < 0 ? json_null() :
					 json_boolean(id->realtime));
	if (!path || !j || json_dump_file(j, path, JSON_INDENT(2)))
		ret = rtlab_err_seterr(err, EIO, "%s: cannot write",
				       path ? path : dir);
	json_decref(j);
	free(path);
	return ret;
}

/* Config facts: sha256 and whether CONFIG_PREEMPT_RT=y. */
static int read_config(const char *path, struct kernel_ident *id,
		       struct rtlab_err *err)
{
	char *text;
	int ret;

	ret = file_sha256_hex(path, id->config_sha256, err);
	if (ret)
		return ret;
	ret = file_read_all(path, &text, NULL, err);
	if (ret)
		return ret;
	id->realtime = strstr(text, "\nCONFIG_PREEMPT_RT=y\n") ? 1 : 0;
	free(text);
	return 0;
}

static int only_subdir(const char *dir, char **name)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	*name = NULL;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!n++)
			*name = strdup(de->d_name);
	}
	closedir(d);
	if (n != 1) {
		free(*name);
		*name = NULL;
		return -EINVAL;
	}
	return *name ? 0 : -ENOMEM;
}

/* Download and unpack @a into @tmp, fill @id with paths under @final. */
static int debian_unpack(const struct kernel_def *k, const struct apt_pkg *a,
			 const char *tmp, const char *final,
			 struct kernel_ident *id, struct rtlab_err *err)
{
	char spec[256], deb[4096], sha[65], *out = NULL, *rel = NULL;
	char *root = NULL, *p = NULL;
	char *dl[] = { "apt-get", "download", "-q", spec, NULL };
	char *info[] = { "dpkg-deb", "--info", deb, NULL };
	char *x[] = { "dpkg", "-x", deb, NULL, NULL };
	char *depmod[] = { "depmod", "-b", NULL, NULL, NULL };
	struct dirent *de;
	DIR *d;
	int rc, ret;

	snprintf(spec, sizeof(spec), "%s=%s", a->package, a->version);
	rc = spawn_capture(dl, tmp, 1, &out, err);
	if (rc) {
		ret = rc < 0 ? rc :
			       rtlab_err_seterr(err, EIO,
						"%s: apt-get download %s "
						"failed: %.300s",
						k->path, spec, out);
		goto out;
	}
	deb[0] = '\0';
	d = opendir(tmp);
	while (d && (de = readdir(d)))
		if (strstr(de->d_name, ".deb"))
			snprintf(deb, sizeof(deb), "%s/%s", tmp, de->d_name);
	if (d)
		closedir(d);
	if (!deb[0]) {
		ret = rtlab_err_seterr(err, EIO,
				       "%s: apt-get download %s left "
				       "no .deb",
				       k->path, spec);
		goto out;
	}
	ret = file_sha256_hex(deb, sha, err);
	if (ret)
		goto out;
	if (a->sha256 && strcmp(a->sha256, sha)) {
		ret = rtlab_err_seterr(err, EIO, "%s: sha256 %s, apt says %s",
				       deb, sha, a->sha256);
		goto out;
	}
	free(out);
	out = NULL;
	rc = spawn_capture(info, NULL, 1, &out, err);
	if (rc) {
		ret = rtlab_err_seterr(err, EIO,
				       "%s: dpkg-deb --info failed: "
				       "%.300s",
				       deb, out ? out : "");
		goto out;
	}
	root = path_join(tmp, "root");
	x[3] = root;
	free(out);
	out = NULL;
	rc = spawn_capture(x, NULL, 1, &out, err);
	if (rc) {
		ret = rtlab_err_seterr(err, EIO, "%s: dpkg -x failed: %.300s",
				       deb, out ? out : "");
		goto out;
	}
	unlink(deb);
	if (asprintf(&p, "%s/lib/modules", root) < 0 || only_subdir(p, &rel)) {
		ret = rtlab_err_seterr(err, EIO,
				       "%s: package %s has no single "
				       "lib/modules/<release>",
				       k->path, spec);
		goto out;
	}
	/* Debian generates modules.dep at install time; so do we. */
	depmod[2] = root;
	depmod[3] = rel;
	free(out);
	out = NULL;
	rc = spawn_capture(depmod, NULL, 1, &out, err);
	if (rc) {
		ret = rtlab_err_seterr(err, EIO,
				       "depmod -b %s %s failed: "
				       "%.300s",
				       root, rel, out ? out : "");
		goto out;
	}
	free(p);
	p = NULL;
	if (asprintf(&p, "%s/root/boot/vmlinuz-%s", tmp, rel) < 0)
		goto nomem;
	ret = kernel_image_check(p, NULL, &id->version, err);
	if (ret)
		goto out;
	free(p);
	p = NULL;
	if (asprintf(&p, "%s/root/boot/config-%s", tmp, rel) < 0)
		goto nomem;
	if (!access(p, R_OK)) {
		ret = read_config(p, id, err);
		if (ret)
			goto out;
	}
	id->release = rel;
	rel = NULL;
	if (asprintf(&id->image_path, "%s/root/boot/vmlinuz-%s", final,
		     id->release) < 0 ||
	    asprintf(&id->modules_dir, "%s/root/lib/modules/%s", final,
		     id->release) < 0 ||
	    (id->config_sha256[0] &&
	     asprintf(&id->config_path, "%s/root/boot/config-%s", final,
		      id->release) < 0))
		goto nomem;
	ret = 0;
	goto out;
nomem:
	ret = -ENOMEM;
out:
	free(p);
	free(rel);
	free(root);
	free(out);
	return ret;
}

static int debian_fetch(const struct kernel_def *k, const char *cache_root,
			bool download, struct kernel_ident *id,
			struct rtlab_err *err)
{
	struct apt_pkg a;
	char *final = NULL, *tmp = NULL;
	int ret;

	ret = apt_resolve(k, &a, err);
	if (ret)
		return ret;
	id->package = strdup(a.package);
	id->package_version = strdup(a.version);
	if (asprintf(&final, "%s/%s_%s", cache_root, a.package, a.version) <
	    0) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ident_from_json(final, id, err);
	if (!ret) {
		/* cheap re-check: a damaged cache entry is refetched */
		ret = kernel_image_check(id->image_path, NULL, NULL, err);
		if (!ret)
			goto done;
		if (!download)
			goto out;
		rmtree(final);
	} else if (ret != -ENOENT || !download) {
		goto out;
	}
	ret = mkdir_p(cache_root, 0755, err);
	if (ret)
		goto out;
	if (asprintf(&tmp, "%s/.%s_%s.tmp.%d", cache_root, a.package, a.version,
		     (int)getpid()) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	rmtree(tmp);
	ret = mkdir_p(tmp, 0755, err);
	if (ret)
		goto out;
	ret = debian_unpack(k, &a, tmp, final, id, err);
	if (!ret)
		ret = ident_to_json(tmp, final, id, err);
	if (ret)
		goto out;
	if (rename(tmp, final) < 0) {
		/* another fetch finished first: use its copy */
		if (errno != EEXIST && errno != ENOTEMPTY) {
			ret = rtlab_err_seterr(err, errno,
					       "rename %s -> %s: "
					       "%s",
					       tmp, final, strerror(errno));
			goto out;
		}
	}
	id->fetched_now = true;
done:
	id->cache_dir = final;
	final = NULL;
out:
	if (tmp)
		rmtree(tmp);
	free(tmp);
	free(final);
	apt_pkg_cleanup(&a);
	return ret;
}

static int local_check(const struct kernel_def *k, struct kernel_ident *id,
		       struct rtlab_err *err)
{
	struct stat st;
	int ret;

	ret = kernel_image_check(k->image, &id->release, &id->version, err);
	if (ret) {
		rtlab_err_prefix(err, "%s: field 'image'", k->path);
		return ret;
	}
	if (!id->release)
		return rtlab_err_set(err,
				     "%s: field 'image': %s names no "
				     "kernel release in its header",
				     k->path, k->image);
	id->image_path = strdup(k->image);
	if (k->modules) {
		if (stat(k->modules, &st) < 0 || !S_ISDIR(st.st_mode))
			return rtlab_err_set(err,
					     "%s: field 'modules': %s is "
					     "not a directory",
					     k->path, k->modules);
		id->modules_dir = strdup(k->modules);
	}
	if (k->config) {
		ret = read_config(k->config, id, err);
		if (ret) {
			rtlab_err_prefix(err, "%s: field 'config'", k->path);
			return ret;
		}
		id->config_path = strdup(k->config);
	} else if (id->version) {
		id->realtime = strstr(id->version, "PREEMPT_RT") ? 1 : -1;
	}
	return 0;
}

/*
 * A commit of a git tree: its entry is build_<tree>_<commit>_<config key>.
 * The build logs to <entry>.log, moved into the entry when it succeeds; a
 * failed build leaves <entry>.failed (the reason, one line, naming the
 * log), which answers later fetches.
 */
/* The tree, commit id and cache entry of a kernel to build. */
static int build_entry(const struct kernel_def *k, const char *cache_root,
		       struct tree_def **tree, char sha[41], char **final,
		       struct rtlab_err *err)
{
	struct tree_def *t;
	char key[13];
	int ret;

	*final = NULL;
	*tree = t = tree_def_find(k->tree, err);
	if (!t)
		return -EINVAL;
	if (t->kind != TREE_KIND_GIT)
		return rtlab_err_set(err,
				     "kernel '%s': tree %s is not a git tree "
				     "(its kernels are named PACKAGE=VERSION)",
				     k->name, t->name);
	if (k->fragment) {
		/* the kernel's own fragment comes last: it wins */
		char **bigger = realloc(t->fragments,
					(t->nfragments + 1) * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		t->fragments = bigger;
		bigger[t->nfragments] = strdup(k->fragment);
		if (!bigger[t->nfragments++])
			return -ENOMEM;
	}
	ret = tree_git_resolve(t, k->commit, sha, err) ?:
		      build_config_key(t, key, err);
	if (!ret && asprintf(final, "%s/build_%s_%.12s_%s", cache_root, t->name,
			     sha, key) < 0) {
		*final = NULL;
		ret = -ENOMEM;
	}
	return ret;
}

int kernel_build_forget(const struct kernel_def *k, const char *cache_root,
			struct rtlab_err *err)
{
	struct tree_def *t = NULL;
	char sha[41], *final = NULL, *failed = NULL, *root = NULL;
	int ret;

	if (!cache_root)
		cache_root = root = kernel_cache_root();
	ret = cache_root ? build_entry(k, cache_root, &t, sha, &final, err) :
			   -ENOMEM;
	if (!ret && asprintf(&failed, "%s.failed", final) < 0)
		ret = -ENOMEM;
	if (!ret && unlink(failed) < 0 && errno != ENOENT)
		ret = rtlab_err_seterr(err, errno, "%s: %s", failed,
				       strerror(errno));
	tree_def_free(t);
	free(failed);
	free(final);
	free(root);
	return ret;
}

static int build_fetch(const struct kernel_def *k, const char *cache_root,
		       bool build, struct kernel_ident *id,
		       struct rtlab_err *err)
{
	struct tree_def *t = NULL;
	char sha[41], *final = NULL, *tmp = NULL, *failed = NULL;
	char *log = NULL, *why = NULL, *image = NULL, *config = NULL;
	char *mods = NULL, *rel = NULL, *kept_log = NULL;
	size_t cap = 0;
	FILE *f;
	int ret;

	ret = build_entry(k, cache_root, &t, sha, &final, err);
	if (ret)
		goto out;
	free(id->tree);
	id->tree = strdup(t->name);
	id->commit = strdup(sha);
	if (asprintf(&failed, "%s.failed", final) < 0 ||
	    asprintf(&log, "%s.log", final) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ident_from_json(final, id, err);
	if (!ret) {
		ret = kernel_image_check(id->image_path, NULL, NULL, err);
		if (!ret)
			goto done;
		if (!build)
			goto out;
		rmtree(final);
	} else if (ret != -ENOENT) {
		goto out;
	}
	f = fopen(failed, "r");
	if (f) {
		if (getline(&why, &cap, f) > 0)
			why[strcspn(why, "\n")] = '\0';
		fclose(f);
		ret = rtlab_err_seterr(err, EIO, "%s (an earlier build)",
				       why ? why : "build failed");
		id->build_log = log;
		log = NULL;
		goto out;
	}
	if (!build) {
		ret = -ENOENT;
		goto out;
	}
	if (asprintf(&tmp, "%s.tmp.%d", final, (int)getpid()) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	rmtree(tmp);
	unlink(log);
	ret = mkdir_p(tmp, 0755, err);
	if (ret)
		goto out;
	ret = kernel_build(t, sha, tmp, log, err);
	if (ret == -EIO) {
		/* a build that fails is a result, kept with its log */
		f = fopen(failed, "w");
		if (f) {
			fprintf(f, "%s\n", err->msg);
			fclose(f);
		}
		id->build_log = log;
		log = NULL;
	}
	if (ret)
		goto out;
	image = path_join(tmp, "bzImage");
	config = path_join(tmp, "config");
	mods = path_join(tmp, "root/lib/modules");
	kept_log = path_join(tmp, "build.log");
	if (!image || !config || !mods || !kept_log) {
		ret = -ENOMEM;
		goto out;
	}
	ret = kernel_image_check(image, &id->release, &id->version, err) ?:
		      read_config(config, id, err);
	if (ret)
		goto out;
	if (!id->release) {
		ret = rtlab_err_set(err,
				    "build of %s@%.12s: its bzImage names no "
				    "kernel release",
				    t->name, sha);
		goto out;
	}
	id->image_path = path_join(final, "bzImage");
	id->config_path = path_join(final, "config");
	if (!only_subdir(mods, &rel) &&
	    asprintf(&id->modules_dir, "%s/root/lib/modules/%s", final, rel) <
		    0)
		id->modules_dir = NULL;
	ret = ident_to_json(tmp, final, id, err);
	if (ret)
		goto out;
	if (rename(log, kept_log) < 0 ||
	    (rename(tmp, final) < 0 && errno != EEXIST && errno != ENOTEMPTY)) {
		ret = rtlab_err_seterr(err, errno, "rename into %s: %s", final,
				       strerror(errno));
		goto out;
	}
	id->fetched_now = true;
done:
	id->build_log = path_join(final, "build.log");
	id->cache_dir = final;
	final = NULL;
out:
	if (tmp)
		rmtree(tmp);
	free(tmp);
	free(log);
	free(why);
	free(failed);
	free(final);
	free(image);
	free(config);
	free(mods);
	free(rel);
	free(kept_log);
	tree_def_free(t);
	return ret;
}

static int fetch(const struct kernel_def *k, const char *cache_root,
		 bool download, struct kernel_ident *id, struct rtlab_err *err)
{
	char *root = NULL;
	int ret;

	memset(id, 0, sizeof(*id));
	id->realtime = -1;
	id->name = strdup(k->name);
	id->tree = k->tree ? strdup(k->tree) : NULL;
	if (k->kind == KERNEL_KIND_LOCAL) {
		ret = local_check(k, id, err);
	} else {
		if (!cache_root)
			cache_root = root = kernel_cache_root();
		if (!cache_root)
			ret = -ENOMEM;
		else if (k->kind == KERNEL_KIND_BUILD)
			ret = build_fetch(k, cache_root, download, id, err);
		else
			ret = debian_fetch(k, cache_root, download, id, err);
	}
	free(root);
	if (ret)
		kernel_ident_cleanup(id);
	return ret;
}

int kernel_fetch(const struct kernel_def *k, const char *cache_root,
		 struct kernel_ident *id, struct rtlab_err *err)
{
	return fetch(k, cache_root, true, id, err);
}

int kernel_cached(const struct kernel_def *k, const char *cache_root,
		  struct kernel_ident *id, struct rtlab_err *err)
{
	return fetch(k, cache_root, false, id, err);
}
