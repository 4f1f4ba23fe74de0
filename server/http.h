/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_HTTP_H
#define RTLAB_HTTP_H

/*
 * The HTTP server of `rtlab server`: a libmicrohttpd daemon with a pool of
 * worker threads, each holding its own PostgreSQL connection (libpq
 * connections must not be shared between threads).  It receives request
 * bodies up to a limit, hands each request to the first handler of the
 * table it was given (struct http_handler) whose path matches, and logs
 * one line per request.  It knows no route itself.  The request and
 * response helpers here, with the one errno -> status mapping
 * (http_errno_status()), are what the handlers use to answer.
 *
 * It also holds the server's limits (docs/api.md, "Limits"): connections
 * in total and per client address, a deadline for a whole request that
 * trickled bytes do not extend, and two separate pools of threads — one
 * for uploads, one for slow work (plots, comparisons, spike analyses) —
 * that answer 503 when they are full, so the connection threads keep
 * answering everything else (/healthz, pages, lists) however busy those
 * are.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <microhttpd.h>

#include "error.h"
#include "role.h"

struct http_request;

/* The policy of the server's own pages: nothing inline, nothing foreign. */
#define HTTP_CSP_PAGE                                               \
	"default-src 'self'; base-uri 'none'; form-action 'self'; " \
	"frame-ancestors 'none'"
/* The policy of stored, board-supplied content: never active. */
#define HTTP_CSP_SANDBOX "default-src 'none'; sandbox"

/* Where a request's handler runs once the request is in. */
enum http_pool {
	HTTP_POOL_NONE,	  /* on the connection's thread: quick answers */
	HTTP_POOL_INGEST, /* the upload threads: check and store a bundle */
	HTTP_POOL_SLOW,	  /* plots, comparisons, spike analyses */
};

/*
 * One resource of the server: which paths it answers and how.  http.c
 * asks each handler of the table in order; the first whose match() is
 * true takes the request.
 */
struct http_handler {
	const char *name;
	bool (*match)(const char *path);
	/*
	 * Called once the headers are in: check the method, ask for the
	 * body (want_body), authenticate; answering here ends the request.
	 * NULL: only GET and HEAD are allowed.
	 */
	enum MHD_Result (*begin)(struct http_request *req);
	/* Called once the whole request is in and nobody answered yet. */
	enum MHD_Result (*handle)(struct http_request *req);
	/* Answer 503 "database unavailable" without a connection. */
	bool needs_db;
	/*
	 * Which threads run handle() for @method on @path: an upload's
	 * belong on the upload threads, slow work (a plot, a comparison, an
	 * analysis) on the slow-work threads.  NULL: the connection's own.
	 */
	enum http_pool (*pool)(const char *method, const char *path);
	/* Answers without a token even when reads need one (/healthz). */
	bool always_public;
};

struct http_config {
	const char *listen; /* "HOST:PORT", port 0: any free one */
	const struct http_handler *handlers; /* tried in order */
	size_t nhandlers;
	unsigned int max_upload_mb;	     /* largest request body accepted */
	unsigned int threads;		     /* worker threads (0: 4) */
	unsigned int max_connections;	     /* in total (0: 256) */
	unsigned int max_connections_per_ip; /* per client (0: none) */
	unsigned int request_timeout_s; /* whole request in by then (0: 60) */
	unsigned int slow_threads;	/* threads for slow work (0: 2) */
	unsigned int slow_queue;	/* slow requests waiting (0: none) */
	unsigned int ingest_threads;	/* threads for uploads (0: 4) */
	unsigned int ingest_queue;	/* uploads waiting (0: none) */
	bool quiet;			/* no request log */
	bool reads_need_token; /* every read needs a token of any role */
};

/* Defaults of the limits above, for `rtlab server --help` and docs. */
#define HTTP_DEFAULT_MAX_CONNECTIONS 256
#define HTTP_DEFAULT_MAX_CONNECTIONS_PER_IP 32
#define HTTP_DEFAULT_REQUEST_TIMEOUT_S 60
#define HTTP_DEFAULT_SLOW_THREADS 2
#define HTTP_DEFAULT_SLOW_QUEUE 8
#define HTTP_DEFAULT_INGEST_THREADS 4
#define HTTP_DEFAULT_INGEST_QUEUE 64
/* Seconds a connection may stay silent (waiting or being answered). */
#define HTTP_IDLE_TIMEOUT_S 30

/* One request, alive from its first header to its log line. */
struct http_request {
	struct MHD_Connection *conn;
	const char *method; /* owned by libmicrohttpd */
	char *path;	    /* URL path, without the query */
	struct timespec start;
	const struct http_handler *handler; /* NULL: none matched */
	PGconn *db; /* this thread's connection, may be NULL */
	char db_error[RTLAB_ERR_LEN]; /* why db is NULL */

	/* Upload */
	size_t max_body;
	bool want_body; /* the handler will read a body */
	bool too_large; /* body went past max_body */
	char *body;
	size_t body_len, body_cap;

	/* Who sent it (server/auth.c), for the handlers and the log line */
	bool auth_bare;	  /* the handler takes a bare token too
			   * ("Authorization: TOKEN", LAVA's callback) */
	bool authed;	  /* a valid token was checked */
	enum role role;	  /* its role */
	int token_id;	  /* its id */
	char *token_name; /* its name, malloc'd */
	char *board;	  /* a board token's board, malloc'd */
	int board_id;	  /* -1: not a board token */
	int64_t run_id;	  /* -1: none */
	unsigned int status;
	size_t bytes;
	bool responded;

