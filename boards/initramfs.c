// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Building the virtual board's initramfs with libarchive (newc cpio, gzip):
 * a cached base (busybox, tools, agent, their shared libraries as ldd
 * resolves them), a cached per-kernel module archive, and a per-job archive.
 */

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "extras-check.h"
#include "fsutil.h"
#include "initramfs.h"
#include "testcase.h"

/* Bump when the layout changes, so cached bases are rebuilt. */
#define BASE_FORMAT "rtlab-initramfs-base 3"
#define KERNEL_FORMAT "rtlab-initramfs-kernel 1"

/* Host tools copied into the base: the first two are required. */
static const char *const base_tools[] = {
	"cyclictest",
	"hackbench",
	"signaltest",
	"pi_stress",
	"stress-ng",
	"iperf3",
	"ping",
	"trace-cmd",
	"rtla",
	"pmqtest",
	"cyclicdeadline",
	/* what an ssh board's job system needs: its sshd and kexec */
	"dropbear",
	"dropbearkey",
	"kexec",
};
#define BASE_REQUIRED 2

/* What the channel needs from a modular kernel. */
static const char *const channel_modules[] = { "virtio_pci", "virtio_console" };

enum ent_type { ENT_DIR, ENT_FILE, ENT_SYMLINK, ENT_CHR };

struct ent {
	char *dest; /* path in the archive, no leading '/' */
	enum ent_type type;
	mode_t perm;
	char *src;  /* host file (ENT_FILE) or link target */
	char *data; /* inline contents (ENT_FILE without src) */
	size_t len;
	dev_t rdev;
};

struct ents {
	struct ent *e;
	size_t n, cap;
	bool failed;
};

static void ents_cleanup(struct ents *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->e[i].dest);
		free(l->e[i].src);
		free(l->e[i].data);
	}
	free(l->e);
	memset(l, 0, sizeof(*l));
}

static struct ent *ents_find(struct ents *l, const char *dest)
{
	size_t i;

	while (*dest == '/')
		dest++;
	for (i = 0; i < l->n; i++)
		if (!strcmp(l->e[i].dest, dest))
			return &l->e[i];
	return NULL;
}

static struct ent *ents_add(struct ents *l, const char *dest,
			    enum ent_type type, mode_t perm)
{
	struct ent *e;

	while (*dest == '/')
		dest++;
	if (ents_find(l, dest))
		return NULL; /* first one wins */
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct ent *ne = realloc(l->e, cap * sizeof(*ne));

		if (!ne) {
			l->failed = true;
			return NULL;
		}
		l->e = ne;
		l->cap = cap;
	}
	e = &l->e[l->n];
	memset(e, 0, sizeof(*e));
	e->dest = strdup(dest);
	if (!e->dest) {
		l->failed = true;
		return NULL;
	}
	e->type = type;
	e->perm = perm;
	l->n++;
	return e;
}

