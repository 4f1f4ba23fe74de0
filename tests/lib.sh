# SPDX-License-Identifier: GPL-2.0-or-later
#
# Helpers for the integration tests; source it first:
#
#   . "$(dirname "$0")/../lib.sh"
#
#   ok NAME / not_ok NAME      print a result line
#   check NAME CMD...          run CMD; "ok - NAME" if it succeeds
#   on_exit 'kill $PID'        register a cleanup (run last-in first-out
#                              when the script exits, also on INT/TERM)
#   start_db                   a throwaway embedded PostgreSQL: temporary
#                              RTLAB_STATE_DIR (exported), 'rtlab db start',
#                              stopped and removed on exit
#   start_server DIR [ARGS]    'rtlab server --listen 127.0.0.1:0 ARGS',
#                              output in DIR/server.out and server.log,
#                              stopped on exit; sets SPID, PORT and URL
#   $RTLAB, $AGENT             the binaries of $RTLAB_BUILD (default build/)
#   $TOP                       the source tree
#   $RTLAB_CACHE_DIR           kernel and initramfs cache shared by all tests
#   tree_cache                 use the lab's cache ($RTLAB_TEST_TREE_CACHE,
#                              default /var/lib/rtlab/cache) instead, for
#                              kernel trees built from source
#   vboard_boot LABEL WHAT TESTCASE [BOOT OPTIONS]
#                              one run on the virtual board (qemu-icount,
#                              debian-rt unless the options say otherwise)
#                              that must complete; its files in $work/LABEL/,
#                              its manifest in $m; returns 1 without a bundle

