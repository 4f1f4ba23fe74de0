// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The environment variables of rtlab and rtlab-agent, in one table, so
 * that --help and README.md cannot drift apart: the docs check compares
 * README.md's table with what the binaries print from here.
 */
#include <stdio.h>
#include <string.h>

#include "envvars.h"

static const struct envvar envvars[] = {
	{ "RTLAB_DB", "libpq connection string of an existing PostgreSQL",
	  "the embedded cluster", ENVVAR_RTLAB },
	{ "RTLAB_STATE_DIR",
	  "where the embedded cluster, caches and reports live",
	  "`/var/lib/rtlab` as root or as the `rtlab` user, else "
	  "`$XDG_STATE_HOME/rtlab`, else `~/.local/state/rtlab`",
	  ENVVAR_RTLAB },
	{ "RTLAB_CACHE_DIR", "fetched kernels and built initramfs archives",
	  "`STATE_DIR/cache`", ENVVAR_RTLAB },
	{ "RTLAB_CONFIG", "the configuration file",
	  "`/etc/rtlab/rtlab.conf` if it exists, else `STATE_DIR/rtlab.conf`",
	  ENVVAR_RTLAB },
	{ "RTLAB_DATADIR", "schema/, testcases/, boards/, kernels/",
	  "the source tree of the binary, else `PREFIX/share/rtlab` beside "
	  "`PREFIX/bin/rtlab`, else the install prefix's",
	  ENVVAR_RTLAB },
	{ "RTLAB_PG_BINDIR",
	  "PostgreSQL's programs (initdb, pg_ctl, postgres, psql) for the "
	  "embedded cluster",
	  "`/usr/lib/postgresql/15/bin`, else the highest "
	  "`/usr/lib/postgresql/N/bin`",
	  ENVVAR_RTLAB },
	{ "RTLAB_AGENT",
	  "the rtlab-agent that local-board jobs, calibration and the "
	  "virtual board run (`rtlab boot --agent` wins)",
	  "the one beside `rtlab`, else on PATH", ENVVAR_RTLAB },
	{ "RTLAB_BOARD_TOOLS_PATH",
	  "colon-separated directories the virtual board's initramfs takes "
	  "its tools from",
	  "`/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/bin`", ENVVAR_RTLAB },
	{ "RTLAB_TOKEN",
	  "a board's upload token, for `rtlab-agent run`/`flush` and "
	  "`rtlab worker --server`; a developer's token for `rtlab submit` "
	  "(`--token` wins)",
	  NULL, ENVVAR_RTLAB | ENVVAR_AGENT },
	{ "RTLAB_SPOOL",
	  "where the agent keeps bundles it could not upload (`--spool` wins)",
	  "`/var/spool/rtlab-agent`", ENVVAR_AGENT },
	{ "RTLAB_READS",
	  "`public` or `token`: whether `rtlab server` answers reads without "
	  "a token",
	  "`reads` of the configuration file, else `public`", ENVVAR_RTLAB },
	{ "RTLAB_BUGZILLA_API_KEY", "the API key `rtlab report file` sends",
	  "`bugzilla_api_key` of the configuration file", ENVVAR_RTLAB },
};

const struct envvar *envvars_get(size_t *n)
{
	*n = sizeof(envvars) / sizeof(envvars[0]);
	return envvars;
}

#define ENVVARS_WIDTH 79
#define ENVVARS_INDENT 25

/* Print @text word by word from column @col, wrapping to ENVVARS_INDENT. */
static void print_wrapped(FILE *out, const char *text, int col)
{
	const char *p = text;
	size_t n;

	while (*p) {
		while (*p == ' ')
			p++;
		n = strcspn(p, " ");
		if (!n)
			break;
		if (col > ENVVARS_INDENT && col + 1 + (int)n > ENVVARS_WIDTH) {
			fprintf(out, "\n%*s", ENVVARS_INDENT, "");
			col = ENVVARS_INDENT;
		} else if (col > ENVVARS_INDENT) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, n, out);
		col += (int)n;
		p += n;
	}
	fputc('\n', out);
}

void envvars_print(FILE *out, unsigned int readers)
{
	char text[512];
	size_t i;
	int col;

	fprintf(out, "Environment:\n");
	for (i = 0; i < sizeof(envvars) / sizeof(envvars[0]); i++) {
		if (!(envvars[i].readers & readers))
			continue;
		if (envvars[i].dflt)
			snprintf(text, sizeof(text), "%s; default: %s",
				 envvars[i].meaning, envvars[i].dflt);
		else
			snprintf(text, sizeof(text), "%s", envvars[i].meaning);
		col = fprintf(out, "  %-*s", ENVVARS_INDENT - 3,
			      envvars[i].name);
		if (col >= ENVVARS_INDENT)
			fprintf(out, "\n%*s", ENVVARS_INDENT, "");
		else
			fputc(' ', out);
		print_wrapped(out, text, ENVVARS_INDENT);
	}
}
