#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The libFuzzer harnesses (fuzz/, docs/fuzzing.md) keep building and
# passing: build them with clang (ASan+UBSan), then run each over its seeds
# and a fixed number of mutated inputs with a fixed random seed, so the
# same tree does the same work on every run (a few seconds per harness).
# FUZZ_CHECK_RUNS overrides the count.
. "$(dirname "$0")/../lib.sh"

runs=${FUZZ_CHECK_RUNS:-20000}

if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
	not_ok "fuzz: ${FUZZ_CC:-clang} not found (make deps installs it)"
	exit 1
fi
# A make of our own, not a job of the caller's.
mkdir -p "$RTLAB_BUILD"
if env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$TOP" \
	BUILD="$RTLAB_BUILD" fuzz-build >"$RTLAB_BUILD/fuzz-build.log" 2>&1; then
	ok "fuzz: harnesses build"
else
	tail -n 20 "$RTLAB_BUILD/fuzz-build.log"
	not_ok "fuzz: harnesses build"
	exit 1
fi
# Every harness in fuzz/, so a new one cannot be forgotten here.
names=$(cd "$TOP/fuzz" && ls fuzz-*.c | sed 's/^fuzz-//; s/\.c$//')
# shellcheck disable=SC2086
sh "$TOP/fuzz/run.sh" --runs "$runs" --build "$RTLAB_BUILD" $names
