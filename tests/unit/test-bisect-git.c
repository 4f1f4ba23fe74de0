// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The git range of a bisection (services/bisect.c, bisect_range_git())
 * over a small repository made in a scratch directory: the good commit,
 * then the first-parent commits up to the bad one (a merge is one step,
 * the commits it brings are not), each named TREE@COMMIT and described by
 * git; and the refusals, each naming what is wrong: reversed ends, one
 * commit twice, two trees, a tree that is not git, an unknown ref.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../services/bisect.h"
#include "check.h"
#include "scratch.h"

static int sh(const char *fmt, const char *arg)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), fmt, arg, arg, arg, arg);
	return system(cmd);
}

/* The full id of @ref in the scratch repository, in @sha. */
static void rev(const char *ref, char sha[41])
{
	char cmd[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "git -C %s rev-parse %s",
		 scratch_path("repo"), ref);
	sha[0] = '\0';
	p = popen(cmd, "r");
	if (p) {
		if (!fgets(sha, 41, p))
			sha[0] = '\0';
		pclose(p);
	}
}

/* main: c0 .. c3, then a merge of side (s1, s2), then c4 and c5. */
static int make_repo(void)
{
	char repo[4096];
	int ret;

	snprintf(repo, sizeof(repo), "%s", scratch_path("repo"));
	ret = sh("git init -q -b main %s && cd %s && "
		 "git config user.name 'A Developer' && "
		 "git config user.email dev@example.invalid && "
		 "for i in 0 1 2 3; do echo $i >f$i && git add f$i && "
		 "git commit -q -m \"commit c$i\"; done && "
		 "git checkout -q -b side HEAD~1 && "
		 "for i in 1 2; do echo $i >s$i && git add s$i && "
		 "git commit -q -m \"side s$i\"; done && "
		 "git checkout -q main && "
		 "git merge -q --no-ff -m 'merge side' side && "
		 "for i in 4 5; do echo $i >f$i && git add f$i && "
		 "git commit -q -m \"commit c$i\"; done",
		 repo);
	if (ret)
		return ret;
	mkdir(scratch_path("data"), 0755);
	mkdir(scratch_path("data/kernels"), 0755);
	mkdir(scratch_path("data/kernels/trees"), 0755);
	mkdir(scratch_path("cache"), 0755);
	ret = sh("printf 'kind: git\\ngit: %s\\nbranch: main\\n' >%s/../data/"
		 "kernels/trees/tg.yaml",
		 repo);
	if (!ret)
		ret = sh("printf 'kind: git\\ngit: %s\\nbranch: main\\n' "
			 ">%s/../data/kernels/trees/other.yaml",
			 repo);
	if (!ret)
		ret = sh("printf 'kind: debian-series\\npackages: "
			 "linux-image-*-rt-amd64\\n' >%s/../data/kernels/"
			 "trees/deb.yaml",
			 repo);
	return ret;
}

