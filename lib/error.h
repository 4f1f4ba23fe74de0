/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_ERROR_H
#define RTLAB_ERROR_H

/*
 * Error messages for the user.  Functions return 0 or a negative errno (or
 * NULL) and, when the caller passes a struct rtlab_err, fill it with a
 * sentence naming the file, field or request and what was expected, e.g.
 * "manifest.json: missing field 'run_id'".
 */

#include <stddef.h>

#define RTLAB_ERR_LEN 2048

#define __must_check __attribute__((warn_unused_result))
#define __printf(a, b) __attribute__((format(printf, a, b)))

struct rtlab_err {
	char msg[RTLAB_ERR_LEN];
};

/**
 * rtlab_err_set() - record a message (a NULL @err is allowed and ignored)
 * @err: where to write, may be NULL
 * @fmt: printf format
 *
 * Return: always -EINVAL, so a parser can `return rtlab_err_set(...)`.
 * Use rtlab_err_seterr() to return another errno.
 */
int rtlab_err_set(struct rtlab_err *err, const char *fmt, ...) __printf(2, 3);

/** rtlab_err_seterr() - like rtlab_err_set() but returns -@errnum. */
int rtlab_err_seterr(struct rtlab_err *err, int errnum, const char *fmt, ...)
	__printf(3, 4);

/**
 * rtlab_err_prefix() - put "PREFIX: " in front of an existing message, so
 * a caller can say which file a callee's complaint is about.
 */
void rtlab_err_prefix(struct rtlab_err *err, const char *fmt, ...)
	__printf(2, 3);

#endif
