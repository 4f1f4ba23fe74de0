/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_MODINFO_H
#define RTLAB_MODINFO_H

/*
 * What a kernel module file says about itself: the "key=value" strings of
 * its ELF .modinfo section (name, vermagic, srcversion), read without
 * modinfo(8) or libkmod so that the host checks a developer's module
 * before boot and the agent records it on the board with the same code.
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
 * modinfo_parse() - the .modinfo of the ELF image @data (@size bytes);
 * @what names it in messages.
 * Return: 0 with @mi filled (release with modinfo_cleanup()); -ENOEXEC
 * when it is not a 64- or 32-bit little- or big-endian ELF relocatable
 * file with a .modinfo section holding a vermagic; -ENOMEM.  @err says
 * which.
 */
int modinfo_parse(const void *data, size_t size, const char *what,
		  struct modinfo *mi, struct rtlab_err *err) __must_check;

/**
 * modinfo_read() - modinfo_parse() of the file at @path.
 * Return: as modinfo_parse(), or the negative errno of reading it.
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
