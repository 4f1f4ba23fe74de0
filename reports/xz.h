/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_XZ_H
#define RTLAB_XZ_H

/* Compressing an attachment with the xz tool, which every maintainer can
 * undo (`xz -d`). */

#include <stddef.h>
#include "error.h"

/**
 * xz_compress() - @data (@size bytes) compressed by `xz -9`.
 * Return: 0 with *@out (malloc'd, caller frees) and *@out_size; a
 * negative errno with @err naming what failed (-ENOENT: no xz).
 */
int xz_compress(const void *data, size_t size, void **out, size_t *out_size,
		struct rtlab_err *err) __must_check;

#endif
