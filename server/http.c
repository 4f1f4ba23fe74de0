// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HTTP side of `rtlab server`: a libmicrohttpd daemon with a thread
 * pool.  Each worker thread keeps one PostgreSQL connection of its own
 * (thread-local, reconnected when it breaks, closed when the thread ends).
 * Request bodies are collected up to the upload limit; an upload that
 * passes it is refused at once.  Uploads and slow handlers run on pools
 * of threads of their own (the connection is suspended meanwhile), each
 * behind a bounded queue,
 * a watchdog thread closes connections whose request is not in by the
 * deadline, and libmicrohttpd caps the connections.  The main thread only
 * waits for SIGINT/SIGTERM.  Every request ends in one log line on stderr.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../db/db.h"
#include "auth.h"
#include "http.h"
#include "parse.h"

/* A connection, watched for the request deadline. */
struct conn_watch {
	struct conn_watch *prev, *next;
	int fd;
	char addr[INET6_ADDRSTRLEN]; /* the client, for the log */
	struct timespec start;	     /* waiting for a request since */
	bool answering;		     /* the request is in */
	bool closed;		     /* shut down by the watchdog */
};

/* Work off the connection threads: a queue and the threads that empty it. */
struct work_pool {
	const char *what;      /* "upload", "slow-work": for messages */
	const char *busy_body; /* the 503's JSON */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct http_request *head, *tail;
	unsigned int busy; /* queued + running */
	unsigned int max;  /* threads + queue */
	bool stopping;
	pthread_t *threads;
	unsigned int nthreads;
};

struct http_server {
	const struct http_config *cfg;
	size_t max_body;
	unsigned int request_timeout_s;

	struct work_pool ingest, slow;

	/* The watchdog of the request deadline */
	pthread_mutex_t watch_lock;
	pthread_cond_t watch_wake;
	struct conn_watch *watched;
	bool watch_stop;
	pthread_t watchdog;
	bool watchdog_running;
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

PGconn *http_thread_db(struct rtlab_err *err)
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

int http_query_uint(struct http_request *req, const char *name,
		    unsigned int min, unsigned int max, unsigned int *out,
		    struct rtlab_err *err)
{
	const char *s = http_query(req, name);

	if (!s)
		return 0;
	if (parse_uint(s, min, max, out))
		return rtlab_err_set(err,
				     "query '%s': expected a number from %u "
				     "to %u, got '%s'",
				     name, min, max, s);
	return 0;
}

enum MHD_Result http_want_json_body(struct http_request *req)
{
	const char *cl = http_header(req, MHD_HTTP_HEADER_CONTENT_LENGTH);

	req->want_body = true;
	if (cl && strtoull(cl, NULL, 10) > req->max_body)
		return http_respond_error(req, MHD_HTTP_CONTENT_TOO_LARGE,
					  "body of %s bytes is larger than "
					  "the server's limit of %zu MB "
					  "(max_upload_mb)",
					  cl, req->max_body >> 20);
	return MHD_YES;
}

json_t *http_body_json(struct http_request *req, struct rtlab_err *err)
{
	json_error_t jerr;
	json_t *j;

	if (req->too_large) {
		rtlab_err_set(err, "body: larger than the server's limit");
		return NULL;
	}
	j = json_loadb(req->body ? req->body : "", req->body_len, 0, &jerr);
	if (!j) {
		rtlab_err_set(err,
			      "body: expected a JSON object: %s (line %d "
			      "column %d)",
			      jerr.text, jerr.line, jerr.column);
		return NULL;
	}
	if (!json_is_object(j)) {
		rtlab_err_set(err, "body: expected a JSON object");
		json_decref(j);
		return NULL;
	}
	return j;
}

/* The headers of every answer, then queue it (or keep it, on a slow
 * thread, for the connection's thread to queue once resumed). */
static enum MHD_Result respond_with(struct http_request *req,
				    unsigned int status, struct MHD_Response *r,
				    const char *content_type,
				    const char *extra_header,
				    const char *extra_value, size_t size)
{
	bool own_csp = extra_header &&
		       !strcasecmp(extra_header, "Content-Security-Policy");
	enum MHD_Result ret = MHD_YES;

	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				    content_type) == MHD_NO ||
	    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff") ==
		    MHD_NO ||
	    MHD_add_response_header(r, "Referrer-Policy", "same-origin") ==
		    MHD_NO ||
	    (!own_csp && !strncmp(content_type, "text/html", 9) &&
	     MHD_add_response_header(r, "Content-Security-Policy",
				     HTTP_CSP_PAGE) == MHD_NO) ||
	    (extra_header && extra_value &&
	     MHD_add_response_header(r, extra_header, extra_value) == MHD_NO)) {
		MHD_destroy_response(r);
		return MHD_NO;
	}
	if (req->deferred) {
		MHD_destroy_response(req->pending);
		req->pending = r;
	} else {
		ret = MHD_queue_response(req->conn, status, r);
		MHD_destroy_response(r);
	}
	req->status = status;
	req->bytes = size;
	req->responded = true;
	return ret;
}

