// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host-side helpers shared by the kernel cache and the board drivers:
 * spawning tools with captured output, file hashing, directory trees.
 */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"

pid_t spawn_logged(char *const argv[], const char *log_path, bool append,
		   int death_signal, struct rtlab_err *err)
{
	pid_t parent = getpid(), pid;
	int fd;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return rtlab_err_seterr(err, errno, "%s: fork: %s", argv[0],
					strerror(errno));
	if (pid == 0) {
		setpgid(0, 0);
		if (death_signal) {
			prctl(PR_SET_PDEATHSIG, death_signal);
			if (getppid() != parent)
				_exit(126);
		}
		fd = open(log_path,
			  O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC),
			  0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, 0);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	/* the group exists before the caller signals it, whoever runs first */
	setpgid(pid, pid);
	return pid;
}

int file_regular(const char *path, size_t *size, struct rtlab_err *err)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return rtlab_err_seterr(err, errno, "%s: %s", path,
					strerror(errno));
	if (!S_ISREG(st.st_mode))
		return rtlab_err_seterr(err, EINVAL, "%s: not a regular file",
					path);
	if (size)
		*size = st.st_size;
	return 0;
}

int spawn_capture(char *const argv[], const char *cwd, int with_stderr,
		  char **out, struct rtlab_err *err)
{
	char *buf = NULL, *nbuf;
	size_t len = 0, cap = 0;
	int pfd[2], status, ret;
	pid_t pid;
	ssize_t n;

	*out = NULL;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return rtlab_err_seterr(err, errno, "%s: pipe: %s", argv[0],
					strerror(errno));
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return rtlab_err_seterr(err, -ret, "%s: fork: %s", argv[0],
					strerror(-ret));
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(pfd[1], 1);
		if (with_stderr == 1)
			dup2(pfd[1], 2);
		else if (with_stderr == 2 && nul >= 0)
			dup2(nul, 2);
		if (cwd && chdir(cwd) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			nbuf = realloc(buf, cap);
			if (!nbuf)
				break;
			buf = nbuf;
		}
		n = read(pfd[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!buf)
		return -ENOMEM;
	buf[len] = '\0';
	*out = buf;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	ret = WEXITSTATUS(status);
	if (ret == 127)
		rtlab_err_set(err, "%s: cannot run (not installed?)", argv[0]);
	return ret;
}

int file_sha256_hex(const char *path, char out[65], struct rtlab_err *err)
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[65536];
	unsigned int mdlen = 0, i;
	EVP_MD_CTX *ctx;
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rtlab_err_seterr(err, errno, "%s: cannot open: %s", path,
					strerror(errno));
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		ret = -ENOMEM;
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = rtlab_err_seterr(err, errno, "%s: read: %s", path,
					       strerror(errno));
			goto out;
		}
		EVP_DigestUpdate(ctx, buf, n);
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	for (i = 0; i < mdlen; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
	out[64] = '\0';
out:
	EVP_MD_CTX_free(ctx);
	close(fd);
	return ret;
}

int file_read_all(const char *path, char **data, size_t *size,
		  struct rtlab_err *err)
{
	struct stat st;
	size_t len = 0;
	char *buf;
	ssize_t n;
	int fd, ret = 0;

	*data = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rtlab_err_seterr(err, errno, "%s: cannot open: %s", path,
					strerror(errno));
	if (fstat(fd, &st) < 0) {
		ret = rtlab_err_seterr(err, errno, "%s: stat: %s", path,
				       strerror(errno));
		goto out;
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	while (len < (size_t)st.st_size) {
		n = read(fd, buf + len, st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = rtlab_err_seterr(err, errno, "%s: read: %s", path,
					       strerror(errno));
			free(buf);
			goto out;
		}
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	*data = buf;
	if (size)
		*size = len;
out:
	close(fd);
	return ret;
}

int file_write_all(const char *path, const void *data, size_t size,
		   struct rtlab_err *err)
{
	const char *p = data;
	int fd, ret = 0;
	ssize_t n;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return rtlab_err_seterr(err, errno, "%s: cannot create: %s",
					path, strerror(errno));
	while (size) {
		n = write(fd, p, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = rtlab_err_seterr(err, errno, "%s: write: %s",
					       path, strerror(errno));
			break;
		}
		p += n;
		size -= n;
	}
	if (close(fd) < 0 && !ret)
		ret = rtlab_err_seterr(err, errno, "%s: close: %s", path,
				       strerror(errno));
	return ret;
}

int mkdir_p(const char *path, mode_t mode, struct rtlab_err *err)
{
	char *p, *s;
	int ret = 0;

	s = strdup(path);
	if (!s)
		return -ENOMEM;
	for (p = s + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(s, mode) < 0 && errno != EEXIST) {
			ret = rtlab_err_seterr(err, errno,
					       "%s: cannot create "
					       "directory: %s",
					       s, strerror(errno));
			break;
		}
		*p = c;
		if (!c)
			break;
	}
	free(s);
	return ret;
}

static int rmtree_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int rmtree(const char *path)
{
	if (access(path, F_OK) < 0)
		return 0;
	if (nftw(path, rmtree_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		return -errno;
	return 0;
}

char *path_join(const char *a, const char *b)
{
	char *s;

	if (asprintf(&s, "%s/%s", a, b) < 0)
		return NULL;
	return s;
}

char *path_which(const char *tool)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL, *full = NULL;

	if (!tool || !*tool)
		return NULL;
	if (strchr(tool, '/'))
		return access(tool, X_OK) ? NULL : strdup(tool);
	dirs = strdup(path && *path ? path :
				      "/usr/local/sbin:/usr/local/bin:"
				      "/usr/sbin:/usr/bin:/sbin:/bin");
	if (!dirs)
		return NULL;
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		if (asprintf(&full, "%s/%s", dir, tool) < 0) {
			full = NULL;
			break;
		}
		if (!access(full, X_OK))
			break;
		free(full);
		full = NULL;
	}
	free(dirs);
	return full;
}
