/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_INITRAMFS_H
#define RTLAB_INITRAMFS_H

/*
 * The virtual board's initramfs: newc cpio archives concatenated into one
 * initrd (the kernel unpacks them in turn).  The base is left uncompressed:
 * under icount every guest instruction is board time, and gunzipping ~30
 * MB of tools and libraries cost ~3-5 s of boot; QEMU loads a plain archive
 * for free.  The small ones are gzip'd.
 *
 *   base     busybox, /init, the measurement tools and the agent, with
 *            every shared library they need (found through ldd), cached
 *            under a key that hashes all of its inputs' contents
 *   kernel   the modules the board needs for the channel (virtio_pci,
 *            virtio_console and their dependencies, with a modules.dep from
 *            depmod -b) and /boot/config-<release>; cached per kernel
 *   job      /job/params, /job/testcase.yaml, and for tests /job/fault;
 *            the testcase's extras: its modules in /job/extras/, its
 *            files at their dest
 */

#include <stdbool.h>
#include "../kernels/kernel.h"
#include "error.h"

struct initramfs_job {
	const char *run_id;
	const char *board;
	const char *clock;	 /* "icount:3", "realtime", "kvm" */
	const char *kernel_name; /* kernel definition name, may be NULL */
	const char *kernel_tree; /* its tree, may be NULL */
	unsigned int duration_s;
	unsigned int interval_us;  /* the agent's --interval, 0: none */
	const char *testcase_path; /* copied to /job/testcase.yaml */
	const char *release;	   /* the kernel booted: its extras' modules
				    * must match it; NULL: not checked */
	const char *fault;	   /* tests only: "panic", ...; or NULL */
	/* "10.0.2.15/24": the board brings its NIC up with this address
	 * (a load from outside, mode iperf3-nic); NULL: no NIC */
	const char *nic_addr;
	/* ssh boards: shell assignments for /job/ssh (the transport, the
	 * network to bring up), and a file copied to /job/authorized_keys */
	const char *extra_params;
	const char *authorized_keys;
	/* lava boards that upload: rtlab's server as the board reaches it
	 * (RTLAB_UPLOAD_URL) and the board's token (RTLAB_TOKEN); NULL:
	 * none */
	const char *upload_url;
	const char *upload_token;
};

/**
 * initramfs_check_tools() - can the base archive carry every tool of
 * @tools (a testcase's, from testcase_tools())?
 * Return: 0, or -ENOENT with @err naming the first tool it cannot.
 */
int initramfs_check_tools(const char *const *tools, size_t ntools,
			  struct rtlab_err *err) __must_check;

/**
 * initramfs_check_testcase() - before anything boots: the testcase at
 * @testcase_path parses (the agent's own parser, lib/testcase.c, naming
 * the file and key), the initramfs can carry every tool it needs, and its
 * extras are readable (modules: kernel modules; extras_check()).
 * Return: 0, or a negative errno with @err naming the file, key or tool.
 */
int initramfs_check_testcase(const char *testcase_path,
			     struct rtlab_err *err) __must_check;

/**
 * initramfs_cache_dir() - where the archives are cached: "initramfs" in
 * rtlab_cache_dir().  Return: malloc'd (caller frees), or NULL.
 */
char *initramfs_cache_dir(void);

/**
 * initramfs_base() - the base archive, built or taken from @cache_dir.
 * @init_path: the guest's /init script.
 * @agent_path: rtlab-agent to include, NULL when there is none yet.
 * @path: malloc'd path of the archive (caller frees).
 * @built: set to whether it was built now.
 * Return: 0 or a negative errno with @err naming the tool or file.
 */
int initramfs_base(const char *cache_dir, const char *init_path,
		   const char *agent_path, char **path, bool *built,
		   struct rtlab_err *err) __must_check;

/**
 * initramfs_kernel() - the per-kernel archive for @id (modules + config),
 * built or taken from @cache_dir.  @extra_modules: NULL-terminated, more
 * modules than the channel's (an ssh board's network driver), may be NULL.
 * @path: malloc'd, caller frees.
 * Return: 0 or a negative errno with @err set.
 */
int initramfs_kernel(const char *cache_dir, const struct kernel_ident *id,
		     const char *const *extra_modules, char **path,
		     struct rtlab_err *err) __must_check;

/**
 * initramfs_job() - write the per-job archive to @path, with the
 * testcase's extras checked against @j->release first (extras_check()).
 * Return: 0 or a negative errno with @err set (a module for another
 * kernel: -EINVAL naming it and both releases).
 */
int initramfs_job(const char *path, const struct initramfs_job *j,
		  struct rtlab_err *err) __must_check;

/**
 * initramfs_concat() - @out = the @n archives one after the other.
 * Return: 0 or a negative errno with @err set.
 */
int initramfs_concat(const char *out, const char *const *parts, size_t n,
		     struct rtlab_err *err) __must_check;

#endif
