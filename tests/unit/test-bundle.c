// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for lib/bundle.c: round trips in memory and on disk, and the
 * hostile inputs a server meets: truncation at every offset, random bytes,
 * a plain or cut tar, duplicate and absurd names, no manifest.json.  The
 * hostile archives are made with libarchive directly.
 */

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include "bundle.h"
#include "check.h"

static const char manifest[] = "{\"format\": \"rtlab-bundle\"}";

static struct bundle *sample(void)
{
	struct bundle *b = bundle_alloc();
	unsigned char bin[4096];
	unsigned int i;

	if (!b)
		return NULL;
	for (i = 0; i < sizeof(bin); i++)
		bin[i] = (unsigned char)(i * 7 + (i >> 8));
	if (bundle_add(b, "cyclictest.json", "{\"x\": 1}", 8) ||
	    bundle_add(b, BUNDLE_MANIFEST, manifest, strlen(manifest)) ||
	    bundle_add(b, "trace.dat", bin, sizeof(bin)) ||
	    bundle_add(b, "empty.txt", "", 0) ||
	    bundle_add(b, "logs/dmesg.txt", "[0.0] Linux\n", 12)) {
		bundle_free(b);
		return NULL;
	}
	return b;
}

static int same(const struct bundle *a, const struct bundle *b)
{
	const struct bundle_file *f;
	size_t i;

	if (a->nfiles != b->nfiles)
		return 0;
	for (i = 0; i < a->nfiles; i++) {
		f = bundle_get(b, a->files[i].name);
		if (!f || f->size != a->files[i].size ||
		    (f->size && memcmp(f->data, a->files[i].data, f->size)))
			return 0;
	}
	return 1;
}

static void test_add(void)
{
	static const char *const bad[] = {
		"",
		"/etc/passwd",
		"../x",
		"a/../b",
		"a//b",
		".",
		"a/.",
		"a b",
		"tab\there",
		"new\nline",
		"back\\slash",
		"x/",
		"caf\xc3\xa9",
	};
	struct bundle *b = bundle_alloc();
	char name[BUNDLE_MAX_NAME + 2];
	unsigned int i;
	int ret, ok;

	CHECK(b != NULL, "bundle_alloc");
	if (!b)
		return;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = bundle_add(b, bad[i], "x", 1);
		CHECK(ret == -EINVAL, "bad name %u refused (%d)", i, ret);
	}
	memset(name, 'a', sizeof(name));
	name[BUNDLE_MAX_NAME + 1] = '\0';
	ret = bundle_add(b, name, "x", 1);
	CHECK_INT(ret, -EINVAL, "name longer than BUNDLE_MAX_NAME refused");
	name[BUNDLE_MAX_NAME] = '\0';
	ret = bundle_add(b, name, "x", 1);
	CHECK_INT(ret, 0, "name of BUNDLE_MAX_NAME accepted");

	ret = bundle_add(b, "a.txt", "first", 5);
	CHECK_INT(ret, 0, "add a.txt");
	ret = bundle_add(b, "a.txt", "second!", 7);
	CHECK_INT(ret, 0, "add a.txt again replaces");
	CHECK_INT(b->nfiles, 2, "replacing does not add a file");
	CHECK(bundle_get(b, "a.txt") && bundle_get(b, "a.txt")->size == 7 &&
		      !memcmp(bundle_get(b, "a.txt")->data, "second!", 7),
	      "a.txt holds the second content");
	CHECK(bundle_get(b, "nope") == NULL, "bundle_get of a missing name");

	ok = 1;
	for (i = b->nfiles; i < BUNDLE_MAX_FILES; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		if (bundle_add(b, name, "y", 1))
			ok = 0;
	}
	CHECK(ok, "up to BUNDLE_MAX_FILES files accepted");
	ret = bundle_add(b, "one-too-many", "z", 1);
	CHECK_INT(ret, -EFBIG, "file BUNDLE_MAX_FILES + 1 refused");
	bundle_free(b);
	bundle_free(NULL);
}