/* Directories of @dest first, as cpio has no implicit parents. */
static void ents_parents(struct ents *l, const char *dest)
{
	char buf[4096], *p;

	snprintf(buf, sizeof(buf), "%s", dest[0] == '/' ? dest + 1 : dest);
	for (p = strchr(buf, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (!ents_find(l, buf))
			ents_add(l, buf, ENT_DIR, 0755);
		*p = '/';
	}
}

static void ents_add_src(struct ents *l, const char *dest, const char *src,
			 mode_t perm)
{
	struct ent *e;

	ents_parents(l, dest);
	e = ents_add(l, dest, ENT_FILE, perm);
	if (e && !(e->src = strdup(src)))
		l->failed = true;
}

static void ents_add_data(struct ents *l, const char *dest, const void *data,
			  size_t len, mode_t perm)
{
	struct ent *e;

	ents_parents(l, dest);
	e = ents_add(l, dest, ENT_FILE, perm);
	if (!e)
		return;
	e->data = malloc(len + 1);
	if (!e->data) {
		l->failed = true;
		return;
	}
	memcpy(e->data, data, len);
	e->len = len;
}

/* Find @tool in the usual directories, or in $RTLAB_BOARD_TOOLS_PATH
 * (colon-separated) when set: where the board's tools are taken from. */
static char *find_tool(const char *tool)
{
	static const char *const dirs[] = { "/usr/sbin", "/usr/bin", "/sbin",
					    "/bin", "/usr/local/bin" };
	const char *env = getenv("RTLAB_BOARD_TOOLS_PATH");
	size_t i;
	char *p;

	if (env && *env) {
		char *copy = strdup(env), *save = NULL, *d;

		for (d = copy ? strtok_r(copy, ":", &save) : NULL; d;
		     d = strtok_r(NULL, ":", &save)) {
			p = path_join(d, tool);
			if (p && !access(p, X_OK)) {
				free(copy);
				return p;
			}
			free(p);
		}
		free(copy);
		return NULL;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		p = path_join(dirs[i], tool);
		if (p && !access(p, X_OK))
			return p;
		free(p);
	}
	return NULL;
}

int initramfs_check_tools(const char *const *tools, size_t ntools,
			  struct rtlab_err *err)
{
	size_t i, j;

	for (i = 0; i < ntools; i++) {
		char *path = NULL;
		bool listed = false;

		for (j = 0; j < sizeof(base_tools) / sizeof(base_tools[0]); j++)
			listed |= !strcmp(tools[i], base_tools[j]);
		if (listed)
			path = find_tool(tools[i]);
		free(path);
		if (!listed || !path)
			return rtlab_err_seterr(
				err, ENOENT,
				"needs '%s', which the virtual board cannot "
				"carry: %s",
				tools[i],
				listed ?
					"it is not installed on this host (the board's "
					"tools are copied from the host)" :
					"it is not among the board's tools");
	}
	return 0;
}

int initramfs_check_testcase(const char *testcase_path, struct rtlab_err *err)
{
	const char **tools = NULL;
	struct testcase tc;
	size_t n = 0;
	int ret;

	ret = testcase_load(testcase_path, &tc, err);
	if (ret)
		goto out;
	tools = testcase_tools(&tc);
	if (!tools) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	while (tools[n])
		n++;
	ret = initramfs_check_tools(tools, n, err);
	if (ret)
		rtlab_err_prefix(err, "testcase %s", testcase_path);
	if (!ret)
		ret = extras_check(&tc, NULL, err);
out:
	free(tools);
	testcase_cleanup(&tc);
	return ret;
}

char *initramfs_cache_dir(void)
{
	char *root = rtlab_cache_dir();
	char *cache = root ? path_join(root, "initramfs") : NULL;

	free(root);
	return cache;
}

/* @bin and every shared library ldd says it needs, at their own paths. */
static int ents_add_binary(struct ents *l, const char *bin, const char *dest,
			   struct rtlab_err *err)
{
	char *argv[] = { "ldd", (char *)bin, NULL };
	char *out = NULL, *line, *save = NULL, *path, *end;
	char real[4096];
	int rc, ret = 0;

	if (!realpath(bin, real))
		return rtlab_err_seterr(err, errno, "%s: %s", bin,
					strerror(errno));
	ents_add_src(l, dest, real, 0755);
	rc = spawn_capture(argv, NULL, 1, &out, err);
	if (rc < 0)
		return rc;
	/* ldd exits 1 for a static binary ("not a dynamic executable") */
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "not found")) {
			ret = rtlab_err_set(err,
					    "%s: shared library missing "
					    "on this host:%s",
					    bin, line);
			break;
		}
		path = strstr(line, "=> ");
		path = path ? path + 3 : line + strspn(line, " \t");
		if (*path != '/')
			continue; /* linux-vdso.so.1 */
		end = strstr(path, " (");
		if (end)
			*end = '\0';
		if (!realpath(path, real)) {
			ret = rtlab_err_seterr(err, errno, "%s: library %s: %s",
					       bin, path, strerror(errno));
			break;
		}
		ents_add_src(l, path, real, 0755);
	}
	free(out);
	return ret;
}

