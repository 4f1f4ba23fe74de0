// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A lava-server's REST API (v0.2) for the lava board kind: submit a job
 * definition (POST /api/v0.2/jobs/, "Authorization: Token"), follow the
 * job (GET /api/v0.2/jobs/ID/) until it is Finished, fetch its log
 * (GET /api/v0.2/jobs/ID/logs/).  The server's failures (down, an HTTP
 * error) are infrastructure errors; a refused job names LAVA's reason.
 * Where the board asks for LAVA's notify callback, rtlab's server passes
 * it on through the database (db/db-lava.h) and the wait between polls,
 * much longer then, ends as soon as it comes.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "clock.h"
#include "fsutil.h"
#include "../db/db.h"
#include "../db/db-lava.h"
#include "lava.h"

#define LAVA_HTTP_TIMEOUT_S 60
#define LAVA_REPLY_MAX (256UL << 20)

struct reply {
	char *data;
	size_t len;
	bool overflow;
};

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;
	size_t add = size * n;
	char *nd;

	if (r->len + add > LAVA_REPLY_MAX) {
		r->overflow = true;
		return 0;
	}
	nd = realloc(r->data, r->len + add + 1);
	if (!nd)
		return 0;
	memcpy(nd + r->len, p, add);
	r->data = nd;
	r->len += add;
	r->data[r->len] = '\0';
	return add;
}

/* One call; *@http gets the status.  An error only when no answer came. */
static int call(const struct lava_conf *c, const char *board, const char *path,
		const char *post, struct reply *r, long *http,
		struct rtlab_err *err)
{
	struct curl_slist *hdr = NULL;
	char ebuf[CURL_ERROR_SIZE] = "", *url = NULL, *auth = NULL;
	size_t n = strlen(c->url);
	CURLcode rc;
	CURL *curl;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	*http = 0;
	while (n && c->url[n - 1] == '/')
		n--;
	if (asprintf(&url, "%.*s%s", (int)n, c->url, path) < 0)
		url = NULL;
	if (asprintf(&auth, "Authorization: Token %s", c->token) < 0)
		auth = NULL;
	curl = curl_easy_init();
	if (!url || !auth || !curl) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	hdr = curl_slist_append(hdr, auth);
	hdr = curl_slist_append(hdr, "Accept: application/json");
	if (post) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post);
	}
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)LAVA_HTTP_TIMEOUT_S);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 20L);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "rtlab");
	rc = curl_easy_perform(curl);
	if (rc != CURLE_OK) {
		ret = rtlab_err_seterr(err, EHOSTUNREACH,
				       "infrastructure error: board %s: LAVA "
				       "server %s: %s",
				       board, c->url,
				       r->overflow ? "answer too large" :
				       *ebuf	   ? ebuf :
						     curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, http);
out:
	if (ret) {
		free(r->data);
		memset(r, 0, sizeof(*r));
	}
	curl_slist_free_all(hdr);
	curl_easy_cleanup(curl);
	free(url);
	free(auth);
	return ret;
}

/* What LAVA said in an error answer: its "message" or "detail", else the
 * start of the body. */
