// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The local board: this host, running the kernel it runs.  A run is
 * rtlab-agent run on this host, the one place that starts it for the
 * worker and for rtlab calibrate.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "board.h"
#include "config.h"
#include "extras-check.h"
#include "fsutil.h"
#include "testcase.h"

/* The kernel is the host's; the testcase's tools must be on its PATH. */
static int local_check_job(const char *board, const char *definition_json,
			   const char *kernel, const char *testcase_path,
			   char **stored_kernel, struct rtlab_err *err)
{
	const char **tools = NULL;
	struct testcase tc;
	char *path;
	size_t i;
	int ret;

	(void)definition_json;
	if (strcmp(kernel, BOARD_KERNEL_HOST))
		return rtlab_err_set(err,
				     "--kernel %s: board '%s' is a local "
				     "board, which runs the host's kernel: "
				     "expected --kernel " BOARD_KERNEL_HOST,
				     kernel, board);
	ret = testcase_load(testcase_path, &tc, err);
	if (ret)
		return ret;
	tools = testcase_tools(&tc);
	if (!tools)
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	for (i = 0; !ret && tools[i]; i++) {
		path = path_which(tools[i]);
		if (!path)
			ret = rtlab_err_seterr(err, ENOENT,
					       "testcase %s: this host cannot "
					       "run it: tool %s: MISSING (not "
					       "on PATH)",
					       testcase_path, tools[i]);
		free(path);
	}
	if (!ret && testcase_has_extras(&tc)) {
		struct utsname u;

		/* The host's kernel is the one the modules go into. */
		uname(&u);
		ret = extras_check(&tc, u.release, err);
	}
	free(tools);
	testcase_cleanup(&tc);
	if (!ret && !(*stored_kernel = strdup(kernel)))
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	return ret;
}

static int local_open(struct board *b, const char *definition_json,
		      const char *def_name, struct rtlab_err *err)
{
	(void)definition_json;
	(void)def_name;
	if (strcmp(b->kernel, BOARD_KERNEL_HOST))
		return rtlab_err_set(err,
				     "--kernel %s: board %s runs this host's "
				     "kernel; --kernel is for boards that "
				     "boot one",
				     b->kernel, b->name);
	return 0;
}

static int local_prepare(struct board *b, struct rtlab_err *err)
{
	struct utsname u;

	if (!b->agent)
		b->agent = rtlab_agent_path();
	if (!b->agent)
		return rtlab_err_seterr(err, ENOENT,
					"board %s: cannot find rtlab-agent "
					"(set RTLAB_AGENT)",
					b->name);
	if (uname(&u))
		return rtlab_err_seterr(err, errno, "uname: %s",
					strerror(errno));
	snprintf(b->release, sizeof(b->release), "%s", u.release);
	return 0;
}

/* The last non-empty line of @path, "" when none. */
static void last_line(const char *path, char *out, size_t size)
{
	char *text = NULL;
	size_t len = 0, end, start;

	out[0] = '\0';
	if (!path || file_read_all(path, &text, &len, NULL)) {
		free(text);
		return;
	}
	end = len;
	while (end && strchr("\r\n ", text[end - 1]))
		end--;
	start = end;
	while (start && text[start - 1] != '\n')
		start--;
	snprintf(out, size, "%.*s", (int)(end - start), text + start);
	free(text);
}

static int local_run(struct board *b, const struct board_job *job,
		     const char *out, struct board_run_info *info,
		     struct rtlab_err *err)
{
	char dur[16], tail[256];
	const char *argv[20];
	struct stat st;
	int n = 0, status = 0, fd;
	pid_t pid, parent = getpid();

	snprintf(dur, sizeof(dur), "%u", job->duration_s);
	argv[n++] = b->agent;
	argv[n++] = "run";
	argv[n++] = "--testcase";
	argv[n++] = job->testcase_path;
	argv[n++] = "--duration";
	argv[n++] = dur;
	argv[n++] = "--board";
	argv[n++] = b->name;
	if (job->run_id) {
		argv[n++] = "--run-id";
		argv[n++] = job->run_id;
	}
	argv[n++] = "--clock";
	argv[n++] = "host";
	argv[n++] = "--out";
	argv[n++] = out;
	if (job->spool_dir) {
		argv[n++] = "--spool";
		argv[n++] = job->spool_dir;
	}
	argv[n] = NULL;
	unlink(out);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return rtlab_err_seterr(err, errno, "fork: %s",
					strerror(errno));
	if (!pid) {
		/* the agent restores the host's knobs on SIGTERM */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(126);
		if (job->log_path) {
			fd = open(job->log_path,
				  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				  0644);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		execvp(b->agent, (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s (set RTLAB_AGENT)\n",
			b->agent, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return rtlab_err_seterr(err, errno, "waitpid: %s",
						strerror(errno));
	/* An agent that wrote a bundle delivered a run, whatever it
	 * exited with (agent_error bundles exit 1). */
	if (!stat(out, &st) && S_ISREG(st.st_mode) && st.st_size) {
		if (info)
			board_bundle_status(out, info);
		return 0;
	}
	last_line(job->log_path, tail, sizeof(tail));
	return rtlab_err_seterr(err, EIO,
				"board %s: no bundle: rtlab-agent %s %d%s%s",
				b->name,
				WIFEXITED(status) ? "exited with status" :
						    "was killed by signal",
				WIFEXITED(status) ? WEXITSTATUS(status) :
						    WTERMSIG(status),
				tail[0] ? ": " : "", tail);
}

const struct board_kind board_kind_local = {
	.name = "local",
	.boots_kernel = false,
	.check_job = local_check_job,
	.open = local_open,
	.prepare = local_prepare,
	.run = local_run,
};
