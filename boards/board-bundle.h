/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_BOARD_BUNDLE_H
#define RTLAB_BOARD_BUNDLE_H

/*
 * The bundles the host writes for the kinds that boot a kernel: a fault
 * bundle when the board delivered none (boot_failed, panic, hang,
 * agent_error), or the agent's bundle completed with the host's logs and
 * the kind's record of the board.  See boards/README.md.
 */

#include <stddef.h>
#include <jansson.h>
#include "bundle.h"
#include "error.h"
#include "manifest.h"
#include "../kernels/kernel.h"

/* What the manifest of a fault bundle says of its run. */
struct board_fault_run {
	const char *run_id;
	const char *board; /* the board's name */
	enum run_status status;
	const char *why;      /* the manifest's "error" */
	const char *testcase; /* its name (board_testcase_name()) */
	unsigned int duration_s;
	const struct kernel_ident *kernel;
	const char *clock;   /* environment.clock */
	const char *cmdline; /* the kernel's command line */
	const char *started_at;
	const char *kind_key; /* "virtual_board", "ssh_board", "lava" */
	json_t *kind_json;    /* its value, not stolen; NULL fails */
};

/**
 * board_fault_manifest() - the manifest of a bundle the host writes when
 * the board delivered none, as @f describes its run.
 * Return: a new JSON object, or NULL when out of memory.
 */
json_t *board_fault_manifest(const struct board_fault_run *f);

/**
 * board_testcase_name() - the testcase's name in a manifest: the base
 * name of @path up to ".yaml".  Return: malloc'd, or NULL.
 */
char *board_testcase_name(const char *path);

/**
 * board_bundle_add_log() - the last @keep bytes of log @data (@len bytes;
 * NULL: empty) into @bd as @name, and its size and sha256 into the
 * "files" of manifest @m.
 * Return: 0 or a negative errno.
 */
int board_bundle_add_log(struct bundle *bd, json_t *m, const char *name,
			 const char *data, size_t len,
			 size_t keep) __must_check;

/**
 * board_bundle_manifest() - the manifest.json of @bd, parsed.
 * @jerr: why it did not parse; its text is "" when it did, or when @bd
 * has no manifest.json.
 * Return: a new JSON object, or NULL when there is none, it does not
 * parse or it is not an object.
 */
json_t *board_bundle_manifest(const struct bundle *bd, json_error_t *jerr);

/**
 * board_bundle_write() - @m as the manifest of @bd, then @bd to @out.
 * Return: 0 or a negative errno with @err set.
 */
int board_bundle_write(struct bundle *bd, json_t *m, const char *out,
		       struct rtlab_err *err) __must_check;

#endif
