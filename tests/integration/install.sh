#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rtlab as a lab admin installs it: `make install DESTDIR=...`, then the
# installed rtlab — with no source tree in reach — creates its database,
# migrates, serves, and stores one upload from the installed agent;
# `make uninstall` removes exactly what was installed (and keeps a changed
# configuration file).  The systemd units pass `systemd-analyze verify`.
# `make deps` names a package apt cannot install, and `make` without the
# libraries says to run `make deps`.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-install.XXXXXX) || exit 1
chmod 755 "$work"
on_exit "rm -rf '$work'"
dest=$work/dest
mk() { make -s -C "$TOP" BUILD="$RTLAB_BUILD" "$@"; }

# -- install into DESTDIR ----------------------------------------------------
check "make install DESTDIR= works" mk install DESTDIR="$dest" >"$work/install.log" 2>&1
bin=$dest/usr/local/bin
data=$dest/usr/local/share/rtlab
for f in "$bin/rtlab" "$bin/rtlab-agent" "$data/schema/001_init.sql" \
	"$data/testcases/cyclictest-idle.yaml" "$data/boards/qemu-icount.yaml" \
	"$data/kernels/debian-rt.yaml" "$data/kernels/trees/debian-6.1-rt.yaml" \
	"$dest/usr/local/share/doc/rtlab/database.md" \
	"$dest/usr/local/lib/systemd/system/rtlab-server.service" \
	"$dest/usr/local/lib/systemd/system/rtlab-worker@.service" \
	"$dest/usr/local/lib/sysusers.d/rtlab.conf" "$dest/etc/rtlab/rtlab.conf"; do
	check "installed ${f#$dest}" test -f "$f"
done
check "units name the installed binary" \
	grep -q '^ExecStart=/usr/local/bin/rtlab server' \
	"$dest/usr/local/lib/systemd/system/rtlab-server.service"

# -- the installed rtlab, far from the source tree ---------------------------
# A copy of the installed tree elsewhere: nothing under it points back.
run_installed() {
	(cd / && env -u RTLAB_DATADIR -u RTLAB_AGENT RTLAB_STATE_DIR="$state" \
		RTLAB_CONFIG="$dest/etc/rtlab/rtlab.conf" "$@")
}
state=$work/state
mkdir -p "$state" && chmod 755 "$state"
on_exit "RTLAB_STATE_DIR='$state' '$bin/rtlab' db stop >/dev/null 2>&1"
if run_installed "$bin/rtlab" db start >"$work/db.log" 2>&1; then
	ok "installed rtlab starts its database"
else
	not_ok "installed rtlab starts its database"
	cat "$work/db.log"
