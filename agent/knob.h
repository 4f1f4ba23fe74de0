/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_KNOB_H
#define RTLAB_AGENT_KNOB_H

/*
 * The save/restore list of every board knob (tracefs, sysfs, procfs file)
 * the agent changes.  A knob's original value is saved before the first
 * write; knob_restore_all() writes the originals back in reverse order and
 * is called on every exit path of a run, signals included.
 */

#include <stdbool.h>
#include <stddef.h>
#include "error.h"

struct knob {
	char *path;
	char *orig;   /* what to write back */
	bool changed; /* written since saved */
};

struct knob_list {
	struct knob *v;
	size_t n, cap;
};

/** knob_list_init() - empty list; release with knob_list_cleanup(). */
void knob_list_init(struct knob_list *l);

/** knob_list_cleanup() - forget the list WITHOUT restoring; safe twice. */
void knob_list_cleanup(struct knob_list *l);

/**
 * knob_set() - save the current content of @path (first time only) and
 * write @value to it.  @orig, when not NULL, is what to restore instead of
 * the content read back (for files such as tracefs buffer_size_kb that
 * read differently from what they accept).
 * Return: 0 or a negative errno with @err naming the file.
 */
int knob_set(struct knob_list *l, const char *path, const char *value,
	     const char *orig, struct rtlab_err *err) __must_check;

/**
 * knob_restore_all() - write every changed knob's original value back,
 * newest first, and empty the list.  A failure does not stop the others.
 * Return: 0, or the first negative errno with @err naming its file.
 */
int knob_restore_all(struct knob_list *l, struct rtlab_err *err) __must_check;

/**
 * knob_read() - the content of @path with trailing whitespace removed.
 * Return: malloc'd string (caller frees) or NULL with errno set.
 */
char *knob_read(const char *path);

/** knob_write() - write @value to @path (truncating).  Return: 0, -errno. */
int knob_write(const char *path, const char *value) __must_check;

#endif