	/* Work off the connection threads (private to http.c) */
	bool deferred;		      /* on a pool thread: keep the answer */
	struct MHD_Response *pending; /* the kept answer */
	struct http_request *next;    /* in a pool's queue */
};

/**
 * http_serve() - listen on @cfg->listen and answer requests until SIGINT
 * or SIGTERM arrives, then stop cleanly (in-flight requests finish).
 * Prints "rtlab server: listening on HOST:PORT" once ready.
 * Return: 0 after a signal, or a negative errno with @err saying why the
 * server could not start (bad address, port in use, ...).
 */
int http_serve(const struct http_config *cfg,
	       struct rtlab_err *err) __must_check;

/** http_header() - request header @name or NULL; owned by the request. */
const char *http_header(struct http_request *req, const char *name);

/** http_query() - query argument @name or NULL; owned by the request. */
const char *http_query(struct http_request *req, const char *name);

/**
 * http_query_uint() - query argument @name as a whole number from @min to
 * @max (lib/parse.h's rule).  An absent argument leaves *@out alone.
 * Return: 0; -EINVAL with @err "query 'NAME': expected a number from MIN
 * to MAX, got 'TEXT'".
 */
int http_query_uint(struct http_request *req, const char *name,
		    unsigned int min, unsigned int max, unsigned int *out,
		    struct rtlab_err *err) __must_check;

/**
 * http_want_json_body() - for a handler's begin(): the request will carry
 * a JSON body (a PUT or POST of the API), so collect it, refusing at once
 * one whose declared Content-Length is over the server's limit (413).
 * Return: what libmicrohttpd expects (MHD_YES to go on).
 */
enum MHD_Result http_want_json_body(struct http_request *req);

/**
 * http_body_json() - the request's body parsed as a JSON object.
 * Return: a new reference, or NULL with @err saying what was wrong ("body:
 * expected a JSON object: ... at line L column C").
 */
json_t *http_body_json(struct http_request *req, struct rtlab_err *err);

/**
 * http_respond() - queue a response of @size bytes of @data (copied).
 * @content_type: MIME type.  @extra_header/@extra_value: one more header,
 * may be NULL.  Every response gets X-Content-Type-Options: nosniff and
 * Referrer-Policy; HTML ones a Content-Security-Policy (HTTP_CSP_PAGE)
 * unless @extra_header is a Content-Security-Policy of its own.
 * Return: MHD_YES, or MHD_NO (libmicrohttpd then closes the connection).
 */
enum MHD_Result http_respond(struct http_request *req, unsigned int status,
			     const char *content_type, const void *data,
			     size_t size, const char *extra_header,
			     const char *extra_value);

/**
 * http_respond_stream() - queue a response of @size bytes that @read
 * produces as libmicrohttpd sends it (MHD_create_response_from_callback()
 * semantics), so a large body never sits in memory whole.  @free_cls is
 * called with @cls once the response is done, also when this fails.
 * @content_type and the one extra header as for http_respond().  Meant
 * for stored content, so it is sent with HTTP_CSP_SANDBOX.
 * Return: MHD_YES, or MHD_NO.
 */
enum MHD_Result http_respond_stream(struct http_request *req,
				    unsigned int status,
				    const char *content_type, uint64_t size,
				    MHD_ContentReaderCallback read, void *cls,
				    MHD_ContentReaderFreeCallback free_cls,
				    const char *extra_header,
				    const char *extra_value);

/**
 * http_thread_db() - the calling thread's database connection, connected
 * (again) when needed; for work done after the handler returned, such as
 * a streamed response's reader.  Return: the connection, owned by the
 * thread (never close it), or NULL with @err saying why.
 */
PGconn *http_thread_db(struct rtlab_err *err);

/** http_respond_json() - queue @j (reference stolen) as JSON. */
enum MHD_Result http_respond_json(struct http_request *req, unsigned int status,
				  json_t *j);

/**
 * http_take_body() - read @req's body, unless its Content-Length is over
 * the server's limit (max_upload_mb): then answer 413, naming @what ("upload",
 * "submission") and the limit.
 * Return: MHD_YES, or the 413's result; req->responded tells which.
 */
enum MHD_Result http_take_body(struct http_request *req, const char *what);

/** http_respond_error() - queue {"error": "MESSAGE"} with @status. */
enum MHD_Result http_respond_error(struct http_request *req,
				   unsigned int status, const char *fmt, ...)
	__printf(3, 4);

/**
 * http_errno_status() - the HTTP status of a negative errno returned by
 * the database or services layers: -ENOENT 404, -EINVAL 400, -EACCES 403,
 * -EXDEV 409 (a conflict between stored things), anything else 500.  The
 * one mapping of the server.
 */
unsigned int http_errno_status(int ret);

/**
 * http_method_not_allowed() - answer 405 with an Allow: @allow header
 * and {"error": "method M not allowed on PATH (allowed: @allow)"}.
 */
enum MHD_Result http_method_not_allowed(struct http_request *req,
					const char *allow);

#endif
