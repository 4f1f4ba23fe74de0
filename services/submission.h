/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_SUBMISSION_H
#define RTLAB_SUBMISSION_H

/*
 * Developer submissions (docs/farm.md): a built kernel, either a bzImage
 * with its .config and a modules tarball, or a Debian package .deb, with
 * the boards, testcases and baseline to run it against.  It is checked
 * (a kernel image, PREEMPT_RT in its config), stored under
 * STATE_DIR/submissions/ID/ as a kernel definition of kind local, and its
 * runs (and the baseline's missing ones) are queued at submission
 * priority.  Once its jobs have ended the farm's tick settles it: the
 * verdict of each board and testcase against the baseline, or why it
 * failed (the kernel did not boot, the baseline has no runs).
 *
 * A third kind is a tree reference (git URL, ref and config fragment) to
 * build as one of the lab's git trees (kernels/tree.h): the ref is
 * fetched into that tree's mirror, and a kernel definition of kind build
 * (the commit, the tree's config and the developer's fragment last) is
 * stored; the first job builds it (kernels/build.h), and a kernel that
 * does not build fails its jobs with the build's reason.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "config.h"
#include "error.h"

#define SUBMISSION_MAX_NAMES 16 /* boards, testcases */
#define SUBMISSION_MAX_RUNS 100

struct farm_schedule;

/**
 * submission_create() - check and store the submission archive @data
 * (@len bytes: a tar, possibly gzip'd, holding submission.json and the
 * kernel's files: kernel.deb, or bzImage, config and modules.tar[.gz|.xz])
 * of token @owner (@token_id), and queue its jobs, in one transaction.
 * Return: 0 with *@id; -EINVAL (a bad submission: @err names the file or
 * field and what was expected; nothing is stored), -ENOENT (unknown
 * board, testcase or tree), -EIO.
 */
int submission_create(PGconn *conn, const char *owner, int token_id,
		      const void *data, size_t len, int64_t *id,
		      struct rtlab_err *err) __must_check;

/**
 * submission_tree() - a submission of kind "tree" ({"kind": "tree",
 * "git": URL, "ref": REF, "config_fragment": TEXT, "tree": a git tree of
 * the lab, boards, testcases, baseline}): checked, the ref fetched into
 * the tree's mirror, its kernel definition stored and its jobs queued, in
 * one transaction.
 * Return: 0 with *@id; -EINVAL (a bad request or a ref git cannot fetch:
 * @err says which; nothing is stored), -ENOENT (unknown board, testcase
 * or tree), -EIO.
 */
int submission_tree(PGconn *conn, const char *owner, int token_id, json_t *req,
		    int64_t *id, struct rtlab_err *err) __must_check;

/**
 * submission_settle_all() - every queued submission whose jobs have all
 * ended: its verdict against the baseline per board and testcase (more
 * runs of both sides queued when a verdict asks for its next look), then
 * done or failed with one line saying why; the tree's people (@s) are
 * told unless @quiet.
 * Return: 0 with *@settled and *@told counted up; a negative errno.
 */
int submission_settle_all(PGconn *conn, const struct rtlab_config *cfg,
			  const struct farm_schedule *s, bool quiet, FILE *out,
			  unsigned int *settled, unsigned int *told,
			  struct rtlab_err *err) __must_check;

#endif
