/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_CHANNEL_H
#define RTLAB_CHANNEL_H

/*
 * The framing of a bundle sent out of a board over a byte stream (the
 * virtual board's virtio-serial port):
 *
 *   "RTLAB-BUNDLE v1 <size> <sha256>\n" <size bytes> "RTLAB-END v1\n"
 *
 * so the receiver can tell a complete transfer from a truncated or damaged
 * one, and never hands a half bundle on.
 */

#include <stddef.h>
#include "error.h"

#define CHANNEL_HEADER "RTLAB-BUNDLE v1 "
#define CHANNEL_TRAILER "RTLAB-END v1\n"

/**
 * channel_parse() - find and verify one framed bundle in @buf.
 * @off, @size: where the bundle's bytes are in @buf.
 * Return: 0 when complete and its sha256 matches; -ENODATA when nothing
 * was sent; -EAGAIN when the frame is incomplete so far (more may come);
 * -EPROTO for a malformed header or trailer; -EBADMSG for a checksum
 * mismatch; each but -EAGAIN with @err saying what was wrong.
 */
int channel_parse(const unsigned char *buf, size_t len, size_t *off,
		  size_t *size, struct rtlab_err *err) __must_check;

#endif
