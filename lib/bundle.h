/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_BUNDLE_H
#define RTLAB_BUNDLE_H

/*
 * The result bundle: a gzip'd tar (written and read with libarchive) of a
 * run's files: manifest.json first, then cyclictest.json, cyclictest.hist,
 * trace.dat, dmesg.txt, config, console.log, ...  Held in memory while
 * built; read in two passes (the gzip layer checked and scanned, then the
 * members), so reading holds only the members.  The format is documented
 * in the README.
 */

#include <stddef.h>
#include "error.h"
#include "run-limits.h"

#define BUNDLE_MANIFEST "manifest.json"

/* Limits of one bundle (policy in run-limits.h), checked when adding and when
 * reading, before the data is allocated, so a corrupt or hostile upload
 * cannot make a reader allocate without bound. */
#define BUNDLE_MAX_FILES ((int)RTLAB_MAX_BUNDLE_FILES)
#define BUNDLE_MAX_BYTES RTLAB_MAX_BUNDLE_BYTES /* all files, uncompressed */
#define BUNDLE_MAX_FILE_BYTES RTLAB_MAX_ARTIFACT_BYTES /* one file */
#define BUNDLE_MAX_NAME ((int)RTLAB_MAX_FILE_NAME_LEN)

struct bundle_file {
	char *name;
	unsigned char *data;
	size_t size;
};

struct bundle {
	size_t nfiles;
	struct bundle_file *files;
};

/** bundle_alloc() - empty bundle; caller frees with bundle_free(). */
struct bundle *bundle_alloc(void);

/** bundle_free() - free a bundle and its files; NULL is fine. */
void bundle_free(struct bundle *b);

/** bundle_add() - copy @size bytes in as @name (replaces a file of that
 *  name).  Return: 0, -EINVAL (bad name: empty, absolute, "..", too long,
 *  not printable ASCII), -EFBIG (beyond BUNDLE_MAX_FILES, BUNDLE_MAX_BYTES
 *  or BUNDLE_MAX_FILE_BYTES), -ENOMEM. */
int bundle_add(struct bundle *b, const char *name, const void *data,
	       size_t size) __must_check;

/**
 * bundle_add_tail() - bundle_add() of the last bytes of a log whose end
 * matters most (a console): at most @max bytes, and no more than the
 * one-file limit and what the bundle's total limit leaves.
 * @cut: set to the number of bytes left out at the start; may be NULL.
 * Return: 0, -EINVAL (bad name), -EFBIG (no room at all), -ENOMEM.
 */
int bundle_add_tail(struct bundle *b, const char *name, const void *data,
		    size_t size, size_t max, size_t *cut) __must_check;

/** bundle_add_path() - read the file at @path in as @name.
 *  Return: 0 or a negative errno with @err naming @path. */
int bundle_add_path(struct bundle *b, const char *name, const char *path,
		    struct rtlab_err *err) __must_check;

/** bundle_check_name() - 0 when @name may be a bundle file: a relative
 *  path of printable ASCII (no spaces or backslashes), no empty, "." or
 *  ".." component, at most BUNDLE_MAX_NAME long; else -EINVAL. */
int bundle_check_name(const char *name) __must_check;

/** bundle_get() - the file called @name, or NULL. Owned by the bundle. */
const struct bundle_file *bundle_get(const struct bundle *b, const char *name);

/** bundle_write_mem() - serialize; *@data is malloc'd, caller frees.
 *  Return: 0 or a negative errno with @err set. */
int bundle_write_mem(const struct bundle *b, void **data, size_t *size,
		     struct rtlab_err *err) __must_check;

/** bundle_write() - serialize to @path atomically (temporary file + rename).
 *  Return: 0 or a negative errno with @err set. */
int bundle_write(const struct bundle *b, const char *path,
		 struct rtlab_err *err) __must_check;

/** bundle_read_mem() - parse a serialized bundle.  A truncated archive, a
 *  non-tar body, data after the gzip stream or after the tar's end, a
 *  member or a whole beyond the limits, or a missing manifest.json is an
 *  error naming what is wrong.  Return: the bundle (caller frees with
 *  bundle_free()) or NULL with errno set: EFBIG when a limit was exceeded,
 *  ENOMEM, else EINVAL. */
struct bundle *bundle_read_mem(const void *data, size_t size,
			       struct rtlab_err *err);

/** bundle_read() - bundle_read_mem() of the file at @path. */
struct bundle *bundle_read(const char *path, struct rtlab_err *err);

#endif
