// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Token roles: names both ways, unknown names refused with the roles
 * listed, and which role may do what (the table docs/security.md gives).
 */

#include <errno.h>
#include <string.h>

#include "role.h"
#include "check.h"

static void test_names(void)
{
	struct rtlab_err err = { "" };
	enum role r;
	unsigned int i;

	for (i = 0; i < ROLE_COUNT; i++) {
		CHECK_INT(role_parse(role_name((enum role)i), &r, &err), 0,
			  role_name((enum role)i));
		CHECK_INT(r, i, "... parses back to itself");
	}
	CHECK_INT(role_parse("root", &r, &err), -EINVAL, "unknown role");
	CHECK(strstr(err.msg, "role 'root'") &&
		      strstr(err.msg, "board, developer, maintainer or admin"),
	      "... named, with the roles there are (%s)", err.msg);
	CHECK_INT(role_parse(NULL, &r, &err), -EINVAL, "no role");
}

static void test_allowed(void)
{
	/* role, upload, submit, maintain, admin, read */
	static const struct {
		enum role r;
		bool upload, submit, maintain, admin;
	} table[] = {
		{ ROLE_BOARD, true, false, false, false },
		{ ROLE_DEVELOPER, false, true, false, false },
		{ ROLE_MAINTAINER, false, true, true, false },
		{ ROLE_ADMIN, false, true, true, true },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const char *n = role_name(table[i].r);

		CHECK(role_allowed(table[i].r, ROLES_UPLOAD) == table[i].upload,
		      "%s: upload %s", n, table[i].upload ? "yes" : "no");
		CHECK(role_allowed(table[i].r, ROLES_SUBMIT) == table[i].submit,
		      "%s: submit %s", n, table[i].submit ? "yes" : "no");
		CHECK(role_allowed(table[i].r, ROLES_MAINTAIN) ==
			      table[i].maintain,
		      "%s: maintain %s", n, table[i].maintain ? "yes" : "no");
		CHECK(role_allowed(table[i].r, ROLES_ADMIN) == table[i].admin,
		      "%s: admin %s", n, table[i].admin ? "yes" : "no");
		CHECK(role_allowed(table[i].r, ROLES_ANY), "%s: read", n);
	}
	CHECK(!role_allowed((enum role)ROLE_COUNT, ROLES_ANY),
	      "no role beyond the table");
	CHECK_STR(role_need_text(ROLES_MAINTAIN), "a maintainer or admin token",
		  "what a maintainer action needs, in words");
	CHECK_STR(role_need_text(ROLES_UPLOAD), "a board token",
		  "what an upload needs");
}

int main(void)
{
	test_names();
	test_allowed();
	return check_exit();
}
