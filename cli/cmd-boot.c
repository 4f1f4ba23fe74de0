// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab boot: boot a kernel on a virtual board, run one testcase, and
 * leave the result bundle in a file (for people and tests; the job queue's
 * worker drives the same board_run()).
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../boards/board.h"
#include "../kernels/kernel.h"
#include "../kernels/module.h"
#include "bundle-hists.h"
#include "bundle.h"
#include "commands.h"
#include "common.h"
#include "cyclictest.h"
#include "manifest.h"
#include "testcase.h"

#define EXIT_FAULT 3

static void boot_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab boot --testcase FILE --out BUNDLE [OPTIONS]\n\n"
		"Boot KERNEL on BOARD, run the testcase for DURATION seconds and write the\n"
		"result bundle.  A board that fails to boot, panics or hangs still yields a\n"
		"bundle, with status boot_failed, panic or hang and console.log.  The\n"
		"timeouts count the time QEMU could run, not the time it was stopped or\n"
		"waited for a CPU; QEMU that crashes, is killed or never gets the CPU\n"
		"is an infrastructure error: no bundle.  A testcase whose injector runs the\n"
		"rtlab_inject module (mode preempt, irq or tick) gets it built for the\n"
		"kernel, in the initrd.\n\n"
		"  -b, --board NAME|FILE    board definition (default qemu-icount)\n"
		"  -k, --kernel NAME|FILE   kernel definition (default debian-rt)\n"
		"  -t, --testcase FILE      testcase definition (required)\n"
		"  -d, --duration S         measurement seconds (default 5)\n"
		"  -o, --out FILE           bundle to write (required)\n"
		"      --run-id UUID        default: a new one\n"
		"      --agent PATH         rtlab-agent for the board (default: beside rtlab)\n"
		"      --append ARGS        extra kernel command line\n"
		"      --boot-timeout S     QEMU start to agent start, in time QEMU could\n"
		"                           run (default: board's)\n"
		"      --hang-timeout S     agent start to bundle, likewise (default: from\n"
		"                           the board)\n"
		"      --keep               keep the work directory (console.log, initrd)\n"
		"  -q, --quiet              no progress line (shown only on a terminal)\n"
		"      --inject-fault F     TESTS ONLY: panic, hang or corrupt the board\n\n"
		"       rtlab boot --inspect BUNDLE\n"
		"  checks a bundle (manifest, listed files, cyclictest.json) and prints\n"
		"  what it says as key=value lines.\n\n"
		"Exit status: 0 complete, 3 bundle written with another status, 1 no\n"
		"bundle (bad definition, kernel not fetchable, infrastructure error),\n"
		"2 usage.\n");
}

/*
 * A testcase with an injector load run by the rtlab_inject module: the
 * module built for @k, as an archive for the initrd, in a new directory
 * whose path goes to *@dir (caller removes it with boot_module_remove()),
 * the archive's to *@cpio.  Both NULL when the testcase needs no module,
 * or does not parse (the agent on the board then says why, in the
 * bundle).  Without the module the injector could not start and the run
 * would not be the one asked for.  Return: 0 or a negative errno.
 */
static int boot_module_archive(const struct kernel_def *k, const char *testcase,
			       bool quiet, char **dir, char **cpio,
			       struct rtlab_err *err)
{
	struct kernel_ident id = { 0 };
	const char *tmp = getenv("TMPDIR");
	struct testcase tc;
	bool needs;
	int ret;

	*dir = *cpio = NULL;
	needs = !testcase_load(testcase, &tc, err) &&
		testcase_needs_inject_module(&tc);
	testcase_cleanup(&tc);
	err->msg[0] = '\0';
	if (!needs)
		return 0;
	ret = kernel_fetch(k, NULL, &id, err);
	if (ret)
		goto out;
	if (asprintf(dir, "%s/rtlab-boot-XXXXXX", tmp && *tmp ? tmp : "/tmp") <
	    0) {
		*dir = NULL;
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out_id;
	}
	if (!mkdtemp(*dir)) {
		ret = rtlab_err_seterr(err, errno, "%s: %s", *dir,
				       strerror(errno));
		free(*dir);
		*dir = NULL;
		goto out_id;
	}
	if (asprintf(cpio, "%s/inject.cpio.gz", *dir) < 0) {
		*cpio = NULL;
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out_id;
	}
	if (!quiet)
		fprintf(stderr, "rtlab boot: building %s for %s\n",
			INJECT_MODULE, id.release);
	ret = module_inject_archive(&id, *cpio, err);
out_id:
	kernel_ident_cleanup(&id);
out:
	return ret;
}

