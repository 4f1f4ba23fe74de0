// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel builds from a git tree: checkout into the tree's worktree,
 * configuration from a base target and fragments, make with ccache in the
 * tree's build directory, everything logged.  See build.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "config.h"
#include "fsutil.h"
#include "log.h"
#include "progress.h"
#include "strbuf.h"

int build_config_key(const struct tree_def *t, char key[13],
		     struct rtlab_err *err)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	char *text;
	size_t len, f;
	int ret = 0;

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return rtlab_err_seterr(err, ENOMEM, "sha256: out of memory");
	}
	EVP_DigestUpdate(ctx, t->config, strlen(t->config) + 1);
	for (f = 0; f < t->nfragments && !ret; f++) {
		ret = file_read_all(t->fragments[f], &text, &len, err);
		if (ret)
			break;
		EVP_DigestUpdate(ctx, text, len + 1);
		free(text);
	}
	if (!ret && !EVP_DigestFinal_ex(ctx, md, &mdlen))
		ret = rtlab_err_seterr(err, EIO, "sha256 failed");
	EVP_MD_CTX_free(ctx);
	for (i = 0; !ret && i < 6; i++)
		snprintf(key + 2 * i, 3, "%02x", md[i]);
	return ret;
}

/* Paths of one build. */
struct build {
	const struct tree_def *t;
	const char *sha;
	const char *log;
	char *mirror; /* NAME.git */
	char *src;    /* NAME.src */
	char *obj;    /* NAME.obj */
	char *ccache;
	char short_sha[13];
	struct timespec start;
};

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The last line of the log that says what went wrong: make's first
 * "error:" line, else its last "***" line, else the log's last line. */
static char *log_reason(const char *log)
{
	char *text = NULL, *line, *save = NULL, *err_line = NULL;
	char *star = NULL, *last = NULL, *r;
	struct rtlab_err ignore = { "" };

	if (file_read_all(log, &text, NULL, &ignore))
		return strdup("(no log)");
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!err_line &&
		    (strstr(line, "error:") || strstr(line, "Error:") ||
		     strstr(line, "fatal:")))
			err_line = line;
		if (strstr(line, "***"))
			star = line;
		last = line;
	}
	r = strdup(err_line ? err_line : star ? star : last ? last : "");
	free(text);
	return r;
}

/* Run @argv with its output appended to the build's log, waiting with a
 * progress line; a failure is -EIO naming @step and the log's reason. */
static int step(struct build *b, const char *stepname, char *const argv[],
		struct rtlab_err *err)
{
	struct progress p;
	char what[96], *why;
	int status = 0;
	pid_t pid, w;
	FILE *f;

	f = fopen(b->log, "a");
	if (f) {
		fprintf(f, "\n=== %s:", stepname);
		for (size_t i = 0; argv[i]; i++)
			fprintf(f, " %s", argv[i]);
		fprintf(f, "\n");
		fclose(f);
	}
	snprintf(what, sizeof(what), "build %s@%s", b->t->name, b->short_sha);
	log_info("%s: %s (%.0f s so far)", what, stepname, since(&b->start));
	pid = spawn_logged(argv, b->log, true, SIGTERM, err);
	if (pid < 0)
		return pid;
	progress_init(&p, what, 0);
	progress_phase(&p, stepname);
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			progress_done(&p);
			return rtlab_err_seterr(err, errno, "waitpid: %s",
						strerror(errno));
		}
		progress_update(&p);
		usleep(200 * 1000);
	}
	progress_done(&p);
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	why = log_reason(b->log);
	rtlab_err_seterr(err, EIO,
			 "build of %s@%s failed at %s (%s %d): %s; log: %s",
			 b->t->name, b->short_sha, stepname,
			 WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) :
					     WTERMSIG(status),
			 why ? why : "", b->log);
	free(why);
	return -EIO;
}

/* The worktree at @sha: created once, then only checked out. */
static int checkout(struct build *b, struct rtlab_err *err)
{
	char *co[] = { "git",	   "-C",	   b->src,
		       "checkout", "--quiet",	   "--force",
		       "--detach", (char *)b->sha, NULL };
	char *add[] = { "git",	   "-C",       b->mirror, "worktree",	  "add",
			"--force", "--detach", b->src,	  (char *)b->sha, NULL };
	char *prune[] = { "git", "-C", b->mirror, "worktree", "prune", NULL };
	char *git_file = path_join(b->src, ".git");
	int ret;

	if (git_file && !access(git_file, F_OK)) {
		free(git_file);
		ret = step(b, "checkout", co, err);
		if (!ret)
			return 0;
		/* a damaged worktree is made again */
		log_warn("build %s@%s: checkout failed, making the worktree "
			 "again",
			 b->t->name, b->short_sha);
	} else {
		free(git_file);
	}
	rmtree(b->src);
	ret = step(b, "worktree prune", prune, err);
	return ret ?: step(b, "checkout", add, err);
}

