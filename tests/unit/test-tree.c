// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of kernel tree and build definitions (kernels/tree.c,
 * kernels/kernel.c, kernels/build.c): a git tree's fields, their checks
 * and relative paths, how its kernels are named, the config key that
 * changes with a fragment's contents, and kernels of kind build.  No git
 * or compiler runs.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsutil.h"
#include "../../kernels/build.h"
#include "../../kernels/kernel.h"
#include "../../kernels/tree.h"
#include "scratch.h"

static void put(const char *name, const char *text)
{
	struct rtlab_err err = { "" };

	if (file_write_all(scratch_path(name), text, strlen(text), &err))
		printf("# %s\n", err.msg);
}

/* Loads scratch file @name; NULL with the error in @err. */
static struct tree_def *load(const char *name, const char *text,
			     struct rtlab_err *err)
{
	put(name, text);
	return tree_def_load(scratch_path(name), err);
}

static void test_git_tree(void)
{
	struct rtlab_err err = { "" };
	struct tree_def *t;
	char *s;

	put("rt.config", "CONFIG_PREEMPT_RT=y\n");
	t = load("t612.yaml",
		 "kind: git\ngit: repo\nbranch: main\nconfig: tinyconfig\n"
		 "fragments: rt.config\nfollow: 3\n",
		 &err);
	CHECK(t != NULL, "a git tree loads (%s)", err.msg);
	if (!t)
		return;
	CHECK(t->kind == TREE_KIND_GIT, "... of kind git");
	CHECK_STR(t->name, "t612", "... named after its file");
	CHECK_STR(t->git, scratch_path("repo"),
		  "... a relative repository path is beside the file");
	CHECK(t->nfragments == 1 &&
		      !strcmp(t->fragments[0], scratch_path("rt.config")),
	      "... so is a fragment");
	CHECK(t->follow == 3, "... follow 3");
	CHECK_STR(tree_kind_name(t), "git", "... kind name");
	s = tree_kernel_name(t, "t612",
			     "0123456789abcdef0123456789abcdef01234567");
	CHECK_STR(s, "t612@0123456789abcdef0123456789abcdef01234567",
		  "its kernels are named TREE@COMMIT");
	free(s);
	s = tree_source(t);
	CHECK(s && strstr(s, "branch main, tinyconfig + 1 fragment"),
	      "its source says the branch and config (%s)", s ? s : "");
	free(s);
	tree_def_free(t);

	t = load("d.yaml", "kind: git\ngit: /r\nbranch: main\n", &err);
	CHECK(t && !strcmp(t->config, "defconfig") && t->follow == 1,
	      "defaults: defconfig, follow 1");
	tree_def_free(t);
	t = load("deb.yaml", "kind: debian-series\npackages: linux-image-*\n",
		 &err);
	s = t ? tree_kernel_name(t, "linux-image-1", "6.1-1") : NULL;
	CHECK_STR(s, "linux-image-1=6.1-1",
		  "a Debian series' kernels are PACKAGE=VERSION");
	free(s);
	tree_def_free(t);
}

static void test_git_tree_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "kind: git\ngit: /r\n", "kind 'git' needs fields 'git'" },
		{ "kind: git\nbranch: main\n",
		  "kind 'git' needs fields 'git'" },
		{ "kind: git\ngit: /r\nbranch: a b\n",
		  "line 3: field 'branch': 'a b' is not a branch name" },
		{ "kind: git\ngit: /r\nbranch: m\nconfig: -x\n",
		  "field 'config': '-x' is not a make target" },
		{ "kind: git\ngit: /r\nbranch: m\nfragments: nope.config\n",
		  "field 'fragments': no file" },
		{ "kind: git\ngit: /r\nbranch: m\npackages: linux-*\n",
		  "'packages' belongs to kind 'debian-series'" },
		{ "kind: debian-series\npackages: l-*\nbranch: m\n",
		  "belong to kind 'git', not 'debian-series'" },
		{ "kind: git\ngit: /r\nbranch: m\nfollow: 0\n", "follow" },
		{ "kind: svn\n", "expected 'debian-series' or 'git'" },
		{ "name: a/b\nkind: git\ngit: /r\nbranch: m\n",
		  "tree name 'a/b'" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rtlab_err err = { "" };
		struct tree_def *t = load("bad.yaml", cases[i].text, &err);

		CHECK(!t && strstr(err.msg, cases[i].want), "refused: %s (%s)",
		      cases[i].want, err.msg);
		tree_def_free(t);
	}
}

