#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Install the Debian 12 packages rtlab needs to build, test and run its
# demo.  Idempotent, and silent when everything is already there.
set -eu

PKGS="
gcc make pkg-config
gcc-12 libelf1
libjansson-dev libyaml-dev libarchive-dev libcurl4-openssl-dev
libmicrohttpd-dev libpq-dev uuid-dev libssl-dev
libtracefs-dev libtraceevent-dev libtracecmd-dev
postgresql-15 postgresql-client-15
rt-tests stress-ng iperf3 trace-cmd rtla
gnuplot-nox
qemu-system-x86 busybox-static cpio kmod dpkg-dev iputils-ping
procps iproute2 curl valgrind
clang libclang-rt-14-dev
jq python3 python3-jsonschema
chromium fonts-liberation fonts-dejavu-core
"

missing=""
for p in $PKGS; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$s" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "rtlab: missing Debian packages:$missing" >&2
	echo "rtlab: run 'make deps' as root, or install them with apt-get" >&2
	exit 1
fi
echo "rtlab: installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
