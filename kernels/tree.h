/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_TREE_H
#define RTLAB_TREE_H

/*
 * Kernel trees (kernels/trees/NAME.yaml): where a series of kernels comes
 * from, in order.  Two kinds:
 *
 *   kind: debian-series   packages: linux-image-6.1.0-*-rt-amd64
 *       every package apt knows whose name matches the glob is a kernel
 *       of the tree, at apt's candidate version; the tree's order is the
 *       packages' Debian version order (dpkg --compare-versions).  Its
 *       kernels are named PACKAGE=VERSION.
 *   kind: git   git: URL   branch: B   config: tinyconfig   fragments: F...
 *       the newest `follow` commits of branch B (first parent), oldest
 *       first; each is a kernel to build (kernels/build.h) with the base
 *       config target and the fragments merged over it.  Its kernels are
 *       named TREE@COMMIT.
 *
 * Discovering a tree asks apt (its package lists, as configured; APT_CONFIG
 * points apt elsewhere) or fetches the repository into the lab's mirror
 * (STATE_DIR/cache/trees/NAME.git); db/db-trees.h records what was found.
 * kernel_def_find() turns a tree's kernel name into a definition.  See
 * kernels/README.md.
 */

#include <stdbool.h>
#include <stddef.h>
#include "error.h"

enum tree_kind {
	TREE_KIND_DEBIAN_SERIES,
	TREE_KIND_GIT,
};

struct tree_def {
	char *path; /* the YAML file */
	char *name;
	char *description; /* may be NULL */
	enum tree_kind kind;
	char *packages; /* debian-series: a glob of package names */
	char *cmdline;	/* extra kernel command line for its kernels */
	/* git */
	char *git;	   /* URL or path (a relative path is made absolute) */
	char *branch;	   /* the branch followed */
	char *config;	   /* make target of the base config: "defconfig" */
	char **fragments;  /* absolute paths of config fragments, merged */
	size_t nfragments; /* over the base in this order */
	unsigned long follow; /* newest commits of the branch that count */
};

/*
 * One kernel of a tree, as discovered: a Debian package at a version, or
 * for a git tree the tree's name and a commit id (40 hex digits).
 */
struct tree_kernel {
	char *package;
	char *version;
};

/**
 * tree_def_load() - parse and check one tree definition; errors name the
 * file, line and field.  Return: the tree (tree_def_free()) or NULL.
 */
struct tree_def *tree_def_load(const char *path, struct rtlab_err *err);

/**
 * tree_def_find() - by name (kernels/trees/NAME.yaml under
 * rtlab_data_path("kernels")) or by path.  Return: as tree_def_load().
 */
struct tree_def *tree_def_find(const char *name, struct rtlab_err *err);

/** tree_def_free() - NULL is fine. */
void tree_def_free(struct tree_def *t);

/**
 * tree_of_package() - the name of the first tree under tree_defs_dir()
 * (in name order) whose packages glob matches Debian package @package,
 * so that a kernel named PACKAGE=VERSION is recorded as of its tree.
 * Return: malloc'd name, caller frees; NULL when no tree holds it (or a
 * tree file cannot be read: it is said when the tree is used).
 */
char *tree_of_package(const char *package);

/**
 * tree_defs_dir() - the directory of the tree definitions, or NULL when
 * there is none.  Malloc'd, caller frees.
 */
char *tree_defs_dir(void);

/**
 * tree_discover() - the kernels of @t that apt knows now, oldest first.
 * @out: malloc'd array of @n (tree_kernels_free()).
 * Return: 0 (possibly @n 0) or a negative errno with @err naming the tree
 * and the apt command that failed.
 */
int tree_discover(const struct tree_def *t, struct tree_kernel **out, size_t *n,
		  struct rtlab_err *err) __must_check;

/**
 * tree_kernel_name() - how a kernel of @t is asked for wherever a kernel
 * is named: PACKAGE=VERSION for a Debian series, TREE@COMMIT for git.
 * Return: malloc'd, caller frees; NULL on -ENOMEM.
 */
char *tree_kernel_name(const struct tree_def *t, const char *package,
		       const char *version);

/**
 * tree_source() - where @t's kernels come from, for people: the package
 * glob, or "URL branch B, CONFIG + fragments".  Return: malloc'd, caller
 * frees; NULL on -ENOMEM.
 */
char *tree_source(const struct tree_def *t);

/** tree_kind_name() - "debian-series" or "git". */
const char *tree_kind_name(const struct tree_def *t);

/**
 * tree_git_mirror() - the lab's bare mirror of git tree @t
 * (STATE_DIR/cache/trees/NAME.git), cloned when missing and fetched when
 * @update; serialised against other processes by a lock beside it.
 * @dir: malloc'd path, caller frees.
 * Return: 0 or a negative errno with @err naming the tree, the URL and
 * what git said.
 */
int tree_git_mirror(const struct tree_def *t, bool update, char **dir,
		    struct rtlab_err *err) __must_check;

/**
 * tree_git_resolve() - the commit id (40 hex digits) that @ref (a commit
 * id, its abbreviation, a branch or a tag) names in git tree @t now: the
 * mirror is fetched first unless @ref is a full commit id it holds.
 * Return: 0 or a negative errno (-ENOENT: no such commit) with @err
 * naming the tree and @ref.
 */
int tree_git_resolve(const struct tree_def *t, const char *ref, char sha[41],
		     struct rtlab_err *err) __must_check;

/**
 * tree_git_fetch() - fetch @ref (a branch, tag or commit) of the git
 * repository @url into git tree @t's mirror as ref @dest (under
 * refs/rtlab/, which the mirror's own fetches leave alone), so that it
 * builds in the tree's build directory with the tree's config.
 * Return: 0 with @sha its commit id, or a negative errno with @err saying
 * what git said.
 */
int tree_git_fetch(const struct tree_def *t, const char *url, const char *ref,
		   const char *dest, char sha[41],
		   struct rtlab_err *err) __must_check;

/** tree_kernels_free() - free what tree_discover() returned. */
void tree_kernels_free(struct tree_kernel *k, size_t n);

#endif
