// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HTTP side of `rtlab server`: a libmicrohttpd daemon with a thread
 * pool.  Each worker thread keeps one PostgreSQL connection of its own
 * (thread-local, reconnected when it breaks, closed when the thread ends).
 * Request bodies are collected up to the upload limit and then dropped, so
 * an oversized upload costs no memory.  The main thread only waits for
 * SIGINT/SIGTERM.  Every request ends in one log line on stderr.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../db/db.h"
#include "http.h"

struct http_server {
	const struct http_config *cfg;
	size_t max_body;
};

/* One connection per worker thread; libpq connections are not shared. */
static pthread_key_t db_key;
static pthread_once_t db_key_once = PTHREAD_ONCE_INIT;

static void db_key_destroy(void *p)
{
	db_disconnect(p);
}

static void db_key_create(void)
{
	if (pthread_key_create(&db_key, db_key_destroy))
		abort();
}

static PGconn *thread_db(struct rtlab_err *err)
{
	PGconn *c;

	pthread_once(&db_key_once, db_key_create);
	c = pthread_getspecific(db_key);
	if (c && PQstatus(c) == CONNECTION_OK &&
	    PQtransactionStatus(c) == PQTRANS_IDLE)
		return c;
	if (c) {
		/* Broken or left in a transaction: start afresh. */
		pthread_setspecific(db_key, NULL);
		db_disconnect(c);
	}
	c = db_connect(err);
	if (c)
		pthread_setspecific(db_key, c);
	return c;
}

const char *http_header(struct http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *http_query(struct http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND,
					   name);
}

enum MHD_Result http_respond(struct http_request *req, unsigned int status,
			     const char *content_type, const void *data,
			     size_t size, const char *extra_header,
			     const char *extra_value)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(size, (void *)data,
					    MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	if (extra_header && extra_value)
		MHD_add_response_header(r, extra_header, extra_value);
	ret = MHD_queue_response(req->conn, status, r);
	MHD_destroy_response(r);
	req->status = status;
	req->bytes = size;
	req->responded = true;
	return ret;
}

enum MHD_Result http_respond_json(struct http_request *req, unsigned int status,
				  json_t *j)
{
	enum MHD_Result ret;
	char *text;

	text = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	json_decref(j);
	if (!text) {
		static const char oom[] = "{\"error\":\"out of memory\"}";

		return http_respond(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
				    "application/json", oom, sizeof(oom) - 1,
				    NULL, NULL);
	}
	ret = http_respond(req, status, "application/json", text, strlen(text),
			   NULL, NULL);
	free(text);
	return ret;
}

enum MHD_Result http_respond_error(struct http_request *req,
				   unsigned int status, const char *fmt, ...)
{
	char msg[RTLAB_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return http_respond_json(req, status, json_pack("{ss}", "error", msg));
}

unsigned int http_errno_status(int ret)
{
	switch (ret) {
	case -ENOENT:
		return MHD_HTTP_NOT_FOUND;
	case -EINVAL:
		return MHD_HTTP_BAD_REQUEST;
	case -EACCES:
		return MHD_HTTP_FORBIDDEN;
	case -EXDEV:
		return MHD_HTTP_CONFLICT;
	case -EFBIG: /* beyond a limit of lib/run-limits.h */
		return MHD_HTTP_CONTENT_TOO_LARGE;
	default:
		return MHD_HTTP_INTERNAL_SERVER_ERROR;
	}
}

enum MHD_Result http_method_not_allowed(struct http_request *req,
					const char *allow)
{
	char msg[RTLAB_ERR_LEN], *text;
	enum MHD_Result r;
	json_t *j;

	snprintf(msg, sizeof(msg), "method %s not allowed on %s (allowed: %s)",
		 req->method, req->path, allow);
	j = json_pack("{ss}", "error", msg);
	text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!text)
		return MHD_NO;
	r = http_respond(req, MHD_HTTP_METHOD_NOT_ALLOWED, "application/json",
			 text, strlen(text), "Allow", allow);
	free(text);
	return r;
}

static bool is_get(const char *m)
{
	return !strcmp(m, "GET") || !strcmp(m, "HEAD");
}

/* The first handler of the table that answers @req's path. */
static enum MHD_Result dispatch_begin(const struct http_config *cfg,
				      struct http_request *req)
{
	size_t i;

	for (i = 0; i < cfg->nhandlers && !req->handler; i++)
		if (cfg->handlers[i].match(req->path))
			req->handler = &cfg->handlers[i];
	if (!req->handler)
		return http_respond_error(req, MHD_HTTP_NOT_FOUND,
					  "no such path: %s", req->path);
	if (req->handler->begin)
		return req->handler->begin(req);
	if (!is_get(req->method))
		return http_method_not_allowed(req, "GET, HEAD");
	return MHD_YES;
}

static enum MHD_Result dispatch(struct http_request *req)
{
	if (req->handler->needs_db && !req->db)
		return http_respond_error(req, MHD_HTTP_SERVICE_UNAVAILABLE,
					  "database unavailable: %s",
					  req->db_error);
	return req->handler->handle(req);
}

static void request_free(struct http_request *req)
{
	if (!req)
		return;
	free(req->path);
	free(req->body);
	free(req->board);
	free(req);
}

