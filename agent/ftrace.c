// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The agent's ftrace seam: find the tracefs, check a testcase's events
 * against it, and set the knobs a capture needs (saved for restore).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftrace.h"

static bool is_tracefs(const char *root)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/buffer_size_kb", root);
	return !access(path, F_OK);
}

const char *ftrace_find_root(const char *opt, struct rtlab_err *err)
{
	if (opt) {
		if (is_tracefs(opt))
			return opt;
		rtlab_err_seterr(err, ENOENT,
				 "--tracefs %s: no buffer_size_kb there (expected a tracefs mount)",
				 opt);
		return NULL;
	}
	if (is_tracefs(FTRACE_DEFAULT_ROOT))
		return FTRACE_DEFAULT_ROOT;
	if (is_tracefs(FTRACE_DEBUGFS_ROOT))
		return FTRACE_DEBUGFS_ROOT;
	rtlab_err_seterr(err, ENOENT,
			 "no tracefs at %s or %s (mount -t tracefs nodev %s)",
			 FTRACE_DEFAULT_ROOT, FTRACE_DEBUGFS_ROOT,
			 FTRACE_DEFAULT_ROOT);
	return NULL;
}

int ftrace_check(const char *root, const struct tc_trace *t,
		 struct rtlab_err *err)
{
	static const char *const needed[] = { "buffer_size_kb", "tracing_on",
		"trace_marker", "events", NULL };
	struct stat st;
	char path[4096];
	size_t i;

	for (i = 0; needed[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, needed[i]);
		if (stat(path, &st))
			return rtlab_err_seterr(err, ENOENT,
						"tracefs %s: %s is missing",
						root, needed[i]);
	}
	for (i = 0; i < t->nevents; i++) {
		const char *ev = t->events[i], *colon = strchr(ev, ':');

		if (!colon)
			return rtlab_err_set(err, "trace event '%s': expected 'subsystem:event'",
					     ev);
		if (!strcmp(colon + 1, "*") || strchr(colon + 1, '*'))
			snprintf(path, sizeof(path), "%s/events/%.*s", root,
				 (int)(colon - ev), ev);
		else
			snprintf(path, sizeof(path), "%s/events/%.*s/%s/enable",
				 root, (int)(colon - ev), ev, colon + 1);
		if (stat(path, &st))
			return rtlab_err_seterr(err, ENOENT,
						"trace event '%s': not in this kernel (%s is missing)",
						ev, path);
	}
	return 0;
}

int ftrace_prepare(const char *root, const struct tc_trace *t,
		   struct knob_list *knobs, struct rtlab_err *err)
{
	char path[4096], value[32], orig[32];
	char *cur, *exp;
	int ret;

	ret = ftrace_check(root, t, err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/buffer_size_kb", root);
	cur = knob_read(path);
	if (!cur)
		return rtlab_err_seterr(err, errno, "%s: cannot read: %s",
					path, strerror(errno));
	/* Before first use it reads "7 (expanded: 1408)": the buffer is
	 * kept tiny until tracing starts.  Restore the size it would expand
	 * to -- a number, which is all the file accepts. */
	exp = strstr(cur, "expanded:");
	snprintf(orig, sizeof(orig), "%lu",
		 strtoul(exp ? exp + strlen("expanded:") : cur, NULL, 10));
	free(cur);
	snprintf(value, sizeof(value), "%u", t->buffer_kb);
	return knob_set(knobs, path, value, orig, err);
}
