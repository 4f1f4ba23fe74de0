#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Layers run one way.  Each folder has a rank; a file may include (with
# #include "...") headers of its own folder or of a folder of lower rank:
#
#   0 lib        pure code
#   1 reports    data -> text, HTML, Bugzilla JSON, plots, KCIDB
#   1 db         every SQL statement, the embedded cluster
#   2 kernels
#   3 boards
#   4 services   ingest, verdicts, jobs, workers, calibration, reporting
#   5 server     HTTP only
#   6 cli        the rtlab front end
#
# reports and db share a rank and must not include each other.  agent/
# runs on the board and includes lib/ only.  tests/ and bench/ are exempt.
#
# Board kinds are told apart in boards/ only: a comparison with a kind's
# name ("local", "qemu", "ssh", "lava") in db/, services/, server/ or cli/
# (strcmp in C, kind IN / kind = in SQL) is reported too; callers go
# through boards/board.h (board_kind_find(), struct board_kind).
#
#   scripts/check-layers.sh [TOP]
#
# Prints "FILE:LINE: FOLDER (rank N) includes HEADER of FOLDER (rank M)"
# for every include that runs up or sideways, and exits 1 if there was one.

top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2

rank() {
	case $1 in
	lib) echo 0 ;;
	reports | db) echo 1 ;;
	kernels) echo 2 ;;
	boards) echo 3 ;;
	services) echo 4 ;;
	server) echo 5 ;;
	cli) echo 6 ;;
	agent) echo agent ;;
	*) echo "" ;;
	esac
}

bad=0
found=$(mktemp "${TMPDIR:-/tmp}/check-layers.XXXXXX") || exit 2
trap 'rm -f "$found"' EXIT
for dir in lib agent db reports kernels boards services server cli; do
	[ -d "$dir" ] || continue
	from=$(rank "$dir")
	for f in "$dir"/*.c "$dir"/*.h; do
		[ -f "$f" ] || continue
		# "LINE HEADER" for every #include "HEADER"
		awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
			s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s)
			print FNR, s
		}' "$f" |
		while read -r line inc; do
			case $inc in
			../*/*)
				to=${inc#../}
				to=${to%%/*}
				;;
			*/*)
				to=unknown
				;;
			*)
				if [ -f "$dir/$inc" ]; then
					to=$dir
				elif [ -f "lib/$inc" ]; then
					to=lib
				else
					continue	# not a header of the tree
				fi
				;;
			esac
			[ "$to" = "$dir" ] && continue
			rto=$(rank "$to")
			if [ "$from" = agent ]; then
				[ "$to" = lib ] && continue
			elif [ -n "$rto" ] && [ "$rto" != agent ] &&
			     [ "$rto" -lt "$from" ]; then
				continue
			fi
			[ "$from" = agent ] && from_desc="agent (lib only)" ||
				from_desc="$dir (rank $from)"
			[ "$rto" = agent ] && to_desc="agent (the board's)" ||
				to_desc="$to (rank ${rto:-none})"
			echo "$f:$line: $from_desc includes $inc of $to_desc"
			echo x >>"$found"
		done
	done
done
kinds='"(local|qemu|ssh|lava)"'
for f in db/*.c services/*.c server/*.c cli/*.c; do
	[ -f "$f" ] || continue
	grep -nE "strn?(case)?cmp\([^;]*$kinds|$kinds[^;]*\)? *[!=]= *0|kind +(IN +\(|!?= *)'(local|qemu|ssh|lava)'" \
		"$f" | while IFS=: read -r line _; do
		echo "$f:$line: tests a board kind by name outside boards/ (use board_kind_find())"
		echo x >>"$found"
	done
done
[ -s "$found" ] && bad=1
exit $bad
