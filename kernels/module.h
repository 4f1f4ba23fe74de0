/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_MODULE_H
#define RTLAB_MODULE_H

/*
 * Out-of-tree kernel modules for a fetched kernel (today: the rtlab_inject
 * latency injector of testcases/inject/).  The kernel's Debian headers
 * (linux-headers-<release>, its linux-headers-*-common* and linux-kbuild-*
 * packages) are fetched with `apt-get download` + `dpkg -x` into the kernel
 * cache once per release and version; each module is built with
 * `make -C <headers> M=<dir> modules`, its vermagic checked against the
 * release, and cached by the hash of its sources with the sha256 of the
 * .ko it built, checked before each use.  The compiler the kernel
 * was built with (gcc-12 for Debian 12) must be installed (scripts/deps.sh).
 */

#include "error.h"
#include "kernel.h"

/**
 * module_headers() - the kbuild directory of @id's headers, fetched into
 * @cache_root (NULL: kernel_cache_root()) when not there yet; for a local
 * kernel, its modules_dir/build.
 * @dir: malloc'd path (caller frees).
 * Return: 0 or a negative errno with @err naming the package or tool.
 */
int module_headers(const struct kernel_ident *id, const char *cache_root,
		   char **dir, struct rtlab_err *err) __must_check;

/**
 * module_build() - build module @name (e.g. "rtlab_inject") from the Kbuild
 * sources in @src_dir for kernel @id, or take it from the cache.
 * @ko_path: malloc'd path of the .ko (caller frees).
 * A cached .ko is used only when module_verify() accepts it; one built
 * before hashes were recorded is rebuilt.
 * Return: 0; -EIO with @err holding the end of the compiler's output;
 * -EINVAL when the result's vermagic does not start with the release;
 * -EBADMSG when the cached .ko is not the one built (module_verify());
 * other negative errnos with @err set.
 */
int module_build(const struct kernel_ident *id, const char *src_dir,
		 const char *name, const char *cache_root, char **ko_path,
		 struct rtlab_err *err) __must_check;

/**
 * module_record() - write the sha256 of @ko_path beside it, in
 * "<ko_path>.sha256", when rtlab has just built it.
 * Return: 0 or a negative errno with @err naming the file.
 */
int module_record(const char *ko_path, struct rtlab_err *err) __must_check;

/**
 * module_verify() - check that @ko_path is the module rtlab built there:
 * its sha256 equals the one module_record() wrote.  A cache is trusted by
 * this, not by the path: another module of the same name (same vermagic)
 * would otherwise be loaded and its injections taken for rtlab's.
 * Return: 0; -ENOENT when nothing was recorded (a cache from before the
 * record, to be rebuilt); -EBADMSG with @err naming the file and both
 * hashes when the file is not what was built; other negative errnos.
 */
int module_verify(const char *ko_path, struct rtlab_err *err) __must_check;

/**
 * module_vermagic() - the vermagic string of @ko_path (`modinfo -F
 * vermagic`), e.g. "6.1.0-57-rt-amd64 SMP preempt_rt mod_unload
 * modversions".  @vermagic: malloc'd, caller frees.
 * Return: 0 or a negative errno with @err naming the file.
 */
int module_vermagic(const char *ko_path, char **vermagic,
		    struct rtlab_err *err) __must_check;

/**
 * module_archive() - write a gzip'd newc cpio holding @ko_path as
 * lib/modules/@release/extra/<its file name>, to be appended to a virtual
 * board's initrd (board_run_opts.extra_archive).
 * Return: 0 or a negative errno with @err naming the file.
 */
int module_archive(const char *ko_path, const char *release,
		   const char *out_path, struct rtlab_err *err) __must_check;

/* The latency injector's module (testcases/inject/, docs/calibration.md). */
#define INJECT_MODULE "rtlab_inject"

/**
 * module_inject_archive() - build (or take from the cache) the
 * rtlab_inject module for kernel @id and write it to @out_path as
 * module_archive() does: what a board that boots @id needs in its initrd
 * to run a testcase with a `preempt` or `irq` injector load.
 * Return: 0 or a negative errno with @err set (module_build()).
 */
int module_inject_archive(const struct kernel_ident *id, const char *out_path,
			  struct rtlab_err *err) __must_check;

#endif
