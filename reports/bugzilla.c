// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Filing to a Bugzilla 5 over its REST API with libcurl and jansson: the
 * version, the custom fields a server offers (so a report never sends a
 * field or value the server would refuse), creating a bug and adding its
 * attachments.  Follows what real 5.0/5.2 servers do, not only the docs.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "bugzilla.h"

#define BZ_MAX_REPLY (16u << 20)

struct buf {
	char *data;
	size_t len;
	bool too_big;
};

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct buf *b = arg;
	size_t len = size * n;
	char *more;

	if (b->len + len > BZ_MAX_REPLY) {
		b->too_big = true;
		return 0;
	}
	more = realloc(b->data, b->len + len + 1);
	if (!more)
		return 0;
	memcpy(more + b->len, p, len);
	b->len += len;
	more[b->len] = '\0';
	b->data = more;
	return len;
}

int bz_client_init(struct bz_client *c, const char *url, const char *api_key,
		   struct rtlab_err *err)
{
	size_t n;

	memset(c, 0, sizeof(*c));
	if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)))
		return rtlab_err_set(err,
				     "Bugzilla URL '%s': expected "
				     "http://HOST[/PATH] or https://...",
				     url ? url : "");
	c->url = strdup(url);
	if (api_key && *api_key)
		c->api_key = strdup(api_key);
	if (!c->url || (api_key && *api_key && !c->api_key)) {
		bz_client_cleanup(c);
		return -ENOMEM;
	}
	n = strlen(c->url);
	while (n > 8 && c->url[n - 1] == '/')
		c->url[--n] = '\0';
	c->timeout_s = BZ_TIMEOUT_S;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	return 0;
}