static int ents_hash(const struct ents *l, const char *format, char out[65],
		     struct rtlab_err *err)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	char sha[65], hdr[64];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t k;
	int ret = 0;

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return -ENOMEM;
	}
	EVP_DigestUpdate(ctx, format, strlen(format) + 1);
	for (k = 0; k < l->n; k++) {
		const struct ent *e = &l->e[k];

		snprintf(hdr, sizeof(hdr), "%d %o ", e->type, e->perm);
		EVP_DigestUpdate(ctx, hdr, strlen(hdr));
		EVP_DigestUpdate(ctx, e->dest, strlen(e->dest) + 1);
		if (e->type == ENT_FILE && e->src) {
			ret = file_sha256_hex(e->src, sha, err);
			if (ret)
				goto out;
			EVP_DigestUpdate(ctx, sha, 64);
		} else if (e->type == ENT_FILE) {
			EVP_DigestUpdate(ctx, e->data, e->len);
		} else if (e->src) {
			EVP_DigestUpdate(ctx, e->src, strlen(e->src) + 1);
		}
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	for (i = 0; i < 32 && i < mdlen; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
	out[64] = '\0';
out:
	EVP_MD_CTX_free(ctx);
	return ret;
}

static int write_src(struct archive *a, const char *src, struct rtlab_err *err)
{
	char buf[65536];
	ssize_t n;
	int fd, ret = 0;

	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rtlab_err_seterr(err, errno, "%s: %s", src,
					strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (archive_write_data(a, buf, n) != n) {
			ret = rtlab_err_seterr(err, EIO, "cpio: %s",
					       archive_error_string(a));
			break;
		}
	if (n < 0)
		ret = rtlab_err_seterr(err, errno, "%s: read: %s", src,
				       strerror(errno));
	close(fd);
	return ret;
}

/* Write @l as a newc cpio, gzip'd when @gz, to @path (temporary file +
 * rename). */
static int ents_write(const struct ents *l, const char *path, bool gz,
		      struct rtlab_err *err)
{
	struct archive_entry *ae = NULL;
	struct archive *a;
	struct stat st;
	char *tmp = NULL;
	size_t k;
	int ret = 0;

	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return -ENOMEM;
	a = archive_write_new();
	if (!a || (gz && archive_write_add_filter_gzip(a) != ARCHIVE_OK) ||
	    archive_write_set_format_cpio_newc(a) != ARCHIVE_OK ||
	    archive_write_open_filename(a, tmp) != ARCHIVE_OK) {
		ret = rtlab_err_seterr(err, EIO, "%s: %s", tmp,
				       a ? archive_error_string(a) : "ENOMEM");
		goto out;
	}
	ae = archive_entry_new();
	for (k = 0; k < l->n && ae; k++) {
		const struct ent *e = &l->e[k];

		archive_entry_clear(ae);
		archive_entry_set_pathname(ae, e->dest);
		archive_entry_set_perm(ae, e->perm);
		archive_entry_set_uid(ae, 0);
		archive_entry_set_gid(ae, 0);
		archive_entry_set_nlink(ae, e->type == ENT_DIR ? 2 : 1);
		/* unique inode numbers: newc hard-links equal ones */
		archive_entry_set_ino(ae, k + 1);
		archive_entry_set_size(ae, 0);
		switch (e->type) {
		case ENT_DIR:
			archive_entry_set_filetype(ae, AE_IFDIR);
			break;
		case ENT_SYMLINK:
			archive_entry_set_filetype(ae, AE_IFLNK);
			archive_entry_set_symlink(ae, e->src);
			break;
		case ENT_CHR:
			archive_entry_set_filetype(ae, AE_IFCHR);
			archive_entry_set_rdev(ae, e->rdev);
			break;
		case ENT_FILE:
			archive_entry_set_filetype(ae, AE_IFREG);
			if (e->src) {
				if (stat(e->src, &st) < 0) {
					ret = rtlab_err_seterr(err, errno,
							       "%s: %s", e->src,
							       strerror(errno));
					goto out;
				}
				archive_entry_set_size(ae, st.st_size);
			} else {
				archive_entry_set_size(ae, e->len);
			}
			break;
		}
		if (archive_write_header(a, ae) != ARCHIVE_OK) {
			ret = rtlab_err_seterr(err, EIO, "cpio %s: %s", e->dest,
					       archive_error_string(a));
			goto out;
		}
		if (e->type == ENT_FILE && e->src)
			ret = write_src(a, e->src, err);
		else if (e->type == ENT_FILE && e->len &&
			 archive_write_data(a, e->data, e->len) !=
				 (ssize_t)e->len)
			ret = rtlab_err_seterr(err, EIO, "cpio %s: %s", e->dest,
					       archive_error_string(a));
		if (ret)
			goto out;
	}
	if (!ae) {
		ret = -ENOMEM;
		goto out;
	}
	if (archive_write_close(a) != ARCHIVE_OK) {
		ret = rtlab_err_seterr(err, EIO, "%s: %s", tmp,
				       archive_error_string(a));
		goto out;
	}
	if (rename(tmp, path) < 0)
		ret = rtlab_err_seterr(err, errno, "rename %s: %s", path,
				       strerror(errno));
out:
	archive_entry_free(ae);
	archive_write_free(a);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

static void ents_add_skeleton(struct ents *l)
{
	static const char *const dirs[] = {
		"bin",	"sbin", "usr", "usr/bin", "usr/sbin", "dev",
		"proc", "sys",	"tmp", "run",	  "etc",      "root",
		"var",	"mnt",	"job", "lib",	  "lib64",    "boot",
	};
	static const char passwd[] = "root:x:0:0:root:/root:/bin/sh\n";
	static const char group[] = "root:x:0:\n";
	static const char hosts[] = "127.0.0.1\tlocalhost\n";
	struct ent *e;
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		ents_add(l, dirs[i], ENT_DIR, 0755);
	e = ents_add(l, "dev/console", ENT_CHR, 0600);
	if (e)
		e->rdev = makedev(5, 1);
	e = ents_add(l, "dev/null", ENT_CHR, 0666);
	if (e)
		e->rdev = makedev(1, 3);
	ents_add_data(l, "etc/passwd", passwd, strlen(passwd), 0644);
	ents_add_data(l, "etc/group", group, strlen(group), 0644);
	ents_add_data(l, "etc/hosts", hosts, strlen(hosts), 0644);
}

/* Every new agent build makes a new base (~90 MB): drop the ones nobody
 * used for an hour (a use touches the file), keep @keep. */
static void prune_bases(const char *cache_dir, const char *keep)
{
	struct dirent *de;
	struct stat st;
	char *p;
	DIR *d = opendir(cache_dir);
	time_t old = time(NULL) - 3600;

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "base-", 5))
			continue;
		p = path_join(cache_dir, de->d_name);
		if (p && strcmp(p, keep) && !stat(p, &st) && st.st_mtime < old)
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
}

int initramfs_base(const char *cache_dir, const char *init_path,
		   const char *agent_path, char **path, bool *built,
		   struct rtlab_err *err)
{
	struct ents l = { 0 };
	char hash[65], *tool, *bb = NULL;
	size_t i;
	int ret;

	*path = NULL;
	*built = false;
	ret = mkdir_p(cache_dir, 0755, err);
	if (ret)
		return ret;
	ents_add_skeleton(&l);
	if (access(init_path, R_OK) < 0) {
		ret = rtlab_err_seterr(err, errno, "%s: guest init script: %s",
				       init_path, strerror(errno));
		goto out;
	}
	ents_add_src(&l, "init", init_path, 0755);
	bb = find_tool("busybox");
	if (!bb) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "busybox not found: "
				       "install busybox-static");
		goto out;
	}
	ret = ents_add_binary(&l, bb, "bin/busybox", err);
	if (ret)
		goto out;
	for (i = 0; i < sizeof(base_tools) / sizeof(base_tools[0]); i++) {
		char dest[256];

		tool = find_tool(base_tools[i]);
		if (!tool) {
			if (i < BASE_REQUIRED) {
				ret = rtlab_err_seterr(err, ENOENT,
						       "%s not "
						       "found: install "
						       "rt-tests",
						       base_tools[i]);
				goto out;
			}
			continue;
		}
		snprintf(dest, sizeof(dest), "usr/bin/%s", base_tools[i]);
		ret = ents_add_binary(&l, tool, dest, err);
		free(tool);
		if (ret)
			goto out;
	}
	if (agent_path) {
		ret = ents_add_binary(&l, agent_path, "usr/bin/rtlab-agent",
				      err);
		if (ret)
			goto out;
	}
	if (l.failed) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ents_hash(&l, BASE_FORMAT, hash, err);
	if (ret)
		goto out;
	if (asprintf(path, "%s/base-%.16s.cpio", cache_dir, hash) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	if (!access(*path, R_OK)) {
		utimensat(AT_FDCWD, *path, NULL, 0);
		goto out;
	}
	/* Uncompressed: QEMU loads it without guest instructions, while
	 * gunzip in an icount guest costs seconds of boot. */
	ret = ents_write(&l, *path, false, err);
	*built = !ret;
	if (!ret)
		prune_bases(cache_dir, *path);
out:
	if (ret) {
		free(*path);
		*path = NULL;
	}
	free(bb);
	ents_cleanup(&l);
	return ret;
}