static void test_roundtrip(void)
{
	struct rtlab_err err = { "" };
	struct bundle *b = sample(), *c;
	void *data = NULL;
	size_t size = 0;
	int ret;

	CHECK(b != NULL, "sample bundle built");
	if (!b)
		return;
	ret = bundle_write_mem(b, &data, &size, &err);
	CHECK(ret == 0, "write_mem (%s)", err.msg);
	CHECK(size > 20 && ((unsigned char *)data)[0] == 0x1f &&
		      ((unsigned char *)data)[1] == 0x8b,
	      "output is gzip");
	c = bundle_read_mem(data, size, &err);
	CHECK(c != NULL, "read_mem of what write_mem wrote (%s)", err.msg);
	if (c) {
		CHECK(same(b, c), "every file comes back byte for byte");
		CHECK_STR(c->files[0].name, BUNDLE_MANIFEST,
			  "manifest.json is the first entry");
	}
	bundle_free(c);
	free(data);
	bundle_free(b);
}

static void test_disk(void)
{
	struct rtlab_err err = { "" };
	char dir[] = "/tmp/rtlab-test-bundle.XXXXXX";
	char path[256], other[256];
	struct bundle *b = sample(), *c;
	struct dirent *de;
	int ret, n = 0;
	FILE *f;
	DIR *d;

	CHECK(b != NULL && mkdtemp(dir) != NULL, "temporary directory");
	snprintf(path, sizeof(path), "%s/run.tar.gz", dir);
	ret = bundle_write(b, path, &err);
	CHECK(ret == 0, "bundle_write (%s)", err.msg);
	ret = bundle_write(b, path, &err);
	CHECK(ret == 0, "bundle_write over an existing file (%s)", err.msg);
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	CHECK_INT(n, 1, "no temporary file left beside the bundle");
	c = bundle_read(path, &err);
	CHECK(c != NULL, "bundle_read (%s)", err.msg);
	CHECK(c && same(b, c), "disk round trip is byte for byte");
	bundle_free(c);

	ret = bundle_add_path(b, "copy.tar.gz", path, &err);
	CHECK_INT(ret, 0, "bundle_add_path of a file");
	snprintf(other, sizeof(other), "%s/missing", dir);
	ret = bundle_add_path(b, "x", other, &err);
	CHECK(ret == -ENOENT && strstr(err.msg, other),
	      "bundle_add_path of a missing file names it: %s", err.msg);
	ret = bundle_add_path(b, "../x", path, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "'../x'"),
	      "bundle_add_path with a bad name: %s", err.msg);

	snprintf(other, sizeof(other), "%s/no/such/dir/b.tar.gz", dir);
	ret = bundle_write(b, other, &err);
	CHECK(ret < 0 && strstr(err.msg, "/no/such/dir/"),
	      "bundle_write into a missing directory names it: %s", err.msg);
	c = bundle_read(other, &err);
	CHECK(c == NULL && strstr(err.msg, "/no/such/dir/"),
	      "bundle_read of a missing file names it: %s", err.msg);

	snprintf(other, sizeof(other), "%s/garbage", dir);
	f = fopen(other, "w");
	if (f) {
		fputs("this is not a bundle\n", f);
		fclose(f);
	}
	c = bundle_read(other, &err);
	CHECK(c == NULL && strstr(err.msg, other) &&
		      strstr(err.msg, "not a gzip'd tar"),
	      "bundle_read of a text file: %s", err.msg);
	unlink(other);
	unlink(path);
	rmdir(dir);
	bundle_free(b);
}

static void test_truncated(void)
{
	struct rtlab_err err = { "" };
	struct bundle *b = sample(), *c;
	unsigned char *data = NULL;
	size_t size = 0, cut, accepted = 0, tried = 0;
	int ret;

	ret = b ? bundle_write_mem(b, (void **)&data, &size, &err) : -1;
	CHECK_INT(ret, 0, "sample serialized");
	if (ret)
		goto out;
	/* every offset: a cut can land in the gzip header, the deflate
	 * stream or the trailer */
	for (cut = 0; cut < size; cut++) {
		c = bundle_read_mem(data, cut, &err);
		tried++;
		if (c) {
			if (!accepted)
				printf("# first accepted cut: %zu of %zu\n",
				       cut, size);
			accepted++;
			bundle_free(c);
		}
	}
	CHECK(tried > 100 && accepted == 0,
	      "cut at each of %zu offsets: all refused (%zu accepted)", tried,
	      accepted);
	c = bundle_read_mem(data, size - 4, &err);
	CHECK(c == NULL && strstr(err.msg, "truncated"),
	      "gzip trailer cut: message says truncated: %s", err.msg);
	bundle_free(c);
	c = bundle_read_mem(data, size / 2, &err);
	CHECK(c == NULL && strstr(err.msg, "truncated"),
	      "cut in half: message says truncated: %s", err.msg);
	bundle_free(c);
out:
	free(data);
	bundle_free(b);
}

