// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Checking the framed bundle a board sends over its channel: header with
 * size and sha256, the bytes, a trailer.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "channel.h"
#include "manifest.h"

int channel_parse(const unsigned char *buf, size_t len, size_t *off,
		  size_t *size, struct rtlab_err *err)
{
	size_t hl = strlen(CHANNEL_HEADER), tl = strlen(CHANNEL_TRAILER);
	const unsigned char *nl;
	char line[160], want[65], got[65], *end;
	unsigned long long n;

	if (!len)
		return rtlab_err_seterr(err, ENODATA,
					"channel: nothing was "
					"sent");
	nl = memchr(buf, '\n', len < sizeof(line) ? len : sizeof(line));
	if (!nl) {
		if (len < sizeof(line) &&
		    !memcmp(buf, CHANNEL_HEADER, len < hl ? len : hl))
			return -EAGAIN;
		return rtlab_err_seterr(err, EPROTO,
					"channel: no \"%s<size> "
					"<sha256>\" header line",
					CHANNEL_HEADER);
	}
	memcpy(line, buf, nl - buf);
	line[nl - buf] = '\0';
	if (strncmp(line, CHANNEL_HEADER, hl))
		return rtlab_err_seterr(err, EPROTO,
					"channel: header '%.60s' "
					"is not \"%s<size> <sha256>\"",
					line, CHANNEL_HEADER);
	errno = 0;
	n = strtoull(line + hl, &end, 10);
	if (errno || end == line + hl || *end != ' ' || strlen(end + 1) != 64 ||
	    strspn(end + 1, "0123456789abcdef") != 64)
		return rtlab_err_seterr(err, EPROTO,
					"channel: header '%.100s'"
					": expected a size and 64 hex digits",
					line);
	memcpy(want, end + 1, 65);
	*off = nl - buf + 1;
	*size = n;
	if (len - *off < n + tl)
		return -EAGAIN;
	if (memcmp(buf + *off + n, CHANNEL_TRAILER, tl))
		return rtlab_err_seterr(err, EPROTO,
					"channel: no \"RTLAB-END "
					"v1\" trailer after %llu bytes (the "
					"transfer is longer or damaged)",
					n);
	sha256_hex(buf + *off, n, got);
	if (strcmp(got, want))
		return rtlab_err_seterr(err, EBADMSG,
					"channel: bundle of %llu "
					"bytes has sha256 %.16s..., the header "
					"says %.16s...: damaged in transit",
					n, got, want);
	return 0;
}
