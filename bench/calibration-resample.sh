#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/calibration-resample.sh KEEP [DRAWS [RUNS [SEED]]]: more A/A and
# detection comparisons out of the boots a calibration kept (`rtlab
# calibrate --keep KEEP`, one spin size).  Its 2N clean sets and N
# injected sets are pooled by kind; each of DRAWS (default 1000) draws
# takes RUNS (default 5) clean runs against RUNS other clean runs (A/A),
# and RUNS injected runs against RUNS clean ones (detection), at random
# from a seeded stream (SEED, default 1), and judges them offline with
# `rtlab compare`, the verdict engine the lab uses.  Prints how the
# verdicts split.  Asserts nothing.
#
# The draws share runs, so they are not independent comparisons: their
# rate estimates the per-comparison rate of the board with less spread
# than the N disjoint comparisons of the calibration, but a binomial
# interval over the draws would overstate its precision.  The pool
# itself limits what it can show: docs/calibration.md.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
RTLAB=$build/rtlab

case ${1:-} in
-h | --help | '')
	sed -n '4,17p' "$0" | sed 's/^# \{0,1\}//'
	[ -n "${1:-}" ] && exit 0
	exit 2
	;;
esac
keep=$1 draws=${2:-1000} runs=${3:-5} seed=${4:-1}
for n in "$draws" "$runs" "$seed"; do
	case $n in '' | *[!0-9]*)
		echo "calibration-resample: '$n': expected a number" >&2
		exit 2
		;;
	esac
done

# Set s of a calibration with N pairs: clean when s < 2N, else injected.
nsets=$(ls "$keep" | sed -n 's/^set\([0-9]*\)-run[0-9]*\.bundle$/\1/p' |
	sort -un | wc -l)
if [ "$nsets" -lt 3 ] || [ $((nsets % 3)) != 0 ]; then
	echo "calibration-resample: $keep: expected the sets of a calibration" \
		"with one spin size (2N clean, N injected), found $nsets" >&2
	exit 1
fi
pairs=$((nsets / 3))
work=$(mktemp -d "${TMPDIR:-/tmp}/rtlab-resample.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
for f in "$keep"/set*-run*.bundle; do
	s=$(basename "$f" | sed 's/^set\([0-9]*\)-.*/\1/')
	if [ "$s" -lt $((2 * pairs)) ]; then
		echo "$f" >>"$work/clean"
	else
		echo "$f" >>"$work/injected"
	fi
done
nclean=$(wc -l <"$work/clean")
ninj=$(wc -l <"$work/injected")
if [ "$nclean" -lt $((2 * runs)) ] || [ "$ninj" -lt "$runs" ]; then
	echo "calibration-resample: $keep: $nclean clean and $ninj injected" \
		"runs cannot give $runs against $runs" >&2
	exit 1
fi
echo "pool: $nclean clean runs ($((2 * pairs)) sets), $ninj injected" \
	"runs ($pairs sets); $draws draws of $runs against $runs, seed $seed"

# draws KIND: one line per draw, the indexes of the two sides' runs:
# "aa": 2*RUNS distinct clean runs; "inj": RUNS injected, RUNS clean.
draws() {
	awk -v kind="$1" -v d="$draws" -v r="$runs" -v nc="$nclean" \
		-v ni="$ninj" -v seed="$seed" 'BEGIN {
		srand(seed + (kind == "inj"))
		for (i = 0; i < d; i++) {
			line = ""
			# a partial Fisher-Yates shuffle of the clean pool
			for (k = 1; k <= nc; k++) c[k] = k
			nb = (kind == "aa") ? 2 * r : r
			for (k = 1; k <= nb; k++) {
				j = k + int(rand() * (nc - k + 1))
				t = c[k]; c[k] = c[j]; c[j] = t
				line = line " c" c[k]
			}
			if (kind == "inj") {
				for (k = 1; k <= ni; k++) x[k] = k
				for (k = 1; k <= r; k++) {
					j = k + int(rand() * (ni - k + 1))
					t = x[k]; x[k] = x[j]; x[j] = t
					line = line " i" x[k]
				}
			}
			print substr(line, 2)
		}
	}'
}

# judge KIND: the verdict of every draw, one a line.
judge() {
	draws "$1" | while read -r line; do
		set -- $line
		base= cand= k=0
		for ref; do
			k=$((k + 1))
			case $ref in
			c*) f=$(sed -n "${ref#c}p" "$work/clean") ;;
			i*) f=$(sed -n "${ref#i}p" "$work/injected") ;;
			esac
			if [ $k -le "$runs" ]; then
				base="$base $f"
			else
				cand="$cand $f"
			fi
		done
		# injected draws: clean first (the baseline), then injected
		"$RTLAB" compare --json $base -- $cand 2>"$work/err" |
			jq -r .verdict 2>/dev/null ||
			{
				echo "calibration-resample: rtlab compare failed:" >&2
				cat "$work/err" >&2
				exit 1
			}
	done
}

report() {
	sort | uniq -c | sort -rn |
		awk -v d="$draws" -v what="$1" '{
			printf "%s  %-12s %5d of %d  (%.2f %%)\n", what, $2, $1, d,
				100 * $1 / d
		}'
}

judge aa | report "A/A      "
judge inj | report "injected "