static void test_random(void)
{
	struct rtlab_err err = { "" };
	unsigned char junk[8192];
	struct bundle *c;
	unsigned int i, seed = 12345;

	for (i = 0; i < sizeof(junk); i++) {
		seed = seed * 1103515245 + 12345;
		junk[i] = seed >> 16;
	}
	c = bundle_read_mem(junk, sizeof(junk), &err);
	CHECK(c == NULL && strstr(err.msg, "not a gzip'd tar"),
	      "random bytes refused: %s", err.msg);
	bundle_free(c);
	junk[0] = 0x1f;
	junk[1] = 0x8b;
	junk[2] = 8;
	junk[3] = 0;
	c = bundle_read_mem(junk, sizeof(junk), &err);
	CHECK(c == NULL, "random bytes behind a gzip header refused: %s",
	      err.msg);
	bundle_free(c);
	c = bundle_read_mem("", 0, &err);
	CHECK(c == NULL, "empty input refused: %s", err.msg);
	bundle_free(c);
}

/* ---- hostile archives made with libarchive itself ---- */

struct entry {
	const char *name;
	const char *data;
	int symlink;
};

/* Serialize @n entries as tar (gzip'd when @gz); with @cut_after >= 0 the
 * tar is cut right after that many entries, before gzip. */
static void *make_tar(const struct entry *ents, int n, int gz, int cut_after,
		      size_t *size)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e;
	size_t cap = 1 << 20, used = 0, cut_at = 0;
	char *buf = malloc(cap), *out = NULL;
	int i;

	if (!a || !buf)
		goto out;
	archive_write_set_format_pax_restricted(a);
	archive_write_set_bytes_per_block(a, 0);
	if (archive_write_open_memory(a, buf, cap, &used) != ARCHIVE_OK)
		goto out;
	for (i = 0; i < n; i++) {
		e = archive_entry_new();
		archive_entry_set_pathname(e, ents[i].name);
		archive_entry_set_perm(e, 0644);
		if (ents[i].symlink) {
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_symlink(e, ents[i].data);
			archive_entry_set_size(e, 0);
		} else {
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_size(e, strlen(ents[i].data));
		}
		archive_write_header(a, e);
		if (!ents[i].symlink)
			archive_write_data(a, ents[i].data,
					   strlen(ents[i].data));
		archive_entry_free(e);
		if (i + 1 == cut_after)
			cut_at = used;
	}
	archive_write_close(a);
	archive_write_free(a);
	a = NULL;
	if (cut_after >= 0)
		used = cut_at;
	if (!gz) {
		*size = used;
		out = buf;
		buf = NULL;
		goto out;
	}
	/* gzip the (possibly cut) tar as one raw stream */
	out = malloc(cap);
	a = archive_write_new();
	if (!out || !a)
		goto out;
	archive_write_add_filter_gzip(a);
	archive_write_set_format_raw(a);
	archive_write_set_bytes_per_block(a, 0);
	archive_write_open_memory(a, out, cap, size);
	e = archive_entry_new();
	archive_entry_set_filetype(e, AE_IFREG);
	archive_write_header(a, e);
	archive_write_data(a, buf, used);
	archive_entry_free(e);
	archive_write_close(a);
out:
	archive_write_free(a);
	free(buf);
	return out;
}

