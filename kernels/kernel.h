/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_KERNEL_H
#define RTLAB_KERNEL_H

/*
 * Kernel definitions (kernels/NAME.yaml) and the cache that holds their
 * fetched images.  Two kinds:
 *
 *   kind: debian    package: linux-image-rt-amd64   [version: 6.1.192-3]
 *       a Debian package, possibly a metapackage that is resolved to the
 *       versioned linux-image-<release> it depends on; fetched with
 *       `apt-get download` + `dpkg -x` into
 *       STATE_DIR/cache/kernels/<package>_<version>/ once and reused.
 *   kind: local     image: /path/bzImage  [modules: DIR] [config: FILE]
 *       an image built elsewhere; nothing is copied.
 *   kind: build     tree: TREE  commit: REF  [fragment: FILE]
 *       a commit of a git tree (kernels/tree.h), built by the lab
 *       (kernels/build.h) into STATE_DIR/cache/kernels/build_<tree>_
 *       <commit>_<config key>/ the first time it is fetched.  Named
 *       TREE@REF wherever a kernel is asked for.  A failed build is
 *       remembered beside it (its log), so it is not tried again.
 *
 * Every definition has a name (the file's base name unless given) and may
 * carry a tree (e.g. "debian-rt").  See kernels/README.md.
 */

#include <stdbool.h>
#include <stddef.h>
#include "error.h"

enum kernel_kind {
	KERNEL_KIND_DEBIAN,
	KERNEL_KIND_LOCAL,
	KERNEL_KIND_BUILD,
};

struct kernel_def {
	char *path; /* the YAML file it came from */
	char *name;
	char *tree;	   /* may be NULL; build: the tree's name or path */
	char *description; /* may be NULL */
	enum kernel_kind kind;
	/* debian */
	char *package; /* as written: may be a metapackage */
	char *version; /* pinned package version, NULL = candidate */
	/* local */
	char *image;
	char *modules; /* lib/modules/<release> directory or NULL */
	char *config;  /* kernel .config or NULL */
	char *cmdline; /* extra kernel command line, may be NULL */
	/* build */
	char *commit;	/* a commit id, branch or tag of the tree */
	char *fragment; /* one more config fragment after the tree's, or NULL */
};

/* What a fetched kernel is, and where its files are. */
struct kernel_ident {
	char *name;		/* definition name */
	char *tree;		/* may be NULL */
	char *package;		/* versioned package, NULL for local */
	char *package_version;	/* e.g. "6.1.192-3", NULL for local */
	char *release;		/* uname -r, e.g. "6.1.0-57-rt-amd64" */
	char *version;		/* uname -v, e.g. "#1 SMP PREEMPT_RT ..." */
	char config_sha256[65]; /* "" when no config is known */
	int realtime;		/* 1 CONFIG_PREEMPT_RT=y, 0 not, -1 unknown */
	char *image_path;	/* bzImage */
	char *modules_dir;	/* .../lib/modules/<release>, may be NULL */
	char *config_path;	/* may be NULL */
	char *commit;		/* build: the commit id, else NULL */
	char *build_log;	/* build: the build's log, else NULL */
	char *cache_dir;	/* NULL for local */
	bool fetched_now;	/* downloaded by this call (not from cache) */
};

/**
 * kernel_def_load() - parse and check one definition file.
 * Return: the definition (caller frees with kernel_def_free()) or NULL with
 * @err naming the file, line and field that is wrong.
 */
struct kernel_def *kernel_def_load(const char *path, struct rtlab_err *err);

/**
 * kernel_def_find() - load a definition by name ("debian-rt") or by path
 * (anything with a '/' or ending in .yaml), or make one of a Debian
 * package pinned at a version ("linux-image-6.1.0-50-rt-amd64=6.1.176-1",
 * how a Debian tree's kernels are named), or a commit of a git tree to
 * build ("linux-6.12@1a2b3c4d", how a git tree's kernels are named).  Names are looked up in
 * rtlab_data_path("kernels") (lib/config.h).
 * Return: as kernel_def_load().
 */
struct kernel_def *kernel_def_find(const char *name, struct rtlab_err *err);

/** kernel_def_free() - free a definition; NULL is fine. */
void kernel_def_free(struct kernel_def *k);

/**
 * kernel_defs_dir() - the directory kernel_def_find() would use for names.
 * Return: malloc'd path (caller frees) or NULL when none exists.
 */
char *kernel_defs_dir(void);

/**
 * kernel_cache_root() - STATE_DIR/cache/kernels, STATE_DIR being
 * rtlab_state_dir() (lib/config.h).  Return: malloc'd, caller frees.
 */
char *kernel_cache_root(void);

/**
 * kernel_fetch() - make the kernel of @k available and describe it: for a
 * Debian package resolve its version, download, check the .deb's sha256
 * against apt's, unpack, check the image (bzImage "HdrS" header, not
 * truncated), read the identity from the package; a complete cache entry is
 * reused without any download.  For a local kernel check the given files.
 * For a commit of a git tree, build it (minutes: kernels/build.h) unless
 * its entry exists; a build that failed before fails again at once with
 * -EIO and the same reason (its log is kept).
 * @cache_root: NULL for kernel_cache_root().
 * @id: filled; release with kernel_ident_cleanup().
 * Return: 0 or a negative errno with @err naming the definition file and
 * field, or the package and what went wrong.
 */
int kernel_fetch(const struct kernel_def *k, const char *cache_root,
		 struct kernel_ident *id, struct rtlab_err *err) __must_check;

/**
 * kernel_cached() - like kernel_fetch() but never downloads: 0 when a
 * complete cache entry exists, -ENOENT when not.  Apt is still asked for
 * the version a metapackage resolves to.
 */
int kernel_cached(const struct kernel_def *k, const char *cache_root,
		  struct kernel_ident *id, struct rtlab_err *err) __must_check;

/**
 * kernel_build_forget() - for a kernel of kind build, forget that its
 * build failed, so that the next kernel_fetch() builds it again.
 * Return: 0 (also when it had not failed) or a negative errno.
 */
int kernel_build_forget(const struct kernel_def *k, const char *cache_root,
			struct rtlab_err *err) __must_check;

/** kernel_ident_cleanup() - free what kernel_fetch() filled; safe twice. */
void kernel_ident_cleanup(struct kernel_ident *id);

/**
 * kernel_image_check() - is @path a complete x86 bzImage?  Checks the
 * "HdrS" magic at 0x202 and that the file holds the setup sectors plus the
 * protected-mode size the header announces.  @release/@version, when not
 * NULL, get the malloc'd strings from the header's kernel_version field
 * (caller frees).  Return: 0 or -EINVAL with @err naming @path.
 */
int kernel_image_check(const char *path, char **release, char **version,
		       struct rtlab_err *err) __must_check;

#endif