/* Remove what boot_module_archive() made; NULL is fine. */
static void boot_module_remove(char **dir, char **cpio)
{
	if (*cpio)
		unlink(*cpio);
	if (*dir)
		rmdir(*dir);
	free(*cpio);
	free(*dir);
	*dir = *cpio = NULL;
}

/*
 * --inspect: what a bundle says, one "key=value" a line, after checking the
 * manifest, the files it lists and cyclictest.json.  Return: exit status.
 */
static int boot_inspect(const char *path)
{
	struct rtlab_err err = { "" };
	const struct bundle_file *f;
	struct ct_result ct = { 0 };
	struct manifest m = { 0 };
	struct bundle *b;
	unsigned int i;
	int ret = 1;

	b = bundle_read(path, &err);
	if (!b) {
		fprintf(stderr, "rtlab boot --inspect: %s\n", err.msg);
		return 1;
	}
	f = bundle_get(b, BUNDLE_MANIFEST);
	if (!f || manifest_parse((const char *)f->data, f->size, &m, &err)) {
		fprintf(stderr, "rtlab boot --inspect: %s: %s\n", path,
			f ? err.msg : "no manifest.json");
		goto out;
	}
	printf("status=%s\n", run_status_name(m.status));
	if (m.error)
		printf("error=%s\n", m.error);
	printf("run_id=%s\nboard=%s\nkernel_release=%s\n"
	       "kernel_realtime=%d\nclock=%s\n",
	       m.run_id, m.board, m.kernel_release, m.kernel_realtime, m.clock);
	for (i = 0; i < b->nfiles; i++)
		printf("file=%s %zu\n", b->files[i].name, b->files[i].size);
	if (manifest_verify_files(&m, b, &err)) {
		printf("files_verified=no %s\n", err.msg);
		goto out;
	}
	printf("files_verified=yes\n");
	if (m.tool != RT_TOOL_CYCLICTEST && m.status == RUN_STATUS_COMPLETE) {
		json_t *sum = NULL;

		printf("tool=%s\n", rt_tool_name(m.tool));
		if (bundle_tool_hists_read(b, m.tool, m.hist_range_us, &ct,
					   &err) ||
		    bundle_summary_read(b, m.tool, &sum, &err)) {
			printf("result=invalid %s\n", err.msg);
			goto out;
		}
		for (i = 0; i < ct.nthreads; i++)
			printf("hist=%u metric=%s cpu=%d samples=%llu "
			       "max_us=%u\n",
			       i, ct.threads[i].metric, ct.threads[i].cpu,
			       (unsigned long long)ct.threads[i].samples,
			       ct.threads[i].max_us);
		if (sum)
			printf("passed=%s threads=%zu\n",
			       json_is_true(json_object_get(sum, "passed")) ?
				       "yes" :
				       "no",
			       json_array_size(json_object_get(sum,
							       "threads")));
		json_decref(sum);
	} else if (bundle_get(b, BUNDLE_CT_JSON) ||
		   bundle_get(b, BUNDLE_CT_HIST)) {
		/* The histograms as ingest will read them. */
		if (bundle_tool_hists_read(b, m.tool, m.hist_range_us, &ct,
					   &err)) {
			printf("cyclictest=invalid %s\n", err.msg);
			goto out;
		}
		printf("cyclictest=valid threads=%u realtime=%d\n", ct.nthreads,
		       ct.realtime);
		for (i = 0; i < ct.nthreads; i++)
			printf("cyclictest_thread=%u samples=%llu max_us=%u\n",
			       i, (unsigned long long)ct.threads[i].samples,
			       ct.threads[i].max_us);
	}
	ret = 0;
out:
	ct_result_cleanup(&ct);
	manifest_cleanup(&m);
	bundle_free(b);
	return ret;
}

