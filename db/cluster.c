// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The embedded PostgreSQL: a private cluster under STATE_DIR/pg that rtlab
 * creates with initdb and runs with pg_ctl on a unix socket, so the lab
 * works on a fresh machine without setting up a database server.  As root
 * the PostgreSQL programs run as the `postgres` system user (PostgreSQL
 * refuses root); their output is captured for error messages.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "cluster.h"
#include "config.h"
#include "fsutil.h"

#define PG_LIBDIR "/usr/lib/postgresql"
#define START_TIMEOUT_S "120"

/* snprintf that truncates silently (paths are checked against PATH_MAX
 * where it matters). */
static void __printf(3, 4) bprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

static int read_port(const char *path)
{
	FILE *f = fopen(path, "r");
	int port = CLUSTER_DEFAULT_PORT;

	if (f) {
		if (fscanf(f, "%d", &port) != 1 || port <= 0 || port > 65535)
			port = CLUSTER_DEFAULT_PORT;
		fclose(f);
	}
	return port;
}

int cluster_init(struct cluster *c)
{
	memset(c, 0, sizeof(*c));
	c->state_dir = strdup(rtlab_state_dir());
	if (!c->state_dir)
		goto nomem;
	c->pg_dir = path_join(c->state_dir, "pg");
	if (!c->pg_dir)
		goto nomem;
	c->data_dir = path_join(c->pg_dir, "data");
	c->run_dir = path_join(c->pg_dir, "run");
	c->log_path = path_join(c->pg_dir, "log");
	c->port_path = path_join(c->pg_dir, "port");
	if (!c->data_dir || !c->run_dir || !c->log_path || !c->port_path)
		goto nomem;
	c->port = read_port(c->port_path);
	return 0;
nomem:
	cluster_cleanup(c);
	return -ENOMEM;
}

void cluster_cleanup(struct cluster *c)
{
	if (!c)
		return;
	free(c->state_dir);
	free(c->pg_dir);
	free(c->data_dir);
	free(c->run_dir);
	free(c->log_path);
	free(c->port_path);
	memset(c, 0, sizeof(*c));
}

static bool has_pg_ctl(const char *bindir)
{
	char path[PATH_MAX];

	bprintf(path, sizeof(path), "%s/pg_ctl", bindir);
	return !access(path, X_OK);
}

char *cluster_pg_bindir(struct rtlab_err *err)
{
	const char *env = getenv("RTLAB_PG_BINDIR");
	char path[PATH_MAX];
	struct dirent *de;
	long best = -1, v;
	char *end;
	DIR *d;

	if (env && *env) {
		if (has_pg_ctl(env))
			return strdup(env);
		rtlab_err_seterr(
			err, ENOENT,
			"RTLAB_PG_BINDIR=%s: expected a directory holding PostgreSQL's initdb and pg_ctl",
			env);
		return NULL;
	}
	if (has_pg_ctl(PG_LIBDIR "/15/bin"))
		return strdup(PG_LIBDIR "/15/bin");
	d = opendir(PG_LIBDIR);
	while (d && (de = readdir(d))) {
		v = strtol(de->d_name, &end, 10);
		if (end == de->d_name || *end || v <= best)
			continue;
		bprintf(path, sizeof(path), PG_LIBDIR "/%s/bin", de->d_name);
		if (has_pg_ctl(path))
			best = v;
	}
	if (d)
		closedir(d);
	if (best >= 0) {
		bprintf(path, sizeof(path), PG_LIBDIR "/%ld/bin", best);
		return strdup(path);
	}
	rtlab_err_seterr(
		err, ENOENT,
		"no PostgreSQL server binaries in " PG_LIBDIR
		"/*/bin: install postgresql-15 ('make deps') or set RTLAB_PG_BINDIR");
	return NULL;
}