void bz_client_cleanup(struct bz_client *c)
{
	if (!c)
		return;
	free(c->url);
	free(c->api_key);
	memset(c, 0, sizeof(*c));
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* BASE + "/rest" + @path.  The API key never goes into a URL, where
 * web server logs would keep it: writes carry it in the JSON body, and
 * the reads rtlab makes are of public data. */
static char *make_url(const struct bz_client *c, const char *path)
{
	char *url = NULL;

	if (asprintf(&url, "%s%s%s", c->url,
		     ends_with(c->url, "/rest.cgi") ? "" : "/rest", path) < 0)
		return NULL;
	return url;
}

/* An answer that is not JSON (an HTML error page) as one line of text:
 * tags dropped, white space folded. */
static void plain_text(const char *in, char *out, size_t size)
{
	size_t n = 0;
	bool tag = false, space = false;

	for (; in && *in && n + 1 < size; in++) {
		if (*in == '<')
			tag = true;
		else if (*in == '>')
			tag = false, space = true;
		else if (tag)
			continue;
		else if (*in == ' ' || *in == '\n' || *in == '\r' ||
			 *in == '\t')
			space = true;
		else {
			if (space && n && n + 2 < size)
				out[n++] = ' ';
			space = false;
			out[n++] = *in;
		}
	}
	out[n] = '\0';
}

/*
 * One call: @method "GET" or "POST" (with @body).  *@reply gets the parsed
 * JSON answer of a 2xx; an error answer becomes -EREMOTEIO with Bugzilla's
 * code and message (*@code set to it, 0 when there is none).
 */
static int call(const struct bz_client *c, const char *method, const char *path,
		const json_t *body, json_t **reply, long *code,
		struct rtlab_err *err)
{
	char *url = NULL;
	struct curl_slist *hdr = NULL;
	char ebuf[CURL_ERROR_SIZE] = "", *text = NULL;
	struct buf b = { 0 };
	json_error_t jerr;
	json_t *j = NULL;
	long http = 0;
	CURLcode rc;
	CURL *curl;
	int ret = 0;

	*reply = NULL;
	*code = 0;
	curl = curl_easy_init();
	if (!curl)
		return -ENOMEM;
	url = make_url(c, path);
	if (!url) {
		ret = -ENOMEM;
		goto out;
	}
	hdr = curl_slist_append(hdr, "Accept: application/json");
	if (body) {
		json_t *copy = json_deep_copy(body);

		if (!copy) {
			ret = -ENOMEM;
			goto out;
		}
		/* 5.0 and 5.2 read the key from the body or the query,
		 * never from the X-BUGZILLA-API-KEY header; the body
		 * keeps it out of logs. */
		if (c->api_key)
			json_object_set_new(copy, "api_key",
					    json_string(c->api_key));
		text = json_dumps(copy, JSON_COMPACT);
		json_decref(copy);
		if (!text) {
			ret = -ENOMEM;
			goto out;
		}
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, text);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)strlen(text));
	}
	if (!hdr) {
		ret = -ENOMEM;
		goto out;
	}
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, c->timeout_s);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 20L);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "rtlab");
	rc = curl_easy_perform(curl);
	if (rc != CURLE_OK) {
		if (b.too_big)
			ret = rtlab_err_seterr(err, EREMOTEIO,
					       "Bugzilla %s: "
					       "%s %s: answer larger than %u MB",
					       c->url, method, path,
					       BZ_MAX_REPLY >> 20);
		else if (rc == CURLE_OUT_OF_MEMORY)
			ret = -ENOMEM;
		else
			ret = rtlab_err_seterr(
				err, EHOSTUNREACH,
				"Bugzilla at %s is unreachable (%s %s): %s",
				c->url, method, path,
				*ebuf ? ebuf : curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http);
	j = b.data ? json_loads(b.data, 0, &jerr) : NULL;
	if (json_is_true(json_object_get(j, "error")) ||
	    (json_is_object(j) && (http < 200 || http > 299))) {
		*code = json_integer_value(json_object_get(j, "code"));
		ret = rtlab_err_seterr(
			err, EREMOTEIO,
			"Bugzilla %s: %s %s: error %ld: %s (HTTP %ld)", c->url,
			method, path, *code,
			json_string_value(json_object_get(j, "message")) ?
				json_string_value(json_object_get(j,
								  "message")) :
				"no message",
			http);
		goto out;
	}
	if (http < 200 || http > 299 || !json_is_object(j)) {
		char body_text[RTLAB_ERR_LEN];

		plain_text(b.data, body_text, sizeof(body_text));
		ret = rtlab_err_seterr(err, EREMOTEIO,
				       "Bugzilla %s: %s %s: HTTP %ld, %s: %s",
				       c->url, method, path, http,
				       json_is_object(j) ?
					       "unexpected answer" :
					       "expected a JSON object",
				       *body_text ? body_text : "(empty body)");
		goto out;
	}
	*reply = j;
	j = NULL;
out:
	json_decref(j);
	free(b.data);
	free(text);
	free(url);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(curl);
	return ret;
}

int bz_version(const struct bz_client *c, char **version, struct rtlab_err *err)
{
	json_t *r;
	long code;
	int ret;

	*version = NULL;
	ret = call(c, "GET", "/version", NULL, &r, &code, err);
	if (ret)
		return ret;
	if (!json_is_string(json_object_get(r, "version")))
		ret = rtlab_err_seterr(err, EREMOTEIO,
				       "Bugzilla %s: GET "
				       "/rest/version: no \"version\" in the "
				       "answer (is this a Bugzilla 5?)",
				       c->url);
	else if (!(*version =
			   strdup(json_string_value(json_object_get(r,
								    "version")))))
		ret = -ENOMEM;
	json_decref(r);
	return ret;
}

int bz_field_get(const struct bz_client *c, const char *name, json_t **field,
		 struct rtlab_err *err)
{
	char path[160];
	json_t *r, *f;
	long code;
	int ret;

