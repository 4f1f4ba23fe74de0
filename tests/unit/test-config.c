// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for path resolution (state directory, shipped data), the
 * configuration file parser and where the database connection string comes
 * from.  No database needed.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../db/cluster.h"
#include "config.h"
#include "check.h"

static void test_state_dir(void)
{
	setenv("RTLAB_STATE_DIR", "/srv/lab/state", 1);
	CHECK_STR(rtlab_state_dir(), "/srv/lab/state", "RTLAB_STATE_DIR wins");

	unsetenv("RTLAB_STATE_DIR");
	setenv("XDG_STATE_HOME", "/home/u/.st", 1);
	setenv("HOME", "/home/u", 1);
	if (geteuid() == 0) {
		CHECK_STR(rtlab_state_dir(), "/var/lib/rtlab",
			  "root: /var/lib/rtlab (XDG ignored)");
	} else {
		CHECK_STR(rtlab_state_dir(), "/home/u/.st/rtlab",
			  "user: $XDG_STATE_HOME/rtlab");
		unsetenv("XDG_STATE_HOME");
		CHECK_STR(rtlab_state_dir(), "/home/u/.local/state/rtlab",
			  "user: ~/.local/state/rtlab");
	}
	setenv("RTLAB_STATE_DIR", "", 1);
	CHECK(strcmp(rtlab_state_dir(), ""), "empty RTLAB_STATE_DIR ignored");
}

static void test_data_dir(void)
{
	char *dir, *path;
	struct stat st;

	setenv("RTLAB_DATADIR", "/opt/rtlab/share", 1);
	path = rtlab_data_path("schema");
	CHECK_STR(path, "/opt/rtlab/share/schema", "RTLAB_DATADIR wins");
	free(path);

	/* This binary lives in BUILD/tests/: the source tree is found. */
	unsetenv("RTLAB_DATADIR");
	dir = rtlab_data_dir();
	CHECK(dir && dir[0] == '/', "data dir is absolute (%s)",
	      dir ? dir : "(null)");
	path = rtlab_data_path("schema/001_init.sql");
	CHECK(path && !stat(path, &st) && S_ISREG(st.st_mode),
	      "the source tree's schema is found (%s)", path ? path : "(null)");
	free(path);
	free(dir);
}

