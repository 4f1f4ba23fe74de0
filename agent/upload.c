// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bundle upload over HTTP (libcurl), the on-disk spool for bundles the
 * server could not take yet, and the flush that retries them: each bundle
 * on its own, so one the server refuses (quarantined with its answer) or
 * one that must wait (exponential backoff, recorded beside it) never keeps
 * the others from being delivered.
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
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "upload.h"

#define UPLOAD_CONNECT_TIMEOUT_S 10
#define UPLOAD_TIMEOUT_S 300
#define UPLOAD_REPLY_MAX 65536

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
	if (!msg) /* not JSON: its first line is enough */
		out[strcspn(out, "\r\n")] = '\0';
	json_decref(j);
}

int upload_post(const char *url, const char *token, const void *data,
		size_t size, enum upload_result *result,
		struct upload_answer *answer, struct rtlab_err *err)
{
	static struct reply reply;
	struct curl_slist *hdrs = NULL, *h;
	char auth[1024], msg[512];
	long code = 0;
	CURLcode rc;
	CURL *c;
	int ret = 0;

	*result = UPLOAD_RETRY;
	if (answer) {
		answer->http_code = 0;
		answer->body[0] = '\0';
	}
	if (!upload_url_valid(url))
		return rtlab_err_set(
			err, "--upload %s: expected an http:// or https:// URL",
			url);
	if (snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token) >=
	    (int)sizeof(auth))
		return rtlab_err_set(err, "--token: longer than %zu characters",
				     sizeof(auth) - 32);
	c = curl_easy_init();
	if (!c)
		return rtlab_err_seterr(err, ENOMEM,
					"%s: cannot set up libcurl", url);
	h = curl_slist_append(hdrs, auth);
	if (h)
		hdrs = h;
	h = h ? curl_slist_append(hdrs, "Content-Type: " UPLOAD_CONTENT_TYPE) :
		NULL;
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
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT,
			 (long)UPLOAD_CONNECT_TIMEOUT_S);
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
	if (answer) {
		answer->http_code = code;
		snprintf(answer->body, sizeof(answer->body), "%s", reply.buf);
	}
	if (code >= 200 && code < 300) {
		*result = UPLOAD_STORED;
	} else if (code >= 400 && code < 500 && code != 408 && code != 429) {
		/* the server refuses this bundle; 408 and 429 say "later" */
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

unsigned int upload_backoff_s(unsigned int attempts)
{
	unsigned int s = UPLOAD_BACKOFF_FIRST_S;

	while (attempts-- > 1 && s < UPLOAD_BACKOFF_MAX_S)
		s *= 2;
	return s < UPLOAD_BACKOFF_MAX_S ? s : UPLOAD_BACKOFF_MAX_S;
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
		ret = rtlab_err_seterr(err, errno, "%s: cannot create: %s", tmp,
				       strerror(errno));
		goto out;
	}
	while (off < size) {
		ssize_t w = write(fd, (const char *)data + off, size - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			ret = rtlab_err_seterr(err, errno, "%s: write: %s", tmp,
					       strerror(errno));
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

/* DIR/NAME.reply: what the server answered, for whoever looks into the
 * quarantine. */
static int write_reply(const char *dir, const char *name,
		       const struct upload_answer *ans,
		       const struct rtlab_err *why, struct rtlab_err *err)
{
	char *path = NULL, *text = NULL;
	int n, ret;

	n = asprintf(&text, "HTTP %ld\n%s\n%s%s", ans->http_code, why->msg,
		     ans->body,
		     *ans->body && ans->body[strlen(ans->body) - 1] != '\n' ?
			     "\n" :
			     "");
	if (n < 0 ||
	    asprintf(&path, "%s/%s" UPLOAD_REPLY_SUFFIX, dir, name) < 0) {
		if (n >= 0)
			free(text);
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	ret = write_file_atomic(path, text, (size_t)n, err);
	free(path);
	free(text);
	return ret;
}

int upload_deliver(const char *url, const char *token, const char *spool,
		   const char *name, const void *data, size_t size,
		   struct rtlab_err *err)
{
	struct rtlab_err why = { "" };
	struct upload_answer *ans;
	enum upload_result res;
	char *qdir = NULL, *path = NULL;
	int ret;

	ans = malloc(sizeof(*ans));
	if (!ans)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	ret = upload_post(url, token, data, size, &res, ans, &why);
	if (ret) {
		*err = why;
		free(ans);
		return ret;
	}
	if (res == UPLOAD_REJECTED) {
		if (asprintf(&qdir, "%s/" UPLOAD_QUARANTINE, spool) < 0) {
			free(ans);
			return rtlab_err_seterr(err, ENOMEM, "out of memory");
		}
		ret = upload_spool(qdir, name, data, size, &path, err);
		if (!ret)
			ret = write_reply(qdir, name, ans, &why, err);
		free(qdir);
		free(ans);
		if (ret) {
			free(path);
			return ret;
		}
		fprintf(stderr,
			"rtlab-agent: %s\nrtlab-agent: bundle quarantined at %s\n",
			why.msg, path);
		*err = why;
		free(path);
		return -EBADMSG;
	}
	free(ans);
	if (res == UPLOAD_STORED) {
		printf("rtlab-agent: run %s stored by %s\n", name, url);
		return 0;
	}
	ret = upload_spool(spool, name, data, size, &path, err);
	if (ret)
		return ret;
	printf("rtlab-agent: %s\nrtlab-agent: run %s spooled at %s; "
	       "`rtlab-agent flush` retries it\n",
	       why.msg, name, path);
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

/* The retry record beside a spooled bundle: "attempts N", "next_attempt
 * EPOCH" (and, for people, the time and the last error).  Absent: never
 * retried, due now. */
struct retry_state {
	unsigned int attempts;
	long long next_attempt;
};

static void retry_read(const char *path, struct retry_state *st)
{
	char line[256];
	FILE *f = fopen(path, "r");

	st->attempts = 0;
	st->next_attempt = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "attempts %u", &st->attempts) == 1)
			continue;
		sscanf(line, "next_attempt %lld", &st->next_attempt);
	}
	fclose(f);
}

static int retry_write(const char *path, const struct retry_state *st,
		       const char *why, struct rtlab_err *err)
{
	char when[CLOCK_ISO_SIZE], *text;
	int n, ret;

	clock_iso_utc(when, (time_t)st->next_attempt);
	n = asprintf(&text,
		     "attempts %u\nnext_attempt %lld\nnext_attempt_at %s\nlast_error %s\n",
		     st->attempts, st->next_attempt, when, why);
	if (n < 0)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	ret = write_file_atomic(path, text, (size_t)n, err);
	free(text);
	return ret;
}

/* Move SPOOL/FILE (NAME.bundle) to SPOOL/quarantine/ with NAME.reply. */
static int quarantine(const char *spool, const char *file,
		      const struct upload_answer *ans,
		      const struct rtlab_err *why, char **dst,
		      struct rtlab_err *err)
{
	char *qdir = NULL, *src = NULL, *name = NULL;
	int ret;

	*dst = NULL;
	name = strndup(file, strlen(file) - strlen(UPLOAD_BUNDLE_SUFFIX));
	if (!name || asprintf(&qdir, "%s/" UPLOAD_QUARANTINE, spool) < 0) {
		qdir = NULL;
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = mkdir_p(qdir, err);
	if (ret)
		goto out;
	ret = write_reply(qdir, name, ans, why, err);
	if (ret)
		goto out;
	if (asprintf(&src, "%s/%s", spool, file) < 0 ||
	    asprintf(dst, "%s/%s", qdir, file) < 0) {
		*dst = NULL;
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	if (rename(src, *dst))
		ret = rtlab_err_seterr(err, errno, "%s: cannot move to %s: %s",
				       src, *dst, strerror(errno));
out:
	if (ret) {
		free(*dst);
		*dst = NULL;
	}
	free(src);
	free(qdir);
	free(name);
	return ret;
}

/* One spooled bundle: 1 stored, 0 waits, -EBADMSG quarantined, or another
 * negative errno (it stays). */
static int flush_one(const char *url, const char *token, const char *spool,
		     const char *file, time_t now, struct upload_answer *ans,
		     struct rtlab_err *err)
{
	struct rtlab_err why = { "" };
	struct retry_state st;
	enum upload_result res;
	char *path = NULL, *rpath = NULL, *data = NULL, *dst = NULL;
	size_t size = 0;
	int ret;

	if (asprintf(&path, "%s/%s", spool, file) < 0)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	if (asprintf(&rpath, "%s" UPLOAD_RETRY_SUFFIX, path) < 0) {
		free(path);
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	retry_read(rpath, &st);
	if (now && st.next_attempt > (long long)now) {
		printf("rtlab-agent: %s: attempt %u is due in %lld s\n", path,
		       st.attempts + 1, st.next_attempt - (long long)now);
		ret = 0;
		goto out;
	}
	ret = read_whole(path, &data, &size, &why);
	if (!ret)
		ret = upload_post(url, token, data, size, &res, ans, &why);
	if (ret) {
		fprintf(stderr, "rtlab-agent: %s\n", why.msg);
		*err = why;
		goto out;
	}
	if (res == UPLOAD_STORED) {
		printf("rtlab-agent: %s stored by %s\n", path, url);
		if (unlink(path))
			fprintf(stderr, "rtlab-agent: %s: cannot delete: %s\n",
				path, strerror(errno));
		unlink(rpath);
		ret = 1;
	} else if (res == UPLOAD_REJECTED) {
		fprintf(stderr, "rtlab-agent: %s: %s\n", path, why.msg);
		ret = quarantine(spool, file, ans, &why, &dst, err);
		if (ret) {
			fprintf(stderr, "rtlab-agent: %s\n", err->msg);
			goto out;
		}
		unlink(rpath);
		fprintf(stderr,
			"rtlab-agent: quarantined at %s, the server's answer beside it\n",
			dst);
		*err = why;
		ret = -EBADMSG;
	} else {
		st.attempts++;
		st.next_attempt = (long long)(now ? now : time(NULL)) +
				  upload_backoff_s(st.attempts);
		fprintf(stderr,
			"rtlab-agent: %s: %s; attempt %u failed, next in %u s\n",
			path, why.msg, st.attempts,
			upload_backoff_s(st.attempts));
		*err = why;
		ret = retry_write(rpath, &st, why.msg, &why);
		if (ret)
			fprintf(stderr, "rtlab-agent: %s\n", why.msg);
		ret = 0;
	}
out:
	free(dst);
	free(data);
	free(rpath);
	free(path);
	return ret;
}

int upload_flush(const char *url, const char *token, const char *spool,
		 time_t now, unsigned int *left, struct rtlab_err *err)
{
	struct upload_answer *ans = NULL;
	struct dirent **list = NULL;
	bool waits = false, refused = false;
	int i, n, r, ret = 0;

	*left = 0;
	n = scandir(spool, &list, is_bundle, by_name);
	if (n < 0) {
		if (errno == ENOENT)
			return 0;
		return rtlab_err_seterr(err, errno, "spool directory %s: %s",
					spool, strerror(errno));
	}
	ans = malloc(sizeof(*ans));
	if (!ans) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	/* every bundle on its own: none waits for another */
	for (i = 0; i < n; i++) {
		r = flush_one(url, token, spool, list[i]->d_name, now, ans,
			      err);
		if (r == 1)
			continue;
		if (r == -EBADMSG) {
			refused = true;
			continue;
		}
		(*left)++;
		if (r == 0)
			waits = true;
		else if (!ret)
			ret = r;
	}
	if (!ret)
		ret = waits ? -EAGAIN : refused ? -EBADMSG : 0;
out:
	free(ans);
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return ret;
}
