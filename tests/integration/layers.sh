#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Layers run one way (scripts/check-layers.sh): the tree passes, and the
# check does catch a planted include that runs up a layer, sideways between
# reports/ and db/, or out of agent/, naming file, line and both layers; and
# a board kind tested by name outside boards/.
. "$(dirname "$0")/../lib.sh"

out=$(mktemp -d /tmp/rtlab-layers.XXXXXX) || exit 1
on_exit "rm -rf '$out'"
script=$TOP/scripts/check-layers.sh

sh "$script" "$TOP" >"$out/tree.out" 2>&1
check "the tree's includes run one way" test $? = 0
check "... and the check says nothing about it" test ! -s "$out/tree.out"

# A copy of the tree with bad includes planted.
copy=$out/tree
mkdir "$copy"
for d in lib agent db reports kernels boards services server cli; do
	cp -r "$TOP/$d" "$copy/"
done
sh "$script" "$copy" >/dev/null 2>&1
check "the copy passes before planting" test $? = 0

plant() {	# FILE INCLUDE: append a bad include, run the check, remove it
	cp "$copy/$1" "$out/saved"
	echo "#include \"$2\"" >>"$copy/$1"
	line=$(wc -l <"$copy/$1")
	sh "$script" "$copy" >"$out/planted.out" 2>&1
	rc=$?
	cp "$out/saved" "$copy/$1"
}

plant reports/plot.c ../db/db-runs.h
check "reports/ including db/ fails" test $rc = 1
check "... naming file:line and both layers" grep -q \
	"^reports/plot.c:$line: reports (rank 1) includes ../db/db-runs.h of db (rank 1)$" \
	"$out/planted.out"

plant lib/hist.c ../server/http.h
check "lib/ including server/ fails" test $rc = 1
check "... naming file:line and both layers" grep -q \
	"^lib/hist.c:$line: lib (rank 0) includes ../server/http.h of server (rank 5)$" \
	"$out/planted.out"

plant db/db.h ../services/jobs.h
check "a header of db/ including services/ fails" test $rc = 1
check "... naming it" grep -q "^db/db.h:$line: db (rank 1) includes" \
	"$out/planted.out"

plant agent/knob.c ../kernels/kernel.h
check "agent/ including anything but lib/ fails" test $rc = 1
check "... naming it" grep -q \
	"^agent/knob.c:$line: agent (lib only) includes ../kernels/kernel.h" \
	"$out/planted.out"

plant cli/cmd-db.c ../server/http.h
check "a lower layer included from above passes" test $rc = 0

# plant_line FILE LINE: append a line of code, run the check, remove it
plant_line() {
	cp "$copy/$1" "$out/saved"
	echo "$2" >>"$copy/$1"
	line=$(wc -l <"$copy/$1")
	sh "$script" "$copy" >"$out/planted.out" 2>&1
	rc=$?
	cp "$out/saved" "$copy/$1"
}
plant_line services/worker.c \
	'static int is_local(const char *k) { return !strcmp(k, "local"); }'
check "a board kind tested by name in services/ fails" test $rc = 1
check "... naming file:line and the interface to use" grep -q \
	"^services/worker.c:$line: tests a board kind by name outside boards/ (use board_kind_find())$" \
	"$out/planted.out"
plant_line db/db-jobs.c '"  AND cb.kind IN ('"'"'local'"'"', '"'"'qemu'"'"') "'
check "a board kind tested by name in SQL in db/ fails" test $rc = 1
plant_line boards/local.c \
	'static int is_qemu(const char *k) { return !strcmp(k, "qemu"); }'
check "boards/ may tell its kinds apart" test $rc = 0

sh "$script" "$copy" >/dev/null 2>&1
check "the copy passes again once the plants are gone" test $? = 0