	*field = NULL;
	snprintf(path, sizeof(path), "/field/bug/%s", name);
	ret = call(c, "GET", path, NULL, &r, &code, err);
	/* An unknown field is an error answer (code 51 or similar) with
	 * 400/404; a server that just answers no fields says the same.  A
	 * login (410) or key (306) error is not about the field. */
	if (ret == -EREMOTEIO && code && code != 410 && code != 306)
		return -ENOENT;
	if (ret)
		return ret;
	f = json_array_get(json_object_get(r, "fields"), 0);
	if (f) {
		*field = json_incref(f);
	} else {
		ret = -ENOENT;
	}
	json_decref(r);
	return ret;
}

int bz_bug_adapt(json_t *bug, const char *name, const json_t *field, char *note,
		 size_t note_size)
{
	json_t *v = json_object_get(bug, name), *values, *e;
	const char *val = json_string_value(v);
	size_t i;

	if (note_size)
		note[0] = '\0';
	if (!v)
		return 0;
	if (!field) {
		snprintf(note, note_size,
			 "the server has no field %s: "
			 "sent without it",
			 name);
		goto drop;
	}
	if (json_is_false(json_object_get(field, "is_on_bug_entry"))) {
		snprintf(note, note_size,
			 "field %s is not set at bug entry "
			 "on this server: sent without it",
			 name);
		goto drop;
	}
	values = json_object_get(field, "values");
	if (!json_array_size(values) || !val)
		return 0;
	json_array_foreach(values, i, e) {
		if (!json_is_object(e) ||
		    strcmp(json_string_value(json_object_get(e, "name")) ?
				   json_string_value(json_object_get(e,
								     "name")) :
				   "",
			   val))
			continue;
		if (json_is_false(json_object_get(e, "is_active")))
			break;
		return 0;
	}
	snprintf(note, note_size,
		 "the server offers no value '%s' for %s: "
		 "sent without it",
		 val, name);
drop:
	json_object_del(bug, name);
	return 1;
}

static int id_of(const json_t *r, const char *key, int64_t *id)
{
	json_t *v = json_object_get(r, key);

	if (json_is_array(v))
		v = json_array_get(v, 0);
	if (!json_is_integer(v) || json_integer_value(v) <= 0)
		return -EREMOTEIO;
	*id = json_integer_value(v);
	return 0;
}

int bz_bug_create(const struct bz_client *c, const json_t *bug, int64_t *bug_id,
		  struct rtlab_err *err)
{
	json_t *r;
	long code;
	int ret;

	ret = call(c, "POST", "/bug", bug, &r, &code, err);
	if (ret)
		return ret;
	if (id_of(r, "id", bug_id))
		ret = rtlab_err_seterr(err, EREMOTEIO,
				       "Bugzilla %s: POST "
				       "/rest/bug: no bug \"id\" in the answer",
				       c->url);
	json_decref(r);
	return ret;
}

int bz_attachment_add(const struct bz_client *c, int64_t bug_id,
		      const json_t *att, int64_t *attachment_id,
		      struct rtlab_err *err)
{
	json_t *body = json_deep_copy(att), *r = NULL;
	char path[64];
	long code;
	int ret;

	if (!body ||
	    json_object_set_new(body, "ids",
				json_pack("[I]", (json_int_t)bug_id))) {
		json_decref(body);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "/bug/%" PRId64 "/attachment", bug_id);
	ret = call(c, "POST", path, body, &r, &code, err);
	json_decref(body);
	if (ret)
		return ret;
	if (id_of(r, "ids", attachment_id))
		ret = rtlab_err_seterr(err, EREMOTEIO,
				       "Bugzilla %s: POST %s: "
				       "no attachment \"ids\" in the answer",
				       c->url, path);
	json_decref(r);
	return ret;
}

char *bz_bug_url(const struct bz_client *c, int64_t bug_id)
{
	size_t n = strlen(c->url);
	char *url;

	if (ends_with(c->url, "/rest.cgi"))
		n -= strlen("/rest.cgi");
	if (asprintf(&url, "%.*s/show_bug.cgi?id=%" PRId64, (int)n, c->url,
		     bug_id) < 0)
		return NULL;
	return url;
}

