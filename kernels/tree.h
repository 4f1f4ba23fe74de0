/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_TREE_H
#define RTLAB_TREE_H

/*
 * Kernel trees (kernels/trees/NAME.yaml): where a series of kernels comes
 * from, in order.  One kind so far:
 *
 *   kind: debian-series   packages: linux-image-6.1.0-*-rt-amd64
 *       every package apt knows whose name matches the glob is a kernel
 *       of the tree, at apt's candidate version; the tree's order is the
 *       packages' Debian version order (dpkg --compare-versions).
 *
 * Discovering a tree asks apt (its package lists, as configured; APT_CONFIG
 * points apt elsewhere) and changes nothing; db/db-trees.h records what
 * was found.  A kernel of a tree is named PACKAGE=VERSION, which
 * kernel_def_find() turns into a pinned Debian definition.  See
 * kernels/README.md.
 */

#include <stddef.h>
#include "error.h"

enum tree_kind {
	TREE_KIND_DEBIAN_SERIES,
};

struct tree_def {
	char *path; /* the YAML file */
	char *name;
	char *description; /* may be NULL */
	enum tree_kind kind;
	char *packages; /* debian-series: a glob of package names */
	char *cmdline;	/* extra kernel command line for its kernels */
};

/* One kernel of a tree, as discovered. */
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

/** tree_kernels_free() - free what tree_discover() returned. */
void tree_kernels_free(struct tree_kernel *k, size_t n);

#endif
