// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Building out-of-tree modules against a fetched kernel: its Debian header
 * packages unpacked into the kernel cache, kbuild run on a copy of the
 * sources, the vermagic checked, the .ko cached by a hash of the sources;
 * and a small cpio archive that carries the module into the virtual
 * board's initramfs.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "manifest.h"
#include "module.h"

#define MODULE_SRC_MAX (4u << 20)

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The last @keep bytes of a tool's output, for an error message. */
static const char *tail_of(const char *s, size_t keep)
{
	size_t n = s ? strlen(s) : 0;

	if (!s)
		return "";
	return n > keep ? s + n - keep : s;
}

/* The packages `apt-cache depends` lists for @pkg that carry headers or
 * kbuild (the compiler package is only a dependency on gcc-N). */
static int header_deps(const char *pkg, char ***deps, size_t *n,
		       struct rtlab_err *err)
{
	char *argv[] = { "apt-cache", "depends", (char *)pkg, NULL };
	char *out = NULL, *line, *save = NULL;
	int ret;

	*deps = NULL;
	*n = 0;
	ret = spawn_capture(argv, NULL, 2, &out, err);
	if (ret < 0)
		return ret;
	if (ret) {
		free(out);
		return rtlab_err_seterr(
			err, ENOENT,
			"apt-cache depends %s: exit status %d (is the package known to apt?)",
			pkg, ret);
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(line, "Depends: "), **nd;

		if (!p)
			continue;
		p += strlen("Depends: ");
		if (strncmp(p, "linux-headers-", 14) &&
		    strncmp(p, "linux-kbuild-", 13))
			continue;
		nd = realloc(*deps, (*n + 2) * sizeof(*nd));
		if (!nd || !(nd[*n] = strdup(p))) {
			free(nd ? nd : *deps);
			*deps = NULL;
			free(out);
			return rtlab_err_seterr(err, ENOMEM, "out of memory");
		}
		nd[++*n] = NULL;
		*deps = nd;
	}
	free(out);
	return 0;
}

static void strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* Debian's per-flavour Makefile includes the common one by an absolute
 * /usr/src path; point it into the cache instead. */
static int fix_makefile(const char *root, const char *release,
			struct rtlab_err *err)
{
	char *path = NULL, *text = NULL, *out = NULL;
	size_t len = 0, cap;
	const char *p, *key = "include /usr/src/";
	int ret;

	if (asprintf(&path, "%s/usr/src/linux-headers-%s/Makefile", root,
		     release) < 0)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	ret = file_read_all(path, &text, &len, err);
	if (ret)
		goto out;
	cap = len + 16 * (strlen(root) + 1) + 1;
	out = calloc(1, cap);
	if (!out) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	for (p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (!strncmp(p, key, strlen(key)) &&
		    strlen(out) + l + strlen(root) + 2 < cap)
			snprintf(out + strlen(out), cap - strlen(out),
				 "include %s/usr/src/%.*s", root,
				 (int)(l - strlen(key)), p + strlen(key));
		else if (strlen(out) + l + 1 < cap)
			strncat(out, p, l);
		p += l;
	}
	ret = file_write_all(path, out, strlen(out), err);
out:
	free(path);
	free(text);
	free(out);
	return ret;
}

static int fetch_headers(const struct kernel_ident *id, const char *dir,
			 struct rtlab_err *err)
{
	char *tmp = NULL, *root = NULL, *pkg = NULL, *out = NULL;
	char **deps = NULL, **dl = NULL;
	size_t ndeps = 0, i;
	int ret;
	DIR *d = NULL;
	struct dirent *e;

