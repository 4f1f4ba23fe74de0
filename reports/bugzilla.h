/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_BUGZILLA_H
#define RTLAB_BUGZILLA_H

/*
 * A client of the Bugzilla 5 REST API (libcurl + jansson), as real 5.0
 * and 5.2 servers behave: the API key travels as `api_key` in the JSON
 * body of writes only, never in a URL (5.0 and 5.2 ignore the
 * X-BUGZILLA-API-KEY header; reads are of public data), POST
 * bodies go with Content-Type: application/json, no trailing slashes,
 * errors are {"error":true,"code":N,"message":"..."} with HTTP 400/401/404,
 * and each call may take most of a second.
 *
 * Errors: -EHOSTUNREACH (no answer: connection refused, DNS, timeout),
 * -EREMOTEIO (Bugzilla answered with an error, or not with JSON), -ENOENT
 * (bz_field_get: the server has no such field), -ENOMEM; @err names the
 * server, the request and, for Bugzilla errors, its code and message.
 */

#include <stdint.h>
#include <stddef.h>
#include <jansson.h>

#include "error.h"

#define BZ_TIMEOUT_S 60 /* per call; real servers take ~0.5 s */

struct bz_client {
	char *url;     /* base URL without trailing slash */
	char *api_key; /* NULL: anonymous (reads only) */
	long timeout_s;
};

/**
 * bz_client_init() - a client of the Bugzilla at @url (e.g.
 * "https://bugzilla.kernel.org", or ".../rest.cgi" bases are fine: the
 * client appends "/rest/..." unless @url already ends in "/rest.cgi", when
 * it appends "/...").  @api_key may be NULL.
 * Return: 0, -EINVAL with @err when @url is not http(s)://, -ENOMEM.
 * Caller releases with bz_client_cleanup().
 */
int bz_client_init(struct bz_client *c, const char *url, const char *api_key,
		   struct rtlab_err *err) __must_check;

/** bz_client_cleanup() - free the client's strings; safe twice. */
void bz_client_cleanup(struct bz_client *c);

/**
 * bz_version() - GET /rest/version.
 * Return: 0 with *@version (malloc'd, caller frees), or a negative errno.
 */
int bz_version(const struct bz_client *c, char **version,
	       struct rtlab_err *err) __must_check;

/**
 * bz_field_get() - GET /rest/field/bug/@name: the field's description
 * (the first element of "fields": name, type, is_on_bug_entry, values...).
 * Return: 0 with *@field (caller json_decref()s); -ENOENT when the server
 * does not know the field; other negative errnos as above.
 */
int bz_field_get(const struct bz_client *c, const char *name, json_t **field,
		 struct rtlab_err *err) __must_check;

/**
 * bz_bug_adapt() - fit custom field @name of @bug to what the server
 * offers: drop it when @field is NULL (the server has no such field) or
 * not shown on bug entry, or when @field has a list of values and the
 * bug's value is not among them (or is inactive).
 * @note: gets a sentence saying what was dropped and why ("" when kept).
 * Return: 1 when dropped, 0 when kept.
 */
int bz_bug_adapt(json_t *bug, const char *name, const json_t *field, char *note,
		 size_t note_size);

/**
 * bz_bug_create() - POST /rest/bug with @bug (the api_key is added).
 * Return: 0 with *@bug_id, or a negative errno.
 */
int bz_bug_create(const struct bz_client *c, const json_t *bug, int64_t *bug_id,
		  struct rtlab_err *err) __must_check;

/**
 * bz_attachment_add() - POST /rest/bug/@bug_id/attachment with @att (its
 * "ids" are set to [@bug_id], the api_key is added).
 * Return: 0 with *@attachment_id, or a negative errno.
 */
int bz_attachment_add(const struct bz_client *c, int64_t bug_id,
		      const json_t *att, int64_t *attachment_id,
		      struct rtlab_err *err) __must_check;

/**
 * bz_parameters() - GET /rest/parameters (5.0 and later): the public
 * parameters, maxattachmentsize (KB) and defaultplatform among them.
 * Return: 0 with *@params (caller json_decref()s); -ENOENT when the
 * server does not answer them; -EHOSTUNREACH, -ENOMEM.
 */
int bz_parameters(const struct bz_client *c, json_t **params,
		  struct rtlab_err *err) __must_check;

/** bz_max_attachment_bytes() - maxattachmentsize of @params in bytes,
 *  @dflt when @params (may be NULL) does not say. */
size_t bz_max_attachment_bytes(const json_t *params, size_t dflt);

/**
 * bz_bug_find_tag() - the oldest open bug whose whiteboard holds @tag as
 * a word (GET /rest/bug?whiteboard=@tag).
 * Return: 0 with *@bug_id; -ENOENT when there is none; other negative
 * errnos as above.
 */
int bz_bug_find_tag(const struct bz_client *c, const char *tag, int64_t *bug_id,
		    struct rtlab_err *err) __must_check;

/**
 * bz_comment_add() - POST /rest/bug/@bug_id/comment with @text.
 * Return: 0 with *@comment_id, or a negative errno.
 */
int bz_comment_add(const struct bz_client *c, int64_t bug_id, const char *text,
		   int64_t *comment_id, struct rtlab_err *err) __must_check;

/**
 * bz_bug_choose() - fit field @key of @bug (platform, op_sys, severity,
 * priority) to the values @field (GET /rest/field/bug/NAME) offers: keep
 * an offered value; else the first of @candidates (NULL-terminated, may
 * be NULL) that is offered; else drop @key so the server's default
 * applies.  A field without a list of values keeps anything.
 * @note: a sentence saying what was changed ("" when kept).
 * Return: 1 when changed or dropped, 0 when kept.
 */
int bz_bug_choose(json_t *bug, const char *key, const json_t *field,
		  const char *const *candidates, char *note, size_t note_size);

/**
 * bz_product_get() - GET /rest/product?names=@name: the product with its
 * components and versions.
 * Return: 0 with *@product (caller json_decref()s); -ENOENT when the
 * server has no such product or does not show it; other negative errnos
 * as above.
 */
int bz_product_get(const struct bz_client *c, const char *name,
		   json_t **product, struct rtlab_err *err) __must_check;

/**
 * bz_bug_fit_product() - fit @bug's component and version to @product: a
 * component that differs only in case is corrected; a version the product
 * does not offer becomes "unspecified" (else its last version).  A
 * component it does not offer is kept (the server will say) and named in
 * @note with the offered ones.
 * Return: 1 when @note says something, 0 when all was offered.
 */
int bz_bug_fit_product(json_t *bug, const json_t *product, char *note,
		       size_t note_size);

/**
 * bz_bug_url() - where people read bug @bug_id: "BASE/show_bug.cgi?id=N"
 * (BASE without a trailing "/rest.cgi").
 * Return: malloc'd, caller frees; NULL on -ENOMEM.
 */
char *bz_bug_url(const struct bz_client *c, int64_t bug_id);

#endif