enum MHD_Result http_take_body(struct http_request *req, const char *what)
{
	const char *cl = http_header(req, MHD_HTTP_HEADER_CONTENT_LENGTH);

	req->want_body = true;
	if (cl && strtoull(cl, NULL, 10) > req->max_body)
		return http_respond_error(
			req, MHD_HTTP_CONTENT_TOO_LARGE,
			"%s of %s bytes is larger than the server's limit of "
			"%zu MB (max_upload_mb)",
			what, cl, req->max_body >> 20);
	return MHD_YES;
}

enum MHD_Result http_respond(struct http_request *req, unsigned int status,
			     const char *content_type, const void *data,
			     size_t size, const char *extra_header,
			     const char *extra_value)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(size, (void *)data,
					    MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	return respond_with(req, status, r, content_type, extra_header,
			    extra_value, size);
}

enum MHD_Result http_respond_stream(struct http_request *req,
				    unsigned int status,
				    const char *content_type, uint64_t size,
				    MHD_ContentReaderCallback read, void *cls,
				    MHD_ContentReaderFreeCallback free_cls,
				    const char *extra_header,
				    const char *extra_value)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_callback(size, 64 << 10, read, cls,
					      free_cls);
	if (!r) {
		free_cls(cls);
		return MHD_NO;
	}
	if (MHD_add_response_header(r, "Content-Security-Policy",
				    HTTP_CSP_SANDBOX) == MHD_NO) {
		MHD_destroy_response(r);
		return MHD_NO;
	}
	return respond_with(req, status, r, content_type, extra_header,
			    extra_value, size);
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
	/* Closed reads: every read but the always-public ones needs a
	 * token; writes are each handler's own check. */
	if (cfg->reads_need_token && is_get(req->method) &&
	    !req->handler->always_public && !http_auth_require(req, ROLES_ANY))
		return MHD_YES;
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
	MHD_destroy_response(req->pending);
	free(req->path);
	free(req->body);
	free(req->board);
	free(req->token_name);
	free(req);
}

/* The watch of @conn's socket, or NULL. */
static struct conn_watch *conn_watch_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci;

	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/* The request is in (or answered early): the deadline no longer runs. */
static void watch_answering(struct http_server *srv,
			    struct MHD_Connection *conn, bool answering)
{
	struct conn_watch *w = conn_watch_of(conn);

	if (!w)
		return;
	pthread_mutex_lock(&srv->watch_lock);
	w->answering = answering;
	if (!answering)
		clock_gettime(CLOCK_MONOTONIC, &w->start);
	pthread_mutex_unlock(&srv->watch_lock);
}

/* The client's address as text, "?" when unknown. */
static void client_addr(struct MHD_Connection *conn, char *out, size_t size)
{
	const union MHD_ConnectionInfo *ci;
	const struct sockaddr *sa;

	snprintf(out, size, "?");
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	sa = ci ? ci->client_addr : NULL;
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
			  out, size);
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)sa)->sin6_addr, out,
			  size);
}

static void on_connection(void *cls, struct MHD_Connection *conn,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http_server *srv = cls;
	const union MHD_ConnectionInfo *ci;
	struct conn_watch *w;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(conn,
					     MHD_CONNECTION_INFO_CONNECTION_FD);
		w = ci ? calloc(1, sizeof(*w)) : NULL;
		*socket_context = w;
		if (!w)
			return; /* unwatched, the idle timeout still holds */
		w->fd = ci->connect_fd;
		client_addr(conn, w->addr, sizeof(w->addr));
		clock_gettime(CLOCK_MONOTONIC, &w->start);
		pthread_mutex_lock(&srv->watch_lock);
		w->next = srv->watched;
		if (w->next)
			w->next->prev = w;
		srv->watched = w;
		pthread_mutex_unlock(&srv->watch_lock);
		return;
	}
	w = *socket_context;
	if (!w)
		return;
	/* Off the list before libmicrohttpd closes the socket, so the
	 * watchdog never shuts down a descriptor reused by another. */
	pthread_mutex_lock(&srv->watch_lock);
	if (w->prev)
		w->prev->next = w->next;
	else
		srv->watched = w->next;
	if (w->next)
		w->next->prev = w->prev;
	pthread_mutex_unlock(&srv->watch_lock);
	free(w);
	*socket_context = NULL;
}

/*
 * The request deadline: libmicrohttpd's timeout is an idle one that every
 * trickled byte resets, so a connection that has not delivered its whole
 * request (headers and body) within request_timeout_s of starting to wait
 * for it is shut down here; libmicrohttpd then sees it end and cleans up.
 */
