// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Paths and the lab configuration file: where the mutable state lives (the
 * embedded PostgreSQL among it), where the shipped data (schema migrations,
 * testcases, board and kernel definitions) is found, and the small
 * `key = value` file that points the lab at another database or address.
 */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"

#ifndef RTLAB_DATADIR
#define RTLAB_DATADIR "/usr/local/share/rtlab"
#endif
#ifndef RTLAB_SYSCONFDIR
#define RTLAB_SYSCONFDIR "/etc"
#endif
#define RTLAB_SYSTEM_USER "rtlab"
#define RTLAB_SYSTEM_STATE_DIR "/var/lib/rtlab"

const char *rtlab_state_dir(void)
{
	static __thread char buf[PATH_MAX];
	const char *env, *home;
	struct passwd *pw;

	env = getenv("RTLAB_STATE_DIR");
	if (env && *env) {
		snprintf(buf, sizeof(buf), "%s", env);
		return buf;
	}
	/* root, and the rtlab system user the services run as, share the
	 * lab's state; anyone else gets a private one. */
	pw = getpwuid(geteuid());
	if (geteuid() == 0 || (pw && !strcmp(pw->pw_name, RTLAB_SYSTEM_USER))) {
		snprintf(buf, sizeof(buf), RTLAB_SYSTEM_STATE_DIR);
		return buf;
	}
	env = getenv("XDG_STATE_HOME");
	if (env && *env == '/') {
		snprintf(buf, sizeof(buf), "%s/rtlab", env);
		return buf;
	}
	home = getenv("HOME");
	if (!home || !*home)
		home = pw ? pw->pw_dir : NULL;
	if (home && *home)
		snprintf(buf, sizeof(buf), "%s/.local/state/rtlab", home);
	else
		snprintf(buf, sizeof(buf), "/tmp/rtlab-%u",
			 (unsigned int)geteuid());
	return buf;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The source tree above the executable: its directory's parent (build/rtlab)
 * or grandparent (build/tests/test-x), when that holds schema/. */
static char *source_tree(void)
{
	char exe[PATH_MAX], probe[PATH_MAX + 16];
	ssize_t n;
	char *slash;
	int up;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	for (up = 0; up < 3; up++) {
		slash = strrchr(exe, '/');
		if (!slash || slash == exe)
			return NULL;
		*slash = '\0';
		if (up == 0)
			continue; /* the executable's own directory */
		snprintf(probe, sizeof(probe), "%s/schema", exe);
		if (is_dir(probe))
			return strdup(exe);
	}
	return NULL;
}

char *rtlab_cache_dir(void)
{
	const char *env = getenv("RTLAB_CACHE_DIR");
	char *path;

	if (env && *env)
		return strdup(env);
	if (asprintf(&path, "%s/cache", rtlab_state_dir()) < 0)
		return NULL;
	return path;
}

/* An installed tree around the executable: PREFIX/bin/rtlab reads
 * PREFIX/share/rtlab, so a tree installed with DESTDIR, or moved, still
 * finds its data. */
static char *installed_tree(void)
{
	char exe[PATH_MAX], *slash, *dir;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	if (asprintf(&dir, "%s/../share/rtlab", exe) < 0)
		return NULL;
	if (is_dir(dir)) {
		char *real = realpath(dir, NULL);

		if (real) {
			free(dir);
			return real;
		}
		return dir;
	}
	free(dir);
	return NULL;
}

char *rtlab_data_dir(void)
{
	const char *env = getenv("RTLAB_DATADIR");
	char *dir;

	if (env && *env)
		return strdup(env);
	dir = source_tree();
	if (dir)
		return dir;
	dir = installed_tree();
	if (dir)
		return dir;
	return strdup(RTLAB_DATADIR);
}

char *rtlab_data_path(const char *rel)
{
	char *dir = rtlab_data_dir(), *path = NULL;

	if (!dir)
		return NULL;
	if (asprintf(&path, "%s/%s", dir, rel) < 0)
		path = NULL;
	free(dir);
	return path;
}

char *rtlab_config_path(void)
{
	const char *env = getenv("RTLAB_CONFIG");
	char *path;

	if (env && *env)
		return strdup(env);
	if (!access(RTLAB_SYSCONFDIR "/rtlab/rtlab.conf", F_OK))
		return strdup(RTLAB_SYSCONFDIR "/rtlab/rtlab.conf");
	if (asprintf(&path, "%s/rtlab.conf", rtlab_state_dir()) < 0)
		return NULL;
	return path;
}

int rtlab_config_init(struct rtlab_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->listen = strdup(RTLAB_DEFAULT_LISTEN);
	if (!cfg->listen)
		return -ENOMEM;
	cfg->max_upload_mb = RTLAB_DEFAULT_MAX_UPLOAD_MB;
	cfg->bugzilla_max_attachment_kb = RTLAB_DEFAULT_BZ_MAX_ATTACHMENT_KB;
	cfg->bugzilla_product = strdup(RTLAB_DEFAULT_BZ_PRODUCT);
	cfg->bugzilla_component = strdup(RTLAB_DEFAULT_BZ_COMPONENT);
	cfg->bugzilla_version = strdup(RTLAB_DEFAULT_BZ_VERSION);
	if (!cfg->bugzilla_product || !cfg->bugzilla_component ||
	    !cfg->bugzilla_version) {
		rtlab_config_cleanup(cfg);
		return -ENOMEM;
	}
	return 0;
}

void rtlab_config_cleanup(struct rtlab_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->path);
	free(cfg->db);
	free(cfg->listen);
	free(cfg->bugzilla_url);
	free(cfg->bugzilla_product);
	free(cfg->bugzilla_component);
	free(cfg->bugzilla_version);
	free(cfg->bugzilla_api_key);
	free(cfg->public_url);
	free(cfg->farm_schedule);
	free(cfg->smtp_url);
	free(cfg->mail_from);
	memset(cfg, 0, sizeof(*cfg));
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* One "key = value" line, already trimmed and not a comment. */
static int parse_line(struct rtlab_config *cfg, char *line, const char *name,
		      unsigned int lineno, struct rtlab_err *err)
{
	char *eq = strchr(line, '='), *key, *val, *end, **slot = NULL;
	size_t len;
	long mb;

	if (!eq)
		return rtlab_err_set(err, "%s line %u: expected 'key = value'",
				     name, lineno);
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	len = strlen(val);
	if (len >= 2 && val[0] == '"' && val[len - 1] == '"') {
		val[len - 1] = '\0';
		val++;
	}
	if (!strcmp(key, "db")) {
		slot = &cfg->db;
	} else if (!strcmp(key, "listen")) {
		slot = &cfg->listen;
		if (!*val || !strchr(val, ':'))
			return rtlab_err_set(
				err,
				"%s line %u: listen: expected host:port, got '%s'",
				name, lineno, val);
	} else if (!strcmp(key, "max_upload_mb")) {
		errno = 0;
		mb = strtol(val, &end, 10);
		if (errno || end == val || *end || mb < 1 || mb > 65536)
			return rtlab_err_set(
				err,
				"%s line %u: max_upload_mb: expected a whole number of MB from 1 to 65536, got '%s'",
				name, lineno, val);
		cfg->max_upload_mb = (unsigned int)mb;
		return 0;
	} else if (!strcmp(key, "reads")) {
		if (rtlab_config_reads_parse(val, &cfg->reads_need_token))
			return rtlab_err_set(
				err,
				"%s line %u: reads: expected public or token, got '%s'",
				name, lineno, val);
		return 0;
	} else if (!strcmp(key, "bugzilla_url")) {
		slot = &cfg->bugzilla_url;
		if (*val && strncmp(val, "http://", 7) &&
		    strncmp(val, "https://", 8))
			return rtlab_err_set(
				err,
				"%s line %u: bugzilla_url: expected an http:// or https:// URL, got '%s'",
				name, lineno, val);
	} else if (!strcmp(key, "bugzilla_product")) {
		slot = &cfg->bugzilla_product;
	} else if (!strcmp(key, "bugzilla_component")) {
		slot = &cfg->bugzilla_component;
	} else if (!strcmp(key, "bugzilla_version")) {
		slot = &cfg->bugzilla_version;
	} else if (!strcmp(key, "bugzilla_api_key")) {
		slot = &cfg->bugzilla_api_key;
	} else if (!strcmp(key, "bugzilla_max_attachment_kb")) {
		errno = 0;
		mb = strtol(val, &end, 10);
		if (errno || end == val || *end || mb < 1 || mb > 4194304)
			return rtlab_err_set(
				err,
				"%s line %u: bugzilla_max_attachment_kb: expected a whole number of KB from 1 to 4194304, got '%s'",
				name, lineno, val);
		cfg->bugzilla_max_attachment_kb = (unsigned int)mb;
		return 0;
	} else if (!strcmp(key, "public_url")) {
		slot = &cfg->public_url;
		if (*val && strncmp(val, "http://", 7) &&
		    strncmp(val, "https://", 8))
			return rtlab_err_set(
				err,
				"%s line %u: public_url: expected an http:// or https:// URL, got '%s'",
				name, lineno, val);
	} else if (!strcmp(key, "farm_schedule")) {
		slot = &cfg->farm_schedule;
	} else if (!strcmp(key, "smtp_url")) {
		slot = &cfg->smtp_url;
		if (*val && strncmp(val, "smtp://", 7) &&
		    strncmp(val, "smtps://", 8))
			return rtlab_err_set(
				err,
				"%s line %u: smtp_url: expected an smtp:// or smtps:// URL, got '%s'",
				name, lineno, val);
	} else if (!strcmp(key, "mail_from")) {
		slot = &cfg->mail_from;
		if (*val && (!strchr(val, '@') || strpbrk(val, " <>\r\n")))
			return rtlab_err_set(
				err,
				"%s line %u: mail_from: expected an address such as rtlab@lab.example.org, got '%s'",
				name, lineno, val);
	} else {
		return rtlab_err_set(
			err,
			"%s line %u: unknown key '%s' (expected db, listen, max_upload_mb, reads, public_url, farm_schedule, smtp_url, mail_from or bugzilla_url, bugzilla_product, bugzilla_component, bugzilla_version, bugzilla_api_key, bugzilla_max_attachment_kb)",
			name, lineno, key);
	}
	free(*slot);
	*slot = *val ? strdup(val) : NULL;
	if (*val && !*slot)
		return -ENOMEM;
	return 0;
}

int rtlab_config_reads_parse(const char *val, bool *need_token)
{
	if (!strcmp(val, "public"))
		*need_token = false;
	else if (!strcmp(val, "token"))
		*need_token = true;
	else
		return -EINVAL;
	return 0;
}

int rtlab_config_parse(struct rtlab_config *cfg, const char *text,
		       const char *name, struct rtlab_err *err)
{
	char *copy = strdup(text), *line, *next, *t;
	unsigned int lineno = 0;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (line = copy; line && !ret; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		t = trim(line);
		if (!*t || *t == '#')
			continue;
		ret = parse_line(cfg, t, name, lineno, err);
	}
	free(copy);
	return ret;
}

int rtlab_config_load(struct rtlab_config *cfg, struct rtlab_err *err)
{
	bool explicit = getenv("RTLAB_CONFIG") && *getenv("RTLAB_CONFIG");
	char *path = NULL, *text = NULL;
	size_t cap = 0, len = 0, n;
	FILE *f = NULL;
	int ret;

	ret = rtlab_config_init(cfg);
	if (ret)
		return ret;
	path = rtlab_config_path();
	if (!path)
		return -ENOMEM;
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		if (ret == -ENOENT && !explicit)
			ret = 0;
		else
			rtlab_err_seterr(err, -ret,
					 "configuration file %s%s: %s", path,
					 explicit ? " (from RTLAB_CONFIG)" : "",
					 strerror(-ret));
		goto out;
	}
	for (;;) {
		if (cap - len < 4096) {
			char *bigger = realloc(text, cap + 8192);

			if (!bigger) {
				ret = -ENOMEM;
				goto out;
			}
			text = bigger;
			cap += 8192;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		ret = rtlab_err_seterr(err, EIO,
				       "configuration file %s: read error",
				       path);
		goto out;
	}
	text[len] = '\0';
	ret = rtlab_config_parse(cfg, text, path, err);
	if (!ret) {
		cfg->path = path;
		path = NULL;
	}
out:
	if (f)
		fclose(f);
	free(text);
	free(path);
	return ret;
}

#define AGENT_NAME "rtlab-agent"

char *rtlab_agent_path(void)
{
	static const char *const rel[] = { "/" AGENT_NAME, "/../" AGENT_NAME };
	const char *env = getenv("RTLAB_AGENT");
	char exe[PATH_MAX], *slash, *p;
	ssize_t n;
	size_t i;

	if (env && *env)
		return strdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (i = 0; slash && i < sizeof(rel) / sizeof(rel[0]); i++) {
			if (asprintf(&p, "%s%s", exe, rel[i]) < 0)
				return NULL;
			if (!access(p, X_OK))
				return p;
			free(p);
		}
	}
	return path_which(AGENT_NAME);
}
