// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User-facing error messages: a fixed buffer the callee fills with a
 * sentence naming what was wrong, so a caller can print it as it is or put
 * the file it was reading in front.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static void err_vset(struct rtlab_err *err, const char *fmt, va_list ap)
{
	if (!err)
		return;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

int rtlab_err_set(struct rtlab_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(err, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int rtlab_err_seterr(struct rtlab_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(err, fmt, ap);
	va_end(ap);
	if (errnum < 0)
		errnum = -errnum;
	return errnum ? -errnum : -EINVAL;
}

void rtlab_err_prefix(struct rtlab_err *err, const char *fmt, ...)
{
	char old[RTLAB_ERR_LEN];
	char pre[RTLAB_ERR_LEN];
	va_list ap;

	if (!err)
		return;
	memcpy(old, err->msg, sizeof(old));
	old[sizeof(old) - 1] = '\0';
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	/* Truncation keeps the front, which names the file. */
	if (snprintf(err->msg, sizeof(err->msg), "%s: %s", pre, old) < 0)
		memcpy(err->msg, old, sizeof(old));
}
