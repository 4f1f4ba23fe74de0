/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_MODINFO_H
#define RTLAB_MODINFO_H

/*
 * What a kernel module file says about itself: the "key=value" strings of
 * its ELF .modinfo section (name, vermagic, srcversion), read with libkmod
 * so that the host checks a developer's module before boot and the agent
 * records it on the board with the same code.
 */

#include <stdbool.h>
#include <stddef.h>
#include "error.h"

struct modinfo {
	char *name;	  /* "name=", may be NULL (old kernels) */
	char *vermagic;	  /* "vermagic=", never NULL after a read */
	char *srcversion; /* "srcversion=", may be NULL */
};

/**
 * modinfo_read() - the .modinfo of the module file at @path (libkmod).
 * Return: 0 with @mi filled (release with modinfo_cleanup()); -ENOEXEC
 * when it is not a kernel module (no ELF .modinfo with a vermagic); the
 * negative errno of reading it, -EFBIG past 64 MiB, -ENOMEM.  @err says
 * which, naming @path.
 */
int modinfo_read(const char *path, struct modinfo *mi,
		 struct rtlab_err *err) __must_check;

/**
 * modinfo_matches_release() - @vermagic ("6.1.0-57-rt-amd64 SMP
 * preempt_rt mod_unload modversions") was built for kernel @release: its
 * first word is the release.
 */
bool modinfo_matches_release(const char *vermagic, const char *release);

/** modinfo_cleanup() - free what a read filled; safe twice. */
void modinfo_cleanup(struct modinfo *mi);

#endif
