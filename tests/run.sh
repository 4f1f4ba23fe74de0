#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rtlab's test runner.  Every test program (unit binaries under
# build/tests/, integration scripts under tests/integration/) prints one line
# per check, "ok - NAME" or "not ok - NAME"; a program that dies or exits
# non-zero without reporting a failure counts as one failure.  The last line
# is "N passed, N failed".
#
#   tests/run.sh [--unit] [--integration] [--valgrind] [PATTERN]
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
unit=0 integ=0 valgrind=""
pattern=""
for a in "$@"; do
	case "$a" in
	--unit) unit=1 ;;
	--integration) integ=1 ;;
	--valgrind) valgrind="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite" ;;
	-*) echo "usage: tests/run.sh [--unit] [--integration] [--valgrind] [PATTERN]" >&2; exit 2 ;;
	*) pattern=$a ;;
	esac
done
[ $unit = 0 ] && [ $integ = 0 ] && unit=1 && integ=1

logdir=$build/test-logs
mkdir -p "$logdir"
counts=$logdir/counts
: >"$counts"
export RTLAB_TOP="$top" RTLAB_BUILD="$build"
cd "$top" || exit 2

run_one() {	# name, command...
	name=$1; shift
	log=$logdir/$name.log
	start=$(date +%s)
	"$@" >"$log" 2>&1 </dev/null
	rc=$?
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^not ok - ' "$log")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "not ok - $name: exited with status $rc" >>"$log"
		f=1
	fi
	if [ "$p" = 0 ] && [ "$f" = 0 ]; then
		echo "not ok - $name: reported no checks" >>"$log"
		f=1
	fi
	echo "$p $f" >>"$counts"
	printf '%-36s %4d passed, %d failed  (%ss)\n' "$name" "$p" "$f" \
		$(($(date +%s) - start))
	if [ "$f" != 0 ]; then
		grep '^not ok - ' "$log" | sed 's/^/    /'
		echo "    --- last lines of $log:"
		tail -n 30 "$log" | sed 's/^/    | /'
	fi
}

if [ $unit = 1 ]; then
	for t in "$build"/tests/test-*; do
		[ -x "$t" ] || continue
		n=$(basename "$t")
		case "$n" in *"$pattern"*) ;; *) continue ;; esac
		# shellcheck disable=SC2086
		run_one "$n" $valgrind "$t"
	done
fi
if [ $integ = 1 ]; then
	for t in tests/integration/*.sh; do
		[ -f "$t" ] || continue
		n=$(basename "$t" .sh)
		case "$n" in *"$pattern"*) ;; *) continue ;; esac
		run_one "$n" sh "$t"
	done
fi

total_p=0 total_f=0
while read -r p f; do
	total_p=$((total_p + p)); total_f=$((total_f + f))
done <"$counts"
echo "$total_p passed, $total_f failed"
[ "$total_f" = 0 ]