	if (asprintf(&tmp, "%s.tmp.%d", dir, (int)getpid()) < 0 ||
	    asprintf(&pkg, "linux-headers-%s", id->release) < 0) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	rmtree(tmp);
	ret = mkdir_p(tmp, 0755, err);
	if (ret)
		goto out;
	ret = header_deps(pkg, &deps, &ndeps, err);
	if (ret)
		goto out;
	/* apt-get download PKG=VER DEP=VER...: the headers of the same
	 * source version; kbuild is apt's candidate, since the headers
	 * depend on "linux-kbuild-X (>= VER)" and the archive keeps only
	 * the newest kbuild of a series (6.1.0-56's 6.1.192-2 is gone once
	 * 6.1.192-3 is out). */
	dl = calloc(ndeps + 4, sizeof(*dl));
	if (!dl) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	dl[0] = "apt-get";
	dl[1] = "download";
	for (i = 0; i <= ndeps; i++) {
		const char *name = i ? deps[i - 1] : pkg;
		bool pin = id->package_version &&
			   strncmp(name, "linux-kbuild-", 13);

		if (asprintf(&dl[i + 2], "%s%s%s", name, pin ? "=" : "",
			     pin ? id->package_version : "") < 0) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	ret = spawn_capture(dl, tmp, 1, &out, err);
	if (ret > 0)
		ret = rtlab_err_seterr(err, EIO,
				       "apt-get download %s=%s: exit status %d: %s",
				       pkg,
				       id->package_version ?
					       id->package_version :
					       "",
				       ret, tail_of(out, 300));
	if (ret)
		goto out;
	root = path_join(tmp, "root");
	d = opendir(tmp);
	if (!root || !d) {
		ret = rtlab_err_seterr(err, errno ? errno : ENOMEM, "%s: %s",
				       tmp, strerror(errno ? errno : ENOMEM));
		goto out;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char *deb, *xargv[5];

		if (l < 5 || strcmp(e->d_name + l - 4, ".deb"))
			continue;
		deb = path_join(tmp, e->d_name);
		xargv[0] = "dpkg";
		xargv[1] = "-x";
		xargv[2] = deb;
		xargv[3] = root;
		xargv[4] = NULL;
		free(out);
		out = NULL;
		ret = deb ? spawn_capture(xargv, NULL, 1, &out, err) : -ENOMEM;
		if (ret > 0)
			ret = rtlab_err_seterr(err, EIO,
					       "dpkg -x %s: exit status %d: %s",
					       e->d_name, ret,
					       tail_of(out, 300));
		if (!ret)
			unlink(deb);
		free(deb);
		if (ret)
			goto out;
	}
	if (rename(tmp, dir)) {
		/* Someone else unpacked it meanwhile: theirs will do. */
		if (errno != EEXIST && errno != ENOTEMPTY)
			ret = rtlab_err_seterr(err, errno, "rename %s: %s", dir,
					       strerror(errno));
		goto out;
	}
out:
	if (d)
		closedir(d);
	for (i = 2; dl && dl[i]; i++)
		free(dl[i]);
	free(dl);
	strv_free(deps, ndeps);
	free(out);
	free(root);
	free(pkg);
	if (tmp)
		rmtree(tmp);
	free(tmp);
	return ret;
}

int module_headers(const struct kernel_ident *id, const char *cache_root,
		   char **dir, struct rtlab_err *err)
{
	char *root_alloc = NULL, *cdir = NULL, *root = NULL, *mark = NULL;
	char *kdir = NULL;
	int ret = 0;

	*dir = NULL;
	if (!id->release)
		return rtlab_err_set(err, "kernel %s: no release known",
				     id->name ? id->name : "?");
	if (!id->package) {
		/* A local kernel brings its own build tree, or none. */
		kdir = id->modules_dir ? path_join(id->modules_dir, "build") :
					 NULL;
		if (!kdir || !is_dir(kdir)) {
			ret = rtlab_err_seterr(
				err, ENOENT,
				"kernel %s: no module build tree (%s/build); a local kernel needs its modules: directory with build/",
				id->name ? id->name : "?",
				id->modules_dir ? id->modules_dir : "modules");
			free(kdir);
			return ret;
		}
		*dir = kdir;
		return 0;
	}
	if (!cache_root)
		cache_root = root_alloc = kernel_cache_root();
	if (!cache_root ||
	    asprintf(&cdir, "%s/headers-%s_%s", cache_root, id->release,
		     id->package_version ? id->package_version : "any") < 0 ||
	    !(root = path_join(cdir, "root")) ||
	    !(mark = path_join(cdir, "complete")) ||
	    asprintf(&kdir, "%s/usr/src/linux-headers-%s", root, id->release) <
		    0) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	if (!is_file(mark)) {
		ret = mkdir_p(cache_root, 0755, err);
		if (!ret && !is_dir(cdir))
			ret = fetch_headers(id, cdir, err);
		if (!ret)
			ret = fix_makefile(root, id->release, err);
		if (!ret)
			ret = file_write_all(mark, "", 0, err);
		if (ret)
			goto out;
	}
	*dir = kdir;
	kdir = NULL;
out:
	free(kdir);
	free(mark);
	free(root);
	free(cdir);
	free(root_alloc);
	return ret;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sha256 over the sources' names and contents, in name order; the files
 * are copied into @copy_to when it is not NULL. */
static int sources_hash(const char *src, const char *copy_to, char hex[65],
			struct rtlab_err *err)
{
	char *names[64], *buf = NULL, *nb;
	size_t n = 0, i, len = 0;
	struct dirent *e;
	int ret = 0;
	DIR *d = opendir(src);

	if (!d)
		return rtlab_err_seterr(err, errno, "%s: %s", src,
					strerror(errno));
	while ((e = readdir(d)) && n < 64) {
		char *p = path_join(src, e->d_name);

		if (p && e->d_name[0] != '.' && is_file(p) &&
		    !strstr(e->d_name, ".o") && !strstr(e->d_name, ".ko") &&
		    !strstr(e->d_name, ".mod") &&
		    strcmp(e->d_name, "Module.symvers") &&
		    strcmp(e->d_name, "modules.order") &&
		    (names[n] = strdup(e->d_name)))
			n++;
		free(p);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n && !ret; i++) {
		char *p = path_join(src, names[i]), *data = NULL;
		size_t size = 0;

		ret = p ? file_read_all(p, &data, &size, err) : -ENOMEM;
		if (!ret && len + size + strlen(names[i]) + 2 > MODULE_SRC_MAX)
			ret = rtlab_err_seterr(err, EFBIG,
					       "%s: sources larger than %u bytes",
					       src, MODULE_SRC_MAX);
		if (!ret && copy_to) {
			char *q = path_join(copy_to, names[i]);

			ret = q ? file_write_all(q, data, size, err) : -ENOMEM;
			free(q);
		}
		nb = ret ? NULL :
			   realloc(buf, len + size + strlen(names[i]) + 2);
		if (!ret && !nb)
			ret = -ENOMEM;
		if (!ret) {
			buf = nb;
			memcpy(buf + len, names[i], strlen(names[i]) + 1);
			len += strlen(names[i]) + 1;
			memcpy(buf + len, data, size);
			len += size;
		}
		free(data);
		free(p);
	}
	if (!ret && !n)
		ret = rtlab_err_seterr(err, ENOENT, "%s: no module sources",
				       src);
	if (!ret)
		sha256_hex(buf ? buf : "", len, hex);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(buf);
	return ret;
}

int module_record(const char *ko_path, struct rtlab_err *err)
{
	char hex[65], line[67], *rec = NULL;
	int ret;

	if (asprintf(&rec, "%s.sha256", ko_path) < 0)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	ret = file_sha256_hex(ko_path, hex, err);
	if (!ret) {
		snprintf(line, sizeof(line), "%s\n", hex);
		ret = file_write_all(rec, line, strlen(line), err);
	}
	free(rec);
	return ret;
}

int module_verify(const char *ko_path, struct rtlab_err *err)
{
	char hex[65], *rec = NULL, *want = NULL;
	size_t len = 0;
	int ret;

	if (asprintf(&rec, "%s.sha256", ko_path) < 0)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	if (!is_file(rec)) {
		ret = rtlab_err_seterr(
			err, ENOENT,
			"%s: no sha256 recorded when it was built (%s)",
			ko_path, rec);
		goto out;
	}
	ret = file_read_all(rec, &want, &len, err);
	if (!ret)
		ret = file_sha256_hex(ko_path, hex, err);
	if (ret)
		goto out;
	while (len && (want[len - 1] == '\n' || want[len - 1] == ' '))
		want[--len] = '\0';
	if (strcmp(want, hex))
		ret = rtlab_err_seterr(
			err, EBADMSG,
			"%s: sha256 %s is not the %s recorded when rtlab built it (%s): another module sits at its path; remove %s to rebuild",
			ko_path, hex, want, rec, ko_path);
out:
	free(want);
	free(rec);
	return ret;
}

int module_vermagic(const char *ko_path, char **vermagic, struct rtlab_err *err)
{
	char *argv[] = { "modinfo", "-F", "vermagic", (char *)ko_path, NULL };
	char *out = NULL;
	size_t n;
	int ret;

	*vermagic = NULL;
	ret = spawn_capture(argv, NULL, 1, &out, err);
	if (ret > 0)
		ret = rtlab_err_seterr(err, EINVAL,
				       "modinfo %s: exit status %d: %s",
				       ko_path, ret, tail_of(out, 200));
	if (ret) {
		free(out);
		return ret;
	}
	n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	if (!n) {
		free(out);
		return rtlab_err_set(err,
				     "%s: no vermagic (not a kernel module?)",
				     ko_path);
	}
	*vermagic = out;
	return 0;
}

int module_build(const struct kernel_ident *id, const char *src_dir,
		 const char *name, const char *cache_root, char **ko_path,
		 struct rtlab_err *err)
{
	char *root_alloc = NULL, *kdir = NULL, *odir = NULL, *tmp = NULL;
	char *ko = NULL, *tko = NULL, *out = NULL, *vm = NULL, *mflag = NULL;
	char hex[65];
	int ret;

	*ko_path = NULL;
	ret = module_headers(id, cache_root, &kdir, err);
	if (ret)
		return ret;
	if (!cache_root)
		cache_root = root_alloc = kernel_cache_root();
	if (!cache_root) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = sources_hash(src_dir, NULL, hex, err);
	if (ret)
		goto out;
	if (asprintf(&odir, "%s/modules/%s/%s-%.16s", cache_root, id->release,
		     name, hex) < 0 ||
	    asprintf(&ko, "%s/%s.ko", odir, name) < 0 ||
	    asprintf(&tmp, "%s.tmp.%d", odir, (int)getpid()) < 0 ||
	    asprintf(&tko, "%s/%s.ko", tmp, name) < 0 ||
	    asprintf(&mflag, "M=%s", tmp) < 0) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	if (is_file(ko)) {
		ret = module_verify(ko, err);
		if (ret == -ENOENT) { /* cached before hashes were recorded */
			ret = rmtree(odir);
			if (ret)
				rtlab_err_seterr(err, -ret, "%s: %s", odir,
						 strerror(-ret));
		}
		if (ret)
			goto out;
	}
	if (!is_file(ko)) {
		char *margv[] = { "make", "-C", kdir, mflag, "modules", NULL };

		rmtree(tmp);
		ret = mkdir_p(tmp, 0755, err);
		if (!ret)
			ret = sources_hash(src_dir, tmp, hex, err);
		if (ret)
			goto out;
		ret = spawn_capture(margv, NULL, 1, &out, err);
		if (ret > 0 || (!ret && !is_file(tko))) {
			ret = rtlab_err_seterr(
				err, EIO,
				"building %s for %s (make -C %s M=%s modules) failed: ...%s",
				name, id->release, kdir, src_dir,
				tail_of(out, 400));
			goto out;
		}
		if (!ret)
			ret = module_record(tko, err);
		if (ret)
			goto out;
		if (rename(tmp, odir) && errno != EEXIST &&
		    errno != ENOTEMPTY) {
			ret = rtlab_err_seterr(err, errno, "rename %s: %s",
					       odir, strerror(errno));
			goto out;
		}
	}
	/* Also when another builder won the rename race: verify what is
	 * there, not what this one built. */
	ret = module_verify(ko, err);
	if (!ret)
		ret = module_vermagic(ko, &vm, err);
	if (ret)
		goto out;
	if (strncmp(vm, id->release, strlen(id->release)) ||
	    vm[strlen(id->release)] != ' ') {
		ret = rtlab_err_set(
			err,
			"%s: vermagic '%s' does not match kernel release %s",
			ko, vm, id->release);
		goto out;
	}
	*ko_path = ko;
	ko = NULL;
out:
	if (tmp)
		rmtree(tmp);
	free(vm);
	free(out);
	free(mflag);
	free(tko);
	free(tmp);
	free(ko);
	free(odir);
	free(kdir);
	free(root_alloc);
	return ret;
}

int module_archive(const char *ko_path, const char *release,
		   const char *out_path, struct rtlab_err *err)
{
	static const char *const dirs[] = { "lib", "lib/modules" };
	char *data = NULL, dest[512];
	const char *base = strrchr(ko_path, '/');
	struct archive_entry *e = NULL;
	struct archive *a = NULL;
	size_t size = 0, i;
	int ret;

	base = base ? base + 1 : ko_path;
	ret = file_read_all(ko_path, &data, &size, err);
	if (ret)
		return ret;
	a = archive_write_new();
	e = archive_entry_new();
	if (!a || !e) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	if (archive_write_set_format_cpio_newc(a) != ARCHIVE_OK ||
	    archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_open_filename(a, out_path) != ARCHIVE_OK) {
		ret = rtlab_err_seterr(err, EIO, "%s: %s", out_path,
				       archive_error_string(a));
		goto out;
	}
	for (i = 0; i < 4; i++) {
		if (i < 2)
			snprintf(dest, sizeof(dest), "%s", dirs[i]);
		else if (i == 2)
			snprintf(dest, sizeof(dest), "lib/modules/%s", release);
		else
			snprintf(dest, sizeof(dest), "lib/modules/%s/extra",
				 release);
		archive_entry_clear(e);
		archive_entry_set_pathname(e, dest);
		archive_entry_set_filetype(e, AE_IFDIR);
		archive_entry_set_perm(e, 0755);
		archive_entry_set_size(e, 0);
		if (archive_write_header(a, e) != ARCHIVE_OK) {
			ret = rtlab_err_seterr(err, EIO, "%s: %s", out_path,
					       archive_error_string(a));
			goto out;
		}
	}
	snprintf(dest, sizeof(dest), "lib/modules/%s/extra/%s", release, base);
	archive_entry_clear(e);
	archive_entry_set_pathname(e, dest);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, size);
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    archive_write_data(a, data, size) != (la_ssize_t)size ||
	    archive_write_close(a) != ARCHIVE_OK) {
		ret = rtlab_err_seterr(err, EIO, "%s: %s", out_path,
				       archive_error_string(a));
		goto out;
	}
out:
	archive_entry_free(e);
	if (a)
		archive_write_free(a);
	free(data);
	return ret;
}

int module_inject_archive(const struct kernel_ident *id, const char *out_path,
			  struct rtlab_err *err)
{
	char *src = rtlab_data_path("testcases/inject"), *ko = NULL;
	int ret;

	if (!src)
		return -ENOMEM;
	ret = module_build(id, src, INJECT_MODULE, NULL, &ko, err);
	if (!ret)
		ret = module_archive(ko, id->release, out_path, err);
	free(ko);
	free(src);
	return ret;
}
