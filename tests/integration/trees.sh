#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Kernel trees discovered through apt, against a local apt repository the
# test makes (a flat file: repository of fake-named kernel packages, read
# through APT_CONFIG, so neither the machine's apt state nor the network
# is touched).  The tree's kernels come in Debian version order (not name
# order); a second discovery finds nothing new; a package added to the
# repository is found as the one new kernel; bad definitions and a broken
# apt give errors naming the file, field or tree.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-trees.XXXXXX) || exit 1
on_exit "rm -rf '$work'"
apt_repo_init rtlabtest

# Name order (100 < 99 < 98-dbg) is not version order (98 < 99 < 100).
apt_repo_deb 99 6.1.99-1
apt_repo_deb 100 6.1.100-1
apt_repo_deb 98 6.1.98-2
check "a local apt repository with three kernels" apt_repo_publish
cat >"$work/t.yaml" <<'YAML'
description: test tree
kind: debian-series
packages: linux-image-6.1.0-*-rtlabtest-amd64
YAML

"$RTLAB" tree discover --dry-run "$work/t.yaml" >"$work/dry.out" 2>&1
check "discover --dry-run lists the three, oldest first" \
	test "$(awk '/^ +[0-9]/ {printf "%s ", $3}' "$work/dry.out")" = \
	"6.1.98-2 6.1.99-1 6.1.100-1 "
check "... each marked new" test "$(grep -c ' new$' "$work/dry.out")" = 3

need_db
sql() { "$RTLAB" db psql -X -q -t -A -c "$1"; }
check "--dry-run recorded nothing" \
	test "$(sql 'SELECT count(*) FROM tree_kernels')" = 0
"$RTLAB" tree discover "$work/t.yaml" >"$work/d1.out" 2>&1
check "discover records the tree: 3 new" has "$work/d1.out" "^tree t: 3 new, recorded"
check "... in version order" \
	test "$(sql "SELECT string_agg(version, ' ' ORDER BY position) FROM tree_kernels WHERE tree = 't'")" = "6.1.98-2 6.1.99-1 6.1.100-1"
"$RTLAB" tree discover "$work/t.yaml" >"$work/d2.out" 2>&1
check "a second discovery: nothing new" has "$work/d2.out" "^tree t: 0 new, recorded"
check "... and marks none new" test "$(grep -c ' new$' "$work/d2.out")" = 0

apt_repo_deb 101 6.1.101-1
check "a fourth kernel published" apt_repo_publish
"$RTLAB" tree discover "$work/t.yaml" >"$work/d3.out" 2>&1
check "the next discovery finds exactly the new one" \
	sh -c "grep -q '^tree t: 1 new, recorded' '$work/d3.out' && test \$(grep -c ' new\$' '$work/d3.out') = 1 && grep ' new\$' '$work/d3.out' | grep -q 6.1.101-1"
"$RTLAB" tree show t >"$work/show.out" 2>&1
check "tree show lists the four, oldest first" \
	sh -c "test \$(grep -c rtlabtest '$work/show.out') = 4 && tail -n 1 '$work/show.out' | grep -q 6.1.101-1"
"$RTLAB" tree show --json t >"$work/show.json"
check "tree show --json" jqt 'length == 4 and .[3].position == 3' "$work/show.json"

# -- the lab's own trees ----------------------------------------------------
"$RTLAB" tree list >"$work/list.out" 2>&1
check "tree list shows the lab's trees" \
	sh -c "grep -q '^debian-6.1-rt .*linux-image-6.1.0-\*-rt-amd64' '$work/list.out' && grep -q '^debian-6.12-rt ' '$work/list.out'"
"$RTLAB" tree discover --dry-run debian-6.1-rt >"$work/lab.out" 2>&1
check "a lab tree that the repository does not hold: 0 kernels, no error" \
	has "$work/lab.out" "^tree debian-6.1-rt: 0 kernels"

# -- bad input -------------------------------------------------------------
printf 'kind: svn\npackages: a*\n' >"$work/bad1.yaml"
"$RTLAB" tree discover --dry-run "$work/bad1.yaml" >"$work/bad.out" 2>&1
check "an unknown kind: exit 1, naming file, line and field" \
	sh -c "test $? = 1 && grep -q 'bad1.yaml: line 1: field .kind.: expected .debian-series. or .git., got .svn.' '$work/bad.out'"
printf 'kind: debian-series\npackages: linux-image-rt-amd64\n' >"$work/bad2.yaml"
"$RTLAB" tree discover --dry-run "$work/bad2.yaml" >"$work/bad.out" 2>&1
check "packages without a glob: refused, naming the field" \
	has "$work/bad.out" "bad2.yaml: line 2: field 'packages': 'linux-image-rt-amd64' is not a glob"
printf 'kind: debian-series\npackages: a*\nbranch: main\n' >"$work/bad3.yaml"
"$RTLAB" tree discover --dry-run "$work/bad3.yaml" >"$work/bad.out" 2>&1
check "an unknown field: refused, naming it" has "$work/bad.out" "branch"
"$RTLAB" tree discover --dry-run nosuch >"$work/bad.out" 2>&1
check "an unknown tree name: says how to list them" has "$work/bad.out" "rtlab tree list"
echo 'Dir::Etc::SourceList "/nonexistent/sources.list"; this is not apt syntax' \
	>"$work/broken.conf"
APT_CONFIG=$work/broken.conf "$RTLAB" tree discover --dry-run "$work/t.yaml" \
	>"$work/bad.out" 2>&1
check "apt failing: exit 1, naming the tree and the apt command" \
	sh -c "test $? = 1 && grep -q 'tree t: apt-cache pkgnames linux-image-6.1.0-' '$work/bad.out'"
"$RTLAB" tree discover >"$work/bad.out" 2>&1
check "discover with neither names nor --all: usage error" test $? = 2

# -- a tree's kernel by PACKAGE=VERSION ----------------------------------------
"$RTLAB" kernel fetch --cache "$work/kc" \
	linux-image-6.1.0-99-rtlabtest-amd64=6.1.99-1 >"$work/fetch.out" 2>&1
rc=$?
# the test's packages hold no kernel: apt found, downloaded and unpacked
# it, and the check of its contents says what is missing
check "kernel fetch PACKAGE=VERSION fetches that package through apt ($rc)" \
	sh -c "test $rc = 1 && grep -q 'package linux-image-6.1.0-99-rtlabtest-amd64=6.1.99-1 has no single lib/modules' '$work/fetch.out'"
"$RTLAB" kernel fetch 'Bad=1' >"$work/fetch.out" 2>&1
check "a malformed PACKAGE=VERSION: says what is expected" \
	has "$work/fetch.out" "expected a definition name, a FILE.yaml or PACKAGE=VERSION"
