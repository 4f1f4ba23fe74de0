// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bundle upload, spool and flush against a real HTTP server on loopback
 * (libmicrohttpd) answering 201, 200, 400 and 503, and against a closed
 * port.
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

struct req {
	size_t size;
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

static int rm_entry(const char *p, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(p);
}

int main(void)
{
	static const char bundle[] = "not really a bundle, the agent does not care";
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct rtlab_err e = { "" };
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;
	char url[128], closed[128], rejected[4096];
	unsigned int left = 0;
	int ret;

	if (!mkdtemp(spool)) {
		CHECK(0, "temporary spool: %s", strerror(errno));
		return check_exit();
	}
	snprintf(rejected, sizeof(rejected), "%s/rejected", spool);
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
	      !upload_url_valid("http://"), "URL validation");

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
				 sizeof(bundle), &e), 0,
		  "200 (already stored) counts as stored");

	answer_code = 400;
	answer_body = "{\"error\":\"manifest.json: missing field 'run_id'\"}";
	memset(&e, 0, sizeof(e));
	ret = upload_deliver(url, "tok123", spool, "run-b", bundle,
			     sizeof(bundle), &e);
	CHECK_INT(ret, -EBADMSG, "400: rejected");
	CHECK(strstr(e.msg, "HTTP 400") && strstr(e.msg, "missing field 'run_id'"),
	      "rejection carries the server's error (%s)", e.msg);
	CHECK_INT(count_files(rejected), 1, "rejected bundle kept in rejected/");
	CHECK_INT(count_files(spool), 0, "rejected bundle not spooled for retry");

	answer_code = 503;
	answer_body = "busy";
	CHECK_INT(upload_deliver(url, "tok123", spool, "run-c", bundle,
				 sizeof(bundle), &e), 0,
		  "503: spooled, not a failure");
	CHECK_INT(count_files(spool), 1, "503 bundle spooled");

	CHECK_INT(upload_deliver(closed, "tok123", spool, "run-d", bundle,
				 sizeof(bundle), &e), 0,
		  "closed port: spooled, not a failure");
	CHECK_INT(count_files(spool), 2, "both undelivered bundles spooled");

	ret = upload_flush(closed, "tok123", spool, &left, &e);
	CHECK(ret == -EAGAIN && left == 2,
	      "flush to a closed port leaves both (ret %d, left %u)", ret, left);

	answer_code = 201;
	answer_body = "{}";
	seen_posts = 0;
	ret = upload_flush(url, "tok123", spool, &left, &e);
	CHECK(ret == 0 && left == 0, "flush to a working server (ret %d, left %u)",
	      ret, left);
	CHECK_INT(seen_posts, 2, "flush posted each spooled bundle");
	CHECK_INT(count_files(spool), 0, "flushed bundles deleted");
	CHECK_INT(count_files(rejected), 1, "rejected bundles left alone");

	ret = upload_flush(url, "tok123", "/nonexistent/spool", &left, &e);
	CHECK(ret == 0 && left == 0, "flush of a spool that does not exist yet");

	MHD_stop_daemon(d);
	nftw(spool, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return check_exit();
}
