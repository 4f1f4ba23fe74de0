// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reader for the flat YAML files that define kernels and boards: one
 * mapping of scalars, loaded through libyaml's document API, with
 * conversions whose errors name file, line and field.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "yamlmap.h"

void ymap_cleanup(struct ymap *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->e[i].key);
		free(m->e[i].value);
	}
	free(m->e);
	free(m->path);
	m->e = NULL;
	m->path = NULL;
	m->n = 0;
}

static int ymap_fill(struct ymap *m, yaml_document_t *doc,
		     struct rtlab_err *err)
{
	yaml_node_t *root = yaml_document_get_root_node(doc);
	yaml_node_pair_t *p;
	size_t i, cap;

	if (!root)
		return rtlab_err_set(err,
				     "%s: empty file, expected a mapping "
				     "of keys to values",
				     m->path);
	if (root->type != YAML_MAPPING_NODE)
		return rtlab_err_set(err,
				     "%s: line %lu: expected a mapping of "
				     "keys to values",
				     m->path,
				     (unsigned long)root->start_mark.line + 1);
	cap = root->data.mapping.pairs.top - root->data.mapping.pairs.start;
	m->e = calloc(cap ? cap : 1, sizeof(*m->e));
	if (!m->e)
		return -ENOMEM;
	for (p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		unsigned long line = k ? k->start_mark.line + 1 : 0;
		struct ymap_entry *e;

		if (!k || k->type != YAML_SCALAR_NODE)
			return rtlab_err_set(err,
					     "%s: line %lu: expected a "
					     "plain key",
					     m->path, line);
		for (i = 0; i < m->n; i++)
			if (!strcmp(m->e[i].key,
				    (const char *)k->data.scalar.value))
				return rtlab_err_set(err,
						     "%s: line %lu: key "
						     "'%s' given twice",
						     m->path, line,
						     m->e[i].key);
		if (!v || v->type != YAML_SCALAR_NODE)
			return rtlab_err_set(err,
					     "%s: line %lu: field '%s': "
					     "expected a single value",
					     m->path, line,
					     (char *)k->data.scalar.value);
		e = &m->e[m->n];
		e->key = strdup((const char *)k->data.scalar.value);
		e->value = strdup((const char *)v->data.scalar.value);
		e->line = line;
		if (!e->key || !e->value) {
			free(e->key);
			free(e->value);
			return -ENOMEM;
		}
		m->n++;
	}
	return 0;
}

int yaml_doc_load(const char *path, FILE *f, const char *text, size_t len,
		  yaml_document_t *doc, struct rtlab_err *err)
{
	yaml_parser_t parser;
	int ret = 0;

	if (!yaml_parser_initialize(&parser))
		return rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
	if (f)
		yaml_parser_set_input_file(&parser, f);
	else
		yaml_parser_set_input_string(&parser,
					     (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, doc))
		ret = rtlab_err_set(err, "%s:%lu: not valid YAML: %s", path,
				    (unsigned long)parser.problem_mark.line + 1,
				    parser.problem ? parser.problem : "?");
	yaml_parser_delete(&parser);
	return ret;
}

int ymap_load(const char *path, struct ymap *m, struct rtlab_err *err)
{
	yaml_document_t doc;
	FILE *f;
	int ret;

	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return -ENOMEM;
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		rtlab_err_seterr(err, -ret, "%s: cannot open: %s", path,
				 strerror(-ret));
		goto out_free;
	}
	ret = yaml_doc_load(path, f, NULL, 0, &doc, err);
	if (ret)
		goto out_close;
	ret = ymap_fill(m, &doc, err);
	yaml_document_delete(&doc);
out_close:
	fclose(f);
out_free:
	if (ret)
		ymap_cleanup(m);
	return ret;
}

struct ymap_entry *ymap_get(struct ymap *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->e[i].key, key)) {
			m->e[i].used = true;
			return &m->e[i];
		}
	return NULL;
}

int ymap_str(struct ymap *m, const char *key, bool required, char **out,
	     struct rtlab_err *err)
{
	struct ymap_entry *e = ymap_get(m, key);

	*out = NULL;
	if (!e || !*e->value) {
		if (!required)
			return 0;
		if (e)
			return rtlab_err_set(err,
					     "%s: line %lu: field '%s' "
					     "is empty",
					     m->path, e->line, key);
		return rtlab_err_set(err, "%s: missing field '%s'", m->path,
				     key);
	}
	*out = strdup(e->value);
	return *out ? 0 : -ENOMEM;
}

int ymap_uint(struct ymap *m, const char *key, unsigned long min,
	      unsigned long max, unsigned long *out, struct rtlab_err *err)
{
	struct ymap_entry *e = ymap_get(m, key);
	unsigned long v;
	char *end;

	if (!e)
		return 0;
	errno = 0;
	v = strtoul(e->value, &end, 10);
	if (errno || end == e->value || *end || e->value[0] == '-')
		return rtlab_err_set(err,
				     "%s: line %lu: field '%s': expected "
				     "a whole number, got '%s'",
				     m->path, e->line, key, e->value);
	if (v < min || v > max)
		return rtlab_err_set(err,
				     "%s: line %lu: field '%s': %lu is "
				     "out of range (expected %lu..%lu)",
				     m->path, e->line, key, v, min, max);
	*out = v;
	return 0;
}

int ymap_unused(const struct ymap *m, const char *known, struct rtlab_err *err)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!m->e[i].used)
			return rtlab_err_set(err,
					     "%s: line %lu: unknown field "
					     "'%s' (known: %s)",
					     m->path, m->e[i].line, m->e[i].key,
					     known);
	return 0;
}