/* Keep at most max_body bytes; past that, remember and drop the rest. */
static void body_append(struct http_request *req, const char *data, size_t size)
{
	size_t need;

	if (req->too_large)
		return;
	need = req->body_len + size;
	if (need > req->max_body || need < size) {
		req->too_large = true;
		free(req->body);
		req->body = NULL;
		req->body_len = req->body_cap = 0;
		return;
	}
	if (need > req->body_cap) {
		size_t cap = req->body_cap ? req->body_cap : 64 << 10;
		char *nb;

		while (cap < need)
			cap *= 2;
		if (cap > req->max_body)
			cap = req->max_body;
		nb = realloc(req->body, cap);
		if (!nb) {
			/* Reported as a server error once the body is in. */
			req->too_large = true;
			req->max_body = 0;
			free(req->body);
			req->body = NULL;
			req->body_len = req->body_cap = 0;
			return;
		}
		req->body = nb;
		req->body_cap = cap;
	}
	memcpy(req->body + req->body_len, data, size);
	req->body_len += size;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct http_server *srv = cls;
	struct http_request *req = *con_cls;
	struct rtlab_err err = { "" };

	if (!req) {
		req = calloc(1, sizeof(*req));
		if (!req)
			return MHD_NO;
		clock_gettime(CLOCK_MONOTONIC, &req->start);
		req->conn = conn;
		req->method = method;
		req->path = strdup(url);
		req->max_body = srv->max_body;
		req->run_id = -1;
		req->board_id = -1;
		*con_cls = req;
		if (!req->path)
			return MHD_NO;
		req->db = thread_db(&err);
		if (!req->db)
			snprintf(req->db_error, sizeof(req->db_error), "%s",
				 err.msg);
		return dispatch_begin(srv->cfg, req);
	}
	if (*upload_data_size) {
		if (req->want_body && !req->responded)
			body_append(req, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (req->responded)
		return MHD_YES;
	return dispatch(req);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_server *srv = cls;
	struct http_request *req = *con_cls;
	struct timespec now;
	char stamp[32], run[32] = "-";
	struct tm tm;
	time_t t;
	double ms;

	if (!req)
		return;
	*con_cls = NULL;
	if (!srv->cfg->quiet) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (now.tv_sec - req->start.tv_sec) * 1e3 +
		     (now.tv_nsec - req->start.tv_nsec) / 1e6;
		t = time(NULL);
		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (req->run_id >= 0)
			snprintf(run, sizeof(run), "%lld",
				 (long long)req->run_id);
		/* One fprintf per line: stdio locks the stream for it. */
		fprintf(stderr, "%s %s %s %u %zuB %.1fms board=%s run=%s%s\n",
			stamp, req->method, req->path ? req->path : "?",
			req->responded ? req->status : 0, req->bytes, ms,
			req->board ? req->board : "-", run,
			toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ?
				"" :
				" (connection closed early)");
	}
	request_free(req);
}

/* "HOST:PORT" or "[V6]:PORT" into a socket address. */
static int parse_listen(const char *listen, struct sockaddr_storage *ss,
			socklen_t *len, struct rtlab_err *err)
{
	struct addrinfo hints = { 0 }, *ai = NULL;
	char host[256], *colon, *end;
	const char *port;
	long p;
	int rc;

	if (strlen(listen) >= sizeof(host))
		return rtlab_err_set(err, "--listen '%s': too long", listen);
	strcpy(host, listen);
	colon = strrchr(host, ':');
	if (!colon || colon == host)
		return rtlab_err_set(err,
				     "--listen '%s': expected HOST:PORT, "
				     "e.g. 127.0.0.1:8470",
				     listen);
	*colon = '\0';
	port = colon + 1;
	p = strtol(port, &end, 10);
	if (!*port || *end || p < 0 || p > 65535)
		return rtlab_err_set(err,
				     "--listen '%s': port must be a "
				     "number from 0 to 65535",
				     listen);
	if (host[0] == '[' && colon[-1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc)
		return rtlab_err_set(err, "--listen '%s': %s", listen,
				     gai_strerror(rc));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static void print_listening(struct MHD_Daemon *d,
			    const struct sockaddr_storage *ss)
{
	const union MHD_DaemonInfo *info;
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
			  host, sizeof(host));
	else
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)ss)->sin6_addr, host,
			  sizeof(host));
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	if (info)
		port = info->port;
	printf(ss->ss_family == AF_INET6 ?
		       "rtlab server: listening on [%s]:%u\n" :
		       "rtlab server: listening on %s:%u\n",
	       host, port);
	fflush(stdout);
}

int http_serve(const struct http_config *cfg, struct rtlab_err *err)
{
	struct http_server srv = { .cfg = cfg };
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	unsigned int threads = cfg->threads ? cfg->threads : 4;
	unsigned int flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_ERROR_LOG;
	sigset_t set, old;
	socklen_t len;
	int sig, ret;

	ret = parse_listen(cfg->listen, &ss, &len, err);
	if (ret)
		return ret;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	srv.max_body = (size_t)cfg->max_upload_mb << 20;

	/* Workers inherit the blocked mask; only sigwait() sees the signals. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);

	/* The port argument only feeds libmicrohttpd's own messages. */
	d = MHD_start_daemon(flags,
			     ntohs(ss.ss_family == AF_INET6 ?
					   ((struct sockaddr_in6 *)&ss)
						   ->sin6_port :
					   ((struct sockaddr_in *)&ss)
						   ->sin_port),
			     NULL, NULL, on_request, &srv, MHD_OPTION_SOCK_ADDR,
			     (struct sockaddr *)&ss,
			     MHD_OPTION_THREAD_POOL_SIZE, threads,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, &srv,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
			     MHD_OPTION_END);
	if (!d) {
		ret = rtlab_err_seterr(err, EADDRINUSE,
				       "cannot listen on %s (address in use "
				       "or not available)",
				       cfg->listen);
		goto out;
	}
	print_listening(d, &ss);
	while (sigwait(&set, &sig) == EINTR)
		;
	fprintf(stderr, "rtlab server: %s, stopping\n", strsignal(sig));
	MHD_stop_daemon(d);
	ret = 0;
out:
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}
