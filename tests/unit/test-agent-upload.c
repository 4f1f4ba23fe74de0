// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bundle upload, spool and flush against a real HTTP server on loopback
 * (libmicrohttpd) answering 201, 200, 400, 429 and 503, and against a
 * closed port: quarantine with the server's answer, backoff with a
 * recorded next attempt (the tests pass the time, nothing sleeps), and a
 * flush that delivers the good bundles whatever fails before them.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/upload.h"
#include "check.h"

/* What the server answers next, and what it saw. */
static unsigned int answer_code = 201;
static const char *answer_body = "{\"run_id\":\"x\"}";
static char seen_auth[256], seen_type[128];
static size_t seen_size;
static unsigned int seen_posts;

/* A body starting with REFUSE is answered 400, BUSY 503 (while
 * busy_answer is set): the verdict belongs to the bundle, not the order. */
static int busy_answer = 1;

struct req {
	size_t size;
	char head[16];
};

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *data,
			      size_t *data_size, void **state)
{
	struct MHD_Response *resp;
	struct req *r = *state;
	const char *h;
	enum MHD_Result ret;

	if (!r) {
		r = calloc(1, sizeof(*r));
		*state = r;
		return r ? MHD_YES : MHD_NO;
	}
	if (*data_size) {
		if (r->size < sizeof(r->head) - 1)
			memcpy(r->head + r->size, data,
			       *data_size < sizeof(r->head) - 1 - r->size ?
				       *data_size :
				       sizeof(r->head) - 1 - r->size);
		r->size += *data_size;
		*data_size = 0;
		return MHD_YES;
	}
	h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_AUTHORIZATION);
	snprintf(seen_auth, sizeof(seen_auth), "%s", h ? h : "");
	h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_CONTENT_TYPE);
	snprintf(seen_type, sizeof(seen_type), "%s", h ? h : "");
	seen_size = r->size;
	seen_posts += !strcmp(method, "POST") && !strcmp(url, "/api/v1/runs");
	if (!strncmp(r->head, "REFUSE", 6)) {
		static const char no[] =
			"{\"error\":\"manifest.json: field 'testcase.name': 3000 bytes, more than the limit of 128\"}";

		resp = MHD_create_response_from_buffer(strlen(no), (void *)no,
						       MHD_RESPMEM_PERSISTENT);
		ret = MHD_queue_response(c, 400, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	if (!strncmp(r->head, "BUSY", 4) && busy_answer) {
		static const char busy[] =
			"{\"error\":\"database unavailable\"}";

		resp = MHD_create_response_from_buffer(strlen(busy),
						       (void *)busy,
						       MHD_RESPMEM_PERSISTENT);
		ret = MHD_queue_response(c, 503, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	resp = MHD_create_response_from_buffer(strlen(answer_body),
					       (void *)answer_body,
					       MHD_RESPMEM_PERSISTENT);
	ret = MHD_queue_response(c, answer_code, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void done(void *cls, struct MHD_Connection *c, void **state,
		 enum MHD_RequestTerminationCode toe)
{
	free(*state);
	*state = NULL;
}

static char spool[] = "/tmp/test-agent-upload.XXXXXX";

static int count_files(const char *dir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		n += !!strstr(d->d_name, UPLOAD_BUNDLE_SUFFIX);
	closedir(dp);
	return n;
}

/* A loopback port nobody listens on (bound, then released). */
static unsigned int closed_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	unsigned int port = 9;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    !getsockname(fd, (struct sockaddr *)&sa, &len))
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static int exists(const char *dir, const char *name)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !access(p, F_OK);
}

/* The first line of DIR/NAME holding @key, or "". */
static const char *file_line(const char *dir, const char *name, const char *key)
{
	static char line[4096];
	char p[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "r");
	line[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, key))
			break;
		line[0] = '\0';
	}
	if (f)
		fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return line;
}

static void spool_file(const char *name, const char *content)
{
	char p[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", spool, name);
	f = fopen(p, "w");
	if (f) {
		fputs(content, f);
		fclose(f);
	}
}

/* A 4xx bundle first, a 5xx one next, then two good ones: the good ones
 * are delivered, the refused one quarantined with the answer, the busy
 * one retried on its own schedule. */
static void test_flush_independent(const char *url)
{
	const time_t t0 = 1796267648;
	struct rtlab_err e = { "" };
	char q[4200];
	unsigned int left = 0;
	int ret;

	snprintf(q, sizeof(q), "%s/" UPLOAD_QUARANTINE, spool);
	answer_code = 201;
	answer_body = "{}";
	busy_answer = 1;
	spool_file("a-refused.bundle", "REFUSE this bundle");
	spool_file("b-busy.bundle", "BUSY this one");
	spool_file("c-good.bundle", "good one");
	spool_file("d-good.bundle", "good two");
	seen_posts = 0;
	ret = upload_flush(url, "tok123", spool, t0, &left, &e);
	CHECK(ret == -EAGAIN && left == 1,
	      "flush with 4xx, 5xx, good, good: one left to retry (ret %d, left %u)",
	      ret, left);
	CHECK_INT(seen_posts, 4,
		  "every bundle was tried, none waited for another");
	CHECK(!exists(spool, "c-good.bundle") &&
		      !exists(spool, "d-good.bundle"),
	      "the good bundles behind the failing ones are delivered");
	CHECK(!exists(spool, "a-refused.bundle") &&
		      exists(q, "a-refused.bundle"),
	      "the refused bundle is moved aside into quarantine/");
	CHECK_STR(file_line(q, "a-refused.reply", "HTTP"), "HTTP 400",
		  "... with the server's status beside it");
	CHECK(strstr(file_line(q, "a-refused.reply", "\"error\""),
		     "3000 bytes, more than the limit of 128") != NULL,
	      "... and its answer (%s)",
	      file_line(q, "a-refused.reply", "error"));
	CHECK(exists(spool, "b-busy.bundle"), "the 5xx bundle stays spooled");
	CHECK_STR(file_line(spool, "b-busy.bundle" UPLOAD_RETRY_SUFFIX,
			    "attempts"),
		  "attempts 1", "... its attempt is counted");
	CHECK_STR(file_line(spool, "b-busy.bundle" UPLOAD_RETRY_SUFFIX,
			    "next_attempt "),
		  "next_attempt 1796267678",
		  "... and its next attempt recorded (+30 s)");

	seen_posts = 0;
	ret = upload_flush(url, "tok123", spool, t0 + 29, &left, &e);
	CHECK(ret == -EAGAIN && left == 1 && seen_posts == 0,
	      "before its next attempt it is not tried (ret %d, left %u, posts %u)",
	      ret, left, seen_posts);
	ret = upload_flush(url, "tok123", spool, t0 + 30, &left, &e);
	CHECK(ret == -EAGAIN && left == 1 && seen_posts == 1,
	      "at its next attempt it is tried (ret %d, left %u, posts %u)",
	      ret, left, seen_posts);
	CHECK_STR(file_line(spool, "b-busy.bundle" UPLOAD_RETRY_SUFFIX,
			    "next_attempt "),
		  "next_attempt 1796267738",
		  "... and the backoff doubles (+60 s)");
	busy_answer = 0;
	seen_posts = 0;
	ret = upload_flush(url, "tok123", spool, t0 + 90, &left, &e);
	CHECK(ret == 0 && left == 0 && seen_posts == 1,
	      "once the server takes it, the spool is empty (ret %d, left %u)",
	      ret, left);
	CHECK(!exists(spool, "b-busy.bundle" UPLOAD_RETRY_SUFFIX),
	      "... and its retry record is gone");
	CHECK(exists(q, "a-refused.bundle"),
	      "the quarantined bundle is never retried");

	CHECK(upload_backoff_s(1) == 30 && upload_backoff_s(2) == 60 &&
		      upload_backoff_s(7) == 1920 &&
		      upload_backoff_s(8) == 3600 &&
		      upload_backoff_s(1000) == 3600,
	      "backoff: 30 s doubling, bounded by 1 h");
}

static int rm_entry(const char *p, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(p);
}

int main(void)
{
	static const char bundle[] =
		"not really a bundle, the agent does not care";
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct rtlab_err e = { "" };
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;
	char url[128], closed[128], rejected[4096], path[4200];
	unsigned int left = 0;
	int ret;

	if (!mkdtemp(spool)) {
		CHECK(0, "temporary spool: %s", strerror(errno));
		return check_exit();
	}
	snprintf(rejected, sizeof(rejected), "%s/" UPLOAD_QUARANTINE, spool);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
			     handle, NULL, MHD_OPTION_SOCK_ADDR, &sa,
			     MHD_OPTION_NOTIFY_COMPLETED, done, NULL,
			     MHD_OPTION_END);
	CHECK(d != NULL, "loopback HTTP server started");
	if (!d)
		return check_exit();
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/api/v1/runs",
		 info->port);
	snprintf(closed, sizeof(closed), "http://127.0.0.1:%u/api/v1/runs",
		 closed_port());

	CHECK(upload_url_valid(url) && !upload_url_valid("ftp://x") &&
		      !upload_url_valid("http://"),
	      "URL validation");

	ret = upload_deliver(url, "tok123", spool, "run-a", bundle,
			     sizeof(bundle), &e);
	CHECK_INT(ret, 0, "201: stored");
	CHECK_STR(seen_auth, "Bearer tok123", "bearer token sent");
	CHECK_STR(seen_type, UPLOAD_CONTENT_TYPE, "content type sent");
	CHECK_INT(seen_size, sizeof(bundle), "whole bundle sent");
	CHECK_INT(count_files(spool), 0, "nothing spooled after 201");

	answer_code = 200;
	answer_body = "{\"run_id\":\"x\",\"status\":\"already stored\"}";
	CHECK_INT(upload_deliver(url, "tok123", spool, "run-a", bundle,
				 sizeof(bundle), &e),
		  0, "200 (already stored) counts as stored");

	answer_code = 400;
	answer_body = "{\"error\":\"manifest.json: missing field 'run_id'\"}";
	memset(&e, 0, sizeof(e));
	ret = upload_deliver(url, "tok123", spool, "run-b", bundle,
			     sizeof(bundle), &e);
	CHECK_INT(ret, -EBADMSG, "400: rejected");
	CHECK(strstr(e.msg, "HTTP 400") &&
		      strstr(e.msg, "missing field 'run_id'"),
	      "rejection carries the server's error (%s)", e.msg);
	CHECK_INT(count_files(rejected), 1,
		  "rejected bundle kept in quarantine/");
	snprintf(path, sizeof(path), "%s/run-b" UPLOAD_REPLY_SUFFIX, rejected);
	CHECK(!access(path, F_OK) &&
		      !strcmp(file_line(rejected, "run-b" UPLOAD_REPLY_SUFFIX,
					"{"),
			      "{\"error\":\"manifest.json: missing field 'run_id'\"}"),
	      "the server's answer is kept beside it (%s)",
	      file_line(rejected, "run-b" UPLOAD_REPLY_SUFFIX, "{"));
	CHECK_INT(count_files(spool), 0,
		  "rejected bundle not spooled for retry");

	answer_code = 503;
	answer_body = "busy";
	CHECK_INT(upload_deliver(url, "tok123", spool, "run-c", bundle,
				 sizeof(bundle), &e),
		  0, "503: spooled, not a failure");
	CHECK_INT(count_files(spool), 1, "503 bundle spooled");

	CHECK_INT(upload_deliver(closed, "tok123", spool, "run-d", bundle,
				 sizeof(bundle), &e),
		  0, "closed port: spooled, not a failure");
	CHECK_INT(count_files(spool), 2, "both undelivered bundles spooled");

	answer_code = 429;
	answer_body = "{\"error\":\"slow down\"}";
	CHECK_INT(upload_deliver(url, "tok123", spool, "run-e", bundle,
				 sizeof(bundle), &e),
		  0, "429: spooled to retry, not quarantined");
	CHECK_INT(count_files(spool), 3, "429 bundle spooled");
	snprintf(path, sizeof(path), "%s/run-e.bundle", spool);
	unlink(path);

	ret = upload_flush(closed, "tok123", spool, time(NULL), &left, &e);
	CHECK(ret == -EAGAIN && left == 2,
	      "flush to a closed port leaves both (ret %d, left %u)", ret,
	      left);

	answer_code = 201;
	answer_body = "{}";
	seen_posts = 0;
	ret = upload_flush(url, "tok123", spool, time(NULL), &left, &e);
	CHECK(ret == -EAGAIN && left == 2 && seen_posts == 0,
	      "right after, both wait for their next attempt (posts %u)",
	      seen_posts);
	ret = upload_flush(url, "tok123", spool, 0, &left, &e);
	CHECK(ret == 0 && left == 0,
	      "flush to a working server (ret %d, left %u)", ret, left);
	CHECK_INT(seen_posts, 2, "flush posted each spooled bundle");
	CHECK_INT(count_files(spool), 0, "flushed bundles deleted");
	CHECK_INT(count_files(rejected), 1, "rejected bundles left alone");

	ret = upload_flush(url, "tok123", "/nonexistent/spool", 0, &left, &e);
	CHECK(ret == 0 && left == 0,
	      "flush of a spool that does not exist yet");

	test_flush_independent(url);

	MHD_stop_daemon(d);
	nftw(spool, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return check_exit();
}
