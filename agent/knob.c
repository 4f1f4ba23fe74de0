// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Board knobs: save, change and restore files under /sys, /proc and
 * tracefs, so a run leaves the board as it found it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "knob.h"

#define KNOB_MAX_SIZE 65536

void knob_list_init(struct knob_list *l)
{
	memset(l, 0, sizeof(*l));
}

void knob_list_cleanup(struct knob_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].orig);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

char *knob_read(const char *path)
{
	char *buf;
	ssize_t r;
	size_t len = 0;
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(KNOB_MAX_SIZE + 1);
	if (!buf) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	while (len < KNOB_MAX_SIZE) {
		r = read(fd, buf + len, KNOB_MAX_SIZE - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			saved = errno;
			free(buf);
			close(fd);
			errno = saved;
			return NULL;
		}
		if (!r)
			break;
		len += r;
	}
	close(fd);
	while (len && strchr(" \t\r\n", buf[len - 1]))
		len--;
	buf[len] = '\0';
	return buf;
}

int knob_write(const char *path, const char *value)
{
	size_t len = strlen(value), off = 0;
	ssize_t w;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off < len) {
		w = write(fd, value + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			ret = -errno;
			break;
		}
		off += w;
	}
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static struct knob *knob_find(struct knob_list *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].path, path))
			return &l->v[i];
	return NULL;
}

int knob_set(struct knob_list *l, const char *path, const char *value,
	     const char *orig, struct rtlab_err *err)
{
	struct knob *k = knob_find(l, path);
	int ret;

	if (!k) {
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 16;
			struct knob *v = realloc(l->v, cap * sizeof(*v));

			if (!v)
				return rtlab_err_seterr(err, ENOMEM,
							"%s: out of memory",
							path);
			l->v = v;
			l->cap = cap;
		}
		k = &l->v[l->n];
		memset(k, 0, sizeof(*k));
		k->path = strdup(path);
		k->orig = orig ? strdup(orig) : knob_read(path);
		if (!k->path || !k->orig) {
			ret = k->path && !orig ? -errno : -ENOMEM;
			free(k->path);
			free(k->orig);
			return rtlab_err_seterr(
				err, -ret,
				"%s: cannot save its value before changing it: %s",
				path, strerror(-ret));
		}
		l->n++;
	}
	k->changed = true;
	ret = knob_write(path, value);
	if (ret)
		return rtlab_err_seterr(err, -ret, "%s: cannot write '%s': %s",
					path, value, strerror(-ret));
	return 0;
}

int knob_restore_all(struct knob_list *l, struct rtlab_err *err)
{
	int ret, first = 0;
	size_t i;

	for (i = l->n; i-- > 0;) {
		struct knob *k = &l->v[i];

		if (!k->changed)
			continue;
		ret = knob_write(k->path, k->orig);
		if (ret && !first)
			first = rtlab_err_seterr(err, -ret,
						 "%s: cannot restore '%s': %s",
						 k->path, k->orig,
						 strerror(-ret));
		k->changed = false;
	}
	knob_list_cleanup(l);
	return first;
}
