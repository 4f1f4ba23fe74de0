#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/t612-datadir.sh DATA GIT BRANCH FOLLOW
#
# A data directory (RTLAB_DATADIR) at DATA with the lab's own files and the
# git tree t612 the tests and bench/build.sh build: repository GIT, branch
# BRANCH, the newest FOLLOW commits, tinyconfig + the virtual board's
# PREEMPT_RT fragment.  The same name and config everywhere, so every user
# shares one build directory and ccache.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
data=$1 git=$2 branch=$3 follow=$4
mkdir -p "$data/kernels/trees"
for f in "$top"/*; do
	[ "$(basename "$f")" = kernels ] || ln -s "$f" "$data/"
done
for f in "$top"/kernels/*; do
	[ "$(basename "$f")" = trees ] || ln -s "$f" "$data/kernels/"
done
cat >"$data/kernels/trees/t612.yaml" <<YAML
description: linux-source-6.12 with the virtual board's PREEMPT_RT config
kind: git
git: $git
branch: $branch
config: tinyconfig
fragments: ../configs/rt-virtual-board.config
follow: $follow
YAML