static void reason(const struct reply *r, char *out, size_t size)
{
	json_error_t jerr;
	json_t *j = r->data ? json_loads(r->data, 0, &jerr) : NULL;
	const char *m = json_string_value(json_object_get(j, "message"));
	json_t *d;

	if (!m)
		m = json_string_value(json_object_get(j, "detail"));
	if (!m && (d = json_object_get(j, "definition")) && json_is_array(d))
		m = json_string_value(json_array_get(d, 0));
	snprintf(out, size, "%.300s", m ? m : r->data ? r->data : "");
	for (char *p = out; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	json_decref(j);
}

static int submit(const char *board, const struct lava_conf *c,
		  const char *definition, long *job_id, struct rtlab_err *err)
{
	json_t *body = json_pack("{s:s}", "definition", definition), *j, *ids;
	char *text = body ? json_dumps(body, 0) : NULL, why[320];
	struct reply r;
	json_error_t jerr;
	long http;
	int ret;

	json_decref(body);
	if (!text)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	ret = call(c, board, "/api/v0.2/jobs/", text, &r, &http, err);
	free(text);
	if (ret)
		return ret;
	reason(&r, why, sizeof(why));
	if (http == 401 || http == 403) {
		ret = rtlab_err_seterr(err, EACCES,
				       "board %s: LAVA server %s refused the "
				       "token (HTTP %ld: %s): check the "
				       "board's 'token'",
				       board, c->url, http, why);
	} else if (http >= 400 && http < 500) {
		ret = rtlab_err_seterr(err, EINVAL,
				       "board %s: LAVA server %s refused the "
				       "job (HTTP %ld): %s",
				       board, c->url, http, why);
	} else if (http < 200 || http >= 300) {
		ret = rtlab_err_seterr(err, EIO,
				       "infrastructure error: board %s: LAVA "
				       "server %s: HTTP %ld: %s",
				       board, c->url, http, why);
	} else {
		j = json_loads(r.data ? r.data : "", 0, &jerr);
		ids = json_object_get(j, "job_ids");
		if (json_is_integer(json_array_get(ids, 0)))
			*job_id = json_integer_value(json_array_get(ids, 0));
		else if (json_is_integer(json_object_get(j, "id")))
			*job_id = json_integer_value(json_object_get(j, "id"));
		else
			ret = rtlab_err_seterr(err, EIO,
					       "infrastructure error: board %s: "
					       "LAVA server %s: no job id in its "
					       "answer: %s",
					       board, c->url, why);
		json_decref(j);
	}
	free(r.data);
	return ret;
}

/*
 * A connection listening for LAVA's callbacks, or NULL (then the worker
 * polls at the usual pace): a callback is a shortcut, never needed.
 */
static PGconn *notify_listen(const char *board)
{
	struct rtlab_err err = { "" };
	PGconn *conn = db_connect(&err);

	if (conn && db_lava_listen(conn, &err)) {
		db_disconnect(conn);
		conn = NULL;
	}
	if (!conn)
		fprintf(stderr,
			"rtlab: board %s: not listening for LAVA's callback "
			"(%s): polling every %d s\n",
			board, err.msg, LAVA_POLL_S);
	return conn;
}

/* Until the next poll: LAVA_POLL_S, or with a listening @conn up to
 * LAVA_POLL_NOTIFY_S, cut short by the job's callback. */
static void poll_wait(PGconn **conn, const char *board, long job_id,
		      bool *notified)
{
	struct rtlab_err err = { "" };
	bool now = false;

	if (!*conn) {
		sleep(LAVA_POLL_S);
		return;
	}
	if (db_lava_wait(*conn, job_id, LAVA_POLL_NOTIFY_S * 1000, &now,
			 &err)) {
		fprintf(stderr,
			"rtlab: board %s: LAVA job %ld: %s: polling every "
			"%d s\n",
			board, job_id, err.msg, LAVA_POLL_S);
		db_disconnect(*conn);
		*conn = NULL;
	}
	if (now) {
		fprintf(stderr,
			"rtlab: board %s: LAVA job %ld: lava-server called "
			"back\n",
			board, job_id);
		*notified = true;
	}
}

int lava_server_run(const char *board, const struct lava_conf *c,
		    const char *job_path, const char *log_path,
		    unsigned int limit_s, long *job_id, bool *ran,
		    bool *notified, struct rtlab_err *err)
{
	PGconn *listen = NULL;
	char *definition = NULL, path[96], why[320], last[64] = "";
	const char *state, *health;
	double t0 = clock_mono_s();
	json_error_t jerr;
	struct reply r = { 0 };
	size_t len;
	json_t *j = NULL;
	long http;
	int ret;

	*job_id = 0;
	*ran = false;
	*notified = false;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	ret = file_read_all(job_path, &definition, &len, err);
	if (ret)
		return ret;
	/* before the job exists: no callback can come before we listen */
	if (c->notify_url)
		listen = notify_listen(board);
	ret = submit(board, c, definition, job_id, err);
	free(definition);
	if (ret)
		goto out;
	fprintf(stderr, "rtlab: board %s: LAVA job %ld submitted to %s\n",
		board, *job_id, c->url);
	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/", *job_id);
	for (;;) {
		ret = call(c, board, path, NULL, &r, &http, err);
		if (ret)
			goto out;
		json_decref(j);
		j = json_loads(r.data ? r.data : "", 0, &jerr);
		if (http != 200 || !json_is_object(j)) {
			reason(&r, why, sizeof(why));
			ret = rtlab_err_seterr(err, EIO,
					       "infrastructure error: board "
					       "%s: LAVA job %ld: HTTP %ld: "
					       "%s",
					       board, *job_id, http, why);
			goto out;
		}
		free(r.data);
		r.data = NULL;
		state = json_string_value(json_object_get(j, "state"));
		health = json_string_value(json_object_get(j, "health"));
		if (state && strcmp(state, last)) {
			fprintf(stderr, "rtlab: board %s: LAVA job %ld: %s\n",
				board, *job_id, state);
			snprintf(last, sizeof(last), "%s", state);
		}
		if (state && !strcmp(state, "Finished"))
			break;
		if (clock_mono_s() - t0 > limit_s) {
			snprintf(path, sizeof(path),
				 "/api/v0.2/jobs/%ld/cancel/", *job_id);
			if (!call(c, board, path, NULL, &r, &http, NULL))
				free(r.data);
			r.data = NULL;
			ret = rtlab_err_seterr(err, ETIMEDOUT,
					       "infrastructure error: board "
					       "%s: LAVA job %ld not finished "
					       "after %u s (state %s); "
					       "canceled",
					       board, *job_id, limit_s,
					       state ? state : "unknown");
			goto out;
		}
		poll_wait(&listen, board, *job_id, notified);
	}
	*ran = health &&
	       (!strcmp(health, "Complete") || !strcmp(health, "Incomplete"));
	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/logs/", *job_id);
	ret = call(c, board, path, NULL, &r, &http, err);
	if (ret)
		goto out;
	if (http != 200) {
		reason(&r, why, sizeof(why));
		ret = rtlab_err_seterr(err, EIO,
				       "infrastructure error: board %s: LAVA "
				       "job %ld: its log: HTTP %ld: %s",
				       board, *job_id, http, why);
	} else {
		ret = file_write_all(log_path, r.data ? r.data : "", r.len,
				     err);
	}
out:
	free(r.data);
	json_decref(j);
	db_disconnect(listen);
	return ret;
}
