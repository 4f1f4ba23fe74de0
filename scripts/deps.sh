#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Install the Debian 12 packages rtlab needs to build, test and run its
# demo.  Idempotent, and silent when everything is already there (one
# dpkg-query, well under a second).  Prints what it installs; when apt
# cannot install something it stops with apt's own error and what to do.
set -eu

PKGS="
gcc make pkg-config
gcc-12 libelf1
libjansson-dev libyaml-dev libarchive-dev libcurl4-openssl-dev
libmicrohttpd-dev libpq-dev uuid-dev libssl-dev zlib1g-dev
libtracefs-dev libtraceevent-dev libtracecmd-dev libkmod-dev
postgresql-15 postgresql-client-15
rt-tests stress-ng iperf3 trace-cmd rtla xz-utils
gnuplot-nox
qemu-system-x86 busybox-static cpio kmod dpkg-dev iputils-ping
openssh-client dropbear-bin kexec-tools
procps iproute2 curl valgrind
clang libclang-rt-14-dev
jq python3 python3-jsonschema
clang-format
chromium fonts-liberation fonts-dejavu-core
systemd
lava-dispatcher lava-server
git ccache linux-source-6.12 bc flex bison libelf-dev
"
# lava-server: its postinst creates its database only when a PostgreSQL
# answers pg_isready, and skips that otherwise (without systemd nothing
# starts the system's cluster), so it installs unattended either way;
# rtlab never uses that database: tests/integration/lava-server.sh gives
# lava-server one in the test's own PostgreSQL (docs/lava.md).
# git ccache bc flex bison libelf-dev: what `rtlab build` needs to build a
# kernel from a git tree (kbuild's own tools; objtool links libelf);
# linux-source-6.12: the tree the tests build and bisect.
# Further packages named on the command line (tests use it to see how a
# package apt cannot install is reported).
PKGS="$PKGS $*"

# One dpkg-query for all of them: "name status" per installed package.
installed=$(dpkg-query -W -f='${binary:Package} ${db:Status-Abbrev}\n' \
	$PKGS 2>/dev/null || true)
missing=""
for p in $PKGS; do
	if ! printf '%s\n' "$installed" | grep -q "^$p\(:[a-z0-9]*\)\? ii"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "rtlab: missing Debian packages:$missing" >&2
	echo "rtlab: run 'make deps' as root, or install them with apt-get" >&2
	exit 1
fi

log=$(mktemp "${TMPDIR:-/tmp}/rtlab-deps.XXXXXX")
fail() {
	echo "rtlab: $1 failed; apt said:" >&2
	grep -E '^(E|W|Err):' "$log" >&2 || tail -n 15 "$log" >&2
	echo "rtlab: $2" >&2
	echo "rtlab: nothing of rtlab was built; run 'make deps' again once that is fixed (full log: $log)" >&2
	exit 1
}

export DEBIAN_FRONTEND=noninteractive
echo "rtlab: installing Debian packages:$missing"
echo "rtlab: (apt-get; a few minutes on a new machine)"
# A dpkg run interrupted earlier (a killed install) would make every
# later apt-get refuse: finish it first.
dpkg --configure -a >>"$log" 2>&1 ||
	fail "dpkg --configure -a" "repair the package database (dpkg --audit)"
apt-get update -q >>"$log" 2>&1 ||
	fail "apt-get update" "the package archive is unreachable or a source in /etc/apt/sources.list* is wrong"
# apt-get update exits 0 when some lists could not be fetched.
if grep -qE '^(Err|W: Failed to fetch|E:)' "$log"; then
	fail "apt-get update" "the package archive is unreachable or a source in /etc/apt/sources.list* is wrong"
fi
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >>"$log" 2>&1 ||
	fail "apt-get install" "a package above could not be installed (is this Debian 12 with its main archive and security updates?)"
rm -f "$log"
echo "rtlab: Debian packages installed"
