/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_YAMLMAP_H
#define RTLAB_YAMLMAP_H

/*
 * YAML, read one way: yaml_doc_load() for every document (testcases
 * included).  Flat definition files (kernels/NAME.yaml, boards/NAME.yaml)
 * are a mapping of scalar keys to scalar values; the ymap helpers check
 * keys against a list and convert values, each complaint naming the file,
 * the line and the field.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#include "error.h"

/**
 * yaml_doc_load() - the one way rtlab reads a YAML document: from @f when
 * not NULL, else from @len bytes of @text.  @path names the source in
 * errors ("PATH:LINE: not valid YAML: WHY").
 * Return: 0 with @doc loaded (caller yaml_document_delete()s it), or
 * -EINVAL/-ENOMEM with @err set.
 */
int yaml_doc_load(const char *path, FILE *f, const char *text, size_t len,
		  yaml_document_t *doc, struct rtlab_err *err) __must_check;

struct ymap_entry {
	char *key;
	char *value;
	unsigned long line; /* 1-based */
	bool used;
};

struct ymap {
	char *path;
	size_t n;
	struct ymap_entry *e;
};

/**
 * ymap_load() - read @path, whose document must be a mapping whose values
 * are all scalars.  Return: 0 or a negative errno with @err naming the file
 * and line.  Release with ymap_cleanup().
 */
int ymap_load(const char *path, struct ymap *m,
	      struct rtlab_err *err) __must_check;

/** ymap_cleanup() - free what ymap_load() filled; safe twice. */
void ymap_cleanup(struct ymap *m);

/** ymap_get() - the entry for @key (marks it used), or NULL. */
struct ymap_entry *ymap_get(struct ymap *m, const char *key);

/**
 * ymap_str() - strdup of @key's value into *@out (NULL when absent).
 * Return: 0; -EINVAL when @required and absent or empty; -ENOMEM.
 */
int ymap_str(struct ymap *m, const char *key, bool required, char **out,
	     struct rtlab_err *err) __must_check;

/**
 * ymap_uint() - @key's value as an unsigned integer in [@min, @max]; *@out
 * is left alone when the key is absent.  Return: 0 or -EINVAL.
 */
int ymap_uint(struct ymap *m, const char *key, unsigned long min,
	      unsigned long max, unsigned long *out,
	      struct rtlab_err *err) __must_check;

/**
 * ymap_unused() - -EINVAL naming the first key no ymap_get() asked for,
 * with the keys that are known (@known, a comma-separated list).
 */
int ymap_unused(const struct ymap *m, const char *known,
		struct rtlab_err *err) __must_check;

#endif