int bz_parameters(const struct bz_client *c, json_t **params,
		  struct rtlab_err *err)
{
	json_t *r;
	long code;
	int ret;

	*params = NULL;
	ret = call(c, "GET", "/parameters", NULL, &r, &code, err);
	if (ret == -EREMOTEIO)
		return -ENOENT; /* before 5.0, or hidden: use the defaults */
	if (ret)
		return ret;
	*params = json_incref(json_object_get(r, "parameters"));
	json_decref(r);
	return *params ? 0 : -ENOENT;
}

size_t bz_max_attachment_bytes(const json_t *params, size_t dflt)
{
	const json_t *v = json_object_get(params, "maxattachmentsize");
	long long kb = -1;

	if (json_is_integer(v))
		kb = json_integer_value(v);
	else if (json_is_string(v))
		kb = strtoll(json_string_value(v), NULL, 10);
	return kb > 0 ? (size_t)kb * 1024 : dflt;
}

int bz_bug_find_tag(const struct bz_client *c, const char *tag, int64_t *bug_id,
		    struct rtlab_err *err)
{
	char path[400], *esc;
	json_t *r, *b;
	CURL *curl;
	long code;
	size_t i;
	int ret;

	curl = curl_easy_init();
	esc = curl ? curl_easy_escape(curl, tag, 0) : NULL;
	if (!esc) {
		curl_easy_cleanup(curl);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path),
		 "/bug?whiteboard=%s&include_fields=id,is_open,whiteboard",
		 esc);
	curl_free(esc);
	curl_easy_cleanup(curl);
	ret = call(c, "GET", path, NULL, &r, &code, err);
	if (ret)
		return ret;
	ret = -ENOENT;
	/* The search matches substrings: keep bugs whose whiteboard holds
	 * the tag as a word, open ones only, the oldest first. */
	json_array_foreach(json_object_get(r, "bugs"), i, b) {
		const char *wb =
			json_string_value(json_object_get(b, "whiteboard"));
		const char *at = wb ? strstr(wb, tag) : NULL;
		size_t n = strlen(tag);
		json_int_t id = json_integer_value(json_object_get(b, "id"));

		if (!at || (at[n] && at[n] != ' ' && at[n] != ',') ||
		    json_is_false(json_object_get(b, "is_open")) || id <= 0)
			continue;
		if (ret || id < *bug_id)
			*bug_id = id;
		ret = 0;
	}
	json_decref(r);
	return ret;
}

int bz_comment_add(const struct bz_client *c, int64_t bug_id, const char *text,
		   int64_t *comment_id, struct rtlab_err *err)
{
	json_t *body = json_pack("{s:s}", "comment", text), *r = NULL;
	char path[64];
	long code;
	int ret;

	if (!body)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/bug/%" PRId64 "/comment", bug_id);
	ret = call(c, "POST", path, body, &r, &code, err);
	json_decref(body);
	if (ret)
		return ret;
	if (id_of(r, "id", comment_id))
		ret = rtlab_err_seterr(err, EREMOTEIO,
				       "Bugzilla %s: POST %s: no comment "
				       "\"id\" in the answer",
				       c->url, path);
	json_decref(r);
	return ret;
}

/* Whether select field @field offers @value. */
static bool offers(const json_t *field, const char *value)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(field, "values"), i, e)
		if (json_is_object(e) &&
		    json_string_value(json_object_get(e, "name")) &&
		    !strcmp(json_string_value(json_object_get(e, "name")),
			    value) &&
		    !json_is_false(json_object_get(e, "is_active")))
			return true;
	return false;
}

