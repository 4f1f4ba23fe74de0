// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The result bundle on the wire and on disk: a gzip'd tar written and read
 * with libarchive, held in memory.  Reading is defensive because bundles
 * arrive from boards over the network: the gzip stream must be complete,
 * with nothing after it, the tar must end with its end-of-archive marker
 * and hold nothing but padding after it, names must be plain relative
 * paths, each once, and each member and the whole must stay within the
 * limits (run-limits.h), checked before the data is allocated.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include "bundle.h"

#define TAR_BLOCK 512

struct bundle *bundle_alloc(void)
{
	return calloc(1, sizeof(struct bundle));
}

void bundle_free(struct bundle *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nfiles; i++) {
		free(b->files[i].name);
		free(b->files[i].data);
	}
	free(b->files);
	free(b);
}

int bundle_check_name(const char *name)
{
	const char *p, *c;
	size_t len = strlen(name);

	if (!len || len > BUNDLE_MAX_NAME || name[0] == '/')
		return -EINVAL;
	for (p = name; *p; p++)
		if (*p <= ' ' || *p > '~' || *p == '\\')
			return -EINVAL;
	for (c = name; c; c = p ? p + 1 : NULL) {
		p = strchr(c, '/');
		len = p ? (size_t)(p - c) : strlen(c);
		if (len == 0 || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return -EINVAL;
	}
	return 0;
}

const struct bundle_file *bundle_get(const struct bundle *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nfiles; i++)
		if (!strcmp(b->files[i].name, name))
			return &b->files[i];
	return NULL;
}

static size_t bundle_bytes(const struct bundle *b)
{
	size_t i, n = 0;

	for (i = 0; i < b->nfiles; i++)
		n += b->files[i].size;
	return n;
}

/* Take ownership of @data (malloc'd, or NULL when @size is 0). */
static int bundle_put(struct bundle *b, const char *name, unsigned char *data,
		      size_t size)
{
	struct bundle_file *f = (struct bundle_file *)bundle_get(b, name);
	size_t old = f ? f->size : 0;
	void *p;

	if (bundle_check_name(name))
		return -EINVAL;
	if (size > BUNDLE_MAX_FILE_BYTES ||
	    bundle_bytes(b) - old + size > BUNDLE_MAX_BYTES)
		return -EFBIG;
	if (f) {
		free(f->data);
		f->data = data;
		f->size = size;
		return 0;
	}
	if (b->nfiles >= BUNDLE_MAX_FILES)
		return -EFBIG;
	p = realloc(b->files, (b->nfiles + 1) * sizeof(*b->files));
	if (!p)
		return -ENOMEM;
	b->files = p;
	f = &b->files[b->nfiles];
	f->name = strdup(name);
	if (!f->name)
		return -ENOMEM;
	f->data = data;
	f->size = size;
	b->nfiles++;
	return 0;
}

int bundle_add(struct bundle *b, const char *name, const void *data,
	       size_t size)
{
	unsigned char *copy;
	int ret;

	if (size > BUNDLE_MAX_FILE_BYTES)
		return -EFBIG;
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	if (size)
		memcpy(copy, data, size);
	ret = bundle_put(b, name, copy, size);
	if (ret)
		free(copy);
	return ret;
}

int bundle_add_tail(struct bundle *b, const char *name, const void *data,
		    size_t size, size_t max, size_t *cut)
{
	const struct bundle_file *f = bundle_get(b, name);
	size_t room = BUNDLE_MAX_BYTES - bundle_bytes(b) + (f ? f->size : 0);
	size_t keep = size;
	int ret;

	if (keep > max)
		keep = max;
	if (keep > BUNDLE_MAX_FILE_BYTES)
		keep = BUNDLE_MAX_FILE_BYTES;
	if (keep > room)
		keep = room;
	if (!keep && size)
		return -EFBIG;
	ret = bundle_add(b, name, (const char *)data + (size - keep), keep);
	if (!ret && cut)
		*cut = size - keep;
	return ret;
}

