/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_TREES_H
#define RTLAB_DB_TREES_H

/*
 * What each kernel tree was seen to hold (table tree_kernels): recorded by
 * `rtlab tree discover`, read by `rtlab tree show` and the farm.
 */

#include <jansson.h>
#include <libpq-fe.h>
#include <stddef.h>
#include "error.h"

/**
 * db_tree_record() - record that @tree holds the @n kernels
 * @packages[i] at @versions[i], in that order (oldest first), in one
 * transaction: new ones are added, known ones get their position and
 * seen_at updated.  @nnew gets how many were new.
 * Return: 0 or db_fail()'s errno with @err set.
 */
int db_tree_record(PGconn *conn, const char *tree, const char *const *packages,
		   const char *const *versions, size_t n, unsigned int *nnew,
		   struct rtlab_err *err) __must_check;

/**
 * db_tree_kernels() - the kernels recorded for @tree, in its order: an
 * array of {package, version, position, discovered_at, seen_at}.
 * Return: 0 with *@out (caller json_decref()s), or a negative errno.
 */
int db_tree_kernels(PGconn *conn, const char *tree, json_t **out,
		    struct rtlab_err *err) __must_check;

#endif
