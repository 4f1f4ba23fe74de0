#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make install` and `make uninstall`.  Installs the binaries, the data the
# binaries read (schema, testcases, boards, kernels), the docs, the systemd
# units and a commented configuration file in FHS places under
# DESTDIR/prefix, and records every file it wrote in
# DATADIR/install-manifest, so that uninstall removes exactly those (and the
# directories that are left empty), never a configuration file an admin
# changed.
#
#   scripts/install.sh install|uninstall BUILD_DIR
# Variables (from make): DESTDIR prefix bindir datadir docdir unitdir
# sysusersdir sysconfdir create_user (yes: as root without DESTDIR, create
# the rtlab system user with systemd-sysusers; no: never)
set -eu

action=$1
build=${2:-build}
: "${DESTDIR:=}" "${prefix:=/usr/local}"
: "${bindir:=$prefix/bin}" "${datadir:=$prefix/share/rtlab}"
: "${docdir:=$prefix/share/doc/rtlab}"
: "${unitdir:=$prefix/lib/systemd/system}"
: "${sysusersdir:=$prefix/lib/sysusers.d}"
: "${sysconfdir:=/etc}" "${create_user:=yes}"
manifest=$datadir/install-manifest

say() { printf '  %-9s %s\n' "$1" "$2"; }

# put MODE SRC DEST: install one file and record it, and the directories
# it needed that did not exist before ("dir PATH" lines).
put() {
	d=$(dirname "$3")
	while [ "$d" != / ] && [ ! -d "$DESTDIR$d" ]; do
		echo "dir $d" >>"$DESTDIR$manifest.new"
		d=$(dirname "$d")
	done
	install -D -m "$1" "$2" "$DESTDIR$3"
	echo "$3" >>"$DESTDIR$manifest.new"
}

# subst SRC DEST: a unit with its paths filled in.
subst() {
	sed -e "s|@bindir@|$bindir|g" -e "s|@docdir@|$docdir|g" "$1" >"$tmp/unit"
	put 644 "$tmp/unit" "$2"
}

do_install() {
	for b in rtlab rtlab-agent; do
		[ -x "$build/$b" ] || { echo "install: $build/$b is not built (run make)" >&2; exit 1; }
	done
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	d=$datadir created=""
	while [ "$d" != / ] && [ ! -d "$DESTDIR$d" ]; do
		created="dir $d
$created"
		d=$(dirname "$d")
	done
	mkdir -p "$DESTDIR$datadir"
	printf '%s' "$created" >"$DESTDIR$manifest.new"
	say INSTALL "$DESTDIR$bindir/rtlab, rtlab-agent"
	put 755 "$build/rtlab" "$bindir/rtlab"
	put 755 "$build/rtlab-agent" "$bindir/rtlab-agent"
	say INSTALL "$DESTDIR$datadir (schema, testcases, boards, kernels)"
	for f in schema/*.sql testcases/*.yaml testcases/README.md \
		testcases/inject/* boards/*.yaml boards/*.sh boards/README.md \
		kernels/*.yaml kernels/trees/*.yaml kernels/README.md; do
		[ -f "$f" ] || continue
		case "$f" in *.sh) m=755 ;; *) m=644 ;; esac
		put $m "$f" "$datadir/$f"
	done
	say INSTALL "$DESTDIR$docdir"
	for f in README.md docs/*.md; do
		put 644 "$f" "$docdir/$(basename "$f")"
	done
	say INSTALL "$DESTDIR$unitdir (systemd units)"
	for u in systemd/*.service systemd/*.timer; do
		subst "$u" "$unitdir/$(basename "$u")"
	done
	put 644 systemd/rtlab.sysusers "$sysusersdir/rtlab.conf"
	if [ -e "$DESTDIR$sysconfdir/rtlab/rtlab.conf" ]; then
		say KEEP "$DESTDIR$sysconfdir/rtlab/rtlab.conf (exists)"
	else
		say INSTALL "$DESTDIR$sysconfdir/rtlab/rtlab.conf"
		put 644 systemd/rtlab.conf "$sysconfdir/rtlab/rtlab.conf"
	fi
	cp systemd/rtlab.conf "$tmp/conf"
	put 644 "$tmp/conf" "$datadir/rtlab.conf.example"
	echo "$manifest" >>"$DESTDIR$manifest.new"
	mv "$DESTDIR$manifest.new" "$DESTDIR$manifest"
	if [ "$create_user" = yes ] && [ -z "$DESTDIR" ] && [ "$(id -u)" = 0 ] &&
	   command -v systemd-sysusers >/dev/null 2>&1; then
		systemd-sysusers "$sysusersdir/rtlab.conf" &&
			say USER "rtlab (systemd-sysusers)"
	fi
}

do_uninstall() {
	if [ ! -f "$DESTDIR$manifest" ]; then
		echo "uninstall: no $DESTDIR$manifest: nothing installed here (check prefix and DESTDIR)" >&2
		exit 1
	fi
	dirs=""
	while IFS= read -r f; do
		case "$f" in
		"dir "*) dirs="$dirs
${f#dir }"; continue ;;
		"$manifest") continue ;;
		esac
		p=$DESTDIR$f
		if [ "$f" = "$sysconfdir/rtlab/rtlab.conf" ] && [ -f "$p" ] &&
		   ! cmp -s "$p" "$DESTDIR$datadir/rtlab.conf.example"; then
			say KEEP "$p (changed since installed)"
			continue
		fi
		rm -f "$p"
	done <"$DESTDIR$manifest"
	rm -f "$DESTDIR$manifest"
	say REMOVE "every file in $DESTDIR$manifest"
	# The directories install created, deepest first, if now empty.
	printf '%s\n' "$dirs" | sort -ru | while IFS= read -r d; do
		[ -n "$d" ] && rmdir "$DESTDIR$d" 2>/dev/null || true
	done
}

case "$action" in
install) do_install ;;
uninstall) do_uninstall ;;
*) echo "usage: scripts/install.sh install|uninstall [BUILD_DIR]" >&2; exit 2 ;;
esac
