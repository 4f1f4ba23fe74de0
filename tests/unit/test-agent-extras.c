// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A testcase's extras on a board, without root: files copied and removed
 * when no board put them in place, setup and teardown commands with their
 * exit status and output, a failing setup command or a module that is no
 * module stopping the setup with a message naming the entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agent/extras.h"
#include "manifest.h"
#include "check.h"
#include "scratch.h"

static int parse_in(const char *yaml, struct testcase *tc)
{
	struct rtlab_err e = { "" };
	int ret = testcase_parse(scratch_path("t.yaml"), yaml, strlen(yaml), tc,
				 &e);

	if (ret)
		printf("# %s\n", e.msg);
	return ret;
}

static const char *jget(json_t *j, const char *list, size_t i, const char *key)
{
	return json_string_value(json_object_get(
		json_array_get(json_object_get(j, list), i), key));
}

static void test_files_and_commands(void)
{
	struct rtlab_err e = { "" };
	struct extras_run x;
	struct testcase tc;
	char yaml[2048], dest[256], sha[65];
	json_t *j, *c;

	snprintf(dest, sizeof(dest), "%s", scratch_path("placed.conf"));
	scratch_put("x.conf", "x=1\n");
	snprintf(yaml, sizeof(yaml),
		 "name: t\nextras:\n"
		 "  files: [{src: x.conf, dest: %s}]\n"
		 "  setup: [\"cat %s\", \"echo to-stderr >&2\"]\n"
		 "  teardown: [\"echo bye\"]\n",
		 dest, dest);
	CHECK_INT(parse_in(yaml, &tc), 0, "testcase with files and commands");
	CHECK_INT(extras_init(&x, &tc, NULL, NULL, NULL), 0, "extras_init");
	CHECK_INT(extras_setup(&x, &e), 0, "setup: file copied, commands ran");
	CHECK(scratch_holds("placed.conf", "x=1"), "... the file at its dest");
	CHECK_INT(extras_teardown(&x, &e), 0, "teardown");
	CHECK(access(dest, F_OK) < 0, "... the file the agent made is gone");
	CHECK_INT(extras_teardown(&x, &e), 0, "a second teardown does nothing");
	j = extras_json(&x);
	sha256_hex("x=1\n", 4, sha);
	CHECK_STR(jget(j, "files", 0, "sha256"), sha,
		  "manifest: the file's sha256");
	CHECK_STR(jget(j, "files", 0, "dest"), dest, "manifest: its dest");
	CHECK_INT(json_array_size(json_object_get(j, "commands")), 3,
		  "manifest: three commands");
	CHECK_STR(jget(j, "commands", 0, "output"), "x=1\n",
		  "... the first's output");
	CHECK_STR(jget(j, "commands", 1, "output"), "to-stderr\n",
		  "... stderr kept too");
	c = json_array_get(json_object_get(j, "commands"), 2);
	CHECK(json_integer_value(json_object_get(c, "exit_status")) == 0 &&
		      !strcmp(json_string_value(json_object_get(c, "phase")),
			      "teardown"),
	      "... the teardown, exit status 0");
	json_decref(j);
	extras_cleanup(&x);
	extras_cleanup(&x);
	testcase_cleanup(&tc);
}

static void test_failures(void)
{
	struct rtlab_err e = { "" };
	struct extras_run x;
	struct testcase tc;
	char yaml[1024];
	json_t *j;

	CHECK_INT(parse_in("name: t\nextras:\n"
			   "  setup: [\"true\", \"echo nope; exit 3\", \"true\"]\n"
			   "  teardown: [\"echo cleaned\"]\n",
			   &tc),
		  0, "testcase with a failing setup command");
	CHECK_INT(extras_init(&x, &tc, NULL, NULL, NULL), 0, "extras_init");
	CHECK(extras_setup(&x, &e) < 0, "a failing setup command fails setup");
	CHECK(strstr(e.msg, "extras.setup[1]") &&
		      strstr(e.msg, "exit status 3") && strstr(e.msg, "nope"),
	      "... naming it, its status and output (%s)", e.msg);
	CHECK_INT(extras_teardown(&x, &e), 0, "... teardown still runs");
	j = extras_json(&x);
	CHECK_INT(json_array_size(json_object_get(j, "commands")), 3,
		  "... the commands after it did not run, the teardown did");
	json_decref(j);
	extras_cleanup(&x);
	testcase_cleanup(&tc);

	scratch_put("fake.ko", "not a module\n");
	CHECK_INT(parse_in("name: t\nextras: {modules: [fake.ko]}\n", &tc), 0,
		  "testcase with a module that is none");
	CHECK_INT(extras_init(&x, &tc, NULL, NULL, NULL), 0, "extras_init");
	CHECK_INT(extras_setup(&x, &e), -ENOEXEC, "setup refuses it");
	CHECK(strstr(e.msg, "extras.modules[0] fake.ko") &&
		      strstr(e.msg, "not a kernel module"),
	      "... naming it (%s)", e.msg);
	j = extras_json(&x);
	CHECK(json_is_false(json_object_get(
		      json_array_get(json_object_get(j, "modules"), 0),
		      "loaded")),
	      "manifest: loaded false");
	CHECK(json_is_string(json_object_get(
		      json_array_get(json_object_get(j, "modules"), 0),
		      "error")),
	      "manifest: ... with the error");
	json_decref(j);
	CHECK_INT(extras_teardown(&x, &e), 0,
		  "nothing loaded, nothing removed");
	extras_cleanup(&x);
	testcase_cleanup(&tc);

	scratch_put("exists.conf", "board's own\n");
	snprintf(yaml, sizeof(yaml),
		 "name: t\nextras: {files: [{src: x.conf, dest: %s}]}\n",
		 scratch_path("exists.conf"));
	CHECK_INT(parse_in(yaml, &tc), 0, "testcase over a board's file");
	CHECK_INT(extras_init(&x, &tc, NULL, NULL, NULL), 0, "extras_init");
	CHECK_INT(extras_setup(&x, &e), -EEXIST,
		  "a board's own file is not overwritten");
	CHECK(scratch_holds("exists.conf", "board's own"), "... it is intact");
	CHECK_INT(extras_teardown(&x, &e), 0, "teardown");
	CHECK(scratch_holds("exists.conf", "board's own"),
	      "... and not removed");
	extras_cleanup(&x);
	testcase_cleanup(&tc);

	CHECK_INT(parse_in("name: t\n", &tc), 0, "testcase without extras");
	CHECK_INT(extras_init(&x, &tc, NULL, NULL, NULL), 0, "extras_init");
	CHECK(!extras_json(&x), "no extras: nothing for the manifest");
	extras_cleanup(&x);
	testcase_cleanup(&tc);
}

int main(void)
{
	if (scratch_create("rtlab-agent-extras")) {
		CHECK(0, "scratch directory");
		return check_exit();
	}
	test_files_and_commands();
	test_failures();
	scratch_destroy();
	return check_exit();
}