static void test_range(void)
{
	struct rtlab_err err = { "" };
	struct bisect_range r;
	char c2[41], mg[41], s2[41], head[41], name[128];
	json_t *d;
	int ret;

	/* The first-parent chain from main: c5, c4, the merge, c3, c2, c1,
	 * c0; the merge's second parent is s2. */
	rev("main~4", c2);
	rev("main~2", mg);
	rev("main~2^2", s2);
	rev("main", head);

	snprintf(name, sizeof(name), "tg@%s", c2);
	ret = bisect_range_git(name, "tg@main", &r, &err);
	CHECK(ret == 0, "tg@c2 .. tg@main: a range (%d: %s)", ret, err.msg);
	CHECK_INT(r.n, 5,
		  "... c2, c3, the merge, c4, c5: the side branch's commits "
		  "are not steps (first parent)");
	if (!ret && r.n == 5) {
		snprintf(name, sizeof(name), "tg@%s", c2);
		CHECK_STR(r.kernels[0], name, "... the good end first");
		snprintf(name, sizeof(name), "tg@%s", head);
		CHECK_STR(r.kernels[4], name,
			  "... the bad end last, by its full commit id");
		snprintf(name, sizeof(name), "tg@%s", mg);
		CHECK_STR(r.kernels[2], name, "... the merge in the middle");
		CHECK_STR(r.tree, "tg", "... of tree tg");
		CHECK_STR(r.ops->kind, "git", "... a git range");
		d = r.ops->describe(&r, 2);
		CHECK_STR(json_string_value(json_object_get(d, "id")), mg,
			  "describe(): the commit id");
		CHECK_STR(json_string_value(json_object_get(d, "subject")),
			  "merge side", "describe(): its subject");
		CHECK_STR(json_string_value(json_object_get(d, "author")),
			  "A Developer <dev@example.invalid>",
			  "describe(): its author");
		json_decref(d);
		d = r.ops->describe(&r, 0);
		CHECK_STR(json_string_value(json_object_get(d, "subject")),
			  "commit c2", "describe() of the good end");
		json_decref(d);
		CHECK_INT(r.ops->prepare(&r, 1, &err), 0,
			  "prepare(): a commit not built yet can be had "
			  "(the job builds it)");
	}
	bisect_range_cleanup(&r);
	bisect_range_cleanup(&r);

	/* a commit of the side branch is an ancestor of main, not on its
	 * first-parent chain: main's first parents it does not hold */
	snprintf(name, sizeof(name), "tg@%.10s", s2);
	ret = bisect_range_git(name, "tg@main", &r, &err);
	CHECK(ret == 0, "a side-branch commit as good: a range (%d: %s)", ret,
	      err.msg);
	CHECK_INT(r.n, 5, "... s2, then c3, the merge, c4, c5");
	bisect_range_cleanup(&r);

	snprintf(name, sizeof(name), "tg@%s", c2);
	ret = bisect_range_git("tg@main", name, &r, &err);
	CHECK_INT(ret, -EINVAL, "good after bad: refused");
	CHECK(strstr(err.msg, "reversed") && strstr(err.msg, "ancestor"),
	      "... 'not an ancestor ... reversed?' (%s)", err.msg);
	CHECK(r.n == 0 && !r.kernels, "... nothing left filled");

	snprintf(name, sizeof(name), "tg@%.10s", s2);
	ret = bisect_range_git(name, "tg@main~3", &r, &err);
	CHECK_INT(ret, -EINVAL, "unrelated ends (side s2, c2): refused");

	snprintf(name, sizeof(name), "tg@%s", head);
	ret = bisect_range_git("tg@main", name, &r, &err);
	CHECK_INT(ret, -EINVAL, "the same commit twice: refused");
	CHECK(strstr(err.msg, "same commit"), "... said so (%s)", err.msg);

	ret = bisect_range_git("tg@main~1", "other@main", &r, &err);
	CHECK_INT(ret, -EINVAL, "two trees: refused");
	CHECK(strstr(err.msg, "one git tree"), "... said so (%s)", err.msg);

	ret = bisect_range_git("deb@a", "deb@b", &r, &err);
	CHECK_INT(ret, -EINVAL, "a Debian tree: refused");
	CHECK(strstr(err.msg, "not a git tree"), "... said so (%s)", err.msg);

	ret = bisect_range_git("tg@nosuchref", "tg@main", &r, &err);
	CHECK_INT(ret, -ENOENT, "an unknown ref: refused");
	CHECK(strstr(err.msg, "nosuchref"), "... named (%s)", err.msg);

	CHECK(bisect_range_is_git("t@a", "t@b") &&
		      !bisect_range_is_git("linux-image-x=1", "t@b"),
	      "TREE@REF on both sides is a git range, anything else not");
}

int main(void)
{
	if (scratch_create("rtlab-bisect-git") || make_repo()) {
		CHECK(0, "a scratch git repository");
		scratch_destroy();
		return check_exit();
	}
	setenv("RTLAB_DATADIR", scratch_path("data"), 1);
	setenv("RTLAB_CACHE_DIR", scratch_path("cache"), 1);
	setenv("RTLAB_STATE_DIR", scratch_path("state"), 1);
	test_range();
	scratch_destroy();
	return check_exit();
}
