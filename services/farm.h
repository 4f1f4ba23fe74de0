/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_FARM_H
#define RTLAB_FARM_H

/*
 * The nightly matrix (docs/farm.md): a schedule (YAML) of trees x boards
 * x testcases, each entry with the newest kernels of its tree to keep
 * measured, the runs per kernel at the first look of the sequential plan
 * and a priority, and who to tell about a regression.  farm_tick()
 * discovers the trees' new kernels, queues exactly the runs each kernel
 * still needs (the first look; a further look only when a verdict is
 * INCONCLUSIVE and asks for it), settles the submissions whose runs have
 * ended (services/submission.h), tells people about the trees'
 * regressions and the finished submissions, and, for entries that ask
 * for it (bisect: true), starts a bisection of each REGRESSION whose two
 * kernels have untested kernels of the tree between them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <libpq-fe.h>

#include "config.h"
#include "error.h"

struct farm_entry {
	char *tree;
	char **boards;		 /* NULL-terminated */
	char **testcases;	 /* NULL-terminated */
	unsigned int kernels;	 /* newest kernels of the tree kept measured */
	unsigned int runs;	 /* first look; 0: the testcase's min_runs */
	unsigned int duration_s; /* of each run; 0: the testcase's */
	unsigned int priority;	 /* of the jobs queued */
	char **emails;		 /* NULL-terminated, may be empty */
	char *webhook;		 /* may be NULL */
	bool bisect;		 /* bisect the tree's regressions */
};

struct farm_schedule {
	char *path;
	struct farm_entry *e;
	size_t n;
};

/**
 * farm_schedule_load() - parse and check a schedule; errors name the
 * file, the entry and the field.  Return: 0 or -EINVAL/-ENOMEM with @err.
 */
int farm_schedule_load(const char *path, struct farm_schedule *s,
		       struct rtlab_err *err) __must_check;

/** farm_schedule_cleanup() - free what farm_schedule_load() filled. */
void farm_schedule_cleanup(struct farm_schedule *s);

struct farm_tick_opts {
	bool discover;	/* ask apt for new kernels first */
	bool dry_run;	/* print what would be queued, queue nothing */
	bool no_notify; /* tell nobody */
};

struct farm_tick_result {
	unsigned int new_kernels, queued, cells, errors, told, settled;
	unsigned int bisections; /* started (dry run: that would start) */
	unsigned int health;	 /* health jobs queued (services/health.h) */
};

/**
 * farm_tick() - queue the health checks due (services/health.h), then
 * one pass over @s (see above), printing one line per health job,
 * tree, per cell that gets jobs and per message to @out.  A cell that
 * cannot be queued (unknown board, a board kind that cannot boot a tree's
 * kernel) is counted in errors and the rest goes on.
 * Return: 0, or a negative errno when the database failed (@err).
 */
int farm_tick(PGconn *conn, const struct rtlab_config *cfg,
	      const struct farm_schedule *s, const struct farm_tick_opts *o,
	      FILE *out, struct farm_tick_result *r,
	      struct rtlab_err *err) __must_check;

#endif
