#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The C sources are formatted as the tree's .clang-format says (kernel
# style, clang-format 14): `make format-check` lists any file that is not
# (`make format` rewrites them).  First the check itself, on copies of a
# source file: one formatted by clang-format passes, one with its
# indentation spoiled fails and is named.
set -u

. "$(dirname "$0")/../lib.sh"

tmp=$(mktemp -d /tmp/rtlab-format-test.XXXXXX)
on_exit 'rm -rf "$tmp"'
cf=${CLANG_FORMAT:-clang-format}

if ! command -v "$cf" >/dev/null 2>&1; then
	not_ok "clang-format is installed (make deps)"
	exit 1
fi
ok "clang-format is installed"
case $("$cf" --version) in
*" version 14."*) ok "clang-format is version 14, the config's" ;;
*) echo "# $("$cf" --version): the config is written for 14" ;;
esac

# the check on a formatted and a spoiled copy, beside the config
cp "$TOP/.clang-format" "$tmp/"
"$cf" --style=file --assume-filename="$tmp/x.c" <"$TOP/lib/hist.c" \
	>"$tmp/formatted.c"
check "a file clang-format wrote passes the check" \
	sh "$TOP/scripts/check-format.sh" "$tmp/formatted.c"
sed 's/^\t/    /' "$tmp/formatted.c" >"$tmp/spoiled.c"
sh "$TOP/scripts/check-format.sh" "$tmp/formatted.c" "$tmp/spoiled.c" \
	>"$tmp/out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "^$tmp/spoiled.c: [0-9]* lines differ" "$tmp/out" &&
   ! grep -q "formatted.c" "$tmp/out"; then
	ok "a spoiled file fails the check, named"
else
	not_ok "a spoiled file fails the check, named (exit $rc)"
	sed 's/^/    /' "$tmp/out"
fi

# the tree
if make -s -C "$TOP" format-check >"$tmp/out" 2>&1; then
	ok "the C sources are formatted (make format-check)"
else
	not_ok "the C sources are formatted (make format-check; make format fixes them)"
	sed 's/^/    /' "$tmp/out"
fi