static void expect_refused(const struct entry *ents, int n, int gz,
			   int cut_after, const char *fragment,
			   const char *what)
{
	struct rtlab_err err = { "" };
	struct bundle *c;
	size_t size = 0;
	void *data = make_tar(ents, n, gz, cut_after, &size);

	c = data ? bundle_read_mem(data, size, &err) : NULL;
	CHECK(data && !c && strstr(err.msg, fragment),
	      "%s: refused with \"%s\" (got \"%s\")", what, fragment, err.msg);
	bundle_free(c);
	free(data);
}

static void test_hostile(void)
{
	const struct entry good[] = {
		{ BUNDLE_MANIFEST, manifest, 0 },
		{ "cyclictest.json", "{}", 0 },
		{ "dmesg.txt", "hello", 0 },
	};
	const struct entry nomanifest[] = { { "cyclictest.json", "{}", 0 } };
	const struct entry dup[] = {
		{ BUNDLE_MANIFEST, manifest, 0 },
		{ "a.txt", "1", 0 },
		{ "a.txt", "2", 0 },
	};
	const struct entry dotdot[] = {
		{ BUNDLE_MANIFEST, manifest, 0 },
		{ "../../etc/cron.d/x", "boom", 0 },
	};
	const struct entry abs[] = {
		{ BUNDLE_MANIFEST, manifest, 0 },
		{ "/etc/passwd", "root", 0 },
	};
	const struct entry link[] = {
		{ BUNDLE_MANIFEST, manifest, 0 },
		{ "trace.dat", "/etc/shadow", 1 },
	};
	struct rtlab_err err = { "" };
	struct entry *many;
	struct bundle *c;
	char *names;
	size_t size = 0;
	void *data;
	int i;

	data = make_tar(good, 3, 1, -1, &size);
	c = data ? bundle_read_mem(data, size, &err) : NULL;
	CHECK(c && c->nfiles == 3,
	      "a tar.gz made by libarchive directly is read (%s)", err.msg);
	bundle_free(c);
	free(data);

	expect_refused(nomanifest, 1, 1, -1, "bundle: no manifest.json",
		       "no manifest.json");
	expect_refused(dup, 3, 1, -1, "duplicate file 'a.txt'",
		       "duplicate name");
	expect_refused(dotdot, 2, 1, -1, "bad file name '../../etc/cron.d/x'",
		       "name with ..");
	expect_refused(abs, 2, 1, -1, "bad file name '/etc/passwd'",
		       "absolute name");
	expect_refused(link, 2, 1, -1, "'trace.dat' is not a regular file",
		       "symlink entry");
	many = calloc(BUNDLE_MAX_FILES + 2, sizeof(*many));
	names = calloc(BUNDLE_MAX_FILES + 2, 16);
	if (many && names) {
		many[0] = good[0];
		for (i = 1; i < BUNDLE_MAX_FILES + 2; i++) {
			snprintf(names + 16 * i, 16, "f%d", i);
			many[i].name = names + 16 * i;
			many[i].data = "x";
		}
		expect_refused(many, BUNDLE_MAX_FILES + 2, 1, -1,
			       "bundle: more than 256 files", "too many files");
	}
	free(many);
	free(names);
	expect_refused(good, 3, 0, -1, "not a gzip'd tar",
		       "plain tar without gzip");
	expect_refused(good, 3, 1, 2, "truncated tar archive",
		       "tar cut after an entry, then gzip'd");
	expect_refused(good, 3, 1, 1, "truncated tar archive",
		       "tar cut after manifest.json, then gzip'd");
}

/* gzip @n bytes as one stream; caller frees. */
static void *gzip_buf(const void *in, size_t n, size_t *size)
{
	size_t cap = n + n / 100 + 1024;
	unsigned char *out = malloc(cap);
	z_stream zs;

	memset(&zs, 0, sizeof(zs));
	if (!out || deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(out);
		return NULL;
	}
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&zs);
		free(out);
		return NULL;
	}
	*size = cap - zs.avail_out;
	deflateEnd(&zs);
	return out;
}

/* Whatever follows the gzip stream or the tar's end would be silently
 * dropped by a reader that stops there: refuse it, naming it. */
