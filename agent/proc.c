// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Small process helpers for the agent: PATH lookup, running a command to
 * capture its output (uname-like facts, dmesg, tool versions).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

int proc_capture(char *const argv[], size_t max, char **out, size_t *len,
		 int *status, struct rtlab_err *err)
{
	int pfd[2], devnull, ret = 0;
	size_t cap = 4096, n = 0;
	char *buf;
	pid_t pid;

	*out = NULL;
	*len = 0;
	buf = malloc(cap);
	if (!buf)
		return rtlab_err_seterr(err, ENOMEM, "%s: out of memory",
					argv[0]);
	if (pipe2(pfd, O_CLOEXEC)) {
		ret = rtlab_err_seterr(err, errno, "%s: pipe: %s", argv[0],
				       strerror(errno));
		goto out_free;
	}
	pid = fork();
	if (pid < 0) {
		ret = rtlab_err_seterr(err, errno, "%s: fork: %s", argv[0],
				       strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		goto out_free;
	}
	if (!pid) {
		devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 2);
		}
		dup2(pfd[1], 1);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap && cap < max + 1) {
			size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			char *nb = realloc(buf, ncap);

			if (!nb)
				break;
			buf = nb;
			cap = ncap;
		}
		if (n + 1 >= cap) {
			char sink[4096];

			/* Over the limit: drain so the child can finish. */
			r = read(pfd[0], sink, sizeof(sink));
		} else {
			r = read(pfd[0], buf + n, cap - 1 - n);
			if (r > 0)
				n += r;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
	}
	close(pfd[0]);
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			ret = rtlab_err_seterr(err, errno, "%s: wait: %s",
					       argv[0], strerror(errno));
			goto out_free;
		}
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;

out_free:
	free(buf);
	return ret;
}

const char *proc_status_str(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by SIG%s",
			 sigabbrev_np(WTERMSIG(status)) ?
				 sigabbrev_np(WTERMSIG(status)) :
				 "?");
	else
		snprintf(buf, size, "wait status %#x", status);
	return buf;
}