int bz_bug_choose(json_t *bug, const char *key, const json_t *field,
		  const char *const *candidates, char *note, size_t note_size)
{
	const char *want = json_string_value(json_object_get(bug, key));
	char wanted[128];
	size_t i;

	if (note_size)
		note[0] = '\0';
	if (!want || !field ||
	    !json_array_size(json_object_get(field, "values")))
		return 0;
	if (offers(field, want))
		return 0;
	snprintf(wanted, sizeof(wanted), "%s", want);
	for (i = 0; candidates && candidates[i]; i++) {
		if (!offers(field, candidates[i]))
			continue;
		snprintf(note, note_size,
			 "the server offers no %s '%s': sent '%s', the "
			 "closest it offers",
			 key, wanted, candidates[i]);
		json_object_set_new(bug, key, json_string(candidates[i]));
		return 1;
	}
	snprintf(note, note_size,
		 "the server offers no %s '%s' nor a close value: sent "
		 "without it (the server's default applies)",
		 key, wanted);
	json_object_del(bug, key);
	return 1;
}

int bz_product_get(const struct bz_client *c, const char *name,
		   json_t **product, struct rtlab_err *err)
{
	char path[400], *esc;
	json_t *r, *p;
	CURL *curl;
	long code;
	int ret;

	*product = NULL;
	curl = curl_easy_init();
	esc = curl ? curl_easy_escape(curl, name, 0) : NULL;
	curl_easy_cleanup(curl);
	if (!esc)
		return -ENOMEM;
	snprintf(path, sizeof(path),
		 "/product?names=%s&include_fields=name,components,versions",
		 esc);
	curl_free(esc);
	ret = call(c, "GET", path, NULL, &r, &code, err);
	if (ret == -EREMOTEIO && code)
		return -ENOENT;
	if (ret)
		return ret;
	p = json_array_get(json_object_get(r, "products"), 0);
	if (p)
		*product = json_incref(p);
	json_decref(r);
	return p ? 0 : -ENOENT;
}

/* The value of @list (of {name, is_active}) equal to @want ignoring case,
 * NULL when none. */
static const char *named(const json_t *list, const char *want, bool icase)
{
	const json_t *e;
	size_t i;

	json_array_foreach(list, i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));

		if (n && !json_is_false(json_object_get(e, "is_active")) &&
		    !(icase ? strcasecmp(n, want) : strcmp(n, want)))
			return n;
	}
	return NULL;
}

int bz_bug_fit_product(json_t *bug, const json_t *product, char *note,
		       size_t note_size)
{
	const json_t *comps = json_object_get(product, "components");
	const json_t *vers = json_object_get(product, "versions");
	const char *comp = json_string_value(json_object_get(bug, "component"));
	const char *ver = json_string_value(json_object_get(bug, "version"));
	const char *pick;
	size_t n = 0;
	int changed = 0;

	if (note_size)
		note[0] = '\0';
	if (comp && json_array_size(comps) && !named(comps, comp, false)) {
		pick = named(comps, comp, true);
		if (pick) {
			n += snprintf(note + n, note_size - n,
				      "component '%s' is '%s' on this server",
				      comp, pick);
			json_object_set_new(bug, "component",
					    json_string(pick));
			changed = 1;
		} else {
			const json_t *e;
			size_t i;

			n += snprintf(note + n, note_size - n,
				      "the product offers no component '%s' "
				      "(it has:",
				      comp);
			json_array_foreach(comps, i, e) {
				const char *cn =
					json_string_value(json_object_get(e,
									  "name"));

				if (n < note_size)
					n += snprintf(note + n, note_size - n,
						      " %s", cn ? cn : "?");
			}
			if (n < note_size)
				n += snprintf(note + n, note_size - n,
					      "): set bugzilla_component");
		}
	}
	if (ver && json_array_size(vers) && !named(vers, ver, false) &&
	    n < note_size) {
		pick = named(vers, "unspecified", true);
		if (!pick)
			pick = json_string_value(json_object_get(
				json_array_get(vers, json_array_size(vers) - 1),
				"name"));
		if (pick) {
			snprintf(note + n, note_size - n,
				 "%sthe product offers no version '%s': sent "
				 "'%s'",
				 n ? "; " : "", ver, pick);
			json_object_set_new(bug, "version", json_string(pick));
			changed = 1;
		}
	}
	return changed || (note_size && note[0]);
}