int cmd_boot(int argc, char **argv)
{
	enum {
		O_RUNID = 256,
		O_AGENT,
		O_APPEND,
		O_BOOTTO,
		O_HANGTO,
		O_KEEP,
		O_FAULT,
		O_INSPECT
	};
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "testcase", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' },
		{ "run-id", required_argument, NULL, O_RUNID },
		{ "agent", required_argument, NULL, O_AGENT },
		{ "append", required_argument, NULL, O_APPEND },
		{ "boot-timeout", required_argument, NULL, O_BOOTTO },
		{ "hang-timeout", required_argument, NULL, O_HANGTO },
		{ "keep", no_argument, NULL, O_KEEP },
		{ "quiet", no_argument, NULL, 'q' },
		{ "inject-fault", required_argument, NULL, O_FAULT },
		{ "inspect", required_argument, NULL, O_INSPECT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct board_run_opts o = { .duration_s = 5 };
	const char *board = "qemu-icount", *kernel = "debian-rt";
	const char *testcase = NULL, *out = NULL;
	struct rtlab_err err = { "" };
	struct board_run_info info;
	struct board_def *b = NULL;
	struct kernel_def *k = NULL;
	char *mod_dir = NULL, *mod_cpio = NULL;
	bool quiet = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "b:k:t:d:o:qh", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'b':
			board = optarg;
			break;
		case 'k':
			kernel = optarg;
			break;
		case 't':
			testcase = optarg;
			break;
		case 'd':
			if (opt_uint("boot", "--duration", optarg, 0, 1000000,
				     &o.duration_s))
				return EXIT_USAGE;
			break;
		case 'o':
			out = optarg;
			break;
		case O_RUNID:
			o.run_id = optarg;
			break;
		case O_AGENT:
			o.agent_path = optarg;
			break;
		case O_APPEND:
			o.extra_cmdline = optarg;
			break;
		case O_BOOTTO:
			if (opt_uint("boot", "--boot-timeout", optarg, 0,
				     1000000, &o.boot_timeout_s))
				return EXIT_USAGE;
			break;
		case O_HANGTO:
			if (opt_uint("boot", "--hang-timeout", optarg, 0,
				     1000000, &o.hang_timeout_s))
				return EXIT_USAGE;
			break;
		case O_KEEP:
			o.keep = true;
			break;
		case 'q':
			quiet = true;
			break;
		case O_FAULT:
			if (!strcmp(optarg, "panic"))
				o.fault = BOARD_FAULT_PANIC;
			else if (!strcmp(optarg, "hang"))
				o.fault = BOARD_FAULT_HANG;
			else if (!strcmp(optarg, "corrupt"))
				o.fault = BOARD_FAULT_CORRUPT;
			else {
				fprintf(stderr,
					"rtlab boot: --inject-fault: "
					"expected panic, hang or corrupt, got "
					"'%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case O_INSPECT:
			return boot_inspect(optarg);
		case 'h':
			boot_usage(stdout);
			return 0;
		default:
			boot_usage(stderr);
			return EXIT_USAGE;
		}
	}
	o.progress = !quiet && isatty(2);
	if (optind != argc || !testcase || !out) {
		fprintf(stderr, "rtlab boot: %s\n",
			optind != argc ? "unexpected argument" :
					 "--testcase and --out are "
					 "required");
		boot_usage(stderr);
		return EXIT_USAGE;
	}
	if (o.duration_s == 0) {
		fprintf(stderr, "rtlab boot: --duration: at least 1 s\n");
		return EXIT_USAGE;
	}
	b = board_def_find(board, &err);
	if (!b)
		goto fail;
	k = kernel_def_find(kernel, &err);
	if (!k)
		goto fail;
	if (boot_module_archive(k, testcase, quiet, &mod_dir, &mod_cpio, &err))
		goto fail;
	o.extra_archive = mod_cpio;
	ret = board_run(b, k, testcase, &o, out, &info, &err);
	boot_module_remove(&mod_dir, &mod_cpio);
	if (ret)
		goto fail;
	printf("status:   %s\n", info.status);
	printf("bundle:   %s\n", out);
	if (info.boot_s >= 0)
		printf("boot:     %.1f s (QEMU start to agent start)\n",
		       info.boot_s);
	if (info.channel_bytes && info.channel_s > 0)
		printf("channel:  %llu bytes in %.4f s (%.1f MiB/s)\n",
		       info.channel_bytes, info.channel_s,
		       info.channel_bytes / info.channel_s / 1048576.0);
	else if (info.channel_bytes)
		printf("channel:  %llu bytes\n", info.channel_bytes);
	printf("total:    %.1f s\n", info.total_s);
	printf("watchdog: QEMU could run %.1f s (stopped %.1f s, waiting for "
	       "a CPU %.1f s), used %.1f s of CPU\n",
	       info.runnable_s, info.stopped_s, info.starved_s,
	       info.qemu_cpu_s);
	if (info.work_dir)
		printf("work dir: %s\n", info.work_dir);
	ret = strcmp(info.status, "complete") ? EXIT_FAULT : 0;
	board_run_info_cleanup(&info);
	board_def_free(b);
	kernel_def_free(k);
	return ret;
fail:
	fprintf(stderr, "rtlab boot: %s\n", err.msg);
	boot_module_remove(&mod_dir, &mod_cpio);
	board_def_free(b);
	kernel_def_free(k);
	return 1;
}
