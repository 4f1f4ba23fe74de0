// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel module files: the .modinfo section of an ELF relocatable object,
 * found through its section headers and read as NUL-separated
 * "key=value" strings.  Bounds are checked against the file's size at
 * every step: the file is a developer's, not the kernel build's.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "modinfo.h"

/* A module larger than this is not one a board's initramfs carries. */
#define MODINFO_MAX_SIZE (64u << 20)

struct elf {
	const unsigned char *d;
	size_t size;
	bool is64, be;
};

static uint64_t rd(const struct elf *e, size_t off, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)e->d[off + (e->be ? n - 1 - i : i)] << (8 * i);
	return v;
}

/* Section @i's name offset, file offset and size, or false when out of
 * the file. */
static bool section(const struct elf *e, uint64_t shoff, uint64_t shentsize,
		    uint64_t i, uint64_t *name, uint64_t *off, uint64_t *size)
{
	uint64_t at = shoff + i * shentsize;

	if (at > e->size || e->size - at < (e->is64 ? 64u : 40u))
		return false;
	*name = rd(e, at, 4);
	*off = e->is64 ? rd(e, at + 24, 8) : rd(e, at + 16, 4);
	*size = e->is64 ? rd(e, at + 32, 8) : rd(e, at + 20, 4);
	return *off <= e->size && *size <= e->size - *off;
}

static int set_field(char **field, const char *val, size_t n)
{
	free(*field);
	*field = strndup(val, n);
	return *field ? 0 : -ENOMEM;
}

int modinfo_parse(const void *data, size_t size, const char *what,
		  struct modinfo *mi, struct rtlab_err *err)
{
	struct elf e = { data, size, false, false };
	uint64_t shoff, shentsize, shnum, shstrndx, i;
	uint64_t strs_off, strs_size, name, off, sz;
	const char *p, *end;
	int ret = 0;

	memset(mi, 0, sizeof(*mi));
	if (size < 52 || memcmp(data, "\177ELF", 4) ||
	    (e.d[4] != 1 && e.d[4] != 2) || (e.d[5] != 1 && e.d[5] != 2))
		return rtlab_err_seterr(err, ENOEXEC,
					"%s: not an ELF file (not a kernel "
					"module)",
					what);
	e.is64 = e.d[4] == 2;
	e.be = e.d[5] == 2;
	if (e.is64 && size < 64)
		return rtlab_err_seterr(err, ENOEXEC, "%s: truncated ELF file",
					what);
	if (rd(&e, 16, 2) != 1) /* ET_REL */
		return rtlab_err_seterr(err, ENOEXEC,
					"%s: an ELF file but not a relocatable "
					"object (not a kernel module)",
					what);
	shoff = e.is64 ? rd(&e, 40, 8) : rd(&e, 32, 4);
	shentsize = rd(&e, e.is64 ? 58 : 46, 2);
	shnum = rd(&e, e.is64 ? 60 : 48, 2);
	shstrndx = rd(&e, e.is64 ? 62 : 50, 2);
	if (shentsize < (e.is64 ? 64u : 40u) || shstrndx >= shnum ||
	    !section(&e, shoff, shentsize, shstrndx, &name, &strs_off,
		     &strs_size))
		return rtlab_err_seterr(err, ENOEXEC,
					"%s: damaged ELF section table", what);
	for (i = 0; i < shnum; i++) {
		if (!section(&e, shoff, shentsize, i, &name, &off, &sz))
			return rtlab_err_seterr(err, ENOEXEC,
						"%s: damaged ELF section %llu",
						what, (unsigned long long)i);
		if (name >= strs_size ||
		    strnlen((const char *)e.d + strs_off + name,
			    strs_size - name) != 8 ||
		    memcmp(e.d + strs_off + name, ".modinfo", 8))
			continue;
		p = (const char *)e.d + off;
		end = p + sz;
		while (p < end && !ret) {
			size_t n = strnlen(p, end - p);

			if (n > 9 && !strncmp(p, "vermagic=", 9))
				ret = set_field(&mi->vermagic, p + 9, n - 9);
			else if (n > 5 && !strncmp(p, "name=", 5))
				ret = set_field(&mi->name, p + 5, n - 5);
			else if (n > 11 && !strncmp(p, "srcversion=", 11))
				ret = set_field(&mi->srcversion, p + 11,
						n - 11);
			p += n + 1;
		}
		break;
	}
	if (ret) {
		modinfo_cleanup(mi);
		return rtlab_err_seterr(err, ENOMEM, "%s: out of memory", what);
	}
	if (!mi->vermagic) {
		modinfo_cleanup(mi);
		return rtlab_err_seterr(err, ENOEXEC,
					"%s: no vermagic in a .modinfo section "
					"(not a kernel module)",
					what);
	}
	return 0;
}

int modinfo_read(const char *path, struct modinfo *mi, struct rtlab_err *err)
{
	char *data = NULL;
	size_t size = 0;
	int ret;

	memset(mi, 0, sizeof(*mi));
	ret = file_read_all(path, &data, &size, err);
	if (ret)
		return ret;
	if (size > MODINFO_MAX_SIZE)
		ret = rtlab_err_seterr(err, EFBIG,
				       "%s: %zu bytes, larger than a module "
				       "can be here (%u MiB)",
				       path, size, MODINFO_MAX_SIZE >> 20);
	else
		ret = modinfo_parse(data, size, path, mi, err);
	free(data);
	return ret;
}

bool modinfo_matches_release(const char *vermagic, const char *release)
{
	size_t n = strlen(release);

	return n && !strncmp(vermagic, release, n) &&
	       (vermagic[n] == ' ' || !vermagic[n]);
}

void modinfo_cleanup(struct modinfo *mi)
{
	if (!mi)
		return;
	free(mi->name);
	free(mi->vermagic);
	free(mi->srcversion);
	memset(mi, 0, sizeof(*mi));
}