fi
check "it read the installed schema" grep -q "$data/schema" "$work/db.log"
check "installed rtlab db migrate" run_installed "$bin/rtlab" db migrate
token=$(run_installed "$bin/rtlab" board add inst --kind local --quiet)
check "installed rtlab registers a board" test ${#token} = 64
(cd / && RTLAB_STATE_DIR="$state" RTLAB_CONFIG="$dest/etc/rtlab/rtlab.conf" \
	"$bin/rtlab" server --listen 127.0.0.1:0 >"$work/server.out" \
	2>"$work/server.log") &
spid=$!
on_exit "kill $spid 2>/dev/null; wait $spid 2>/dev/null"
while ! grep -q 'listening on' "$work/server.out" 2>/dev/null &&
	kill -0 $spid 2>/dev/null; do
	sleep 0.1
done
port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/server.out")
check "installed rtlab serves" test -n "$port"
if run_installed "$bin/rtlab-agent" run --testcase \
	"$data/testcases/cyclictest-idle.yaml" --duration 1 --board inst \
	--clock host --upload "http://127.0.0.1:$port/api/v1/runs" \
	--token "$token" --spool "$work/spool" >"$work/agent.log" 2>&1; then
	ok "installed agent uploads a run"
else
	not_ok "installed agent uploads a run"
	cat "$work/agent.log" "$work/server.log"
fi
n=$(run_installed "$bin/rtlab" runs --board inst 2>/dev/null | grep -c complete)
check "the run is stored (runs: $n)" test "$n" = 1
kill $spid 2>/dev/null
wait $spid 2>/dev/null
run_installed "$bin/rtlab" db stop >/dev/null 2>&1

# -- uninstall ---------------------------------------------------------------
check "make uninstall DESTDIR= works" mk uninstall DESTDIR="$dest" >"$work/uninstall.log" 2>&1
left=$(find "$dest" -mindepth 1 | head -5)
check "uninstall leaves nothing behind (left: $left)" test -z "$left"
mkdir -p "$dest/usr/local/lib/python3"
mk install DESTDIR="$dest" >/dev/null 2>&1
echo "listen = 127.0.0.1:9999" >>"$dest/etc/rtlab/rtlab.conf"
mk uninstall DESTDIR="$dest" >"$work/uninstall2.log" 2>&1
check "uninstall keeps a configuration file the admin changed" \
	grep -q 9999 "$dest/etc/rtlab/rtlab.conf"
check "uninstall says it kept it" grep -q "KEEP.*rtlab.conf" "$work/uninstall2.log"
check "uninstall keeps directories it did not create" \
	test -d "$dest/usr/local/lib/python3"
check "uninstall removed the binaries" test ! -e "$bin/rtlab"
st=0
mk uninstall DESTDIR="$work/never" >"$work/uninstall3.log" 2>&1 || st=$?
check "uninstall where nothing was installed fails, saying so" \
	sh -c "test $st != 0 && grep -q 'nothing installed here' '$work/uninstall3.log'"

# -- systemd units -----------------------------------------------------------
# Installed under a prefix of their own, so the paths the units name exist.
pre=$work/prefix
mk install prefix="$pre/usr" sysconfdir="$pre/etc" create_user=no >/dev/null 2>&1
units=$pre/usr/lib/systemd/system
cp "$units/rtlab-worker@.service" "$work/rtlab-worker@qemu-icount.service"
for u in "$units/rtlab-server.service" "$units/rtlab-db.service" \
	"$work/rtlab-worker@qemu-icount.service"; do
	if systemd-analyze verify "$u" >"$work/verify.log" 2>&1 &&
		! grep -q . "$work/verify.log"; then
		ok "systemd-analyze verify $(basename "$u")"
	else
		not_ok "systemd-analyze verify $(basename "$u")"
		cat "$work/verify.log"
	fi
done
check "server unit is hardened" grep -q '^ProtectSystem=strict' "$units/rtlab-server.service"
check "server unit drops privileges" grep -q '^NoNewPrivileges=yes' "$units/rtlab-server.service"
check "units run as the rtlab user" grep -q '^User=rtlab' "$units/rtlab-worker@.service"

# -- bad set-up input ---------------------------------------------------------
st=0
TMPDIR=$work sh "$TOP/scripts/deps.sh" rtlab-no-such-package >"$work/deps.log" 2>&1 || st=$?
check "deps fails on a package apt cannot install" test "$st" != 0
check "deps shows apt's error naming the package" \
	grep -q "Unable to locate package rtlab-no-such-package" "$work/deps.log"
check "deps says what to do" grep -q "run 'make deps' again" "$work/deps.log"
check "deps keeps apt's full log in TMPDIR and names it" \
	sh -c "ls '$work'/rtlab-deps.* >/dev/null && grep -q 'full log: $work/rtlab-deps.' '$work/deps.log'"
# make without a library pkg-config knows: a clear message, no compiler noise
st=0
PKG_CONFIG_LIBDIR=$work/empty make -s -C "$TOP" BUILD="$work/b" all \
	>"$work/nolibs.log" 2>&1 || st=$?
check "make without the libraries fails" test "$st" != 0
check "and says to run make deps" grep -q "run 'make deps'" "$work/nolibs.log"
check "naming the library" grep -q "does not find:.*jansson" "$work/nolibs.log"
check "before compiling anything" sh -c "! grep -q 'error:' '$work/nolibs.log'"
