/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AUTH_H
#define RTLAB_AUTH_H

/*
 * Who may do what over HTTP: the one check every handler makes before it
 * acts (docs/security.md, "Roles").  A request carries a token as
 * "Authorization: Bearer TOKEN"; the token's role (lib/role.h) decides.
 */

#include <stdbool.h>

#include "http.h"

/**
 * http_auth_require() - whether @req carries a live token of one of the
 * roles in @need (ROLES_UPLOAD, ROLES_MAINTAIN, ...).  On success the
 * request knows who sent it (@req->role, token_id, token_name, and for a
 * board token board and board_id).  Otherwise it answers itself, with a
 * JSON error naming the role needed: 401 (with WWW-Authenticate) for no,
 * a malformed, an unknown or a revoked token; 403 for a token of a role
 * that may not do this; 503 without a database.
 * Return: true to go on; false when the request was answered.
 */
bool http_auth_require(struct http_request *req, unsigned int need);

#endif
