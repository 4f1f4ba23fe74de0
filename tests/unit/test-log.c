// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for lib/log.c and lib/progress.c: line format, levels,
 * truncation, silence when not on a terminal, and a log line clearing the
 * progress line first.
 */

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "log.h"
#include "progress.h"

/* Everything written to @f so far, as a string; caller frees. */
static char *contents(FILE *f)
{
	long n = ftell(f);
	char *buf = malloc(n > 0 ? n + 1 : 1);

	if (!buf)
		return NULL;
	rewind(f);
	n = n > 0 ? (long)fread(buf, 1, n, f) : 0;
	buf[n] = '\0';
	return buf;
}

static void test_log(void)
{
	FILE *f = tmpfile();
	char big[4000], *s;

	CHECK(f != NULL, "tmpfile");
	if (!f)
		return;
	log_set_stream(f);
	log_set_prog("rtlab-agent");
	log_info("board %s: booted", "qemu");
	log_warn("already ends with a newline\n");
	log_debug("not shown at the default level");
	log_set_level(LOG_LEVEL_ERROR);
	log_warn("not shown at level error");
	log_error("run %d failed", 7);
	log_set_level(LOG_LEVEL_INFO);
	s = contents(f);
	CHECK_STR(s,
		  "rtlab-agent: info: board qemu: booted\n"
		  "rtlab-agent: warning: already ends with a newline\n"
		  "rtlab-agent: error: run 7 failed\n",
		  "log lines: program, level, one newline each");
	free(s);

	rewind(f);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_info("%s", big);
	s = contents(f);
	CHECK(s && strlen(s) < sizeof(big) && s[strlen(s) - 1] == '\n' &&
		      !strncmp(s, "rtlab-agent: info: xxx", 22),
	      "a long message is truncated and still ends with a newline");
	free(s);
	log_set_stream(NULL);
	fclose(f);
}

static void test_progress(void)
{
	struct progress p;
	FILE *f = tmpfile();
	char *s;

	CHECK(f != NULL, "tmpfile");
	if (!f)
		return;
	progress_init(&p, "cyclictest-idle", 10);
	p.out = f;
	p.tty = false;
	progress_phase(&p, "loads");
	progress_update(&p);
	progress_done(&p);
	s = contents(f);
	CHECK_STR(s, "", "not a terminal: nothing drawn");
	free(s);

	rewind(f);
	progress_init(&p, "cyclictest-idle", 10);
	p.out = f;
	p.tty = true;
	log_set_stream(f);
	progress_phase(&p, "loads");
	CHECK(p.shown, "a terminal: the line is shown");
	log_info("spike");
	progress_done(&p);
	progress_done(&p);
	log_set_stream(NULL);
	s = contents(f);
	CHECK(s && !strncmp(s, "\rcyclictest-idle [loads] elapsed ", 33) &&
		      strstr(s, " / remaining ") &&
		      strstr(s, "\033[K\r\033[Krtlab-agent: info: spike\n"),
	      "progress line, then a log line that clears it first");
	free(s);

	rewind(f);
	progress_init(&p, NULL, 0);
	p.out = f;
	p.tty = true;
	progress_update(&p);
	progress_done(&p);
	s = contents(f);
	CHECK(s && !strncmp(s, "\r[running] elapsed ", 19) &&
		      !strstr(s, "remaining"),
	      "no total: elapsed only");
	free(s);
	fclose(f);
}

int main(void)
{
	test_log();
	test_progress();
	return check_exit();
}