/* Read a whole regular file of at most @max bytes; caller frees *@data. */
static int file_slurp(const char *path, size_t max, unsigned char **data,
		      size_t *size, struct rtlab_err *err)
{
	unsigned char *buf = NULL;
	struct stat st;
	size_t got = 0;
	ssize_t r;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rtlab_err_seterr(err, errno, "%s: cannot open: %s", path,
					strerror(errno));
	if (fstat(fd, &st)) {
		ret = rtlab_err_seterr(err, errno, "%s: %s", path,
				       strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = rtlab_err_set(err, "%s: not a regular file", path);
		goto out;
	}
	if ((size_t)st.st_size > max) {
		ret = rtlab_err_seterr(
			err, EFBIG,
			"%s: %lld bytes, more than the limit of %zu bytes for one bundle file",
			path, (long long)st.st_size, max);
		goto out;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf) {
		ret = rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	while (got < (size_t)st.st_size) {
		r = read(fd, buf + got, st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = rtlab_err_seterr(err, errno, "%s: read: %s", path,
					       strerror(errno));
			goto out;
		}
		if (r == 0)
			break; /* shrank while reading: keep what is there */
		got += r;
	}
	*data = buf;
	*size = got;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

int bundle_add_path(struct bundle *b, const char *name, const char *path,
		    struct rtlab_err *err)
{
	unsigned char *data = NULL;
	size_t size = 0;
	int ret;

	ret = file_slurp(path, BUNDLE_MAX_FILE_BYTES, &data, &size, err);
	if (ret)
		return ret;
	ret = bundle_put(b, name, data, size);
	if (ret) {
		free(data);
		if (ret == -EINVAL)
			rtlab_err_set(err, "bundle: bad file name '%s' for %s",
				      name, path);
		else if (ret == -EFBIG)
			rtlab_err_seterr(
				err, EFBIG,
				"bundle: adding %s as '%s' goes beyond the limit of %d files or %lu MiB in all",
				path, name, BUNDLE_MAX_FILES,
				BUNDLE_MAX_BYTES >> 20);
		else
			rtlab_err_seterr(err, ret, "bundle: adding %s: %s",
					 path, strerror(-ret));
	}
	return ret;
}

/* ------------------------------------------------------------- writing */

struct membuf {
	unsigned char *data;
	size_t size, cap;
};

static la_ssize_t membuf_write(struct archive *a, void *ctx, const void *buf,
			       size_t len)
{
	struct membuf *m = ctx;
	size_t cap;
	void *p;

	if (m->size + len > m->cap) {
		cap = m->cap ? m->cap : 64 * 1024;
		while (cap < m->size + len)
			cap *= 2;
		p = realloc(m->data, cap);
		if (!p) {
			archive_set_error(a, ENOMEM, "out of memory");
			return -1;
		}
		m->data = p;
		m->cap = cap;
	}
	memcpy(m->data + m->size, buf, len);
	m->size += len;
	return (la_ssize_t)len;
}

static int write_entry(struct archive *a, const struct bundle_file *f,
		       time_t now, struct rtlab_err *err)
{
	struct archive_entry *e = archive_entry_new();
	int ret = 0;

	if (!e)
		return rtlab_err_seterr(err, ENOMEM, "bundle: out of memory");
	archive_entry_set_pathname(e, f->name);
	archive_entry_set_size(e, (la_int64_t)f->size);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_mtime(e, now, 0);
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		ret = rtlab_err_seterr(err, EIO, "bundle: writing '%s': %s",
				       f->name, archive_error_string(a));
		goto out;
	}
	if (f->size &&
	    archive_write_data(a, f->data, f->size) != (la_ssize_t)f->size) {
		ret = rtlab_err_seterr(err, EIO, "bundle: writing '%s': %s",
				       f->name, archive_error_string(a));
		goto out;
	}
out:
	archive_entry_free(e);
	return ret;
}

int bundle_write_mem(const struct bundle *b, void **data, size_t *size,
		     struct rtlab_err *err)
{
	const struct bundle_file *man = bundle_get(b, BUNDLE_MANIFEST);
	struct membuf m = { 0 };
	struct archive *a;
	time_t now = time(NULL);
	size_t i;
	int ret;

	if (!man)
		return rtlab_err_set(err, "bundle: no manifest.json");
	a = archive_write_new();
	if (!a)
		return rtlab_err_seterr(err, ENOMEM, "bundle: out of memory");
	/* no padding after the gzip stream: a reader then notices a cut
	 * anywhere, because the gzip trailer is the last thing */
	if (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_open(a, &m, NULL, membuf_write, NULL) != ARCHIVE_OK) {
		ret = rtlab_err_seterr(err, EIO, "bundle: %s",
				       archive_error_string(a));
		goto out;
	}
	/* manifest.json first, so a reader learns what to expect early */
	ret = write_entry(a, man, now, err);
	for (i = 0; !ret && i < b->nfiles; i++)
		if (&b->files[i] != man)
			ret = write_entry(a, &b->files[i], now, err);
	if (ret)
		goto out;
	if (archive_write_close(a) != ARCHIVE_OK) {
		ret = rtlab_err_seterr(err, EIO, "bundle: %s",
				       archive_error_string(a));
		goto out;
	}
	*data = m.data;
	*size = m.size;
	m.data = NULL;
out:
	archive_write_free(a);
	free(m.data);
	return ret;
}

int bundle_write(const struct bundle *b, const char *path,
		 struct rtlab_err *err)
{
	void *data = NULL;
	size_t size = 0, done = 0;
	char *tmp = NULL;
	ssize_t r;
	int fd = -1, ret;

	ret = bundle_write_mem(b, &data, &size, err);
	if (ret)
		return ret;
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		tmp = NULL;
		ret = rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = rtlab_err_seterr(err, errno, "%s: cannot create: %s", tmp,
				       strerror(errno));
		goto out_nofile;
	}
	while (done < size) {
		r = write(fd, (char *)data + done, size - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = rtlab_err_seterr(err, errno, "%s: write: %s", tmp,
					       strerror(errno));
			goto out;
		}
		done += r;
	}
	if (fchmod(fd, 0644) || fsync(fd)) {
		ret = rtlab_err_seterr(err, errno, "%s: %s", tmp,
				       strerror(errno));
		goto out;
	}
	if (close(fd)) {
		fd = -1;
		ret = rtlab_err_seterr(err, errno, "%s: close: %s", tmp,
				       strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path)) {
		ret = rtlab_err_seterr(err, errno, "%s: rename to %s: %s", tmp,
				       path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (ret && tmp)
		unlink(tmp);
out_nofile:
	free(tmp);
	free(data);
	return ret;
}

/* ------------------------------------------------------------- reading */

/*
 * First pass: check the gzip layer with zlib, which says where the stream
 * ends: a stream cut anywhere (trailer included) is an error, and so is
 * anything after it, which a reader would otherwise ignore.  The data is
 * inflated into a small buffer and not kept: the pass keeps only what the
 * tar checks need, so a bundle expanding beyond the limits costs CPU up to
 * the limit and no memory.
 */
struct tar_scan {
	size_t size;		       /* uncompressed bytes */
	size_t last_nonzero;	       /* offset after the last non-zero byte */
	unsigned char head[TAR_BLOCK]; /* the first block */
};

static int gunzip_scan(const void *data, size_t size, struct tar_scan *t,
		       struct rtlab_err *err)
{
	/* the tar of a bundle at its limits: the data plus a header and
	 * padding per member */
	const size_t max = BUNDLE_MAX_BYTES + (BUNDLE_MAX_FILES + 64) * 2048UL;
	unsigned char buf[64 * 1024];
	const unsigned char *in = data;
	size_t used = 0, n, i;
	z_stream zs;
	int zr = Z_OK, ret = 0;

	memset(t, 0, sizeof(*t));
	if (size < 2 || memcmp(data, "\x1f\x8b", 2))
		return rtlab_err_set(err,
				     "bundle: not a gzip'd tar archive (%s)",
				     size ? "no gzip header" : "empty input");
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return rtlab_err_seterr(err, ENOMEM, "bundle: out of memory");
	while (zr != Z_STREAM_END) {
		if (!zs.avail_in && used < size) {
			n = size - used < (1U << 30) ? size - used : (1U << 30);
			zs.next_in = (unsigned char *)in + used;
			zs.avail_in = (uInt)n;
			used += n;
		}
		zs.next_out = buf;
		zs.avail_out = sizeof(buf);
		zr = inflate(&zs, Z_NO_FLUSH);
		/* Z_BUF_ERROR: no progress possible, i.e. the input ran out
		 * (a fresh output buffer is given every time) */
		if (zr != Z_OK && zr != Z_STREAM_END) {
			ret = rtlab_err_set(
				err,
				"bundle: corrupt or truncated gzip data (%s)",
				zr == Z_BUF_ERROR ? "the stream ends early" :
				zs.msg		  ? zs.msg :
						    "inflate failed");
			goto out;
		}
		n = sizeof(buf) - zs.avail_out;
		if (t->size + n > max) {
			ret = rtlab_err_seterr(
				err, EFBIG,
				"bundle: more than the limit of %lu MiB uncompressed",
				BUNDLE_MAX_BYTES >> 20);
			goto out;
		}
		if (t->size < TAR_BLOCK)
			memcpy(t->head + t->size, buf,
			       n < TAR_BLOCK - t->size ? n :
							 TAR_BLOCK - t->size);
		for (i = n; i > 0; i--) {
			if (buf[i - 1]) {
				t->last_nonzero = t->size + i;
				break;
			}
		}
		t->size += n;
	}
	n = zs.avail_in + (size - used);
	if (n)
		ret = rtlab_err_set(
			err,
			"bundle: %zu bytes of data after the end of the gzip stream (at offset %zu)",
			n, size - n);
out:
	inflateEnd(&zs);
	return ret;
}

/* The tar must end with its end-of-archive marker (two zero blocks, then
 * maybe zero padding): libarchive quietly accepts a tar cut at a block
 * boundary, which would lose the files after the cut. */
static int tar_ends_properly(const struct tar_scan *t, struct rtlab_err *err)
{
	if (t->size < TAR_BLOCK || memcmp(t->head + 257, "ustar", 5))
		return rtlab_err_set(
			err,
			"bundle: not a gzip'd tar archive (the gzip'd data is not a tar)");
	if (t->size < 2 * TAR_BLOCK || t->size % TAR_BLOCK ||
	    t->last_nonzero > t->size - 2 * TAR_BLOCK)
		return rtlab_err_set(
			err,
			"bundle: truncated tar archive (no end-of-archive marker)");
	return 0;
}

/* After the end-of-archive marker only zero padding may follow: a second
 * archive appended to the first would otherwise be silently dropped. */
static int tar_nothing_after(struct archive *a, const struct tar_scan *t,
			     struct rtlab_err *err)
{
	la_int64_t end = archive_filter_bytes(a, 0);

	if (end < 0 || (uint64_t)end > t->size)
		return rtlab_err_set(
			err,
			"bundle: damaged tar archive (its end is not where the data ends)");
	if (t->last_nonzero > (size_t)end)
		return rtlab_err_set(
			err,
			"bundle: %zu bytes of data after the end of the tar archive (at offset %lld)",
			t->size - (size_t)end, (long long)end);
	return 0;
}

static int read_entry(struct archive *a, struct archive_entry *e,
		      struct bundle *b, size_t *total, struct rtlab_err *err)
{
	const char *name = archive_entry_pathname(e);
	unsigned char *data = NULL;
	la_int64_t size;
	size_t got = 0;
	la_ssize_t r;
	int ret;

	if (!name || bundle_check_name(name))
		return rtlab_err_set(
			err,
			"bundle: bad file name '%s' (expected a relative path of printable characters without '..', at most %d long)",
			name ? name : "(none)", BUNDLE_MAX_NAME);
	if (archive_entry_filetype(e) != AE_IFREG)
		return rtlab_err_set(err, "bundle: '%s' is not a regular file",
				     name);
	if (bundle_get(b, name))
		return rtlab_err_set(err, "bundle: duplicate file '%s'", name);
	if (b->nfiles >= BUNDLE_MAX_FILES)
		return rtlab_err_seterr(err, EFBIG,
					"bundle: more than %d files",
					BUNDLE_MAX_FILES);
	size = archive_entry_size(e);
	if (!archive_entry_size_is_set(e) || size < 0)
		return rtlab_err_set(err, "bundle: '%s': no valid size", name);
	if ((uint64_t)size > BUNDLE_MAX_FILE_BYTES)
		return rtlab_err_seterr(
			err, EFBIG,
			"bundle: '%s': %lld bytes, more than the limit of %lu MiB for one file",
			name, (long long)size, BUNDLE_MAX_FILE_BYTES >> 20);
	if ((uint64_t)size > BUNDLE_MAX_BYTES - *total)
		return rtlab_err_seterr(
			err, EFBIG,
			"bundle: '%s': %lld bytes make the files more than the limit of %lu MiB in all",
			name, (long long)size, BUNDLE_MAX_BYTES >> 20);
	data = malloc(size ? size : 1);
	if (!data)
		return rtlab_err_seterr(err, ENOMEM, "bundle: out of memory");
	while (got < (size_t)size) {
		r = archive_read_data(a, data + got, size - got);
		if (r < 0) {
			ret = rtlab_err_set(err, "bundle: '%s': %s", name,
					    archive_error_string(a));
			goto fail;
		}
		if (r == 0)
			break;
		got += r;
	}
	if (got != (size_t)size) {
		ret = rtlab_err_set(err,
				    "bundle: '%s' truncated (%zu of %lld bytes)",
				    name, got, (long long)size);
		goto fail;
	}
	ret = bundle_put(b, name, data, got);
	if (ret) {
		ret = rtlab_err_seterr(err, ret, "bundle: '%s': %s", name,
				       strerror(-ret));
		goto fail;
	}
	*total += got;
	return 0;
fail:
	free(data);
	return ret;
}

struct bundle *bundle_read_mem(const void *data, size_t size,
			       struct rtlab_err *err)
{
	struct archive_entry *e;
	struct archive *a = NULL;
	struct bundle *b = NULL;
	struct tar_scan tar;
	size_t total = 0;
	int r, ret;

	ret = gunzip_scan(data, size, &tar, err);
	if (ret)
		goto out;
	ret = tar_ends_properly(&tar, err);
	if (ret)
		goto out;
	b = bundle_alloc();
	a = archive_read_new();
	if (!b || !a) {
		ret = rtlab_err_seterr(err, ENOMEM, "bundle: out of memory");
		goto out;
	}
	/* Second pass, the gzip checked: the members, each allocated only
	 * once its header says it is within the limits. */
	if (archive_read_support_filter_gzip(a) != ARCHIVE_OK ||
	    archive_read_support_format_tar(a) != ARCHIVE_OK ||
	    archive_read_open_memory(a, data, size) != ARCHIVE_OK) {
		ret = rtlab_err_set(err, "bundle: not a tar archive (%s)",
				    archive_error_string(a));
		goto out;
	}
	for (;;) {
		r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK) {
			ret = rtlab_err_set(
				err,
				"bundle: damaged tar archive after %zu files (%s)",
				b->nfiles, archive_error_string(a));
			goto out;
		}
		ret = read_entry(a, e, b, &total, err);
		if (ret)
			goto out;
	}
	ret = tar_nothing_after(a, &tar, err);
	if (ret)
		goto out;
	if (!bundle_get(b, BUNDLE_MANIFEST)) {
		ret = rtlab_err_set(err, "bundle: no manifest.json");
		goto out;
	}
	ret = 0;
out:
	archive_read_free(a);
	if (ret) {
		bundle_free(b);
		b = NULL;
		errno = ret == -EFBIG || ret == -ENOMEM ? -ret : EINVAL;
	}
	return b;
}

struct bundle *bundle_read(const char *path, struct rtlab_err *err)
{
	/* the compressed form is never larger than the limit */
	unsigned char *data = NULL;
	struct bundle *b;
	size_t size = 0;

	if (file_slurp(path, BUNDLE_MAX_BYTES, &data, &size, err))
		return NULL;
	b = bundle_read_mem(data, size, err);
	if (!b)
		rtlab_err_prefix(err, "%s", path);
	free(data);
	return b;
}
