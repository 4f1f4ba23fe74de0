/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_FSUTIL_H
#define RTLAB_FSUTIL_H

/*
 * Small host-side helpers the kernel cache and the board drivers share:
 * running a tool and capturing its output, hashing files, making and
 * removing directory trees.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "error.h"

/**
 * spawn_capture() - run @argv (argv[0] looked up in PATH) in @cwd (NULL:
 * here), stdin from /dev/null, capturing stdout; stderr is inherited
 * (@with_stderr 0), captured too (1) or discarded (2).  *@out is malloc'd
 * and NUL-terminated (caller frees).
 * Return: the exit status (>= 0; 128+N for a signal) or a negative errno
 * when it could not run, with @err naming the tool.
 */
int spawn_capture(char *const argv[], const char *cwd, int with_stderr,
		  char **out, struct rtlab_err *err) __must_check;

/**
 * spawn_logged() - start @argv (argv[0] looked up in PATH) in a process
 * group of its own, stdin from /dev/null, stdout and stderr into
 * @log_path (truncated, or appended to when @append); @death_signal
 * (0: none) is sent to it if the caller dies first.  Does not wait.
 * Return: its pid (the group's id too) or a negative errno with @err
 * naming the tool.
 */
pid_t spawn_logged(char *const argv[], const char *log_path, bool append,
		   int death_signal, struct rtlab_err *err) __must_check;

/**
 * file_sha256_hex() - sha256 of a file's contents as 64 hex digits.
 * Return: 0 or a negative errno with @err naming @path.
 */
int file_sha256_hex(const char *path, char out[65],
		    struct rtlab_err *err) __must_check;

/**
 * file_regular() - @path is a regular file (symlinks followed); its size
 * in *@size when @size is not NULL.
 * Return: 0 or a negative errno with @err naming @path (-EINVAL: not a
 * regular file).
 */
int file_regular(const char *path, size_t *size,
		 struct rtlab_err *err) __must_check;

/**
 * file_read_all() - the whole file, NUL-terminated, in *@data (caller
 * frees).  Return: 0 or a negative errno with @err naming @path.
 */
int file_read_all(const char *path, char **data, size_t *size,
		  struct rtlab_err *err) __must_check;

/** file_write_all() - create/truncate @path with @data.  Return: 0/-errno. */
int file_write_all(const char *path, const void *data, size_t size,
		   struct rtlab_err *err) __must_check;

/** mkdir_p() - like mkdir -p.  Return: 0 or -errno with @err naming it. */
int mkdir_p(const char *path, mode_t mode, struct rtlab_err *err) __must_check;

/** rmtree() - like rm -rf; a missing @path is fine.  Return: 0/-errno. */
int rmtree(const char *path);

/** path_join() - "@a/@b", malloc'd (caller frees), NULL on -ENOMEM. */
char *path_join(const char *a, const char *b);

/**
 * path_which() - the full path of @tool found on $PATH (or @tool itself
 * when it contains a '/' and is executable).
 * Return: malloc'd path (caller frees) or NULL when not found.
 */
char *path_which(const char *tool);

#endif