/*
 * Every option a fragment sets must be in the final .config as written:
 * an option olddefconfig dropped (unmet dependencies, a typo) would build
 * a kernel other than the one asked for.
 */
static int check_fragments(struct build *b, struct rtlab_err *err)
{
	char *config_path = path_join(b->obj, ".config"), *config = NULL;
	char *frag = NULL, *line, *save = NULL, name[128];
	struct strbuf missing = { 0 };
	size_t f, nmissing = 0;
	int ret;

	if (!config_path)
		return -ENOMEM;
	ret = file_read_all(config_path, &config, NULL, err);
	for (f = 0; !ret && f < b->t->nfragments; f++) {
		ret = file_read_all(b->t->fragments[f], &frag, NULL, err);
		for (line = ret ? NULL : strtok_r(frag, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char want[512];
			bool found;

			if (sscanf(line, "# %127[A-Za-z0-9_] is not set",
				   name) == 1 &&
			    !strncmp(name, "CONFIG_", 7)) {
				snprintf(want, sizeof(want), "\n%s=", name);
				found = !strstr(config, want);
			} else if (!strncmp(line, "CONFIG_", 7)) {
				snprintf(want, sizeof(want), "\n%s\n", line);
				found = strstr(config, want) != NULL;
			} else {
				continue;
			}
			if (!found && nmissing++ < 8)
				strbuf_addf(&missing, "%s%s",
					    nmissing > 1 ? ", " : "", line);
		}
		free(frag);
		frag = NULL;
		save = NULL;
	}
	if (!ret && nmissing)
		ret = rtlab_err_seterr(err, EIO,
				       "build of %s@%s failed at config: %zu "
				       "option(s) of the fragments are not in "
				       "the final .config (unmet dependencies "
				       "or unknown to this kernel): %s%s",
				       b->t->name, b->short_sha, nmissing,
				       missing.buf ? missing.buf : "",
				       nmissing > 8 ? ", ..." : "");
	strbuf_cleanup(&missing);
	free(config);
	free(config_path);
	return ret;
}

static int configure(struct build *b, struct rtlab_err *err)
{
	char *o = NULL, *merge = NULL, *dotconfig = NULL;
	char **argv = NULL;
	size_t i, n = 0;
	int ret = -ENOMEM;

	if (asprintf(&o, "O=%s", b->obj) < 0 ||
	    !(merge = path_join(b->src, "scripts/kconfig/merge_config.sh")) ||
	    !(dotconfig = path_join(b->obj, ".config")))
		goto out;
	{
		char *base[] = { "make", "-C", b->src, o, b->t->config, NULL };

		ret = step(b, "config", base, err);
	}
	if (ret || !b->t->nfragments)
		goto check;
	argv = calloc(b->t->nfragments + 7, sizeof(*argv));
	if (!argv) {
		ret = -ENOMEM;
		goto out;
	}
	argv[n++] = "sh";
	argv[n++] = merge;
	argv[n++] = "-m";
	argv[n++] = "-O";
	argv[n++] = b->obj;
	argv[n++] = dotconfig;
	for (i = 0; i < b->t->nfragments; i++)
		argv[n++] = b->t->fragments[i];
	ret = step(b, "config fragments", argv, err);
	if (!ret) {
		char *old[] = { "make", "-C", b->src, o, "olddefconfig", NULL };

		ret = step(b, "olddefconfig", old, err);
	}
check:
	if (!ret)
		ret = check_fragments(b, err);
out:
	free(argv);
	free(o);
	free(merge);
	free(dotconfig);
	return ret;
}

static bool config_has(const char *dotconfig, const char *line)
{
	struct rtlab_err ignore = { "" };
	char *text = NULL, want[128];
	bool has;

	if (file_read_all(dotconfig, &text, NULL, &ignore))
		return false;
	snprintf(want, sizeof(want), "\n%s\n", line);
	has = strstr(text, want) != NULL;
	free(text);
	return has;
}

static int make_kernel(struct build *b, const char *out, struct rtlab_err *err)
{
	char *o = NULL, *jobs = NULL, *cc = NULL, *ccdir = NULL, *mod = NULL;
	char *dotconfig = path_join(b->obj, ".config"), *ccache;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int ret = -ENOMEM;

	ccache = path_which("ccache");
	if (asprintf(&o, "O=%s", b->obj) < 0 ||
	    asprintf(&jobs, "-j%ld", ncpu > 0 ? ncpu : 1) < 0 ||
	    asprintf(&cc, "CC=%sgcc", ccache ? "ccache " : "") < 0 ||
	    asprintf(&ccdir, "CCACHE_DIR=%s", b->ccache) < 0 ||
	    asprintf(&mod, "INSTALL_MOD_PATH=%s/root", out) < 0 || !dotconfig)
		goto out;
	{
		/* a fixed user and host keep the version string (and ccache's
		 * hits on init/version.c) the same from build to build */
		char *argv[] = { "make",
				 "-C",
				 b->src,
				 o,
				 jobs,
				 cc,
				 ccdir,
				 "KBUILD_BUILD_USER=rtlab",
				 "KBUILD_BUILD_HOST=rtlab",
				 "bzImage",
				 NULL };
		char *inst[] = { "make",
				 "-C",
				 b->src,
				 o,
				 mod,
				 "INSTALL_MOD_STRIP=1",
				 "modules_install",
				 NULL };

		ret = step(b, "bzImage", argv, err);
		if (!ret && config_has(dotconfig, "CONFIG_MODULES=y")) {
			argv[9] = "modules";
			ret = step(b, "modules", argv, err) ?:
				      step(b, "modules_install", inst, err);
		}
	}
out:
	free(ccache);
	free(o);
	free(jobs);
	free(cc);
	free(ccdir);
	free(mod);
	free(dotconfig);
	return ret;
}

static int copy_file(const char *from, const char *to, struct rtlab_err *err)
{
	char *data = NULL;
	size_t len = 0;
	int ret;

	ret = file_read_all(from, &data, &len, err);
	if (!ret)
		ret = file_write_all(to, data, len, err);
	free(data);
	return ret;
}

int kernel_build(const struct tree_def *t, const char *sha, const char *out,
		 const char *log_path, struct rtlab_err *err)
{
	struct build b = { .t = t, .sha = sha, .log = log_path };
	char *cache = rtlab_cache_dir(), *lock = NULL, *from = NULL, *to = NULL;
	int fd = -1, ret;

	clock_gettime(CLOCK_MONOTONIC, &b.start);
	snprintf(b.short_sha, sizeof(b.short_sha), "%.12s", sha);
	if (t->kind != TREE_KIND_GIT)
		return rtlab_err_set(err, "tree %s: only git trees are built",
				     t->name);
	if (!cache || asprintf(&b.src, "%s/trees/%s.src", cache, t->name) < 0 ||
	    asprintf(&b.obj, "%s/trees/%s.obj", cache, t->name) < 0 ||
	    asprintf(&lock, "%s/trees/%s.build.lock", cache, t->name) < 0 ||
	    !(b.ccache = path_join(cache, "ccache"))) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = tree_git_mirror(t, false, &b.mirror, err) ?:
		      mkdir_p(b.obj, 0755, err)		?:
		      mkdir_p(b.ccache, 0755, err);
	if (ret)
		goto out;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = rtlab_err_seterr(err, errno, "%s: %s", lock,
				       strerror(errno));
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		log_info("build %s@%s: waiting for the tree's build in "
			 "progress",
			 t->name, b.short_sha);
		if (flock(fd, LOCK_EX) < 0) {
			ret = rtlab_err_seterr(err, errno, "%s: %s", lock,
					       strerror(errno));
			goto out;
		}
	}
	ret = checkout(&b, err)		 ?:
		      configure(&b, err) ?:
					   make_kernel(&b, out, err);
	if (ret)
		goto out;
	if (!(from = path_join(b.obj, "arch/x86/boot/bzImage")) ||
	    !(to = path_join(out, "bzImage"))) {
		ret = -ENOMEM;
		goto out;
	}
	ret = copy_file(from, to, err);
	free(from);
	free(to);
	from = path_join(b.obj, ".config");
	to = path_join(out, "config");
	if (!ret)
		ret = from && to ? copy_file(from, to, err) : -ENOMEM;
	if (!ret) {
		FILE *f = fopen(log_path, "a");

		/* the log says how long it took, for benchmarks and people */
		if (f) {
			fprintf(f, "\n=== done in %.0f s\n", since(&b.start));
			fclose(f);
		}
		log_info("build %s@%s: done in %.0f s", t->name, b.short_sha,
			 since(&b.start));
	}
out:
	if (fd >= 0)
		close(fd);
	free(from);
	free(to);
	free(lock);
	free(cache);
	free(b.mirror);
	free(b.src);
	free(b.obj);
	free(b.ccache);
	return ret;
}