TOP=${RTLAB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RTLAB_BUILD=${RTLAB_BUILD:-$TOP/build}
case $RTLAB_BUILD in
/*) ;;
*) RTLAB_BUILD=$TOP/$RTLAB_BUILD ;;
esac
RTLAB=$RTLAB_BUILD/rtlab
AGENT=$RTLAB_BUILD/rtlab-agent
export RTLAB_TOP="$TOP" RTLAB_BUILD
# Fetched kernels and initramfs archives are shared by every test (and kept
# between runs), so a kernel is downloaded once.
RTLAB_CACHE_DIR=${RTLAB_CACHE_DIR:-$RTLAB_BUILD/cache}
export RTLAB_CACHE_DIR
# Kernel trees the tests build (mirrors, worktrees, build directories,
# ccache: minutes of CPU from cold) go to the lab's own cache, which a new
# clone on the same machine finds again: `tree_cache` switches a test to it.
RTLAB_TEST_TREE_CACHE=${RTLAB_TEST_TREE_CACHE:-/var/lib/rtlab/cache}
tree_cache() {
	mkdir -p "$RTLAB_TEST_TREE_CACHE" || return 1
	RTLAB_CACHE_DIR=$RTLAB_TEST_TREE_CACHE
	export RTLAB_CACHE_DIR
}
# Tests choose their database themselves, and never read the lab
# configuration of the machine they run on (/etc/rtlab/rtlab.conf).
unset RTLAB_DB
RTLAB_CONFIG=$RTLAB_BUILD/test-empty-rtlab.conf
[ -f "$RTLAB_CONFIG" ] || : >"$RTLAB_CONFIG"
export RTLAB_CONFIG

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }

check() {
	_name=$1
	shift
	if "$@"; then
		ok "$_name"
	else
		not_ok "$_name"
	fi
}

_rtlab_cleanups=""

on_exit() {
	_rtlab_cleanups="$1
$_rtlab_cleanups"
}

cleanup() {
	_rc=$?
	trap - EXIT INT TERM
	while IFS= read -r _c; do
		[ -n "$_c" ] && eval "$_c"
	done <<EOF_CLEANUPS
$_rtlab_cleanups
EOF_CLEANUPS
	_rtlab_cleanups=""
	exit "$_rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start_db: prints nothing on success; on failure prints why and returns 1.
start_db() {
	RTLAB_STATE_DIR=$(mktemp -d /tmp/rtlab-test.XXXXXX) || return 1
	# initdb and the server run as 'postgres' when we are root.
	chmod 755 "$RTLAB_STATE_DIR"
	export RTLAB_STATE_DIR
	on_exit "rm -rf '$RTLAB_STATE_DIR'"
	on_exit "RTLAB_STATE_DIR='$RTLAB_STATE_DIR' '$RTLAB' db stop >/dev/null 2>&1"
	if ! "$RTLAB" db start >"$RTLAB_STATE_DIR/start.log" 2>&1; then
		echo "start_db: 'rtlab db start' failed:"
		cat "$RTLAB_STATE_DIR/start.log"
		return 1
	fi
}

# need_db: start_db, reported as the test's first check; the test stops
# when there is no database.
need_db() {
	if ! start_db; then
		not_ok "throwaway database starts"
		exit 1
	fi
	ok "throwaway database starts"
}

# start_server DIR [ARGS...]: returns 1, saying why, when it does not come up.
start_server() {
	_dir=$1
	shift
	"$RTLAB" server --listen 127.0.0.1:0 "$@" >"$_dir/server.out" \
		2>"$_dir/server.log" &
	SPID=$!
	on_exit "kill $SPID 2>/dev/null; wait $SPID 2>/dev/null"
	# Wait while it is starting (alive, not yet listening); the cap is
	# only a last resort against a server stuck before it listens.
	_i=0
	while ! grep -q 'listening on' "$_dir/server.out" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -gt 1200 ] || ! kill -0 $SPID 2>/dev/null; then
			echo "start_server: rtlab server did not come up:"
			cat "$_dir/server.out" "$_dir/server.log"
			return 1
		fi
		sleep 0.1
	done
	PORT=$(sed -n 's/^rtlab server: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
		"$_dir/server.out")
	URL=http://127.0.0.1:$PORT
	[ -n "$PORT" ]
}

# has FILE REGEX: FILE has a line matching REGEX (shows FILE when it does not).
has() {
	if grep -Eq -- "$2" "$1"; then return 0; fi
	echo "# $1 lacks /$2/:"; sed 's/^/#   /' "$1" | head -n 30
	return 1
}

# jqt JQ-ARGS... FILE: jq -e, quietly.
jqt() {
	jq -e "$@" >/dev/null
}

# The HTTP helpers talk to the server start_server started ($URL); the
# response body lands in $work/resp.

# upload FILE [TOKEN]: posts bundle FILE as the board of TOKEN (default
# $TOKEN); prints the HTTP status.
upload() {
	curl -s -o "$work/resp" -w '%{http_code}' \
		-H "Authorization: Bearer ${2-$TOKEN}" \
		-H 'Content-Type: application/gzip' \
		--data-binary @"$1" "$URL/api/v1/runs"
}

# get PATH: prints the HTTP status of GET $URL/PATH.
get() {
	curl -s -o "$work/resp" -w '%{http_code}' "$URL$1"
}

# A local flat apt repository of fake-named kernel packages, read through
# APT_CONFIG, so kernel trees can be discovered without a network.
# apt_repo_init FLAVOUR: makes it under $work and exports APT_CONFIG;
# apt_repo_deb ABI VERSION: adds linux-image-6.1.0-ABI-FLAVOUR-amd64;
# apt_repo_publish: indexes the repository and runs apt-get update.
apt_repo_init() {
	apt_flavour=$1
	mkdir -p "$work/repo" "$work/lists/partial" \
		"$work/cache/archives/partial" "$work/parts"
	echo "deb [trusted=yes] file:$work/repo ./" >"$work/sources.list"
	cat >"$work/apt.conf" <<CONF
Dir::Etc::SourceList "$work/sources.list";
Dir::Etc::SourceParts "$work/parts";
Dir::State::Lists "$work/lists";
Dir::Cache "$work/cache";
Acquire::Languages "none";
APT::Sandbox::User "root";
CONF
	export APT_CONFIG="$work/apt.conf"
}
apt_repo_deb() {
	_d=$work/pkg-$1
	mkdir -p "$_d/DEBIAN"
	cat >"$_d/DEBIAN/control" <<CTRL
Package: linux-image-6.1.0-$1-$apt_flavour-amd64
Version: $2
Architecture: amd64
Maintainer: rtlab tests <rtlab@localhost>
Description: a kernel package name for rtlab's tests
CTRL
	dpkg-deb -b "$_d" "$work/repo/k$1.deb" >/dev/null
}
apt_repo_publish() {
	(cd "$work/repo" && dpkg-scanpackages . /dev/null >Packages 2>/dev/null) &&
		apt-get update -q >"$work/update.log" 2>&1
}

# start_notify_sink: a mail (SMTP) and webhook sink on loopback that keeps
# what it receives under $work/sink; sets SMTP_PORT and HOOK_PORT.
start_notify_sink() {
	mkdir -p "$work/sink"
	python3 "$TOP/tests/notify-sink.py" "$work/sink" >"$work/sink.out" 2>&1 &
	_sink=$!
	on_exit "kill $_sink 2>/dev/null"
	# it prints its ports once listening; waiting ends if it dies instead
	while ! grep -q '^smtp' "$work/sink.out" && kill -0 $_sink 2>/dev/null; do
		sleep 0.1
	done
	SMTP_PORT=$(awk '/^smtp/ {print $2}' "$work/sink.out")
	HOOK_PORT=$(awk '/^smtp/ {print $4}' "$work/sink.out")
}

# vboard_boot LABEL WHAT TESTCASE [BOOT OPTIONS]: 'rtlab boot' of TESTCASE,
# checked ("WHAT: ... status complete"), the bundle unpacked into
# $work/LABEL/ and $m set to its manifest; 'rtlab boot' says in
# $work/LABEL.out.  The board's state is $RTLAB_TEST_STATE (shared by the
# virtual-board tests, default build/test-state).
vboard_boot() {
	label=$1 what=$2 tc=$3
	shift 3
	vb_state=${RTLAB_TEST_STATE:-$RTLAB_BUILD/test-state}
	mkdir -p "$vb_state"
	RTLAB_STATE_DIR=$vb_state "$RTLAB" boot --board qemu-icount \
		--kernel debian-rt --testcase "$tc" \
		--out "$work/$label.bundle" -q "$@" >"$work/$label.out" 2>&1
	rc=$?
	check "$what: rtlab boot, status complete (exit $rc)" test $rc = 0
	if [ ! -s "$work/$label.bundle" ]; then
		not_ok "$what: a bundle came back"
		sed 's/^/#   /' "$work/$label.out" | tail -n 20
		return 1
	fi
	rm -rf "$work/$label"
	mkdir "$work/$label"
	tar xzf "$work/$label.bundle" -C "$work/$label"
	m=$work/$label/manifest.json
}