static void *watchdog_main(void *arg)
{
	struct http_server *srv = arg;
	struct timespec now, until;
	struct conn_watch *w;

	pthread_mutex_lock(&srv->watch_lock);
	while (!srv->watch_stop) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		for (w = srv->watched; w; w = w->next) {
			if (w->answering || w->closed ||
			    now.tv_sec - w->start.tv_sec <
				    (time_t)srv->request_timeout_s)
				continue;
			w->closed = true;
			shutdown(w->fd, SHUT_RDWR);
			if (!srv->cfg->quiet)
				fprintf(stderr,
					"rtlab server: closed the "
					"connection of %s: its request was not "
					"in after %u s (--request-timeout)\n",
					w->addr, srv->request_timeout_s);
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&srv->watch_wake, &srv->watch_lock,
				       &until);
	}
	pthread_mutex_unlock(&srv->watch_lock);
	return NULL;
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

/* A pool thread: take queued requests, answer them, resume them. */
static void *pool_main(void *arg)
{
	struct work_pool *p = arg;
	struct rtlab_err err = { "" };
	struct http_request *req;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->head && !p->stopping)
			pthread_cond_wait(&p->wake, &p->lock);
		req = p->head;
		if (!req)
			break;
		p->head = req->next;
		if (!p->head)
			p->tail = NULL;
		req->next = NULL;
		pthread_mutex_unlock(&p->lock);

		err.msg[0] = '\0';
		req->db = http_thread_db(&err);
		if (!req->db)
			snprintf(req->db_error, sizeof(req->db_error), "%s",
				 err.msg);
		if (p->stopping)
			http_respond_error(req, MHD_HTTP_SERVICE_UNAVAILABLE,
					   "the server is stopping");
		else
			dispatch(req);
		if (!req->pending)
			http_respond_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
					   "%s: no answer (out of memory?)",
					   req->path);
		req->db = NULL;

		pthread_mutex_lock(&p->lock);
		p->busy--;
		MHD_resume_connection(req->conn);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Hand @req to @p's threads, or answer 503 when they are all taken. */
static enum MHD_Result offload(struct work_pool *p, struct http_request *req)
{
	bool full;

