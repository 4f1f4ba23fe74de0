/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_SCRATCH_H
#define RTLAB_SCRATCH_H

/*
 * A scratch directory for the agent's unit tests, which fake the files a
 * board has (tracefs, sysfs and procfs knobs) below it: create it, name
 * and write files in it, read a knob back, remove it all at the end.
 */

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../agent/knob.h"

static char scratch_dir[256];

/* Creates /tmp/@name.XXXXXX; 0, or -1 with errno set. */
static inline int scratch_create(const char *name)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/%s.XXXXXX", name);
	return mkdtemp(scratch_dir) ? 0 : -1;
}

static inline int scratch_rm_entry(const char *p, const struct stat *st,
				   int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static inline void scratch_destroy(void)
{
	nftw(scratch_dir, scratch_rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* @name below the scratch directory; the last four answers stay valid. */
static inline char *scratch_path(const char *name)
{
	static char buf[4][4096];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", scratch_dir, name);
	return buf[i];
}

static inline void scratch_put(const char *name, const char *content)
{
	FILE *f = fopen(scratch_path(name), "w");

	if (f) {
		fputs(content, f);
		fclose(f);
	}
}

/* Knob @name holds @want; says what it holds when not. */
static inline int scratch_holds(const char *name, const char *want)
{
	char *v = knob_read(scratch_path(name));
	int ok = v && !strcmp(v, want);

	if (!ok)
		printf("# %s holds '%s', want '%s'\n", name,
		       v ? v : "(unreadable)", want);
	free(v);
	return ok;
}

#endif