static void test_config_key(void)
{
	struct rtlab_err err = { "" };
	char k1[13] = "", k2[13] = "", k3[13] = "";
	struct tree_def *t;

	put("f.config", "CONFIG_A=y\n");
	t = load("k.yaml",
		 "kind: git\ngit: /r\nbranch: m\nconfig: tinyconfig\n"
		 "fragments: f.config\n",
		 &err);
	if (!t) {
		CHECK(0, "tree loads (%s)", err.msg);
		return;
	}
	CHECK_INT(build_config_key(t, k1, &err), 0, "a config key");
	CHECK(strlen(k1) == 12, "... of 12 hex digits (%s)", k1);
	CHECK_INT(build_config_key(t, k2, &err), 0, "again");
	CHECK_STR(k2, k1, "... the same for the same config");
	put("f.config", "CONFIG_A=y\nCONFIG_B=y\n");
	CHECK_INT(build_config_key(t, k3, &err), 0, "a fragment changed");
	CHECK(strcmp(k3, k1) != 0, "... another key");
	free(t->config);
	t->config = strdup("defconfig");
	CHECK_INT(build_config_key(t, k2, &err), 0, "another base target");
	CHECK(strcmp(k2, k3) != 0, "... another key");
	tree_def_free(t);
}

static void test_build_kernel_def(void)
{
	struct rtlab_err err = { "" };
	struct kernel_def *k;

	put("k.yaml", "kind: build\ntree: trees/t612.yaml\ncommit: "
		      "0123456789abcdef0123456789abcdef01234567\n"
		      "fragment: dev.config\n");
	k = kernel_def_load(scratch_path("k.yaml"), &err);
	CHECK(k != NULL, "a kernel of kind build loads (%s)", err.msg);
	if (k) {
		CHECK(k->kind == KERNEL_KIND_BUILD, "... kind build");
		CHECK_STR(k->tree, scratch_path("trees/t612.yaml"),
			  "... its tree path is beside the file");
		CHECK_STR(k->fragment, scratch_path("dev.config"),
			  "... so is its fragment");
	}
	kernel_def_free(k);
	put("k.yaml", "kind: build\ntree: t612\n");
	k = kernel_def_load(scratch_path("k.yaml"), &err);
	CHECK(!k && strstr(err.msg, "kind 'build' needs fields 'tree'"),
	      "a build without a commit: refused (%s)", err.msg);
	kernel_def_free(k);
	put("k.yaml", "kind: local\nimage: x\ncommit: abc\n");
	k = kernel_def_load(scratch_path("k.yaml"), &err);
	CHECK(!k && strstr(err.msg, "belong to kind 'build', not 'local'"),
	      "a commit on a local kernel: refused (%s)", err.msg);
	kernel_def_free(k);
	k = kernel_def_find("t612@0123456789abcdef0123456789abcdef01234567",
			    &err);
	CHECK(k && k->kind == KERNEL_KIND_BUILD && !strcmp(k->tree, "t612") &&
		      !strcmp(k->name, "t612@0123456789abcdef0123456789abcdef"
				       "01234567"),
	      "TREE@COMMIT names a build (%s)", err.msg);
	kernel_def_free(k);
	k = kernel_def_find("@abc", &err);
	CHECK(!k && strstr(err.msg, "expected TREE@COMMIT"),
	      "an empty tree: refused (%s)", err.msg);
	kernel_def_free(k);
}

int main(void)
{
	if (scratch_create("test-tree")) {
		CHECK(0, "scratch directory");
		return check_exit();
	}
	test_git_tree();
	test_git_tree_errors();
	test_config_key();
	test_build_kernel_def();
	scratch_destroy();
	return check_exit();
}