static void test_trailing(void)
{
	const struct entry good[] = {
		{ BUNDLE_MANIFEST, manifest, 0 },
		{ "dmesg.txt", "hello", 0 },
	};
	const struct entry more[] = { { "late.txt", "after the end", 0 } };
	struct rtlab_err err = { "" };
	unsigned char *gz = NULL, *two = NULL;
	char *t1 = NULL, *t2 = NULL, *cat = NULL;
	size_t gzsize = 0, n1 = 0, n2 = 0, size = 0;
	struct bundle *c;

	gz = make_tar(good, 2, 1, -1, &gzsize);
	two = gz ? malloc(2 * gzsize + 16) : NULL;
	CHECK(two != NULL, "good bundle made");
	if (!two)
		goto out;
	c = bundle_read_mem(gz, gzsize, &err);
	CHECK(c != NULL, "the good bundle alone is read (%s)", err.msg);
	bundle_free(c);

	memcpy(two, gz, gzsize);
	memcpy(two + gzsize, "garbage!", 8);
	c = bundle_read_mem(two, gzsize + 8, &err);
	CHECK(!c && strstr(err.msg,
			   "8 bytes of data after the end of the gzip stream"),
	      "bytes after the gzip stream refused: %s", err.msg);
	bundle_free(c);

	memcpy(two + gzsize, gz, gzsize);
	c = bundle_read_mem(two, 2 * gzsize, &err);
	CHECK(!c && strstr(err.msg, "after the end of the gzip stream"),
	      "a second gzip stream refused: %s", err.msg);
	bundle_free(c);

	/* a second tar appended to the first, all in one gzip stream */
	t1 = make_tar(good, 2, 0, -1, &n1);
	t2 = make_tar(more, 1, 0, -1, &n2);
	cat = t1 && t2 ? malloc(n1 + n2) : NULL;
	if (cat) {
		memcpy(cat, t1, n1);
		memcpy(cat + n1, t2, n2);
		free(gz);
		gz = gzip_buf(cat, n1 + n2, &size);
	}
	c = gz ? bundle_read_mem(gz, size, &err) : NULL;
	CHECK(gz && !c && strstr(err.msg, "after the end of the tar archive"),
	      "a second tar after the end-of-archive marker refused: %s",
	      err.msg);
	bundle_free(c);
	/* zero padding after the marker is what tar writers do */
	if (cat) {
		memset(cat + n1, 0, n2);
		free(gz);
		gz = gzip_buf(cat, n1 + n2, &size);
	}
	c = gz ? bundle_read_mem(gz, size, &err) : NULL;
	CHECK(c != NULL, "zero padding after the end is fine (%s)", err.msg);
	bundle_free(c);
out:
	free(cat);
	free(t1);
	free(t2);
	free(two);
	free(gz);
}

/* A tar.gz of manifest.json and @n members of @each zero bytes: a few
 * hundred kB that expand to n × each. */
static void *zero_bomb(int n, size_t each, size_t *size)
{
	static unsigned char zeros[1 << 16];
	struct archive *a = archive_write_new();
	struct archive_entry *e;
	size_t cap = 4 << 20, done;
	char *buf = malloc(cap), name[16];
	int i;

	*size = 0;
	if (!a || !buf)
		goto fail;
	archive_write_add_filter_gzip(a);
	archive_write_set_format_pax_restricted(a);
	if (archive_write_open_memory(a, buf, cap, size) != ARCHIVE_OK)
		goto fail;
	for (i = -1; i < n; i++) {
		e = archive_entry_new();
		snprintf(name, sizeof(name), "big%d.bin", i);
		archive_entry_set_pathname(e, i < 0 ? BUNDLE_MANIFEST : name);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, i < 0 ? (la_int64_t)strlen(manifest) :
						  (la_int64_t)each);
		archive_write_header(a, e);
		archive_entry_free(e);
		if (i < 0) {
			archive_write_data(a, manifest, strlen(manifest));
			continue;
		}
		for (done = 0; done < each; done += sizeof(zeros))
			archive_write_data(a, zeros,
					   each - done < sizeof(zeros) ?
						   each - done :
						   sizeof(zeros));
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		goto fail;
	archive_write_free(a);
	return buf;
fail:
	archive_write_free(a);
	free(buf);
	return NULL;
}

