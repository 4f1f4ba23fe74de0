// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Token roles: their names and which sets of roles an action accepts, in
 * one place for the server's auth check, the CLI and the messages.
 */

#include <string.h>

#include "role.h"

static const char *const names[ROLE_COUNT] = {
	[ROLE_BOARD] = "board",
	[ROLE_DEVELOPER] = "developer",
	[ROLE_MAINTAINER] = "maintainer",
	[ROLE_ADMIN] = "admin",
};

const char *role_name(enum role r)
{
	return (unsigned int)r < ROLE_COUNT ? names[r] : "?";
}

int role_parse(const char *name, enum role *r, struct rtlab_err *err)
{
	unsigned int i;

	for (i = 0; name && i < ROLE_COUNT; i++)
		if (!strcmp(name, names[i])) {
			*r = (enum role)i;
			return 0;
		}
	return rtlab_err_set(err,
			     "role '%s': expected board, developer, "
			     "maintainer or admin",
			     name ? name : "");
}

bool role_allowed(enum role r, unsigned int need)
{
	return (unsigned int)r < ROLE_COUNT && (need & ROLE_BIT(r));
}

const char *role_need_text(unsigned int need)
{
	switch (need) {
	case ROLES_UPLOAD:
		return "a board token";
	case ROLES_SUBMIT:
		return "a developer, maintainer or admin token";
	case ROLES_MAINTAIN:
		return "a maintainer or admin token";
	case ROLES_ADMIN:
		return "an admin token";
	case ROLES_ANY:
		return "a token of any role";
	default:
		return "a token of another role";
	}
}