static void test_parse(void)
{
	struct rtlab_config cfg;
	struct rtlab_err err = { "" };
	int ret;

	ret = rtlab_config_init(&cfg);
	CHECK_INT(ret, 0, "config init");
	CHECK_STR(cfg.listen, RTLAB_DEFAULT_LISTEN, "default listen");
	CHECK_INT(cfg.max_upload_mb, RTLAB_DEFAULT_MAX_UPLOAD_MB,
		  "default max_upload_mb");
	CHECK(cfg.db == NULL, "default db: embedded");

	ret = rtlab_config_parse(&cfg,
				 "# lab settings\n"
				 "\n"
				 "  db = host=db.lab dbname=rtlab user=lab  \n"
				 "listen=\"127.0.0.1:9000\"\n"
				 "max_upload_mb = 256\n",
				 "lab.conf", &err);
	CHECK_INT(ret, 0, "valid file parses");
	CHECK_STR(cfg.db, "host=db.lab dbname=rtlab user=lab",
		  "db value trimmed");
	CHECK_STR(cfg.listen, "127.0.0.1:9000", "quoted listen unquoted");
	CHECK_INT(cfg.max_upload_mb, 256, "max_upload_mb");

	ret = rtlab_config_parse(&cfg, "\n\nmax_upload_mb = 0\n", "lab.conf",
				 &err);
	CHECK_INT(ret, -EINVAL, "max_upload_mb 0 refused");
	CHECK_STR(err.msg,
		  "lab.conf line 3: max_upload_mb: expected a whole number of MB from 1 to 65536, got '0'",
		  "error names file, line, key");
	ret = rtlab_config_parse(&cfg, "max_upload_mb = 12x\n", "lab.conf",
				 &err);
	CHECK_INT(ret, -EINVAL, "max_upload_mb 12x refused");
	ret = rtlab_config_parse(&cfg, "colour = blue\n", "lab.conf", &err);
	CHECK_INT(ret, -EINVAL, "unknown key refused");
	CHECK(strstr(err.msg, "unknown key 'colour'") != NULL,
	      "unknown key named (%s)", err.msg);
	ret = rtlab_config_parse(&cfg, "just words\n", "lab.conf", &err);
	CHECK_INT(ret, -EINVAL, "line without '=' refused");
	CHECK(strstr(err.msg, "line 1: expected 'key = value'") != NULL,
	      "missing '=' explained (%s)", err.msg);
	ret = rtlab_config_parse(&cfg, "listen = 8080\n", "lab.conf", &err);
	CHECK_INT(ret, -EINVAL, "listen without host refused");
	CHECK(!cfg.reads_need_token, "default reads: public");
	ret = rtlab_config_parse(&cfg, "reads = token\n", "lab.conf", &err);
	CHECK(!ret && cfg.reads_need_token, "reads = token closes reads");
	ret = rtlab_config_parse(&cfg, "reads = public\n", "lab.conf", &err);
	CHECK(!ret && !cfg.reads_need_token, "reads = public opens them");
	ret = rtlab_config_parse(&cfg, "reads = open\n", "lab.conf", &err);
	CHECK_STR(err.msg,
		  "lab.conf line 1: reads: expected public or token, got 'open'",
		  "reads = open refused, naming file, line, key");
	rtlab_config_cleanup(&cfg);
	rtlab_config_cleanup(&cfg);
	CHECK(cfg.listen == NULL, "cleanup twice is harmless");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_load_and_conninfo(void)
{
	char dir[] = "/tmp/rtlab-test-config.XXXXXX", path[256], where[256];
	struct rtlab_err err = { "" };
	struct rtlab_config cfg;
	enum db_origin origin = -1;
	char *ci;
	int ret;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	setenv("RTLAB_STATE_DIR", dir, 1);
	unsetenv("RTLAB_CONFIG");
	unsetenv("RTLAB_DB");

	ret = rtlab_config_load(&cfg, &err);
	CHECK_INT(ret, 0, "no rtlab.conf in the state dir is fine");
	CHECK(cfg.path == NULL && cfg.db == NULL, "defaults without a file");
	rtlab_config_cleanup(&cfg);

	ci = cluster_conninfo_resolve(&origin, &err);
	snprintf(path, sizeof(path),
		 "host=%s/pg/run port=5432 dbname=rtlab user=postgres", dir);
	CHECK_STR(ci, path, "embedded conninfo");
	CHECK_INT(origin, DB_ORIGIN_EMBEDDED, "origin: embedded");
	free(ci);

	/* The port the cluster was last started with. */
	snprintf(path, sizeof(path), "%s/pg", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/pg/port", dir);
	write_file(path, "25432\n");
	ci = cluster_conninfo_resolve(&origin, &err);
	CHECK(ci && strstr(ci, " port=25432 "), "conninfo takes pg/port (%s)",
	      ci ? ci : "(null)");
	free(ci);
	unlink(path);

	snprintf(path, sizeof(path), "%s/rtlab.conf", dir);
	write_file(path, "db = dbname=fromfile\nmax_upload_mb = 3\n");
	ret = rtlab_config_load(&cfg, &err);
	CHECK_INT(ret, 0, "STATE_DIR/rtlab.conf is read");
	CHECK_STR(cfg.path, path, "config path recorded");
	CHECK_INT(cfg.max_upload_mb, 3, "value from the file");
	rtlab_config_cleanup(&cfg);
	ci = cluster_conninfo_resolve(&origin, &err);
	CHECK_STR(ci, "dbname=fromfile", "conninfo from the file's db");
	CHECK_INT(origin, DB_ORIGIN_CONFIG, "origin: config");
	free(ci);

	setenv("RTLAB_DB", "dbname=fromenv", 1);
	ci = cluster_conninfo_resolve(&origin, &err);
	CHECK_STR(ci, "dbname=fromenv", "RTLAB_DB wins over the file");
	CHECK_INT(origin, DB_ORIGIN_ENV, "origin: env");
	free(ci);
	unsetenv("RTLAB_DB");
	unlink(path);

	snprintf(path, sizeof(path), "%s/missing.conf", dir);
	setenv("RTLAB_CONFIG", path, 1);
	ret = rtlab_config_load(&cfg, &err);
	CHECK_INT(ret, -ENOENT, "a missing $RTLAB_CONFIG is an error");
	CHECK(strstr(err.msg, "missing.conf (from RTLAB_CONFIG)") != NULL,
	      "the error names it (%s)", err.msg);
	rtlab_config_cleanup(&cfg);
	ci = cluster_conninfo_resolve(&origin, &err);
	CHECK(ci == NULL, "no conninfo from a broken configuration");
	free(ci);
	unsetenv("RTLAB_CONFIG");

	cluster_conninfo_redact("host=h port=1 password=s3cret dbname=d", where,
				sizeof(where));
	CHECK(!strstr(where, "s3cret") && strstr(where, "host=h"),
	      "redacted conninfo hides the password (%s)", where);

	setenv("RTLAB_STATE_DIR", "/tmp/a dir's", 1);
	ci = cluster_conninfo_resolve(&origin, &err);
	CHECK_STR(ci,
		  "host='/tmp/a dir\\'s/pg/run' port=5432 dbname=rtlab user=postgres",
		  "a socket path with space and quote is quoted");
	free(ci);

	setenv("RTLAB_PG_BINDIR", dir, 1);
	ci = cluster_pg_bindir(&err);
	CHECK(ci == NULL && strstr(err.msg, "RTLAB_PG_BINDIR="),
	      "a RTLAB_PG_BINDIR without pg_ctl is refused (%s)", err.msg);
	free(ci);
	unsetenv("RTLAB_PG_BINDIR");

	rmdir((snprintf(path, sizeof(path), "%s/pg", dir), path));
	rmdir(dir);
	unsetenv("RTLAB_STATE_DIR");
}

int main(void)
{
	test_state_dir();
	test_data_dir();
	test_parse();
	test_load_and_conninfo();
	return check_exit();
}