	pthread_mutex_lock(&p->lock);
	full = p->stopping || p->busy >= p->max;
	if (!full) {
		p->busy++;
		req->deferred = true;
		MHD_suspend_connection(req->conn);
		if (p->tail)
			p->tail->next = req;
		else
			p->head = req;
		p->tail = req;
		pthread_cond_signal(&p->wake);
	}
	pthread_mutex_unlock(&p->lock);
	if (!full)
		return MHD_YES;
	return http_respond(req, MHD_HTTP_SERVICE_UNAVAILABLE,
			    "application/json", p->busy_body,
			    strlen(p->busy_body), "Retry-After", "5");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct http_server *srv = cls;
	struct http_request *req = *con_cls;
	struct rtlab_err err = { "" };
	enum MHD_Result r;

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
		req->db = http_thread_db(&err);
		if (!req->db)
			snprintf(req->db_error, sizeof(req->db_error), "%s",
				 err.msg);
		r = dispatch_begin(srv->cfg, req);
		if (req->responded)
			watch_answering(srv, conn, true);
		return r;
	}
	if (*upload_data_size) {
		if (req->want_body && !req->responded) {
			body_append(req, upload_data, *upload_data_size);
			/*
			 * libmicrohttpd cannot answer in the middle of a
			 * body: past the limit, close the connection now
			 * rather than read the rest (a declared
			 * Content-Length over it got its 413 before).
			 */
			if (req->too_large) {
				req->status = MHD_HTTP_CONTENT_TOO_LARGE;
				req->responded = true;
				return MHD_NO;
			}
		}
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (req->pending) {
		/* Back from a slow thread with its answer. */
		req->deferred = false;
		r = MHD_queue_response(conn, req->status, req->pending);
		MHD_destroy_response(req->pending);
		req->pending = NULL;
		return r;
	}
	if (req->responded)
		return MHD_YES;
	watch_answering(srv, conn, true);
	if (req->handler->pool && !req->deferred) {
		switch (req->handler->pool(req->method, req->path)) {
		case HTTP_POOL_INGEST:
			return offload(&srv->ingest, req);
		case HTTP_POOL_SLOW:
			return offload(&srv->slow, req);
		case HTTP_POOL_NONE:
			break;
		}
	}
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

	watch_answering(srv, conn, false);
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
		fprintf(stderr,
			"%s %s %s %u %zuB %.1fms token=%s board=%s run=%s%s\n",
			stamp, req->method, req->path ? req->path : "?",
			req->responded ? req->status : 0, req->bytes, ms,
			req->token_name ? req->token_name : "-",
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

static void pool_stop(struct work_pool *p)
{
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	p->nthreads = 0;
	free(p->threads);
	p->threads = NULL;
}

static int pool_start(struct work_pool *p, unsigned int threads,
		      unsigned int queue, struct rtlab_err *err)
{
	int rc;

	p->max = threads + queue;
	p->threads = calloc(threads, sizeof(*p->threads));
	if (!p->threads)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	for (; p->nthreads < threads; p->nthreads++) {
		rc = pthread_create(&p->threads[p->nthreads], NULL, pool_main,
				    p);
		if (rc)
			return rtlab_err_seterr(err, rc,
						"cannot start the %s threads: "
						"%s",
						p->what, strerror(rc));
	}
	return 0;
}

/* Stop the pools (their queues answered first) and the watchdog. */
static void workers_stop(struct http_server *srv)
{
	pool_stop(&srv->ingest);
	pool_stop(&srv->slow);
	if (srv->watchdog_running) {
		pthread_mutex_lock(&srv->watch_lock);
		srv->watch_stop = true;
		pthread_cond_signal(&srv->watch_wake);
		pthread_mutex_unlock(&srv->watch_lock);
		pthread_join(srv->watchdog, NULL);
		srv->watchdog_running = false;
	}
}

static int workers_start(struct http_server *srv, struct rtlab_err *err)
{
	const struct http_config *cfg = srv->cfg;
	int rc;

	rc = pool_start(&srv->ingest,
			cfg->ingest_threads ? cfg->ingest_threads :
					      HTTP_DEFAULT_INGEST_THREADS,
			cfg->ingest_queue, err);
	if (!rc)
		rc = pool_start(&srv->slow,
				cfg->slow_threads ? cfg->slow_threads :
						    HTTP_DEFAULT_SLOW_THREADS,
				cfg->slow_queue, err);
	if (rc)
		return rc;
	rc = pthread_create(&srv->watchdog, NULL, watchdog_main, srv);
	if (rc)
		return rtlab_err_seterr(err, rc,
					"cannot start the request "
					"watchdog: %s",
					strerror(rc));
	srv->watchdog_running = true;
	return 0;
}

int http_serve(const struct http_config *cfg, struct rtlab_err *err)
{
	struct http_server srv = {
		.cfg = cfg,
		.ingest = {
			.what = "upload",
			.busy_body = "{\"error\":\"busy: every upload slot "
				     "is taken; retry in a few seconds\"}",
			.lock = PTHREAD_MUTEX_INITIALIZER,
			.wake = PTHREAD_COND_INITIALIZER,
		},
		.slow = {
			.what = "slow-work",
			.busy_body = "{\"error\":\"busy: every slow-work slot "
				     "(plots, comparisons, spike analyses) is "
				     "taken; retry in a few seconds\"}",
			.lock = PTHREAD_MUTEX_INITIALIZER,
			.wake = PTHREAD_COND_INITIALIZER,
		},
		.watch_lock = PTHREAD_MUTEX_INITIALIZER,
	};
	struct sockaddr_storage ss;
	struct MHD_Daemon *d = NULL;
	unsigned int threads = cfg->threads ? cfg->threads : 4;
	unsigned int max_conn = cfg->max_connections ?
					cfg->max_connections :
					HTTP_DEFAULT_MAX_CONNECTIONS;
	unsigned int flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
	pthread_condattr_t ca;
	sigset_t set, old;
	socklen_t len;
	int sig, ret;

	ret = parse_listen(cfg->listen, &ss, &len, err);
	if (ret)
		return ret;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	srv.max_body = (size_t)cfg->max_upload_mb << 20;
	srv.request_timeout_s = cfg->request_timeout_s ?
					cfg->request_timeout_s :
					HTTP_DEFAULT_REQUEST_TIMEOUT_S;
	/* Each pool thread gets its share of the limit; at least one. */
	if (max_conn < threads)
		threads = max_conn;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_REALTIME);
	pthread_cond_init(&srv.watch_wake, &ca);
	pthread_condattr_destroy(&ca);

	/* Workers inherit the blocked mask; only sigwait() sees the signals. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);

	ret = workers_start(&srv, err);
	if (ret)
		goto out;
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
			     MHD_OPTION_NOTIFY_CONNECTION, on_connection, &srv,
			     MHD_OPTION_CONNECTION_TIMEOUT,
			     (unsigned int)HTTP_IDLE_TIMEOUT_S,
			     MHD_OPTION_CONNECTION_LIMIT, max_conn,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT,
			     cfg->max_connections_per_ip, MHD_OPTION_END);
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
	ret = 0;
out:
	/* Pooled requests are answered (and resumed) before the daemon goes. */
	workers_stop(&srv);
	if (d)
		MHD_stop_daemon(d);
	pthread_cond_destroy(&srv.watch_wake);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}
