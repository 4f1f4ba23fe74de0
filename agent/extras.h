/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_EXTRAS_H
#define RTLAB_AGENT_EXTRAS_H

/*
 * A testcase's extras on the board (testcases/README.md, "Extras"): its
 * files put in place, its modules loaded, its setup commands run before
 * the measurement; afterwards its teardown commands run, the modules are
 * removed and the files the agent created deleted.  Everything done is
 * recorded for the manifest's testcase.extras.
 */

#include <jansson.h>
#include <stdbool.h>
#include "error.h"
#include "testcase.h"

struct extras_run {
	const struct testcase *tc;
	const char *dir; /* where the board put the modules (--extras), or
			  * NULL: resolve against the testcase file, and
			  * copy the files to their dest */
	void (*note)(void *ctx, const char *msg); /* a line for the log */
	void *note_ctx;
	json_t *modules, *files, *commands; /* for the manifest */
	bool *loaded;  /* per module: insmod'ed, to be removed */
	bool *created; /* per file: the agent created it */
	bool set_up;   /* extras_setup() started: teardown is due */
};

/**
 * extras_init() - @x ready for @tc's extras; @dir and @note as in the
 * struct.  Return: 0 or -ENOMEM.
 */
int extras_init(struct extras_run *x, const struct testcase *tc,
		const char *dir, void (*note)(void *ctx, const char *msg),
		void *note_ctx) __must_check;

/**
 * extras_setup() - put the files in place, load the modules (checked
 * against the running kernel's release first), run the setup commands,
 * in that order, stopping at the first failure.
 * Return: 0, or a negative errno with @err naming the entry ("extras.
 * modules[0] my_driver.ko: insmod: Invalid parameters") -- the run fails.
 */
int extras_setup(struct extras_run *x, struct rtlab_err *err) __must_check;

/**
 * extras_teardown() - when extras_setup() ran: the teardown commands,
 * then the loaded modules removed (last loaded first), then the files
 * the agent created deleted.  Every step is tried.
 * Return: 0, or a negative errno with @err naming the first that failed.
 */
int extras_teardown(struct extras_run *x, struct rtlab_err *err) __must_check;

/**
 * extras_json() - what was done, for the manifest's testcase.extras:
 * {"modules": [{"path", "file", "name", "vermagic", "srcversion",
 * "sha256", "params", "loaded", "error", "removed"}], "files": [{"src",
 * "dest", "sha256", "size"}], "commands": [{"phase", "command",
 * "exit_status", "output"}]}.
 * Return: a new reference, or NULL when the testcase has no extras.
 */
json_t *extras_json(const struct extras_run *x);

/** extras_cleanup() - free what extras_init() made; safe twice. */
void extras_cleanup(struct extras_run *x);

#endif
