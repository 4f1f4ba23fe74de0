// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for board_def_load(), the reader of boards/NAME.yaml
 * (and through it the flat YAML map reader the kernel definitions share).
 * board_def_load() takes a path, so each input is written to an anonymous
 * memory file and read back through /proc/self/fd: no disk, nothing left
 * behind.  Its name is a number, a valid board name when the YAML gives
 * none.
 *
 * A definition with "clock: kvm" asks /dev/kvm for a VM on every input
 * that gets that far; that is slow but harmless.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "board.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtlab_err err = { "" };
	struct board_def *b;

	if (memfd < 0) {
		memfd = memfd_create("board", MFD_CLOEXEC);
		if (memfd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	}
	if (ftruncate(memfd, 0) ||
	    pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	b = board_def_load(path, &err);
	if (b) {
		if (!b->name || !b->qemu || !b->cpus || b->memory_mb < 256 ||
		    (b->clock == BOARD_CLOCK_ICOUNT && b->cpus != 1))
			abort(); /* accepted what it promises to refuse */
	}
	board_def_free(b);
	return 0;
}