char *cluster_conninfo(const struct cluster *c, const char *dbname)
{
	char *s;

	/* A socket directory with spaces or quotes needs conninfo quoting. */
	if (strpbrk(c->run_dir, " '\\")) {
		size_t n = strlen(c->run_dir), i, o = 0;
		char *q = malloc(2 * n + 3);

		if (!q)
			return NULL;
		q[o++] = '\'';
		for (i = 0; i < n; i++) {
			if (c->run_dir[i] == '\'' || c->run_dir[i] == '\\')
				q[o++] = '\\';
			q[o++] = c->run_dir[i];
		}
		q[o++] = '\'';
		q[o] = '\0';
		if (asprintf(&s, "host=%s port=%d dbname=%s user=" CLUSTER_USER,
			     q, c->port, dbname) < 0)
			s = NULL;
		free(q);
		return s;
	}
	if (asprintf(&s, "host=%s port=%d dbname=%s user=" CLUSTER_USER,
		     c->run_dir, c->port, dbname) < 0)
		return NULL;
	return s;
}

char *cluster_conninfo_resolve(enum db_origin *origin, struct rtlab_err *err)
{
	const char *env = getenv("RTLAB_DB");
	struct rtlab_config cfg;
	struct cluster c;
	char *s = NULL;

	if (env && *env) {
		if (origin)
			*origin = DB_ORIGIN_ENV;
		return strdup(env);
	}
	if (rtlab_config_load(&cfg, err)) {
		rtlab_config_cleanup(&cfg);
		return NULL;
	}
	if (cfg.db) {
		if (origin)
			*origin = DB_ORIGIN_CONFIG;
		s = cfg.db;
		cfg.db = NULL;
		rtlab_config_cleanup(&cfg);
		return s;
	}
	rtlab_config_cleanup(&cfg);
	if (origin)
		*origin = DB_ORIGIN_EMBEDDED;
	if (cluster_init(&c))
		return NULL;
	s = cluster_conninfo(&c, CLUSTER_DBNAME);
	cluster_cleanup(&c);
	return s;
}

void cluster_conninfo_redact(const char *conninfo, char *out, size_t size)
{
	PQconninfoOption *opts, *o;
	size_t len = 0;
	int n;

	out[0] = '\0';
	opts = PQconninfoParse(conninfo, NULL);
	if (!opts) {
		snprintf(out, size, "'%s'", conninfo);
		return;
	}
	for (o = opts; o->keyword && len < size; o++) {
		if (!o->val || !*o->val || !strcmp(o->keyword, "password"))
			continue;
		n = snprintf(out + len, size - len, "%s%s=%s", len ? " " : "",
			     o->keyword, o->val);
		if (n < 0)
			break;
		len += (size_t)n;
	}
	PQconninfoFree(opts);
}

int cluster_running(const struct cluster *c)
{
	char path[PATH_MAX];
	FILE *f;
	long pid = 0;

	bprintf(path, sizeof(path), "%s/postmaster.pid", c->data_dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1 || pid <= 0 || pid > INT_MAX)
		pid = 0;
	fclose(f);
	if (pid && kill((pid_t)pid, 0) && errno != EPERM)
		pid = 0;
	return (int)pid;
}

/*
 * Who runs the PostgreSQL programs: as root the `postgres` user, otherwise
 * ourselves (uid -1 means "don't switch").
 */
struct runas {
	uid_t uid;
	gid_t gid;
	char name[64];
};

static int runas_get(struct runas *ra, struct rtlab_err *err)
{
	struct passwd *pw;

	ra->uid = (uid_t)-1;
	ra->gid = (gid_t)-1;
	ra->name[0] = '\0';
	if (geteuid() != 0)
		return 0;
	pw = getpwnam(CLUSTER_USER);
	if (!pw)
		return rtlab_err_seterr(
			err, ENOENT,
			"PostgreSQL refuses to run as root and there is no '" CLUSTER_USER
			"' system user to run it: install postgresql-15 ('make deps')");
	ra->uid = pw->pw_uid;
	ra->gid = pw->pw_gid;
	bprintf(ra->name, sizeof(ra->name), "%s", pw->pw_name);
	return 0;
}

