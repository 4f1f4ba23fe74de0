#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The documentation and the code agree (scripts/check-docs.py): commands,
# subcommands and flags of the built binaries' --help, the environment
# table, the getenv() calls and the HTTP routes, both ways.  Then the
# checker itself: drift planted in temporary copies (an undocumented flag,
# a doc that lost a line, a fake route, a changed README row, a variable
# read but not listed, a flag that does not exist) must make it fail and
# name the item.
set -u

. "$(dirname "$0")/../lib.sh"

tmp=$(mktemp -d /tmp/rtlab-docs-test.XXXXXX)
on_exit 'rm -rf "$tmp"'
checker="python3 $TOP/scripts/check-docs.py --top $TOP"

# The real tree: its ok / not ok lines are this test's.
$checker
real=$?
check "the docs check passes on the tree" [ "$real" = 0 ]

# The documents as they are, in a directory the plants can edit.
mkdir -p "$tmp/docs"
docs_args() {	# directory -> --doc arguments for every file in it
	for f in "$1"/*.md; do
		printf ' --doc %s' "$f"
	done
}
copy_docs() {	# directory
	rm -rf "$1" && mkdir -p "$1"
	cp "$TOP/README.md" "$1/README.md"
	for f in "$TOP"/docs/*.md; do
		cp "$f" "$1/docs-$(basename "$f")"
	done
	for f in "$TOP"/*/README.md; do
		[ -f "$f" ] || continue
		cp "$f" "$1/$(basename "$(dirname "$f")")-README.md"
	done
}

# planted: NAME, then the checker's arguments; passes when the checker
# fails and its "not ok" lines contain every word given after "--".
planted() {
	_name=$1
	shift
	_args=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_args="$_args $1"
		shift
	done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086
	$checker $_args >"$tmp/out" 2>&1
	_rc=$?
	grep '^not ok - ' "$tmp/out" | sed 's/^not ok - /    | /' \
		>"$tmp/fails"
	if [ "$_rc" = 0 ]; then
		not_ok "$_name: the checker passed"
		return
	fi
	for _w in "$@"; do
		if ! grep -qF -- "$_w" "$tmp/fails"; then
			not_ok "$_name: no failure names '$_w'"
			sed 's/^/    /' "$tmp/out"
			return
		fi
	done
	ok "$_name"
	sed 's/^/#/' "$tmp/fails"
}

# A copy of the docs on which the checker passes: the plants' baseline.
copy_docs "$tmp/base"
# shellcheck disable=SC2046
if $checker $(docs_args "$tmp/base") >"$tmp/out" 2>&1; then
	ok "the checker passes on a copy of the docs"
else
	not_ok "the checker passes on a copy of the docs"
	sed 's/^/    /' "$tmp/out"
fi

# 1. a flag in --help that no document mentions
cat >"$tmp/rtlab" <<EOF
#!/bin/sh
"$RTLAB" "\$@"
rc=\$?
if [ "\$1" = runs ] && [ "\${2:-}" = --help ]; then
	echo "  --planted-flag      a flag nobody documented"
fi
exit \$rc
EOF
chmod +x "$tmp/rtlab"
# shellcheck disable=SC2046
planted "an undocumented flag in --help fails" \
	--rtlab "$tmp/rtlab" $(docs_args "$tmp/base") \
	-- "'rtlab runs --planted-flag'" "rtlab runs --help"

# 2. a document that lost the lines naming a flag
copy_docs "$tmp/d2"
sed -i '/--threads/d' "$tmp/d2"/*.md
# shellcheck disable=SC2046
planted "a flag whose doc lines were removed fails" \
	$(docs_args "$tmp/d2") -- "'rtlab server --threads'"

# 3. a route the HTTP code serves and no document names
cat >"$tmp/planted-route.c" <<'EOF'
/* MHD_ */
static int route(const char *path)
{
	return !strcmp(path, "/api/v1/planted-route");
}
EOF
# shellcheck disable=SC2046
planted "an undocumented route fails" \
	--src "$tmp/planted-route.c" $(docs_args "$tmp/base") \
	-- "planted-route" "planted-route.c:4"

# 4. a documented route nothing serves
copy_docs "$tmp/d4"
echo '| `GET /api/v1/vanished` | planted |' >>"$tmp/d4/docs-api.md"
# shellcheck disable=SC2046
planted "a documented route nobody serves fails" \
	$(docs_args "$tmp/d4") -- "docs-api.md" "vanished"

# 5. README's environment table says something else than the code
copy_docs "$tmp/d5"
sed -i 's/^| `RTLAB_DB` | [^|]*|/| `RTLAB_DB` | something else |/' \
	"$tmp/d5/README.md"
# shellcheck disable=SC2046
planted "a README environment row that differs from --help fails" \
	$(docs_args "$tmp/d5") -- "RTLAB_DB means 'something else'"

# 6. a variable the code reads and the table lacks
cat >"$tmp/planted-env.c" <<'EOF'
static const char *planted(void)
{
	return getenv("RTLAB_PLANTED_VARIABLE");
}
EOF
# shellcheck disable=SC2046
planted "a variable read with getenv() and not in the table fails" \
	--src "$tmp/planted-env.c" $(docs_args "$tmp/base") \
	-- "RTLAB_PLANTED_VARIABLE" "planted-env.c"

# 7. a document naming a flag, a subcommand and a command that do not exist
copy_docs "$tmp/d7"
cat >>"$tmp/d7/docs-api.md" <<'EOF'

    rtlab runs --no-such-flag
    rtlab db explode
    rtlab frobnicate --now
    make frobnicate
EOF
# shellcheck disable=SC2046
planted "docs naming what the binaries and make lack fail" \
	$(docs_args "$tmp/d7") -- "'rtlab runs --no-such-flag'" \
	"'rtlab db explode'" "'rtlab frobnicate'" "'make frobnicate'" \
	"docs-api.md:"
