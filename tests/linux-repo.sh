#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A git repository of Debian's linux-source-6.12 (PREEMPT_RT is in
# mainline since 6.12), for the tests of git trees, builds and bisection:
# the source as one commit "Linux 6.12.N" on branch main, made once under
# $RTLAB_CACHE_DIR/src/ and reused (~30 s to make).  Prints its path.
#
#   sh tests/linux-repo.sh
set -eu
cache=${RTLAB_CACHE_DIR:?}
tarball=/usr/src/linux-source-6.12.tar.xz
repo=$cache/src/linux-6.12
if git -C "$repo" rev-parse --verify -q main >/dev/null 2>&1; then
	echo "$repo"
	exit 0
fi
[ -f "$tarball" ] || {
	echo "linux-repo: $tarball is missing (make deps installs linux-source-6.12)" >&2
	exit 1
}
mkdir -p "$cache/src"
tmp=$cache/src/.linux-6.12.tmp.$$
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp"
echo "linux-repo: unpacking $tarball into a git repository (once)" >&2
tar -xJf "$tarball" -C "$tmp" --strip-components=1
# Debian's packaging ignores every top-level file; the repository is the
# kernel's own tree, so its .gitignore is the kernel's
sed -i '/^# Debian packaging/,$d' "$tmp/.gitignore"
version=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = /./p; s/^SUBLEVEL = /./p' "$tmp/Makefile" | tr -d '\n')
git -C "$tmp" init -q -b main
# its ~90,000 objects stay loose: an automatic gc would spend minutes of
# CPU packing them (clones of it hard-link them instead)
git -C "$tmp" config gc.auto 0
git -C "$tmp" add -A
GIT_AUTHOR_DATE='2025-01-01T00:00:00Z' GIT_COMMITTER_DATE='2025-01-01T00:00:00Z' \
	git -C "$tmp" -c user.name='rtlab tests' -c user.email=tests@rtlab.invalid \
	commit -q -m "Linux $version"
rm -rf "$repo"
mv "$tmp" "$repo"
trap - EXIT
echo "$repo"
