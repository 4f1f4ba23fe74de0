/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_ENV_H
#define RTLAB_AGENT_ENV_H

/*
 * What the agent records about the board it runs on: the kernel's identity
 * (manifest "kernel"), the environment (manifest "environment"), the
 * kernel config and the kernel log.  Every /proc and /sys path is read
 * under @root ("" on a board), so tests can point it at a directory.
 */

#include <stddef.h>
#include <jansson.h>
#include "error.h"

/**
 * env_kernel_json() - {"release", "version", "machine", "realtime"}:
 * uname(2) plus @root/sys/kernel/realtime (absent means not realtime
 * unless the version says PREEMPT_RT).
 * Return: new reference, or NULL on ENOMEM.
 */
json_t *env_kernel_json(const char *root);

/**
 * env_environment_json() - {"cmdline", "cpu_model", "cpus", "isolcpus",
 * "clocksource", "sys_kernel_realtime", "rt_tests_version", "clock"}.
 * Facts that cannot be read are JSON null.  @clock is "host" or what the
 * board says (e.g. "icount:3").
 * Return: new reference, or NULL on ENOMEM.
 */
json_t *env_environment_json(const char *root, const char *clock);

/**
 * env_rt_tests_version() - the version in the first line of
 * `cyclictest --help` ("cyclictest V 2.40" gives "2.40").
 * Return: malloc'd string (caller frees) or NULL when unknown.
 */
char *env_rt_tests_version(void);

/**
 * env_read_config() - the running kernel's config: @root/proc/config.gz
 * (gunzipped with libarchive), else @root/boot/config-RELEASE.
 * @data: malloc'd, caller frees.  @source: set to the path it came from,
 * malloc'd, caller frees.
 * Return: 0, or -ENOENT (neither there) or another negative errno, with
 * @err naming the paths tried.
 */
int env_read_config(const char *root, char **data, size_t *len, char **source,
		    struct rtlab_err *err) __must_check;

/**
 * env_read_dmesg() - the kernel log: `dmesg` output, else what
 * @root/dev/kmsg holds.  @data: malloc'd, caller frees.
 * Return: 0 or a negative errno with @err set.
 */
int env_read_dmesg(const char *root, char **data, size_t *len,
		   struct rtlab_err *err) __must_check;

#endif