/* In a child: become the cluster's user.  Only async-signal-safe calls. */
static int runas_switch(const struct runas *ra)
{
	if (ra->uid == (uid_t)-1)
		return 0;
	if (initgroups(ra->name, ra->gid) || setgid(ra->gid) || setuid(ra->uid))
		return -1;
	return 0;
}

/*
 * Run @argv (argv[0] a full path) as the cluster's user in @cwd, stdin from
 * /dev/null, stdout and stderr captured into *@out (malloc'd, caller
 * frees).  When @argv is NULL the child instead checks that it can use
 * @check_dir (rwx) and, if not, prints the first directory on the way it
 * cannot search.  Return: the exit status (>= 0), or a negative errno.
 */
static int run_child(const struct runas *ra, const char *cwd,
		     char *const argv[], const char *check_dir, char **out)
{
	size_t len = 0, cap = 0;
	int fds[2], status, devnull;
	char *buf = NULL, *big;
	ssize_t n;
	pid_t pid;

	*out = NULL;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		if (runas_switch(ra)) {
			dprintf(2, "cannot switch to user '%s': %s\n", ra->name,
				strerror(errno));
			_exit(126);
		}
		if (!argv) {
			char path[PATH_MAX], *slash;

			if (!access(check_dir, R_OK | W_OK | X_OK))
				_exit(0);
			bprintf(path, sizeof(path), "%s", check_dir);
			/* Walk down from / to find the first blocker. */
			for (slash = strchr(path + 1, '/');;
			     slash = strchr(slash + 1, '/')) {
				if (slash)
					*slash = '\0';
				if (access(path, X_OK)) {
					dprintf(1, "%s", path);
					_exit(1);
				}
				if (!slash)
					break;
				*slash = '/';
			}
			dprintf(1, "%s", check_dir);
			_exit(1);
		}
		if (cwd && chdir(cwd))
			_exit(126);
		unsetenv("PGDATA");
		unsetenv("PGHOST");
		unsetenv("PGPORT");
		execv(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		if (cap - len < 1024) {
			big = realloc(buf, cap + 8192);
			if (!big)
				break;
			buf = big;
			cap += 8192;
		}
		n = read(fds[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			free(buf);
			return -errno;
		}
	if (buf) {
		buf[len] = '\0';
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
			buf[--len] = '\0';
	}
	*out = buf;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* The last @lines lines of a file, for error messages; "" if unreadable. */
static void file_tail(const char *path, int lines, char *out, size_t size)
{
	char buf[4096];
	ssize_t n;
	off_t end;
	int fd, seen = 0;
	char *p;

	out[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	end = lseek(fd, 0, SEEK_END);
	if (end > (off_t)sizeof(buf) - 1)
		lseek(fd, end - (off_t)sizeof(buf) + 1, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	for (p = buf + n; p > buf; p--)
		if (p[-1] == '\n' && ++seen == lines)
			break;
	bprintf(out, size, "%s", p);
}

static int make_dir(const char *path, mode_t mode, const struct runas *ra,
		    struct rtlab_err *err)
{
	if (mkdir(path, mode) && errno != EEXIST)
		return rtlab_err_seterr(err, errno, "cannot create %s: %s",
					path, strerror(errno));
	if (ra && ra->uid != (uid_t)-1 && chown(path, ra->uid, ra->gid))
		return rtlab_err_seterr(err, errno,
					"cannot give %s to '%s': %s", path,
					ra->name, strerror(errno));
	if (ra && chmod(path, mode))
		return rtlab_err_seterr(err, errno, "cannot chmod %s: %s", path,
					strerror(errno));
	return 0;
}

/* mkdir -p of the state directory (root-owned, world-searchable). */
static int make_state_dir(const char *dir, struct rtlab_err *err)
{
	char path[PATH_MAX], *slash;
	int ret;

	if (strlen(dir) >= sizeof(path))
		return rtlab_err_seterr(err, ENAMETOOLONG,
					"state directory %s: path too long",
					dir);
	bprintf(path, sizeof(path), "%s", dir);
	for (slash = strchr(path + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		ret = make_dir(path, 0755, NULL, err);
		*slash = '/';
		if (ret)
			return ret;
	}
	return make_dir(path, 0755, NULL, err);
}

/* Can the cluster's user use @dir?  Say which directory is in the way. */
static int check_reachable(const struct runas *ra, const char *dir,
			   struct rtlab_err *err)
{
	char *out = NULL;
	struct stat st;
	int ret;

	if (ra->uid == (uid_t)-1)
		return 0;
	ret = run_child(ra, NULL, NULL, dir, &out);
	if (ret > 0) {
		const char *blk = out && *out ? out : dir;

		if (!stat(blk, &st))
			ret = rtlab_err_seterr(
				err, EACCES,
				"the '%s' user cannot reach %s: %s (mode %04o, owner uid %u) is not searchable by it. PostgreSQL refuses to run as root, so rtlab runs it as '%s': make every directory above the state directory searchable (chmod o+x %s) or choose another RTLAB_STATE_DIR",
				ra->name, dir, blk,
				(unsigned int)(st.st_mode & 07777),
				(unsigned int)st.st_uid, ra->name, blk);
		else
			ret = rtlab_err_seterr(
				err, EACCES,
				"the '%s' user cannot reach %s (stuck at %s)",
				ra->name, dir, blk);
	} else if (ret < 0) {
		rtlab_err_seterr(err, -ret, "cannot fork to check %s: %s", dir,
				 strerror(-ret));
	}
	free(out);
	return ret;
}

/* Run a PostgreSQL program; on failure @err holds its output. */
static int run_pg(const struct runas *ra, const struct cluster *c,
		  char *const argv[], const char *what, struct rtlab_err *err)
{
	char *out = NULL;
	int ret;

	ret = run_child(ra, c->pg_dir, argv, NULL, &out);
	if (ret < 0)
		rtlab_err_seterr(err, -ret, "%s: cannot run %s: %s", what,
				 argv[0], strerror(-ret));
	else if (ret > 0)
		ret = rtlab_err_seterr(err, EIO, "%s: %s failed (exit %d): %s",
				       what, argv[0], ret,
				       out && *out ? out : "no output");
	free(out);
	return ret;
}

/* Write @text to @path as the cluster's user would own it. */
static int write_owned(const struct runas *ra, const char *path,
		       const char *text, mode_t mode, struct rtlab_err *err)
{
	size_t len = strlen(text);
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return rtlab_err_seterr(err, errno, "cannot write %s: %s", path,
					strerror(errno));
	if (write(fd, text, len) != (ssize_t)len)
		ret = rtlab_err_seterr(err, errno ? errno : EIO,
				       "cannot write %s: %s", path,
				       strerror(errno ? errno : EIO));
	else if (ra->uid != (uid_t)-1 && fchown(fd, ra->uid, ra->gid))
		ret = rtlab_err_seterr(err, errno, "cannot give %s to '%s': %s",
				       path, ra->name, strerror(errno));
	if (close(fd) && !ret)
		ret = rtlab_err_seterr(err, errno, "cannot write %s: %s", path,
				       strerror(errno));
	return ret;
}

/* A string as a postgresql.conf literal: 'it''s'. */
static void conf_quote(const char *s, char *out, size_t size)
{
	size_t o = 0;

	if (size < 3)
		return;
	out[o++] = '\'';
	for (; *s && o + 3 < size; s++) {
		if (*s == '\'')
			out[o++] = '\'';
		out[o++] = *s;
	}
	out[o++] = '\'';
	out[o] = '\0';
}

static int initdb(const struct runas *ra, const struct cluster *c,
		  const char *bindir, struct rtlab_err *err)
{
	char prog[PATH_MAX], conf[PATH_MAX];
	char *argv[] = { prog,	       "-D", c->data_dir, "--auth=trust", "-U",
			 CLUSTER_USER, "-E", "UTF8",	  "--locale=C",	  NULL };
	FILE *f;
	int ret;

	bprintf(prog, sizeof(prog), "%s/initdb", bindir);
	ret = run_pg(ra, c, argv, "creating the embedded PostgreSQL", err);
	if (ret)
		return ret;
	/* Our settings live in rtlab.conf, rewritten at every start. */
	bprintf(conf, sizeof(conf), "%s/postgresql.conf", c->data_dir);
	f = fopen(conf, "a");
	if (!f)
		return rtlab_err_seterr(err, errno, "cannot append to %s: %s",
					conf, strerror(errno));
	fprintf(f, "\n# rtlab's settings (rewritten by 'rtlab db start')\n"
		   "include_if_exists = 'rtlab.conf'\n");
	if (fclose(f))
		return rtlab_err_seterr(err, errno, "cannot write %s: %s", conf,
					strerror(errno));
	return 0;
}

static int write_settings(const struct runas *ra, const struct cluster *c,
			  int port, bool tcp, struct rtlab_err *err)
{
	char path[PATH_MAX], sock[PATH_MAX + 8], text[PATH_MAX + 1024];
	char portnum[16];
	int ret;

	conf_quote(c->run_dir, sock, sizeof(sock));
	/*
	 * Durable: fsync on, so a crash never corrupts it, and a commit
	 * waits for the disk, because an upload answered 2xx is deleted
	 * from the agent's spool and must survive a crash of the database.
	 */
	bprintf(text, sizeof(text),
		"# Written by 'rtlab db start'; edits are overwritten.\n"
		"listen_addresses = '%s'\n"
		"port = %d\n"
		"unix_socket_directories = %s\n"
		"unix_socket_permissions = 0700\n"
		"fsync = on\n"
		"synchronous_commit = on\n"
		"full_page_writes = on\n"
		"log_line_prefix = '%%m [%%p] %%q%%u@%%d '\n"
		"log_min_messages = warning\n",
		tcp ? "127.0.0.1" : "", port, sock);
	bprintf(path, sizeof(path), "%s/rtlab.conf", c->data_dir);
	ret = write_owned(ra, path, text, 0600, err);
	if (ret)
		return ret;
	bprintf(portnum, sizeof(portnum), "%d\n", port);
	return write_owned(ra, c->port_path, portnum, 0644, err);
}

static int create_database(const struct cluster *c, struct rtlab_err *err)
{
	const char *params[1] = { CLUSTER_DBNAME };
	char *ci = cluster_conninfo(c, "postgres");
	PGresult *res = NULL;
	PGconn *conn = NULL;
	int ret = 0;

	if (!ci)
		return -ENOMEM;
	conn = PQconnectdb(ci);
	if (PQstatus(conn) != CONNECTION_OK) {
		ret = rtlab_err_seterr(
			err, ECONNREFUSED,
			"cannot connect to the embedded PostgreSQL at %s: %s",
			c->run_dir, PQerrorMessage(conn));
		goto out;
	}
	res = PQexecParams(conn, "SELECT 1 FROM pg_database WHERE datname = $1",
			   1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		ret = rtlab_err_seterr(err, EIO, "looking for database %s: %s",
				       CLUSTER_DBNAME, PQerrorMessage(conn));
		goto out;
	}
	if (PQntuples(res) == 0) {
		PQclear(res);
		res = PQexec(conn, "CREATE DATABASE " CLUSTER_DBNAME);
		if (PQresultStatus(res) != PGRES_COMMAND_OK) {
			const char *st =
				PQresultErrorField(res, PG_DIAG_SQLSTATE);

			/* 42P04: someone else created it meanwhile. */
			if (!st || strcmp(st, "42P04"))
				ret = rtlab_err_seterr(err, EIO,
						       "creating database %s: %s",
						       CLUSTER_DBNAME,
						       PQerrorMessage(conn));
		}
	}
out:
	PQclear(res);
	PQfinish(conn);
	free(ci);
	return ret;
}

/* An exclusive lock on STATE_DIR/pg.lock; returns the fd to close. */
static int lock_state(const struct cluster *c, struct rtlab_err *err)
{
	char path[PATH_MAX];
	int fd;

	bprintf(path, sizeof(path), "%s/pg.lock", c->state_dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return rtlab_err_seterr(err, errno, "cannot open %s: %s", path,
					strerror(errno));
	while (flock(fd, LOCK_EX))
		if (errno != EINTR) {
			int e = errno;

			close(fd);
			return rtlab_err_seterr(err, e, "cannot lock %s: %s",
						path, strerror(e));
		}
	return fd;
}

int cluster_start(struct cluster *c, int tcp_port, bool *was_running,
		  struct rtlab_err *err)
{
	char prog[PATH_MAX], version[PATH_MAX], tail[1024];
	char *bindir = NULL;
	int ret, lock_fd = -1;
	struct runas ra;

	*was_running = false;
	if (cluster_running(c)) {
		*was_running = true;
		return create_database(c, err);
	}
	ret = runas_get(&ra, err);
	if (ret)
		return ret;
	bindir = cluster_pg_bindir(err);
	if (!bindir)
		return -ENOENT;
	ret = make_state_dir(c->state_dir, err);
	if (ret)
		goto out;
	/* Two starts at once must not both run initdb. */
	lock_fd = lock_state(c, err);
	if (lock_fd < 0) {
		ret = lock_fd;
		goto out;
	}
	if (cluster_running(c)) {
		*was_running = true;
		ret = create_database(c, err);
		goto out;
	}
	ret = make_dir(c->pg_dir, 0700, &ra, err);
	if (ret)
		goto out;
	ret = check_reachable(&ra, c->pg_dir, err);
	if (ret)
		goto out;
	ret = make_dir(c->run_dir, 0700, &ra, err);
	if (ret)
		goto out;
	bprintf(version, sizeof(version), "%s/PG_VERSION", c->data_dir);
	if (access(version, F_OK)) {
		ret = initdb(&ra, c, bindir, err);
		if (ret)
			goto out;
	}
	c->port = tcp_port > 0 ? tcp_port : CLUSTER_DEFAULT_PORT;
	ret = write_settings(&ra, c, c->port, tcp_port > 0, err);
	if (ret)
		goto out;

	bprintf(prog, sizeof(prog), "%s/pg_ctl", bindir);
	{
		char *argv[] = { prog, "start",		"-w", "-s",
				 "-t", START_TIMEOUT_S, "-D", c->data_dir,
				 "-l", c->log_path,	NULL };

		ret = run_pg(&ra, c, argv, "starting the embedded PostgreSQL",
			     err);
	}
	if (ret) {
		file_tail(c->log_path, 5, tail, sizeof(tail));
		if (*tail && err) {
			char first[256];

			bprintf(first, sizeof(first), "%s", err->msg);
			rtlab_err_seterr(err, EIO, "%s; the end of %s:\n%s",
					 first, c->log_path, tail);
		}
		goto out;
	}
	ret = create_database(c, err);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	free(bindir);
	return ret;
}

int cluster_stop(struct cluster *c, struct rtlab_err *err)
{
	char prog[PATH_MAX];
	char *bindir = NULL;
	struct runas ra;
	int ret;

	if (!cluster_running(c))
		return 0;
	ret = runas_get(&ra, err);
	if (ret)
		return ret;
	bindir = cluster_pg_bindir(err);
	if (!bindir)
		return -ENOENT;
	bprintf(prog, sizeof(prog), "%s/pg_ctl", bindir);
	{
		char *argv[] = { prog,	 "stop", "-w",	      "-s", "-m",
				 "fast", "-D",	 c->data_dir, NULL };

		ret = run_pg(&ra, c, argv, "stopping the embedded PostgreSQL",
			     err);
	}
	free(bindir);
	return ret;
}