/* modules.dep line of the module called @name ("virtio_pci"), or NULL. */
static char *dep_line(const char *dep, const char *name)
{
	const char *p = dep, *colon, *slash;
	size_t nl = strlen(name);

	while (p && *p) {
		colon = strchr(p, ':');
		if (!colon)
			break;
		slash = colon;
		while (slash > p && slash[-1] != '/')
			slash--;
		/* "kernel/drivers/virtio/virtio_pci.ko[.xz]:" */
		if (!strncmp(slash, name, nl) && !strncmp(slash + nl, ".ko", 3))
			return strndup(p, strcspn(p, "\n"));
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* modules.dep line that starts with "@rel:", as a length, or 0. */
static const char *dep_line_of(const char *dep, const char *rel, int *len)
{
	size_t rl = strlen(rel);
	const char *p = dep;

	while (p && *p) {
		if (!strncmp(p, rel, rl) && p[rl] == ':') {
			*len = strcspn(p, "\n");
			return p;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static bool module_builtin(const char *modules_dir, const char *name)
{
	char *p = path_join(modules_dir, "modules.builtin"), *text = NULL;
	char pat[128];
	bool yes;

	if (!p || file_read_all(p, &text, NULL, NULL)) {
		free(p);
		return false;
	}
	snprintf(pat, sizeof(pat), "/%s.ko\n", name);
	yes = strstr(text, pat) != NULL;
	free(text);
	free(p);
	return yes;
}

int initramfs_kernel(const char *cache_dir, const struct kernel_ident *id,
		     const char *const *extra_modules, char **path,
		     struct rtlab_err *err)
{
	const char *mods[16];
	size_t nmods = 0;
	struct ents l = { 0 };
	char *dep = NULL, *depp = NULL, *line, *tok, *save, *src;
	char *newdep = NULL, hash[65], dest[4096];
	size_t newlen = 0, i;
	FILE *mem;
	int ret;

	*path = NULL;
	ret = mkdir_p(cache_dir, 0755, err);
	if (ret)
		return ret;
	mem = open_memstream(&newdep, &newlen);
	if (!mem)
		return -ENOMEM;
	if (id->config_path) {
		snprintf(dest, sizeof(dest), "boot/config-%s", id->release);
		ents_add_src(&l, dest, id->config_path, 0644);
	}
	for (i = 0; i < sizeof(channel_modules) / sizeof(channel_modules[0]);
	     i++)
		mods[nmods++] = channel_modules[i];
	for (i = 0; extra_modules && extra_modules[i] &&
		    nmods < sizeof(mods) / sizeof(mods[0]);
	     i++)
		mods[nmods++] = extra_modules[i];
	for (i = 0; id->modules_dir && i < nmods; i++) {
		if (module_builtin(id->modules_dir, mods[i]))
			continue;
		if (!dep) {
			depp = path_join(id->modules_dir, "modules.dep");
			ret = file_read_all(depp, &dep, NULL, err);
			if (ret) {
				rtlab_err_prefix(err, "kernel %s: run depmod",
						 id->name);
				goto out;
			}
		}
		line = dep_line(dep, mods[i]);
		if (!line) {
			ret = rtlab_err_seterr(err, ENOENT,
					       "kernel %s: %s: "
					       "no module %s (needed for the "
					       "board's channel)",
					       id->name, depp, mods[i]);
			goto out;
		}
		/* the module itself and everything it depends on */
		for (tok = strtok_r(line, ": ", &save); tok;
		     tok = strtok_r(NULL, ": ", &save)) {
			const char *dline;
			int dlen;

			src = path_join(id->modules_dir, tok);
			snprintf(dest, sizeof(dest), "lib/modules/%s/%s",
				 id->release, tok);
			if (src && access(src, R_OK)) {
				ret = rtlab_err_seterr(err, ENOENT,
						       "kernel %s:"
						       " module %s missing",
						       id->name, src);
				free(src);
				free(line);
				goto out;
			}
			if (src && !ents_find(&l, dest)) {
				ents_add_src(&l, dest, src, 0644);
				/* its own modules.dep line */
				dline = dep_line_of(dep, tok, &dlen);
				if (dline)
					fprintf(mem, "%.*s\n", dlen, dline);
			}
			free(src);
		}
		free(line);
	}
	fclose(mem);
	mem = NULL;
	if (newlen) {
		snprintf(dest, sizeof(dest), "lib/modules/%s/modules.dep",
			 id->release);
		ents_add_data(&l, dest, newdep, newlen, 0644);
	}
	ents_add(&l, "boot", ENT_DIR, 0755);
	if (l.failed) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ents_hash(&l, KERNEL_FORMAT, hash, err);
	if (ret)
		goto out;
	if (asprintf(path, "%s/kernel-%s-%.16s.cpio.gz", cache_dir, id->release,
		     hash) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	if (access(*path, R_OK))
		ret = ents_write(&l, *path, true, err);
out:
	if (mem)
		fclose(mem);
	if (ret) {
		free(*path);
		*path = NULL;
	}
	free(newdep);
	free(dep);
	free(depp);
	ents_cleanup(&l);
	return ret;
}

/* A value that can stand in the job's shell parameters unquoted. */
static bool shell_safe(const char *v)
{
	for (; v && *v; v++)
		if (!isalnum((unsigned char)*v) && !strchr("._-+@", *v))
			return false;
	return true;
}

/*
 * The testcase's extras into @l: modules under job/extras/ (the agent
 * loads them from there, `rtlab-agent run --extras`), files at their
 * dest with the source's permissions.  Checked against @release first.
 */
static int ents_add_extras(struct ents *l, const char *testcase_path,
			   const char *release, struct rtlab_err *err)
{
	struct testcase tc;
	char dest[4096], *src;
	struct stat st;
	size_t i;
	int ret;

	ret = testcase_load(testcase_path, &tc, err);
	if (!ret)
		ret = extras_check(&tc, release, err);
	if (ret || !testcase_has_extras(&tc))
		goto out;
	ents_add(l, "job/extras", ENT_DIR, 0755);
	for (i = 0; i < tc.extras.nmodules; i++) {
		src = testcase_extra_path(&tc, tc.extras.modules[i].path);
		snprintf(dest, sizeof(dest), "job/extras/%s",
			 testcase_module_file(tc.extras.modules[i].path));
		if (src)
			ents_add_src(l, dest, src, 0644);
		l->failed |= !src;
		free(src);
	}
	for (i = 0; i < tc.extras.nfiles; i++) {
		src = testcase_extra_path(&tc, tc.extras.files[i].src);
		if (src && stat(src, &st) < 0)
			ret = rtlab_err_seterr(err, errno, "%s: %s", src,
					       strerror(errno));
		if (src && !ret)
			ents_add_src(l, tc.extras.files[i].dest, src,
				     st.st_mode & 0111 ? 0755 : 0644);
		l->failed |= !src;
		free(src);
		if (ret)
			goto out;
	}
	if (l->failed)
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
out:
	testcase_cleanup(&tc);
	return ret;
}

static bool upload_safe(const char *s)
{
	for (; *s; s++)
		if (*s <= ' ' || *s > '~' || *s == '\'' || *s == '\\')
			return false;
	return true;
}

int initramfs_job(const char *path, const struct initramfs_job *j,
		  struct rtlab_err *err)
{
	struct ents l = { 0 };
	char *params = NULL;
	int len, ret;

	/* values are checked by the caller: uuid, board name, digits;
	 * kernel name and tree come from definition files: quote them */
	if (!shell_safe(j->kernel_name) || !shell_safe(j->kernel_tree))
		return rtlab_err_set(err,
				     "kernel name or tree '%s'/'%s': "
				     "expected letters, digits, '.', '_', "
				     "'-', '+', '@'",
				     j->kernel_name ? j->kernel_name : "",
				     j->kernel_tree ? j->kernel_tree : "");
	len = asprintf(&params,
		       "RTLAB_RUN_ID=%s\nRTLAB_BOARD=%s\nRTLAB_CLOCK=%s\n"
		       "RTLAB_DURATION=%u\nRTLAB_INTERVAL=%u\n"
		       "RTLAB_KERNEL_NAME='%s'\nRTLAB_KERNEL_TREE='%s'\n",
		       j->run_id, j->board, j->clock, j->duration_s,
		       j->interval_us, j->kernel_name ? j->kernel_name : "",
		       j->kernel_tree ? j->kernel_tree : "");
	if (len < 0)
		return -ENOMEM;
	if (j->nic_addr) {
		char *p2 = NULL;

		if (strspn(j->nic_addr, "0123456789./") !=
			    strlen(j->nic_addr) ||
		    asprintf(&p2, "%sRTLAB_NIC_ADDR='%s'\n", params,
			     j->nic_addr) < 0) {
			free(params);
			return -ENOMEM;
		}
		free(params);
		params = p2;
		len = strlen(params);
	}
	if (j->upload_url && j->upload_token) {
		char *p2 = NULL;

		/* single-quoted in /job/params: no quote, no line break */
		if (!upload_safe(j->upload_url) ||
		    !upload_safe(j->upload_token)) {
			free(params);
			return rtlab_err_set(err,
					     "upload URL or token: expected "
					     "printable characters without "
					     "quotes or spaces");
		}
		if (asprintf(&p2, "%sRTLAB_UPLOAD_URL='%s'\nRTLAB_TOKEN='%s'\n",
			     params, j->upload_url, j->upload_token) < 0) {
			free(params);
			return -ENOMEM;
		}
		free(params);
		params = p2;
		len = strlen(params);
	}
	ents_add(&l, "job", ENT_DIR, 0755);
	ents_add_data(&l, "job/params", params, len, 0644);
	ents_add_src(&l, "job/testcase.yaml", j->testcase_path, 0644);
	if (j->extra_params)
		ents_add_data(&l, "job/ssh", j->extra_params,
			      strlen(j->extra_params), 0644);
	if (j->authorized_keys)
		ents_add_src(&l, "job/authorized_keys", j->authorized_keys,
			     0600);
	if (j->fault)
		ents_add_data(&l, "job/fault", j->fault, strlen(j->fault),
			      0644);
	ret = l.failed ? -ENOMEM : 0;
	if (!ret && access(j->testcase_path, R_OK) < 0)
		ret = rtlab_err_seterr(err, errno, "%s: testcase: %s",
				       j->testcase_path, strerror(errno));
	if (!ret)
		ret = ents_add_extras(&l, j->testcase_path, j->release, err);
	if (!ret)
		ret = ents_write(&l, path, true, err);
	free(params);
	ents_cleanup(&l);
	return ret;
}

int initramfs_concat(const char *out, const char *const *parts, size_t n,
		     struct rtlab_err *err)
{
	char buf[1 << 16];
	ssize_t r;
	size_t i;
	int in, fd, ret = 0;

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return rtlab_err_seterr(err, errno, "%s: %s", out,
					strerror(errno));
	for (i = 0; i < n && !ret; i++) {
		in = open(parts[i], O_RDONLY | O_CLOEXEC);
		if (in < 0) {
			ret = rtlab_err_seterr(err, errno, "%s: %s", parts[i],
					       strerror(errno));
			break;
		}
		while ((r = read(in, buf, sizeof(buf))) > 0)
			if (write(fd, buf, r) != r) {
				ret = rtlab_err_seterr(err, EIO,
						       "%s: write: "
						       "%s",
						       out, strerror(errno));
				break;
			}
		close(in);
	}
	if (close(fd) < 0 && !ret)
		ret = rtlab_err_seterr(err, errno, "%s: %s", out,
				       strerror(errno));
	return ret;
}
