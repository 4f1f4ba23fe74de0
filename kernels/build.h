/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_BUILD_H
#define RTLAB_BUILD_H

/*
 * Building the kernels of a git tree (kernels/tree.h, kind git).  Each
 * tree has, under STATE_DIR/cache/trees/:
 *
 *   NAME.git    the lab's bare mirror of the tree's repository
 *   NAME.src    a worktree of it, checked out at the commit being built
 *               (a checkout rewrites only the files that differ, so make
 *               rebuilds only what changed)
 *   NAME.obj    the build directory (make O=...), kept between builds
 *
 * and every compiler call goes through ccache (STATE_DIR/cache/ccache)
 * when it is installed.  A tree builds one kernel at a time (a lock);
 * builds of different trees run side by side.
 *
 * kernels/kernel.h turns a build into a cache entry: a kernel named
 * TREE@COMMIT is built once, the first time it is fetched.
 */

#include "error.h"
#include "tree.h"

/**
 * build_config_key() - 12 hex digits that name the configuration @t's
 * kernels are built with: a sha256 of the base config target and of the
 * fragments' contents, so that a changed fragment means new builds.
 * Return: 0 or a negative errno with @err naming the fragment.
 */
int build_config_key(const struct tree_def *t, char key[13],
		     struct rtlab_err *err) __must_check;

/**
 * kernel_build() - build commit @sha (40 hex digits) of git tree @t:
 * check it out, configure it (`make CONFIG`, the fragments merged over it
 * with the kernel's scripts/kconfig/merge_config.sh, `make
 * olddefconfig`), check that every option the fragments set is in the
 * final .config, then make bzImage, and the modules when the config has
 * CONFIG_MODULES=y.  Fills @out (an existing, empty directory): bzImage,
 * config, and root/lib/modules/<release> for a modular kernel.  All that
 * git and make print goes to @log_path; one line per step is logged.
 * Return: 0; -EIO with @err naming the step that failed and its last
 * error line (the log holds the rest); or another negative errno.
 */
int kernel_build(const struct tree_def *t, const char *sha, const char *out,
		 const char *log_path, struct rtlab_err *err) __must_check;

#endif
