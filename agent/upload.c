// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bundle upload over HTTP (libcurl), the on-disk spool for bundles the
 * server could not take yet, and the flush that retries them.
 */
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upload.h"

#define UPLOAD_CONNECT_TIMEOUT_S	10
#define UPLOAD_TIMEOUT_S		300
#define UPLOAD_REPLY_MAX		65536

struct reply {
	char buf[UPLOAD_REPLY_MAX];
	size_t len;
};

static size_t reply_write(char *ptr, size_t size, size_t nmemb, void *ctx)
{
	struct reply *r = ctx;
	size_t n = size * nmemb, room = sizeof(r->buf) - 1 - r->len;

	memcpy(r->buf + r->len, ptr, n < room ? n : room);
	r->len += n < room ? n : room;
	r->buf[r->len] = '\0';
	return n;
}

/* The server's {"error": "..."} (or Bugzilla-style "message"), else the
 * start of the body. */
static void reply_message(const struct reply *r, char *out, size_t size)
{
	json_t *j = json_loadb(r->buf, r->len, 0, NULL);
	const char *msg = NULL;

	if (json_is_object(j)) {
		msg = json_string_value(json_object_get(j, "error"));
		if (!msg)
			msg = json_string_value(json_object_get(j, "message"));
	}
	snprintf(out, size, "%s", msg ? msg : r->buf);
	if (!msg)	/* not JSON: its first line is enough */
		out[strcspn(out, "\r\n")] = '\0';
	json_decref(j);
}

int upload_post(const char *url, const char *token, const void *data,
		size_t size, enum upload_result *result,
		struct rtlab_err *err)
{
	static struct reply reply;
	struct curl_slist *hdrs = NULL, *h;
	char auth[1024], msg[512];
	long code = 0;
	CURLcode rc;
	CURL *c;
	int ret = 0;

	*result = UPLOAD_RETRY;
	if (!upload_url_valid(url))
		return rtlab_err_set(err, "--upload %s: expected an http:// or https:// URL",
				     url);
	if (snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		     token) >= (int)sizeof(auth))
		return rtlab_err_set(err, "--token: longer than %zu characters",
				     sizeof(auth) - 32);
	c = curl_easy_init();
	if (!c)
		return rtlab_err_seterr(err, ENOMEM, "%s: cannot set up libcurl",
					url);
	h = curl_slist_append(hdrs, auth);
	if (h)
		hdrs = h;
	h = h ? curl_slist_append(hdrs, "Content-Type: " UPLOAD_CONTENT_TYPE) : NULL;
	if (h)
		hdrs = h;
	h = h ? curl_slist_append(hdrs, "Expect:") : NULL;
	if (!h) {
		ret = rtlab_err_seterr(err, ENOMEM, "%s: out of memory", url);
		goto out;
	}
	hdrs = h;
	reply.len = 0;
	reply.buf[0] = '\0';
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, data);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)size);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)UPLOAD_CONNECT_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)UPLOAD_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, reply_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "rtlab-agent");
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		rtlab_err_set(err, "POST %s: %s", url, curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	reply_message(&reply, msg, sizeof(msg));
	if (code >= 200 && code < 300) {
		*result = UPLOAD_STORED;
	} else if (code >= 400 && code < 500) {
		*result = UPLOAD_REJECTED;
		rtlab_err_set(err, "POST %s: rejected with HTTP %ld: %s", url,
			      code, *msg ? msg : "(no message)");
	} else {
		rtlab_err_set(err, "POST %s: HTTP %ld: %s", url, code,
			      *msg ? msg : "(no message)");
	}
out:
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	return ret;
}

bool upload_url_valid(const char *url)
{
	return url && ((!strncmp(url, "http://", 7) && url[7]) ||
		       (!strncmp(url, "https://", 8) && url[8]));
}

const char *upload_spool_dir(const char *opt)
{
	const char *env = getenv("RTLAB_SPOOL");

	if (opt && *opt)
		return opt;
	return env && *env ? env : UPLOAD_DEFAULT_SPOOL;
}

static int mkdir_p(const char *dir, struct rtlab_err *err)
{
	char *p = strdup(dir), *s;
	int ret = 0;

	if (!p)
		return rtlab_err_seterr(err, ENOMEM, "%s: out of memory", dir);
	for (s = p + 1;; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0750) && errno != EEXIST) {
			ret = rtlab_err_seterr(err, errno,
					       "spool directory %s: %s", p,
					       strerror(errno));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

static int write_file_atomic(const char *path, const void *data, size_t size,
			     struct rtlab_err *err)
{
	char *tmp;
	size_t off = 0;
	int fd, ret = 0;

	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0) {
		ret = rtlab_err_seterr(err, errno, "%s: cannot create: %s",
				       tmp, strerror(errno));
		goto out;
	}
	while (off < size) {
		ssize_t w = write(fd, (const char *)data + off, size - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			ret = rtlab_err_seterr(err, errno, "%s: write: %s",
					       tmp, strerror(errno));
			break;
		}
		off += w;
	}
	if (!ret && fsync(fd))
		ret = rtlab_err_seterr(err, errno, "%s: fsync: %s", tmp,
				       strerror(errno));
	close(fd);
	if (!ret && rename(tmp, path))
		ret = rtlab_err_seterr(err, errno, "%s: rename to %s: %s", tmp,
				       path, strerror(errno));
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	return ret;
}

