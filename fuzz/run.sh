#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run the libFuzzer harnesses built by `make fuzz-build` (docs/fuzzing.md)
# and print one line per harness, "ok - fuzz NAME: ..." with the number of
# inputs executed and the rate, or "not ok - fuzz NAME: ..." naming the
# input that crashed.
#
#   fuzz/run.sh [--seconds N | --runs N | --known] [--build DIR] NAME...
#
# --seconds N (what `make fuzz` uses): fuzz each harness N seconds.  Its
#     corpus in BUILD/fuzz/corpus/NAME grows from run to run; the seeds
#     are read from BUILD/fuzz/seeds/NAME, refreshed each time.
# --runs N (what `make check` uses): execute the seeds and then exactly N
#     inputs with a fixed random seed and a fresh empty corpus, so the same
#     tree does the same work every time.  A harness with a crash not yet
#     fixed (an input in fuzz/crashes-found/NAME/) runs its seeds only, so
#     the known crash does not fail every check until its reader is fixed.
# --known: run each harness once on every input in fuzz/crashes-found/NAME/
#     and say which still crash; "ok" means fixed (move it to fuzz/seeds/).
# $FUZZ_FLAGS: more libFuzzer options, e.g. -detect_leaks=0 to look past a
#     known leak.
# A crashing input is kept as BUILD/fuzz/crashes/NAME/crash-SHA1 (also
# leak-, oom-, timeout-); the full log is BUILD/fuzz/logs/NAME.log.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=${RTLAB_BUILD:-$top/build}
seconds="" runs="" known=""
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--known) known=1; shift ;;
	--build) build=$2; shift 2 ;;
	-*) echo "usage: fuzz/run.sh [--seconds N | --runs N | --known] [--build DIR] NAME..." >&2
	    exit 2 ;;
	*) break ;;
	esac
done
[ -z "$seconds" ] && [ -z "$runs" ] && seconds=60
case $build in /*) ;; *) build=$top/$build ;; esac
fz=$build/fuzz
mkdir -p "$fz/logs"

failed=0
for name in "$@"; do
	bin=$fz/fuzz-$name
	log=$fz/logs/$name.log
	crashes=$fz/crashes/$name
	if [ ! -x "$bin" ]; then
		echo "not ok - fuzz $name: $bin not built (make fuzz-build)"
		failed=1
		continue
	fi
	if [ -n "$known" ]; then
		for f in "$top/fuzz/crashes-found/$name"/*; do
			[ -f "$f" ] || continue
			k=$name/$(basename "$f")
			if "$bin" -timeout=10 -rss_limit_mb=2048 "$f" \
				>"$log" 2>&1 </dev/null; then
				echo "ok - fuzz $k: fixed, move it to fuzz/seeds/$name/"
			else
				failed=1
				echo "not ok - fuzz $k: still crashes: $(grep -m1 -E 'ERROR|runtime error:' "$log" | sed 's/^==[0-9]*== *//')"
			fi
		done
		continue
	fi
	mkdir -p "$crashes"
	if ! sh "$top/fuzz/seeds.sh" "$name" "$fz/seeds/$name"; then
		echo "not ok - fuzz $name: no seeds"
		failed=1
		continue
	fi
	set -- -artifact_prefix="$crashes/" -print_final_stats=1 \
		-rss_limit_mb=2048 -timeout=10 -max_len=16384
	[ -f "$top/fuzz/dicts/$name.dict" ] &&
		set -- "$@" -dict="$top/fuzz/dicts/$name.dict"
	note=""
	if [ -n "$runs" ]; then
		corpus=$(mktemp -d)
		n=$runs
		if ls "$top/fuzz/crashes-found/$name"/* >/dev/null 2>&1; then
			n=0
			note="; seeds only, known crash pending in fuzz/crashes-found/$name"
		fi
		set -- "$@" -seed=1 -runs="$n"
	else
		corpus=$fz/corpus/$name
		mkdir -p "$corpus"
		set -- "$@" -max_total_time="$seconds"
	fi
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$bin" "$@" ${FUZZ_FLAGS:-} "$corpus" "$fz/seeds/$name" >"$log" 2>&1 </dev/null
	rc=$?
	secs=$(($(date +%s) - start))
	[ -n "$runs" ] && rm -rf "$corpus"
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	if [ "$rc" = 0 ]; then
		case $rate in ''|0) rate="" ;; *) rate=", $rate/s" ;; esac
		echo "ok - fuzz $name: ${execs:-?} execs in ${secs}s$rate, 0 crashes$note"
		continue
	fi
	failed=1
	what=$(grep -m1 -E '^==[0-9]+==ERROR|runtime error:|^==[0-9]+== ERROR' "$log" |
		sed 's/^==[0-9]*== *//')
	input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	echo "not ok - fuzz $name: ${what:-exit status $rc} after ${execs:-?} execs; input: ${input:-none}; log: $log"
done
exit $failed
