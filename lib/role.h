/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_ROLE_H
#define RTLAB_ROLE_H

/*
 * The roles a token carries (docs/security.md, "Roles") and which of them
 * may do what.  A board uploads its own runs; a developer submits jobs
 * and reads; a maintainer sets baselines and verdict parameters and files
 * reports; an admin manages tokens and may do what a maintainer does.
 * Every role may read.
 */

#include <stdbool.h>
#include "error.h"

enum role {
	ROLE_BOARD,
	ROLE_DEVELOPER,
	ROLE_MAINTAINER,
	ROLE_ADMIN,
	ROLE_COUNT,
};

/* What a request needs, as a set of roles (one bit per enum role). */
#define ROLE_BIT(r) (1u << (r))
#define ROLES_ANY                                          \
	(ROLE_BIT(ROLE_BOARD) | ROLE_BIT(ROLE_DEVELOPER) | \
	 ROLE_BIT(ROLE_MAINTAINER) | ROLE_BIT(ROLE_ADMIN))
#define ROLES_UPLOAD ROLE_BIT(ROLE_BOARD)
#define ROLES_SUBMIT                                            \
	(ROLE_BIT(ROLE_DEVELOPER) | ROLE_BIT(ROLE_MAINTAINER) | \
	 ROLE_BIT(ROLE_ADMIN))
#define ROLES_MAINTAIN (ROLE_BIT(ROLE_MAINTAINER) | ROLE_BIT(ROLE_ADMIN))
#define ROLES_ADMIN ROLE_BIT(ROLE_ADMIN)

/** role_name() - "board", "developer", "maintainer" or "admin". */
const char *role_name(enum role r);

/**
 * role_parse() - the role named @name.
 * Return: 0, or -EINVAL with @err "role 'X': expected board, developer,
 * maintainer or admin".
 */
int role_parse(const char *name, enum role *r,
	       struct rtlab_err *err) __must_check;

/** role_allowed() - whether a token of role @r may do what @need asks. */
bool role_allowed(enum role r, unsigned int need);

/**
 * role_need_text() - @need in words, for "this needs ..." messages:
 * "a board token", "a maintainer or admin token", "a token of any role".
 * Return: a static string.
 */
const char *role_need_text(unsigned int need);

#endif