int upload_spool(const char *dir, const char *name, const void *data,
		 size_t size, char **path, struct rtlab_err *err)
{
	char *p;
	int ret;

	if (path)
		*path = NULL;
	ret = mkdir_p(dir, err);
	if (ret)
		return ret;
	if (asprintf(&p, "%s/%s%s", dir, name, UPLOAD_BUNDLE_SUFFIX) < 0)
		return rtlab_err_seterr(err, ENOMEM, "%s: out of memory", dir);
	ret = write_file_atomic(p, data, size, err);
	if (!ret && path)
		*path = p;
	else
		free(p);
	return ret;
}

int upload_deliver(const char *url, const char *token, const char *spool,
		   const char *name, const void *data, size_t size,
		   struct rtlab_err *err)
{
	struct rtlab_err why = { "" };
	enum upload_result res;
	char *rejected = NULL, *path = NULL;
	int ret;

	ret = upload_post(url, token, data, size, &res, &why);
	if (ret) {
		*err = why;
		return ret;
	}
	if (res == UPLOAD_STORED) {
		printf("rtlab-agent: run %s stored by %s\n", name, url);
		return 0;
	}
	if (res == UPLOAD_REJECTED) {
		if (asprintf(&rejected, "%s/rejected", spool) < 0)
			return rtlab_err_seterr(err, ENOMEM, "out of memory");
		ret = upload_spool(rejected, name, data, size, &path, err);
		free(rejected);
		if (ret)
			return ret;
		fprintf(stderr, "rtlab-agent: %s\nrtlab-agent: bundle kept at %s\n",
			why.msg, path);
		*err = why;
		free(path);
		return -EBADMSG;
	}
	ret = upload_spool(spool, name, data, size, &path, err);
	if (ret)
		return ret;
	printf("rtlab-agent: %s\nrtlab-agent: run %s spooled at %s; "
	       "`rtlab-agent flush` retries it\n", why.msg, name, path);
	free(path);
	return 0;
}

static int read_whole(const char *path, char **data, size_t *size,
		      struct rtlab_err *err)
{
	struct stat st;
	ssize_t r;
	size_t off = 0;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rtlab_err_seterr(err, errno, "%s: %s", path,
					strerror(errno));
	if (fstat(fd, &st)) {
		ret = rtlab_err_seterr(err, errno, "%s: %s", path,
				       strerror(errno));
		goto out;
	}
	*data = malloc(st.st_size ? st.st_size : 1);
	if (!*data) {
		ret = rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	while (off < (size_t)st.st_size) {
		r = read(fd, *data + off, st.st_size - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = rtlab_err_seterr(err, r ? errno : EIO,
					       "%s: short read", path);
			free(*data);
			*data = NULL;
			goto out;
		}
		off += r;
	}
	*size = off;
out:
	close(fd);
	return ret;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_bundle(const struct dirent *d)
{
	size_t n = strlen(d->d_name), s = strlen(UPLOAD_BUNDLE_SUFFIX);

	return d->d_name[0] != '.' && n > s &&
	       !strcmp(d->d_name + n - s, UPLOAD_BUNDLE_SUFFIX);
}

int upload_flush(const char *url, const char *token, const char *spool,
		 unsigned int *left, struct rtlab_err *err)
{
	struct dirent **list = NULL;
	int i, n, ret = 0;

	*left = 0;
	n = scandir(spool, &list, is_bundle, by_name);
	if (n < 0) {
		if (errno == ENOENT)
			return 0;
		return rtlab_err_seterr(err, errno, "spool directory %s: %s",
					spool, strerror(errno));
	}
	for (i = 0; i < n; i++) {
		struct rtlab_err why = { "" };
		enum upload_result res = UPLOAD_RETRY;
		char *path = NULL, *data = NULL, *dst = NULL;
		size_t size = 0;
		int r;

		if (ret == -EAGAIN) {
			(*left)++;
			continue;
		}
		if (asprintf(&path, "%s/%s", spool, list[i]->d_name) < 0) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			break;
		}
		r = read_whole(path, &data, &size, &why);
		if (!r)
			r = upload_post(url, token, data, size, &res, &why);
		if (r) {
			fprintf(stderr, "rtlab-agent: %s\n", why.msg);
			(*left)++;
			*err = why;
			ret = r;
		} else if (res == UPLOAD_STORED) {
			printf("rtlab-agent: %s stored by %s\n", path, url);
			if (unlink(path))
				fprintf(stderr, "rtlab-agent: %s: cannot delete: %s\n",
					path, strerror(errno));
		} else if (res == UPLOAD_REJECTED) {
			fprintf(stderr, "rtlab-agent: %s: %s\n", path, why.msg);
			if (asprintf(&dst, "%s/rejected", spool) >= 0) {
				if (!mkdir_p(dst, NULL)) {
					free(dst);
					if (asprintf(&dst, "%s/rejected/%s", spool,
						     list[i]->d_name) < 0)
						dst = NULL;
					if (dst && !rename(path, dst))
						fprintf(stderr, "rtlab-agent: kept at %s\n",
							dst);
				}
				free(dst);
			}
			*err = why;
			if (!ret)
				ret = -EBADMSG;
		} else {
			fprintf(stderr, "rtlab-agent: %s: %s; left spooled\n",
				path, why.msg);
			(*left)++;
			*err = why;
			ret = -EAGAIN;
		}
		free(data);
		free(path);
	}
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return ret;
}
