#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# List the C files clang-format (with the tree's .clang-format) would
# change, one a line with the number of lines that differ; exit 1 if any.
#
#   scripts/check-format.sh FILE...
#
# CLANG_FORMAT names the program (default clang-format).  `make format`
# rewrites what this lists.
set -u

cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
	echo "check-format: $cf not found (Debian: apt-get install clang-format)" >&2
	exit 2
fi
tmp=$(mktemp /tmp/rtlab-format.XXXXXX) || exit 2
trap 'rm -f "$tmp"' EXIT
bad=0
for f in "$@"; do
	if ! "$cf" --style=file "$f" >"$tmp"; then
		echo "check-format: $cf failed on $f" >&2
		bad=$((bad + 1))
		continue
	fi
	if ! cmp -s "$f" "$tmp"; then
		n=$(diff "$f" "$tmp" | grep -c '^[<>]')
		echo "$f: $n lines differ"
		bad=$((bad + 1))
	fi
done
if [ "$bad" != 0 ]; then
	echo "check-format: $bad of $# files are not formatted (make format)" >&2
	exit 1
fi
exit 0