static void test_limits(void)
{
	struct rtlab_err err = { "" };
	struct bundle *b = bundle_alloc(), *c;
	char small[16] = "x";
	size_t size = 0;
	void *data;

	CHECK_INT(bundle_add(b, "big.bin", small, BUNDLE_MAX_FILE_BYTES + 1),
		  -EFBIG, "bundle_add of a file beyond the one-file limit");
	bundle_free(b);

	/* a console log keeps its end, within what the limits leave */
	b = bundle_alloc();
	{
		const char con[] =
			"boot...\nlots\nKernel panic - not syncing\n";
		const struct bundle_file *f;
		size_t cut = 99;

		CHECK(b &&
			      !bundle_add_tail(b, "console.log", con,
					       strlen(con), 28, &cut) &&
			      (f = bundle_get(b, "console.log")) &&
			      f->size == 28 &&
			      !memcmp(f->data, "\nKernel panic - not syncing\n",
				      28) &&
			      cut == strlen(con) - 28,
		      "bundle_add_tail keeps the last bytes (cut %zu)", cut);
		CHECK(b &&
			      !bundle_add_tail(b, "short.log", "ok\n", 3, 28,
					       &cut) &&
			      cut == 0,
		      "bundle_add_tail of a short log keeps it whole");
	}
	bundle_free(b);
	b = bundle_alloc();
	{
		unsigned char *big = malloc(BUNDLE_MAX_FILE_BYTES);
		const struct bundle_file *f;
		size_t cut = 0;
		int ok = big && b;

		if (big)
			memset(big, 'x', BUNDLE_MAX_FILE_BYTES);
		ok = ok &&
		     !bundle_add(b, "a.bin", big, BUNDLE_MAX_FILE_BYTES) &&
		     !bundle_add(b, "b.bin", big, BUNDLE_MAX_FILE_BYTES - 100);
		/* 100 bytes of room left under the 128 MiB */
		if (big)
			big[BUNDLE_MAX_FILE_BYTES - 1] = 'E';
		ok = ok &&
		     !bundle_add_tail(b, "console.log", big,
				      BUNDLE_MAX_FILE_BYTES, (size_t)-1, &cut);
		f = b ? bundle_get(b, "console.log") : NULL;
		CHECK(ok && f && f->size == 100 && f->data[99] == 'E' &&
			      cut == BUNDLE_MAX_FILE_BYTES - 100,
		      "bundle_add_tail fits what the total limit leaves (%zu bytes)",
		      f ? f->size : 0);
		CHECK(b && bundle_add_tail(b, "more.log", "x", 1, 10, NULL) ==
				      -EFBIG,
		      "bundle_add_tail with no room at all: -EFBIG");
		free(big);
	}
	bundle_free(b);

	data = zero_bomb(1, BUNDLE_MAX_FILE_BYTES + 1, &size);
	errno = 0;
	c = data ? bundle_read_mem(data, size, &err) : NULL;
	CHECK(data && !c && errno == EFBIG && strstr(err.msg, "'big0.bin'") &&
		      strstr(err.msg, "limit of 64 MiB for one file"),
	      "%zu kB expanding to a member of 64 MiB + 1 refused, naming it and the limit: %s",
	      size >> 10, err.msg);
	bundle_free(c);
	free(data);

	data = zero_bomb(1, BUNDLE_MAX_FILE_BYTES, &size);
	c = data ? bundle_read_mem(data, size, &err) : NULL;
	CHECK(c != NULL, "a member of exactly 64 MiB is read (%s)", err.msg);
	bundle_free(c);
	free(data);

	data = zero_bomb(3, 50 << 20, &size);
	errno = 0;
	c = data ? bundle_read_mem(data, size, &err) : NULL;
	CHECK(data && !c && errno == EFBIG &&
		      strstr(err.msg, "limit of 128 MiB"),
	      "%zu kB expanding to 150 MiB in all refused, naming the limit: %s",
	      size >> 10, err.msg);
	bundle_free(c);
	free(data);
}

int main(void)
{
	test_add();
	test_roundtrip();
	test_disk();
	test_trailing();
	test_limits();
	test_truncated();
	test_random();
	test_hostile();
	return check_exit();
}
